//! Nothing runs twice: not across re-renders, reports that race, page reloads, worker
//! restarts or browser restarts. The key of a call is stored before its request leaves.

use super::world::*;
use mcp_bridge_core::runtime::host::Area;
use serde_json::json;

#[test]
fn many_reports_of_one_finished_answer_run_it_once() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    for _ in 0..10 {
        w.advance(700.0);
        w.message(1, 1, &c, false);
    }
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn a_re_render_that_only_changes_white_space_is_the_same_call() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    w.answer(1, 1, &c.replace('\n', "\n\n  "));
    assert_eq!(w.executes().len(), 1);
}

/// Holds every call at the bridge; answers everything else.
fn holding_bridge(req: &mcp_bridge_core::runtime::host::HttpRequest) -> Answer {
    if req.url.ends_with("/execute") {
        Answer::Hold
    } else {
        healthy_bridge(req)
    }
}

#[test]
fn the_key_is_stored_before_the_request_leaves() {
    let mut w = World::new();
    w.bridge(holding_bridge);
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert_eq!(w.held().len(), 1, "the call is at the bridge");
    let executed = w.stored(Area::Local, "executedCalls").expect("stored");
    assert_eq!(executed.as_array().unwrap().len(), 1);
}

#[test]
fn a_worker_restart_after_the_call_does_not_run_it_again() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    w.restart_worker();
    w.answer(1, 1, &c);
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn a_page_reload_does_not_run_the_call_again() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    w.page_ready(1, URL);
    w.answer(1, 1, &c);
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn a_browser_restart_that_clears_session_state_does_not_run_it_again() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    w.restart_worker();
    w.store(Area::Session, "tab:1", json!(null));
    w.page_ready(1, URL);
    w.answer(1, 1, &c);
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn the_same_call_in_a_later_message_is_a_new_call() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    w.answer(1, 2, &c);
    assert_eq!(w.executes().len(), 2);
}

#[test]
fn reports_racing_a_running_call_do_not_start_it_twice() {
    let mut w = World::new();
    w.bridge(holding_bridge);
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    w.advance(1000.0);
    w.message(1, 1, &c, false);
    w.action(1, json!({"action": "redetect", "index": 1, "text": c}));
    assert_eq!(w.held().len(), 1);
    w.release(0, success("10:30"));
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn one_conversation_open_in_two_tabs_runs_its_call_once() {
    let mut w = World::new();
    w.open_chat(1);
    w.open_chat(2);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    w.answer(2, 1, &c);
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn two_conversations_whose_answers_read_the_same_each_run_their_call() {
    let mut w = World::new();
    w.open_chat(1);
    w.page_ready(2, OTHER_URL);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    for _ in 0..2 {
        w.tab(
            2,
            json!({"type": "message-updated", "url": OTHER_URL, "index": 1, "text": c,
                   "generating": false}),
        );
        w.advance(600.0);
    }
    assert_eq!(w.executes().len(), 2);
    assert_eq!(w.typed(1).len(), 1);
    assert_eq!(w.typed(2).len(), 1);
}

#[test]
fn the_executed_set_keeps_the_newest_two_thousand_keys() {
    let mut w = World::new();
    let old: Vec<String> = (0..2000).map(|i| format!("old:{i}")).collect();
    w.store(Area::Local, "executedCalls", json!(old));
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    let keys = w.stored(Area::Local, "executedCalls").unwrap();
    let keys = keys.as_array().unwrap();
    assert_eq!(keys.len(), 2000);
    assert_eq!(keys[0], "old:1", "the oldest key made room");
    assert!(!keys[1999].as_str().unwrap().starts_with("old:"));
}

/// The same answer as a site config's selector finds it (the message's own block) and as
/// the page's structure finds it (the whole entry, with the speaker's name and the
/// toolbar's words around it).
fn framed(c: &str) -> String {
    format!("Assistant said:\n{c}\nCopy  Regenerate  Good response")
}

#[test]
fn an_answer_found_through_another_path_after_it_ran_does_not_run_again() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    assert_eq!(w.executes().len(), 1);
    // The config stops matching (or an override is added mid-page): the same answer now
    // comes from the structural finder, framed by the entry's other words.
    w.answer(1, 1, &framed(&c));
    // …and back again.
    w.answer(1, 1, &c);
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.typed(1).len(), 1);
    // A new answer with the same call is still a new call, whichever path found it.
    w.answer(1, 2, &framed(&c));
    assert_eq!(w.executes().len(), 2);
}

#[test]
fn an_answer_on_the_page_at_load_stays_history_when_another_path_finds_it() {
    let mut w = World::new();
    w.page_ready(1, URL);
    let c = call("get_current_time", json!({}));
    w.tab(
        1,
        json!({"type": "message-updated", "url": URL, "index": 3, "text": c,
               "generating": false, "baseline": true}),
    );
    w.advance(1000.0);
    // The structural finder takes over and reports the same answer in its own frame.
    w.answer(1, 3, &framed(&c));
    assert_eq!(
        w.executes().len(),
        0,
        "a call from before the page loaded never runs by itself"
    );
    // The user can still ask for it, and it then runs once across both paths.
    w.action(
        1,
        json!({"action": "redetect", "index": 3, "text": framed(&c)}),
    );
    w.action(1, json!({"action": "redetect", "index": 3, "text": c}));
    assert_eq!(w.executes().len(), 1);
}
