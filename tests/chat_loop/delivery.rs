//! What reaches the chat: the report typed once and sent, in the user's language, with the
//! unmasked record kept in the extension and never a result lost when typing fails.

use super::world::*;
use mcp_bridge_core::runtime::host::{Area, HttpFailure, Level};
use serde_json::json;

fn tool_error(req: &mcp_bridge_core::runtime::host::HttpRequest) -> Answer {
    if req.url.ends_with("/execute") {
        ok_json(
            200,
            json!({"success": true, "result": {"isError": true, "content": [
                {"type": "text", "text": "ValueError: password=hunter2 is wrong"}]}}),
        )
    } else {
        healthy_bridge(req)
    }
}

#[test]
fn a_result_is_typed_once_and_sent() {
    let mut w = World::new();
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    let typed = w.typed(1);
    assert_eq!(typed.len(), 1);
    assert!(typed[0].starts_with("<tool_result>"), "{}", typed[0]);
    assert!(typed[0].contains("# MCP Bridge · result of `get_current_time`"));
    assert_eq!(w.submits(1), 1);
    assert_eq!(w.last_float(1)["status"], "success");
    assert_eq!(w.tab_state(1)["phase"], "done");
}

#[test]
fn with_auto_send_off_the_result_is_typed_but_not_sent() {
    let mut w = World::new();
    w.settings(json!({"autoSend": false}));
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert_eq!(w.typed(1).len(), 1);
    assert_eq!(w.submits(1), 0);
}

#[test]
fn a_result_that_cannot_be_typed_is_offered_for_copying() {
    let mut w = World::new();
    w.open_chat(1);
    w.host
        .0
        .typing_fails
        .borrow_mut()
        .insert(1, "the input is gone".into());
    w.answer(1, 1, &call("get_current_time", json!({})));
    let f = w.last_float(1);
    assert!(f["detail"].as_str().unwrap().contains("the input is gone"));
    assert!(f["report"].as_str().unwrap().contains("<tool_result>"));
    assert_eq!(w.submits(1), 0, "nothing half-typed is sent");
}

#[test]
fn a_tool_error_is_reported_masked_and_logged_unmasked() {
    let mut w = World::new();
    w.bridge(tool_error);
    w.open_chat(1);
    w.answer(1, 1, &call("check", json!({})));
    let typed = &w.typed(1)[0];
    assert!(!typed.contains("hunter2"), "{typed}");
    let log = w.stored(Area::Local, "errorLog").expect("error log");
    let text = log.to_string();
    assert!(
        text.contains("hunter2"),
        "the log keeps the unmasked record: {text}"
    );
    assert!(text.contains("chat.deepseek.com"), "with the site: {text}");
    assert_eq!(w.tab_state(1)["phase"], "error");
    let logs = w.host.0.logs.borrow();
    assert!(
        logs.iter()
            .any(|(l, m)| *l == Level::Error && m.contains("Tool error details"))
    );
}

#[test]
fn failures_of_several_tabs_at_once_are_all_logged() {
    let mut w = World::new();
    w.bridge(tool_error);
    let url = |tab: i32| format!("https://chat.deepseek.com/a/chat/s/{tab}");
    for tab in 1..=3 {
        w.page_ready(tab, &url(tab));
    }
    for _ in 0..2 {
        for tab in 1..=3 {
            let c = call("check", json!({}));
            w.tab(
                tab,
                json!({"type": "message-updated", "url": url(tab), "index": 1, "text": c,
                       "generating": false}),
            );
        }
        w.advance(600.0);
    }
    let log = w.stored(Area::Local, "errorLog").unwrap();
    assert_eq!(log["entries"].as_array().map(Vec::len), Some(3), "{log}");
}

#[test]
fn reports_follow_the_language_setting() {
    let mut w = World::new();
    w.settings(json!({"language": "zh"}));
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert!(w.typed(1)[0].contains("的执行结果"), "{}", w.typed(1)[0]);
}

#[test]
fn auto_language_follows_the_browser() {
    let mut w = World::new();
    w.ui_language("zh-CN");
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert!(w.typed(1)[0].contains("的执行结果"));
    let mut w = World::new();
    w.ui_language("en-GB");
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert!(w.typed(1)[0].contains("# MCP Bridge · result of "));
}

#[test]
fn a_malformed_call_is_reported_once() {
    let mut w = World::new();
    w.open_chat(1);
    let bad = "<tool_code>\n{\"tool_name\": \"x\", \"arguments\": {oops}}\n</tool_code>";
    w.answer(1, 1, bad);
    w.answer(1, 1, bad);
    assert!(w.executes().is_empty());
    assert_eq!(w.typed(1).len(), 1);
}

