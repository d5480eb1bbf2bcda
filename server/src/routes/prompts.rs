//! `GET /prompts` (every server's prompts, or one server's with `serverName`),
//! `POST /prompts/get` (render one prompt with its arguments; a large one is answered page by
//! page, as a large tool result is) and `POST /complete` (suggestions
//! for a prompt's or a resource template's argument, through the server's `completion/complete`).

use std::collections::HashMap;
use std::sync::Arc;

use mcp_bridge_protocol::errors::tool_failure;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse as _, Response};
use mcp_bridge_protocol::answers::{Completion, PromptRendered, Prompts, ResultPage, RoleContent};
use mcp_bridge_protocol::requests::{Complete, Completed, GetPrompt};
use rmcp::model::{
    ArgumentInfo, CallToolResult, ClientRequest, CompleteRequest, CompleteRequestParams,
    CompletionContext, CompletionInfo, ContentBlock, GetPromptRequest, GetPromptRequestParams,
    PromptMessage, Reference, ServerResult,
};
use serde_json::{Map, Value};

use crate::error::{BridgeError, InvalidField, to_value};
use crate::servers::Server;
use crate::servers::client::ListKind;
use crate::state::AppState;
use crate::validation::{Fields, JsonBody, body_object, error};

pub(super) type Params = Result<Query<HashMap<String, String>>, QueryRejection>;

/// The query's parameters (a malformed query is a 422).
pub(super) fn params(query: Params) -> Result<HashMap<String, String>, BridgeError> {
    query.map(|Query(map)| map).map_err(|rejection| {
        BridgeError::InvalidRequest(vec![InvalidField::new(
            "query_invalid",
            ["query"],
            &rejection.body_text(),
        )])
    })
}

/// The servers a listing covers: the one named by `serverName`, else all of them.
pub(super) fn listed(
    state: &AppState,
    query: &HashMap<String, String>,
) -> Result<Vec<Arc<Server>>, BridgeError> {
    match query.get("serverName").filter(|name| !name.is_empty()) {
        Some(name) => Ok(vec![named(state, name)?]),
        None => Ok(state.servers.servers()),
    }
}

/// The server called `name`.
pub(super) fn named(state: &AppState, name: &str) -> Result<Arc<Server>, BridgeError> {
    state.servers.get(name).ok_or_else(|| {
        let servers = state.servers.servers();
        let names: Vec<String> = servers.iter().map(|s| s.name().to_owned()).collect();
        BridgeError::ServerNotFound {
            server: name.to_owned(),
            message: format!(
                "There is no MCP server named `{name}`. The servers are: {}.",
                if names.is_empty() {
                    "(none)".to_owned()
                } else {
                    names.join(", ")
                }
            ),
            available: names,
        }
    })
}

/// The time a request to `server` gets: its `call_timeout`, else `--call-timeout`.
pub(super) fn timeout(state: &AppState, server: &Server) -> std::time::Duration {
    server.spec().call_timeout.unwrap_or(state.call_timeout)
}

/// An item a server listed, as an object with `server` added (after its own keys).
pub(super) fn with_server(item: impl serde::Serialize, server: &Server) -> Map<String, Value> {
    let mut entry = match serde_json::to_value(item) {
        Ok(Value::Object(entry)) => entry,
        _ => Map::new(),
    };
    entry.insert("server".to_owned(), Value::from(server.name()));
    entry
}

pub(crate) async fn list(
    State(state): State<AppState>,
    query: Params,
) -> Result<Json<Prompts>, BridgeError> {
    let query = params(query)?;
    let mut prompts = Vec::new();
    let servers = listed(&state, &query)?;
    Server::refresh_all(&servers, ListKind::Prompts).await;
    for server in servers {
        for prompt in server.lists().prompts.iter() {
            let mut entry = with_server(prompt, &server);
            entry
                .entry("arguments")
                .or_insert_with(|| Value::Array(Vec::new()));
            prompts.push(entry);
        }
    }
    Ok(Json(Prompts {
        success: true,
        prompts,
    }))
}

