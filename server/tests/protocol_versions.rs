//! The protocol revision the bridge speaks with each server: 2026-07-28 (no `initialize`;
//! `server/discover`, then the version, capabilities and client info in every request's
//! `_meta`) with a server that answers `server/discover` — the demo server, a server of the
//! Python SDK — and with one that does not, an `initialize` naming the newest revision that has
//! one. A server that answers with a version no revision has is refused with the versions the
//! bridge speaks. A 2026-07-28 server's question (an `InputRequiredResult`) reaches the user the
//! way any question does, and the retry carries the answer. Against the demo server, a server of
//! the Python SDK (`tests/support/mrtr_server.py`), and a bare server of the tests' own
//! (`tests/support/bare-server.mjs`), which answers whatever it is told to.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::{
    TestApp, require_on_path, stdio_spec, support, teed_demo_spec, teed_messages, tool_names,
};
use mcp_bridge::config::ServerSpec;
use serde_json::{Value, json};

fn probe(answer: Option<&str>) -> ServerSpec {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/bare-server.mjs");
    let mut args = vec![script.to_str().unwrap().to_owned()];
    args.extend(answer.map(str::to_owned));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    stdio_spec("probe", &node, &args)
}

/// The protocol version that `spec`'s tool `seen` says the bridge spoke in a call.
async fn version_spoken(spec: ServerSpec) -> String {
    let name = spec.name.clone();
    let app = TestApp::start(vec![spec]).await;
    let reply = app
        .execute(json!({"name": "seen", "serverName": name, "arguments": {}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let version = reply.text();
    app.stop().await;
    version
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_names_the_newest_revision_that_has_an_initialize() {
    assert_eq!(version_spoken(probe(None)).await, "2025-11-25");
}

/// A server of an older revision that answers `server/discover`, a method it does not know,
/// with an empty result instead of an error is spoken to with `initialize` all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_answering_discover_with_an_empty_result_gets_an_initialize() {
    assert_eq!(version_spoken(probe(Some("lenient"))).await, "2025-11-25");
}

/// A server that never answers `server/discover` gets an `initialize` once rmcp stops waiting
/// (10 s), within the start-up timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_silent_to_discover_gets_an_initialize_after_10_s() {
    let started = Instant::now();
    assert_eq!(version_spoken(probe(Some("silent"))).await, "2025-11-25");
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(10), "{took:?}");
}

/// The server of the Python SDK that speaks 2026-07-28 and asks its questions in an
/// `InputRequiredResult`.
fn mrtr_spec() -> ServerSpec {
    let python = require_on_path(
        "python",
        "run ./build.sh setup (the venv with the Python MCP SDK)",
    );
    stdio_spec("mrtr", &python, &[&support("mrtr_server.py")])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_server_is_spoken_to_in_2026_07_28_without_initialize() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("sent.jsonl");
    let app = TestApp::start(vec![teed_demo_spec(&log)]).await;
    let reply = app
        .execute(json!({"name": "echo", "serverName": "demo", "arguments": {"text": "hi"}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert!(reply.text().contains("hi"), "{}", reply.body);
    app.stop().await;

    let sent = teed_messages(&log);
    let methods: Vec<&str> = sent.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(methods.first(), Some(&"server/discover"), "{methods:?}");
    assert!(!methods.contains(&"initialize"), "{methods:?}");
    assert!(
        !methods.contains(&"notifications/initialized"),
        "{methods:?}"
    );
    let call = sent
        .iter()
        .find(|m| m["method"] == "tools/call")
        .expect("the call was sent");
    let meta = &call["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
        "{call}"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"], "mcp-bridge",
        "{call}"
    );
    assert!(
        meta["io.modelcontextprotocol/clientCapabilities"]["elicitation"]["form"].is_object(),
        "{call}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_the_python_sdk_is_spoken_to_in_2026_07_28() {
    assert_eq!(version_spoken(mrtr_spec()).await, "2026-07-28");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_pinned_to_an_older_revision_is_spoken_to_in_it() {
    for pinned in ["2025-11-25", "2025-06-18"] {
        let mut spec = mrtr_spec();
        spec.mcp.protocol_version = rmcp::model::ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .find(|v| v.as_str() == pinned)
            .cloned();
        assert_eq!(version_spoken(spec).await, pinned);
    }
}

/// Poll the call `id` until `check` holds on what `GET /calls/{id}` answers.
async fn poll(app: &TestApp, id: &str, check: impl Fn(StatusCode, &Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let reply = app.get(&format!("/calls/{id}?wait=5")).await;
        if check(reply.status, &reply.body) {
            return reply.body;
        }
        assert!(Instant::now() < deadline, "{id}: {}", reply.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_required_result_asks_the_user_and_the_retry_carries_the_answer() {
    // The call timeout is shorter than the time the user takes: it stops while they answer.
    let call_timeout = Duration::from_secs(2);
    let app = TestApp::start_timing_out(vec![mrtr_spec()], call_timeout).await;
    let started = app
        .execute(json!({"name": "ask", "serverName": "mrtr", "arguments": {}, "wait": 0}))
        .await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", started.body);
    let id = started.body["call_id"].as_str().unwrap().to_owned();
    let pending = poll(&app, &id, |status, body| {
        status != StatusCode::ACCEPTED || body.get("elicitation").is_some()
    })
    .await;
    let asked = &pending["elicitation"];
    assert_eq!(asked["mode"], "form", "{pending}");
    assert_eq!(asked["server"], "mrtr", "{pending}");
    assert_eq!(asked["message"], "What is your name?", "{pending}");
    assert_eq!(asked["requested_schema"]["required"], json!(["name"]));
    // Still waiting for the answer once the call's timeout has passed.
    let later = app
        .get(&format!(
            "/calls/{id}?wait=3&seen={}",
            asked["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(later.status, StatusCode::ACCEPTED, "{}", later.body);
    assert!(
        later.body["elapsed_seconds"].as_f64().unwrap() > call_timeout.as_secs_f64(),
        "{}",
        later.body
    );
    assert_eq!(
        later.body["elicitation"]["id"], asked["id"],
        "{}",
        later.body
    );
    let answered = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        )
        .await;
    assert_eq!(answered.status, StatusCode::OK, "{}", answered.body);
    let done = poll(&app, &id, |status, _| status != StatusCode::ACCEPTED).await;
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let told: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{done}"));
    assert_eq!(told["answer"]["action"], "accept", "{told}");
    assert_eq!(told["answer"]["content"]["name"], "Ada", "{told}");
    assert_eq!(told["state"], "asked-once", "{told}");
    app.stop().await;
}

/// A prompt's questions (an `InputRequiredResult` to `prompts/get`) have no call a client could
/// show them in: they are declined, and the retry carries the decline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompts_question_is_declined_and_the_retry_renders_it() {
    let app = TestApp::start(vec![mrtr_spec()]).await;
    let rendered = app
        .post(
            "/prompts/get",
            json!({"serverName": "mrtr", "name": "greeting"}),
        )
        .await;
    assert_eq!(rendered.status, StatusCode::OK, "{}", rendered.body);
    let text = rendered.body["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", rendered.body));
    let told: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{text}"));
    assert_eq!(told["answer"]["action"], "decline", "{told}");
    assert_eq!(told["state"], "prompted", "{told}");
    app.stop().await;
}

/// A 2026-07-28 server tells of a changed list only to a client that listens
/// (`subscriptions/listen`): the bridge does, and lists the new tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_servers_changed_list_reaches_the_bridge_through_subscriptions_listen() {
    let app = TestApp::start(vec![mrtr_spec()]).await;
    let before = app.get("/tools?serverName=mrtr").await;
    assert!(
        tool_names(&before.body).contains(&"grow".to_owned()),
        "{}",
        before.body
    );
    assert!(
        !tool_names(&before.body).contains(&"grown".to_owned()),
        "{}",
        before.body
    );
    let reply = app
        .execute(json!({"name": "grow", "serverName": "mrtr", "arguments": {}}))
        .await;
    assert_eq!(reply.text(), "added");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let listed = app.get("/tools?serverName=mrtr").await;
        if tool_names(&listed.body).contains(&"grown".to_owned()) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new tool was never listed: {}",
            listed.body
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_discover_answer_naming_no_version_spoken_is_refused_naming_the_versions_spoken() {
    let app = TestApp::start(vec![probe(Some("discover=1999-01-01,latest"))]).await;
    let reply = app.get("/tools?serverName=probe").await;
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        reply.body
    );
    let error = reply.detail()["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("`1999-01-01`, `latest`") && error.contains("2025-11-25, 2026-07-28"),
        "{error}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_no_revision_has_is_refused_naming_the_versions_spoken() {
    for answer in ["1999-01-01", "latest", ""] {
        let app = TestApp::start(vec![probe(Some(answer))]).await;
        let reply = app.get("/tools?serverName=probe").await;
        assert_eq!(
            reply.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{answer:?}: {}",
            reply.body
        );
        let error = reply.detail()["error"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            error.contains(&format!("`{answer}`")) && error.contains("2025-11-25, 2026-07-28"),
            "{answer:?}: {error}"
        );
        app.stop().await;
    }
}
