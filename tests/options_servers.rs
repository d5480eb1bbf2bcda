//! The options page's requests about the bridge's MCP servers, run natively over the
//! in-memory host: which route each one reaches with what body, what is checked before
//! anything is sent, and how the bridge's refusals read in the user's language. The real
//! bridge and browsers are exercised in `tests/e2e/servers.test.mjs`.
#![cfg(not(target_arch = "wasm32"))]

#[allow(dead_code)]
#[path = "chat_loop/world.rs"]
mod world;

use mcp_bridge_core::domain::i18n::{Lang, labels::Labels};
use mcp_bridge_core::runtime::host::{HttpRequest, Method};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use world::{Answer, World, ok_json};

const TOKEN: &str = "tok-123";

/// The scripted bridge's config: each server's name and `mcpServers` entry, in order.
type Config = Rc<RefCell<Vec<(String, Value)>>>;

/// The path and query of a request to the bridge.
fn path(req: &HttpRequest) -> String {
    req.url
        .splitn(4, '/')
        .nth(3)
        .unwrap_or_default()
        .to_string()
}

/// A bridge that keeps a config of servers: `GET /servers` lists them (an entry `"builtin"`
/// as the built-in demo server: no definition, `builtin: true`), `PUT` adds or replaces
/// (refusing an entry without `command` or `url` as the real bridge does; with
/// `?keep_builtin=true` writing the built-in one into the config),
/// `PATCH` switches, `DELETE` removes, restart and import answer as the bridge does.
fn managing_bridge(
    config: Rc<RefCell<Vec<(String, Value)>>>,
) -> impl FnMut(&HttpRequest) -> Answer {
    move |req| {
        let p = path(req);
        let mut config = config.borrow_mut();
        let unknown = |name: &str| {
            ok_json(
                404,
                json!({"detail": {"error": format!("There is no MCP server named `{name}` in the config."),
                    "type": "ServerNotFound", "server": name}}),
            )
        };
        let server = p.strip_prefix("servers/").map(str::to_string);
        match (req.method, p.as_str(), server) {
            (Method::Get, "health", _) => ok_json(200, json!({"status": "ok", "version": "0.2.0"})),
            (Method::Get, q, _) if q == "servers" || q.starts_with("servers?reveal=") => {
                let reveal = q.strip_prefix("servers?reveal=");
                let list: Vec<Value> = config
                    .iter()
                    .map(|(name, def)| {
                        if def == "builtin" {
                            return json!({"name": name, "enabled": true, "definition": null,
                                "status": "running", "tool_count": 9, "stderr": "", "builtin": true});
                        }
                        let on = def["enabled"] != json!(false);
                        let mut shown = def.clone();
                        if reveal != Some(name.as_str())
                            && let Some(env) = shown.get_mut("env").and_then(Value::as_object_mut)
                        {
                            env.values_mut().for_each(|v| *v = json!("***"));
                        }
                        let mut row = json!({"name": name, "enabled": on, "definition": shown,
                            "status": if on { "running" } else { "disabled" },
                            "tool_count": if on { 2 } else { 0 }, "stderr": ""});
                        // The bridge flags a name a new server could not have (here: any
                        // character beyond ASCII), in its own English words.
                        if !name.is_ascii() {
                            row["name_warning"] = json!("the server name (shown escaped) would be refused for a new server");
                        }
                        row
                    })
                    .collect();
                ok_json(
                    200,
                    json!({"success": true, "config_valid": true, "servers": list}),
                )
            }
            (Method::Post, "servers/import", _) => {
                let names = req.json.as_ref().and_then(|b| b.get("names")).cloned();
                match names {
                    Some(Value::Array(names)) => ok_json(
                        200,
                        json!({"success": true, "added": names,
                        "clashes": [], "invalid": [], "not_found": []}),
                    ),
                    _ => ok_json(
                        200,
                        json!({"success": true, "dry_run": true, "found": {"sources": [],
                        "servers": [{"name": "fetch", "client": "Cursor", "addable": true, "clash": null}]}}),
                    ),
                }
            }
            (Method::Post, _, Some(s)) if s.ends_with("/restart") => {
                let name = s.trim_end_matches("/restart");
                if !config.iter().any(|(n, _)| n == name) {
                    return unknown(name);
                }
                ok_json(
                    200,
                    json!({"success": true, "server": name, "restarted": [name]}),
                )
            }
            (Method::Put, _, Some(name)) => {
                let (name, keep) = match name.split_once('?') {
                    Some((name, query)) => (name.to_string(), query == "keep_builtin=true"),
                    None => (name, false),
                };
                let mut kept = Value::Null;
                if keep
                    && let Some((builtin, def)) = config.iter_mut().find(|(_, d)| *d == "builtin")
                {
                    *def = json!({"command": "mcp-bridge", "args": ["demo-server"]});
                    kept = json!(builtin);
                }
                config.retain(|(_, d)| *d != "builtin");
                let def = req.json.clone().unwrap_or_default();
                if def.get("command").is_none() && def.get("url").is_none() {
                    return ok_json(
                        422,
                        json!({"detail": {"error": "The server definition was refused: `command` is required for a stdio server",
                        "type": "InvalidServerDefinition", "field": format!("mcpServers.{name}.command"), "line": 4, "server": name}}),
                    );
                }
                let created = !config.iter().any(|(n, _)| *n == name);
                config.retain(|(n, _)| *n != name);
                config.push((name.clone(), def));
                ok_json(
                    200,
                    json!({"success": true, "server": name, "created": created, "kept": kept,
                    "changes": {"added": [name], "restarted": [], "removed": [], "unchanged": []}}),
                )
            }
            (Method::Patch, _, Some(name)) => {
                let Some((_, def)) = config.iter_mut().find(|(n, _)| *n == name) else {
                    return unknown(&name);
                };
                def["enabled"] = req.json.as_ref().unwrap()["enabled"].clone();
                ok_json(200, json!({"success": true, "server": name}))
            }
            (Method::Delete, _, Some(name)) => {
                let before = config.len();
                config.retain(|(n, _)| *n != name);
                if config.len() == before {
                    return unknown(&name);
                }
                ok_json(200, json!({"success": true, "server": name}))
            }
            _ => ok_json(404, json!({"detail": "Not Found"})),
        }
    }
}

