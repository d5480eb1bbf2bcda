//! What an older build stored loads unchanged after an upgrade, and the schema version is
//! recorded once.

use super::world::*;
use mcp_bridge_core::runtime::host::Area;
use mcp_bridge_core::runtime::store::SCHEMA_VERSION;
use serde_json::json;

/// Settings exactly as the build before the schema version wrote them.
fn v1_settings() -> serde_json::Value {
    json!({
        "bridgeUrl": "http://127.0.0.1:3850", "token": "tok-v1", "language": "en",
        "autoSend": false, "autoExecute": true, "stackLines": 7, "maxAutoRounds": 4,
        "sites": {"kimi": {"disabled": true, "autoInsertInstructions": false}},
        "toolPolicies": {"demo:crash": "deny", "*:echo": "ask"}
    })
}

#[test]
fn settings_of_the_previous_build_survive_the_upgrade() {
    let mut w = World::new();
    w.store(Area::Local, "settings", v1_settings());
    let r = serde_json::to_value(w.page(json!({"type": "get-settings"}))).unwrap();
    let data = &r["data"];
    for key in [
        "bridgeUrl",
        "token",
        "language",
        "autoSend",
        "stackLines",
        "maxAutoRounds",
    ] {
        assert_eq!(data[key], v1_settings()[key], "{key}");
    }
    assert_eq!(data["toolPolicies"], v1_settings()["toolPolicies"]);
    assert!(data["unreadable"].is_null(), "{data}");
    assert_eq!(
        w.stored(Area::Local, "schemaVersion"),
        Some(json!(SCHEMA_VERSION))
    );
    assert_eq!(
        w.stored(Area::Local, "settings"),
        Some(v1_settings()),
        "left as it was"
    );
}

#[test]
fn state_of_the_previous_build_is_read_after_the_upgrade() {
    let mut w = World::new();
    let c = call("get_current_time", json!({}));
    // A tab that was running a long call, and the executed set, as the old build stored them.
    w.store(
        Area::Session,
        "tab:1",
        json!({"url": URL, "index": 1, "textHash": 1, "changedMs": 0.0, "baseline": null,
               "phase": {"executing": {"key": "k1", "tool": "slow", "startedMs": 5.0,
               "callId": "c-7"}}, "autoRounds": 1}),
    );
    w.store(Area::Local, "executedCalls", json!(["k1"]));
    w.bridge(|req| {
        if req.url.contains("/calls/c-7") {
            success("finished")
        } else {
            healthy_bridge(req)
        }
    });
    w.message(1, 1, &c, false);
    assert!(
        w.typed(1)[0].contains("finished"),
        "the old call id was resumed"
    );
    assert!(w.executes().is_empty());
}

#[test]
fn an_error_log_of_the_previous_build_is_shown() {
    let mut w = World::new();
    w.store(
        Area::Local,
        "errorLog",
        json!({"counts": {"logical": 1}, "nextId": 1, "entries": [{"id": 0,
            "timeMs": 1700000000600.0, "site": "chat.deepseek.com",
            "record": {"arguments": {}, "category": "logical", "code": null,
            "errorType": "ToolError", "message": "ValueError: boom", "retryable": true,
            "server": null, "status": 200, "tool": "check", "traceId": null,
            "traceback": null}}]}),
    );
    let r = serde_json::to_value(w.page(json!({"type": "get-error-log"}))).unwrap();
    let entries = r["data"]["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(entries.len(), 1, "{r}");
}

#[test]
fn the_schema_version_is_written_once() {
    let mut w = World::new();
    // A ping reads nothing; the first message that does migrates.
    w.page(json!({"type": "ping"}));
    assert_eq!(w.stored(Area::Local, "schemaVersion"), None);
    w.page(json!({"type": "get-settings"}));
    assert_eq!(w.stored(Area::Local, "schemaVersion"), Some(json!(4)));
    w.store(Area::Local, "schemaVersion", json!(99));
    w.restart_worker();
    w.page(json!({"type": "get-settings"}));
    assert_eq!(
        w.stored(Area::Local, "schemaVersion"),
        Some(json!(99)),
        "a newer one is kept"
    );
}

#[test]
fn custom_sites_of_the_previous_build_get_their_content_script_again() {
    let mut w = World::new();
    // Version 3 registered them with the one file the content script was then (version 2
    // with paths Firefox read against the options page's folder); an override of a shipped
    // site has no script of its own.
    w.store(Area::Local, "schemaVersion", json!(3));
    let custom = json!([{"id": "mychat", "name": "My chat", "hosts": ["chat.example.org"],
        "editor": "textarea", "selectors": {"input": ["textarea"], "send": ["button"],
        "assistantMessage": [".m"], "generating": [".g"]}},
        {"id": "deepseek", "name": "DeepSeek", "hosts": ["chat.deepseek.com"], "editor": "textarea"}]);
    w.store(Area::Local, "customSites", custom);
    w.page(json!({"type": "get-settings"}));
    let registered = w.host.0.registered.borrow().clone();
    assert_eq!(registered.len(), 1, "{registered:?}");
    assert_eq!(registered[0].0, "custom-site-mychat");
    assert_eq!(
        registered[0].1,
        vec!["https://chat.example.org/*".to_string()]
    );
}

#[test]
fn custom_sites_are_registered_again_when_the_content_scripts_files_change() {
    let mut w = World::new();
    // The current schema, registered with a file list this build no longer has.
    w.store(Area::Local, "schemaVersion", json!(SCHEMA_VERSION));
    w.store(
        Area::Local,
        "contentScripts",
        json!(["/contract.js", "/content/base.js", "/content/float.js"]),
    );
    let custom = json!([{"id": "mychat", "name": "My chat", "hosts": ["chat.example.org"],
        "editor": "textarea", "selectors": {"input": ["textarea"], "send": ["button"],
        "assistantMessage": [".m"], "generating": [".g"]}}]);
    w.store(Area::Local, "customSites", custom);
    w.page(json!({"type": "get-settings"}));
    let registered = w.host.0.registered.borrow().clone();
    assert_eq!(registered.len(), 1, "{registered:?}");
    assert_eq!(
        w.stored(Area::Local, "contentScripts"),
        Some(json!(mcp_bridge_core::domain::sites::CONTENT_SCRIPTS))
    );
    // The same list again: nothing is registered a second time.
    w.host.0.registered.borrow_mut().clear();
    w.restart_worker();
    w.page(json!({"type": "get-settings"}));
    assert!(w.host.0.registered.borrow().is_empty());
}
