//! Tools of MCP App views: one that only its view may call (`ui.visibility` without `model`) is
//! never offered to the AI, in the instructions or the tool list; one the view and the AI share
//! is the AI's like any other.

use super::world::*;
use serde_json::{Value, json};

/// The tools of the server `clock` as the bridge lists them: `show_clock` has a view the AI may
/// call too, `tick` is for the view only, `now` has no view.
fn clock_tools() -> Value {
    let tool = |name: &str, ui: Value| {
        json!({"name": name, "description": format!("The {name} tool"),
            "parameters": {"type": "object"}, "annotations": {"readOnlyHint": true},
            "ui": ui})
    };
    json!({"success": true, "tools": {"service_name": "clock", "tools": [
        tool("show_clock", json!({"resourceUri": "ui://clock/app.html", "visibility": ["model", "app"]})),
        tool("tick", json!({"resourceUri": "ui://clock/app.html", "visibility": ["app"]})),
        tool("now", Value::Null),
    ]}})
}

fn world() -> World {
    let mut w = World::new();
    w.bridge(|req| {
        let clock: [(&str, &[&str]); 1] = [("clock", &["show_clock", "tick", "now"])];
        match route(req).as_str() {
            "tools?serverName=clock" => ok_json(200, clock_tools()),
            _ => bridge_with(&clock, req),
        }
    });
    // Trusted, so its read-only tools run unasked.
    w.settings(json!({"trustedServers": ["clock"]}));
    w.open_chat(1);
    w
}

#[test]
fn a_tool_only_its_view_may_call_is_not_in_the_instructions() {
    let mut w = world();
    w.action(1, json!({"action": "insert-instructions"}));
    let typed = &w.typed(1)[0];
    assert!(
        typed.contains("show_clock(") && typed.contains("now("),
        "{typed}"
    );
    assert!(!typed.contains("tick"), "{typed}");
}

#[test]
fn a_tool_only_its_view_may_call_is_not_in_the_tool_list() {
    let mut w = world();
    w.answer(
        1,
        1,
        &call("list_tools_in_service", json!({"service_name": "clock"})),
    );
    let typed = &w.typed(1)[0];
    assert!(typed.contains("show_clock"), "{typed}");
    assert!(!typed.contains("tick"), "{typed}");
}

#[test]
fn a_tool_the_view_shares_with_the_ai_runs_from_the_chat() {
    let mut w = world();
    w.answer(1, 1, &call_on("clock", "show_clock", json!({})));
    assert_eq!(w.executes().len(), 1, "{:?}", w.executes());
}
