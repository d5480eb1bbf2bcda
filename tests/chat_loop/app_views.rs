//! Tools of MCP App views: one that only its view may call (`ui.visibility` without `model`) is
//! never offered to the AI, in the instructions or the tool list; one the view and the AI share
//! is the AI's like any other. After a call of a tool with a view, the float shows the view,
//! and what the view asks is the core's to decide: its own server's tools only, a *Deny*
//! holding, a tool that would ask refused, the round cap counting; a message typed and never
//! sent; a link only when it is `http(s)`.

use super::world::*;
use mcp_bridge_core::domain::messages::Response;
use mcp_bridge_core::runtime::host::Area;
use serde_json::{Value, json};

/// The tools of the server `clock` as the bridge lists them: `show_clock` has a view the AI may
/// call too, `tick` is for the view only, `now` has no view, `chime` is the model's only and
/// `reset` does not say it only reads.
fn clock_tools() -> Value {
    let tool = |name: &str, ui: Value, annotations: Value| {
        json!({"name": name, "description": format!("The {name} tool"),
            "parameters": {"type": "object"}, "annotations": annotations,
            "ui": ui})
    };
    let reads = json!({"readOnlyHint": true});
    let app = |who: Value| json!({"resourceUri": "ui://clock/app.html", "visibility": who});
    json!({"success": true, "tools": {"service_name": "clock", "tools": [
        tool("show_clock", app(json!(["model", "app"])), reads.clone()),
        tool("tick", app(json!(["app"])), reads.clone()),
        tool("now", Value::Null, reads.clone()),
        tool("chime", app(json!(["model"])), reads.clone()),
        tool("reset", app(json!(["app"])), json!({})),
    ]}})
}

/// The view's one-time address, as `POST /views` answers it.
const VIEW_URL: &str = "http://127.0.0.1:8765/views/0123456789abcdef0123456789abcdef";
const VIEW_ID: &str = "0123456789abcdef0123456789abcdef";
/// A secret in the call's result: masked in the chat's copy, and in the view's.
const SECRET: &str = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

fn world() -> World {
    let mut w = World::new();
    w.bridge(|req| {
        let clock: [(&str, &[&str]); 2] = [
            ("clock", &["show_clock", "tick", "now", "chime", "reset"]),
            ("demo", &["echo"]),
        ];
        match route(req).as_str() {
            "tools?serverName=clock" => ok_json(200, clock_tools()),
            "views" => ok_json(
                200,
                json!({"success": true, "server": "clock", "uri": "ui://clock/app.html",
                       "url": VIEW_URL, "expires_in_seconds": 60}),
            ),
            "execute" => ok_json(
                200,
                json!({"success": true, "result": {
                    "content": [{"type": "text", "text": format!("12:00 {SECRET}")}],
                    "structuredContent": {"time": "12:00", "key": SECRET}}}),
            ),
            _ => bridge_with(&clock, req),
        }
    });
    // Trusted, so its read-only tools run unasked.
    w.settings(json!({"trustedServers": ["clock"]}));
    w.open_chat(1);
    w
}

/// `world()` after the AI's call of `show_clock`, whose view the float shows.
fn with_view() -> World {
    let mut w = world();
    w.answer(
        1,
        1,
        &call_on("clock", "show_clock", json!({"zone": "UTC"})),
    );
    assert_eq!(w.shown_views(1), [VIEW_ID]);
    w
}

fn ask(w: &mut World, tab: i32, ask: Value) -> Response {
    w.tab(tab, json!({"type": "view", "view": VIEW_ID, "ask": ask}))
}

