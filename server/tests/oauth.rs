//! Signing in to a remote server (OAuth 2.1 with PKCE, as MCP's authorization spec says),
//! against an authorization server and protected MCP server of the tests' own
//! (`common/oauth_server.rs`): discovery, registration, the callback, a tool call with the
//! tokens, refresh, revocation at sign-out; and the bad paths — a wrong or reused `state`,
//! consent denied, an expired code, a token endpoint error, an authorization server that is
//! unreachable, answers garbage or redirects in a loop, a resource of another origin, a
//! callback to a foreign Host, a refused refresh, more sign-ins waiting than the cap, an
//! authorization endpoint whose URL already carries parameters the request sets.

mod common;
#[path = "common/https.rs"]
mod https;
#[path = "common/oauth_server.rs"]
mod oauth_server;

use std::collections::BTreeMap;
use std::time::Duration;

use axum::http::{Method, Request, StatusCode};
use common::{PORT, Req, TestApp};
use http_body_util::BodyExt as _;
use mcp_bridge::config::{ServerSpec, Transport};
use oauth_server::OAuthServer;
use serde_json::{Value, json};
use tower::ServiceExt as _;

fn remote(name: &str, url: String) -> ServerSpec {
    let mut spec = common::demo_spec();
    spec.name = name.to_owned();
    spec.transport = Transport::StreamableHttp {
        url,
        headers: BTreeMap::new(),
        ca_file: None,
        sign_in: Default::default(),
    };
    spec.startup_timeout = Duration::from_secs(20);
    spec
}

