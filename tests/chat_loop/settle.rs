//! When an answer counts as finished: the settle window, the generating indicator, and
//! messages that were on the page before it loaded.

use super::world::*;
use mcp_bridge_core::domain::messages::Response;
use serde_json::json;

#[test]
fn nothing_runs_while_the_answer_is_generating() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    for _ in 0..5 {
        w.message(1, 1, &c, true);
        w.advance(1000.0);
    }
    assert!(w.executes().is_empty());
}

#[test]
fn a_finished_answer_runs_once_the_window_has_passed() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({"timezone": "Asia/Shanghai"}));
    let first = w.message(1, 1, &c, false);
    assert_eq!(
        first,
        Response::Ack {
            recheck_ms: Some(500)
        }
    );
    assert!(w.executes().is_empty(), "ran before the window passed");
    w.advance(STABLE_MS);
    w.message(1, 1, &c, false);
    let executes = w.executes();
    assert_eq!(executes.len(), 1);
    assert_eq!(executes[0]["name"], "get_current_time");
    assert_eq!(executes[0]["arguments"]["timezone"], "Asia/Shanghai");
}

#[test]
fn the_ack_asks_for_a_report_when_the_rest_of_the_window_has_passed() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.message(1, 1, &c, false);
    w.advance(200.0);
    assert_eq!(
        w.message(1, 1, &c, false),
        Response::Ack {
            recheck_ms: Some(300)
        }
    );
}

#[test]
fn a_text_that_changes_starts_the_window_again() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.message(1, 1, &c[..20], false);
    w.advance(400.0);
    w.message(1, 1, &c, false);
    w.advance(400.0);
    w.message(1, 1, &c, false);
    assert!(
        w.executes().is_empty(),
        "the window counts from the last change"
    );
    w.advance(101.0);
    w.message(1, 1, &c, false);
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn an_answer_without_a_call_does_nothing() {
    let mut w = World::new();
    w.open_chat(1);
    w.answer(1, 1, "The time in Shanghai is 10:30.");
    assert!(w.executes().is_empty());
    assert!(w.typed(1).is_empty());
}

#[test]
fn messages_on_the_page_before_it_loaded_never_run_by_themselves() {
    let mut w = World::new();
    w.page_ready(1, URL);
    let c = call("get_current_time", json!({}));
    w.tab(
        1,
        json!({"type": "message-updated", "url": URL, "index": 3, "text": c,
               "generating": false, "baseline": true}),
    );
    w.advance(5000.0);
    w.message(1, 3, &c, false);
    assert!(w.executes().is_empty());
}

#[test]
fn re_detect_runs_a_call_from_before_the_page_loaded() {
    let mut w = World::new();
    w.page_ready(1, URL);
    let c = call("get_current_time", json!({}));
    w.tab(
        1,
        json!({"type": "message-updated", "url": URL, "index": 3, "text": c,
               "generating": false, "baseline": true}),
    );
    w.action(1, json!({"action": "redetect", "index": 3, "text": c}));
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn switching_to_an_old_conversation_does_not_run_its_last_call() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    let old_chat = "https://chat.deepseek.com/a/chat/s/2";
    for _ in 0..2 {
        w.tab(
            1,
            json!({"type": "message-updated", "url": old_chat, "index": 7, "text": c,
                   "generating": false}),
        );
        w.advance(1000.0);
    }
    assert!(w.executes().is_empty());
}