fn refused(r: &Response) -> String {
    match r {
        Response::Error { message, .. } => message.clone(),
        other => panic!("not refused: {other:?}"),
    }
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

#[test]
fn a_call_of_a_tool_with_a_view_shows_it_with_its_input_and_its_result_masked() {
    let mut w = with_view();
    assert_eq!(w.requests_to("/views"), 1);
    let r = ask(&mut w, 1, json!({"ask": "open"}));
    let Response::Data { data } = r else {
        panic!("{r:?}")
    };
    assert_eq!(data["url"], VIEW_URL);
    assert_eq!(data["toolInput"], json!({"zone": "UTC"}));
    assert_eq!(data["toolResult"]["structuredContent"]["time"], "12:00");
    assert!(!data.to_string().contains(SECRET), "{data}");
    assert_eq!(
        (data["minHeight"].as_u64(), data["maxHeight"].as_u64()),
        (Some(120), Some(600))
    );
    // The chat's copy is masked the same way.
    assert!(!w.typed(1)[0].contains(SECRET));
}

#[test]
fn a_call_of_a_tool_without_a_view_shows_none() {
    let mut w = world();
    w.answer(1, 1, &call_on("clock", "now", json!({})));
    assert_eq!(w.executes().len(), 1);
    assert!(w.shown_views(1).is_empty());
    assert_eq!(w.requests_to("/views"), 0);
}

#[test]
fn a_view_is_answered_in_its_own_tab_only() {
    let mut w = with_view();
    w.open_chat(2);
    assert!(!refused(&ask(&mut w, 2, json!({"ask": "open"}))).is_empty());
    assert!(matches!(
        ask(&mut w, 1, json!({"ask": "open"})),
        Response::Data { .. }
    ));
}

#[test]
fn a_view_calls_a_tool_of_its_own_server_for_the_app() {
    let mut w = with_view();
    let r = ask(
        &mut w,
        1,
        json!({"ask": "call", "name": "tick", "arguments": {"n": 1}}),
    );
    let Response::Data { data } = r else {
        panic!("{r:?}")
    };
    assert_eq!(data["content"][0]["type"], "text");
    assert!(!data.to_string().contains(SECRET), "{data}");
    let sent = w.executes().pop().unwrap();
    assert_eq!(
        (&sent["name"], &sent["serverName"], &sent["arguments"]),
        (&json!("tick"), &json!("clock"), &json!({"n": 1})),
        "{sent}"
    );
    // Logged like the AI's calls.
    let log = w.stored(Area::Local, "callLog").unwrap();
    let tools: Vec<&str> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["tool"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["show_clock", "tick"], "{log}");
}

#[test]
fn a_view_cannot_call_a_model_only_tool_nor_another_servers() {
    let mut w = with_view();
    let before = w.executes().len();
    for name in ["chime", "echo", "no_such_tool"] {
        let why = refused(&ask(&mut w, 1, json!({"ask": "call", "name": name})));
        assert!(why.contains("not a tool this view may call"), "{why}");
    }
    assert_eq!(w.executes().len(), before);
}

#[test]
fn a_deny_holds_for_a_views_call() {
    let mut w = with_view();
    w.settings(json!({"trustedServers": ["clock"], "toolPolicies": {"clock:tick": "deny"}}));
    let before = w.executes().len();
    let why = refused(&ask(&mut w, 1, json!({"ask": "call", "name": "tick"})));
    assert!(why.contains("denied"), "{why}");
    assert_eq!(w.executes().len(), before);
}

/// The view of `with_view()` calls `reset` (a tool that does not say it only reads: it asks
/// the first time); its answer waits for the user's in the float.
fn view_calls_reset(w: &mut World) -> Answered {
    let message = json!({"type": "view", "view": VIEW_ID,
                         "ask": {"ask": "call", "name": "reset", "arguments": {"hard": true}}});
    w.send_waiting(1, message)
}

#[test]
fn a_tool_that_asks_asks_in_the_float_saying_a_view_calls_it_and_runs_on_allow() {
    let mut w = with_view();
    let before = w.executes().len();
    let answered = view_calls_reset(&mut w);
    assert!(answered.borrow().is_none(), "answered before the user");
    assert_eq!(w.executes().len(), before);
    let f = w.last_float(1);
    assert_eq!(f["status"], "confirm", "{f}");
    let why = f["consent"]["why"].as_str().unwrap();
    assert!(
        why.contains("The view of `show_clock` makes this call"),
        "{why}"
    );
    assert!(
        f["consent"]["question"].as_str().unwrap().contains("reset"),
        "{f}"
    );
    w.action(1, json!({"action": "confirm", "run": true}));
    let r = answered
        .borrow_mut()
        .take()
        .expect("answered after the user's go");
    assert!(matches!(r, Response::Data { .. }), "{r:?}");
    let sent = w.executes().pop().unwrap();
    assert_eq!(
        (&sent["name"], &sent["serverName"]),
        (&json!("reset"), &json!("clock"))
    );
    let log = w.stored(Area::Local, "callLog").unwrap();
    let last = log["entries"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (&last["tool"], &last["allowedBy"]),
        (&json!("reset"), &json!("user"))
    );
    // The float no longer asks.
    assert_ne!(w.last_float(1)["status"], "confirm");
}

#[test]
fn deny_in_the_float_refuses_a_views_call_and_the_saved_deny_holds() {
    let mut w = with_view();
    let before = w.executes().len();
    let answered = view_calls_reset(&mut w);
    assert_eq!(w.last_float(1)["status"], "confirm");
    w.action(
        1,
        json!({"action": "confirm", "run": false, "always": true}),
    );
    let r = answered
        .borrow_mut()
        .take()
        .expect("answered after the user's no");
    assert!(refused(&r).contains("did not let `reset` run"), "{r:?}");
    assert_eq!(w.executes().len(), before);
    // Asked again, the saved Deny answers without the float.
    let floats = w.floats(1).len();
    let why = refused(&ask(&mut w, 1, json!({"ask": "call", "name": "reset"})));
    assert!(why.contains("denied"), "{why}");
    assert_eq!(w.floats(1).len(), floats);
    assert_eq!(w.executes().len(), before);
}

#[test]
fn a_views_call_does_not_ask_over_the_ais_question_which_keeps_the_users_answer() {
    let mut w = with_view();
    w.answer(1, 2, &call_on("clock", "reset", json!({"from": "ai"})));
    assert_eq!(w.last_float(1)["status"], "confirm");
    let before = w.executes().len();
    let why = refused(&ask(&mut w, 1, json!({"ask": "call", "name": "reset"})));
    assert!(why.contains("asking about another call"), "{why}");
    w.action(1, json!({"action": "confirm", "run": true}));
    let sent = w.executes();
    assert_eq!(sent.len(), before + 1);
    assert_eq!(sent[before]["arguments"], json!({"from": "ai"}));
}

#[test]
fn a_views_calls_count_as_rounds() {
    let mut w = world();
    w.settings(json!({"trustedServers": ["clock"], "maxAutoRounds": 2}));
    w.answer(1, 1, &call_on("clock", "show_clock", json!({})));
    assert!(matches!(
        ask(&mut w, 1, json!({"ask": "call", "name": "tick"})),
        Response::Data { .. }
    ));
    let why = refused(&ask(&mut w, 1, json!({"ask": "call", "name": "tick"})));
    assert!(why.contains("automatic rounds"), "{why}");
    assert_eq!(w.executes().len(), 2);
}

#[test]
fn a_views_message_is_typed_masked_never_sent_and_the_float_says_whose() {
    let mut w = with_view();
    let typed_before = w.typed(1).len();
    let submits = w.submits(1);
    let content = json!([{"type": "text", "text": format!("Time is 12:00 {SECRET}")}]);
    let r = ask(&mut w, 1, json!({"ask": "message", "content": content}));
    assert!(matches!(r, Response::Ack { .. }), "{r:?}");
    let typed = w.typed(1);
    assert_eq!(typed.len(), typed_before + 1);
    let text = typed.last().unwrap();
    assert!(
        text.starts_with("Time is 12:00") && !text.contains(SECRET),
        "{text}"
    );
    assert_eq!(w.submits(1), submits);
    let f = w.last_float(1);
    assert!(
        f["title"]
            .as_str()
            .unwrap()
            .contains("view of `show_clock` wrote"),
        "{f}"
    );
}

#[test]
fn a_view_may_offer_http_links_only() {
    let mut w = with_view();
    let ok = ask(
        &mut w,
        1,
        json!({"ask": "link", "url": "https://modelcontextprotocol.io/"}),
    );
    assert!(matches!(ok, Response::Ack { .. }), "{ok:?}");
    for bad in ["javascript:alert(1)", "file:///etc/passwd"] {
        refused(&ask(&mut w, 1, json!({"ask": "link", "url": bad})));
    }
}

#[test]
fn a_view_that_failed_is_said_in_the_float() {
    let mut w = with_view();
    let r = ask(&mut w, 1, json!({"ask": "failed", "why": ""}));
    assert!(matches!(r, Response::Ack { .. }), "{r:?}");
    let f = w.last_float(1);
    assert_eq!(f["status"], "error", "{f}");
    let title = f["title"].as_str().unwrap();
    assert!(title.contains("view of `show_clock` failed"), "{title}");
}

#[test]
fn the_host_page_relays_a_views_requests_as_an_extension_page() {
    use mcp_bridge_core::domain::messages::Origin;
    let mut w = with_view();
    let message = json!({"type": "view", "view": VIEW_ID, "ask": {"ask": "open"}});
    let r = w.send(Origin::ExtensionPage, Some(1), message).unwrap();
    assert!(matches!(r, Response::Data { .. }), "{r:?}");
    // Any other chat message stays the content script's.
    let r = w
        .send(
            Origin::ExtensionPage,
            Some(1),
            json!({"type": "user-message"}),
        )
        .unwrap();
    refused(&r);
}

/// The conversations the store keeps marked as having read untrusted content.
fn marked(w: &World) -> Vec<String> {
    let marks = w.stored(Area::Local, "untrustedChats").unwrap_or_default();
    let marks = marks.as_array().cloned().unwrap_or_default();
    marks
        .iter()
        .map(|m| m[0].as_str().unwrap().into())
        .collect()
}

fn say(w: &mut World, text: &str) -> Response {
    let content = json!([{"type": "text", "text": text}]);
    ask(w, 1, json!({"ask": "message", "content": content}))
}

#[test]
fn a_message_of_a_view_of_a_server_the_user_does_not_trust_marks_the_conversation() {
    let mut w = world();
    w.settings(json!({"trustedServers": [], "toolPolicies": {"clock:show_clock": "allow"}}));
    w.answer(1, 1, &call_on("clock", "show_clock", json!({})));
    assert_eq!(w.shown_views(1), [VIEW_ID]);
    // The user goes on in another conversation, beside the same view.
    w.open_chat_at(1, OTHER_URL);
    assert!(
        !marked(&w).contains(&OTHER_URL.to_string()),
        "{:?}",
        marked(&w)
    );
    assert!(matches!(say(&mut w, "Book it"), Response::Ack { .. }));
    assert!(
        marked(&w).contains(&OTHER_URL.to_string()),
        "{:?}",
        marked(&w)
    );
    assert_eq!(w.tab_state(1)["untrusted"], "show_clock");
}

#[test]
fn a_message_of_a_view_of_a_trusted_server_does_not_mark_the_conversation() {
    let mut w = with_view();
    w.open_chat_at(1, OTHER_URL);
    assert!(matches!(say(&mut w, "Book it"), Response::Ack { .. }));
    assert_eq!(w.typed(1).last().map(String::as_str), Some("Book it"));
    assert!(
        !marked(&w).contains(&OTHER_URL.to_string()),
        "{:?}",
        marked(&w)
    );
}

#[test]
fn a_views_messages_and_links_go_in_the_call_log_with_its_server() {
    let mut w = with_view();
    say(&mut w, &format!("Time is 12:00 {SECRET}"));
    let link = json!({"ask": "link", "url": "https://modelcontextprotocol.io/"});
    assert!(matches!(ask(&mut w, 1, link), Response::Ack { .. }));
    refused(&ask(
        &mut w,
        1,
        json!({"ask": "link", "url": "file:///etc/passwd"}),
    ));
    let log = w.stored(Area::Local, "callLog").unwrap();
    let entries = log["entries"].as_array().unwrap();
    let acts: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default();
            (s("server"), s("tool"), s("allowedBy"))
        })
        .collect();
    assert_eq!(
        acts[1..],
        [
            ("clock", "show_clock", "view-message"),
            ("clock", "show_clock", "view-link")
        ],
        "{log}"
    );
    let said = entries[1]["arguments"].as_str().unwrap();
    assert!(
        said.contains("Time is 12:00") && !said.contains(SECRET),
        "{said}"
    );
    assert!(
        entries[2]["arguments"]
            .as_str()
            .unwrap()
            .contains("modelcontextprotocol.io")
    );
}

