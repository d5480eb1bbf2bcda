//! A page opening: which sites the extension works on, the float it starts with, the
//! instructions, and who may send which message.

use super::world::*;
use mcp_bridge_core::domain::messages::{Origin, Response};
use mcp_bridge_core::runtime::host::HttpFailure;
use serde_json::{Value, json};

fn setup(r: Response) -> Value {
    serde_json::to_value(r).unwrap()
}

#[test]
fn a_supported_site_gets_its_config_and_a_ready_float() {
    let mut w = World::new();
    let r = setup(w.page_ready(1, URL));
    assert_eq!(r["type"], "page-setup");
    assert_eq!(r["site"]["id"], "deepseek");
    assert_eq!(r["float"]["status"], "ready");
    assert!(r["float"]["title"].as_str().unwrap().contains("DeepSeek"));
}

#[test]
fn an_unknown_site_is_off_and_says_why() {
    let mut w = World::new();
    let r = setup(w.page_ready(1, "https://example.org/chat"));
    assert!(r["site"].is_null());
    assert_eq!(r["problem"], "no site config for this page");
    assert_eq!(r["float"]["status"], "disabled");
}

#[test]
fn a_site_turned_off_in_the_options_stays_off() {
    let mut w = World::new();
    w.settings(json!({"sites": {"deepseek": {"disabled": true}}}));
    let r = setup(w.page_ready(1, URL));
    assert!(r["site"].is_null());
    assert_eq!(r["problem"], "turned off in the options");
}

#[test]
fn a_bridge_that_is_down_shows_in_the_float_when_the_page_opens() {
    let mut w = World::new();
    w.bridge(|_| Answer::Now(Err(HttpFailure::Unreachable("refused".into()))));
    w.page_ready(1, URL);
    assert_eq!(w.last_float(1)["status"], "unreachable");
}

#[test]
fn a_custom_site_overrides_a_built_in_one() {
    let mut w = World::new();
    let custom = json!([{"id": "my-deepseek", "name": "My DeepSeek", "hosts": ["chat.deepseek.com"],
        "editor": "textarea", "selectors": {"input": ["textarea"], "send": ["button"],
        "assistantMessage": [".m"], "generating": [".g"]}}]);
    w.store(
        mcp_bridge_core::runtime::host::Area::Local,
        "customSites",
        custom,
    );
    let r = setup(w.page_ready(1, URL));
    assert_eq!(r["site"]["id"], "my-deepseek");
}

#[test]
fn insert_instructions_types_the_services_without_sending() {
    let mut w = World::new();
    w.open_chat(1);
    w.action(1, json!({"action": "insert-instructions"}));
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1);
    assert!(
        typed[0].contains("time") && typed[0].contains("demo"),
        "{}",
        typed[0]
    );
    assert!(typed[0].contains("list_tools_in_service"));
    assert_eq!(w.submits(1), 0);
    // Every tool is listed with its description, so no discovery round trip is needed; a
    // tool the user denied is not offered.
    assert!(
        typed[0].contains("  - echo(): The echo tool\n"),
        "{}",
        typed[0]
    );
    assert!(
        typed[0].contains("  - crash(): The crash tool\n"),
        "{}",
        typed[0]
    );
    w.settings(json!({"toolPolicies": {"demo:crash": "deny"}}));
    w.action(1, json!({"action": "insert-instructions"}));
    let again = &w.typed(1)[1];
    assert!(
        again.contains("  - echo()") && !again.contains("crash"),
        "{again}"
    );
}

