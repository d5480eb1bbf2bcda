//! Tools the server runs as tasks, against the real `@modelcontextprotocol/server-everything`
//! (its `simulate-research-query` declares `execution.taskSupport: required`, takes four
//! stages of a second each, and asks which meaning of an ambiguous topic is meant): the task
//! outlives a short call timeout and gives its result, its status messages are the call's
//! progress, its question reaches the user and their answer the server, and cancelling the call
//! cancels the task at the server. Our own `tests/support/task-server.mjs` has tasks that never
//! end or never answer a poll: they end at their `ttl`, or after three unanswered polls; and one
//! whose result carries a configured secret, masked like any call's result.
//! A tool whose listing does not say it runs as a task, yet answers a plain call with one, is
//! not read as an empty result. Over streamable HTTP, server-everything's task runs as a task
//! too (its listing read from the SSE events).
//!
//! The 2026-07-28 tasks extension, against a real server of it: FastMCP 4.1.4 with
//! fastmcp-tasks (`tests/support/ext_task_server.py`), over stdio and streamable HTTP. It is
//! declared on calls to 2026-07-28 servers only; a task outlives the call timeout with its
//! status messages as progress, asks its question mid-task and gets the answer
//! (`tasks/update`), fails with its JSON-RPC error, ends within `max_call_time`, and the user's
//! cancel reaches the server (`tasks/cancel`).

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use common::{
    BridgeProcess, Launch, TestApp, everything_spec, require_on_path, stdio_spec, support,
    tool_names,
};
use mcp_bridge::config::ServerSpec;
use serde_json::{Value, json};

const LIMIT: Duration = Duration::from_secs(60);

/// A call timeout well under the four seconds the research task takes.
const SHORT: Duration = Duration::from_secs(2);

