//! Every route's JSON answers, compared with `tests/snapshots/routes.json`: one request per
//! answer shape (success, each kind of error, each refusal), through the in-process app. This
//! is what keeps "behaviour unchanged" checkable when the code behind the routes moves.
//!
//! Values that change from run to run (trace ids, times, process ids, temp paths, the
//! version) are replaced by `<name>` placeholders before comparing. When an answer changes on
//! purpose, the test writes what it saw to the file it names under `target/`; review it and
//! copy it over the snapshot.

mod common;

use std::sync::Arc;
use std::time::Duration;

use axum::http::Method;
use common::{PORT, Req, TOKEN, TestApp, demo_spec};
use mcp_bridge::AppState;
use mcp_bridge::config::manage::Manager;
use mcp_bridge::security::Security;
use mcp_bridge::servers::Registry;
use serde_json::{Map, Value, json};

/// Keys whose values differ from run to run.
const VOLATILE: [&str; 8] = [
    "trace_id",
    "timestamp",
    "uptime_seconds",
    "elapsed_seconds",
    "pid",
    "call_id",
    "version",
    "config_path",
];

/// The answers seen, in order, each with the request that got it.
struct Seen {
    entries: Vec<Value>,
    temp: String,
    bridge: String,
}

impl Seen {
    fn normalize(&self, value: Value) -> Value {
        match value {
            Value::String(text) => Value::String(
                text.replace(&self.bridge, "<bridge>")
                    .replace(&self.temp, "<temp>"),
            ),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.normalize(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(key, value)| {
                        let value = if VOLATILE.contains(&key.as_str()) && !value.is_null() {
                            Value::String(format!("<{key}>"))
                        } else {
                            self.normalize(value)
                        };
                        (key, value)
                    })
                    .collect::<Map<String, Value>>(),
            ),
            other => other,
        }
    }

    fn record(&mut self, request: &str, reply: &common::Reply) {
        let body = self.normalize(reply.body.clone());
        let request = self.normalize(json!(request));
        self.entries.push(json!({
            "request": request,
            "status": reply.status.as_u16(),
            "body": body,
        }));
    }
}