#[test]
fn the_bearer_token_and_address_come_from_the_settings() {
    let mut w = World::new();
    w.settings(json!({"bridgeUrl": "http://127.0.0.1:4000", "token": "tok-123"}));
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    let requests = w.host.0.requests.borrow();
    let exec = requests
        .iter()
        .find(|r| r.url.ends_with("/execute"))
        .unwrap();
    assert_eq!(exec.url, "http://127.0.0.1:4000/execute");
    assert_eq!(exec.bearer.as_deref(), Some("tok-123"));
    // Held a second at most, so a long call's id (which a Cancel needs) comes at once.
    assert_eq!(exec.json.as_ref().unwrap()["wait"], 1);
}

#[test]
fn reports_name_the_configured_bridge_address() {
    let mut w = World::new();
    w.settings(json!({"bridgeUrl": "http://127.0.0.1:4000"}));
    w.open_chat(1);
    w.bridge(|_| Answer::Now(Err(HttpFailure::Unreachable("connection refused".into()))));
    w.answer(1, 1, &call("get_current_time", json!({})));
    let held = w.last_float(1)["command"].as_str().unwrap().to_string();
    assert!(held == "mcp-bridge --port 4000", "{held}");
    w.action(1, json!({"action": "held", "tellAi": true}));
    let typed = &w.typed(1)[0];
    assert!(typed.contains("(127.0.0.1:4000)"), "{typed}");
    assert!(!typed.contains("3849"), "{typed}");
}

#[test]
fn a_large_result_is_read_page_by_page_through_the_bridge() {
    let mut w = World::new();
    w.open_chat(1);
    w.bridge(|req| {
        let body = req.json.clone().unwrap_or_default();
        if !req.url.ends_with("/execute") {
            return healthy_bridge(req);
        }
        let (offset, next) = match body["name"].as_str() {
            Some("read_result") => (body["arguments"]["offset"].as_u64().unwrap(), None),
            _ => (0, Some(10)),
        };
        ok_json(
            200,
            json!({"success": true, "result": {"content": [{"type": "text", "text": "0123456789"}]},
                   "page": {"result_id": "r9", "offset": offset, "returned_chars": 10,
                            "total_chars": 20, "next_offset": next}}),
        )
    });
    w.answer(1, 1, &call("get_current_time", json!({})));
    let first = w.typed(1)[0].clone();
    assert!(first.contains("\"read_result\""), "{first}");
    assert!(
        w.last_float(1)["detail"]
            .as_str()
            .unwrap()
            .contains("1–10 of 20")
    );
    // The AI copies the call from the report: it reaches the bridge, no prompt.
    let next = mcp_bridge_core::domain::toolcall::find_last_call(&first)
        .unwrap()
        .unwrap();
    assert_eq!(next.arguments["offset"], 10);
    let reply = format!(
        "<tool_code>\n{}\n</tool_code>",
        json!({"tool_name": "read_result", "arguments": next.arguments})
    );
    w.answer(1, 2, &reply);
    let executes = w.executes();
    assert_eq!(executes.len(), 2);
    assert_eq!(executes[1]["name"], "read_result");
    assert!(
        executes[1].get("serverName").is_none(),
        "the bridge's own tool"
    );
    assert!(
        w.typed(1)[1].contains("the whole result has been read"),
        "{}",
        w.typed(1)[1]
    );
}

#[test]
fn a_tools_images_reach_the_float_whole_and_the_chat_by_name_only() {
    let mut w = World::new();
    w.open_chat(1);
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    w.bridge(move |req| {
        if !req.url.ends_with("/execute") {
            return healthy_bridge(req);
        }
        ok_json(
            200,
            json!({"success": true, "result": {"content": [
                {"type": "text", "text": "Here it is"},
                {"type": "image", "data": png, "mimeType": "image/png"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                {"type": "image", "data": "PHN2Zz4=", "mimeType": "image/svg+xml"}]}}),
        )
    });
    w.answer(1, 1, &call("get_current_time", json!({})));
    let typed = w.typed(1)[0].clone();
    assert!(
        typed.contains("image/png") && typed.contains("audio/wav"),
        "{typed}"
    );
    assert!(
        typed.contains("image/svg+xml"),
        "named even when not shown: {typed}"
    );
    assert!(!typed.contains(png), "no image bytes in the chat: {typed}");
    let float = w.last_float(1);
    assert_eq!(float["status"], "success");
    assert_eq!(
        float["media"],
        json!([{"mimeType": "image/png", "data": png}, {"mimeType": "audio/wav", "data": "UklGRg=="}])
    );
    // Nothing of it is kept: the tab's stored state holds no image.
    let stored = w.stored(Area::Session, "tab:1").unwrap().to_string();
    assert!(!stored.contains(png), "{stored}");
}
