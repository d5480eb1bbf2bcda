//! Signing in to a server the bridge's authors did not write: the example streamable HTTP
//! server of the MCP TypeScript SDK (`@modelcontextprotocol/sdk` from npm, a pinned dev
//! dependency) run with `--oauth`, its demo authorization server on a port of its own. The
//! sign-in route, its authorization page followed as a browser does, the callback, then a
//! tool call with the tokens. Without `node` the tests fail, naming what to install. And the
//! same provider as the honest side of a mix-up: another authorization server's metadata
//! naming its authorization page.

mod common;
#[path = "common/https.rs"]
mod https;
#[path = "common/oauth_server.rs"]
mod oauth_server;

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::http::{Method, StatusCode};
use common::{PORT, Req, TestApp};
use http_body_util::BodyExt as _;
use mcp_bridge::config::{ServerSpec, Transport};
use serde_json::{Value, json};
use tower::ServiceExt as _;

/// The SDK's example server, stopped when dropped.
struct SdkServer {
    child: Child,
    mcp_port: u16,
    auth_port: u16,
}

impl Drop for SdkServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The example's script in the repository's `node_modules`.
fn example() -> PathBuf {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js");
    assert!(
        script.is_file(),
        "{} is missing: run ./build.sh setup (npm installs @modelcontextprotocol/sdk)",
        script.display()
    );
    script
}

/// Start the example with its demo OAuth provider (fails when `node` is not installed).
fn start_sdk_server() -> SdkServer {
    let node = common::require_on_path("node", "install Node.js (./build.sh setup)");
    let (mcp_port, auth_port) = (free_port(), free_port());
    let mut child = Command::new(node)
        .arg(example())
        .arg("--oauth")
        .env("MCP_PORT", mcp_port.to_string())
        .env("MCP_AUTH_PORT", auth_port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start node");
    let stdout = child.stdout.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = sender.send(line);
        }
    });
    let server = SdkServer {
        child,
        mcp_port,
        auth_port,
    };
    // Both servers say when they listen.
    let mut listening = 0;
    while listening < 2 {
        let line = receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("the SDK's example server did not start");
        if line.contains("listening on port") {
            listening += 1;
        }
    }
    server
}

/// Send a request to the app; the status and the body as text.
async fn send(
    app: &TestApp,
    request: axum::http::Request<axum::body::Body>,
) -> (StatusCode, String) {
    let response = mcp_bridge::app(app.state.clone())
        .oneshot(request)
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_to_the_sdk_example_server_then_call_its_tool() {
    let sdk = start_sdk_server();
    // The example names itself `localhost` in its metadata; the bridge is told the same.
    let url = format!("http://localhost:{}/mcp", sdk.mcp_port);
    let mut spec = common::demo_spec();
    spec.name = "sdk".to_owned();
    spec.transport = Transport::StreamableHttp {
        url: url.clone(),
        headers: BTreeMap::new(),
        ca_file: None,
        sign_in: Default::default(),
    };
    spec.startup_timeout = Duration::from_secs(20);
    let app = TestApp::start(vec![spec as ServerSpec]).await;
    let greet = json!({"name": "greet", "serverName": "sdk", "arguments": {"name": "bridge"}});

    let before = app.execute(greet.clone()).await;
    assert_eq!(
        before.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        before.body
    );
    assert_eq!(before.detail()["type"], "SignInRequired", "{}", before.body);

    let (status, body) = send(&app, Req::new(Method::POST, "/servers/sdk/sign-in").build()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    let authorization_url = answer["authorization_url"].as_str().unwrap();
    assert!(
        authorization_url.starts_with(&format!("http://localhost:{}/authorize?", sdk.auth_port)),
        "{authorization_url}"
    );
    // Its page is on its issuer's origin: nothing to warn of.
    assert_eq!(answer["authorization_origin_differs"], false, "{answer}");

    // The browser opens the authorization page; the demo provider consents at once and
    // redirects to the bridge's callback.
    common::http_ready();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let page = browser.get(authorization_url).send().await.unwrap();
    assert!(page.status().is_redirection(), "{page:?}");
    let location = page.headers()["location"].to_str().unwrap().to_owned();
    let prefix = format!("http://127.0.0.1:{PORT}/oauth/callback?");
    assert!(location.starts_with(&prefix), "{location}");
    let callback = &location[prefix.len() - "/oauth/callback?".len()..];
    let (status, page) = send(&app, Req::new(Method::GET, callback).auth(None).build()).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("signed in to sdk"), "{page}");

    let mut reply = app.execute(greet.clone()).await;
    for _ in 0..50 {
        if reply.status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        reply = app.execute(greet.clone()).await;
    }
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.text(), "Hello, bridge!");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_naming_the_sdk_providers_page_beside_another_token_endpoint_is_named() {
    let sdk = start_sdk_server();
    // The attacker's own MCP server and authorization server, whose metadata names the SDK
    // provider's authorization page. The provider sends no `iss`, so the callback could not
    // tell its code apart: the sign-in's answer names the page's origin for the user.
    let attacker = oauth_server::OAuthServer::start().await;
    let honest_page = format!("http://localhost:{}/authorize", sdk.auth_port);
    attacker.behaviour.lock().unwrap().authorization_endpoint = Some(honest_page);
    let mut spec = common::demo_spec();
    spec.name = "wiki".to_owned();
    spec.transport = Transport::StreamableHttp {
        url: attacker.mcp_url(),
        headers: BTreeMap::new(),
        ca_file: None,
        sign_in: Default::default(),
    };
    spec.startup_timeout = Duration::from_secs(20);
    let app = TestApp::start(vec![spec]).await;
    let (status, body) = send(
        &app,
        Req::new(Method::POST, "/servers/wiki/sign-in").build(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        answer["authorization_origin"],
        format!("http://localhost:{}", sdk.auth_port),
        "{answer}"
    );
    assert_eq!(answer["issuer"], attacker.base, "{answer}");
    assert_eq!(answer["authorization_origin_differs"], true, "{answer}");
    app.stop().await;
}
