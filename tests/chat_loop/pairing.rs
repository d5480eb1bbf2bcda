//! Pairing through the native messaging host, and the connection status: on first run (no
//! token), when the bridge refuses the token, and when no bridge answers, the core asks the
//! host for the address and token, stores them and goes on; without a host, the float and
//! the status say the two ways to connect.

use super::world::*;
use mcp_bridge_core::runtime::host::{Area, HttpFailure, HttpRequest};
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;

/// A real bridge's manners: `/health` open, everything else only with `token` (none for a
/// `--no-auth` bridge).
fn bridge_with_token(token: Option<&'static str>) -> impl FnMut(&HttpRequest) -> Answer {
    move |req| {
        if req.url.ends_with("/health") || token.is_none() || req.bearer.as_deref() == token {
            healthy_bridge(req)
        } else {
            ok_json(
                401,
                json!({"detail": {"error": "missing or wrong token", "type": "Unauthorized"}}),
            )
        }
    }
}

fn paired(token: &str) -> Value {
    json!({"type": "paired", "url": "http://127.0.0.1:3849", "token": token, "started": false})
}

fn stored_token(w: &World) -> Value {
    w.stored(Area::Local, "settings").unwrap_or_default()["token"].clone()
}

fn status(w: &mut World) -> Value {
    match w.page(json!({"type": "get-status"})) {
        mcp_bridge_core::domain::messages::Response::Data { data } => data,
        other => panic!("{other:?}"),
    }
}

