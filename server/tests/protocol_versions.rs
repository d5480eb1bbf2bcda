//! The protocol revision the bridge names and accepts: its `initialize` names the newest
//! revision that has an `initialize`, and a server that answers with a version no revision
//! has is refused with the versions the bridge speaks. Against a bare server of the tests' own
//! (`tests/support/bare-server.mjs`), which answers whatever it is told to.

mod common;

use std::path::PathBuf;

use axum::http::StatusCode;
use common::{TestApp, require_on_path, stdio_spec};
use mcp_bridge::config::ServerSpec;
use serde_json::json;

fn probe(answer: Option<&str>) -> ServerSpec {
    let node = require_on_path("node", "install Node.js (./build.sh setup)");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/bare-server.mjs");
    let mut args = vec![script.to_str().unwrap().to_owned()];
    args.extend(answer.map(str::to_owned));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    stdio_spec("probe", &node, &args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_names_the_newest_revision_that_has_an_initialize() {
    let app = TestApp::start(vec![probe(None)]).await;
    let reply = app
        .execute(json!({"name": "seen", "serverName": "probe", "arguments": {}}))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.text(), "2025-11-25");
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
