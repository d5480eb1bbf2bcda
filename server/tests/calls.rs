//! Long calls: the per-call timeout (with `notifications/cancelled`), long-polling with `wait`,
//! `GET`/`DELETE /calls/{id}`, and a crashing server (stderr tail, restart on the next call) —
//! in-process with `oneshot`, or against a real bridge process where the test reads the log of
//! what the MCP server itself saw. No tight timing: only lower bounds and generous upper limits.

mod common;

use std::time::Duration;

use axum::http::{Method, StatusCode};
use common::{BridgeProcess, Launch, TestApp};
use serde_json::{Value, json};

const CANCEL_SEEN: Duration = Duration::from_secs(20);

/// A bridge process whose log shows what its MCP servers write to stderr (`RUST_LOG=debug`),
/// running the demo server with a 1 s call timeout.
fn bridge_logging_server_stderr() -> BridgeProcess {
    let mut entry = BridgeProcess::demo_entry();
    entry["call_timeout"] = json!(1);
    let bridge = BridgeProcess::launch(Launch {
        config: Some(json!({"mcpServers": {"demo": entry}})),
        args: &["--token", common::TOKEN],
        env: &[("RUST_LOG", "info,mcp_bridge=debug,rmcp=warn")],
        prepare: None,
    });
    bridge.wait_started(common::START_LIMIT);
    bridge
}

