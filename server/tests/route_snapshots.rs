//! Every route's JSON answers, compared with `tests/snapshots/routes.json`: one request per
//! answer shape (success, each kind of error, each refusal), through the in-process app. This
//! is what keeps "behaviour unchanged" checkable when the code behind the routes moves.
//!
//! Values that change from run to run (trace ids, times, process ids, temp paths, the
//! version) are replaced by `<name>` placeholders before comparing. When an answer changes on
//! purpose, the test writes what it saw to the file it names under `target/`; review it and
//! copy it over the snapshot.

mod common;
#[path = "common/https.rs"]
mod https;
#[path = "common/oauth_server.rs"]
mod oauth_server;

use std::sync::Arc;
use std::time::Duration;

use axum::http::{Method, StatusCode};
use common::{PORT, Req, TOKEN, TestApp, demo_spec, everything_spec};
use http_body_util::BodyExt as _;
use mcp_bridge::AppState;
use mcp_bridge::ResultLimits as Limits;
use mcp_bridge::config::manage::Manager;
use mcp_bridge::config::{ServerSpec, Transport};
use mcp_bridge::security::Security;
use mcp_bridge::servers::Registry;
use serde_json::{Map, Value, json};
use tower::ServiceExt as _;

/// Keys whose values differ from run to run.
const VOLATILE: [&str; 10] = [
    "trace_id",
    "timestamp",
    "uptime_seconds",
    "elapsed_seconds",
    "pid",
    "call_id",
    "version",
    "config_path",
    // A sign-in's page carries a fresh `state` and PKCE challenge.
    "authorization_url",
    // server-everything's blobs say when they were made.
    "blob",
];

/// `text` with the clock time server-everything writes into its dynamic resources
/// ("created at 3:09:58 PM") and the sizes of a left-out blob that holds one replaced.
fn timeless(text: &str) -> String {
    let mut text = text.to_owned();
    for (start, end, name) in [
        ("created at ", "M", "created at <time>"),
        ("binary content (", "):", "binary content (<size>):"),
    ] {
        if let Some(at) = text.find(start)
            && let Some(length) = text[at..].find(end)
        {
            text.replace_range(at..at + length + end.len(), name);
        }
    }
    text
}

/// The answers seen, in order, each with the request that got it.
struct Seen {
    entries: Vec<Value>,
    temp: String,
    bridge: String,
    /// Other texts that differ from run to run (a port, a question's id), each with its name.
    other: Vec<(String, String)>,
}

