//! `GET /resources` and `GET /resource-templates` (every server's, or one server's with
//! `serverName`) and `POST /resources/read` (one resource's contents). A resource whose text is
//! over the large-result threshold is kept and answered page by page, as a large tool result
//! is (`read_result` reads the next pages); blobs over that threshold are left out, each with a
//! note in its place.

use axum::Json;
use axum::extract::State;
use mcp_bridge_protocol::answers::{ResourceRead, ResourceTemplates, Resources, TextContents};
use mcp_bridge_protocol::requests::ReadResource;
use rmcp::model::{
    CallToolResult, ClientRequest, ContentBlock, ReadResourceRequest, ReadResourceRequestParams,
    ResourceContents, ServerResult,
};
use serde_json::{Map, Value};

use super::prompts::{Params, listed, named, params, timeout, unexpected, with_server};
use crate::error::{BridgeError, to_value};
use crate::servers::Server;
use crate::servers::client::ListKind;
use crate::state::AppState;
use crate::validation::{Fields, JsonBody, body_object};

pub(crate) async fn list(
    State(state): State<AppState>,
    query: Params,
) -> Result<Json<Resources>, BridgeError> {
    let query = params(query)?;
    let mut resources = Vec::new();
    let servers = listed(&state, &query)?;
    Server::refresh_all(&servers, ListKind::Resources).await;
    for server in servers {
        for resource in server.lists().resources.iter() {
            resources.push(with_server(resource, &server));
        }
    }
    Ok(Json(Resources {
        success: true,
        resources,
    }))
}

pub(crate) async fn templates(
    State(state): State<AppState>,
    query: Params,
) -> Result<Json<ResourceTemplates>, BridgeError> {
    let query = params(query)?;
    let mut resource_templates = Vec::new();
    let servers = listed(&state, &query)?;
    Server::refresh_all(&servers, ListKind::Resources).await;
    for server in servers {
        for template in server.lists().templates.iter() {
            resource_templates.push(with_server(template, &server));
        }
    }
    Ok(Json(ResourceTemplates {
        success: true,
        resource_templates,
    }))
}

/// `{serverName, uri}`, both strings.
pub(super) fn read_body(map: &Map<String, Value>) -> Result<ReadResource<'_>, BridgeError> {
    let mut fields = Fields::new(map, "body");
    let server = fields.required_str("serverName");
    let uri = fields.required_str("uri");
    if uri.is_some_and(|uri| uri.trim().is_empty()) {
        fields.push(
            "string_too_short",
            "uri",
            "The resource's URI must not be empty",
            Value::from(""),
        );
    }
    fields.finish(|| ReadResource {
        server_name: server,
        uri: map.get("uri").unwrap_or(&Value::Null),
    })
}

pub(crate) async fn read(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, BridgeError> {
    let map = body_object(body)?;
    let body = read_body(&map)?;
    let server_name = body.server_name.unwrap_or_default();
    let uri = body.uri.as_str().unwrap_or_default();
    let answer = read_resource(&state, server_name, uri).await?;
    Ok(Json(answer))
}

/// Read `uri` from the server named `server_name`: `{success, server, uri, contents}`, with
/// `page` when its text was large (then the text contents hold the first page).
pub(crate) async fn read_resource(
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
    let masked = (masked > 0).then_some(masked);
    let blobs_left_out = (left_out > 0).then_some(left_out);
    if text_bytes <= threshold {
        let contents = result.contents.iter().map(to_value).collect();
        return Ok(to_value(ResourceRead {
            success: true,
            server: server.name(),
            uri,
            contents,
            page: None,
            masked,
            blobs_left_out,
        }));
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
        .await?;
    let contents: Vec<Value> = answer
        .result
        .content
        .iter()
        .filter_map(|block| match block["type"].as_str() {
            Some("text") => Some(to_value(TextContents {
                uri,
                text: block["text"].clone(),
                mime_type: text_mime.as_deref(),
            })),
            Some("resource") => Some(block["resource"].clone()),
            _ => None,
        })
        .collect();
    Ok(to_value(ResourceRead {
        success: true,
        server: server.name(),
        uri,
        contents,
        page: answer.page,
        masked,
        blobs_left_out,
    }))
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