/// Send a request to the app; the status and the body as text.
async fn send(app: &TestApp, request: Request<axum::body::Body>) -> (StatusCode, String) {
    let response = mcp_bridge::app(app.state.clone())
        .oneshot(request)
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// `POST /servers/{name}/sign-in`.
async fn sign_in(app: &TestApp, name: &str) -> (StatusCode, Value) {
    let (status, body) = send(
        app,
        Req::new(Method::POST, &format!("/servers/{name}/sign-in")).build(),
    )
    .await;
    (status, serde_json::from_str(&body).unwrap())
}

/// What a browser does with the authorization URL: the authorization server's redirect back
/// to the bridge, as the path and query of the callback.
async fn consent(authorization_url: &str) -> String {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer = client.get(authorization_url).send().await.unwrap();
    assert_eq!(answer.status(), StatusCode::SEE_OTHER, "{answer:?}");
    let location = answer.headers()["location"].to_str().unwrap().to_owned();
    let prefix = format!("http://127.0.0.1:{PORT}/oauth/callback?");
    assert!(location.starts_with(&prefix), "{location}");
    location[prefix.len() - "/oauth/callback?".len()..].to_owned()
}

/// The callback as a browser navigates to it: no token.
fn callback(path: &str) -> Request<axum::body::Body> {
    Req::new(Method::GET, path).auth(None).build()
}

async fn shout(app: &TestApp, text: &str) -> common::Reply {
    app.execute(json!({"name": "shout", "serverName": "wiki", "arguments": {"text": text}}))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_through_the_callback_then_call_a_tool() {
    let server = OAuthServer::start().await;
    let app = TestApp::start(vec![remote("wiki", server.mcp_url())]).await;

    // Before signing in: the call is refused with words for the user.
    let before = shout(&app, "hi").await;
    assert_eq!(
        before.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        before.body
    );
    let error = before.detail()["error"].as_str().unwrap().to_owned();
    assert!(
        error.contains("needs the user to sign in") && error.contains("Sign in"),
        "{error}"
    );

    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let authorization_url = answer["authorization_url"].as_str().unwrap();
    let parsed = url::Url::parse(authorization_url).unwrap();
    let query: std::collections::HashMap<_, _> = parsed.query_pairs().into_owned().collect();
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["client_id"], "registered-client");
    assert_eq!(query["resource"], server.mcp_url());
    assert_eq!(
        query["redirect_uri"],
        format!("http://127.0.0.1:{PORT}/oauth/callback")
    );

    let back = consent(authorization_url).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("signed in to wiki"), "{page}");

    // The same callback again does nothing.
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("already used"), "{page}");

    // The server restarted with the tokens; its tool runs.
    let mut reply = shout(&app, "signed in").await;
    for _ in 0..50 {
        if reply.status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        reply = shout(&app, "signed in").await;
    }
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.text(), "SIGNED IN");

    // No answer holds the access token.
    let issued: Vec<String> = server
        .behaviour
        .lock()
        .unwrap()
        .tokens
        .iter()
        .cloned()
        .collect();
    assert_eq!(issued.len(), 1);
    let tools = app.get("/tools").await;
    assert!(!tools.body.to_string().contains(&issued[0]));
    assert!(!answer.to_string().contains(&issued[0]));

    // Signing out forgets the tokens: the server asks for a sign-in again.
    let (status, body) = send(
        &app,
        Req::new(Method::POST, "/servers/wiki/sign-out").build(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut after = shout(&app, "out").await;
    for _ in 0..50 {
        if after.status != StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        after = shout(&app, "out").await;
    }
    assert_eq!(
        after.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        after.body
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_state_a_foreign_host_and_a_missing_state_do_nothing() {
    let server = OAuthServer::start().await;
    let app = TestApp::start(vec![remote("wiki", server.mcp_url())]).await;
    let (_, answer) = sign_in(&app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;

    // A state the bridge did not issue.
    let forged = back.replace("state=", "state=x");
    let (status, page) = send(&app, callback(&forged)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("unknown"), "{page}");
    // No state at all.
    let (status, _) = send(&app, callback("/oauth/callback?code=abc")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // The right callback sent to another Host (DNS rebinding) is refused before it is read…
    let (status, _) = send(
        &app,
        Req::new(Method::GET, &back)
            .auth(None)
            .host(Some("evil.example:3849"))
            .build(),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // …so it still works from the browser after those.
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    // No token was sent: only the callback route is open, not its neighbours.
    let (status, _) = send(
        &app,
        Req::new(Method::POST, "/servers/wiki/sign-in")
            .auth(None)
            .build(),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denied_consent_and_a_token_endpoint_error_are_said_on_the_page() {
    let server = OAuthServer::start().await;
    let app = TestApp::start(vec![remote("wiki", server.mcp_url())]).await;

    server.behaviour.lock().unwrap().deny = true;
    let (_, answer) = sign_in(&app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;
    assert!(back.contains("error=access_denied"), "{back}");
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        page.contains("did not work") && page.contains("access_denied"),
        "{page}"
    );

    {
        let mut behaviour = server.behaviour.lock().unwrap();
        behaviour.deny = false;
        behaviour.token_error = true;
    }
    let (_, answer) = sign_in(&app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("could not be exchanged"), "{page}");
    assert!(server.behaviour.lock().unwrap().tokens.is_empty());
    // The server still asks for a sign-in.
    assert_eq!(
        shout(&app, "no").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_naming_another_origin_as_the_resource_is_refused() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().foreign_resource =
        Some("https://elsewhere.example/mcp".to_owned());
    let app = TestApp::start(vec![remote("wiki", server.mcp_url())]).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{answer}");
    let error = answer["detail"]["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(error.contains("cannot begin"), "{answer}");
    // Nothing was asked of the authorization server.
    assert!(server.behaviour.lock().unwrap().resources.is_empty());
    app.stop().await;
}

#[tokio::test]
async fn a_local_server_does_not_sign_in_and_no_auth_refuses() {
    let app = TestApp::start(vec![common::demo_spec()]).await;
    let (status, answer) = sign_in(&app, "demo").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    let (status, _) = sign_in(&app, "nothing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    app.stop().await;

    let open = TestApp::start_with(vec![common::demo_spec()], None, Duration::from_secs(60)).await;
    let (status, answer) = sign_in(&open, "demo").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    open.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_about_to_expire_is_refreshed_before_it_is_sent() {
    let server = OAuthServer::start().await;
    // Tokens that expire within rmcp's refresh margin: each use refreshes first.
    server.behaviour.lock().unwrap().expires_in = Some(5);
    let app = TestApp::start(vec![remote("wiki", server.mcp_url())]).await;
    let (_, answer) = sign_in(&app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let mut reply = shout(&app, "fresh").await;
    for _ in 0..50 {
        if reply.status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        reply = shout(&app, "fresh").await;
    }
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.text(), "FRESH");
    {
        let behaviour = server.behaviour.lock().unwrap();
        assert!(behaviour.refreshes >= 1, "no refresh was asked for");
        assert!(behaviour.tokens.len() >= 2);
    }
    app.stop().await;
}

/// A bridge with the remote server `wiki` of `server`, managing a config file in a temporary
/// folder (none is written) so that `GET /servers` answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_ins_waiting_for_the_browser_are_capped_and_the_first_still_completes() {
    let server = OAuthServer::start().await;
    let (app, _dir) = wiki_app(&server).await;
    let mut urls = Vec::new();
    for _ in 0..5 {
        let (status, answer) = sign_in(&app, "wiki").await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        urls.push(answer["authorization_url"].as_str().unwrap().to_owned());
    }
    // A sixth is refused before anything is sent to the authorization server.
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{answer}");
    let error = error_of(&answer);
    assert!(error.contains("5 sign-ins"), "{error}");
    // The refusal is no failed sign-in: the server still only needs one.
    assert_eq!(sign_in_state(&app, "wiki").await["state"], "needs_sign_in");
    let back = consent(&urls[0]).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    // Its place is free again.
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_endpoint_with_its_own_query_gets_each_parameter_once() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().authorize_query = Some(
        "tenant=acme&state=theirs&redirect_uri=https%3A%2F%2Fevil.example%2F&code_challenge=theirs"
            .to_owned(),
    );
    let app = TestApp::start(vec![remote("wiki", server.mcp_url())]).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let authorization_url = answer["authorization_url"].as_str().unwrap();
    let parsed = url::Url::parse(authorization_url).unwrap();
    let pairs: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
    for key in [
        "state",
        "redirect_uri",
        "code_challenge",
        "client_id",
        "response_type",
    ] {
        let values: Vec<&str> = pairs
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(values.len(), 1, "{key} in {authorization_url}");
        assert_ne!(values[0], "theirs", "{authorization_url}");
    }
    // The provider's own parameter is kept; the bridge's callback is the one sent.
    assert!(
        pairs.contains(&("tenant".to_owned(), "acme".to_owned())),
        "{authorization_url}"
    );
    assert!(
        pairs.contains(&(
            "redirect_uri".to_owned(),
            format!("http://127.0.0.1:{PORT}/oauth/callback")
        )),
        "{authorization_url}"
    );
    // And the sign-in completes.
    let back = consent(authorization_url).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let sent = server.behaviour.lock().unwrap().authorize_queries.clone();
    assert_eq!(sent.len(), 1, "{sent:?}");
    app.stop().await;
}

async fn wiki_app(server: &OAuthServer) -> (TestApp, tempfile::TempDir) {
    let mut app = TestApp::start(vec![remote("wiki", server.mcp_url())]).await;
    let dir = tempfile::tempdir().unwrap();
    let manager = mcp_bridge::config::manage::Manager::new(
        dir.path().join("mcp-config.json"),
        app.registry.clone(),
    );
    app.state = app.state.clone().with_manager(std::sync::Arc::new(manager));
    (app, dir)
}

/// Server `name`'s `sign_in` in `GET /servers`.
async fn sign_in_state(app: &TestApp, name: &str) -> Value {
    let servers = app.get("/servers").await;
    servers.body["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {}", servers.body))["sign_in"]
        .clone()
}

/// Sign in to `wiki` through the callback, and wait until its tool answers.
async fn signed_in(app: &TestApp) {
    let (_, answer) = sign_in(app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;
    let (status, page) = send(app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let mut reply = shout(app, "up").await;
    for _ in 0..50 {
        if reply.status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        reply = shout(app, "up").await;
    }
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
}

/// The error of a refused sign-in route.
fn error_of(answer: &Value) -> String {
    answer["detail"]["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_state_is_not_exchanged_twice() {
    let server = OAuthServer::start().await;
    let (app, _dir) = wiki_app(&server).await;
    let (_, answer) = sign_in(&app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let exchanges = server.behaviour.lock().unwrap().token_requests;
    assert_eq!(exchanges, 1);

    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("already used"), "{page}");
    // The code was not sent again, and the sign-in that worked still holds.
    assert_eq!(server.behaviour.lock().unwrap().token_requests, exchanges);
    assert_eq!(sign_in_state(&app, "wiki").await["state"], "signed_in");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_code_refused_by_the_authorization_server_is_said() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().code_lifetime = Some(Duration::from_millis(1));
    let (app, _dir) = wiki_app(&server).await;
    let (_, answer) = sign_in(&app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{page}");
    assert!(
        page.contains("could not be exchanged") && page.contains("invalid_grant"),
        "{page}"
    );
    // The exchange was tried once and the authorization server refused it.
    {
        let behaviour = server.behaviour.lock().unwrap();
        assert_eq!(behaviour.token_requests, 1);
        assert!(behaviour.tokens.is_empty());
    }
    let state = sign_in_state(&app, "wiki").await;
    assert_eq!(state["state"], "failed", "{state}");
    assert!(
        state["reason"]
            .as_str()
            .unwrap()
            .contains("could not be exchanged"),
        "{state}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_authorization_server_is_said() {
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().authorization_server =
        Some(format!("http://127.0.0.1:{dead}"));
    let (app, _dir) = wiki_app(&server).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{answer}");
    let error = error_of(&answer);
    assert!(
        error.contains("its authorization server could not be found")
            && error.contains(&format!("127.0.0.1:{dead}"))
            && error.contains("Connection refused"),
        "{error}"
    );
    // The server's own address was not taken for the authorization server.
    assert!(server.behaviour.lock().unwrap().resources.is_empty());
    let state = sign_in_state(&app, "wiki").await;
    assert_eq!(state["state"], "failed", "{state}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_authorization_server_metadata_is_refused() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().garbage_metadata = true;
    let (app, _dir) = wiki_app(&server).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{answer}");
    let error = error_of(&answer);
    assert!(
        error.contains("its authorization server could not be found")
            && error.contains("none published usable metadata"),
        "{error}"
    );
    // No endpoint was guessed in its place: nothing reached the authorization page.
    assert!(server.behaviour.lock().unwrap().resources.is_empty());
    assert_eq!(sign_in_state(&app, "wiki").await["state"], "failed");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_publishes_no_metadata_gets_no_guessed_sign_in_page() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().no_metadata = true;
    let (app, _dir) = wiki_app(&server).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{answer}");
    let error = error_of(&answer);
    assert!(error.contains("publishes OAuth metadata"), "{error}");
    // Its `/authorize` exists, but nobody was sent there and nothing registered.
    assert!(server.behaviour.lock().unwrap().resources.is_empty());
    assert_eq!(sign_in_state(&app, "wiki").await["state"], "failed");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_redirects_are_followed_and_a_loop_is_refused() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().metadata_redirects = 5;
    let (app, _dir) = wiki_app(&server).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::OK, "{answer}");

    server.behaviour.lock().unwrap().metadata_redirects = usize::MAX;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{answer}");
    let error = error_of(&answer);
    assert!(error.contains("more than 5 redirects"), "{error}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_refresh_turns_the_server_to_needs_sign_in() {
    let server = OAuthServer::start().await;
    // Tokens within rmcp's refresh margin: every use refreshes first.
    server.behaviour.lock().unwrap().expires_in = Some(5);
    let (app, _dir) = wiki_app(&server).await;
    signed_in(&app).await;
    assert_eq!(sign_in_state(&app, "wiki").await["state"], "signed_in");

    server.behaviour.lock().unwrap().refresh_error = true;
    let reply = shout(&app, "again").await;
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        reply.body
    );
    let error = reply.detail()["error"].as_str().unwrap().to_owned();
    assert!(
        error.contains("needs the user to sign in again")
            && error.contains("refused to renew")
            && error.contains("not for you"),
        "{error}"
    );
    assert_eq!(reply.detail()["type"], "SignInRequired", "{}", reply.body);
    let state = sign_in_state(&app, "wiki").await;
    assert_eq!(state["state"], "needs_sign_in", "{state}");
    assert!(
        state["reason"]
            .as_str()
            .unwrap()
            .contains("refused to renew"),
        "{state}"
    );
    // The next call starts the server afresh, without tokens, and meets its challenge: the
    // same report, and no refresh is tried again.
    let refreshes = server.behaviour.lock().unwrap().refreshes;
    let next = shout(&app, "later").await;
    assert_eq!(next.detail()["type"], "SignInRequired", "{}", next.body);
    assert!(
        next.detail()["error"]
            .as_str()
            .unwrap()
            .contains("sign in again"),
        "{}",
        next.body
    );
    assert_eq!(server.behaviour.lock().unwrap().refreshes, refreshes);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_revokes_the_tokens_where_the_server_offers_it() {
    let server = OAuthServer::start().await;
    let (app, _dir) = wiki_app(&server).await;
    signed_in(&app).await;
    let (access, refresh) = {
        let behaviour = server.behaviour.lock().unwrap();
        (
            behaviour.tokens.iter().next().unwrap().clone(),
            behaviour.refresh_tokens_issued(),
        )
    };
    let (status, body) = send(
        &app,
        Req::new(Method::POST, "/servers/wiki/sign-out").build(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["revoked"], true, "{answer}");
    assert!(!body.contains(&access) && !body.contains(&refresh[0]));
    {
        let behaviour = server.behaviour.lock().unwrap();
        assert!(
            behaviour
                .revoked
                .contains(&(refresh[0].clone(), "refresh_token".to_owned())),
            "{:?}",
            behaviour.revoked
        );
        assert!(
            behaviour
                .revoked
                .contains(&(access.clone(), "access_token".to_owned())),
            "{:?}",
            behaviour.revoked
        );
        // The authorization server no longer takes them.
        assert!(behaviour.tokens.is_empty());
    }
    let mut state = sign_in_state(&app, "wiki").await;
    for _ in 0..50 {
        if state["state"] == "needs_sign_in" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        state = sign_in_state(&app, "wiki").await;
    }
    assert_eq!(state["state"], "needs_sign_in", "{state}");
    app.stop().await;
}

/// `mcp-bridge status` run against the bridge of config folder `dir`, its output.
fn status(dir: &std::path::Path) -> String {
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(common::bridge_exe())
        .arg("status")
        .env("HOME", home.path())
        .env("MCP_BRIDGE_CONFIG_DIR", dir)
        .env_remove("MCP_BRIDGE_PORT")
        .env_remove("MCP_BRIDGE_TOKEN")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_prints_each_remote_servers_sign_in() {
    let server = OAuthServer::start().await;
    let mut bridge = common::BridgeProcess::launch(common::Launch {
        config: Some(json!({"mcpServers": {
            "wiki": {"url": server.mcp_url()},
            "demo": common::BridgeProcess::demo_entry(),
        }})),
        ..common::Launch::default()
    });
    bridge.wait_started(Duration::from_secs(30));
    let dir = bridge.dir.path().to_owned();
    let printed = tokio::task::spawn_blocking({
        let dir = dir.clone();
        move || status(&dir)
    })
    .await
    .unwrap();
    assert!(printed.contains("the token is accepted"), "{printed}");
    assert!(
        printed.contains("Sign-in of the remote servers:\n  wiki: needs sign-in ("),
        "{printed}"
    );
    // A local server has no sign-in to print.
    assert!(!printed.contains("  demo:"), "{printed}");

    // Signed in through the running bridge, as the options page and a browser do it.
    let token = std::fs::read_to_string(dir.join("token")).unwrap();
    common::http_ready();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let answer: Value = client
        .post(bridge.url("/servers/wiki/sign-in"))
        .bearer_auth(token.trim())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let authorization_url = answer["authorization_url"].as_str().expect("a URL");
    let back = client.get(authorization_url).send().await.unwrap();
    let callback = back.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        callback.starts_with(&bridge.url("/oauth/callback?")),
        "{callback}"
    );
    let page = client.get(&callback).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let printed = tokio::task::spawn_blocking(move || status(&dir))
        .await
        .unwrap();
    assert!(
        printed.contains("  wiki: signed in — until 20"),
        "{printed}"
    );
    bridge.terminate(Duration::from_secs(10));
}

/// Two authorization servers: `honest`, and `attacker` whose metadata names the honest
/// server's authorization page beside its own token endpoint (a mix-up). The bridge signs in
/// to the attacker's MCP server.
async fn mix_up(
    honest_names_itself: bool,
) -> (OAuthServer, OAuthServer, TestApp, tempfile::TempDir) {
    let honest = OAuthServer::start().await;
    {
        let mut behaviour = honest.behaviour.lock().unwrap();
        behaviour.announce_iss = honest_names_itself;
        behaviour.send_iss = honest_names_itself;
    }
    let attacker = OAuthServer::start().await;
    attacker.behaviour.lock().unwrap().authorization_endpoint =
        Some(format!("{}/authorize", honest.base));
    let (app, dir) = wiki_app(&attacker).await;
    (honest, attacker, app, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_from_another_issuer_is_sent_nowhere() {
    let (honest, attacker, app, _dir) = mix_up(true).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let authorization_url = answer["authorization_url"].as_str().unwrap();
    assert!(authorization_url.starts_with(&honest.base), "{answer}");
    // The user signs in at the honest server, which names itself in its answer.
    let back = consent(authorization_url).await;
    assert!(back.contains("iss="), "{back}");
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{page}");
    assert!(
        page.contains("not from") && page.contains(&attacker.base),
        "{page}"
    );
    // Neither token endpoint saw the code and the verifier.
    assert_eq!(attacker.behaviour.lock().unwrap().token_requests, 0);
    assert_eq!(honest.behaviour.lock().unwrap().token_requests, 0);
    let state = sign_in_state(&app, "wiki").await;
    assert_eq!(state["state"], "failed", "{state}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_page_on_another_origin_than_the_issuer_is_named() {
    // The honest server sends no `iss`: the callback cannot tell whose code it carries, so
    // the sign-in's answer names the page's origin for the user before they go there.
    let (honest, attacker, app, _dir) = mix_up(false).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["authorization_origin"], honest.base, "{answer}");
    assert_eq!(answer["issuer"], attacker.base, "{answer}");
    assert_eq!(answer["authorization_origin_differs"], true, "{answer}");
    app.stop().await;

    // A page on the issuer's own origin is not flagged.
    let server = OAuthServer::start().await;
    let app = TestApp::start(vec![remote("wiki", server.mcp_url())]).await;
    let (status, answer) = sign_in(&app, "wiki").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["authorization_origin"], server.base, "{answer}");
    assert_eq!(answer["issuer"], server.base, "{answer}");
    assert_eq!(answer["authorization_origin_differs"], false, "{answer}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuer_that_names_itself_signs_in_and_an_answer_without_its_name_is_refused() {
    let server = OAuthServer::start().await;
    {
        let mut behaviour = server.behaviour.lock().unwrap();
        behaviour.announce_iss = true;
        behaviour.send_iss = true;
    }
    let (app, _dir) = wiki_app(&server).await;
    // The honest answer, `iss` and all, signs in.
    signed_in(&app).await;
    let exchanged = server.behaviour.lock().unwrap().token_requests;
    assert_eq!(exchanged, 1);

    // It announces `iss`; an answer without it is refused before the code goes anywhere.
    server.behaviour.lock().unwrap().send_iss = false;
    let (_, answer) = sign_in(&app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;
    assert!(!back.contains("iss="), "{back}");
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{page}");
    assert!(page.contains("did not"), "{page}");
    assert_eq!(server.behaviour.lock().unwrap().token_requests, exchanged);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_out_revokes_only_where_the_tokens_came_from() {
    let first = OAuthServer::start().await;
    let (app, _dir) = wiki_app(&first).await;
    signed_in(&app).await;
    let access = first
        .behaviour
        .lock()
        .unwrap()
        .tokens
        .iter()
        .next()
        .unwrap()
        .clone();
    // The server's metadata now names another authorization server.
    let second = OAuthServer::start().await;
    first.behaviour.lock().unwrap().authorization_server = Some(second.base.clone());
    let (status, body) = send(
        &app,
        Req::new(Method::POST, "/servers/wiki/sign-out").build(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["revoked"], true, "{answer}");
    assert!(
        second.behaviour.lock().unwrap().revoked.is_empty(),
        "{:?}",
        second.behaviour.lock().unwrap().revoked
    );
    assert!(
        first
            .behaviour
            .lock()
            .unwrap()
            .revoked
            .contains(&(access, "access_token".to_owned()))
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_endpoints_error_text_is_masked_on_the_page_and_in_the_state() {
    let server = OAuthServer::start().await;
    {
        let mut behaviour = server.behaviour.lock().unwrap();
        behaviour.token_error = true;
        behaviour.error_description = Some("password=hunter2 was wrong".to_owned());
    }
    let (app, _dir) = wiki_app(&server).await;
    let (_, answer) = sign_in(&app, "wiki").await;
    let back = consent(answer["authorization_url"].as_str().unwrap()).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{page}");
    assert!(page.contains("invalid_grant"), "{page}");
    assert!(!page.contains("hunter2"), "{page}");
    let state = sign_in_state(&app, "wiki").await;
    assert_eq!(state["state"], "failed", "{state}");
    let reason = state["reason"].as_str().unwrap();
    assert!(reason.contains("invalid_grant"), "{state}");
    assert!(!reason.contains("hunter2"), "{state}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_secret_is_never_the_bridges_token() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().auth_methods = Some(vec!["client_secret_post".to_owned()]);
    let entry = |variable: &str| json!({"url": server.mcp_url(), "client_id": "bridge-client", "client_secret_env": variable});
    let mut bridge = common::BridgeProcess::launch(common::Launch {
        config: Some(json!({"mcpServers": {
            "copied": entry("COPY_OF_THE_TOKEN"),
            "wiki": entry("WIKI_CLIENT_SECRET"),
        }})),
        args: &["--token", common::TOKEN],
        env: &[
            ("COPY_OF_THE_TOKEN", common::TOKEN),
            ("WIKI_CLIENT_SECRET", "wiki-client-secret-value"),
        ],
        ..common::Launch::default()
    });
    bridge.wait_started(Duration::from_secs(30));
    common::http_ready();

    // The bridge's own variables are refused by name, wherever an entry comes from.
    let (status, answer) = bridge
        .request(
            Method::PUT,
            "/servers/own",
            Some(&entry("MCP_BRIDGE_TOKEN")),
        )
        .await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer.to_string().contains("MCP_BRIDGE_TOKEN"), "{answer}");
    let import = bridge.dir.path().join("other-client.json");
    std::fs::write(
        &import,
        json!({"mcpServers": {
            "own": entry("mcp_bridge_token"),
            "cloud": entry("AWS_SECRET_ACCESS_KEY"),
        }})
        .to_string(),
    )
    .unwrap();
    let (status, preview) = bridge
        .request(
            Method::POST,
            "/servers/import",
            Some(&json!({"from": import})),
        )
        .await;
    assert_eq!(status, 200, "{preview}");
    let candidate = |name: &str| {
        preview["found"]["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {preview}"))
            .clone()
    };
    let own = candidate("own");
    assert_eq!(own["addable"], false, "{own}");
    assert!(
        own["error"].as_str().unwrap().contains("bridge's own"),
        "{own}"
    );
    // An entry that reads a variable says which.
    let cloud = candidate("cloud");
    assert_eq!(cloud["addable"], true, "{cloud}");
    assert_eq!(
        cloud["reads_env"],
        json!(["AWS_SECRET_ACCESS_KEY"]),
        "{cloud}"
    );

    // A variable that holds the token is refused when the sign-in begins.
    let (status, answer) = bridge
        .request(Method::POST, "/servers/copied/sign-in", None)
        .await;
    assert_eq!(status, 503, "{answer}");
    assert!(
        answer.to_string().contains("holds the bridge's token"),
        "{answer}"
    );
    // Another variable's secret goes in the token request's body, as the server offers.
    let (status, answer) = bridge
        .request(Method::POST, "/servers/wiki/sign-in", None)
        .await;
    assert_eq!(status, 200, "{answer}");
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let back = client
        .get(answer["authorization_url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    let callback = back.headers()["location"].to_str().unwrap().to_owned();
    let page = client.get(&callback).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let forms = server.behaviour.lock().unwrap().token_forms.clone();
    assert_eq!(forms.len(), 1, "{forms:?}");
    assert_eq!(
        forms[0].get("client_secret").map(String::as_str),
        Some("wiki-client-secret-value"),
        "{forms:?}"
    );
    assert!(!format!("{forms:?}").contains(common::TOKEN));
    bridge.terminate(Duration::from_secs(10));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_asking_for_a_sign_in_after_the_handshake_needs_one() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().handshake_open = true;
    let (app, _dir) = wiki_app(&server).await;
    let before = shout(&app, "hi").await;
    assert_eq!(before.detail()["type"], "SignInRequired", "{}", before.body);
    assert_eq!(sign_in_state(&app, "wiki").await["state"], "needs_sign_in");
    signed_in(&app).await;
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_refused_for_a_scope_it_lacks_signs_in_again_asking_for_that_scope() {
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().call_scope = Some("wiki:write".to_owned());
    let (app, _dir) = wiki_app(&server).await;
    let (_, answer) = sign_in(&app, "wiki").await;
    let first = answer["authorization_url"].as_str().unwrap().to_owned();
    assert!(!first.contains("wiki%3Awrite"), "{first}");
    let back = consent(&first).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");

    // Signed in, but without the scope the call needs: the server answers 403.
    let mut refused = shout(&app, "up").await;
    for _ in 0..50 {
        if error_of(&refused.body).contains("more access") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        refused = shout(&app, "up").await;
    }
    assert_eq!(
        refused.detail()["type"],
        "SignInRequired",
        "{}",
        refused.body
    );
    assert!(
        error_of(&refused.body).contains("sign in again"),
        "{}",
        refused.body
    );
    assert_eq!(sign_in_state(&app, "wiki").await["state"], "needs_sign_in");

    // The second sign-in asks for the scope the 403 named; then the call runs.
    let (_, answer) = sign_in(&app, "wiki").await;
    let second = answer["authorization_url"].as_str().unwrap().to_owned();
    let query: std::collections::HashMap<_, _> = url::Url::parse(&second)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    assert!(
        query
            .get("scope")
            .is_some_and(|s| s.split(' ').any(|s| s == "wiki:write")),
        "{second}"
    );
    let back = consent(&second).await;
    let (status, page) = send(&app, callback(&back)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let mut reply = shout(&app, "wider").await;
    for _ in 0..50 {
        if reply.status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        reply = shout(&app, "wider").await;
    }
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    assert_eq!(reply.text(), "WIDER");
    app.stop().await;
}
