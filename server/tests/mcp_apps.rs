//! MCP App views (the `io.modelcontextprotocol/ui` extension), against the real
//! `@modelcontextprotocol/server-basic-vanillajs` from npm: a tool's view is listed with the
//! tool, the `ui://` resource it names reads as the server's HTML, and it is served once, to a
//! frame without the token, from a one-time address with the policies the resource declares;
//! a tool only its view may call is listed and never run by `/execute`.

mod common;

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::{Req, TestApp, require_on_path, stdio_spec};
use http_body_util::BodyExt as _;
use mcp_bridge_protocol::requests::ReadResource;
use serde_json::Value;
use tower::ServiceExt as _;

const LIMIT: Duration = Duration::from_secs(60);

/// The bridge with the example MCP App server, and the tools it lists once they are read.
async fn app_server() -> (TestApp, Vec<Value>) {
    let exe = require_on_path(
        "mcp-server-basic-vanillajs",
        "run ./build.sh setup (npm install at the repository root)",
    );
    let app = TestApp::start(vec![stdio_spec("clock", &exe, &["--stdio"])]).await;
    let deadline = Instant::now() + LIMIT;
    loop {
        let reply = app.get("/tools?serverName=clock").await;
        if let Some(tools) = reply.body["tools"]["tools"]
            .as_array()
            .filter(|t| !t.is_empty())
        {
            return (app, tools.clone());
        }
        assert!(Instant::now() < deadline, "no tools: {}", reply.body);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_tools_view_is_listed_with_it_and_its_ui_resource_reads_as_html() {
    let (app, tools) = app_server().await;
    let with_view: Vec<&Value> = tools.iter().filter(|t| t.get("ui").is_some()).collect();
    assert!(!with_view.is_empty(), "{tools:?}");
    for tool in &with_view {
        let ui = &tool["ui"];
        assert!(
            ui["resourceUri"].as_str().unwrap().starts_with("ui://"),
            "{ui}"
        );
        assert_eq!(
            ui["visibility"],
            serde_json::json!(["model", "app"]),
            "{ui}"
        );
    }
    let uri = with_view[0]["ui"]["resourceUri"].clone();
    let read = ReadResource {
        server_name: Some("clock"),
        uri: &uri,
    };
    let html = app.send_as("/resources/read", read).await;
    assert_eq!(html.status, StatusCode::OK, "{}", html.body);
    let content = &html.body["contents"][0];
    assert_eq!(
        content["mimeType"], "text/html;profile=mcp-app",
        "{content}"
    );
    assert!(
        content["text"].as_str().unwrap().contains("<html"),
        "{content}"
    );
    app.stop().await;
}

/// A request as a frame's navigation makes it: the right Host, no token, no Origin.
async fn navigate(
    app: &TestApp,
    path: &str,
    origin: Option<&str>,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let mut req = Req::new(Method::GET, path).auth(None);
    if let Some(origin) = origin {
        req = req.header("origin", origin);
    }
    let request: Request<Body> = req.build();
    let response = mcp_bridge::app(app.state.clone())
        .oneshot(request)
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

#[tokio::test]
async fn a_view_is_served_once_to_a_frame_with_its_policies_and_never_without_the_token_to_mint() {
    let (app, tools) = app_server().await;
    let uri = tools
        .iter()
        .find_map(|t| t["ui"]["resourceUri"].as_str())
        .expect("a tool with a view")
        .to_owned();
    let ask = serde_json::json!({"serverName": "clock", "uri": uri});

    // Only the extension, with the token, gets an address.
    let no_token = Req::new(Method::POST, "/views")
        .auth(None)
        .body(Some(&ask.to_string()))
        .build();
    assert_eq!(app.raw(no_token).await.status, StatusCode::UNAUTHORIZED);
    let not_a_view = app
        .post(
            "/views",
            serde_json::json!({"serverName": "clock", "uri": "file:///etc/passwd"}),
        )
        .await;
    assert_eq!(
        not_a_view.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        not_a_view.body
    );

    let minted = app.post("/views", ask.clone()).await;
    assert_eq!(minted.status, StatusCode::OK, "{}", minted.body);
    assert_eq!(minted.body["server"], "clock");
    let url = minted.body["url"].as_str().unwrap().to_owned();
    let path = url
        .strip_prefix(&format!("http://127.0.0.1:{}", common::PORT))
        .expect(&url)
        .to_owned();
    let id = path.strip_prefix("/views/").expect(&path);
    assert!(
        id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{url}"
    );

    // A web page's request (it names its origin) is refused, and does not use the address up.
    let (status, _, _) = navigate(&app, &path, Some("https://chat.example.com")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let (status, headers, html) = navigate(&app, &path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("<html"), "{html:.200}");
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert!(header("content-type").starts_with("text/html"));
    let csp = header("content-security-policy");
    for directive in [
        "default-src 'none'",
        "script-src 'unsafe-inline'",
        "connect-src 'none'",
        "frame-src 'none'",
        "form-action 'none'",
        "sandbox allow-scripts",
    ] {
        assert!(csp.contains(directive), "{directive}: {csp}");
    }
    assert!(header("permissions-policy").contains("camera=()"));
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("cache-control"), "no-store");

    // Once only.
    let (again, _, _) = navigate(&app, &path, None).await;
    assert_eq!(again, StatusCode::NOT_FOUND);
    app.stop().await;
}

#[tokio::test]
async fn a_tool_for_its_view_only_is_listed_but_never_run_from_the_chat() {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/odd-server.mjs");
    let app = TestApp::start(vec![stdio_spec("odd", &node, &[script.to_str().unwrap()])]).await;
    let listed = app.get("/tools?serverName=odd").await;
    let tick = listed.body["tools"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "view-tick"))
        .cloned()
        .unwrap_or_else(|| panic!("listed: {}", listed.body));
    assert_eq!(tick["ui"]["visibility"], serde_json::json!(["app"]));

    // Named or not, the call is refused as a tool the server does not offer the AI, and the
    // refusal does not suggest it.
    for body in [
        serde_json::json!({"name": "view-tick", "serverName": "odd", "arguments": {}}),
        serde_json::json!({"name": "view-tick", "arguments": {}}),
    ] {
        let reply = app.execute(body.clone()).await;
        assert_eq!(
            reply.status,
            StatusCode::NOT_FOUND,
            "{body}: {}",
            reply.body
        );
        let detail = reply.detail();
        assert_eq!(detail["type"], "ToolNotFound", "{}", reply.body);
        assert!(!reply.body.to_string().contains("ticked"), "{}", reply.body);
        let suggested = detail["facts"].to_string();
        assert!(!suggested.contains("view-tick"), "{suggested}");
    }
    // Its other tools run as ever.
    let reply = app
        .execute(serde_json::json!({"name": "good-weather", "serverName": "odd", "arguments": {}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    app.stop().await;
}
