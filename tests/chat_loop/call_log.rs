//! What left this machine: every call sent to the bridge is in the call log, per
//! conversation, with its masked arguments, the site and what let it run; a call the bridge
//! never got is not; the log is cleared with the call history.

use super::world::*;
use mcp_bridge_core::domain::messages::Response;
use mcp_bridge_core::runtime::host::{Area, HttpRequest, Method};
use serde_json::{Value, json};

/// A web fetcher, a file writer and the user's trusted clock, with the failure counters'
/// routes the options page resets.
fn bridge(req: &HttpRequest) -> Answer {
    const SERVERS: [(&str, &[&str]); 3] = [
        ("web", &["fetch"]),
        ("files", &["write_file", "append_file"]),
        ("time", &["get_current_time"]),
    ];
    match (req.method, route(req).as_str()) {
        (Method::Post, "reset-history") => {
            ok_json(200, json!({"success": true, "message": "reset"}))
        }
        (Method::Get, "history") => {
            ok_json(200, json!({"success": true, "counters": {}, "limit": 3}))
        }
        _ => bridge_with(&SERVERS, req),
    }
}

fn entries(w: &World) -> Vec<Value> {
    w.stored(Area::Local, "callLog")
        .and_then(|log| log["entries"].as_array().cloned())
        .unwrap_or_default()
}

fn data(r: Response) -> Value {
    let Response::Data { data } = r else {
        panic!("not data: {r:?}");
    };
    data
}

#[test]
fn each_call_that_left_is_logged_masked_with_what_let_it_run_and_cleared_with_the_history() {
    let mut w = World::new();
    w.bridge(bridge);
    w.settings(json!({
        "trustedServers": ["time"],
        "toolPolicies": {"web:fetch": "allow", "files:append_file": "allow"},
        "exemptAfterUntrusted": ["files:append_file"],
    }));
    w.open_chat(1);
    let secret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    // Read-only on a server the user trusts: runs by itself.
    w.answer(1, 1, &call("get_current_time", json!({})));
    // The user's saved Allow; its result (a server not trusted) marks the conversation.
    w.answer(1, 2, &call("fetch", json!({"url": "https://example.com/"})));
    // Exempted by the user: still runs after that content.
    w.answer(1, 3, &call("append_file", json!({"path": "/tmp/x"})));
    // May change things: asks, and runs on the user's go.
    w.answer(
        1,
        4,
        &call("write_file", json!({"path": "/tmp/x", "key": secret})),
    );
    w.action(1, json!({"action": "confirm", "run": true}));
    assert_eq!(w.executes().len(), 4);

    let log = entries(&w);
    let got: Vec<(&str, &str, &str)> = log
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap();
            (s("tool"), s("server"), s("allowedBy"))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("get_current_time", "time", "default"),
            ("fetch", "web", "policy"),
            ("append_file", "files", "exempted"),
            ("write_file", "files", "user"),
        ]
    );
    for e in &log {
        assert_eq!(e["conversation"], URL);
        assert_eq!(e["site"], "chat.deepseek.com");
    }
    let written = log[3]["arguments"].as_str().unwrap();
    assert!(
        written.contains("/tmp/x") && !written.contains(secret),
        "{written}"
    );

    // The options page lists them by conversation, newest first, with each verdict's words.
    let view = data(w.page(json!({"type": "get-call-log"})));
    let calls = view["conversations"][0]["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 4);
    assert_eq!(calls[0]["tool"], "write_file");
    assert_eq!(
        view["verdicts"]["exempted"],
        "you let it run even after web content"
    );

    // Resetting one tool's counters keeps the log; resetting the whole history clears it.
    let one = json!({"type": "reset-history", "serverName": "web", "toolName": "fetch"});
    data(w.page(one));
    assert_eq!(entries(&w).len(), 4);
    data(w.page(json!({"type": "reset-history"})));
    assert!(entries(&w).is_empty());
}

#[test]
fn a_call_the_bridge_refused_for_a_sign_in_is_logged_only_when_it_runs() {
    let (mut w, signed_in) = call_needing_a_sign_in();
    assert_eq!(w.last_float(1)["status"], "held");
    assert!(entries(&w).is_empty(), "it never reached a server");
    signed_in.set(true);
    w.advance(2000.0);
    assert_eq!(w.executes().len(), 2);
    let log = entries(&w);
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["tool"], "search");
    assert_eq!(log[0]["allowedBy"], "default");
}
