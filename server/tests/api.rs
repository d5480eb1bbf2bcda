//! The HTTP API (docs/BRIDGE.md, "Bridge API"), driven in-process with `oneshot` against the demo server:
//! shapes of success bodies, FastAPI-style errors, and malformed requests.

mod common;

use axum::http::{Method, StatusCode};
use common::{Req, TestApp};
use mcp_bridge_protocol::requests::Execute;
use serde_json::json;

#[tokio::test]
async fn health_is_open_and_shaped_like_the_original() {
    let app = TestApp::demo().await;
    let reply = app
        .raw(Req::new(Method::GET, "/health").auth(None).build())
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["status"], "ok");
    assert!(reply.body["timestamp"].as_f64().unwrap() > 1.6e9);
    assert_eq!(reply.body["version"], mcp_bridge::VERSION);
    assert!(reply.headers.contains_key("x-trace-id"));
    app.stop().await;
}

#[tokio::test]
async fn tools_lists_services_then_one_service() {
    let app = TestApp::demo().await;
    let reply = app.get("/tools").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["success"], true);
    let services = reply.body["services"].as_array().unwrap();
    assert_eq!(services.len(), 1);
    assert_eq!(services[0]["name"], "demo");
    assert_eq!(services[0]["is_core"], true);
    assert!(
        services[0]["description"]
            .as_str()
            .unwrap()
            .contains("demo")
    );

    let reply = app.get("/tools?serverName=demo").await;
    assert_eq!(reply.status, StatusCode::OK);
    let tools = &reply.body["tools"];
    assert_eq!(tools["service_name"], "demo");
    assert!(tools["service_description"].is_string());
    let list = tools["tools"].as_array().unwrap();
    let echo = list
        .iter()
        .find(|t| t["name"] == "echo")
        .expect("echo listed");
    assert!(echo["description"].is_string());
    assert_eq!(echo["parameters"]["type"], "object");
    assert!(echo["parameters"]["properties"]["text"].is_object());
    for name in [
        "echo",
        "add",
        "get_time",
        "read_text_file",
        "fail_validation",
        "fail_runtime",
        "fail_logical",
        "slow",
        "crash",
    ] {
        assert!(list.iter().any(|t| t["name"] == name), "{name} missing");
    }

    let reply = app.get("/tools?serverName=nope").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(
        reply.body,
        json!({"detail": "服务 nope 不存在或未成功加载"})
    );
    app.stop().await;
}

#[tokio::test]
async fn tool_detail() {
    let app = TestApp::demo().await;
    let reply = app.get("/tool-detail?toolName=add&serverName=demo").await;
    assert_eq!(reply.status, StatusCode::OK);
    let tool = &reply.body["tool"];
    assert_eq!(reply.body["success"], true);
    assert_eq!(tool["name"], "add");
    assert_eq!(tool["serverName"], "demo");
    assert_eq!(tool["inputSchema"]["required"], json!(["a", "b"]));

    // serverName is optional.
    let reply = app.get("/tool-detail?toolName=echo").await;
    assert_eq!(reply.body["tool"]["serverName"], "demo");

    let reply = app.get("/tool-detail").await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        reply.body,
        json!({"detail": [{"type": "missing", "loc": ["query", "toolName"], "msg": "Field required", "input": null}]})
    );

    let reply = app.get("/tool-detail?toolName=ecko&serverName=demo").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert!(reply.detail()["error"].as_str().unwrap().contains("`echo`"));
    app.stop().await;
}

#[tokio::test]
async fn execute_success_and_structured_content() {
    let app = TestApp::demo().await;
    let reply = app
        .execute(json!({"name": "echo", "arguments": {"text": "你好"}}))
        .await;
    assert_eq!(reply.text(), "你好");
    assert_eq!(reply.body["result"]["isError"], false);
    assert!(reply.body["result"].get("structuredContent").is_some());

    // As the extension writes it, long-poll and unmasking included.
    let arguments = json!({"a": 2, "b": 40});
    let call = Execute {
        name: "add",
        arguments: &arguments,
        server_name: Some("demo"),
        wait: Some(20),
        unmasked: true,
    };
    let reply = app.send_as("/execute", call).await;
    assert_eq!(reply.text(), "42", "{}", reply.body);
    assert_eq!(
        reply.body["result"]["structuredContent"],
        json!({"sum": 42.0})
    );
    app.stop().await;
}

