//! `GET /resources` and `GET /resource-templates` (every server's, or one server's with
//! `serverName`) and `POST /resources/read` (one resource's contents). A resource whose text is
//! over the large-result threshold is kept and answered page by page, as a large tool result
//! is (`read_result` reads the next pages).

use axum::Json;
use axum::extract::State;
use rmcp::model::{
    CallToolResult, ClientRequest, ContentBlock, ReadResourceRequest, ReadResourceRequestParams,
    ResourceContents, ServerResult,
};
use serde_json::{Value, json};

use super::prompts::{Params, listed, named, params, timeout, unexpected};
use crate::error::BridgeError;
use crate::state::AppState;
use crate::validation::{Fields, JsonBody, body_object};

pub async fn list(
    State(state): State<AppState>,
    query: Params,
) -> Result<Json<Value>, BridgeError> {
    let query = params(query)?;
    let mut resources = Vec::new();
    for server in listed(&state, &query)? {
        for resource in server.lists().resources.iter() {
            let mut entry = serde_json::to_value(resource).unwrap_or_else(|_| json!({}));
            entry["server"] = json!(server.name());
            resources.push(entry);
        }
    }
    Ok(Json(json!({ "success": true, "resources": resources })))
}

pub async fn templates(
    State(state): State<AppState>,
    query: Params,
) -> Result<Json<Value>, BridgeError> {
    let query = params(query)?;
    let mut templates = Vec::new();
    for server in listed(&state, &query)? {
        for template in server.lists().templates.iter() {
            let mut entry = serde_json::to_value(template).unwrap_or_else(|_| json!({}));
            entry["server"] = json!(server.name());
            templates.push(entry);
        }
    }
    Ok(Json(
        json!({ "success": true, "resourceTemplates": templates }),
    ))
}

/// `{serverName, uri}`.
fn read_body(body: Option<Value>) -> Result<(String, String), BridgeError> {
    let map = body_object(body)?;
    let mut fields = Fields::new(&map, "body");
    let server = fields.required_string("serverName");
    let uri = fields.required_string("uri");
    if uri.as_deref().is_some_and(|uri| uri.trim().is_empty()) {
        fields.push(
            "string_too_short",
            "uri",
            "The resource's URI must not be empty",
            json!(""),
        );
    }
    fields.finish(|| (server.unwrap_or_default(), uri.unwrap_or_default()))
}

pub async fn read(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, BridgeError> {
    let (server_name, uri) = read_body(body)?;
    let answer = read_resource(&state, &server_name, &uri).await?;
    Ok(Json(answer))
}

/// Read `uri` from the server named `server_name`: `{success, server, uri, contents}`, with
/// `page` when its text was large (then the text contents hold the first page).
pub async fn read_resource(
    state: &AppState,
    server_name: &str,
    uri: &str,
) -> Result<Value, BridgeError> {
    let server = named(state, server_name)?;
    let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
        ReadResourceRequestParams::new(uri),
    ));
    let mut result = match server
        .request("resources/read", request, timeout(state, &server))
        .await?
    {
        ServerResult::ReadResourceResult(result) => result,
        _ => return Err(unexpected(&server, "resources/read")),
    };
    // A resource goes to the chat like a tool's result: the same secrets are masked in it.
    let masked =
        crate::calls::masking::mask_resource(&mut result.contents, &server.known_secrets().await);
    let text_bytes: usize = result
        .contents
        .iter()
        .map(|contents| match contents {
            ResourceContents::TextResourceContents { text, .. } => text.len(),
            _ => 0,
        })
        .sum();
    if text_bytes <= state.results.limits().threshold {
        let mut out = json!({
            "success": true,
            "server": server.name(),
            "uri": uri,
            "contents": result.contents,
        });
        if masked > 0 {
            out["masked"] = json!(masked);
        }
        return Ok(out);
    }
    // Paged as a tool result would be: each text is a text block, each blob an embedded
    // resource (kept whole in the first page).
    let mut text_mime = None;
    let blocks: Vec<ContentBlock> = result
        .contents
        .into_iter()
        .map(|contents| match contents {
            ResourceContents::TextResourceContents {
                text, mime_type, ..
            } => {
                text_mime = text_mime.take().or(mime_type);
                ContentBlock::text(text)
            }
            blob => ContentBlock::resource(blob),
        })
        .collect();
    let answer = state
        .results
        .answer(CallToolResult::success(blocks), None)
        .await;
    let contents: Vec<Value> = answer["result"]["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|block| match block["type"].as_str() {
                    Some("text") => {
                        let mut text = json!({"uri": uri, "text": block["text"]});
                        if let Some(mime) = &text_mime {
                            text["mimeType"] = json!(mime);
                        }
                        Some(text)
                    }
                    Some("resource") => Some(block["resource"].clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = json!({
        "success": true,
        "server": server.name(),
        "uri": uri,
        "contents": contents,
    });
    if let Some(page) = answer.get("page") {
        out["page"] = page.clone();
    }
    if masked > 0 {
        out["masked"] = json!(masked);
    }
    Ok(out)
}
