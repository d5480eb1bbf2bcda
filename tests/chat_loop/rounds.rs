//! The round cap: an AI that keeps calling tools without a message from the user is
//! paused, and the user's own message or go starts the count again.

use super::world::*;
use serde_json::json;

fn calls(w: &mut World, from: u32, n: u32) {
    for i in from..from + n {
        w.answer(1, i, &call("get_current_time", json!({"i": i})));
    }
}

#[test]
fn the_loop_pauses_after_the_cap() {
    let mut w = World::new();
    w.settings(json!({"maxAutoRounds": 3}));
    w.open_chat(1);
    calls(&mut w, 1, 4);
    assert_eq!(w.executes().len(), 3);
    let f = w.last_float(1);
    assert_eq!(f["status"], "confirm");
    assert!(
        f["consent"]["why"]
            .as_str()
            .unwrap()
            .contains("3 automatic rounds")
    );
}

#[test]
fn the_users_go_runs_the_paused_call_and_starts_a_fresh_count() {
    let mut w = World::new();
    w.settings(json!({"maxAutoRounds": 2}));
    w.open_chat(1);
    calls(&mut w, 1, 3);
    w.action(1, json!({"action": "confirm", "run": true}));
    assert_eq!(w.executes().len(), 3);
    calls(&mut w, 4, 1);
    assert_eq!(w.executes().len(), 4, "a fresh count after the go");
}

#[test]
fn a_message_from_the_user_starts_the_count_again() {
    let mut w = World::new();
    w.settings(json!({"maxAutoRounds": 2}));
    w.open_chat(1);
    calls(&mut w, 1, 2);
    w.tab(1, json!({"type": "user-message"}));
    calls(&mut w, 3, 2);
    assert_eq!(w.executes().len(), 4);
}

#[test]
fn the_count_survives_a_page_reload() {
    let mut w = World::new();
    w.settings(json!({"maxAutoRounds": 2}));
    w.open_chat(1);
    calls(&mut w, 1, 2);
    w.page_ready(1, URL);
    calls(&mut w, 3, 1);
    assert_eq!(w.executes().len(), 2);
}
