//! Long calls: long-polling, a resume after a worker restart, and the user's Cancel.

use super::world::*;
use mcp_bridge_core::runtime::host::Method;
use serde_json::json;

/// A bridge whose `/execute` answers "still running" and whose polls are held.
fn slow_bridge(req: &mcp_bridge_core::runtime::host::HttpRequest) -> Answer {
    if req.url.ends_with("/execute") {
        pending("c-42")
    } else if req.url.contains("/calls/") && req.method == Method::Get {
        Answer::Hold
    } else {
        healthy_bridge(req)
    }
}

#[test]
fn a_long_call_is_polled_until_its_result_comes() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    assert_eq!(w.held().len(), 1);
    assert!(w.held()[0].url.contains("/calls/c-42?wait=20"));
    assert_eq!(w.tab_state(1)["phase"]["executing"]["callId"], "c-42");
    w.release(0, pending("c-42"));
    w.release(0, success("done at last"));
    assert_eq!(w.executes().len(), 1);
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1);
    assert!(typed[0].contains("done at last"), "{}", typed[0]);
}

#[test]
fn the_float_shows_the_running_tool_while_it_runs() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    let f = w.last_float(1);
    assert_eq!(f["status"], "executing");
    assert_eq!(f["tool"], "slow");
}

#[test]
fn a_restarted_worker_resumes_polling_instead_of_running_again() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    let c = call("slow", json!({}));
    w.answer(1, 1, &c);
    w.restart_worker();
    // The content script's next report wakes the new worker.
    w.advance(1000.0);
    w.message(1, 1, &c, false);
    let held = w.held();
    assert_eq!(held.len(), 1, "{held:?}");
    assert!(held[0].url.contains("/calls/c-42"));
    w.release(0, success("resumed"));
    assert_eq!(w.executes().len(), 1, "never a second POST /execute");
    assert!(w.typed(1)[0].contains("resumed"));
}

#[test]
fn a_reloaded_page_keeps_showing_the_running_call() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    let r = w.page_ready(1, URL);
    let r = serde_json::to_value(r).unwrap();
    assert_eq!(r["float"]["status"], "executing");
    assert_eq!(r["float"]["tool"], "slow");
}

#[test]
fn cancel_stops_a_long_call_at_the_bridge_and_tells_the_ai() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    w.action(1, json!({"action": "cancel"}));
    assert_eq!(
        w.requests_to("/calls/c-42") - 1,
        1,
        "one DELETE after the poll"
    );
    let deletes = w
        .host
        .0
        .requests
        .borrow()
        .iter()
        .filter(|r| r.method == Method::Delete)
        .count();
    assert_eq!(deletes, 1);
    // The poll under way comes back; the result is not delivered as a success.
    w.release(0, pending("c-42"));
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1);
    assert!(
        !typed[0].contains("# MCP Bridge · result of "),
        "{}",
        typed[0]
    );
}

#[test]
fn a_cancelled_call_that_finishes_anyway_is_not_reported_as_its_result() {
    let mut w = World::new();
    w.bridge(|req| {
        if req.url.ends_with("/execute") {
            Answer::Hold
        } else {
            healthy_bridge(req)
        }
    });
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    w.action(1, json!({"action": "cancel"}));
    w.release(0, success("SECRET RESULT"));
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1);
    assert!(!typed[0].contains("SECRET RESULT"), "{}", typed[0]);
}

#[test]
fn a_bridge_that_does_not_answer_in_time_is_a_timeout_report() {
    let mut w = World::new();
    w.bridge(|req| {
        if req.url.ends_with("/execute") {
            Answer::Now(Err(mcp_bridge_core::runtime::host::HttpFailure::TimedOut))
        } else {
            healthy_bridge(req)
        }
    });
    w.open_chat(1);
    w.answer(1, 1, &call("slow", json!({})));
    let f = w.last_float(1);
    assert_eq!(f["status"], "error");
    assert!(
        f["report"].as_str().unwrap().contains("TimeoutError"),
        "{f}"
    );
}

#[test]
fn a_cancelled_call_stays_cancelled_after_a_worker_restart() {
    let mut w = World::new();
    w.bridge(slow_bridge);
    w.open_chat(1);
    let c = call("slow", json!({}));
    w.answer(1, 1, &c);
    w.action(1, json!({"action": "cancel"}));
    assert_eq!(w.tab_state(1)["phase"]["executing"]["cancelled"], true);
    w.restart_worker();
    // The next report wakes the new worker, which polls for the call again…
    w.advance(1000.0);
    w.message(1, 1, &c, false);
    assert_eq!(w.held().len(), 1, "{:?}", w.held());
    // …and a result that comes anyway is not reported as the call's result.
    w.release(0, success("LATE RESULT"));
    assert_eq!(w.executes().len(), 1);
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1, "{typed:?}");
    assert!(!typed[0].contains("LATE RESULT"), "{}", typed[0]);
}
