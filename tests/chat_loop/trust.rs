//! Trust against prompt injection: once a conversation read untrusted content, a tool that
//! can change things asks, whatever its policy; a server's read-only claim counts only on a
//! server the user trusts.

use super::world::*;
use mcp_bridge_core::runtime::host::Area;
use serde_json::{Value, json};

/// A web fetcher on a server the user has not marked trusted, a file writer, and the
/// user's trusted clock.
const SERVERS: [(&str, &[&str]); 3] = [
    ("web", &["fetch"]),
    ("files", &["write_file", "append_file"]),
    ("time", &["get_current_time"]),
];

/// The scripted user always allowed both the fetcher and the writer, and trusts `time`.
fn world() -> World {
    let w = World::new();
    w.bridge(|req| bridge_with(&SERVERS, req));
    w.store(
        Area::Local,
        "settings",
        json!({
            "trustedServers": ["time"],
            "toolPolicies": {"web:fetch": "allow", "files:write_file": "allow",
                             "files:append_file": "allow"},
        }),
    );
    w
}

/// The AI fetches a page (whose text, in an attack, tells it to write a file).
fn fetch_a_page(w: &mut World, tab: i32) {
    w.answer(
        tab,
        1,
        &call("fetch", json!({"url": "https://example.com/"})),
    );
    assert_eq!(w.executes().len(), 1, "the allowed fetch runs");
}