/// The body of `POST /prompts/get`: `{serverName, name, arguments?}` (arguments are strings).
fn get_body(map: &Map<String, Value>) -> Result<GetPrompt<'_>, BridgeError> {
    let mut fields = Fields::new(map, "body");
    let server = fields.required_str("serverName");
    let name = fields.required_str("name");
    let arguments = fields.optional_object("arguments");
    for (key, value) in &arguments {
        if !value.is_string() {
            fields.push(
                "string_type",
                "arguments",
                &format!("Prompt argument `{key}` should be a string"),
                value.clone(),
            );
        }
    }
    fields.finish(|| GetPrompt {
        server_name: server.unwrap_or_default(),
        name: name.unwrap_or_default(),
        arguments,
    })
}

pub(crate) async fn get(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, BridgeError> {
    let map = body_object(body)?;
    let body = get_body(&map)?;
    let server = named(&state, body.server_name)?;
    server.refresh(ListKind::Prompts).await;
    if !server.lists().prompts.iter().any(|p| p.name == body.name) {
        let known: Vec<String> = server
            .lists()
            .prompts
            .iter()
            .map(|p| p.name.clone())
            .collect();
        return Err(BridgeError::InvalidRequest(vec![error(
            "unknown_prompt",
            ["body", "name"],
            &format!(
                "MCP server `{}` has no prompt `{}`; its prompts are: {}",
                body.server_name,
                body.name,
                if known.is_empty() {
                    "(none)".to_owned()
                } else {
                    known.join(", ")
                }
            ),
            Value::from(body.name),
        )]));
    }
    let mut params = GetPromptRequestParams::new(body.name);
    if !body.arguments.is_empty() {
        params = params.with_arguments(body.arguments);
    }
    let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
    match server
        .request("prompts/get", request, timeout(&state, &server))
        .await?
    {
        ServerResult::GetPromptResult(result) => {
            let (messages, page) = paged_messages(&state, result.messages).await?;
            Ok(Json(PromptRendered {
                success: true,
                server: server.name(),
                name: body.name,
                description: result.description,
                messages,
                page,
            })
            .into_response())
        }
        _ => Err(unexpected(&server, "prompts/get")),
    }
}

/// A prompt's messages as the answer holds them, and the `page` when their text was large.
///
/// A rendered prompt goes to the chat as a tool's result does, so text over the large-result
/// threshold is kept in the same store and answered page by page (`read_result` reads on):
/// the messages' texts are joined into one paged text, which the first text message holds;
/// the later text messages are in the next pages (their roles are not repeated there), and
/// every other message stays, in its place, with its role.
async fn paged_messages(
    state: &AppState,
    messages: Vec<PromptMessage>,
) -> Result<(Value, Option<ResultPage>), BridgeError> {
    let text_bytes: usize = messages
        .iter()
        .map(|message| match &message.content {
            ContentBlock::Text(text) => text.text.len(),
            _ => 0,
        })
        .sum();
    if text_bytes <= state.results.limits().threshold {
        return Ok((to_value(messages), None));
    }
    // The roles of the blocks the first page keeps: the first text message's, then each
    // non-text message's.
    let mut seen_text = false;
    let mut roles = Vec::new();
    let mut blocks = Vec::new();
    for message in messages {
        let is_text = matches!(message.content, ContentBlock::Text(_));
        if !is_text || !seen_text {
            roles.push(message.role);
        }
        seen_text |= is_text;
        blocks.push(message.content);
    }
    let answer = state
        .results
        .answer(CallToolResult::success(blocks), None)
        .await?;
    let messages: Vec<RoleContent<_>> = roles
        .into_iter()
        .zip(answer.result.content)
        .map(|(role, content)| RoleContent { role, content })
        .collect();
    Ok((to_value(messages), answer.page))
}

/// The error for an answer of the wrong kind.
pub(super) fn unexpected(server: &Server, method: &str) -> BridgeError {
    BridgeError::ToolFailed {
        server: server.name().to_owned(),
        tool: method.to_owned(),
        code: crate::error::code::INTERNAL_ERROR,
        error_type: tool_failure::UNEXPECTED_RESPONSE.to_owned(),
        message: format!(
            "MCP server `{}` answered `{method}` with something else than its result.",
            server.name()
        ),
        traceback: String::new(),
        input_schema: None,
    }
}

/// The body of `POST /complete`: `{serverName, prompt | uriTemplate, argument, value?, context?}`.
fn complete_body(map: &Map<String, Value>) -> Result<Complete<'_>, BridgeError> {
    let mut fields = Fields::new(map, "body");
    let server = fields.required_str("serverName");
    let prompt = fields.optional_str("prompt");
    let template = fields.optional_str("uriTemplate");
    let argument = fields.required_str("argument");
    let value = fields.optional_str("value");
    let context = fields.optional_object("context");
    let of = match (prompt, template) {
        (Some(prompt), None) => Some(Completed::Prompt(prompt)),
        (None, Some(template)) => Some(Completed::Template(template)),
        _ => {
            fields.push(
                "missing",
                "prompt",
                "Give exactly one of `prompt` (a prompt's name) and `uriTemplate` (a resource template)",
                Value::Object(map.clone()),
            );
            None
        }
    };
    fields.finish(|| Complete {
        server_name: server.unwrap_or_default(),
        of: of.unwrap_or(Completed::Prompt("")),
        argument: argument.unwrap_or_default(),
        value: value.unwrap_or_default(),
        context: Some(context),
    })
}

