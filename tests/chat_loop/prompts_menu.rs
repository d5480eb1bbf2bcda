//! The float's Prompts menu over the scripted bridge: the menu lists prompts, resources and
//! templates; a prompt is rendered and added after the user's text, unsent; a required field
//! left empty is named before anything is asked; a resource is attached as a quoted block
//! naming its URI; a result's resource links are offered; and a change of the tools since the
//! instructions is said in the float.

use super::world::*;
use mcp_bridge_core::domain::messages::{Command, Response};
use mcp_bridge_core::runtime::host::{HttpRequest, Method};
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;

/// `healthy_bridge` plus the routes of prompts and resources; `extra` adds a tool to `demo`.
fn bridge(extra: Rc<Cell<bool>>) -> impl FnMut(&HttpRequest) -> Answer + 'static {
    move |req: &HttpRequest| {
        let path = route(req);
        match (req.method, path.as_str()) {
            (Method::Get, "prompts") | (Method::Get, "prompts?serverName=demo") => ok_json(
                200,
                json!({"success": true, "prompts": [
                    {"server": "demo", "name": "weather", "title": "Weather", "description": "Ask for the weather",
                     "arguments": [{"name": "state"}, {"name": "city", "required": true}]}]}),
            ),
            (Method::Get, "resources") => ok_json(
                200,
                json!({"success": true, "resources": [{"server": "demo", "uri": "demo://guide", "name": "guide"}]}),
            ),
            (Method::Get, "resource-templates") => ok_json(
                200,
                json!({"success": true, "resourceTemplates": [
                    {"server": "demo", "uriTemplate": "demo://item/{id}", "name": "Item"}]}),
            ),
            (Method::Post, "prompts/get") if req.json.as_ref().unwrap()["name"] == "picture" => {
                ok_json(
                    200,
                    json!({"success": true, "messages": [
                        {"role": "user", "content": {"type": "text", "text": "Describe this picture."}},
                        {"role": "user", "content": {"type": "image", "mimeType": "image/png", "data": PIXEL}}]}),
                )
            }
            (Method::Post, "prompts/get") => {
                let city = req.json.as_ref().unwrap()["arguments"]["city"].clone();
                ok_json(
                    200,
                    json!({"success": true, "messages": [{"role": "user", "content":
                        {"type": "text", "text": format!("What's the weather in {}?", city.as_str().unwrap())}}]}),
                )
            }
            (Method::Post, "resources/read") => {
                let uri = req.json.as_ref().unwrap()["uri"]
                    .as_str()
                    .unwrap()
                    .to_string();
                if uri == "demo://item/404" {
                    return ok_json(
                        404,
                        json!({"detail": {"error": "MCP error -32002: Resource not found", "type": "ToolError"}}),
                    );
                }
                ok_json(
                    200,
                    json!({"success": true, "contents": [{"uri": uri, "mimeType": "text/plain", "text": "Step one.\nStep two."}]}),
                )
            }
            (Method::Post, "execute") => ok_json(
                200,
                json!({"success": true, "result": {"content": [
                    {"type": "text", "text": "two links"},
                    {"type": "resource_link", "uri": "demo://guide", "name": "The guide"}]}}),
            ),
            (Method::Get, "tools?serverName=demo") if extra.get() => ok_json(
                200,
                json!({"success": true, "tools": {"service_name": "demo", "tools": [
                    {"name": "echo", "parameters": {"type": "object"}, "annotations": {"readOnlyHint": true}},
                    {"name": "added_later", "parameters": {"type": "object"}, "annotations": {"readOnlyHint": true}}]}}),
            ),
            _ => healthy_bridge(req),
        }
    }
}

