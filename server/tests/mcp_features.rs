//! MCP beyond tools, against the real `@modelcontextprotocol/server-everything`: live tool lists
//! and server instructions, prompts and completions, resources (large ones paged), progress,
//! questions from the server (elicitation), structured results, roots — and, with a small test
//! server of our own (`tests/support/odd-server.mjs`), sampling declined, structured results
//! that break their schema, and prompts and resources reloaded when the server announces a
//! change of them.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use axum::http::{Method, StatusCode};
use common::{TestApp, everything_spec, require_on_path, stdio_spec, tool_names};
use mcp_bridge::ResultLimits as Limits;
use mcp_bridge::config::{RootSpec, ServerSpec};
use mcp_bridge_protocol::requests::{
    Complete, Completed, ElicitationAnswer, GetPrompt, ReadResource,
};
use serde_json::{Value, json};

const LIMIT: Duration = Duration::from_secs(60);

fn everything(name: &str, tweak: impl FnOnce(&mut ServerSpec)) -> ServerSpec {
    let mut spec = everything_spec(name);
    tweak(&mut spec);
    spec
}

/// Our own test server, run by node.
fn odd_spec() -> ServerSpec {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/odd-server.mjs");
    stdio_spec("odd", &node, &[script.to_str().unwrap()])
}

