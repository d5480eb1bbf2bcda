//! The `read_resource` pseudo-tool: the AI reads a server's resource through the bridge's
//! `POST /resources/read`, under the same policy as a tool of that name on that server; a
//! server's own tool called `read_resource` stays that tool.

use super::world::*;
use mcp_bridge_core::runtime::host::{Area, HttpRequest, Method};
use serde_json::{Value, json};

/// A bridge with `docs` (resources, no tools) and `demo`; `own` also gives `docs` a tool
/// named `read_resource`.
fn bridge(own: bool) -> impl FnMut(&HttpRequest) -> Answer + 'static {
    move |req: &HttpRequest| {
        let path = route(req);
        match (req.method, path.as_str()) {
            (Method::Get, "tools") => ok_json(
                200,
                json!({"success": true, "services": [
                    {"name": "docs", "status": "running", "tool_count": 0, "resource_count": 2},
                    {"name": "demo", "status": "running", "tool_count": 1, "resource_count": 0}]}),
            ),
            (Method::Get, "tools?serverName=docs") => {
                let tools: Vec<Value> = if own {
                    vec![
                        json!({"name": "read_resource", "parameters": {"type": "object"},
                                "annotations": {"readOnlyHint": true}}),
                    ]
                } else {
                    Vec::new()
                };
                ok_json(
                    200,
                    json!({"success": true, "tools": {"service_name": "docs", "tools": tools}}),
                )
            }
            (Method::Post, "resources/read") => ok_json(
                200,
                json!({"success": true, "server": "docs", "uri": "docs://guide",
                       "contents": [{"uri": "docs://guide", "mimeType": "text/markdown",
                                     "text": "# The guide\nStep one."}]}),
            ),
            _ => healthy_bridge(req),
        }
    }
}

fn reads(w: &World) -> Vec<Value> {
    w.host
        .0
        .requests
        .borrow()
        .iter()
        .filter(|r| r.url.ends_with("/resources/read"))
        .map(|r| r.json.clone().unwrap_or_default())
        .collect()
}

#[test]
fn reading_a_resource_asks_first_then_reports_its_text() {
    let mut w = World::new();
    w.bridge(bridge(false));
    w.open_chat(1);
    w.answer(
        1,
        1,
        &call_on("docs", "read_resource", json!({"uri": "docs://guide"})),
    );
    assert!(reads(&w).is_empty(), "asked first: nothing read yet");
    let f = w.last_float(1);
    assert_eq!(f["status"], "confirm");
    assert_eq!(f["actions"][1]["id"], "always-allow");
    w.action(1, json!({"action": "confirm", "run": true, "always": true}));
    assert_eq!(
        reads(&w),
        [json!({"serverName": "docs", "uri": "docs://guide"})]
    );
    assert!(w.executes().is_empty(), "no tool call was made");
    let typed = w.typed(1);
    assert!(
        typed[0].contains("docs://guide") && typed[0].contains("Step one."),
        "{}",
        typed[0]
    );
    let stored = w.stored(Area::Local, "settings").unwrap();
    assert_eq!(
        stored["siteToolPolicies"]["deepseek"]["docs:read_resource"],
        "allow"
    );
    // The resource of a server the user does not trust is in this conversation now: the
    // next read here asks, whatever its policy.
    w.answer(1, 2, &call("read_resource", json!({"uri": "docs://guide"})));
    assert_eq!(reads(&w).len(), 1);
    assert_eq!(w.last_float(1)["status"], "confirm");
    // Allowed now: in another conversation, the next read runs without asking; one without
    // a server goes to the only server with resources.
    w.open_chat_at(2, OTHER_URL);
    let read = call("read_resource", json!({"uri": "docs://guide"}));
    w.answer_at(2, OTHER_URL, 1, &read);
    assert_eq!(reads(&w).len(), 2);
    assert_eq!(reads(&w)[1]["serverName"], "docs");
}

#[test]
fn a_denied_read_is_not_made() {
    let mut w = World::new();
    w.bridge(bridge(false));
    w.settings(json!({"toolPolicies": {"docs:read_resource": "deny"}}));
    w.open_chat(1);
    w.answer(
        1,
        1,
        &call_on("docs", "read_resource", json!({"uri": "docs://guide"})),
    );
    assert!(reads(&w).is_empty());
    assert!(
        w.typed(1)[0].contains("does not allow the tool read_resource"),
        "{}",
        w.typed(1)[0]
    );
}

#[test]
fn a_servers_own_read_resource_tool_is_that_tool() {
    let mut w = World::new();
    w.bridge(bridge(true));
    w.settings(json!({"trustedServers": ["docs"]}));
    w.open_chat(1);
    w.answer(
        1,
        1,
        &call_on("docs", "read_resource", json!({"uri": "docs://guide"})),
    );
    // Its own annotations say it only reads, on a server the user trusts: it runs without
    // asking, as a tool.
    assert!(reads(&w).is_empty());
    assert_eq!(w.executes().len(), 1);
    assert_eq!(w.executes()[0]["name"], "read_resource");
}