/// An in-process bridge running server-everything with the short call timeout, once the tools
/// it registers after initialization (the task tool among them) are listed.
async fn app() -> TestApp {
    let app = TestApp::start_timing_out(vec![everything_spec("everything")], SHORT).await;
    let deadline = Instant::now() + LIMIT;
    loop {
        let names = tool_names(&app.get("/tools?serverName=everything").await.body);
        if names.iter().any(|n| n == "simulate-research-query") {
            return app;
        }
        assert!(Instant::now() < deadline, "the task tool was never listed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn research(arguments: Value) -> Value {
    json!({"name": "simulate-research-query", "serverName": "everything",
           "arguments": arguments, "wait": 0})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_outlives_the_call_timeout_shows_its_progress_and_gives_its_result() {
    let app = app().await;
    let started = Instant::now();
    let id = app.start_call(research(json!({"topic": "rust"}))).await;
    // The task's status messages are the pending call's progress.
    let mut messages = Vec::new();
    let done = loop {
        let reply = app.get(&format!("/calls/{id}?wait=5")).await;
        if reply.status != StatusCode::ACCEPTED {
            break reply;
        }
        if let Some(message) = reply.body["progress"]["message"].as_str()
            && messages.last().map(String::as_str) != Some(message)
        {
            messages.push(message.to_owned());
        }
        assert!(started.elapsed() < LIMIT, "the call never finished");
    };
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(
        done.all_text().contains("# Research Report: rust"),
        "{}",
        done.body
    );
    assert!(
        started.elapsed() > SHORT,
        "the task ended within the call timeout: {:?}",
        started.elapsed()
    );
    assert!(
        messages.iter().any(|m| m.ends_with("...")),
        "no status message was shown: {messages:?}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_that_needs_input_asks_and_gets_the_answer() {
    let app = app().await;
    let id = app
        .start_call(research(json!({"topic": "python", "ambiguous": true})))
        .await;
    let deadline = Instant::now() + LIMIT;
    let asked = loop {
        let reply = app.get(&format!("/calls/{id}?wait=10")).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
        if reply.body.get("elicitation").is_some() {
            break reply.body["elicitation"].clone();
        }
        assert!(Instant::now() < deadline, "no question came");
    };
    assert!(
        asked["message"]
            .as_str()
            .unwrap()
            .contains("multiple interpretations"),
        "{asked}"
    );
    // The user takes longer than the call timeout to answer.
    tokio::time::sleep(SHORT + Duration::from_secs(1)).await;
    let answered = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "accept", "question_id": asked["id"],
                   "content": {"interpretation": "snake"}}),
        )
        .await;
    assert_eq!(answered.status, StatusCode::OK, "{}", answered.body);
    let done = app.finish(&id, LIMIT).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(
        done.all_text()
            .contains("# Research Report: python (snake)"),
        "{}",
        done.body
    );
    app.stop().await;
}

/// Against a bridge process, whose log says what the server answered its `tasks/cancel`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_call_cancels_the_task_at_the_server() {
    let mut entry = BridgeProcess::path_entry(
        "mcp-server-everything",
        "run ./build.sh setup (npm install at the repository root)",
        &["stdio"],
    );
    entry["call_timeout"] = json!(SHORT.as_secs());
    let bridge = BridgeProcess::launch(Launch {
        config: Some(json!({"mcpServers": {"everything": entry}})),
        args: &["--token", common::TOKEN],
        env: &[("RUST_LOG", "info,rmcp=warn")],
        prepare: None,
    });
    bridge.wait_started(common::START_LIMIT);
    let deadline = Instant::now() + LIMIT;
    while !tool_names(&bridge.get("/tools?serverName=everything").await.1)
        .iter()
        .any(|n| n == "simulate-research-query")
    {
        assert!(Instant::now() < deadline, "the task tool was never listed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, body) = bridge.execute(research(json!({"topic": "rust"}))).await;
    assert_eq!(status, 202, "{body}");
    let id = body["call_id"].as_str().unwrap().to_owned();
    // Once the task runs (its first status message is shown), the user cancels the call.
    loop {
        let (status, body) = bridge.get(&format!("/calls/{id}?wait=10")).await;
        assert_eq!(status, 202, "{body}");
        if body["progress"]["message"].is_string() {
            break;
        }
        assert!(Instant::now() < deadline, "the task showed no progress");
    }
    let (status, body) = bridge
        .request(Method::DELETE, &format!("/calls/{id}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["cancelled"], true, "{body}");
    let cancelled = loop {
        let log = bridge.stderr();
        if let Some(line) = log
            .lines()
            .find(|line| line.contains("the task was cancelled at the server"))
        {
            break line.to_owned();
        }
        assert!(
            Instant::now() < deadline,
            "the server never answered a tasks/cancel: {log}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // The server's own answer to `tasks/cancel`: the task's status is now `cancelled`.
    assert!(cancelled.contains("status=\"cancelled\""), "{cancelled}");
}

/// A value the task server is configured with, which no answer may carry.
const SECRET: &str = "task-secret-5f1c9a7e2b";

/// Our own server of misbehaving tasks, run by node.
fn task_server() -> ServerSpec {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/task-server.mjs");
    let mut spec = stdio_spec("tasks", &node, &[script.to_str().unwrap()]);
    if let mcp_bridge::config::Transport::Stdio { env, .. } = &mut spec.transport {
        env.insert("TASK_SECRET".to_owned(), SECRET.to_owned());
    }
    spec
}

/// Wait until the task server says it was asked to cancel `task`.
async fn cancel_seen(app: &TestApp, task: &str) {
    let deadline = Instant::now() + LIMIT;
    loop {
        let reply = app
            .execute(json!({"name": "cancelled", "serverName": "tasks", "arguments": {}}))
            .await;
        let names: Vec<String> = serde_json::from_str(&reply.all_text()).unwrap();
        if names.iter().any(|name| name == task) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{task} was never cancelled: {names:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Runs `call` (no wait) until it ends as a `TimeoutError`: its error, and how long it took.
async fn timed_out(app: &TestApp, call: Value) -> (String, Duration) {
    let started = Instant::now();
    let id = app.start_call(call).await;
    let done = app.finish(&id, LIMIT).await;
    let took = started.elapsed();
    let detail = &done.body["detail"];
    assert_eq!(detail["type"], "TimeoutError", "{}", done.body);
    (detail["error"].as_str().unwrap().to_owned(), took)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_ends_at_its_ttl_or_after_unanswered_polls_and_is_cancelled_at_the_server() {
    let app = TestApp::start_timing_out(vec![task_server()], Duration::from_secs(1)).await;
    // Working for ever: the 1 s call timeout does not end it, its 3 s ttl does.
    let (error, took) = timed_out(
        &app,
        json!({"name": "endless", "serverName": "tasks", "arguments": {}, "wait": 0}),
    )
    .await;
    assert!(
        error.contains("`endless-1`") && error.contains("(its ttl) passed"),
        "{error}"
    );
    assert!(
        took >= Duration::from_millis(2500) && took < Duration::from_secs(15),
        "{took:?}"
    );
    cancel_seen(&app, "endless-1").await;

    // Never answers a poll: three polls of 1 s each go unanswered.
    let (error, took) = timed_out(
        &app,
        json!({"name": "silent", "serverName": "tasks", "arguments": {}, "wait": 0}),
    )
    .await;
    assert!(
        error.contains("`silent-2`") && error.contains("3 polls of its status in a row"),
        "{error}"
    );
    assert!(took >= Duration::from_secs(3), "{took:?}");
    cancel_seen(&app, "silent-2").await;

    // Never answers the call that asks for its task: the call timeout ends that request,
    // cancelled at the server (`notifications/cancelled`).
    let id = app
        .start_call(json!({"name": "stuck", "serverName": "tasks", "arguments": {}, "wait": 0}))
        .await;
    let done = app.finish(&id, LIMIT).await;
    assert_eq!(done.body["detail"]["type"], "TimeoutError", "{}", done.body);
    cancel_seen(&app, "stuck-request").await;
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_result_is_masked_like_any_calls() {
    let app = TestApp::start(vec![task_server()]).await;
    let reply = app
        .execute(json!({"name": "secret", "serverName": "tasks", "arguments": {}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let text = reply.all_text();
    assert!(text.starts_with("the secret is "), "{}", reply.body);
    assert!(!reply.body.to_string().contains(SECRET), "{}", reply.body);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_answers_a_plain_call_with_a_task_is_said_so_and_then_called_as_one() {
    let app = TestApp::start(vec![task_server()]).await;
    let call = json!({"name": "unlisted", "serverName": "tasks", "arguments": {}});
    // Not an empty result: the call says a task was started that it did not follow.
    let first = app.execute(call.clone()).await;
    assert_eq!(
        first.body["detail"]["type"], "UnsupportedResponse",
        "{}",
        first.body
    );
    assert!(
        first.body.to_string().contains("as a task"),
        "{}",
        first.body
    );
    // The next call asks for the task and follows it to its result.
    let second = app.execute(call).await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    assert!(
        second.all_text().starts_with("done as unlisted-"),
        "{}",
        second.body
    );
    app.stop().await;
}

const PYTHON_HINT: &str = "run ./build.sh setup (the venv with fastmcp and fastmcp-tasks)";

/// Our FastMCP server of the 2026-07-28 tasks extension (`tests/support/ext_task_server.py`),
/// over stdio.
fn ext_server() -> ServerSpec {
    let python = require_on_path("python", PYTHON_HINT);
    stdio_spec("ext", &python, &[&support("ext_task_server.py")])
}

/// Follow the call `id` to its end, with the distinct status messages it showed meanwhile.
async fn follow(app: &TestApp, id: &str) -> (common::Reply, Vec<String>) {
    let started = Instant::now();
    let mut messages = Vec::new();
    let done = loop {
        let reply = app.get(&format!("/calls/{id}?wait=5")).await;
        if reply.status != StatusCode::ACCEPTED {
            break reply;
        }
        if let Some(message) = reply.body["progress"]["message"].as_str()
            && messages.last().map(String::as_str) != Some(message)
        {
            messages.push(message.to_owned());
        }
        assert!(started.elapsed() < LIMIT, "the call never finished");
    };
    (done, messages)
}

/// A crunch of 3 s in two steps: each step takes longer than a 1 s call timeout, and a plain
/// call's progress would not save it.
async fn crunch_outlives_the_call_timeout(app: &TestApp, server: &str) {
    let started = Instant::now();
    let id = app
        .start_call(json!({"name": "crunch", "serverName": server,
                           "arguments": {"seconds": 3, "steps": 2}, "wait": 0}))
        .await;
    let (done, messages) = follow(app, &id).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert_eq!(done.all_text(), "crunched 3", "{}", done.body);
    assert!(
        started.elapsed() > Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("step ") && m.ends_with(" of 2")),
        "no status message was shown: {messages:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_of_the_tasks_extension_outlives_the_call_timeout_and_gives_its_result() {
    let app = TestApp::start_timing_out(vec![ext_server()], Duration::from_secs(1)).await;
    crunch_outlives_the_call_timeout(&app, "ext").await;
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_of_the_tasks_extension_asks_mid_task_and_gets_the_answer() {
    let app = TestApp::start_timing_out(vec![ext_server()], Duration::from_secs(1)).await;
    let id = app
        .start_call(json!({"name": "ask", "serverName": "ext", "arguments": {}, "wait": 0}))
        .await;
    let deadline = Instant::now() + LIMIT;
    let asked = loop {
        let reply = app.get(&format!("/calls/{id}?wait=10")).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
        if reply.body.get("elicitation").is_some() {
            break reply.body["elicitation"].clone();
        }
        assert!(Instant::now() < deadline, "no question came");
    };
    assert_eq!(asked["message"], "What is your name?", "{asked}");
    // The user takes longer than the call timeout to answer.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let answered = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "accept", "question_id": asked["id"], "content": {"name": "Ada"}}),
        )
        .await;
    assert_eq!(answered.status, StatusCode::OK, "{}", answered.body);
    let done = app.finish(&id, LIMIT).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    let told: Value = serde_json::from_str(&done.all_text()).unwrap();
    assert_eq!(
        told["answer"],
        json!({"action": "accept", "content": {"name": "Ada"}}),
        "{}",
        done.body
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_of_the_tasks_extension_ends_within_the_servers_max_call_time() {
    let mut spec = ext_server();
    spec.mcp.max_call_time = Some(Duration::from_secs(3));
    let app = TestApp::start_timing_out(vec![spec], Duration::from_secs(1)).await;
    let (error, took) = timed_out(
        &app,
        json!({"name": "forever", "serverName": "ext", "arguments": {}, "wait": 0}),
    )
    .await;
    assert!(
        error.contains("ran as a task") && error.contains("max_call_time"),
        "{error}"
    );
    assert!(
        took >= Duration::from_millis(2500) && took < Duration::from_secs(15),
        "{took:?}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_task_of_the_tasks_extension_fails_the_call_with_its_error() {
    let app = TestApp::start(vec![ext_server()]).await;
    let reply = app
        .execute(json!({"name": "broken", "serverName": "ext", "arguments": {}}))
        .await;
    let detail = &reply.body["detail"];
    assert_eq!(detail["code"], -32603, "{}", reply.body);
    assert!(
        detail["error"]
            .as_str()
            .unwrap_or_default()
            .contains("broken on purpose"),
        "{}",
        reply.body
    );
    // A tool the server does not make a task of answers as any does.
    let reply = app
        .execute(json!({"name": "plain", "serverName": "ext", "arguments": {}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.all_text(), "plain", "{}", reply.body);
    app.stop().await;
}

/// Against a bridge process, whose log says the server acknowledged its `tasks/cancel`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_cancels_its_task_of_the_tasks_extension() {
    let mut entry =
        BridgeProcess::path_entry("python", PYTHON_HINT, &[&support("ext_task_server.py")]);
    entry["call_timeout"] = json!(1);
    let bridge = BridgeProcess::launch(Launch {
        config: Some(json!({"mcpServers": {"ext": entry}})),
        args: &["--token", common::TOKEN],
        env: &[("RUST_LOG", "info,rmcp=warn")],
        prepare: None,
    });
    bridge.wait_started(common::START_LIMIT);
    let (status, body) = bridge
        .execute(json!({"name": "forever", "serverName": "ext", "arguments": {}, "wait": 0}))
        .await;
    assert_eq!(status, 202, "{body}");
    let id = body["call_id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + LIMIT;
    // Once the task runs (its status message is shown), the user cancels the call.
    loop {
        let (status, body) = bridge.get(&format!("/calls/{id}?wait=10")).await;
        assert_eq!(status, 202, "{body}");
        if body["progress"]["message"] == "started, and never done" {
            break;
        }
        assert!(Instant::now() < deadline, "the task showed no progress");
    }
    let (status, body) = bridge
        .request(Method::DELETE, &format!("/calls/{id}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    loop {
        let log = bridge.stderr();
        if log.contains("the task was cancelled at the server") {
            break;
        }
        assert!(
            !log.contains("the server did not cancel the task"),
            "the server refused tasks/cancel: {log}"
        );
        assert!(
            Instant::now() < deadline,
            "the server never answered a tasks/cancel: {log}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A child process killed when dropped.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `command` serving streamable HTTP on a free port, which it is given by `configure`;
/// the process and the port, once it listens.
fn serve_http(
    mut command: std::process::Command,
    configure: impl FnOnce(&mut std::process::Command, u16),
) -> (Killed, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    configure(&mut command, port);
    let child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let server = Killed(child);
    let deadline = Instant::now() + common::START_LIMIT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (server, port)
}

fn http_spec(name: &str, port: u16) -> ServerSpec {
    let mut spec = common::demo_spec();
    spec.name = name.to_owned();
    spec.is_core = false;
    spec.startup_timeout = common::START_LIMIT;
    spec.transport = mcp_bridge::config::Transport::StreamableHttp {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: Default::default(),
        ca_file: None,
        sign_in: Default::default(),
    };
    spec
}

/// server-everything over streamable HTTP: its research task (2025-11-25) runs as a task there
/// too, past the call timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_over_streamable_http_outlives_the_call_timeout() {
    let exe = require_on_path(
        "mcp-server-everything",
        "run ./build.sh setup (npm install at the repository root)",
    );
    let mut command = std::process::Command::new(exe);
    command.arg("streamableHttp");
    let (_server, port) = serve_http(command, |command, port| {
        command.env("PORT", port.to_string());
    });
    let app = TestApp::start_timing_out(vec![http_spec("everything", port)], SHORT).await;
    let deadline = Instant::now() + LIMIT;
    while !tool_names(&app.get("/tools?serverName=everything").await.body)
        .iter()
        .any(|n| n == "simulate-research-query")
    {
        assert!(Instant::now() < deadline, "the task tool was never listed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let started = Instant::now();
    let id = app.start_call(research(json!({"topic": "rust"}))).await;
    let (done, messages) = follow(&app, &id).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(
        done.all_text().contains("# Research Report: rust"),
        "{}",
        done.body
    );
    assert!(started.elapsed() > SHORT, "{:?}", started.elapsed());
    assert!(
        messages.iter().any(|m| m.ends_with("...")),
        "no status message was shown: {messages:?}"
    );
    app.stop().await;
}

/// Our FastMCP server of the tasks extension over streamable HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_of_the_tasks_extension_over_streamable_http_gives_its_result() {
    let python = require_on_path("python", PYTHON_HINT);
    let (_server, port) = serve_http(std::process::Command::new(python), |command, port| {
        command
            .arg(support("ext_task_server.py"))
            .arg("http")
            .arg(port.to_string());
    });
    let app = TestApp::start_timing_out(vec![http_spec("ext", port)], Duration::from_secs(1)).await;
    crunch_outlives_the_call_timeout(&app, "ext").await;
    app.stop().await;
}

/// What the bridge sent to the demo server (`tee-server.mjs` in between), after one call of
/// `echo`; the server pinned to `pinned` when given.
async fn sent_to_the_demo(pinned: Option<rmcp::model::ProtocolVersion>) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("sent.jsonl");
    let mut spec = common::teed_demo_spec(&log);
    spec.mcp.protocol_version = pinned;
    let app = TestApp::start(vec![spec]).await;
    let reply = app
        .execute(json!({"name": "echo", "serverName": "demo", "arguments": {"text": "hi"}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    app.stop().await;
    common::teed_messages(&log)
}

/// The client capabilities `message` declares, in its `_meta` or (an `initialize`) its params.
fn declared(message: &Value) -> &Value {
    let params = &message["params"];
    match message["method"].as_str() {
        Some("initialize") => &params["capabilities"],
        _ => &params["_meta"]["io.modelcontextprotocol/clientCapabilities"],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tasks_extension_is_declared_on_calls_to_2026_07_28_servers_only() {
    const EXTENSION: &str = "io.modelcontextprotocol/tasks";
    let sent = sent_to_the_demo(None).await;
    for message in sent.iter().filter(|m| m["method"].is_string()) {
        let extension = &declared(message)["extensions"][EXTENSION];
        if message["method"] == "tools/call" {
            assert_eq!(extension, &json!({}), "{message}");
            assert!(declared(message)["elicitation"].is_object(), "{message}");
        } else {
            assert!(extension.is_null(), "{message}");
        }
    }
    // Never in an `initialize`, nor on the calls that follow one.
    let sent = sent_to_the_demo(Some(rmcp::model::ProtocolVersion::V_2025_11_25)).await;
    assert!(sent.iter().any(|m| m["method"] == "initialize"));
    assert!(sent.iter().any(|m| m["method"] == "tools/call"));
    for message in sent.iter().filter(|m| m["method"].is_string()) {
        assert!(!message.to_string().contains(EXTENSION), "{message}");
    }
}

/// A server the extension was not declared to (one of 2025-11-25) answers a call with a task
/// handle of the extension anyway: an invalid answer, said so, and never followed or taken for
/// a task of 2025-11-25.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_handle_the_bridge_did_not_ask_for_is_an_unsupported_response() {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let spec = stdio_spec("bare", &node, &[&support("bare-server.mjs")]);
    let app = TestApp::start(vec![spec]).await;
    for _ in 0..2 {
        let reply = app
            .execute(json!({"name": "handle", "serverName": "bare", "arguments": {}}))
            .await;
        let detail = &reply.body["detail"];
        assert_eq!(detail["type"], "UnsupportedResponse", "{}", reply.body);
        let error = detail["error"].as_str().unwrap();
        assert!(
            error.contains("tasks extension") && !error.contains("now calls"),
            "{error}"
        );
    }
    app.stop().await;
}