/// A 1×1 PNG, base64.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn appended(w: &World, tab: i32) -> Vec<String> {
    let commands = w.host.0.commands.borrow();
    commands
        .iter()
        .filter_map(|(t, c)| match c {
            Command::AppendText { text } if *t == tab => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn posts(w: &World, path: &str) -> Vec<Value> {
    let requests = w.host.0.requests.borrow();
    requests
        .iter()
        .filter(|r| r.method == Method::Post && r.url.ends_with(path))
        .map(|r| r.json.clone().unwrap_or_default())
        .collect()
}

#[test]
fn the_menu_lists_what_the_servers_offer() {
    let mut w = World::new();
    w.bridge(bridge(Rc::default()));
    w.open_chat(1);
    let Some(Response::Menu { menu }) = w.action(1, json!({"action": "menu"})) else {
        panic!("no menu");
    };
    let items: Vec<(&str, &str)> = menu
        .items
        .iter()
        .map(|i| (i.kind.as_str(), i.name.as_str()))
        .collect();
    assert_eq!(
        items,
        [
            ("prompt", "weather"),
            ("resource", "demo://guide"),
            ("template", "demo://item/{id}")
        ]
    );
    assert_eq!(menu.items[0].fields[0].name, "city", "required first");
}

#[test]
fn a_prompt_is_added_after_the_users_text_unsent_and_a_missing_argument_is_named() {
    let mut w = World::new();
    w.bridge(bridge(Rc::default()));
    w.open_chat(1);
    let use_it = json!({"action": "use-item", "server": "demo", "kind": "prompt", "name": "weather",
                        "values": {"state": "Bavaria", "city": " "}});
    let r = w.action(1, use_it).unwrap();
    let Response::Error { field, message } = r else {
        panic!("{r:?}")
    };
    assert_eq!(field.as_deref(), Some("city"));
    assert!(message.contains("city"), "{message}");
    assert!(
        posts(&w, "/prompts/get").is_empty(),
        "nothing asked of the server"
    );
    let use_it = json!({"action": "use-item", "server": "demo", "kind": "prompt", "name": "weather",
                        "values": {"city": "Munich", "state": ""}});
    assert!(matches!(w.action(1, use_it), Some(Response::Ack { .. })));
    assert_eq!(
        posts(&w, "/prompts/get"),
        [json!({"serverName": "demo", "name": "weather", "arguments": {"city": "Munich"}})]
    );
    assert_eq!(appended(&w, 1), ["What's the weather in Munich?"]);
    assert_eq!(w.submits(1), 0, "typed, not sent");
    assert!(
        w.last_float(1)["title"]
            .as_str()
            .unwrap()
            .contains("Weather"),
        "{}",
        w.last_float(1)
    );
}

#[test]
fn a_resource_or_a_template_is_attached_as_a_quoted_block_naming_its_uri() {
    let mut w = World::new();
    w.bridge(bridge(Rc::default()));
    w.open_chat(1);
    let template = |id: &str| {
        json!({"action": "use-item", "server": "demo", "kind": "template",
                                     "name": "demo://item/{id}", "values": {"id": id}})
    };
    let r = w.action(1, template("")).unwrap();
    assert!(
        matches!(&r, Response::Error { field: Some(f), .. } if f == "id"),
        "{r:?}"
    );
    w.action(1, template("a b"));
    assert_eq!(posts(&w, "/resources/read")[0]["uri"], "demo://item/a%20b");
    assert_eq!(
        appended(&w, 1),
        ["[resource: demo://item/a%20b, text/plain]\n> Step one.\n> Step two."]
    );
    // The server's refusal is said, and nothing is typed.
    let r = w.action(1, template("404")).unwrap();
    let Response::Error { message, .. } = r else {
        panic!("{r:?}")
    };
    assert!(message.contains("Resource not found"), "{message}");
    assert_eq!(appended(&w, 1).len(), 1);
}

#[test]
fn a_results_resource_links_are_offered_and_a_change_of_tools_is_said() {
    let extra = Rc::new(Cell::new(false));
    let mut w = World::new();
    w.bridge(bridge(extra.clone()));
    w.open_chat(1);
    w.action(1, json!({"action": "insert-instructions"}));
    w.answer(1, 1, &call_on("demo", "echo", json!({"text": "x"})));
    let f = w.last_float(1);
    assert_eq!(
        f["links"],
        json!([{"server": "demo", "uri": "demo://guide", "label": "The guide"}])
    );
    assert!(f.get("toolsChanged").is_none(), "nothing changed yet: {f}");
    // The server adds a tool: the next float says so.
    extra.set(true);
    w.answer(1, 2, &call_on("demo", "echo", json!({"text": "y"})));
    let f = w.last_float(1);
    assert!(f["toolsChanged"].as_str().unwrap().contains("demo"), "{f}");
    // Inserting the instructions again lists the new tool, and the notice goes.
    w.action(1, json!({"action": "insert-instructions"}));
    assert!(w.typed(1).last().unwrap().contains("added_later"));
    w.answer(1, 3, &call_on("demo", "echo", json!({"text": "z"})));
    assert!(w.last_float(1).get("toolsChanged").is_none());
    // A page opened again says it at once when the tools changed meanwhile.
    extra.set(false);
    w.page_ready(1, URL);
    assert!(
        w.last_float(1)["toolsChanged"]
            .as_str()
            .unwrap()
            .contains("demo")
    );
}

#[test]
fn a_prompts_image_is_offered_as_an_attachment_in_the_float() {
    let mut w = World::new();
    w.bridge(bridge(Rc::default()));
    w.open_chat(1);
    let use_it = json!({"action": "use-item", "server": "demo", "kind": "prompt",
                        "name": "picture", "values": {}});
    assert!(matches!(w.action(1, use_it), Some(Response::Ack { .. })));
    // The text is typed, the image named in it; the picture itself is the float's to attach.
    let typed = appended(&w, 1);
    assert_eq!(typed.len(), 1);
    assert!(typed[0].starts_with("Describe this picture."), "{typed:?}");
    assert!(
        !typed[0].contains(PIXEL),
        "no image data is typed: {typed:?}"
    );
    let f = w.last_float(1);
    assert_eq!(
        f["media"],
        json!([{"mimeType": "image/png", "data": PIXEL}]),
        "{f}"
    );
    assert_eq!(w.submits(1), 0, "typed, not sent");
}
