//! `POST /views` (an MCP App's `ui://` view, kept for its frame under a one-time address) and
//! `GET /views/{id}` (that address: the view's HTML once, with the policies its resource
//! declares). The second is reached by a sandboxed frame's navigation, without the token.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use mcp_bridge_protocol::answers::ViewAddress;
use rmcp::model::{
    ClientRequest, ReadResourceRequest, ReadResourceRequestParams, ResourceContents, ServerResult,
};
use serde_json::Value;

use super::prompts::{named, timeout, unexpected};
use super::resources::read_body;
use mcp_bridge_protocol::errors::InvalidField;

use crate::error::{BridgeError, to_value};
use crate::state::AppState;
use crate::validation::{JsonBody, body_object};
use crate::views::{self, VIEW_LIMIT, VIEW_TTL, View};

fn not_a_view(uri: &str, why: &str) -> BridgeError {
    BridgeError::InvalidRequest(vec![
        InvalidField::new(
            "value_error",
            ["body", "uri"],
            &format!("`{uri}` is not an MCP App view: {why}"),
        )
        .with_input(Value::from(uri)),
    ])
}

pub(crate) async fn keep(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, BridgeError> {
    let map = body_object(body)?;
    let body = read_body(&map)?;
    let server_name = body.server_name.unwrap_or_default().to_owned();
    let uri = body.uri.as_str().unwrap_or_default().to_owned();
    if !uri.starts_with("ui://") {
        return Err(not_a_view(&uri, "a view's address starts with `ui://`"));
    }
    let server = named(&state, &server_name)?;
    let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
        ReadResourceRequestParams::new(&uri),
    ));
    let result = match server
        .request("resources/read", request, timeout(&state, &server))
        .await?
    {
        ServerResult::ReadResourceResult(result) => result,
        _ => return Err(unexpected(&server, "resources/read")),
    };
    // The view's HTML is not masked as a resource for the chat is: it goes to a sandboxed
    // frame on this computer, and masking would break its code. What it sends on is checked
    // where it leaves (the extension masks a view's message as it does a tool's result).
    let (html, meta) = result
        .contents
        .into_iter()
        .find_map(|contents| match contents {
            ResourceContents::TextResourceContents {
                text,
                mime_type,
                meta,
                ..
            } if mime_type
                .as_deref()
                .is_some_and(|m| m.to_ascii_lowercase().starts_with("text/html")) =>
            {
                Some((text, meta))
            }
            _ => None,
        })
        .ok_or_else(|| not_a_view(&uri, "the server sent no `text/html` contents for it"))?;
    if html.len() > VIEW_LIMIT {
        let why = format!(
            "it is {} bytes, over the {VIEW_LIMIT} bytes a view may be",
            html.len()
        );
        return Err(not_a_view(&uri, &why));
    }
    // What the resource declares, on its contents or else where the server listed it.
    let listed = || {
        let lists = server.lists();
        let resource = lists.resources.iter().find(|r| r.uri == uri)?;
        serde_json::to_value(resource).ok()?.get("_meta").cloned()
    };
    let meta = meta
        .and_then(|m| serde_json::to_value(m).ok())
        .filter(|m| m.get("ui").is_some())
        .or_else(listed);
    let ui = meta.as_ref().and_then(|m| m.get("ui"));
    let view = View {
        html,
        csp: views::content_security_policy(ui),
        permissions: views::permissions_policy(ui),
    };
    let prefers_border = ui
        .and_then(|u| u.get("prefersBorder"))
        .and_then(Value::as_bool);
    let id = state
        .views
        .keep(view)
        .map_err(|e| BridgeError::Internal(format!("no random address for a view: {e}")))?;
    let port = state.security.port();
    Ok(Json(to_value(ViewAddress {
        success: true,
        server: server.name(),
        uri: &uri,
        url: format!("http://127.0.0.1:{port}/views/{id}"),
        expires_in_seconds: VIEW_TTL.as_secs(),
        prefers_border,
    })))
}

pub(crate) async fn serve(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let Some(view) = state.views.take(&id) else {
        return BridgeError::RouteNotFound.into_response();
    };
    let mut response = view.html.into_response();
    let headers = response.headers_mut();
    let pairs = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8".to_owned()),
        (header::CONTENT_SECURITY_POLICY, view.csp),
        (
            header::HeaderName::from_static("permissions-policy"),
            view.permissions,
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        (header::REFERRER_POLICY, "no-referrer".to_owned()),
        (header::CACHE_CONTROL, "no-store".to_owned()),
    ];
    for (name, value) in pairs {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    response
}