#[tokio::test]
async fn a_tool_that_reports_an_error_is_not_an_http_error() {
    let app = TestApp::demo().await;
    let reply = app
        .execute(json!({"name": "fail_logical", "arguments": {"query": "unicorns"}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["success"], true);
    assert_eq!(reply.body["result"]["isError"], true);
    assert!(reply.text().contains("unicorns"));
    app.stop().await;
}

#[tokio::test]
async fn unknown_tool_names_the_closest_tools() {
    let app = TestApp::demo().await;
    let reply = app.execute(json!({"name": "get_tme"})).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    let detail = reply.detail();
    assert_eq!(detail["type"], "ToolNotFound");
    assert_eq!(detail["code"], -32003);
    assert_eq!(detail["retryable"], false);
    let message = detail["error"].as_str().unwrap();
    assert!(message.contains("`get_tme`"), "{message}");
    assert!(message.contains("Closest names: `get_time`"), "{message}");
    assert!(
        message.contains("read_text_file"),
        "lists the tools: {message}"
    );
    // The same, as values a client can put into its user's language.
    let facts = &detail["facts"];
    assert_eq!(
        facts["closest"][0],
        json!({"tool": "get_time", "server": "demo"})
    );
    assert_eq!(facts["services"][0]["name"], "demo");
    assert!(
        facts["services"][0]["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("read_text_file"))
    );

    let reply = app
        .execute(json!({"name": "ech", "serverName": "demo"}))
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    let detail = reply.detail();
    assert_eq!(detail["server"], "demo");
    assert!(detail["error"].as_str().unwrap().contains("`echo`"));

    let reply = app
        .execute(json!({"name": "echo", "serverName": "nowhere"}))
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.detail()["type"], "ServerNotFound");
    assert!(reply.detail()["error"].as_str().unwrap().contains("demo"));
    assert_eq!(reply.detail()["facts"], json!({"available": ["demo"]}));
    app.stop().await;
}

#[tokio::test]
async fn bad_arguments_are_422_with_the_parameters() {
    let app = TestApp::demo().await;
    let reply = app
        .execute(json!({"name": "fail_validation", "arguments": {"date": "2025-13-45"}}))
        .await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    let detail = reply.detail();
    assert_eq!(detail["code"], -32602);
    assert_eq!(detail["type"], "ValueError");
    assert_eq!(detail["server"], "demo");
    let message = detail["error"].as_str().unwrap();
    assert!(message.contains("2025-13-45"), "{message}");
    // What is valid travels as the tool's schema; the client words it.
    assert_eq!(
        detail["input_schema"]["properties"]["date"]["type"],
        json!(["string", "null"])
    );
    app.stop().await;
}

#[tokio::test]
async fn malformed_requests_get_fastapi_422_lists() {
    let app = TestApp::demo().await;
    let reply = app
        .send(Method::POST, "/execute", Some("{\"name\": "))
        .await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    let item = &reply.body["detail"][0];
    assert_eq!(item["type"], "json_invalid");
    assert_eq!(item["loc"][0], "body");
    assert_eq!(item["msg"], "JSON decode error");

    let reply = app.execute(json!({"arguments": {"text": "x"}})).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        reply.body,
        json!({"detail": [{"type": "missing", "loc": ["body", "name"], "msg": "Field required", "input": {"arguments": {"text": "x"}}}]})
    );

    let reply = app
        .execute(json!({"name": ["echo"], "arguments": "text"}))
        .await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    let kinds: Vec<&str> = reply.body["detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["string_type", "dict_type"]);

    let reply = app.send(Method::POST, "/execute", None).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(reply.body["detail"][0]["loc"], json!(["body"]));
    app.stop().await;
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_in_json() {
    let app = TestApp::demo().await;
    let reply = app.get("/nope").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.body, json!({"detail": "Not Found"}));
    let reply = app.get("/execute").await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(reply.body, json!({"detail": "Method Not Allowed"}));
    app.stop().await;
}

#[tokio::test]
async fn read_text_file_reports_real_file_errors() {
    let app = TestApp::demo().await;
    let dir = common::demo_root();
    let file = dir.join("note.txt");
    std::fs::write(&file, "hello file").unwrap();
    let reply = app
        .execute(json!({"name": "read_text_file", "arguments": {"path": file}}))
        .await;
    assert_eq!(reply.text(), "hello file");

    let missing = dir.join("missing.txt");
    let reply = app
        .execute(json!({"name": "read_text_file", "arguments": {"path": missing}}))
        .await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    let detail = reply.detail();
    assert_eq!(detail["type"], "FileNotFoundError");
    assert!(
        detail["traceback"]
            .as_str()
            .unwrap()
            .contains("FileNotFoundError")
    );
    app.stop().await;
}
