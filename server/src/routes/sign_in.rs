//! Signing in to a remote server: `POST /servers/{name}/sign-in` answers the authorization
//! page to open, `POST /servers/{name}/sign-out` revokes and forgets the tokens, and `GET /oauth/callback`
//! is where the authorization server sends the browser back. The first two need the token and
//! refuse web origins and `--no-auth` like the other `/servers` routes. The callback is reached
//! by navigation without the token: the access layer still refuses any Host but the bridge's
//! own loopback address, it does nothing without a `state` the bridge issued (single use, 10
//! minutes), and it answers a plain page that holds no secret.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use mcp_bridge_protocol::answers::{SignInBegun, SignedOut};
use serde::Deserialize;
use serde_json::Value;

use crate::config::Transport;
use crate::error::{BridgeError, Refused};
use crate::oauth::{CALLBACK_PATH, CallbackError};
use crate::state::AppState;

/// The sign-in routes need the token: under `--no-auth` they are refused.
fn require_token(state: &AppState) -> Result<(), BridgeError> {
    if state.security.requires_token() {
        return Ok(());
    }
    Err(BridgeError::Forbidden {
        refused: Refused::NoAuth,
        value: String::new(),
        message: "Signing in to a server needs the token, and the bridge runs with --no-auth. Restart it without --no-auth."
            .to_owned(),
    })
}

/// The remote server `name`: its URL, CA file and sign-in settings.
fn remote(
    state: &AppState,
    name: &str,
) -> Result<
    (
        String,
        Option<std::path::PathBuf>,
        crate::config::SignInSettings,
    ),
    BridgeError,
> {
    let Some(server) = state.servers.get(name) else {
        let available: Vec<String> = state
            .servers
            .servers()
            .iter()
            .map(|s| s.name().to_owned())
            .collect();
        return Err(BridgeError::ServerNotFound {
            server: name.to_owned(),
            message: format!(
                "There is no MCP server named `{name}`. The servers are: {}.",
                available.join(", ")
            ),
            available,
        });
    };
    match &server.spec().transport {
        Transport::StreamableHttp {
            url,
            ca_file,
            sign_in,
            ..
        } => Ok((url.clone(), ca_file.clone(), sign_in.clone())),
        _ => Err(BridgeError::InvalidRequest(vec![crate::validation::error(
            "value_error",
            ["path", "name"],
            &format!("`{name}` is not a remote (streamable HTTP) server; only those sign in"),
            Value::Null,
        )])),
    }
}

pub(crate) async fn sign_in(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, BridgeError> {
    require_token(&state)?;
    let (url, ca_file, settings) = remote(&state, &name)?;
    if settings.grant.is_machine() {
        return Err(BridgeError::InvalidRequest(vec![crate::validation::error(
            "value_error",
            ["path", "name"],
            &format!(
                "`{name}` is signed in to by the bridge itself (its `sign_in.grant`); there is no sign-in in the browser"
            ),
            Value::Null,
        )]));
    }
    // The access layer let this Host through: it is the bridge's own loopback address.
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let redirect_uri = format!("http://{host}{CALLBACK_PATH}");
    let sign_ins = state.servers.sign_ins();
    let begun = sign_ins
        .begin(
            &name,
            &url,
            ca_file.as_deref(),
            &settings,
            &redirect_uri,
            &state.security.withheld(),
        )
        .await
        .map_err(|reason| BridgeError::ServerUnavailable {
            server: name.clone(),
            message: format!("Signing in to `{name}` cannot begin: {reason}"),
            traceback: String::new(),
        })?;
    tracing::info!(server = %name, page = %begun.page_origin, elsewhere = begun.page_elsewhere, "sign-in begun");
    // `authorization_origin` and `issuer` let the extension name where the user is sent
    // before opening it, when the page is not on the issuer's origin.
    Ok(Json(SignInBegun {
        success: true,
        server: &name,
        authorization_url: &begun.authorization_url,
        authorization_origin: &begun.page_origin,
        issuer: begun.issuer.as_deref(),
        authorization_origin_differs: begun.page_elsewhere,
    })
    .into_response())
}

pub(crate) async fn sign_out(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, BridgeError> {
    require_token(&state)?;
    let (url, ca_file, settings) = remote(&state, &name)?;
    let (forgotten, revoked) = state
        .servers
        .sign_ins()
        .forget(
            &name,
            &url,
            ca_file.as_deref(),
            &settings,
            &state.security.withheld(),
        )
        .await
        .map_err(BridgeError::Internal)?;
    tracing::info!(server = %name, forgotten, revoked, "signed out");
    state.servers.restart(&name).await;
    Ok(Json(SignedOut {
        success: true,
        server: &name,
        signed_out: forgotten,
        revoked,
    })
    .into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct Callback {
    state: Option<String>,
    code: Option<String>,
    error: Option<String>,
    /// The authorization server that answered (RFC 9207), when it says.
    iss: Option<String>,
}

pub(crate) async fn callback(
    State(state): State<AppState>,
    Query(query): Query<Callback>,
) -> Response {
    let Some(issued) = query.state.as_deref().filter(|s| !s.is_empty()) else {
        return page(
            StatusCode::BAD_REQUEST,
            "Nothing to do",
            "This address is where a sign-in comes back to MCP Bridge; this request is not one.",
        );
    };
    let sign_ins = state.servers.sign_ins().clone();
    match sign_ins
        .finish(
            issued,
            query.code.as_deref(),
            query.error.as_deref(),
            query.iss.as_deref(),
        )
        .await
    {
        Ok(server) => {
            tracing::info!(server = %server, "signed in");
            // Its tools appear once it runs with the new tokens.
            state.servers.restart(&server).await;
            page(
                StatusCode::OK,
                "Signed in",
                &format!(
                    "MCP Bridge is signed in to {}. You can close this tab.",
                    escape(&server)
                ),
            )
        }
        Err(CallbackError::UnknownState) => {
            tracing::warn!("sign-in callback with an unknown or used state");
            page(
                StatusCode::BAD_REQUEST,
                "Sign-in not recognised",
                "This sign-in is unknown to MCP Bridge or was already used. Start it again from the extension's options page.",
            )
        }
        Err(CallbackError::Expired { server }) => page(
            StatusCode::BAD_REQUEST,
            "Sign-in expired",
            &format!(
                "The sign-in to {} took longer than 10 minutes. Start it again from the extension's options page.",
                escape(&server)
            ),
        ),
        Err(
            CallbackError::Refused { server, reason } | CallbackError::Exchange { server, reason },
        ) => {
            tracing::warn!(server = %server, reason = %reason, "sign-in failed");
            page(
                StatusCode::BAD_REQUEST,
                "Sign-in failed",
                &format!(
                    "The sign-in to {} did not work: {}. Try again from the extension's options page.",
                    escape(&server),
                    escape(&reason)
                ),
            )
        }
    }
}

/// A plain page: a heading and one sentence, nothing else.
fn page(status: StatusCode, title: &str, text: &str) -> Response {
    let body = format!(
        "<!doctype html><meta charset=\"utf-8\"><title>{title} — MCP Bridge</title>\
         <h1>{title}</h1><p>{text}</p>"
    );
    (status, [(header::CACHE_CONTROL, "no-store")], Html(body)).into_response()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