impl Seen {
    fn normalize(&self, value: Value) -> Value {
        match value {
            Value::String(text) => {
                let mut text = text
                    .replace(&self.bridge, "<bridge>")
                    .replace(&self.temp, "<temp>");
                for (volatile, name) in &self.other {
                    text = text.replace(volatile, name);
                }
                Value::String(timeless(&text))
            }
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

    /// Replace `volatile` by `name` from now on, and in the answer recorded last.
    fn forget(&mut self, volatile: &str, name: &str) {
        self.other.push((volatile.to_owned(), name.to_owned()));
        if let Some(last) = self.entries.pop() {
            let last = self.normalize(last);
            self.entries.push(last);
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

/// Send a request whose answer is a page (the sign-in callback) and record its text.
async fn ask_page(app: &TestApp, seen: &mut Seen, name: &str, path: &str) -> (StatusCode, String) {
    let request = Req::new(Method::GET, path).auth(None).build();
    let response = mcp_bridge::app(app.state.clone())
        .oneshot(request)
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let request = seen.normalize(json!(name));
    let page = seen.normalize(json!(text));
    seen.entries.push(json!({
        "request": request,
        "status": status.as_u16(),
        "page": page,
    }));
    (status, text)
}

async fn app_with_manager(dir: &std::path::Path, token: Option<String>) -> TestApp {
    app_with(dir, vec![demo_spec()], token).await
}

async fn app_with(dir: &std::path::Path, specs: Vec<ServerSpec>, token: Option<String>) -> TestApp {
    let registry = Arc::new(Registry::new(specs));
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
        other: Vec::new(),
    };
    let app = app_with_manager(dir.path(), Some(TOKEN.to_owned())).await;
    let get = Method::GET;
    let post = Method::POST;

    // Health and the tool lists.
    ask(&app, &mut seen, get.clone(), "/health", None).await;
    // The proof that this bridge holds the token, and a nonce it refuses.
    ask_raw(
        &app,
        &mut seen,
        "GET /health?challenge=<nonce> (no token)",
        Req::new(get.clone(), "/health?challenge=nonce-0123456789abcdef").auth(None),
    )
    .await;
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/health?challenge=short",
        None,
    )
    .await;
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
    ask_raw(
        &open,
        &mut seen,
        "GET /health?challenge=<nonce> (--no-auth)",
        Req::new(get.clone(), "/health?challenge=nonce-0123456789abcdef").auth(None),
    )
    .await;
    open.stop().await;

    compare("routes", Value::Array(seen.entries));
}

/// A remote server of the tests' OAuth server.
fn remote(name: &str, url: String) -> ServerSpec {
    let mut spec = demo_spec();
    spec.name = name.to_owned();
    spec.transport = Transport::StreamableHttp {
        url,
        headers: std::collections::BTreeMap::new(),
        ca_file: None,
        sign_in: Default::default(),
    };
    spec.startup_timeout = Duration::from_secs(20);
    spec
}

/// GET `path` until `check` holds on its body (not recorded).
async fn until(app: &TestApp, path: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let reply = app.get(path).await;
        if check(&reply.body) {
            return reply.body;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{path} never matched: {}",
            reply.body
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The routes beyond tools: prompts, completion, resources, a server's question, sign-in and
/// sign-out, and the sign-in's callback page, against server-everything and the tests' OAuth
/// server.
#[tokio::test(flavor = "multi_thread")]
async fn every_mcp_feature_route_answers_as_its_snapshot_says() {
    let dir = tempfile::tempdir().unwrap();
    let oauth = oauth_server::OAuthServer::start().await;
    let oauth_origin = oauth.mcp_url().trim_end_matches("/mcp").to_owned();
    let mut seen = Seen {
        entries: Vec::new(),
        temp: dir.path().to_string_lossy().into_owned(),
        bridge: common::bridge_exe().to_string_lossy().into_owned(),
        other: vec![(oauth_origin, "<oauth>".to_owned())],
    };
    let app = app_with(
        dir.path(),
        vec![
            everything_spec("everything"),
            remote("wiki", oauth.mcp_url()),
            demo_spec(),
        ],
        Some(TOKEN.to_owned()),
    )
    .await;
    let get = Method::GET;
    let post = Method::POST;

    // Prompts, and completing their arguments.
    ask(&app, &mut seen, get.clone(), "/prompts", None).await;
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/prompts?serverName=demo",
        None,
    )
    .await;
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/prompts?serverName=nope",
        None,
    )
    .await;
    let prompt = |body: Value| Some(body);
    for body in [
        json!({"serverName": "everything", "name": "simple-prompt"}),
        json!({"serverName": "everything", "name": "args-prompt", "arguments": {"city": "Lyon"}}),
        json!({"serverName": "everything", "name": "nope"}),
        json!({"serverName": "everything", "name": "args-prompt", "arguments": {"city": 3}}),
        json!({"name": 3}),
        json!([]),
    ] {
        ask(&app, &mut seen, post.clone(), "/prompts/get", prompt(body)).await;
    }
    for body in [
        json!({"serverName": "everything", "prompt": "completable-prompt", "argument": "department", "value": "En"}),
        json!({"serverName": "everything", "prompt": "completable-prompt", "argument": "name", "value": "", "context": {"department": "Sales"}}),
        json!({"serverName": "everything", "uriTemplate": "demo://resource/dynamic/text/{resourceId}", "argument": "resourceId", "value": "7"}),
        json!({"serverName": "everything", "argument": "x"}),
        json!({"serverName": "nope", "prompt": "p", "argument": "x"}),
    ] {
        ask(&app, &mut seen, post.clone(), "/complete", Some(body)).await;
    }

    // Resources.
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/resources?serverName=everything",
        None,
    )
    .await;
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/resources?serverName=demo",
        None,
    )
    .await;
    ask(&app, &mut seen, get.clone(), "/resource-templates", None).await;
    ask(
        &app,
        &mut seen,
        get.clone(),
        "/resource-templates?serverName=nope",
        None,
    )
    .await;
    for body in [
        json!({"serverName": "everything", "uri": "demo://resource/dynamic/text/3"}),
        json!({"serverName": "everything", "uri": "demo://resource/dynamic/blob/3"}),
        json!({"serverName": "everything", "uri": "demo://resource/static/document/features.md"}),
        json!({"serverName": "everything"}),
        json!({"serverName": "everything", "uri": " "}),
        json!({"serverName": "nope", "uri": "a://b"}),
    ] {
        ask(&app, &mut seen, post.clone(), "/resources/read", Some(body)).await;
    }
    // MCP App views: what is not a view, and an address that is not (or no longer) there.
    for body in [
        json!({"serverName": "everything", "uri": "demo://resource/dynamic/text/3"}),
        json!({"serverName": "everything", "uri": "ui://nothing/here"}),
        json!({"serverName": "nope", "uri": "ui://x/y"}),
        json!({"serverName": "everything"}),
    ] {
        ask(&app, &mut seen, post.clone(), "/views", Some(body)).await;
    }
    let gone = Req::new(Method::GET, "/views/00000000000000000000000000000000").auth(None);
    ask_raw(&app, &mut seen, "GET /views/{unknown}, no token", gone).await;
    let paged = Limits {
        threshold: 2000,
        page_chars: 1500,
        ..Limits::default()
    };
    let small = TestApp {
        state: app.state.clone().with_result_limits(paged),
        registry: app.registry.clone(),
    };
    let body =
        json!({"serverName": "everything", "uri": "demo://resource/static/document/features.md"});
    let first = ask(
        &small,
        &mut seen,
        post.clone(),
        "/resources/read",
        Some(body),
    )
    .await;
    let result_id = first.body["page"]["result_id"].as_str().expect("paged");
    seen.forget(result_id, "<result_id>");
    let body = json!({"serverName": "everything", "uri": "demo://resource/dynamic/blob/3"});
    let tiny = Limits {
        threshold: 10,
        ..Limits::default()
    };
    let tiny = TestApp {
        state: app.state.clone().with_result_limits(tiny),
        registry: app.registry.clone(),
    };
    let noted = ask(
        &tiny,
        &mut seen,
        post.clone(),
        "/resources/read",
        Some(body),
    )
    .await;
    let result_id = noted.body["page"]["result_id"].as_str().expect("paged");
    seen.forget(result_id, "<result_id 2>");

    // A server's question during a call, and the user's answers.
    until(&app, "/tools?serverName=everything", |body| {
        body.to_string().contains("trigger-elicitation-request")
    })
    .await;
    let pending = ask(
        &app,
        &mut seen,
        post.clone(),
        "/execute",
        Some(json!({"name": "trigger-elicitation-request", "serverName": "everything", "arguments": {}, "wait": 0})),
    )
    .await;
    // With `wait: 0` the question may or may not have come before the answer is written (the
    // server asks at once); it is pinned below, where the call is asked for it.
    if let Some(Value::Object(body)) = seen.entries.last_mut().and_then(|e| e.get_mut("body")) {
        body.remove("elicitation");
    }
    let call_id = pending.body["call_id"]
        .as_str()
        .expect("a call id")
        .to_owned();
    seen.other.push((call_id.clone(), "<call_id>".to_owned()));
    let asked = until(&app, &format!("/calls/{call_id}?wait=5"), |body| {
        body.get("elicitation").is_some()
    })
    .await;
    let question_id = asked["elicitation"]["id"].as_str().unwrap().to_owned();
    seen.other
        .push((question_id.clone(), "<question_id>".to_owned()));
    let reply = app.get(&format!("/calls/{call_id}?wait=0")).await;
    seen.record("GET /calls/{id}?wait=0 (asking)", &reply);
    let answer = format!("/calls/{call_id}/elicitation");
    for (name, body) in [
        (
            "wrong type",
            json!({"action": "accept", "content": {"name": 5}}),
        ),
        ("no content", json!({"action": "accept"})),
        (
            "content not an object",
            json!({"action": "accept", "content": 3}),
        ),
        ("unknown action", json!({"action": "maybe"})),
        ("no action", json!({})),
        (
            "stale question",
            json!({"action": "decline", "question_id": "q-old"}),
        ),
        ("not an object", json!("accept")),
        (
            "accepted",
            json!({"action": "accept", "question_id": question_id, "content": {"name": "Ada", "check": true, "integer": 7, "extra": 1}}),
        ),
        ("answered twice", json!({"action": "decline"})),
    ] {
        let reply = app.post(&answer, body.clone()).await;
        seen.record(
            &format!("POST /calls/{{id}}/elicitation {body} ({name})"),
            &reply,
        );
    }
    let done = until(&app, &format!("/calls/{call_id}?wait=5"), |body| {
        body.get("pending").is_none()
    })
    .await;
    seen.entries.push(json!({
        "request": "GET /calls/{id}?wait=5 (answered)",
        "status": 200,
        "body": seen.normalize(done),
    }));
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/calls/no-such-call/elicitation",
        Some(json!({"action": "decline"})),
    )
    .await;

