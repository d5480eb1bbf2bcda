//! Remote MCP servers (`"type": "streamable-http"`, `url`, `headers`): the npm
//! `server-everything` in streamable HTTP mode, driven in-process with `oneshot`; and the legacy
//! SSE transport, which is reported as unavailable with what to do.

mod common;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

use axum::http::StatusCode;
use common::{TestApp, require_on_path};
use mcp_bridge::config::{ServerSpec, Transport};
use serde_json::json;

fn remote_spec(name: &str, transport: Transport) -> ServerSpec {
    let mut spec = common::demo_spec();
    spec.name = name.to_owned();
    spec.transport = transport;
    spec.startup_timeout = Duration::from_secs(30);
    spec
}

struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_server_with_headers() {
    let exe = require_on_path(
        "mcp-server-everything",
        "run ./build.sh setup (npm install at the repository root)",
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(exe)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Killed(child);
    let deadline = std::time::Instant::now() + common::START_LIMIT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "server-everything did not start listening on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    let spec = remote_spec(
        "remote",
        Transport::StreamableHttp {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: BTreeMap::from([("X-Api-Key".to_owned(), "remote-secret-123".to_owned())]),
            ca_file: None,
            sign_in: Default::default(),
        },
    );
    let app = TestApp::start(vec![spec]).await;
    let reply = app
        .execute(
            json!({"name": "echo", "serverName": "remote", "arguments": {"message": "over http"}}),
        )
        .await;
    assert!(reply.text().contains("over http"), "{}", reply.body);

    // The remote server goes away: a clean error, never a crash report with a stack of ours.
    let _ = server.0.kill();
    let _ = server.0.wait();
    let reply = app
        .execute(json!({"name": "echo", "serverName": "remote", "arguments": {"message": "gone"}}))
        .await;
    assert!(
        [
            StatusCode::BAD_GATEWAY,
            StatusCode::SERVICE_UNAVAILABLE,
            StatusCode::GATEWAY_TIMEOUT
        ]
        .contains(&reply.status),
        "{} {}",
        reply.status,
        reply.body
    );
    assert!(!reply.body.to_string().contains("remote-secret-123"));
    app.stop().await;
}

#[tokio::test]
async fn legacy_sse_servers_are_unavailable_with_advice() {
    let spec = remote_spec(
        "old",
        Transport::Sse {
            url: "http://127.0.0.1:9/sse".to_owned(),
            headers: BTreeMap::new(),
        },
    );
    let app = TestApp::start(vec![spec, common::demo_spec()]).await;
    let reply = app.execute(json!({"name": "x", "serverName": "old"})).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    let detail = reply.detail();
    assert_eq!(detail["type"], "ServerUnavailable");
    assert!(
        detail["error"]
            .as_str()
            .unwrap()
            .contains("streamable-http"),
        "{detail}"
    );
    // The other server works.
    assert_eq!(
        app.execute(json!({"name": "echo", "arguments": {"text": "fine"}}))
            .await
            .text(),
        "fine"
    );
    app.stop().await;
}
