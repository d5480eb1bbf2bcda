//! Setup problems are the user's, not the AI's: a call that cannot reach the bridge (not
//! running, no or a wrong token) is held in the float, runs once when the bridge answers,
//! and reaches the AI only if the user says so.

use super::world::*;
use mcp_bridge_core::runtime::host::{HttpFailure, HttpRequest};
use serde_json::json;
use std::cell::Cell;
use std::rc::Rc;

fn down(_: &HttpRequest) -> Answer {
    Answer::Now(Err(HttpFailure::Unreachable("connection refused".into())))
}

/// A bridge that is down until `up` is set, then healthy.
fn switchable(up: Rc<Cell<bool>>) -> impl FnMut(&HttpRequest) -> Answer {
    move |req| {
        if up.get() {
            healthy_bridge(req)
        } else {
            down(req)
        }
    }
}

/// A chat whose AI called a tool while the bridge was down: the call is held. Returns the
/// switch that brings the bridge back, and the call.
fn held_call() -> (World, Rc<Cell<bool>>, String) {
    let mut w = World::new();
    let up = Rc::new(Cell::new(false));
    w.open_chat(1);
    w.bridge(switchable(Rc::clone(&up)));
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    (w, up, c)
}

/// A bridge that accepts only `token`.
fn wants_token(token: &'static str) -> impl FnMut(&HttpRequest) -> Answer {
    move |req| {
        // `/health` is open, as on the real bridge (it proves the token there).
        if req.url.ends_with("/health") || req.bearer.as_deref() == Some(token) {
            healthy_bridge(req)
        } else {
            ok_json(
                401,
                json!({"detail": {"error": "missing or wrong token", "type": "Unauthorized"}}),
            )
        }
    }
}

#[test]
fn a_call_the_bridge_never_got_is_held_not_reported() {
    let mut w = World::new();
    w.open_chat(1);
    w.bridge(down);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert!(w.typed(1).is_empty(), "nothing reaches the AI");
    let f = w.last_float(1);
    assert_eq!(f["status"], "held");
    let title = f["title"].as_str().unwrap();
    assert!(title.contains("not running on this computer"), "{title}");
    assert_eq!(f["command"], "mcp-bridge", "the default address: no flags");
    assert!(w.tab_state(1)["phase"]["held"].is_object());
}

