//! Remote servers over HTTPS: rustls with Mozilla's roots and a server's own `ca_file`, against
//! rmcp's streamable HTTP server behind TLS with a certificate authority made for the run; a
//! certificate for another name or from an unknown authority is refused in words, and plain
//! http:// goes only to this computer.

mod common;
#[path = "common/https.rs"]
mod https;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use axum::http::StatusCode;
use common::TestApp;
use https::{HttpsServer, TestCa};
use mcp_bridge::config::{ServerSpec, Transport};
use serde_json::json;

fn remote(name: &str, url: String, ca_file: Option<PathBuf>) -> ServerSpec {
    let mut spec = common::demo_spec();
    spec.name = name.to_owned();
    spec.transport = Transport::StreamableHttp {
        url,
        headers: BTreeMap::new(),
        ca_file,
        sign_in: Default::default(),
    };
    spec.startup_timeout = Duration::from_secs(20);
    spec
}

/// The error `/execute` answers for a server that could not start.
async fn start_error(app: &TestApp, server: &str) -> String {
    let reply = app
        .execute(json!({"name": "shout", "serverName": server, "arguments": {"text": "hi"}}))
        .await;
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        reply.body
    );
    reply.detail()["error"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_with_the_servers_own_ca_works_and_other_certificates_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("MCP Bridge test CA");
    let ca_file = ca.write_pem(dir.path());
    let server = HttpsServer::start(&ca, &["localhost"]).await;
    let port = server.port;

    let app = TestApp::start(vec![
        remote(
            "trusted",
            format!("https://localhost:{port}/mcp"),
            Some(ca_file.clone()),
        ),
        // The same server without its CA: an authority nobody trusts.
        remote("unknown-ca", format!("https://localhost:{port}/mcp"), None),
        // The certificate names `localhost` only, not the address.
        remote(
            "wrong-name",
            format!("https://127.0.0.1:{port}/mcp"),
            Some(ca_file),
        ),
    ])
    .await;

    let reply = app
        .execute(
            json!({"name": "shout", "serverName": "trusted", "arguments": {"text": "over tls"}}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.text(), "OVER TLS");

    let unknown = start_error(&app, "unknown-ca").await;
    assert!(
        unknown.contains("not signed by an authority this bridge trusts")
            && unknown.contains("`ca_file`"),
        "{unknown}"
    );
    let wrong = start_error(&app, "wrong-name").await;
    assert!(wrong.contains("not valid for the host name"), "{wrong}");
    app.stop().await;
}

#[tokio::test]
async fn plain_http_to_another_computer_is_refused_before_connecting() {
    let app = TestApp::start(vec![
        remote("plain", "http://mcp.example.com/mcp".to_owned(), None),
        common::demo_spec(),
    ])
    .await;
    let error = start_error(&app, "plain").await;
    assert!(
        error.contains("plain http://") && error.contains("use https://"),
        "{error}"
    );
    // The other server is not held up.
    assert_eq!(
        app.execute(json!({"name": "echo", "arguments": {"text": "fine"}}))
            .await
            .text(),
        "fine"
    );
    app.stop().await;
}

#[tokio::test]
async fn a_ca_file_that_cannot_be_read_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere.pem");
    let app = TestApp::start(vec![remote(
        "private",
        "https://localhost:9/mcp".to_owned(),
        Some(missing),
    )])
    .await;
    let error = start_error(&app, "private").await;
    assert!(
        error.contains("`ca_file`") && error.contains("nowhere.pem"),
        "{error}"
    );
    app.stop().await;
}
