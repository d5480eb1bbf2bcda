//! The user's say: Allow, Ask and Deny per tool, automatic execution off, settings that
//! cannot be read, and the calls the user starts by hand.

use super::world::*;
use mcp_bridge_core::runtime::host::Area;
use serde_json::{Value, json};

/// The report typed for a tool the user denied (exactly one).
fn denial_report(w: &World, tab: i32, tool: &str) -> String {
    let typed = w.typed(tab);
    assert_eq!(typed.len(), 1, "{typed:?}");
    let report = typed[0].clone();
    assert!(
        report.contains("# MCP Bridge · the user declined ")
            && report.contains(&format!("does not allow the tool {tool}"))
            && report.contains("Do not call it again"),
        "{report}"
    );
    report
}

#[test]
fn a_denied_tool_is_not_run_and_the_ai_is_told_not_to_call_it_again() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"*:crash": "deny"}}));
    w.open_chat(1);
    w.answer(1, 1, &call("crash", json!({})));
    assert!(w.executes().is_empty());
    let report = denial_report(&w, 1, "crash");
    // A denial is the user's choice, not a failure of the tool: no failure category, no
    // advice to correct the arguments and try again, nothing in the error log.
    for failure_words in [
        "Category",
        "failed",
        "correct the arguments",
        "call the tool again",
    ] {
        assert!(!report.contains(failure_words), "{failure_words}: {report}");
    }
    let float = w.last_float(1);
    assert!(float["error"].is_null(), "{float}");
    assert_eq!(
        (&float["status"], &float["tone"]),
        (&json!("denied"), &json!("neutral"))
    );
    assert_eq!(
        float["title"],
        "`crash` did not run, as you chose; the AI has been told."
    );
    assert_eq!(w.stored(Area::Local, "errorLog"), None);
}

#[test]
fn a_deny_for_a_server_holds_for_calls_that_name_it() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"demo:echo": "deny"}}));
    w.open_chat(1);
    w.answer(1, 1, &call_on("demo", "echo", json!({"text": "hi"})));
    assert!(w.executes().is_empty());
}

#[test]
fn an_ask_tool_waits_for_the_user_and_runs_on_their_go() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"*:echo": "ask"}}));
    w.open_chat(1);
    w.answer(1, 1, &call("echo", json!({"text": "hi"})));
    assert!(w.executes().is_empty());
    let f = w.last_float(1);
    assert_eq!(f["status"], "confirm");
    assert!(
        f["consent"]["why"]
            .as_str()
            .unwrap()
            .contains("ask before running")
    );
    assert_eq!(
        f["consent"]["args"],
        json!([{"name": "text", "value": "hi"}])
    );
    w.action(1, json!({"action": "confirm", "run": true}));
    assert_eq!(w.executes().len(), 1);
    // A second go for the same prompt does nothing.
    w.action(1, json!({"action": "confirm", "run": true}));
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn skipping_an_ask_prompt_runs_nothing_and_does_not_ask_again() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"*:echo": "ask"}}));
    w.open_chat(1);
    let c = call("echo", json!({}));
    w.answer(1, 1, &c);
    w.action(1, json!({"action": "confirm", "run": false}));
    assert_eq!(w.last_float(1)["status"], "ready");
    let floats = w.floats(1).len();
    w.answer(1, 1, &c);
    assert!(w.executes().is_empty());
    assert_eq!(w.floats(1).len(), floats, "no second prompt");
}

#[test]
fn with_automatic_execution_off_every_call_asks_first() {
    let mut w = World::new();
    w.settings(json!({"autoExecute": false}));
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert!(w.executes().is_empty());
    let f = w.last_float(1);
    assert!(
        f["consent"]["why"]
            .as_str()
            .unwrap()
            .contains("Automatic execution is off")
    );
}