/// Wait until the bridge's log holds the demo `slow` tool's own line saying it saw the
/// cancellation (it writes it to its stderr, which the bridge logs at debug level).
async fn cancellation_seen(bridge: &BridgeProcess) -> bool {
    let deadline = tokio::time::Instant::now() + CANCEL_SEEN;
    while tokio::time::Instant::now() < deadline {
        if bridge.stderr().contains("slow: cancelled by the client") {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn a_call_over_its_timeout_is_cancelled_and_504() {
    let bridge = bridge_logging_server_stderr();
    // The shipped demo server has no parameter that writes a file: an argument naming a path
    // is ignored, even when the call is cancelled.
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("cancelled");
    let (status, body) = bridge
        .execute(json!({"name": "slow", "arguments": {"seconds": 600, "cancel_marker": marker}}))
        .await;
    assert_eq!(status, 504, "{body}");
    let detail = &body["detail"];
    assert_eq!(detail["type"], "TimeoutError");
    assert_eq!(detail["code"], -32001);
    assert_eq!(detail["retryable"], true);
    assert!(detail["error"].as_str().unwrap().contains("`slow`"));
    assert!(
        cancellation_seen(&bridge).await,
        "the server received notifications/cancelled: {}",
        bridge.stderr()
    );
    assert!(
        !marker.exists(),
        "the demo server wrote a file it was named"
    );
    // The server is still usable, and the timeout counted as a failure.
    let (status, body) = bridge
        .execute(json!({"name": "echo", "arguments": {"text": "still here"}}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "still here");
    let (_, history) = bridge.get("/history").await;
    assert_eq!(history["counters"][0]["tool"], "slow");
    assert_eq!(history["counters"][0]["failures"], 1);
}

#[tokio::test]
async fn the_demo_slow_tool_takes_no_path() {
    let app = TestApp::demo().await;
    let name = app.registry.servers()[0].name().to_owned();
    let reply = app.get(&format!("/tools?serverName={name}")).await;
    let slow = reply.body["tools"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {}", reply.body))
        .iter()
        .find(|tool| tool["name"] == "slow")
        .cloned()
        .unwrap_or_else(|| panic!("no slow tool: {}", reply.body));
    let properties: Vec<&String> = slow["parameters"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(properties, ["seconds"], "{slow}");
    app.stop().await;
}

#[tokio::test]
async fn long_poll_pending_then_result() {
    let app = TestApp::demo().await;
    // Finishes within `wait`: the ordinary answer.
    let reply = app
        .execute(json!({"name": "echo", "arguments": {"text": "quick"}, "wait": 30}))
        .await;
    assert_eq!(reply.text(), "quick");

    // Does not finish within `wait`: 202 with a call id.
    let reply = app
        .execute(json!({"name": "slow", "arguments": {"seconds": 1}, "wait": 0}))
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_eq!(reply.body["success"], true);
    assert_eq!(reply.body["pending"], true);
    let call_id = reply.body["call_id"].as_str().unwrap().to_owned();

    let mut result = None;
    for _ in 0..30 {
        let reply = app.get(&format!("/calls/{call_id}?wait=5")).await;
        match reply.status {
            StatusCode::ACCEPTED => assert_eq!(reply.body["call_id"], call_id.as_str()),
            StatusCode::OK => {
                result = Some(reply);
                break;
            }
            other => panic!("unexpected {other}: {}", reply.body),
        }
    }
    let result = result.expect("the call finished");
    assert!(result.text().starts_with("finished after 1"));
    // The result can be fetched again (a retried poll gets the same answer).
    let again = app.get(&format!("/calls/{call_id}")).await;
    assert_eq!(again.body, result.body);

    let reply = app.get("/calls/does-not-exist").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.detail()["type"], "CallNotFound");
    let reply = app.get(&format!("/calls/{call_id}?wait=-1")).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    app.stop().await;
}

#[tokio::test]
async fn long_poll_errors_keep_their_shape() {
    let app = TestApp::demo().await;
    let reply = app
        .execute(
            json!({"name": "fail_runtime", "arguments": {"message": "late failure"}, "wait": 30}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(reply.detail()["error"], "late failure");
    // An unknown tool is answered at once, not as a call.
    let reply = app.execute(json!({"name": "nope", "wait": 0})).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    app.stop().await;
}

#[tokio::test]
async fn delete_cancels_a_call() {
    let bridge = bridge_logging_server_stderr();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("cancelled");
    let (status, body) = bridge
        .execute(json!({"name": "slow", "arguments": {"seconds": 600, "cancel_marker": marker}, "wait": 0.2}))
        .await;
    assert_eq!(status, 202, "{body}");
    let call_id = body["call_id"].as_str().unwrap().to_owned();

    let (status, body) = bridge
        .request(Method::DELETE, &format!("/calls/{call_id}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["success"], true);
    assert_eq!(body["cancelled"], true);
    assert!(
        cancellation_seen(&bridge).await,
        "the server received notifications/cancelled: {}",
        bridge.stderr()
    );
    assert!(
        !marker.exists(),
        "the demo server wrote a file it was named"
    );
    let (status, body) = bridge.get(&format!("/calls/{call_id}")).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["detail"]["type"], "CancelledError");
    // Cancelling again: already finished.
    let (_, body) = bridge
        .request(Method::DELETE, &format!("/calls/{call_id}"), None)
        .await;
    assert_eq!(body["cancelled"], false);
    let (status, _) = bridge.request(Method::DELETE, "/calls/nope", None).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_crash_reports_stderr_and_the_server_restarts() {
    let app = TestApp::demo().await;
    let first_pid = app.registry.get("demo").unwrap().pid();
    let reply = app.execute(json!({"name": "crash"})).await;
    assert_eq!(reply.status, StatusCode::BAD_GATEWAY);
    let detail = reply.detail();
    assert_eq!(detail["type"], "ServerCrashed");
    assert_eq!(detail["server"], "demo");
    assert_eq!(detail["retryable"], true);
    let traceback = detail["traceback"].as_str().unwrap();
    assert!(
        traceback.contains("demo crash requested"),
        "stderr tail: {traceback}"
    );
    assert!(detail["error"].as_str().unwrap().contains("restart"));

    // The next call restarts it (after the first backoff step) and works.
    let reply = app
        .execute(json!({"name": "echo", "arguments": {"text": "back"}}))
        .await;
    assert_eq!(reply.text(), "back");
    let second_pid = app.registry.get("demo").unwrap().pid();
    assert_ne!(first_pid, second_pid, "a new process");
    app.stop().await;
}

#[tokio::test]
async fn concurrent_calls_in_flight_during_a_crash_all_fail_cleanly() {
    let app = TestApp::demo().await;
    let slow = || async {
        app.execute(json!({"name": "slow", "arguments": {"seconds": 600}, "serverName": "demo"}))
            .await
    };
    let crash = async {
        // Let the slow calls get going first (not required for correctness).
        tokio::time::sleep(Duration::from_millis(300)).await;
        app.execute(json!({"name": "crash"})).await
    };
    let (a, b, crash) = tokio::join!(slow(), slow(), crash);
    for reply in [&a, &b, &crash] {
        assert_eq!(reply.status, StatusCode::BAD_GATEWAY, "{}", reply.body);
        assert_eq!(reply.detail()["type"], "ServerCrashed");
    }
    app.stop().await;
}

#[tokio::test]
async fn calls_to_one_server_are_bounded() {
    let mut spec = common::demo_spec();
    spec.max_concurrent_calls = 1;
    let app = TestApp::start(vec![spec]).await;
    let slow = || async {
        app.execute(json!({"name": "slow", "arguments": {"seconds": 1}}))
            .await
    };
    let started = std::time::Instant::now();
    let (a, b) = tokio::join!(slow(), slow());
    assert!(a.text().starts_with("finished"));
    assert!(b.text().starts_with("finished"));
    // One at a time: the two one-second calls cannot overlap (a lower bound only).
    assert!(
        started.elapsed() >= Duration::from_millis(1900),
        "{:?}",
        started.elapsed()
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivered_result_stays_fetchable_and_the_404_says_what_is_true() {
    let bridge = common::BridgeProcess::start(None, &[]);
    let client = common::BridgeProcess::client();
    let started: Value = client
        .post(bridge.url("/execute"))
        .bearer_auth(common::TOKEN)
        .json(&json!({"name": "slow", "arguments": {"seconds": 0.5}, "wait": 0.05}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let call_id = started["call_id"].as_str().expect("pending").to_owned();
    for _ in 0..2 {
        let response = client
            .get(bridge.url(&format!("/calls/{call_id}?wait=10")))
            .bearer_auth(common::TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status().as_u16(),
            200,
            "a delivered result is fetched again"
        );
    }
    let response = client
        .get(bridge.url("/calls/0123456789abcdef"))
        .bearer_auth(common::TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 404);
    let body: Value = response.json().await.unwrap();
    let message = body["detail"]["error"].as_str().unwrap();
    assert!(!message.contains("already delivered"), "{message}");
    assert!(message.contains("10 minutes"), "{message}");
}
