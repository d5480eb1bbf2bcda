//! A tab's events one at a time: each event reads the tab's state once and writes it at
//! most once, a second event waits for the first instead of working on a stale copy, and
//! what waits long (a call at the bridge, the watch of a held call) runs outside the queue,
//! so the user's *Cancel* or *Skip* is taken at once and a late answer does not undo it.

use super::world::*;
use mcp_bridge_core::domain::messages::Response;
use mcp_bridge_core::runtime::host::{HttpFailure, HttpRequest, Method};
use serde_json::json;
use std::cell::Cell;
use std::rc::Rc;

#[test]
fn one_message_reads_the_tabs_state_once_per_event_and_writes_it_at_most_once() {
    let mut w = World::new();
    w.open_chat(1);
    w.tab_state_accesses(1);
    // While the answer streams, the content script reports it without its text: the first
    // report changes the state, the next two change nothing and write nothing.
    for _ in 0..3 {
        w.message(1, 1, "", true);
    }
    assert_eq!(w.tab_state_accesses(1), (3, 1));
    // Four events: the answer reported, reported again once settled (judged and started),
    // the call's answer back from the bridge, and its report typed into the chat.
    w.answer(1, 1, &call("echo", json!({})));
    assert_eq!(w.typed(1).len(), 1);
    assert_eq!(w.tab_state(1)["phase"], "done");
    assert_eq!(w.tab_state_accesses(1), (4, 4));
}

/// A bridge that serves the tool lists but goes away as the first call is sent (so the call
/// is held after it was judged), until `up` is set; back, it holds its first `GET /tools`
/// (the held call's watch checking it) until the test answers.
fn going_away(up: Rc<Cell<bool>>) -> impl FnMut(&HttpRequest) -> Answer {
    let (mut sent, mut held_one) = (false, false);
    move |req| {
        if !sent && req.url.ends_with("/execute") {
            sent = true;
            up.set(false);
        }
        if !up.get() {
            return Answer::Now(Err(HttpFailure::Unreachable("connection refused".into())));
        }
        if sent && !held_one && req.method == Method::Get && route(req) == "tools" {
            held_one = true;
            return Answer::Hold;
        }
        healthy_bridge(req)
    }
}

/// A call held because the bridge went away as it was sent, and the bridge back with the
/// watch's check of it under way.
fn held_while_checked() -> World {
    let mut w = World::new();
    let up = Rc::new(Cell::new(true));
    w.open_chat(1);
    w.bridge(going_away(Rc::clone(&up)));
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert_eq!(w.last_float(1)["status"], "held");
    assert_eq!(w.executes().len(), 1, "sent once, and it never arrived");
    w.advance(2000.0);
    up.set(true);
    w.advance(2000.0);
    let held = w.held();
    assert_eq!(
        held.len(),
        1,
        "the watch's check waits at the bridge: {held:?}"
    );
    assert_eq!(route(&held[0]), "tools");
    w
}

/// The check under way finds the bridge up.
fn the_check_answers(w: &mut World) {
    let check = w.held()[0].clone();
    w.release(0, healthy_bridge(&check));
    w.advance(10_000.0);
}

#[test]
fn a_held_call_skipped_while_the_bridge_is_checked_never_runs() {
    let mut w = held_while_checked();
    let r = w.action(1, json!({"action": "held", "tellAi": false}));
    assert!(matches!(r, Some(Response::Ack { .. })), "{r:?}");
    assert_eq!(w.last_float(1)["status"], "ready");
    the_check_answers(&mut w);
    assert_eq!(
        w.executes().len(),
        1,
        "the user skipped it: never sent again"
    );
    assert!(w.typed(1).is_empty());
    assert_eq!(w.last_float(1)["status"], "ready");
}

#[test]
fn a_held_call_told_to_the_ai_while_the_bridge_is_checked_is_reported_once_and_never_runs() {
    let mut w = held_while_checked();
    w.action(1, json!({"action": "held", "tellAi": true}));
    the_check_answers(&mut w);
    assert_eq!(
        w.executes().len(),
        1,
        "the AI was told it did not run: never sent again"
    );
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1, "{typed:?}");
    assert!(
        !typed[0].contains("# MCP Bridge · result of "),
        "{}",
        typed[0]
    );
}

#[test]
fn a_message_reported_again_while_its_call_is_judged_waits_and_is_judged_once() {
    let mut w = World::new();
    w.open_chat(1);
    // The tool lists are slow: the first look at them waits at the bridge.
    let mut held_one = false;
    w.bridge(move |req| {
        if !held_one && route(req).starts_with("tools?serverName=") {
            held_one = true;
            return Answer::Hold;
        }
        healthy_bridge(req)
    });
    // `write_note` declares nothing, so it asks first.
    let c = call("write_note", json!({"text": "hi"}));
    w.message(1, 1, &c, false);
    w.advance(STABLE_MS + 1.0);
    let first = w.send_waiting(1, message_json(1, &c));
    assert_eq!(w.held().len(), 1, "judging waits for the tool lists");
    // The content script reports the same answer again: it waits for the first.
    let again = w.send_waiting(1, message_json(1, &c));
    assert!(first.borrow().is_none() && again.borrow().is_none());
    let check = w.held()[0].clone();
    w.release(0, healthy_bridge(&check));
    assert!(matches!(*first.borrow(), Some(Response::Ack { .. })));
    assert!(matches!(*again.borrow(), Some(Response::Ack { .. })));
    let asked = w.floats(1);
    let asked = asked.iter().filter(|f| f["status"] == "confirm").count();
    assert_eq!(asked, 1, "one prompt for one call");
    assert!(w.tab_state(1)["phase"]["detected"].is_object());
}

#[test]
fn cancel_and_reports_are_answered_at_once_while_a_call_waits_at_the_bridge() {
    let mut w = World::new();
    w.bridge(|req| {
        if req.url.ends_with("/execute") {
            pending("c-7")
        } else if req.url.contains("/calls/") && req.method == Method::Get {
            Answer::Hold
        } else {
            healthy_bridge(req)
        }
    });
    w.open_chat(1);
    let c = call("slow", json!({}));
    w.answer(1, 1, &c);
    assert_eq!(w.held().len(), 1, "the long poll waits at the bridge");
    // Reports of the tab are answered while it waits (outside the tab's queue)…
    let r = w.message(1, 1, &c, false);
    assert!(matches!(r, Response::Ack { .. }), "{r:?}");
    // …and so is Cancel, which reaches the bridge at once.
    let r = w.action(1, json!({"action": "cancel"}));
    assert!(matches!(r, Some(Response::Ack { .. })), "{r:?}");
    let requests = w.host.0.requests.borrow().clone();
    let deletes = requests.iter().filter(|r| r.method == Method::Delete);
    assert_eq!(deletes.count(), 1);
    // The late answer is not typed as the call's result.
    w.release(0, success("LATE RESULT"));
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1);
    assert!(!typed[0].contains("LATE RESULT"), "{}", typed[0]);
    assert!(w.tab_state(1)["phase"].get("executing").is_none());
}

fn message_json(index: u32, text: &str) -> serde_json::Value {
    json!({"type": "message-updated", "url": URL, "index": index, "text": text,
           "generating": false})
}