fn world_with(servers: &[(&str, Value)]) -> (World, Config) {
    let mut w = World::new();
    let config = Rc::new(RefCell::new(
        servers
            .iter()
            .map(|(n, d)| (n.to_string(), d.clone()))
            .collect(),
    ));
    w.bridge(managing_bridge(Rc::clone(&config)));
    w.settings(json!({"token": TOKEN}));
    (w, config)
}

fn answer(w: &mut World, request: Value) -> Value {
    serde_json::to_value(w.page(request)).unwrap()
}

fn last_request(w: &World) -> HttpRequest {
    w.host
        .0
        .requests
        .borrow()
        .last()
        .cloned()
        .expect("no request")
}

fn time_server() -> Value {
    json!({"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "Europe/Paris"}})
}

#[test]
fn the_list_says_each_status_and_keeps_secrets_masked() {
    let (mut w, _) = world_with(&[("time", time_server())]);
    let r = answer(&mut w, json!({"type": "list-servers"}));
    assert_eq!(r["type"], "data", "{r}");
    let time = &r["data"]["servers"][0];
    assert_eq!(time["statusText"], "running");
    assert_eq!(time["definition"]["env"]["TZ"], "***");
    assert_eq!(r["data"]["fingerprint"], "time=running:2;");
    let req = last_request(&w);
    assert_eq!((req.method, path(&req).as_str()), (Method::Get, "servers"));
    assert_eq!(req.bearer.as_deref(), Some(TOKEN));
    // Revealed on request only, for that one server.
    let r = answer(&mut w, json!({"type": "reveal-server", "name": "time"}));
    assert_eq!(r["data"]["definition"]["env"]["TZ"], "Europe/Paris");
    assert_eq!(path(&last_request(&w)), "servers?reveal=time");
}

#[test]
fn a_flagged_name_is_warned_of_on_its_row_escaped() {
    let (mut w, _) = world_with(&[("d\u{435}mo", time_server()), ("time", time_server())]);
    let r = answer(&mut w, json!({"type": "list-servers"}));
    assert_eq!(r["type"], "data", "{r}");
    let odd = r["data"]["servers"][0]["nameWarning"]
        .as_str()
        .unwrap_or_default();
    assert!(odd.contains("`d\\u{435}mo`"), "{r}");
    assert!(
        !odd.contains("would be refused"),
        "the bridge's English is not shown: {odd}"
    );
    assert_eq!(r["data"]["servers"][1]["nameWarning"], Value::Null, "{r}");
}

#[test]
fn a_bad_definition_names_its_field_and_nothing_is_sent() {
    let (mut w, config) = world_with(&[]);
    let sent = w.host.0.requests.borrow().len();
    for (json, field) in [
        ("{\"command\": \"uvx\", ", "definition"),
        (
            r#"{"command": "uvx", "args": "mcp-server-time"}"#,
            "definition.args",
        ),
        (r#"{"args": ["x"]}"#, "definition.command"),
    ] {
        let r = answer(
            &mut w,
            json!({"type": "save-server", "name": "time", "json": json}),
        );
        assert_eq!(r["type"], "error", "{r}");
        assert_eq!(r["field"], field, "{json}");
        // The sentence is whole: the label the form shows, the field's path, that nothing changed.
        let label = Labels::of(Lang::En).say("fieldDefinition", &[]);
        let message = r["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with(&format!("{label} (`{field}`): "))
                && message.ends_with("— nothing was changed."),
            "{message}"
        );
    }
    let r = answer(
        &mut w,
        json!({"type": "check-server", "name": "no/slash", "json": "{}"}),
    );
    assert_eq!(r["field"], "name");
    let label = Labels::of(Lang::En).say("fieldServerName", &[]);
    assert!(
        r["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with(&format!("{label} (`name`): ")),
        "{r}"
    );
    assert_eq!(
        w.host.0.requests.borrow().len(),
        sent,
        "nothing reached the bridge"
    );
    assert!(config.borrow().is_empty());
    // The check alone answers with the entry it would send.
    let r = answer(
        &mut w,
        json!({"type": "check-server", "name": "time",
        "json": time_server().to_string()}),
    );
    assert_eq!(r["data"]["definition"], time_server());
}

#[test]
fn adding_enabling_restarting_and_removing_reach_their_routes() {
    let (mut w, config) = world_with(&[]);
    let r = answer(
        &mut w,
        json!({"type": "save-server", "name": "time",
        "json": time_server().to_string()}),
    );
    assert_eq!(r["data"]["created"], true, "{r}");
    let req = last_request(&w);
    assert_eq!(
        (req.method, path(&req).as_str()),
        (Method::Put, "servers/time")
    );
    assert_eq!(req.json, Some(time_server()));
    let r = answer(
        &mut w,
        json!({"type": "set-server-enabled", "name": "time", "enabled": false}),
    );
    assert_eq!(r["type"], "data", "{r}");
    let req = last_request(&w);
    assert_eq!(
        (req.method, req.json.clone()),
        (Method::Patch, Some(json!({"enabled": false})))
    );
    let r = answer(&mut w, json!({"type": "list-servers"}));
    assert_eq!(r["data"]["servers"][0]["statusText"], "turned off");
    assert_eq!(r["data"]["fingerprint"], "time=disabled:0;");
    let r = answer(&mut w, json!({"type": "restart-server", "name": "time"}));
    assert_eq!(r["data"]["restarted"], json!(["time"]));
    assert_eq!(path(&last_request(&w)), "servers/time/restart");
    let r = answer(&mut w, json!({"type": "remove-server", "name": "time"}));
    assert_eq!(r["type"], "data");
    assert_eq!(last_request(&w).method, Method::Delete);
    assert!(config.borrow().is_empty());
}

#[test]
fn the_bridges_refusals_read_in_the_users_language_naming_the_field() {
    let (mut w, _) = world_with(&[]);
    w.ui_language("zh-CN");
    let r = answer(
        &mut w,
        json!({"type": "check-server", "name": "t", "json": r#"{"args": []}"#}),
    );
    assert_eq!(r["field"], "definition.command");
    assert!(
        r["message"].as_str().unwrap().contains("请填写 `command`"),
        "{r}"
    );
    // What only the bridge checks (here a negative timeout) comes back in the user's words.
    w.bridge(|req| {
        if req.method == Method::Put {
            return ok_json(422, json!({"detail": {"error": "The server definition was refused: `timeout` must be positive",
                "type": "InvalidServerDefinition", "field": "mcpServers.time.timeout", "server": "time"}}));
        }
        world::healthy_bridge(req)
    });
    let r = answer(
        &mut w,
        json!({"type": "save-server", "name": "time",
        "json": r#"{"command": "uvx", "timeout": -1}"#}),
    );
    assert_eq!(r["type"], "error");
    assert_eq!(r["field"], "definition.timeout");
    let message = r["message"].as_str().unwrap();
    let label = Labels::of(Lang::Zh).say("fieldDefinition", &[]);
    assert!(
        message.starts_with(&format!(
            "{label}（`definition.timeout`）：桥接服务拒绝了对 time 的修改"
        )),
        "{message}"
    );
    assert!(message.contains("`timeout` must be positive"), "{message}");
}

#[test]
fn unknown_servers_old_bridges_and_missing_tokens_are_named() {
    let (mut w, _) = world_with(&[]);
    let r = answer(&mut w, json!({"type": "restart-server", "name": "gone"}));
    assert_eq!(r["field"], "name");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("no server named gone"),
        "{r}"
    );
    // A bridge from before these routes answers 404 Not Found.
    w.bridge(world::healthy_bridge);
    let r = answer(&mut w, json!({"type": "list-servers"}));
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("cannot manage servers"),
        "{r}"
    );
    // Without a token the bridge decides: its 401 names the token field.
    let missing_token = |req: &HttpRequest| {
        if world::route(req).starts_with("health") {
            return world::healthy_bridge(req);
        }
        world::ok_json(
            401,
            json!({"detail": {"error": "Missing token", "type": "Unauthorized", "facts": {"reason": "missing-token"}}}),
        )
    };
    let mut w = World::new();
    w.bridge(missing_token);
    let r = answer(&mut w, json!({"type": "list-servers"}));
    assert_eq!(r["field"], "token", "{r}");
    // The same 401 from something that does not answer `/health` as our bridge: the address
    // is wrong, and no token would help.
    let mut w = World::new();
    w.bridge(|_| world::ok_json(401, json!({"detail": "Unauthorized"})));
    let r = answer(&mut w, json!({"type": "list-servers"}));
    assert_eq!(r["field"], "bridgeUrl", "{r}");
}

#[test]
fn import_lists_first_and_adds_only_the_picked() {
    let (mut w, _) = world_with(&[]);
    let r = answer(&mut w, json!({"type": "import-servers"}));
    assert_eq!(r["data"]["found"]["servers"][0]["name"], "fetch", "{r}");
    assert_eq!(last_request(&w).json, Some(json!({"names": null})));
    let r = answer(
        &mut w,
        json!({"type": "import-servers", "names": ["fetch"]}),
    );
    assert_eq!(r["data"]["added"], json!(["fetch"]));
    assert_eq!(last_request(&w).json, Some(json!({"names": ["fetch"]})));
}

#[test]
fn the_first_server_of_ones_own_says_the_demo_steps_aside() {
    // Only the built-in demo server runs: it is listed with no definition.
    let (mut w, _) = world_with(&[("demo", Value::Null)]);
    let t = answer(&mut w, json!({"type": "server-template", "kind": "uvx"}));
    assert_eq!(t["data"]["name"], "time", "{t}");
    assert_eq!(t["data"]["definition"]["command"], "uvx");
    assert_eq!(
        t["data"]["notice"],
        "This is your first server: once it is saved, the built-in demo server steps aside and its tools leave the list."
    );
    let saved = answer(
        &mut w,
        json!({"type": "save-server", "name": "time", "json": time_server().to_string()}),
    );
    assert_eq!(
        saved["data"]["message"],
        "Added `time`. The built-in demo server steps aside now that the config lists a server of your own.",
        "{saved}"
    );
    // With a server of one's own, nothing is said about the demo.
    let t = answer(&mut w, json!({"type": "server-template", "kind": "local"}));
    assert_eq!(t["data"]["notice"], Value::Null, "{t}");
    assert_eq!(t["data"]["definition"]["command"], "/path/to/server");
    let saved = answer(
        &mut w,
        json!({"type": "save-server", "name": "clock", "json": time_server().to_string()}),
    );
    assert_eq!(saved["data"]["message"], "Added `clock`.");
    let r = answer(&mut w, json!({"type": "server-template", "kind": "docker"}));
    assert_eq!(
        (r["type"].as_str(), r["field"].as_str()),
        (Some("error"), Some("kind"))
    );
}

#[test]
fn saving_the_connection_tests_first_trims_the_token_and_saves_either_way() {
    let (mut w, _) = world_with(&[]);
    // This scripted bridge has no `/tools`: the test fails, the save happens, both are said.
    let r = answer(
        &mut w,
        json!({"type": "save-connection", "bridgeUrl": "http://127.0.0.1:3849", "token": " tok-456\n"}),
    );
    assert_eq!(r["type"], "data", "{r}");
    assert_eq!(r["data"]["connected"], false);
    assert_eq!(r["data"]["settings"]["token"], "tok-456");
    let message = r["data"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Saved, but the connection does not work yet: "),
        "{message}"
    );
    let s = answer(&mut w, json!({"type": "get-settings"}));
    assert_eq!(s["data"]["token"], "tok-456");
    // A value that does not validate saves nothing and names its field.
    let r = answer(
        &mut w,
        json!({"type": "save-connection", "bridgeUrl": "http://example.com:3849", "token": "x"}),
    );
    assert_eq!(
        (r["type"].as_str(), r["field"].as_str()),
        (Some("error"), Some("bridgeUrl"))
    );
    let s = answer(&mut w, json!({"type": "get-settings"}));
    assert_eq!(s["data"]["token"], "tok-456");
}

#[test]
fn the_first_server_of_ones_own_can_keep_the_built_in_demo() {
    // The bridge names its demo server as built in: the editor offers to keep it.
    let (mut w, config) = world_with(&[("demo", json!("builtin"))]);
    let t = answer(&mut w, json!({"type": "server-template", "kind": "uvx"}));
    assert_eq!(t["data"]["keepDemo"], true, "{t}");
    assert_eq!(
        t["data"]["notice"],
        "This is your first server: once it is saved, the built-in demo server steps aside and its tools leave the list, unless you keep it."
    );
    let list = answer(&mut w, json!({"type": "list-servers"}));
    assert_eq!(list["data"]["servers"][0]["builtin"], true, "{list}");
    let saved = answer(
        &mut w,
        json!({"type": "save-server", "name": "time", "json": time_server().to_string(), "keepDemo": true}),
    );
    assert!(
        last_request(&w)
            .url
            .ends_with("/servers/time?keep_builtin=true"),
        "{}",
        last_request(&w).url
    );
    assert_eq!(
        saved["data"]["message"],
        "Added `time`; the built-in demo server stays, as `demo` in the config file.",
        "{saved}"
    );
    let names: Vec<String> = config.borrow().iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names, ["demo", "time"]);
    // With servers of one's own, keeping is not asked for again, even if the page says so.
    let t = answer(&mut w, json!({"type": "server-template", "kind": "uvx"}));
    assert_eq!(
        (t["data"]["notice"].clone(), t["data"]["keepDemo"].clone()),
        (Value::Null, json!(false))
    );
    answer(
        &mut w,
        json!({"type": "save-server", "name": "clock", "json": time_server().to_string(), "keepDemo": true}),
    );
    assert!(
        last_request(&w).url.ends_with("/servers/clock"),
        "{}",
        last_request(&w).url
    );

    // Not kept: the demo steps aside, as before.
    let (mut w, config) = world_with(&[("demo", json!("builtin"))]);
    let saved = answer(
        &mut w,
        json!({"type": "save-server", "name": "time", "json": time_server().to_string()}),
    );
    assert!(
        last_request(&w).url.ends_with("/servers/time"),
        "{}",
        last_request(&w).url
    );
    let said = saved["data"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("steps aside"), "{saved}");
    let names: Vec<String> = config.borrow().iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names, ["time"]);
}
