//! Failing tools: runtime errors with tracebacks, the failure counter (3 in a row → 429 until a
//! success or a reset), `/history`, and secrets kept out of errors — in-process with `oneshot`.

mod common;

use std::collections::BTreeMap;

use axum::http::{Method, StatusCode};
use common::TestApp;
use mcp_bridge_protocol::requests::ResetHistory;
use serde_json::json;

#[tokio::test]
async fn runtime_errors_carry_type_and_traceback() {
    let app = TestApp::demo().await;
    let reply = app
        .execute(json!({"name": "fail_runtime", "arguments": {"message": "division by zero"}}))
        .await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    let detail = reply.detail();
    assert_eq!(detail["type"], "RuntimeError");
    assert_eq!(detail["error"], "division by zero");
    assert_eq!(detail["code"], -32603);
    assert_eq!(detail["server"], "demo");
    let traceback = detail["traceback"].as_str().unwrap();
    assert!(
        traceback.starts_with("Traceback (most recent call last):"),
        "{traceback}"
    );
    assert!(traceback.lines().count() > 3, "multi-line: {traceback}");
    assert!(
        traceback.ends_with("RuntimeError: division by zero"),
        "{traceback}"
    );
    app.stop().await;
}

#[tokio::test]
async fn three_failures_in_a_row_are_refused_until_reset() {
    let app = TestApp::demo().await;
    // isError results, errors and (elsewhere) timeouts all count.
    let reply = app.execute(json!({"name": "fail_logical"})).await;
    assert_eq!(reply.status, StatusCode::OK);
    for _ in 0..2 {
        let reply = app.execute(json!({"name": "fail_logical"})).await;
        assert_eq!(reply.status, StatusCode::OK);
    }
    let refused = app.execute(json!({"name": "fail_logical"})).await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    let detail = refused.detail();
    assert_eq!(detail["type"], "CallLimitExceeded");
    assert_eq!(detail["retryable"], false);
    let message = detail["error"].as_str().unwrap();
    assert!(message.contains("`fail_logical`"), "{message}");
    assert!(message.contains("(3)"), "names the limit: {message}");
    assert!(message.contains("reset"), "says how to reset: {message}");

    // Other tools are not affected.
    assert_eq!(
        app.execute(json!({"name": "echo", "arguments": {"text": "ok"}}))
            .await
            .text(),
        "ok"
    );

    let history = app.get("/history").await;
    assert_eq!(history.status, StatusCode::OK);
    assert_eq!(history.body["success"], true);
    assert_eq!(history.body["limit"], 3);
    assert_eq!(
        history.body["counters"],
        json!([{"server": "demo", "tool": "fail_logical", "failures": 3, "refused": 1}])
    );

    let reset = app.send(Method::POST, "/reset-history", None).await;
    assert_eq!(reset.status, StatusCode::OK);
    assert_eq!(reset.body["success"], true);
    assert!(reset.body["message"].is_string());
    let reply = app.execute(json!({"name": "fail_logical"})).await;
    assert_eq!(
        reply.status,
        StatusCode::OK,
        "callable again after the reset"
    );
    app.stop().await;
}

#[tokio::test]
async fn reset_one_tool_and_success_clears_the_run() {
    let app = TestApp::demo().await;
    for _ in 0..3 {
        let reply = app
            .execute(json!({"name": "fail_validation", "arguments": {"date": "x"}}))
            .await;
        assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
        let reply = app
            .execute(json!({"name": "fail_runtime", "arguments": {}}))
            .await;
        assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    }
    assert_eq!(
        app.execute(json!({"name": "fail_validation"})).await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
    let one = ResetHistory {
        server_name: Some("demo"),
        tool_name: Some("fail_validation"),
    };
    let reset = app.send_as("/reset-history", one).await;
    assert_eq!(reset.status, StatusCode::OK);
    assert_eq!(reset.body["cleared"], 1);
    assert_eq!(
        app.execute(json!({"name": "fail_validation"})).await.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "reset: called (and failing) again"
    );
    assert_eq!(
        app.execute(json!({"name": "fail_runtime"})).await.status,
        StatusCode::TOO_MANY_REQUESTS,
        "the other tool is still refused"
    );
    let bad = app.post("/reset-history", json!({"toolName": 5})).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);

    // Two failures, one success: the run starts over.
    for _ in 0..2 {
        app.execute(json!({"name": "add", "arguments": {"a": "x"}}))
            .await;
    }
    assert_eq!(
        app.execute(json!({"name": "add", "arguments": {"a": 1, "b": 1}}))
            .await
            .text(),
        "2"
    );
    for _ in 0..2 {
        app.execute(json!({"name": "add", "arguments": {"a": "x"}}))
            .await;
    }
    assert_eq!(
        app.execute(json!({"name": "add", "arguments": {"a": 1, "b": 2}}))
            .await
            .text(),
        "3"
    );
    app.stop().await;
}

#[tokio::test]
async fn env_values_never_appear_in_errors() {
    let secret = "sk-live-SECRET-4242-value";
    let spec = common::demo_spec_with(
        "vault",
        BTreeMap::from([("DEMO_API_KEY".to_owned(), secret.to_owned())]),
        None,
    );
    let app = TestApp::start(vec![spec]).await;
    let reply = app
        .execute(json!({
            "name": "fail_runtime",
            "arguments": {"message": format!("auth failed with key {secret}")}
        }))
        .await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    let text = reply.body.to_string();
    assert!(!text.contains(secret), "{text}");
    assert!(reply.detail()["error"].as_str().unwrap().contains("***"));
    assert!(
        reply.detail()["traceback"]
            .as_str()
            .unwrap()
            .contains("***")
    );
    app.stop().await;
}