/// GET `path` until `check` holds on its body.
async fn until(app: &TestApp, path: &str, check: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + LIMIT;
    loop {
        let reply = app.get(path).await;
        if check(&reply.body) {
            return reply.body;
        }
        assert!(
            Instant::now() < deadline,
            "{path} never matched: {}",
            reply.body
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Wait until the tools server-everything registers after initialization are listed.
async fn conditional_tools(app: &TestApp, server: &str) -> Vec<String> {
    let body = until(app, &format!("/tools?serverName={server}"), |body| {
        let names = tool_names(body);
        names.iter().any(|n| n == "trigger-elicitation-request")
            && names.iter().any(|n| n == "get-roots-list")
    })
    .await;
    tool_names(&body)
}

/// Poll the call until its server asks a question; the 202 body.
async fn question(app: &TestApp, id: &str) -> Value {
    let deadline = Instant::now() + LIMIT;
    loop {
        let reply = app.get(&format!("/calls/{id}?wait=20")).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
        if reply.body.get("elicitation").is_some() {
            return reply.body;
        }
        assert!(Instant::now() < deadline, "no question came");
    }
}

/// How many changed lists `server` announced, as `GET /tools` counts them.
async fn announced(app: &TestApp, server: &str) -> Value {
    let services = app.get("/tools").await.body;
    services["services"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == server)
        .map(|s| s["list_changes"].clone())
        .expect("the server is listed")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_added_after_start_arrive_and_instructions_combine() {
    let app = TestApp::start(vec![everything("everything", |spec| {
        spec.mcp.instructions = "Greet the user with the echo tool.".to_owned();
    })])
    .await;
    // Registered after initialization and announced with notifications/tools/list_changed:
    // only a client that advertises elicitation and roots, and reloads its list, sees them.
    let names = conditional_tools(&app, "everything").await;
    assert!(
        names.iter().any(|n| n == "trigger-url-elicitation"),
        "{names:?}"
    );
    // Sampling is not advertised, so the server keeps its sampling tool to itself.
    assert!(
        !names.iter().any(|n| n == "trigger-sampling-request"),
        "{names:?}"
    );
    let services = app.get("/tools").await.body;
    let service = &services["services"][0];
    assert!(service["list_changes"].as_u64().unwrap() >= 1, "{service}");
    assert_eq!(
        service["tool_count"].as_u64().unwrap() as usize,
        names.len()
    );
    let instructions = service["instructions"].as_str().unwrap();
    // The server's own instructions (from its initialize answer) come first, then the config's.
    assert!(
        instructions.ends_with("Greet the user with the echo tool."),
        "{instructions}"
    );
    assert!(
        instructions.len() > "Greet the user with the echo tool.".len() + 40,
        "the server's own instructions are missing: {instructions}"
    );
    assert!(service["prompt_count"].as_u64().unwrap() >= 3, "{service}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_are_listed_rendered_and_completed() {
    let app = TestApp::start(vec![everything_spec("everything")]).await;
    let prompts = app.get("/prompts").await;
    assert_eq!(prompts.status, StatusCode::OK, "{}", prompts.body);
    let list = prompts.body["prompts"].as_array().unwrap();
    let args = list
        .iter()
        .find(|p| p["name"] == "args-prompt")
        .expect("args-prompt is listed");
    assert_eq!(args["server"], "everything");
    let city = args["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "city")
        .unwrap();
    assert_eq!(city["required"], true, "{args}");
    assert!(list.iter().any(|p| p["name"] == "simple-prompt"));

    let prompt = GetPrompt {
        server_name: "everything",
        name: "args-prompt",
        arguments: json!({"city": "Lyon"}).as_object().unwrap().clone(),
    };
    let rendered = app.send_as("/prompts/get", prompt).await;
    assert_eq!(rendered.status, StatusCode::OK, "{}", rendered.body);
    let message = &rendered.body["messages"][0];
    assert_eq!(message["role"], "user");
    assert!(
        message["content"]["text"]
            .as_str()
            .unwrap()
            .contains("Lyon"),
        "{}",
        rendered.body
    );

    // Bad input is refused with the field named, before the server is asked.
    let unknown = app
        .post(
            "/prompts/get",
            json!({"serverName": "everything", "name": "nope"}),
        )
        .await;
    assert_eq!(
        unknown.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        unknown.body
    );
    assert!(
        unknown.body.to_string().contains("args-prompt"),
        "{}",
        unknown.body
    );
    let not_text = app
        .post(
            "/prompts/get",
            json!({"serverName": "everything", "name": "args-prompt", "arguments": {"city": 3}}),
        )
        .await;
    assert_eq!(
        not_text.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        not_text.body
    );

    let complete = |argument, value, context: Option<Value>| Complete {
        server_name: "everything",
        of: Completed::Prompt("completable-prompt"),
        argument,
        value,
        context: context.map(|c| c.as_object().unwrap().clone()),
    };
    let completed = app
        .send_as("/complete", complete("department", "En", None))
        .await;
    assert_eq!(completed.status, StatusCode::OK, "{}", completed.body);
    assert_eq!(completed.body["values"], json!(["Engineering"]));
    let sales = Some(json!({"department": "Sales"}));
    let in_context = app.send_as("/complete", complete("name", "", sales)).await;
    assert_eq!(
        in_context.body["values"],
        json!(["David", "Eve", "Frank"]),
        "{}",
        in_context.body
    );
    // A resource template's argument: server-everything completes a positive whole number.
    let template = "demo://resource/dynamic/text/{resourceId}";
    for (value, expected) in [("7", json!(["7"])), ("x", json!([]))] {
        let of_template = Complete {
            server_name: "everything",
            of: Completed::Template(template),
            argument: "resourceId",
            value,
            context: None,
        };
        let completed = app.send_as("/complete", of_template).await;
        assert_eq!(completed.status, StatusCode::OK, "{}", completed.body);
        assert_eq!(completed.body["values"], expected, "{}", completed.body);
    }
    let neither = app
        .post(
            "/complete",
            json!({"serverName": "everything", "argument": "x"}),
        )
        .await;
    assert_eq!(
        neither.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        neither.body
    );
    app.stop().await;
}

/// server-everything's own copy of one of its static documents.
fn everything_doc(name: &str) -> String {
    let bin = require_on_path(
        "mcp-server-everything",
        "npm install at the repository root",
    );
    // On unix the bin is a link to the package's dist/index.js; on Windows npm writes a
    // `.cmd` shim into node_modules/.bin instead, beside the packages.
    #[cfg(unix)]
    let dist = std::fs::canonicalize(bin)
        .unwrap()
        .parent()
        .unwrap()
        .to_owned();
    #[cfg(not(unix))]
    let dist = bin
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap()
        .join("@modelcontextprotocol")
        .join("server-everything")
        .join("dist");
    std::fs::read_to_string(dist.join("docs").join(name)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_are_listed_read_and_paged() {
    let mut app = TestApp::start(vec![everything_spec("everything")]).await;
    let resources = app.get("/resources?serverName=everything").await;
    assert_eq!(resources.status, StatusCode::OK, "{}", resources.body);
    let doc = "demo://resource/static/document/features.md";
    assert!(
        resources.body["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == doc && r["server"] == "everything"),
        "{}",
        resources.body
    );
    let templates = app.get("/resource-templates").await;
    assert!(
        templates.body["resourceTemplates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["uriTemplate"] == "demo://resource/dynamic/text/{resourceId}"),
        "{}",
        templates.body
    );

    let uri = json!("demo://resource/dynamic/text/3");
    let read = ReadResource {
        server_name: Some("everything"),
        uri: &uri,
    };
    let text = app.send_as("/resources/read", read).await;
    assert_eq!(text.status, StatusCode::OK, "{}", text.body);
    assert_eq!(
        text.body["contents"][0]["uri"],
        "demo://resource/dynamic/text/3"
    );
    assert!(
        !text.body["contents"][0]["text"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    assert!(text.body.get("page").is_none());
    let blob = app
        .post(
            "/resources/read",
            json!({"serverName": "everything", "uri": "demo://resource/dynamic/blob/3"}),
        )
        .await;
    assert!(
        blob.body["contents"][0]["blob"].as_str().is_some(),
        "{}",
        blob.body
    );
    let missing = app
        .post("/resources/read", json!({"serverName": "everything"}))
        .await;
    assert_eq!(missing.status, StatusCode::UNPROCESSABLE_ENTITY);

    // A large resource comes page by page, like a large tool result.
    let expected = everything_doc("features.md");
    let limits = Limits {
        threshold: 2000,
        page_chars: 1500,
        ..Limits::default()
    };
    assert!(expected.chars().count() > 2 * limits.threshold);
    app.state = app.state.clone().with_result_limits(limits);
    let first = app
        .post(
            "/resources/read",
            json!({"serverName": "everything", "uri": doc}),
        )
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let page = &first.body["page"];
    assert_eq!(
        page["total_chars"].as_u64().unwrap() as usize,
        expected.chars().count()
    );
    let mut got = first.body["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(got.chars().count() <= 1500);
    let id = page["result_id"].as_str().unwrap().to_owned();
    let mut next = page["next_offset"].clone();
    while let Some(offset) = next.as_u64() {
        let reply = app
            .execute(
                json!({"name": "read_result", "arguments": {"result_id": id, "offset": offset}}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        got.push_str(reply.body["result"]["content"][0]["text"].as_str().unwrap());
        next = reply.body["page"]["next_offset"].clone();
    }
    assert_eq!(got, expected);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_is_shown_and_resets_the_timeout_up_to_a_maximum() {
    let capped = everything("capped", |spec| {
        spec.mcp.max_call_time = Some(Duration::from_secs(3));
    });
    // A 2 s call timeout; the operation takes 6 s and reports progress every 0.5 s.
    let app = TestApp::start_timing_out(
        vec![everything_spec("everything"), capped],
        Duration::from_secs(2),
    )
    .await;
    let long = |server: &str| {
        json!({"name": "trigger-long-running-operation", "serverName": server,
               "arguments": {"duration": 6, "steps": 12}})
    };
    let id = app.start_call(long("everything")).await;
    let asked = Instant::now();
    let polled = app.get(&format!("/calls/{id}?wait=30")).await;
    // The long poll returns as soon as progress arrives, not after its 30 s.
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(polled.status, StatusCode::ACCEPTED, "{}", polled.body);
    let progress = &polled.body["progress"];
    assert!(
        progress["progress"].as_f64().unwrap() >= 1.0,
        "{}",
        polled.body
    );
    assert_eq!(progress["total"], 12.0);
    assert!(polled.body["elapsed_seconds"].as_f64().unwrap() > 0.0);
    let done = app.finish(&id, LIMIT).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    assert!(
        done.all_text().contains("Long running operation completed"),
        "{}",
        done.body
    );
    assert!(asked.elapsed() >= Duration::from_secs(5));

    // With max_call_time 3 s, progress keeps it going only that long.
    let started = Instant::now();
    let id = app.start_call(long("capped")).await;
    let cut = app.finish(&id, LIMIT).await;
    assert_eq!(cut.body["detail"]["type"], "TimeoutError", "{}", cut.body);
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(3) && took < Duration::from_secs(5),
        "{took:?}"
    );
    app.stop().await;
}

/// A blocking `POST /execute` (no `wait`) has nobody who could show the server's question, so
/// the question is declined at once — not after the answer time (10 minutes by default). A call
/// cancelled while its question waits takes the question with it: nobody can answer it later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_declined_in_a_blocking_call_and_goes_with_a_cancelled_one() {
    let app = TestApp::start(vec![odd_spec()]).await;
    let started = Instant::now();
    let reply = app
        .execute(json!({"name": "ask-later", "serverName": "odd", "arguments": {"delay_ms": 0}}))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let text = reply.body["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"decline\""), "{text}");

    // A call cancelled while its question waits ends as cancelled, and its question with it.
    let id = app
        .start_call(json!({"name": "ask-later", "serverName": "odd", "arguments": {"delay_ms": 0}}))
        .await;
    let asked = question(&app, &id).await;
    assert!(asked["elicitation"]["id"].is_string(), "{asked}");
    let cancelled = app
        .send(Method::DELETE, &format!("/calls/{id}"), None)
        .await;
    assert_eq!(cancelled.status, StatusCode::OK, "{}", cancelled.body);
    assert_eq!(cancelled.body["cancelled"], true, "{}", cancelled.body);
    let after = app.get(&format!("/calls/{id}")).await;
    assert_eq!(after.status, StatusCode::CONFLICT, "{}", after.body);
    assert_eq!(after.body["detail"]["type"], "CancelledError");
    let answered = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        )
        .await;
    assert_ne!(answered.status, StatusCode::OK, "{}", answered.body);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_question_reaches_the_user_and_their_answer_the_server() {
    let app = TestApp::start_timing_out(
        vec![
            everything_spec("everything"),
            everything("hurried", |spec| {
                spec.mcp.answer_timeout = Some(Duration::from_secs(1))
            }),
        ],
        // The call timeout is shorter than the time the user takes: it is paused meanwhile.
        Duration::from_secs(3),
    )
    .await;
    conditional_tools(&app, "everything").await;
    conditional_tools(&app, "hurried").await;
    let ask =
        json!({"name": "trigger-elicitation-request", "serverName": "everything", "arguments": {}});

    let id = app.start_call(ask.clone()).await;
    let pending = question(&app, &id).await;
    let asked = &pending["elicitation"];
    assert_eq!(asked["mode"], "form");
    assert_eq!(asked["server"], "everything");
    assert!(
        asked["message"]
            .as_str()
            .unwrap()
            .contains("Please provide"),
        "{asked}"
    );
    assert_eq!(asked["requested_schema"]["required"], json!(["name"]));
    let answer_path = format!("/calls/{id}/elicitation");
    let answer = |body: Value| app.post(&answer_path, body);
    // An answer that breaks the form's schema is refused, naming the field; the question stays.
    let wrong = answer(json!({"action": "accept", "content": {"name": 5}})).await;
    assert_eq!(
        wrong.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        wrong.body
    );
    assert!(wrong.body.to_string().contains("`name`"), "{}", wrong.body);
    let missing = answer(json!({"action": "accept", "content": {"check": true}})).await;
    assert!(
        missing.body.to_string().contains("`name` is required"),
        "{}",
        missing.body
    );
    let bad_action = answer(json!({"action": "maybe"})).await;
    assert_eq!(bad_action.status, StatusCode::UNPROCESSABLE_ENTITY);
    // The user takes longer than the call timeout.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let content = json!({"name": "Ada Lovelace", "check": true, "integer": 7});
    let accepted = ElicitationAnswer {
        action: "accept",
        question_id: asked["id"].as_str(),
        content: content.as_object().cloned(),
    };
    let right = app.send_as(&answer_path, accepted).await;
    assert_eq!(right.status, StatusCode::OK, "{}", right.body);
    let again = answer(json!({"action": "decline"})).await;
    assert_eq!(
        again.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "answered once: {}",
        again.body
    );
    let done = app.finish(&id, LIMIT).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    let text = done.all_text();
    assert!(
        text.contains("Name: Ada Lovelace") && text.contains("Favorite Integer: 7"),
        "{text}"
    );

    let id = app.start_call(ask.clone()).await;
    question(&app, &id).await;
    let declined = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "decline"}),
        )
        .await;
    assert_eq!(declined.status, StatusCode::OK, "{}", declined.body);
    assert!(app.finish(&id, LIMIT).await.all_text().contains("declined"));

    // Nobody answers: the question is declined when its time is up.
    let mut unanswered = ask.clone();
    unanswered["serverName"] = json!("hurried");
    let id = app.start_call(unanswered).await;
    let done = app.finish(&id, LIMIT).await;
    assert!(done.all_text().contains("declined"), "{}", done.body);

    // URL mode: the URL is shown; nothing is opened by the bridge.
    let id = app.start_call(
        json!({"name": "trigger-url-elicitation", "serverName": "everything",
               "arguments": {"url": "https://example.com/authorize", "message": "Sign in, please"}}),
    )
    .await;
    let pending = question(&app, &id).await;
    assert_eq!(pending["elicitation"]["mode"], "url");
    assert_eq!(
        pending["elicitation"]["url"],
        "https://example.com/authorize"
    );
    let accepted = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "accept"}),
        )
        .await;
    assert_eq!(accepted.status, StatusCode::OK, "{}", accepted.body);
    assert_eq!(app.finish(&id, LIMIT).await.status, StatusCode::OK);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_results_are_passed_on_and_checked_against_their_schema() {
    let app = TestApp::start(vec![everything_spec("everything"), odd_spec()]).await;
    let weather = app
        .execute(
            json!({"name": "get-structured-content", "serverName": "everything",
                        "arguments": {"location": "New York"}}),
        )
        .await;
    assert_eq!(weather.status, StatusCode::OK, "{}", weather.body);
    assert!(
        weather.body["result"]["structuredContent"]["temperature"].is_number(),
        "{}",
        weather.body
    );

    let good = app
        .execute(json!({"name": "good-weather", "serverName": "odd"}))
        .await;
    assert_eq!(
        good.body["result"]["structuredContent"]["temperature"], 21.5,
        "{}",
        good.body
    );
    let bad = app
        .execute(json!({"name": "bad-weather", "serverName": "odd"}))
        .await;
    let detail = bad.detail();
    assert_eq!(detail["type"], "OutputSchemaMismatch", "{}", bad.body);
    assert!(
        detail["error"]
            .as_str()
            .unwrap()
            .contains("field `temperature`"),
        "{}",
        bad.body
    );
    let silent = app
        .execute(json!({"name": "silent-weather", "serverName": "odd"}))
        .await;
    assert!(
        silent.detail()["error"]
            .as_str()
            .unwrap()
            .contains("no structuredContent"),
        "{}",
        silent.body
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_is_declined_and_roots_are_the_configured_ones() {
    let rooted = everything("rooted", |spec| {
        spec.mcp.roots = vec![RootSpec::Named {
            uri: "file:///tmp/project".to_owned(),
            name: Some("Project".to_owned()),
        }];
    });
    let app = TestApp::start(vec![everything_spec("everything"), rooted, odd_spec()]).await;
    let sampled = app
        .execute(json!({"name": "ask-for-sampling", "serverName": "odd"}))
        .await;
    assert_eq!(sampled.status, StatusCode::OK, "{}", sampled.body);
    let said: Value = serde_json::from_str(&sampled.text()).unwrap();
    assert_eq!(said["refused"]["code"], -32601, "{said}");
    assert!(
        said["refused"]["message"]
            .as_str()
            .unwrap()
            .contains("does not support sampling"),
        "{said}"
    );

    conditional_tools(&app, "everything").await;
    conditional_tools(&app, "rooted").await;
    let none = app
        .execute(json!({"name": "get-roots-list", "serverName": "everything"}))
        .await;
    assert!(
        none.text().contains("no roots are currently configured"),
        "{}",
        none.body
    );
    let some = app
        .execute(json!({"name": "get-roots-list", "serverName": "rooted"}))
        .await;
    let text = some.all_text();
    assert!(
        text.contains("file:///tmp/project") && text.contains("Project"),
        "{text}"
    );
    app.stop().await;
}

fn names_in(body: &Value, list: &str) -> Vec<String> {
    body[list]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_and_resources_announced_as_changed_are_listed_again() {
    let app = TestApp::start(vec![odd_spec()]).await;
    until(&app, "/prompts", |b| {
        names_in(b, "prompts").contains(&"first-prompt".to_owned())
    })
    .await;
    until(&app, "/resources?serverName=odd", |b| {
        names_in(b, "resources").contains(&"first".to_owned())
    })
    .await;
    let add = |tool: &str, name: &str, notify: bool| json!({"name": tool, "serverName": "odd", "arguments": {"name": name, "notify": notify}});

    // Added without a word: the bridge keeps the list it has (it does not ask on every read),
    // which is why the announcement matters. It reads a list again only when the server
    // announces a change, and an announcement sent during a call arrives before the call's
    // result (one stdio stream): an unchanged count of announcements once the calls answered
    // proves that no reading was started.
    let before = announced(&app, "odd").await;
    for (tool, name) in [("add-prompt", "quiet-prompt"), ("add-resource", "quiet")] {
        let done = app.execute(add(tool, name, false)).await;
        assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    }
    assert_eq!(
        announced(&app, "odd").await,
        before,
        "the quiet additions announced a change"
    );
    let prompts = names_in(&app.get("/prompts").await.body, "prompts");
    assert!(!prompts.contains(&"quiet-prompt".to_owned()), "{prompts:?}");
    let resources = names_in(
        &app.get("/resources?serverName=odd").await.body,
        "resources",
    );
    assert!(!resources.contains(&"quiet".to_owned()), "{resources:?}");

    // Announced: both lists are read again, with everything added so far.
    let done = app.execute(add("add-prompt", "loud-prompt", true)).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    let body = until(&app, "/prompts", |b| {
        names_in(b, "prompts").contains(&"loud-prompt".to_owned())
    })
    .await;
    assert!(names_in(&body, "prompts").contains(&"quiet-prompt".to_owned()));
    let rendered = app
        .post(
            "/prompts/get",
            json!({"serverName": "odd", "name": "loud-prompt"}),
        )
        .await;
    assert_eq!(rendered.status, StatusCode::OK, "{}", rendered.body);

    let done = app.execute(add("add-resource", "loud", true)).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    let body = until(&app, "/resources?serverName=odd", |b| {
        names_in(b, "resources").contains(&"loud".to_owned())
    })
    .await;
    assert!(names_in(&body, "resources").contains(&"quiet".to_owned()));
    let services = app.get("/tools").await.body;
    let odd = &services["services"][0];
    assert_eq!(odd["resource_count"], 3, "{odd}");
    assert_eq!(odd["prompt_count"], 3, "{odd}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_ends_the_long_poll_and_a_cancel_or_a_stale_answer_are_told_apart() {
    let app = TestApp::start(vec![everything_spec("everything"), odd_spec()]).await;

    // The long poll returns as soon as a question arrives, not after its 30 s: the server asks
    // 2 s after the call starts, while the poll already waits (and reports no progress, so the
    // question is what ends it).
    let later = json!({"name": "ask-later", "serverName": "odd", "arguments": {"delay_ms": 2000}});
    let id = app.start_call(later).await;
    let asked = Instant::now();
    let polled = app.get(&format!("/calls/{id}?wait=30")).await;
    let took = asked.elapsed();
    assert!(
        took >= Duration::from_millis(1500) && took < Duration::from_secs(15),
        "{took:?}: {}",
        polled.body
    );
    assert_eq!(polled.status, StatusCode::ACCEPTED, "{}", polled.body);
    assert!(polled.body.get("progress").is_none(), "{}", polled.body);
    assert_eq!(polled.body["elicitation"]["message"], "What is your name?");
    let answered = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        )
        .await;
    assert_eq!(answered.status, StatusCode::OK, "{}", answered.body);
    assert!(app.finish(&id, LIMIT).await.all_text().contains("Ada"));

    conditional_tools(&app, "everything").await;
    let ask =
        json!({"name": "trigger-elicitation-request", "serverName": "everything", "arguments": {}});
    let id = app.start_call(ask).await;
    let polled = question(&app, &id).await;
    let question_id = polled["elicitation"]["id"].as_str().unwrap().to_owned();

    // A poll that starts while a question already waits returns it at once, unless the client
    // says it shows that question (`seen`): then it waits as long as it asked.
    let asked = Instant::now();
    let again = app.get(&format!("/calls/{id}?wait=30")).await;
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(again.body["elicitation"]["id"], question_id.as_str());
    let asked = Instant::now();
    let seen = app
        .get(&format!("/calls/{id}?wait=2&seen={question_id}"))
        .await;
    assert!(
        asked.elapsed() >= Duration::from_millis(1900),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(seen.status, StatusCode::ACCEPTED, "{}", seen.body);
    assert_eq!(seen.body["elicitation"]["id"], question_id.as_str());

    // An answer to an earlier question is refused, naming why; the question still waits.
    let path = format!("/calls/{id}/elicitation");
    let stale = app
        .post(
            &path,
            json!({"action": "decline", "question_id": format!("{question_id}-earlier")}),
        )
        .await;
    assert_eq!(
        stale.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        stale.body
    );
    assert_eq!(
        stale.body["detail"][0]["type"], "stale_question",
        "{}",
        stale.body
    );
    assert_eq!(
        stale.body["detail"][0]["loc"],
        json!(["body", "question_id"])
    );
    let still = app.get(&format!("/calls/{id}?wait=0")).await;
    assert_eq!(
        still.body["elicitation"]["id"],
        question_id.as_str(),
        "{}",
        still.body
    );

    // Cancel reaches the server as a cancel (not a decline), and the call finishes.
    let cancelled = app
        .post(
            &path,
            json!({"action": "cancel", "question_id": question_id}),
        )
        .await;
    assert_eq!(cancelled.status, StatusCode::OK, "{}", cancelled.body);
    assert_eq!(cancelled.body["action"], "cancel");
    let done = app.finish(&id, LIMIT).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    let text = done.all_text();
    assert!(text.contains("cancelled the elicitation"), "{text}");
    assert!(!text.contains("declined"), "{text}");
    // Once answered, there is nothing left to answer.
    let late = app.post(&path, json!({"action": "cancel"})).await;
    assert_eq!(
        late.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        late.body
    );
    app.stop().await;
}

/// A bare server of the tests' own (`tests/support/bare-server.mjs`) whose `ask` asks a form
/// question with a default for every field but one and returns what it got.
fn bare_spec() -> ServerSpec {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/bare-server.mjs");
    stdio_spec("bare", &node, &[script.to_str().unwrap()])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_form_gets_the_schemas_defaults_for_the_fields_it_leaves_out() {
    let app = TestApp::start(vec![bare_spec()]).await;
    let id = app
        .start_call(json!({"name": "ask", "serverName": "bare", "arguments": {}}))
        .await;
    let pending = question(&app, &id).await;
    let answered = app
        .post(
            &format!("/calls/{id}/elicitation"),
            json!({"action": "accept", "content": {"age": 41}}),
        )
        .await;
    assert_eq!(answered.status, StatusCode::OK, "{}", answered.body);
    let done = app.finish(&id, LIMIT).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.body);
    let got: Value = serde_json::from_str(&done.all_text()).unwrap();
    // The given field keeps its value; a field without a default stays out.
    assert_eq!(
        got,
        json!({"action": "accept", "content": {
            "name": "John Doe", "age": 41, "score": 95.5, "status": "active", "verified": true
        }}),
        "asked: {pending}"
    );
    app.stop().await;
}