#[test]
fn settings_that_no_longer_validate_hold_every_call_and_say_why() {
    let mut w = World::new();
    w.store(
        mcp_bridge_core::runtime::host::Area::Local,
        "settings",
        json!({"token": "t", "stackLines": "ten"}),
    );
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert!(w.executes().is_empty());
    let detail = w.last_float(1)["consent"]["why"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(detail.contains("stackLines"), "{detail}");
    w.action(1, json!({"action": "confirm", "run": true}));
    let r = w.host.0.requests.borrow().last().cloned().unwrap();
    assert_eq!(r.bearer.as_deref(), Some("t"), "the valid token is kept");
}

#[test]
fn a_storage_read_refused_once_is_tried_again() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"*:crash": "deny"}}));
    w.open_chat(1);
    let c = call("crash", json!({}));
    w.message(1, 1, &c, false);
    w.advance(600.0);
    w.host.0.failing_reads.set(1);
    w.message(1, 1, &c, false);
    assert!(w.executes().is_empty(), "the deny was still known");
    assert!(w.typed(1)[0].contains("does not allow"));
}

#[test]
fn settings_that_cannot_be_read_at_all_hold_the_call() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.message(1, 1, &c, false);
    w.advance(600.0);
    w.host.0.failing_reads.set(2);
    w.message(1, 1, &c, false);
    assert!(w.executes().is_empty());
    assert_eq!(w.last_float(1)["status"], "confirm");
    let warnings = w.host.0.logs.borrow().len();
    assert_eq!(warnings, 1, "the problem is logged once");
}

#[test]
fn a_pasted_call_runs_each_time_it_is_pasted() {
    let mut w = World::new();
    w.open_chat(1);
    let c = call("get_current_time", json!({}));
    w.action(1, json!({"action": "manual-input", "text": c}));
    w.advance(10.0);
    w.action(1, json!({"action": "manual-input", "text": c}));
    assert_eq!(w.executes().len(), 2);
}

#[test]
fn a_pasted_call_still_obeys_deny() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"*:crash": "deny"}}));
    w.open_chat(1);
    w.action(
        1,
        json!({"action": "manual-input", "text": call("crash", json!({}))}),
    );
    assert!(w.executes().is_empty());
}

#[test]
fn pasted_text_without_a_call_is_refused() {
    let mut w = World::new();
    w.open_chat(1);
    let r = w.action(1, json!({"action": "manual-input", "text": "no call here"}));
    let r = serde_json::to_value(r.unwrap()).unwrap();
    assert_eq!(r["type"], "error");
}

#[test]
fn the_tool_list_leaves_denied_tools_out() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"time:convert_time": "deny"}}));
    w.open_chat(1);
    w.answer(
        1,
        1,
        &call("list_tools_in_service", json!({"service_name": "time"})),
    );
    assert!(w.executes().is_empty(), "listing runs no tool");
    let typed = w.typed(1);
    assert!(typed[0].contains("get_current_time"), "{}", typed[0]);
    assert!(!typed[0].contains("convert_time"), "{}", typed[0]);
}

#[test]
fn a_server_deny_holds_for_a_call_that_does_not_name_the_server() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"demo:crash": "deny"}}));
    w.open_chat(1);
    w.answer(1, 1, &call("crash", json!({})));
    assert!(
        w.executes().is_empty(),
        "the bridge would have run demo's crash"
    );
    assert!(w.typed(1)[0].contains("does not allow the tool crash"));
}

#[test]
fn a_server_ask_holds_for_a_call_that_does_not_name_the_server() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"demo:echo": "ask"}}));
    w.open_chat(1);
    w.answer(1, 1, &call("echo", json!({"text": "hi"})));
    assert!(w.executes().is_empty());
    assert_eq!(w.last_float(1)["status"], "confirm");
}

#[test]
fn a_pasted_call_without_a_server_still_obeys_a_server_deny() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"demo:crash": "deny"}}));
    w.open_chat(1);
    w.action(
        1,
        json!({"action": "manual-input", "text": call("crash", json!({}))}),
    );
    assert!(w.executes().is_empty());
}