pub(crate) async fn complete(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Response, BridgeError> {
    let map = body_object(body)?;
    let body = complete_body(&map)?;
    let server = named(&state, body.server_name)?;
    let reference = match body.of {
        Completed::Prompt(prompt) => Reference::for_prompt(prompt),
        Completed::Template(template) => Reference::for_resource(template),
    };
    let mut params =
        CompleteRequestParams::new(reference, ArgumentInfo::new(body.argument, body.value));
    let arguments: HashMap<String, String> = body
        .context
        .iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
        .collect();
    if !arguments.is_empty() {
        params.context = Some(CompletionContext::with_arguments(arguments));
    }
    let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
    match server
        .request("completion/complete", request, timeout(&state, &server))
        .await?
    {
        ServerResult::CompleteResult(result) => {
            let (values, total, has_more) = capped(result.completion);
            Ok(Json(Completion {
                success: true,
                server: server.name(),
                values,
                total,
                has_more,
            })
            .into_response())
        }
        _ => Err(unexpected(&server, "completion/complete")),
    }
}

/// A completion's values, cut to MCP's limit of 100 (a server may send any number), its total
/// and whether more exist: a cut answer says it has more, and its total counts the values cut.
fn capped(completion: CompletionInfo) -> (Vec<String>, Option<u32>, Option<bool>) {
    let mut values = completion.values;
    if values.len() <= CompletionInfo::MAX_VALUES {
        return (values, completion.total, completion.has_more);
    }
    let all = u32::try_from(values.len()).unwrap_or(u32::MAX);
    values.truncate(CompletionInfo::MAX_VALUES);
    values.shrink_to_fit();
    (
        values,
        Some(completion.total.map_or(all, |t| t.max(all))),
        Some(true),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_is_cut_to_a_hundred_values_and_says_it_has_more() {
        let many: Vec<String> = (0..150).map(|n| n.to_string()).collect();
        let mut info = CompletionInfo::default();
        info.values = many.clone();
        let (values, total, has_more) = capped(info);
        assert_eq!(values, many[..100]);
        assert_eq!((total, has_more), (Some(150), Some(true)));
        let mut info = CompletionInfo::default();
        info.values = many[..3].to_vec();
        info.total = Some(7);
        info.has_more = Some(true);
        assert_eq!(capped(info), (many[..3].to_vec(), Some(7), Some(true)));
    }
}