#[test]
fn the_held_call_runs_once_when_the_bridge_comes_back() {
    let (mut w, up, _) = held_call();
    // Down for a while: the watch keeps checking, nothing runs.
    for _ in 0..10 {
        w.advance(2000.0);
    }
    assert!(w.typed(1).is_empty());
    up.set(true);
    w.advance(2000.0);
    // Held before it left: the call reaches the bridge once, when it is back.
    assert_eq!(w.executes().len(), 1);
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1, "exactly one result reaches the chat");
    assert!(
        typed[0].contains("# MCP Bridge · result of "),
        "{}",
        typed[0]
    );
    assert_eq!(w.tab_state(1)["phase"], "done");
    // Nothing more happens later.
    w.advance(10_000.0);
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn the_watch_checks_at_most_two_seconds_apart() {
    let (mut w, up, _) = held_call();
    for _ in 0..6 {
        w.advance(2000.0);
    }
    up.set(true);
    // Within 2 s of the bridge answering, the call has run.
    w.advance(2000.0);
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn a_missing_token_is_held_with_the_fix_and_runs_once_the_token_is_saved() {
    let mut w = World::new();
    w.open_chat(1);
    w.bridge(wants_token("right"));
    w.proves(Prover::Token("right".into()));
    w.answer(1, 1, &call("get_current_time", json!({})));
    let f = w.last_float(1);
    let title = f["title"].as_str().unwrap().to_string();
    assert!(title.contains("needs a token"), "{title}");
    assert_eq!(f["command"], "mcp-bridge install");
    w.settings(json!({"token": "wrong"}));
    w.advance(2000.0);
    let detail = w.last_float(1)["title"].as_str().unwrap().to_string();
    assert!(
        detail.contains("refused this token"),
        "the float says the current problem: {detail}"
    );
    assert!(w.typed(1).is_empty());
    w.settings(json!({"token": "right"}));
    w.advance(2000.0);
    assert_eq!(w.typed(1).len(), 1);
    assert!(w.typed(1)[0].contains("# MCP Bridge · result of "));
}

#[test]
fn tell_the_ai_sends_the_report_once_and_ends_the_wait() {
    let (mut w, up, _) = held_call();
    w.action(1, json!({"action": "held", "tellAi": true}));
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1);
    assert!(typed[0].contains("unavailable"), "{}", typed[0]);
    up.set(true);
    w.advance(5000.0);
    assert!(
        w.executes().is_empty(),
        "the call does not run after the AI was told"
    );
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn skip_drops_the_call() {
    let (mut w, up, c) = held_call();
    w.action(1, json!({"action": "held", "tellAi": false}));
    assert_eq!(w.last_float(1)["status"], "ready");
    up.set(true);
    w.advance(5000.0);
    w.answer(1, 1, &c);
    assert!(w.typed(1).is_empty());
    assert!(w.executes().is_empty());
}

#[test]
fn a_restarted_worker_takes_the_watch_up_again() {
    let (mut w, up, c) = held_call();
    w.restart_worker();
    up.set(true);
    // The tab's next report wakes the new worker.
    w.message(1, 1, &c, false);
    w.advance(2000.0);
    assert_eq!(w.typed(1).len(), 1);
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn failures_about_the_tool_still_go_to_the_ai() {
    let mut w = World::new();
    w.open_chat(1);
    w.bridge(|req| {
        if req.url.ends_with("/execute") {
            ok_json(
                502,
                json!({"detail": {"error": "MCP server demo crashed", "type": "ServerCrashed"}}),
            )
        } else {
            healthy_bridge(req)
        }
    });
    w.answer(1, 1, &call("check", json!({})));
    assert_eq!(w.typed(1).len(), 1);
    assert_ne!(w.last_float(1)["status"], "held");
}

#[test]
fn a_held_call_is_not_started_again_by_later_reports() {
    let mut w = World::new();
    w.open_chat(1);
    w.bridge(down);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    for _ in 0..3 {
        w.answer(1, 1, &c);
    }
    assert!(w.executes().is_empty());
    assert!(w.held_watch_is_single());
}

#[test]
fn a_call_the_bridge_refused_mid_way_is_held_and_retried_once() {
    // The tool lists answered, then the bridge was gone when the call itself left: the call
    // was judged, is held, and is tried once more when the bridge is back.
    let mut w = World::new();
    let up = Rc::new(Cell::new(true));
    let (flag, mut executes) = (Rc::clone(&up), 0);
    w.open_chat(1);
    w.bridge(move |req| {
        if req.url.ends_with("/execute") {
            executes += 1;
            if executes == 1 {
                flag.set(false);
                return down(req);
            }
        }
        if flag.get() {
            healthy_bridge(req)
        } else {
            down(req)
        }
    });
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert_eq!(w.last_float(1)["status"], "held");
    assert_eq!(w.tab_state(1)["phase"]["held"]["judged"], true);
    w.advance(2000.0);
    assert!(w.typed(1).is_empty(), "still down");
    up.set(true);
    w.advance(2000.0);
    assert_eq!(w.executes().len(), 2, "the refused try and the retry");
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn a_server_that_needs_a_sign_in_holds_the_call_until_the_user_signs_in() {
    let (mut w, signed_in) = call_needing_a_sign_in();
    assert!(w.typed(1).is_empty(), "nothing reaches the AI");
    let f = w.last_float(1);
    assert_eq!(f["status"], "held", "{f}");
    let title = f["title"].as_str().unwrap();
    assert!(
        title.contains("wiki") && title.contains("needs you to sign in"),
        "{title}"
    );
    assert!(f["command"].is_null(), "no command fixes it: {f}");
    assert_eq!(w.executes().len(), 1);
    // The bridge answers all along, but the call waits for the server, not for the bridge.
    for _ in 0..5 {
        w.advance(2000.0);
    }
    assert_eq!(
        w.executes().len(),
        1,
        "not sent again while nobody signed in"
    );
    assert!(w.typed(1).is_empty());
    signed_in.set(true);
    w.advance(2000.0);
    assert_eq!(w.executes().len(), 2);
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1, "exactly one result reaches the chat");
    assert!(
        typed[0].contains("# MCP Bridge · result of "),
        "{}",
        typed[0]
    );
}

/// The connection check a page starts when it opens runs beside the chat loop: a bridge that
/// is away may answer it late, after the AI's call was already held.
fn slow_to_refuse_the_page_check(first: Rc<Cell<bool>>) -> impl FnMut(&HttpRequest) -> Answer {
    move |req| {
        if req.url.contains("/health") && first.replace(false) {
            Answer::Hold
        } else {
            down(req)
        }
    }
}

#[test]
fn the_page_check_answered_late_leaves_the_held_call_in_the_float() {
    for token in ["", "t0ken-of-the-extension"] {
        let mut w = World::new();
        w.settings(json!({ "token": token }));
        let first = Rc::new(Cell::new(true));
        w.bridge(slow_to_refuse_the_page_check(Rc::clone(&first)));
        w.open_chat(1);
        assert_eq!(w.held().len(), 1, "the page's check waits for the bridge");
        w.answer(1, 1, &call("get_current_time", json!({})));
        assert_eq!(w.last_float(1)["status"], "held");
        let refused = HttpFailure::Unreachable("connection refused".into());
        w.release(0, Answer::Now(Err(refused)));
        // The call is still held, and the float still offers what to do with it.
        assert_eq!(
            w.last_float(1)["status"],
            "held",
            "with token {token:?}: {}",
            w.last_float(1)
        );
        assert!(w.tab_state(1)["phase"]["held"].is_object());
    }
}

#[test]
fn with_no_token_a_call_held_while_the_bridge_was_away_runs_once_when_a_no_auth_bridge_is_back() {
    let mut w = World::new();
    let up = Rc::new(Cell::new(false));
    let flag = Rc::clone(&up);
    w.bridge(move |req| {
        if flag.get() {
            healthy_bridge(req)
        } else {
            down(req)
        }
    });
    // A `--no-auth` bridge, and an extension that holds no token.
    w.proves(Prover::NoAuth);
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.answer(1, 1, &c);
    assert_eq!(w.last_float(1)["status"], "held");
    // Away for 6 s, then back: within the next 2 s the call has run, once.
    for _ in 0..3 {
        w.advance(2000.0);
    }
    assert!(w.executes().is_empty());
    up.set(true);
    w.advance(2000.0);
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.typed(1).len(), 1, "exactly one result reaches the chat");
    assert!(w.typed(1)[0].contains("# MCP Bridge · result of "));
    // The page reports the answer again, as pages do: nothing runs twice.
    w.answer(1, 1, &c);
    w.advance(10_000.0);
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.typed(1).len(), 1);
}