    // Signing in and out of a remote server, and the callback's pages.
    ask(&app, &mut seen, post.clone(), "/servers/demo/sign-in", None).await;
    ask(&app, &mut seen, post.clone(), "/servers/nope/sign-in", None).await;
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/servers/demo/sign-out",
        None,
    )
    .await;
    let begun = ask(&app, &mut seen, post.clone(), "/servers/wiki/sign-in", None).await;
    ask_page(
        &app,
        &mut seen,
        "GET /oauth/callback (no state)",
        "/oauth/callback?code=abc",
    )
    .await;
    ask_page(
        &app,
        &mut seen,
        "GET /oauth/callback (unknown state)",
        "/oauth/callback?state=forged&code=abc",
    )
    .await;
    let back = consent(begun.body["authorization_url"].as_str().unwrap()).await;
    let (status, _) = ask_page(&app, &mut seen, "GET /oauth/callback (signed in)", &back).await;
    assert_eq!(status, StatusCode::OK);
    ask_page(&app, &mut seen, "GET /oauth/callback (used again)", &back).await;
    // The first sign-in settles (the server restarts with its tokens) before the second
    // begins, so what the second's denial leaves is not a race with that restart.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let listed = app.get("/servers").await;
        let servers = listed.body["servers"].as_array().unwrap().clone();
        let wiki = servers.iter().find(|s| s["name"] == "wiki").unwrap();
        if wiki["sign_in"]["state"] == "signed_in" && wiki["status"] == "running" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{wiki}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let begun = app.post("/servers/wiki/sign-in", json!({})).await;
    let url = begun.body["authorization_url"].as_str().unwrap();
    oauth.behaviour.lock().unwrap().deny = true;
    let denied = consent(url).await;
    ask_page(
        &app,
        &mut seen,
        "GET /oauth/callback (consent denied)",
        &denied,
    )
    .await;
    // The server's sign-in as `GET /servers` says it: needs one (denied), then none after sign-out.
    let listed = app.get("/servers").await;
    let wiki: Vec<Value> = listed.body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "wiki")
        .map(|s| s["sign_in"].clone())
        .collect();
    seen.entries.push(json!({"request": "GET /servers (the remote's sign_in)", "body": seen.normalize(json!(wiki))}));
    ask(
        &app,
        &mut seen,
        post.clone(),
        "/servers/wiki/sign-out",
        None,
    )
    .await;
    app.stop().await;

    // Under --no-auth, sign-in and sign-out are refused.
    let open = app_with(dir.path(), vec![demo_spec()], None).await;
    for route in ["/servers/demo/sign-in", "/servers/demo/sign-out"] {
        ask_raw(
            &open,
            &mut seen,
            &format!("POST {route} (--no-auth)"),
            Req::new(post.clone(), route).auth(None),
        )
        .await;
    }
    open.stop().await;

    compare("routes_mcp", Value::Array(seen.entries));
}

/// What a browser does with the authorization URL: the authorization server's redirect back
/// to the bridge, as the path and query of the callback.
async fn consent(authorization_url: &str) -> String {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = client.get(authorization_url).send().await.unwrap();
    let location = answer.headers()["location"].to_str().unwrap().to_owned();
    let prefix = format!("http://127.0.0.1:{PORT}");
    location
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{location}"))
        .to_owned()
}

/// Compare with the snapshot `tests/snapshots/{name}.json`, key order included; on a
/// difference, write what was seen and name the first change.
fn compare(name: &str, actual: Value) {
    let snapshot_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/snapshots/{name}.json"));
    let actual_path =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.actual.json"));
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
    // Compared as text: `Value`'s equality ignores the order of keys, which the answers keep.
    for (index, (want, got)) in expected.iter().zip(actual).enumerate() {
        assert_eq!(
            serde_json::to_string_pretty(want).unwrap(),
            serde_json::to_string_pretty(got).unwrap(),
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