#[test]
fn a_tool_two_servers_offer_asks_naming_both_and_runs_where_it_says() {
    let mut w = World::new();
    w.bridge(|req| bridge_with(&[("demo", &["echo"]), ("demo2", &["echo"])], req));
    w.open_chat(1);
    w.answer(1, 1, &call("echo", json!({"text": "hi"})));
    assert!(w.executes().is_empty());
    let detail = w.last_float(1)["consent"]["why"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        detail.contains("`demo`, `demo2`") && detail.contains("runs on `demo`"),
        "{detail}"
    );
    w.action(1, json!({"action": "confirm", "run": true}));
    let executes = w.executes();
    assert_eq!(executes.len(), 1);
    assert_eq!(executes[0]["serverName"], "demo");
}

#[test]
fn when_the_tool_lists_cannot_be_read_the_strictest_policy_for_the_tool_holds() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"demo:crash": "deny"}}));
    w.bridge(|req| {
        if req.url.contains("/tools") {
            ok_json(503, json!({"detail": "starting"}))
        } else {
            healthy_bridge(req)
        }
    });
    w.open_chat(1);
    w.answer(1, 1, &call("crash", json!({})));
    assert!(w.executes().is_empty());
    // Nothing ran because the Deny held, not because the lists were unreadable.
    denial_report(&w, 1, "crash");
}

#[test]
fn a_call_that_names_another_server_gets_that_servers_policy() {
    let mut w = World::new();
    w.settings(json!({"toolPolicies": {"demo:echo": "deny"}, "trustedServers": ["demo2"]}));
    w.bridge(|req| bridge_with(&[("demo", &["echo"]), ("demo2", &["echo"])], req));
    w.open_chat(1);
    w.answer(1, 1, &call_on("demo2", "echo", json!({})));
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn a_read_only_tool_runs_with_no_click() {
    let mut w = World::new();
    w.open_chat(1);
    w.answer(1, 1, &call("get_current_time", json!({})));
    assert_eq!(w.executes().len(), 1);
}

#[test]
fn a_tool_that_may_change_things_asks_the_first_time_naming_server_and_arguments() {
    let mut w = World::new();
    w.open_chat(1);
    let secret = "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    w.answer(
        1,
        1,
        &call(
            "write_note",
            json!({"text": "x".repeat(2000), "key": secret}),
        ),
    );
    assert!(w.executes().is_empty());
    let f = w.last_float(1);
    assert_eq!(f["status"], "confirm");
    let ids: Vec<&str> = f["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["allow-once", "always-allow", "deny"]);
    assert_eq!(f["actions"][0]["primary"], true);
    assert_eq!(f["title"], "Let `DeepSeek` run `write_note` on `demo`?");
    let consent = &f["consent"];
    assert!(
        consent["why"]
            .as_str()
            .unwrap()
            .contains("may change things"),
        "{consent}"
    );
    let all = consent.to_string();
    assert!(!all.contains("AAAAAAAAAAAAAAAA"), "masked: {all}");
    assert!(all.len() < 2600, "shortened: {} bytes", all.len());
    let text = &consent["args"][1];
    assert_eq!(text["name"], "text");
    assert_eq!(
        text["short"].as_str().unwrap().chars().count(),
        81,
        "folded: {text}"
    );
}

#[test]
fn the_float_shows_the_icon_of_the_tool_it_asks_about_and_runs() {
    let mut w = World::new();
    w.open_chat(1);
    // The first float a call shows (its question, or its run) after `before` floats.
    let first_of_call = |w: &World, before: usize| -> Value {
        w.floats(1)[before..]
            .iter()
            .find(|f| f["status"] == "confirm" || f["status"] == "executing")
            .cloned()
            .expect("the call's float")
    };
    w.answer(1, 1, &call("write_note", json!({})));
    assert_eq!(w.last_float(1)["status"], "confirm");
    assert_eq!(w.last_float(1)["icon"], NOTE_ICON);
    let before = w.floats(1).len();
    w.action(1, json!({"action": "confirm", "run": true}));
    let running = first_of_call(&w, before);
    assert_eq!(running["status"], "executing");
    assert_eq!(running["icon"], NOTE_ICON);
    // A tool without an icon of its own shows its server's.
    let before = w.floats(1).len();
    w.answer(1, 2, &call("get_current_time", json!({})));
    let time = first_of_call(&w, before);
    assert_eq!(time["icon"], TIME_ICON, "{time}");
    if time["status"] == "confirm" {
        w.action(1, json!({"action": "confirm", "run": true}));
    }
    // An icon that is no image never reaches the float.
    let before = w.floats(1).len();
    w.answer(1, 3, &call("echo", json!({"text": "x"})));
    let echo = first_of_call(&w, before);
    assert_eq!(echo.get("icon"), None, "{echo}");
}

#[test]
fn always_allow_is_kept_for_the_tool_on_its_server_and_the_site() {
    let mut w = World::new();
    w.open_chat(1);
    w.answer(1, 1, &call("write_note", json!({})));
    w.action(1, json!({"action": "confirm", "run": true, "always": true}));
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.executes()[0]["serverName"], "demo");
    let stored = w
        .stored(mcp_bridge_core::runtime::host::Area::Local, "settings")
        .unwrap();
    assert_eq!(
        stored["siteToolPolicies"]["deepseek"]["demo:write_note"],
        "allow"
    );
    w.answer(1, 2, &call("write_note", json!({"n": 2})));
    assert_eq!(w.executes().len(), 2, "no second prompt");
}