/// Send `method path` with `body` (JSON text) and record the answer under that name.
async fn ask(
    app: &TestApp,
    seen: &mut Seen,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> common::Reply {
    let text = body.as_ref().map(Value::to_string);
    let reply = app.send(method.clone(), path, text.as_deref()).await;
    let name = match &body {
        Some(body) => format!("{method} {path} {body}"),
        None => format!("{method} {path}"),
    };
    seen.record(&name, &reply);
    reply
}

/// Send a hand-made request and record the answer under `name`.
async fn ask_raw(app: &TestApp, seen: &mut Seen, name: &str, request: Req) {
    let reply = app.raw(request.build()).await;
    seen.record(name, &reply);
}

async fn app_with_manager(dir: &std::path::Path, token: Option<String>) -> TestApp {
    let registry = Arc::new(Registry::new(vec![demo_spec()]));
    tokio::time::timeout(common::START_LIMIT, registry.start_all())
        .await
        .expect("the demo server did not start in time");
    let manager = Arc::new(Manager::new(dir.join("mcp-config.json"), registry.clone()));
    let state = AppState::new(
        registry.clone(),
        Security::new(token, PORT, None),
        Duration::from_secs(60),
    )
    .with_manager(manager);
    TestApp { state, registry }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_route_answers_as_its_snapshot_says() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Seen {
        entries: Vec::new(),
        temp: dir.path().to_string_lossy().into_owned(),
        bridge: common::bridge_exe().to_string_lossy().into_owned(),
    };
    let app = app_with_manager(dir.path(), Some(TOKEN.to_owned())).await;
    let get = Method::GET;
    let post = Method::POST;

    // Health and the tool lists.
    ask(&app, &mut seen, get.clone(), "/health", None).await;
    ask(&app, &mut seen, get.clone(), "/tools", None).await;
    ask(&app, &mut seen, get.clone(), "/tools?serverName=demo", None).await;
    ask(&app, &mut seen, get.clone(), "/tools?serverName=nope", None).await;
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/tool-detail?toolName=echo",
        None,
    )
    .await;
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/tool-detail?toolName=ecko",
        None,
    )
    .await;
    ask(&app, &mut seen, get.clone(), "/tool-detail", None).await;

    // Running tools: success, each kind of failure, bad requests.
    let execute = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(execute("echo", json!({"text": "hi"}))),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(execute("add", json!({"a": 2, "b": 3}))),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(execute("ecko", json!({}))),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(execute("fail_validation", json!({"date": "2026-13-45"}))),
    )
    .await;
    // The third failure in a row reaches the failure limit; the fourth call is refused.
    for _ in 0..4 {
        ask(
            &app,
            &mut seen,
            post.clone(),
            "/execute",
            Some(execute("fail_runtime", json!({}))),
        )
        .await;
    }
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(execute("fail_logical", json!({"query": "q"}))),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(execute("read_result", json!({"result_id": "r-none"}))),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(json!({"arguments": {}})),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(json!({"name": "echo", "serverName": "nope", "arguments": {}})),
    )
    .await;
    ask_raw(
        &app,
        &mut seen,
        "POST /execute (not JSON)",
        Req::new(post.clone(), "/execute").body(Some("{not json")),
    )
    .await;

    // A long-polled call: pending, cancelled, then its outcome; an unknown call.
    let pending = ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(json!({"name": "slow", "arguments": {"seconds": 30}, "wait": 0.05})),
    )
    .await;
    let call_id = pending.body["call_id"]
        .as_str()
        .expect("a call id")
        .to_owned();
    let reply = app.get(&format!("/calls/{call_id}?wait=0.05")).await;
    seen.record("GET /calls/{id}?wait=0.05 (running)", &reply);
    let reply = app
        .send(Method::DELETE, &format!("/calls/{call_id}"), None)
        .await;
    seen.record("DELETE /calls/{id} (running)", &reply);
    let reply = app.get(&format!("/calls/{call_id}?wait=5")).await;
    seen.record("GET /calls/{id}?wait=5 (cancelled)", &reply);
    let reply = app
        .send(Method::DELETE, &format!("/calls/{call_id}"), None)
        .await;
    seen.record("DELETE /calls/{id} (finished)", &reply);
    ask(&app, &mut seen, get.clone(), "/calls/no-such-call", None).await;
    ask(&app, &mut seen, Method::DELETE, "/calls/no-such-call", None).await;
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/calls/no-such-call?wait=abc",
        None,
    )
    .await;

    // The failure counters.
    ask(&app, &mut seen, get.clone(), "/history", None).await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/reset-history",
        Some(json!({"serverName": "demo", "toolName": "fail_runtime"})),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/reset-history",
        Some(json!({})),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/reset-history",
        Some(json!({"serverName": 3})),
    )
    .await;

    // Managing servers (definitions that stay disabled, so nothing else starts).
    ask(&app, &mut seen, get.clone(), "/servers", None).await;
    ask(&app, &mut seen, post.clone(), "/servers/demo/restart", None).await;
    let definition = json!({"command": "mcp-bridge-absent-program", "args": ["--x"], "env": {"API_KEY": "sk-live-0123456789abcdef"}, "enabled": false});
    ask(
        &app,
        &mut seen,
        Method::PUT,
        "/servers/extra",
        Some(definition.clone()),
    )
    .await;
    ask(
        &app,
        &mut seen,
        Method::PUT,
        "/servers/extra",
        Some(definition),
    )
    .await;
    ask(
        &app,
        &mut seen,
        Method::PUT,
        "/servers/extra",
        Some(json!("not an object")),
    )
    .await;
    ask(
        &app,
        &mut seen,
        Method::PUT,
        "/servers/broken",
        Some(json!({"command": 3})),
    )
    .await;
    ask(&app, &mut seen, get.clone(), "/servers", None).await;
    ask(&app, &mut seen, get.clone(), "/servers?reveal=extra", None).await;
    ask(&app, &mut seen, get.clone(), "/servers?reveal=nope", None).await;
    ask(
        &app,
        &mut seen,
        Method::PATCH,
        "/servers/extra",
        Some(json!({"enabled": false})),
    )
    .await;
    ask(
        &app,
        &mut seen,
        Method::PATCH,
        "/servers/extra",
        Some(json!({"enabled": "yes"})),
    )
    .await;
    ask(
        &app,
        &mut seen,
        Method::PATCH,
        "/servers/nope",
        Some(json!({"enabled": true})),
    )
    .await;
    ask(&app, &mut seen, post.clone(), "/servers/nope/restart", None).await;
    ask(&app, &mut seen, Method::DELETE, "/servers/extra", None).await;
    ask(&app, &mut seen, Method::DELETE, "/servers/extra", None).await;
    let claude = dir.path().join("claude_desktop_config.json");
    std::fs::write(
        &claude,
        json!({"mcpServers": {"imported": {"command": "mcp-bridge-absent-program", "disabled": true}}}).to_string(),
    )
    .unwrap();
    let from = claude.to_string_lossy().into_owned();
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/servers/import",
        Some(json!({"from": from})),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/servers/import",
        Some(json!({"from": from, "names": ["imported", "absent"]})),
    )
    .await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/servers/import",
        Some(json!({"from": 3})),
    )
    .await;

    // The routes every request passes: unknown route and method, access checks, body limit.
    ask(&app, &mut seen, get.clone(), "/no-such-route", None).await;
    ask(&app, &mut seen, Method::PUT, "/health", None).await;
    ask_raw(
        &app,
        &mut seen,
        "GET /tools (no token)",
        Req::new(get.clone(), "/tools").auth(None),
    )
    .await;
    ask_raw(
        &app,
        &mut seen,
        "GET /tools (wrong token)",
        Req::new(get.clone(), "/tools").auth(Some("Bearer wrong-token-000000000")),
    )
    .await;
    ask_raw(
        &app,
        &mut seen,
        "GET /tools (web Origin)",
        Req::new(get.clone(), "/tools").header("origin", "https://evil.example"),
    )
    .await;
    ask_raw(
        &app,
        &mut seen,
        "GET /tools (foreign Host)",
        Req::new(get.clone(), "/tools").host(Some("evil.example:3849")),
    )
    .await;
    ask_raw(
        &app,
        &mut seen,
        "GET /tools (two Origins)",
        Req::new(get.clone(), "/tools")
            .header("origin", "chrome-extension://a")
            .header("origin", "chrome-extension://b"),
    )
    .await;
    let big = format!(
        "{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{}\"}}}}",
        "x".repeat(1024 * 1024 + 1)
    );
    ask_raw(
        &app,
        &mut seen,
        "POST /execute (over the body limit)",
        Req::new(post.clone(), "/execute").body(Some(&big)),
    )
    .await;
    app.stop().await;

    // A bridge started with --no-auth refuses server management.
    let open = app_with_manager(dir.path(), None).await;
    ask_raw(
        &open,
        &mut seen,
        "GET /servers (--no-auth)",
        Req::new(get.clone(), "/servers").auth(None),
    )
    .await;
    ask_raw(
        &open,
        &mut seen,
        "GET /health (--no-auth)",
        Req::new(get.clone(), "/health").auth(None),
    )
    .await;
    open.stop().await;

    compare(Value::Array(seen.entries));
}

/// Compare with the snapshot; on a difference, write what was seen and name the first change.
fn compare(actual: Value) {
    let snapshot_path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/routes.json");
    let actual_path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("routes.actual.json");
    let actual_text = serde_json::to_string_pretty(&actual).unwrap() + "\n";
    std::fs::write(&actual_path, &actual_text).unwrap();
    let expected: Value = match std::fs::read_to_string(&snapshot_path) {
        Ok(text) => serde_json::from_str(&text).expect("the snapshot is JSON"),
        Err(err) => panic!(
            "no snapshot at {} ({err}); the answers seen are in {}",
            snapshot_path.display(),
            actual_path.display()
        ),
    };
    let expected = expected.as_array().expect("the snapshot is a list");
    let actual = actual.as_array().unwrap();
    for (index, (want, got)) in expected.iter().zip(actual).enumerate() {
        assert_eq!(
            want,
            got,
            "answer #{index} ({}) differs from the snapshot; all answers seen are in {}",
            got["request"],
            actual_path.display()
        );
    }
    assert_eq!(
        expected.len(),
        actual.len(),
        "the snapshot has {} answers, the run {}; all answers seen are in {}",
        expected.len(),
        actual.len(),
        actual_path.display()
    );
}
