//! Signing in without the browser (`sign_in.grant`), and the bridge's Client ID Metadata
//! Document, against the tests' own authorization server (`common/oauth_server.rs`) and the
//! real bridge binary: client credentials with a secret sent as the provider's metadata says
//! (HTTP Basic when it offers only that), with a JWT signed by a key from a file, a new token
//! after the server refuses the old one, a secret refused by the provider said as a start
//! failure, cross-app access (an ID token from a file exchanged for an ID-JAG, then for the
//! token; the file re-read for each new token), and `client_metadata_url` used as the client
//! id where the provider takes it.

mod common;
#[path = "common/https.rs"]
mod https;
#[path = "common/oauth_server.rs"]
mod oauth_server;

use std::time::Duration;

use axum::http::Method;
use oauth_server::OAuthServer;
use serde_json::{Value, json};

/// The bridge with `config`, `env`, and `files` (name, text) in its config folder.
fn launch(config: Value, env: &[(&str, &str)], files: &[(&str, &str)]) -> common::BridgeProcess {
    let write_files = |dir: &std::path::Path| {
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
    };
    let bridge = common::BridgeProcess::launch(common::Launch {
        config: Some(config),
        args: &["--token", common::TOKEN],
        env,
        prepare: Some(&write_files),
    });
    bridge.wait_started(Duration::from_secs(30));
    common::http_ready();
    bridge
}

async fn shout(bridge: &common::BridgeProcess, text: &str) -> (u16, Value) {
    bridge
        .execute(json!({"name": "shout", "serverName": "wiki", "arguments": {"text": text}}))
        .await
}