#[test]
fn the_instructions_go_in_a_file_where_the_user_chose_so_and_the_page_takes_it() {
    use mcp_bridge_core::domain::messages::Command;
    let attached = |w: &World| -> Vec<(String, String, String)> {
        let commands = w.host.0.commands.borrow();
        let files = commands.iter().filter_map(|(_, c)| match c {
            Command::AttachFile {
                name,
                mime_type,
                text,
            } => Some((name.clone(), mime_type.clone(), text.clone())),
            _ => None,
        });
        files.collect()
    };
    let mut w = World::new();
    w.open_chat(1);
    // Off (the default): typed whole, nothing attached.
    w.action(1, json!({"action": "insert-instructions"}));
    let whole = w.typed(1)[0].clone();
    assert!(whole.contains("  - echo(): The echo tool\n"), "{whole}");
    assert!(attached(&w).is_empty());
    // On: the same text as a plain-text file, and one line in the input naming it.
    w.settings(json!({"instructionsAsFile": true}));
    w.action(1, json!({"action": "insert-instructions"}));
    let files = attached(&w);
    assert_eq!(
        files,
        [(
            "mcp-bridge-instructions.txt".to_string(),
            "text/plain".to_string(),
            whole.clone()
        )]
    );
    let line = &w.typed(1)[1];
    assert!(
        line.starts_with("# MCP Bridge · ") && line.contains("mcp-bridge-instructions.txt"),
        "{line}"
    );
    assert!(
        line.lines().count() <= 2 && !line.contains("echo"),
        "{line}"
    );
    assert_eq!(w.submits(1), 0, "nothing is sent");
    // A page that does not take the file gets the whole text typed.
    w.host.0.files_refused.borrow_mut().insert(1);
    w.action(1, json!({"action": "insert-instructions"}));
    assert_eq!(attached(&w).len(), 2);
    assert_eq!(w.typed(1)[2], whole);
    // A site whose config does not say it takes pasted files is not offered one.
    let url = "https://copilot.example.com/chats/7";
    w.host.0.granted.set(true);
    w.page(json!({"type": "enable-site", "url": url}));
    w.open_chat_at(2, url);
    w.action(2, json!({"action": "insert-instructions"}));
    assert_eq!(attached(&w).len(), 2);
    assert_eq!(w.typed(2), [whole]);
}

#[test]
fn insert_instructions_without_a_bridge_says_what_to_run_not_the_ais_report() {
    let mut w = World::new();
    w.settings(json!({"bridgeUrl": "http://127.0.0.1:4100"}));
    w.open_chat(1);
    w.bridge(|_| {
        Answer::Now(Err(
            mcp_bridge_core::runtime::host::HttpFailure::Unreachable("connection refused".into()),
        ))
    });
    w.action(1, json!({"action": "insert-instructions"}));
    assert!(w.typed(1).is_empty());
    let f = w.last_float(1);
    assert_eq!(f["status"], "unreachable", "{f}");
    assert!(
        f["report"].is_string(),
        "the float of the failed request: {f}"
    );
    let title = f["title"].as_str().unwrap();
    assert!(
        !title.contains("list_services") && !title.contains("build.sh"),
        "{title}"
    );
    assert_eq!(f["command"], "mcp-bridge --port 4100");
}

#[test]
fn an_empty_chat_gets_the_instructions_only_when_the_user_asked_for_that() {
    let mut w = World::new();
    w.open_chat(1);
    w.tab(1, json!({"type": "empty-chat", "url": URL}));
    assert!(w.typed(1).is_empty());
    w.settings(json!({"sites": {"deepseek": {"autoInsertInstructions": true}}}));
    w.tab(1, json!({"type": "empty-chat", "url": URL}));
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn details_open_the_options_page() {
    let mut w = World::new();
    w.open_chat(1);
    w.action(1, json!({"action": "open-details"}));
    assert_eq!(w.host.0.options_opened.get(), 1);
}

#[test]
fn a_chat_page_cannot_reach_the_options_backend() {
    let mut w = World::new();
    let r = w.tab(
        1,
        json!({"type": "save-settings", "settings": {"token": "evil"}}),
    );
    assert_eq!(setup(r)["type"], "error");
    let r = w.page(json!({"type": "get-settings"}));
    assert_eq!(setup(r)["data"]["token"], "");
}

#[test]
fn chat_messages_must_come_from_a_tab() {
    let mut w = World::new();
    let r = w.send(
        Origin::ContentScript,
        None,
        json!({"type": "page-ready", "url": URL}),
    );
    assert_eq!(
        setup(r.unwrap())["message"],
        "chat messages must come from a tab"
    );
}

#[test]
fn ping_answers_with_the_version_to_both_sides() {
    let mut w = World::new();
    let r = setup(w.tab(1, json!({"type": "ping"})));
    assert_eq!(r["version"], mcp_bridge_core::VERSION);
    let r = setup(w.page(json!({"type": "ping"})));
    assert_eq!(r["type"], "pong");
}