#[test]
fn a_restarted_worker_still_answers_an_open_view() {
    let mut w = with_view();
    w.restart_worker();
    let r = ask(&mut w, 1, json!({"ask": "open"}));
    let Response::Data { data } = r else {
        panic!("{r:?}")
    };
    assert_eq!(data["url"], VIEW_URL);
    assert!(!data.to_string().contains(SECRET), "{data}");
    let r = ask(&mut w, 1, json!({"ask": "call", "name": "tick"}));
    assert!(matches!(r, Response::Data { .. }), "{r:?}");
    assert_eq!(w.executes().pop().unwrap()["name"], "tick");
    // Still its own tab's only.
    w.open_chat(2);
    refused(&ask(&mut w, 2, json!({"ask": "open"})));
}

#[test]
fn a_call_reads_its_servers_tool_list_once_with_a_view_or_without() {
    let mut w = world();
    w.answer(1, 1, &call_on("clock", "now", json!({})));
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.requests_to("tools?serverName=clock"), 1);
    w.answer(1, 2, &call_on("clock", "show_clock", json!({})));
    assert_eq!(w.shown_views(1), [VIEW_ID]);
    assert_eq!(w.requests_to("tools?serverName=clock"), 2);
    assert_eq!(w.requests_to("/views"), 1);
}