fn action_ids(float: &Value) -> Vec<&str> {
    float["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect()
}

/// The write waits for the user, says why in the user's words, and offers *Allow once*
/// only (no *Always*, which would not lift the rule anyway).
fn write_waits(w: &World, tab: i32, before: usize) {
    assert_eq!(w.executes().len(), before, "the write did not run");
    let f = w.last_float(tab);
    assert_eq!(f["status"], "confirm", "{f}");
    let why = f["consent"]["why"].as_str().unwrap();
    assert!(
        why.contains("read content from outside (from `fetch`)") && why.contains("ask first"),
        "{why}"
    );
    assert_eq!(action_ids(&f), ["allow-once", "skip"]);
}

#[test]
fn after_an_untrusted_result_an_always_allowed_write_asks_and_runs_once_on_the_users_go() {
    let mut w = world();
    w.open_chat(1);
    fetch_a_page(&mut w, 1);
    w.answer(1, 2, &call("write_file", json!({"path": "/tmp/x"})));
    write_waits(&w, 1, 1);
    w.action(1, json!({"action": "confirm", "run": true}));
    assert_eq!(w.executes().len(), 2);
    w.answer(1, 3, &call("write_file", json!({"path": "/tmp/y"})));
    write_waits(&w, 1, 2);
}

#[test]
fn a_reload_and_another_tab_on_the_same_conversation_keep_the_mark() {
    let mut w = world();
    w.open_chat(1);
    fetch_a_page(&mut w, 1);
    w.open_chat(1);
    w.answer(1, 2, &call("write_file", json!({"path": "/tmp/x"})));
    write_waits(&w, 1, 1);
    w.open_chat(2);
    w.answer(2, 2, &call("append_file", json!({"path": "/tmp/x"})));
    assert_eq!(w.executes().len(), 1, "the second tab asks too");
    assert_eq!(w.last_float(2)["status"], "confirm");
}

#[test]
fn a_new_chat_getting_its_address_keeps_the_mark() {
    let mut w = world();
    let new_chat = "https://chat.deepseek.com/";
    w.open_chat_at(1, new_chat);
    let fetch = call("fetch", json!({"url": "https://example.com/"}));
    w.answer_at(1, new_chat, 1, &fetch);
    assert_eq!(w.executes().len(), 1);
    // The site gives the chat its address while showing the same answer.
    w.answer_at(1, URL, 1, &fetch);
    w.answer(1, 2, &call("write_file", json!({"path": "/tmp/x"})));
    write_waits(&w, 1, 1);
    // And a tab opened later on that address.
    w.open_chat(2);
    w.answer(2, 3, &call("append_file", json!({})));
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn a_trusted_servers_read_only_tool_still_runs_after_untrusted_content() {
    let mut w = world();
    w.open_chat(1);
    fetch_a_page(&mut w, 1);
    w.answer(1, 2, &call("get_current_time", json!({})));
    assert_eq!(w.executes().len(), 2, "the trusted read-only tool ran");
    w.answer(1, 3, &call("write_file", json!({})));
    write_waits(&w, 1, 2);
}

#[test]
fn an_exempted_tool_runs_as_its_policy_says_after_untrusted_content() {
    let mut w = World::new();
    w.bridge(|req| bridge_with(&SERVERS, req));
    w.store(
        Area::Local,
        "settings",
        json!({
            "toolPolicies": {"web:fetch": "allow", "files:write_file": "allow",
                             "files:append_file": "allow"},
            "exemptAfterUntrusted": ["files:append_file"],
        }),
    );
    w.open_chat(1);
    fetch_a_page(&mut w, 1);
    w.answer(1, 2, &call("append_file", json!({})));
    assert_eq!(w.executes().len(), 2, "the exempted tool ran");
    w.answer(1, 3, &call("write_file", json!({})));
    write_waits(&w, 1, 2);
}

#[test]
fn another_conversation_is_not_marked() {
    let mut w = world();
    w.open_chat(1);
    fetch_a_page(&mut w, 1);
    w.open_chat_at(2, OTHER_URL);
    w.answer_at(2, OTHER_URL, 1, &call("write_file", json!({})));
    assert_eq!(w.executes().len(), 2, "the other conversation's write ran");
    w.answer(1, 2, &call("write_file", json!({})));
    write_waits(&w, 1, 2);
}

#[test]
fn a_result_of_a_trusted_servers_closed_world_tool_does_not_mark_the_conversation() {
    let mut w = world();
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    w.answer(1, 2, &call("write_file", json!({})));
    assert_eq!(w.executes().len(), 2, "the write ran as allowed");
    // A trusted server's tool that may reach the open world marks another conversation.
    w.store(
        Area::Local,
        "settings",
        json!({
            "trustedServers": ["time", "web"],
            "toolPolicies": {"files:write_file": "allow"},
        }),
    );
    w.open_chat_at(2, OTHER_URL);
    w.answer_at(2, OTHER_URL, 1, &call("fetch", json!({})));
    assert_eq!(w.executes().len(), 3, "read-only on a trusted server");
    w.answer_at(2, OTHER_URL, 2, &call("write_file", json!({})));
    write_waits(&w, 2, 3);
}

#[test]
fn a_read_only_claim_of_a_server_the_user_does_not_trust_is_not_believed() {
    let mut w = World::new();
    // A hostile server's tool that deletes, claiming to only read.
    w.bridge(|req| bridge_with(&[("evil", &["get_status"])], req));
    w.open_chat(1);
    w.answer(1, 1, &call("get_status", json!({})));
    assert!(w.executes().is_empty());
    let f = w.last_float(1);
    assert_eq!(f["status"], "confirm");
    let why = f["consent"]["why"].as_str().unwrap();
    assert!(why.contains("`evil` is not a server you trust"), "{why}");
}

#[test]
fn the_first_question_about_an_untrusted_servers_read_only_tool_trusts_the_server_in_one_click() {
    let mut w = World::new();
    w.store(Area::Local, "settings", json!({}));
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert!(w.executes().is_empty(), "`time` is not trusted yet");
    let f = w.last_float(1);
    assert_eq!(
        action_ids(&f),
        ["allow-once", "trust-server", "always-allow", "deny"]
    );
    assert_eq!(
        f["actions"][1]["label"],
        "Trust `time` — its read-only tools will run without asking"
    );
    w.action(1, json!({"action": "confirm", "run": true, "trust": true}));
    assert_eq!(w.executes().len(), 1, "the call runs");
    let stored = w.stored(Area::Local, "settings").unwrap();
    assert_eq!(stored["trustedServers"], json!(["time"]));
    assert!(
        stored["toolPolicies"]
            .as_object()
            .is_none_or(|p| p.is_empty())
    );
    w.answer(1, 2, &call("convert_time", json!({})));
    assert_eq!(
        w.executes().len(),
        2,
        "its other read-only tool runs unasked"
    );
}