#[test]
fn allow_once_runs_and_asks_again_next_time() {
    let mut w = World::new();
    w.open_chat(1);
    w.answer(1, 1, &call("write_note", json!({})));
    w.action(1, json!({"action": "confirm", "run": true}));
    assert_eq!(w.executes().len(), 1);
    w.answer(1, 2, &call("write_note", json!({"n": 2})));
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.last_float(1)["status"], "confirm");
}

#[test]
fn deny_is_kept_and_the_ai_is_told() {
    let mut w = World::new();
    w.open_chat(1);
    w.answer(1, 1, &call("write_note", json!({})));
    w.action(
        1,
        json!({"action": "confirm", "run": false, "always": true}),
    );
    assert!(w.executes().is_empty());
    assert!(w.typed(1)[0].contains("does not allow the tool write_note"));
    let stored = w
        .stored(mcp_bridge_core::runtime::host::Area::Local, "settings")
        .unwrap();
    assert_eq!(
        stored["siteToolPolicies"]["deepseek"]["demo:write_note"],
        "deny"
    );
    w.answer(1, 2, &call("write_note", json!({"n": 2})));
    assert!(w.executes().is_empty());
    assert_eq!(w.typed(1).len(), 2, "denied again without a prompt");
}

#[test]
fn a_tool_let_through_unmasked_asks_the_bridge_for_its_result_as_is() {
    let mut w = World::new();
    let r = w.page(json!({"type": "set-tool-unmasked", "key": "demo:echo", "unmasked": true}));
    assert!(
        matches!(r, mcp_bridge_core::domain::messages::Response::Data { .. }),
        "{r:?}"
    );
    w.open_chat(1);
    let named = format!(
        "Echo.\n<tool_code>\n{}\n</tool_code>",
        json!({"tool_name": "echo", "arguments": {"text": "a"}, "server_name": "demo"})
    );
    w.answer(1, 1, &named);
    // A call that names no server is resolved to the one server offering the tool first.
    w.answer(1, 2, &call("echo", json!({"text": "b"})));
    w.answer(1, 3, &call("add", json!({"a": 1, "b": 2})));
    let executes = w.executes();
    assert_eq!(executes.len(), 3, "{executes:?}");
    assert_eq!(executes[0]["unmasked"], true);
    assert_eq!(executes[1]["unmasked"], true);
    assert!(executes[2].get("unmasked").is_none(), "{}", executes[2]);
}