#[test]
fn first_run_pairs_through_the_host_and_the_first_call_works() {
    let mut w = World::new();
    w.bridge(bridge_with_token(Some("T0k")));
    w.proves(Prover::Token("T0k".into()));
    *w.host.0.native.borrow_mut() = Some(paired("T0k"));
    w.open_chat(1);
    assert_eq!(
        w.host.0.native_asks.get(),
        1,
        "no token stored: the host is asked"
    );
    assert_eq!(stored_token(&w), "T0k");
    assert!(
        w.floats(1).is_empty(),
        "nothing to tell the user: {:?}",
        w.floats(1)
    );
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn a_refused_token_is_replaced_by_the_hosts_and_the_held_call_runs() {
    let mut w = World::new();
    w.settings(json!({"token": "old"}));
    // The host is not registered yet when the page opens.
    w.bridge(bridge_with_token(Some("new")));
    w.proves(Prover::Token("new".into()));
    w.open_chat(1);
    let f = w.last_float(1);
    assert_eq!(f["status"], "unreachable");
    assert!(
        f["title"].as_str().unwrap().contains("refused this token"),
        "{f}"
    );
    assert_eq!(f["command"], "mcp-bridge install");
    // The user runs `mcp-bridge install`; the next call is held, the host asked, and it runs.
    *w.host.0.native.borrow_mut() = Some(paired("new"));
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert_eq!(w.last_float(1)["status"], "held");
    assert!(w.typed(1).is_empty());
    for _ in 0..3 {
        w.advance(2_000.0);
    }
    assert_eq!(stored_token(&w), "new");
    assert_eq!(w.executes().len(), 1, "the held call ran once");
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn without_a_host_the_float_gives_the_command_that_starts_the_bridge_in_the_users_language() {
    for lang in ["en-US", "zh-CN"] {
        let mut w = World::new();
        w.ui_language(lang);
        w.bridge(|_: &HttpRequest| Answer::Now(Err(HttpFailure::Unreachable("refused".into()))));
        w.open_chat(1);
        assert_eq!(w.host.0.native_asks.get(), 1);
        let f = w.last_float(1);
        assert_eq!(f["status"], "unreachable", "{f}");
        let title = f["title"].as_str().unwrap();
        let said = if lang == "en-US" {
            "not running on this computer"
        } else {
            "没有运行"
        };
        assert!(title.contains(said), "{title}");
        assert_eq!(f["command"], "mcp-bridge", "{f}");
        assert_eq!(f["lang"], &lang[..2]);
        assert_eq!(stored_token(&w), Value::Null, "nothing was stored");
    }
}

#[test]
fn a_host_that_cannot_start_the_bridge_gives_the_command() {
    let mut w = World::new();
    w.bridge(|_: &HttpRequest| Answer::Now(Err(HttpFailure::Unreachable("refused".into()))));
    *w.host.0.native.borrow_mut() = Some(json!({
        "type": "unavailable", "reason": "cannot start /opt/mcp-bridge: denied",
        "command": "/opt/mcp-bridge"
    }));
    let s = status(&mut w);
    assert_eq!(s["state"], "not-running");
    assert!(
        s["detail"]
            .as_str()
            .unwrap()
            .contains("Run in a terminal: /opt/mcp-bridge"),
        "{s}"
    );
}

#[test]
fn the_status_names_each_state() {
    let mut w = World::new();
    // Connected: the token works; no need to ask the host.
    w.settings(json!({"token": "T0k"}));
    w.bridge(bridge_with_token(Some("T0k")));
    w.proves(Prover::Token("T0k".into()));
    let s = status(&mut w);
    assert_eq!(s["state"], "connected");
    assert_eq!(s["title"], "Connected — bridge 0.1.0 · 2 servers, 7 tools");
    assert_eq!(w.host.0.native_asks.get(), 0);

    // Token rejected (no host to ask).
    w.settings(json!({"token": "wrong"}));
    let s = status(&mut w);
    assert_eq!(s["state"], "token-rejected");
    assert!(s["detail"].as_str().unwrap().contains("mcp-bridge install"));

    // Token missing.
    w.settings(json!({"token": ""}));
    assert_eq!(status(&mut w)["state"], "token-missing");

    // Wrong address: something answers, but not our bridge; the host is not asked.
    let asked = w.host.0.native_asks.get();
    w.bridge(|_: &HttpRequest| ok_json(404, json!({"detail": "Not Found"})));
    let s = status(&mut w);
    assert_eq!(s["state"], "wrong-address");
    assert_eq!(w.host.0.native_asks.get(), asked);

    // Not running.
    w.bridge(|_: &HttpRequest| Answer::Now(Err(HttpFailure::Unreachable("refused".into()))));
    assert_eq!(status(&mut w)["state"], "not-running");

    // A server that failed to start is named.
    w.settings(json!({"token": "T0k"}));
    w.bridge(|req: &HttpRequest| {
        if req.url.ends_with("/tools") {
            ok_json(
                200,
                json!({"success": true, "services": [
                {"name": "time", "status": "running", "tool_count": 2},
                {"name": "broken", "status": "failed", "tool_count": 0}]}),
            )
        } else {
            healthy_bridge(req)
        }
    });
    let s = status(&mut w);
    assert_eq!(s["state"], "connected");
    assert_eq!(s["failed"], json!(["broken"]));
    assert_eq!(s["detail"], "Did not start: broken");
}

#[test]
fn the_status_pairs_when_the_token_is_rejected() {
    let mut w = World::new();
    w.settings(json!({"token": "old"}));
    w.bridge(bridge_with_token(Some("new")));
    w.proves(Prover::Token("new".into()));
    *w.host.0.native.borrow_mut() = Some(paired("new"));
    let s = status(&mut w);
    assert_eq!(s["state"], "connected", "{s}");
    assert_eq!(stored_token(&w), "new");
}

#[test]
fn an_empty_token_is_the_bridges_to_judge() {
    let mut w = World::new();
    // A `--no-auth` bridge: the host hands out no token, and none is needed.
    w.bridge(bridge_with_token(None));
    w.proves(Prover::NoAuth);
    *w.host.0.native.borrow_mut() =
        Some(json!({"type": "paired", "url": "http://127.0.0.1:3849", "token": null}));
    assert_eq!(status(&mut w)["state"], "connected");
    let reset_seen = Rc::new(Cell::new(false));
    let seen = Rc::clone(&reset_seen);
    w.bridge(move |req: &HttpRequest| {
        if req.url.ends_with("/reset-history") {
            seen.set(req.bearer.is_none());
            return ok_json(200, json!({"success": true, "message": "reset"}));
        }
        if req.url.ends_with("/history") {
            return ok_json(200, json!({"success": true, "history": {}}));
        }
        healthy_bridge(req)
    });
    let answer = w.page(json!({"type": "reset-history"}));
    assert!(
        matches!(
            answer,
            mcp_bridge_core::domain::messages::Response::Data { .. }
        ),
        "{answer:?}"
    );
    assert!(reset_seen.get(), "the reset went out without a token");
}

/// The bridge is down and a stranger listens on its port, answering like the bridge: the
/// status check, the page's first check and a held call's checks every 2 s never send it the
/// token. When the real bridge is back (it proves it holds the token), the held call runs.
#[test]
fn a_stranger_listening_on_the_port_learns_nothing() {
    let mut w = World::new();
    w.settings(json!({"token": "T0k"}));
    w.bridge(bridge_with_token(Some("T0k")));
    w.proves(Prover::Stranger);
    let s = status(&mut w);
    assert_eq!(s["state"], "token-rejected", "{s}");
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert_eq!(w.last_float(1)["status"], "held", "{}", w.last_float(1));
    for _ in 0..5 {
        w.advance(2_000.0);
    }
    assert!(w.executes().is_empty(), "nothing ran against the stranger");
    let requests = w.host.0.requests.borrow().clone();
    assert!(
        requests.len() >= 5,
        "the stranger was asked, again and again: {requests:?}"
    );
    for r in &requests {
        assert_eq!(r.bearer, None, "the token went to a stranger: {r:?}");
        assert!(r.url.contains("/health?challenge="), "{r:?}");
    }
    // Each check asks a fresh challenge: a recorded answer is worth nothing.
    let mut nonces: Vec<&str> = requests.iter().map(|r| r.url.as_str()).collect();
    nonces.sort();
    nonces.dedup();
    assert_eq!(nonces.len(), requests.len());

    // The bridge is back: it proves it holds the token, and the held call runs once.
    w.proves(Prover::Token("T0k".into()));
    for _ in 0..2 {
        w.advance(2_000.0);
    }
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.typed(1).len(), 1);
}

/// A stranger on the port that claims to be a `--no-auth` bridge (`"auth": "none"`, no proof)
/// while the extension holds a token is a stranger like any other: it is sent no call and its
/// answers are never believed; the status says the token was not proven, and so does the float.
#[test]
fn a_stranger_claiming_no_auth_gets_no_call_while_the_extension_holds_a_token() {
    let mut w = World::new();
    w.settings(json!({"token": "T0k"}));
    // It answers every route as the bridge would, to anyone.
    w.bridge(bridge_with_token(None));
    w.proves(Prover::NoAuth);
    let s = status(&mut w);
    assert_eq!(s["state"], "token-rejected", "{s}");
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({"secret": "kept"})));
    let float = w.last_float(1);
    assert_eq!(float["status"], "held", "{float}");
    assert!(
        float.to_string().to_lowercase().contains("token"),
        "the float says the token is the matter: {float}"
    );
    for _ in 0..3 {
        w.advance(2_000.0);
    }
    assert!(w.executes().is_empty(), "a call went to the stranger");
    assert!(w.typed(1).is_empty(), "a stranger's answer was typed");
    for r in w.host.0.requests.borrow().iter() {
        assert_eq!(r.bearer, None, "the token went to a stranger: {r:?}");
        assert!(
            r.url.contains("/health?challenge="),
            "only challenged: {r:?}"
        );
    }
}
