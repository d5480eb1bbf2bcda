//! Who may use the bridge (docs/SECURITY.md): token, web origins, foreign hosts, body size,
//! CORS for extension origins only — driven in-process with `oneshot`.

mod common;

use std::time::Duration;

use axum::http::{Method, StatusCode};
use common::{Req, TOKEN, TestApp};
use serde_json::json;

#[tokio::test]
async fn the_token_is_required_everywhere_but_health() {
    let app = TestApp::demo().await;
    for (method, path) in [
        (Method::GET, "/tools"),
        (Method::GET, "/tool-detail?toolName=echo"),
        (Method::POST, "/execute"),
        (Method::POST, "/reset-history"),
        (Method::GET, "/history"),
        (Method::GET, "/calls/abc"),
        (Method::POST, "/views"),
        // A view's address is open to a frame's navigation (GET) only.
        (Method::POST, "/views/abc"),
        (Method::GET, "/no-such-route"),
    ] {
        let reply = app
            .raw(Req::new(method.clone(), path).auth(None).build())
            .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{method} {path}");
        let detail = reply.detail();
        assert_eq!(detail["type"], "Unauthorized");
        assert_eq!(
            detail["facts"],
            serde_json::json!({"reason": "missing-token"})
        );
        assert!(
            detail["error"]
                .as_str()
                .unwrap()
                .contains("Authorization: Bearer")
        );

        let reply = app
            .raw(
                Req::new(method.clone(), path)
                    .auth(Some("Bearer wrong"))
                    .build(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{method} {path}");
        assert_eq!(reply.detail()["facts"]["reason"], "wrong-token");
        assert!(
            !reply.body.to_string().contains(TOKEN),
            "the token never leaks"
        );
    }
    let reply = app
        .raw(Req::new(Method::GET, "/health").auth(None).build())
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn no_auth_mode_accepts_requests_without_a_token() {
    let app = TestApp::start_with(vec![common::demo_spec()], None, Duration::from_secs(60)).await;
    let reply = app
        .raw(Req::new(Method::GET, "/tools").auth(None).build())
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn web_origins_are_refused_extension_origins_get_cors() {
    let app = TestApp::demo().await;
    for origin in ["https://chat.deepseek.com", "http://localhost:3000", "null"] {
        let reply = app
            .raw(
                Req::new(Method::GET, "/tools")
                    .header("origin", origin)
                    .build(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{origin}");
        assert_eq!(reply.detail()["type"], "Forbidden");
        // Even /health: a web page learns nothing.
        let reply = app
            .raw(
                Req::new(Method::GET, "/health")
                    .header("origin", origin)
                    .build(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{origin}");
    }
    // A web page cannot run a tool even with the token.
    let reply = app
        .raw(
            Req::new(Method::POST, "/execute")
                .header("origin", "https://evil.example")
                .body(Some(
                    &json!({"name": "echo", "arguments": {"text": "x"}}).to_string(),
                ))
                .build(),
        )
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);

    for origin in [
        "chrome-extension://abcdefghijklmnop",
        "moz-extension://1234-abcd",
    ] {
        let reply = app
            .raw(
                Req::new(Method::GET, "/tools")
                    .header("origin", origin)
                    .build(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{origin}");
        assert_eq!(
            reply.headers.get("access-control-allow-origin").unwrap(),
            origin
        );
        let (status, headers) = app
            .preflight(
                Req::new(Method::OPTIONS, "/execute")
                    .auth(None)
                    .header("origin", origin)
                    .header("access-control-request-method", "POST")
                    .header(
                        "access-control-request-headers",
                        "authorization,content-type",
                    )
                    .build(),
            )
            .await;
        assert!(status.is_success(), "{origin}: {status}");
        let allowed = headers
            .get("access-control-allow-headers")
            .unwrap()
            .to_str()
            .unwrap()
            .to_ascii_lowercase();
        assert!(allowed.contains("authorization"), "{allowed}");
        // A wrong token is refused in a way the extension can read (Firefox applies CORS
        // to extension pages), so it can tell the user the token is wrong.
        let reply = app
            .raw(
                Req::new(Method::GET, "/tools")
                    .auth(Some("wrong-token"))
                    .header("origin", origin)
                    .build(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{origin}");
        assert_eq!(
            reply.headers.get("access-control-allow-origin").unwrap(),
            origin
        );
    }
    app.stop().await;
}

#[tokio::test]
async fn foreign_hosts_are_refused() {
    let app = TestApp::demo().await;
    for host in ["evil.example:3849", "127.0.0.1:8080", "attacker.test"] {
        let reply = app
            .raw(Req::new(Method::GET, "/tools").host(Some(host)).build())
            .await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{host}");
        assert!(
            reply.detail()["error"]
                .as_str()
                .unwrap()
                .contains("DNS rebinding")
        );
    }
    let reply = app
        .raw(Req::new(Method::GET, "/tools").host(None).build())
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    for host in ["localhost:3849", "[::1]:3849", "127.0.0.1:3849"] {
        let reply = app
            .raw(Req::new(Method::GET, "/tools").host(Some(host)).build())
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{host}");
    }
    app.stop().await;
}

#[tokio::test]
async fn oversized_bodies_are_413_in_json() {
    let app = TestApp::demo().await;
    let big = "x".repeat(mcp_bridge::security::BODY_LIMIT + 1);
    let body = json!({"name": "echo", "arguments": {"text": big}}).to_string();
    // With a Content-Length header (refused before reading).
    let reply = app
        .raw(
            Req::new(Method::POST, "/execute")
                .header("content-length", &body.len().to_string())
                .body(Some(&body))
                .build(),
        )
        .await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.detail()["type"], "PayloadTooLarge");
    // Without one (refused while reading).
    let reply = app
        .raw(Req::new(Method::POST, "/execute").body(Some(&body)).build())
        .await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.detail()["type"], "PayloadTooLarge");
    // Just under the limit is fine (the echo, being large, comes back page by page).
    let text = "y".repeat(mcp_bridge::security::BODY_LIMIT - 100);
    let reply = app
        .execute(json!({"name": "echo", "arguments": {"text": text}}))
        .await;
    assert!(text.starts_with(&reply.text()));
    assert_eq!(reply.body["page"]["total_chars"], text.len());
    app.stop().await;
}

/// The status line of a raw request to a real bridge.
fn raw_status(bridge: &common::BridgeProcess, request: &str) -> String {
    let reply = common::http_raw(bridge.port, request, Duration::from_secs(10));
    reply.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn preflights_from_web_origins_or_to_foreign_hosts_are_refused() {
    let bridge = common::BridgeProcess::start(None, &[]);
    let port = bridge.port;
    let preflight = |host: &str, origin: &str| {
        format!(
            "OPTIONS /tools HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\nAccess-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: authorization\r\nConnection: close\r\n\r\n"
        )
    };
    let local = format!("127.0.0.1:{port}");
    let status = raw_status(&bridge, &preflight(&local, "https://evil.example"));
    assert!(status.contains(" 403 "), "web origin preflight: {status}");
    let status = raw_status(
        &bridge,
        &preflight(&format!("evil.example:{port}"), "chrome-extension://abc"),
    );
    assert!(status.contains(" 403 "), "foreign host preflight: {status}");
    let status = raw_status(&bridge, &preflight(&local, "chrome-extension://abc"));
    assert!(
        status.contains(" 200 "),
        "the extension's preflight still works: {status}"
    );
}

#[test]
fn doubled_host_or_origin_headers_are_refused() {
    let bridge = common::BridgeProcess::start(None, &[]);
    let port = bridge.port;
    let status = raw_status(
        &bridge,
        &format!(
            "GET /tools HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
        ),
    );
    assert!(
        status.contains(" 403 ") || status.contains(" 400 "),
        "two Host headers: {status}"
    );
    let status = raw_status(
        &bridge,
        &format!(
            "GET /tools HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: chrome-extension://abc\r\nOrigin: https://evil.example\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
        ),
    );
    assert!(status.contains(" 403 "), "two Origin headers: {status}");
    let status = raw_status(
        &bridge,
        &format!(
            "GET /tools HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: chrome-extension://abc\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
        ),
    );
    assert!(status.contains(" 200 "), "one of each is fine: {status}");
}

/// `/health?challenge=N` proves, without a token, that this bridge holds the token: the
/// HMAC of the nonce and the port, which a stranger on the port cannot compute.
#[tokio::test]
async fn health_proves_the_token_to_a_challenge() {
    let app = TestApp::demo().await;
    let nonce = mcp_bridge::proof::new_nonce();
    let reply = app
        .raw(
            Req::new(Method::GET, &format!("/health?challenge={nonce}"))
                .auth(None)
                .build(),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.body["auth"], "token");
    let proof = reply.body["proof"].as_str().unwrap();
    assert!(mcp_bridge::proof::verify(
        TOKEN,
        common::PORT,
        &nonce,
        proof
    ));
    assert!(!mcp_bridge::proof::verify(
        "another-token",
        common::PORT,
        &nonce,
        proof
    ));
    assert!(!reply.body.to_string().contains(TOKEN));

    // Without a challenge, no proof; a malformed one is refused.
    let plain = app
        .raw(Req::new(Method::GET, "/health").auth(None).build())
        .await;
    assert!(plain.body.get("proof").is_none(), "{}", plain.body);
    for bad in [
        "short",
        "has%20space%20in%20it%20xxxxxxxx",
        &"a".repeat(200),
    ] {
        let reply = app
            .raw(
                Req::new(Method::GET, &format!("/health?challenge={bad}"))
                    .auth(None)
                    .build(),
            )
            .await;
        assert_eq!(
            reply.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{bad}: {}",
            reply.body
        );
    }
    app.stop().await;

    // A --no-auth bridge has no token to prove: it says so, and proves nothing.
    let open = TestApp::start_with(vec![common::demo_spec()], None, Duration::from_secs(60)).await;
    let reply = open
        .raw(
            Req::new(Method::GET, &format!("/health?challenge={nonce}"))
                .auth(None)
                .build(),
        )
        .await;
    assert_eq!(reply.body["auth"], "none", "{}", reply.body);
    assert!(reply.body.get("proof").is_none());
    open.stop().await;
}
