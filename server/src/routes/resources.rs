//! `GET /resources` and `GET /resource-templates` (every server's, or one server's with
//! `serverName`) and `POST /resources/read` (one resource's contents). A resource whose text is
//! over the large-result threshold is kept and answered page by page, as a large tool result
//! is (`read_result` reads the next pages); blobs over that threshold are left out, each with a
//! note in its place.

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
    let threshold = state.results.limits().threshold;
    let left_out = bound_blobs(&mut result.contents, threshold);
    let text_bytes: usize = result
        .contents
        .iter()
        .map(|contents| match contents {
            ResourceContents::TextResourceContents { text, .. } => text.len(),
            _ => 0,
        })
        .sum();
    if text_bytes <= threshold {
        let mut out = json!({
            "success": true,
            "server": server.name(),
            "uri": uri,
            "contents": result.contents,
        });
        if masked > 0 {
            out["masked"] = json!(masked);
        }
        if left_out > 0 {
            out["blobs_left_out"] = json!(left_out);
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
    if left_out > 0 {
        out["blobs_left_out"] = json!(left_out);
    }
    Ok(out)
}

/// Keep the blobs (base64) while together they fit in `threshold` bytes; put a note in place of
/// each other one, naming its size and type and how to have it whole. How many were left out.
///
/// A blob is not paged as a text is: pages of base64 mean nothing to a chat until all of them
/// are joined and decoded, which a web AI cannot do, and a 16 MB blob would be some two
/// thousand pages. The note says what the content was, so the AI can tell the user; a user who
/// wants such blobs whole raises `--large-result-threshold`.
fn bound_blobs(contents: &mut [ResourceContents], threshold: usize) -> usize {
    let mut kept = 0usize;
    let mut left_out = 0;
    for contents in contents.iter_mut() {
        let ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } = contents
        else {
            continue;
        };
        if kept + blob.len() <= threshold {
            kept += blob.len();
            continue;
        }
        let mime = mime_type.as_deref().unwrap_or("of an unknown type");
        let note = format!(
            "[The bridge left out this binary content ({mime}, {} bytes of base64, about {} bytes): \
             it is larger than the bridge relays to the chat ({threshold} bytes, \
             --large-result-threshold). Tell the user it was not shown; they can open `{uri}` \
             in an application for {mime}, or raise --large-result-threshold to have it whole.]",
            blob.len(),
            blob.len() / 4 * 3,
        );
        *contents = ResourceContents::TextResourceContents {
            uri: std::mem::take(uri),
            mime_type: Some("text/plain".to_owned()),
            text: note,
            meta: None,
        };
        left_out += 1;
    }
    left_out
}
