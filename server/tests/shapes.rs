//! Answers of hostile sizes and shapes from a real stdio MCP server (`tests/support/flood-server.mjs`,
//! raw JSON-RPC run by node): a completion is cut to MCP's 100 values, an answer nested too
//! deep to read fails its call at once with the reason instead of leaving it to time out,
//! tools whose names hold control characters or repeat another's are not listed, a question
//! whose URL no browser should open is declined at once, and an answer carries only the
//! fields its question asked for; a prompt of megabytes reaches the chat in bounded pages, and
//! a blob of megabytes is left out with a note naming its size and type.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::{TestApp, require_on_path, stdio_spec};
use mcp_bridge::config::ServerSpec;
use serde_json::json;

fn flood_spec() -> ServerSpec {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/flood-server.mjs");
    let mut spec = stdio_spec("flood", &node, &[script.to_str().unwrap()]);
    spec.call_timeout = Some(Duration::from_secs(120));
    spec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completion_is_cut_to_a_hundred_values() {
    let app = TestApp::start(vec![flood_spec()]).await;
    let completed = app
        .post(
            "/complete",
            json!({"serverName": "flood", "prompt": "many", "argument": "value", "value": ""}),
        )
        .await;
    assert_eq!(completed.status, StatusCode::OK, "{}", completed.body);
    let values = completed.body["values"].as_array().unwrap();
    assert_eq!(values.len(), 100);
    assert!(values[0].as_str().unwrap().starts_with("00000 "));
    assert_eq!(completed.body["hasMore"], true);
    assert_eq!(completed.body["total"], 20000);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_nested_too_deep_fails_its_call_at_once_with_the_reason() {
    let app = TestApp::start(vec![flood_spec()]).await;
    let started = Instant::now();
    let reply = app
        .execute(json!({"name": "deep", "serverName": "flood", "arguments": {}}))
        .await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "the call took {took:?}: {}",
        reply.body
    );
    assert_ne!(reply.status, StatusCode::OK, "{}", reply.body);
    let text = reply.body.to_string();
    assert!(text.contains("nested"), "{text}");
    // The connection still serves.
    let reply = app
        .execute(json!({"name": "tool_1", "serverName": "flood", "arguments": {}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_with_control_characters_or_a_repeated_name_are_not_listed() {
    let app = TestApp::start(vec![flood_spec()]).await;
    let listed = app.get("/tools?serverName=flood").await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    let names: Vec<&str> = listed.body["tools"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&"deep"), "{names:?}");
    assert!(
        names.iter().all(|name| !name.chars().any(char::is_control)),
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|name| **name == "tool_0").count(),
        1,
        "{names:?}"
    );
    app.stop().await;
}

/// Start `ask` in the background; the call's id, or its answer when it finished at once.
async fn ask(app: &TestApp, arguments: serde_json::Value) -> Result<String, serde_json::Value> {
    let reply = app
        .execute(json!({"name": "ask", "serverName": "flood", "arguments": arguments, "wait": 0}))
        .await;
    match reply.status {
        StatusCode::ACCEPTED => Ok(reply.body["call_id"].as_str().unwrap().to_owned()),
        StatusCode::OK => Err(answer_of(&reply.body)),
        _ => panic!("{}", reply.body),
    }
}

/// The answer `ask` returned, from a finished call's body.
fn answer_of(body: &serde_json::Value) -> serde_json::Value {
    let text = body["result"]["content"][0]["text"].as_str().unwrap();
    serde_json::from_str(text).unwrap()
}

/// Poll call `id` until it finishes (its answer) or shows a question (`Err`: it).
async fn answered_or_asked(
    app: &TestApp,
    id: &str,
) -> Result<serde_json::Value, serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let reply = app.get(&format!("/calls/{id}?wait=5")).await;
        if reply.status != StatusCode::ACCEPTED {
            assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
            return Ok(answer_of(&reply.body));
        }
        if let Some(question) = reply.body.get("elicitation") {
            return Err(question.clone());
        }
        assert!(Instant::now() < deadline, "neither answered nor asked");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_with_a_url_no_browser_should_open_is_declined_at_once() {
    let app = TestApp::start(vec![flood_spec()]).await;
    let long = format!("https://example.com/{}", "a".repeat(200_000));
    for url in [
        "javascript:alert(document.cookie)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "/relative/path",
        "https://exa mple.com",
        long.as_str(),
    ] {
        let answered = match ask(&app, json!({"url": url})).await {
            Ok(id) => answered_or_asked(&app, &id).await,
            Err(at_once) => Ok(at_once),
        };
        match answered {
            Ok(answer) => assert_eq!(answer["result"]["action"], "decline", "{answer}"),
            Err(question) => panic!("a question with the URL {url:.60} was shown: {question:.300}"),
        }
    }
    // An absolute https URL is shown.
    let id = ask(&app, json!({"url": "https://example.com/sign-in?x=1"}))
        .await
        .unwrap();
    let question = answered_or_asked(&app, &id).await.unwrap_err();
    assert_eq!(question["url"], "https://example.com/sign-in?x=1");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_reaches_the_server_with_only_the_fields_its_question_asked_for() {
    let app = TestApp::start(vec![flood_spec()]).await;
    let id = ask(&app, json!({})).await.unwrap();
    let question = answered_or_asked(&app, &id).await.unwrap_err();
    let sent = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "accept", "question_id": question["id"],
                   "content": {"name": "Ada", "admin": true, "token": "x"}}),
        )
        .await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    let answer = answered_or_asked(&app, &id).await.unwrap();
    assert_eq!(answer["result"]["action"], "accept", "{answer}");
    assert_eq!(
        answer["result"]["content"],
        json!({"name": "Ada"}),
        "{answer}"
    );
    app.stop().await;
}

/// The most bytes an answer of the bridge's may take with its default threshold (16 KiB paged
/// in pages of 8 Ki characters): a few times a page, far below the megabytes sent.
const BOUND: usize = 64 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_of_megabytes_reaches_the_chat_in_bounded_pages() {
    let app = TestApp::start(vec![flood_spec()]).await;
    let chars = 5_000_000;
    let got = app
        .post(
            "/prompts/get",
            json!({"serverName": "flood", "name": "huge", "arguments": {"chars": chars.to_string()}}),
        )
        .await;
    assert_eq!(got.status, StatusCode::OK, "{:.2000}", got.body);
    let size = got.body.to_string().len();
    assert!(
        size < BOUND,
        "a prompt of {chars} characters was answered in {size} bytes"
    );
    let page = &got.body["page"];
    assert_eq!(page["offset"], 0, "{:.2000}", got.body);
    assert_eq!(page["total_chars"], chars + 1 + "the last message".len());
    let messages = got.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{:.2000}", got.body);
    assert_eq!(messages[0]["role"], "user");
    let first = messages[0]["content"]["text"].as_str().unwrap();
    assert!(
        first.starts_with("a line of a huge prompt\n"),
        "{first:.200}"
    );
    // The next page is read as a tool result's is, and is as bounded.
    let next = app
        .post(
            "/execute",
            json!({"name": "read_result", "arguments": {
                "result_id": page["result_id"], "offset": page["next_offset"]}}),
        )
        .await;
    assert_eq!(next.status, StatusCode::OK, "{:.2000}", next.body);
    assert_eq!(next.body["page"]["offset"], page["next_offset"]);
    assert!(next.body.to_string().len() < BOUND);
    // The last page holds the last message.
    let total = page["total_chars"].as_u64().unwrap();
    let last = app
        .post(
            "/execute",
            json!({"name": "read_result", "arguments": {
                "result_id": page["result_id"], "offset": total - 20}}),
        )
        .await;
    let text = last.body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.ends_with("\nthe last message"), "{}", last.body);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blob_of_megabytes_is_left_out_with_a_note_of_its_size_and_type() {
    let app = TestApp::start(vec![flood_spec()]).await;
    let bytes = 16 * 1024 * 1024;
    let read = app
        .post(
            "/resources/read",
            json!({"serverName": "flood", "uri": format!("flood://blob/{bytes}")}),
        )
        .await;
    assert_eq!(read.status, StatusCode::OK, "{:.2000}", read.body);
    let size = read.body.to_string().len();
    assert!(
        size < BOUND,
        "a blob of {bytes} bytes was answered in {size} bytes"
    );
    assert_eq!(read.body["blobs_left_out"], 1, "{:.2000}", read.body);
    let contents = &read.body["contents"][0];
    assert!(contents.get("blob").is_none(), "{contents:.2000}");
    let note = contents["text"].as_str().unwrap();
    assert!(
        note.contains("image/png")
            && note.contains(&bytes.to_string())
            && note.contains("--large-result-threshold"),
        "{note}"
    );
    // A small blob still comes whole.
    let read = app
        .post(
            "/resources/read",
            json!({"serverName": "flood", "uri": "flood://blob/4000"}),
        )
        .await;
    assert_eq!(read.status, StatusCode::OK, "{:.2000}", read.body);
    assert_eq!(
        read.body["contents"][0]["blob"].as_str().map(str::len),
        Some(4000)
    );
    assert!(read.body.get("blobs_left_out").is_none());
    app.stop().await;
}
