//! MCP App views (the `io.modelcontextprotocol/ui` extension), against the real
//! `@modelcontextprotocol/server-basic-vanillajs` from npm: a tool's view is listed with the
//! tool, and the `ui://` resource it names reads as the server's HTML.

mod common;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::{TestApp, require_on_path, stdio_spec};
use mcp_bridge_protocol::requests::ReadResource;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

#[tokio::test]
async fn a_tools_view_is_listed_with_it_and_its_ui_resource_reads_as_html() {
    let exe = require_on_path(
        "mcp-server-basic-vanillajs",
        "run ./build.sh setup (npm install at the repository root)",
    );
    let app = TestApp::start(vec![stdio_spec("clock", &exe, &["--stdio"])]).await;
    let deadline = Instant::now() + LIMIT;
    let tools = loop {
        let reply = app.get("/tools?serverName=clock").await;
        if let Some(tools) = reply.body["tools"]["tools"]
            .as_array()
            .filter(|t| !t.is_empty())
        {
            break tools.clone();
        }
        assert!(Instant::now() < deadline, "no tools: {}", reply.body);
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
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