/// A provider that takes the client `robot` with `secret`, authenticated by `method`, and a
/// bridge whose server `wiki` signs in to it as `robot` with `given` as its secret (from the
/// environment, as a user sets it).
async fn robot(method: &str, secret: &str, given: &str) -> (OAuthServer, common::BridgeProcess) {
    let server = OAuthServer::start().await;
    {
        let mut behaviour = server.behaviour.lock().unwrap();
        behaviour.auth_methods = Some(vec![method.to_owned()]);
        behaviour.machine_client = Some(("robot".to_owned(), secret.to_owned()));
    }
    let bridge = launch(
        json!({"mcpServers": {"wiki": {
            "url": server.mcp_url(),
            "client_id": "robot",
            "client_secret_env": "WIKI_ROBOT_SECRET",
            "sign_in": {"grant": "client_credentials"},
        }}}),
        &[("WIKI_ROBOT_SECRET", given)],
        &[],
    );
    (server, bridge)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_with_a_secret_over_basic_then_a_new_token_after_a_401() {
    let (server, bridge) = robot(
        "client_secret_basic",
        "robot-secret-value",
        "robot-secret-value",
    )
    .await;

    let (status, answer) = shout(&bridge, "hi").await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.to_string().contains("HI"), "{answer}");
    {
        let behaviour = server.behaviour.lock().unwrap();
        assert_eq!(behaviour.token_requests, 1);
        let form = &behaviour.token_forms[0];
        assert_eq!(form["grant_type"], "client_credentials");
        assert_eq!(form["resource"], server.mcp_url());
        assert!(!form.contains_key("client_secret"), "{form:?}");
        assert!(
            behaviour.token_authorizations[0].starts_with("Basic "),
            "{:?}",
            behaviour.token_authorizations
        );
    }
    // The token is held in memory only: the token file, if any, holds none of it.
    let tokens =
        std::fs::read_to_string(bridge.dir.path().join("oauth-tokens.json")).unwrap_or_default();
    assert!(!tokens.contains("access-token"), "{tokens}");

    // The server forgets the token (revoked, or its key rotated): the next call is refused
    // with 401 once, and the bridge gets a new token and sends the call again.
    server.behaviour.lock().unwrap().tokens.clear();
    let (status, answer) = shout(&bridge, "again").await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.to_string().contains("AGAIN"), "{answer}");
    assert_eq!(server.behaviour.lock().unwrap().token_requests, 2);

    // No browser sign-in is begun for it.
    let (status, answer) = bridge
        .request(Method::POST, "/servers/wiki/sign-in", None)
        .await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer.to_string().contains("sign_in.grant"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_with_a_jwt_signed_by_a_key_from_a_file() {
    let key = rcgen::KeyPair::generate().unwrap();
    let server = OAuthServer::start().await;
    {
        let mut behaviour = server.behaviour.lock().unwrap();
        behaviour.auth_methods = Some(vec!["private_key_jwt".to_owned()]);
        behaviour.machine_key = Some(("robot".to_owned(), key.public_key_pem()));
    }
    let bridge = launch(
        json!({"mcpServers": {"wiki": {
            "url": server.mcp_url(),
            "client_id": "robot",
            "sign_in": {"grant": "client_credentials", "private_key_file": "client-key.pem"},
        }}}),
        &[],
        &[("client-key.pem", &key.serialize_pem())],
    );

    let (status, answer) = shout(&bridge, "signed").await;
    assert_eq!(status, 200, "{answer}");
    let behaviour = server.behaviour.lock().unwrap();
    let form = &behaviour.token_forms[0];
    assert_eq!(form["grant_type"], "client_credentials");
    assert!(!form.contains_key("client_secret"), "{form:?}");
    assert_eq!(behaviour.token_authorizations[0], "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_the_provider_refuses_is_said_and_never_shown() {
    let (server, bridge) = robot(
        "client_secret_post",
        "the-right-secret",
        "a-wrong-secret-value",
    )
    .await;

    let (status, answer) = shout(&bridge, "hi").await;
    assert_eq!(status, 503, "{answer}");
    let text = answer.to_string();
    assert!(text.contains("could not be signed in to"), "{text}");
    assert!(!text.contains("a-wrong-secret-value"), "{text}");
    let behaviour = server.behaviour.lock().unwrap();
    assert_eq!(
        behaviour.token_forms[0]["client_secret"],
        "a-wrong-secret-value"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_metadata_document_is_the_client_id_where_the_provider_takes_one() {
    const DOCUMENT: &str = "https://bridge.example/client-metadata.json";
    let server = OAuthServer::start().await;
    server.behaviour.lock().unwrap().cimd = true;
    let other = OAuthServer::start().await;
    let bridge = launch(
        json!({"mcpServers": {
            "wiki": {"url": server.mcp_url(), "client_metadata_url": DOCUMENT},
            "other": {"url": other.mcp_url(), "client_metadata_url": DOCUMENT},
        }}),
        &[],
        &[],
    );

    let begin = |name: &'static str| {
        let bridge = &bridge;
        async move {
            let (status, answer) = bridge
                .request(Method::POST, &format!("/servers/{name}/sign-in"), None)
                .await;
            assert_eq!(status, 200, "{answer}");
            let url = url::Url::parse(answer["authorization_url"].as_str().unwrap()).unwrap();
            url.query_pairs()
                .find(|(key, _)| key == "client_id")
                .map(|(_, value)| value.into_owned())
                .unwrap()
        }
    };
    assert_eq!(begin("wiki").await, DOCUMENT);
    assert_eq!(server.behaviour.lock().unwrap().registrations, 0);
    // A provider that does not take documents: the bridge registers, as before.
    assert_eq!(begin("other").await, "registered-client");
    assert_eq!(other.behaviour.lock().unwrap().registrations, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_app_access_exchanges_the_id_token_from_its_file_each_time() {
    let server = OAuthServer::start().await;
    {
        let mut behaviour = server.behaviour.lock().unwrap();
        behaviour.auth_methods = Some(vec!["client_secret_basic".to_owned()]);
        behaviour.machine_client = Some(("robot".to_owned(), "robot-secret-value".to_owned()));
        behaviour.idp_id_token = Some("first-id-token".to_owned());
    }
    let bridge = launch(
        json!({"mcpServers": {"wiki": {
            "url": server.mcp_url(),
            "client_id": "robot",
            "client_secret_env": "WIKI_ROBOT_SECRET",
            "sign_in": {
                "grant": "cross_app_access",
                "idp_issuer": format!("{}/idp", server.base),
                "idp_token_endpoint": format!("{}/idp/token", server.base),
                "idp_client_id": "idp-client",
                "id_token_file": "id-token",
            },
        }}}),
        &[("WIKI_ROBOT_SECRET", "robot-secret-value")],
        &[("id-token", "first-id-token\n")],
    );

    let (status, answer) = shout(&bridge, "hi").await;
    assert_eq!(status, 200, "{answer}");
    {
        let behaviour = server.behaviour.lock().unwrap();
        let form = &behaviour.idp_forms[0];
        assert_eq!(form["audience"], server.base);
        assert_eq!(form["resource"], server.mcp_url());
        assert_eq!(form["client_id"], "idp-client");
        let grant = behaviour.token_forms.last().unwrap();
        assert_eq!(
            grant["grant_type"],
            "urn:ietf:params:oauth:grant-type:jwt-bearer"
        );
    }

    // The user's ID token was renewed in its file, and the server forgot the access token:
    // the next token is got with the new ID token.
    std::fs::write(bridge.dir.path().join("id-token"), "second-id-token").unwrap();
    {
        let mut behaviour = server.behaviour.lock().unwrap();
        behaviour.idp_id_token = Some("second-id-token".to_owned());
        behaviour.tokens.clear();
    }
    let (status, answer) = shout(&bridge, "again").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(server.behaviour.lock().unwrap().idp_forms.len(), 2);
}
