//! `GET /tools` (the services, or one service's tools with `serverName`) and `GET /tool-detail`.
//! Each tool carries its MCP `annotations` (`title`, `readOnlyHint`, `destructiveHint`,
//! `idempotentHint`, `openWorldHint`) as its server declared them; `{}` when it declared none;
//! and its MCP App view (`ui`), when its `_meta` names one.

use std::collections::HashMap;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse as _, Response};
use serde_json::Value;

use mcp_bridge_protocol::answers::{
    ServerToolList, ServiceInfo, Services, ToolDetail, ToolDetailInfo, ToolInfo, ToolList,
};

use crate::error::{BridgeError, InvalidField};
use crate::execute::tool_not_found;
use crate::servers::client::ListKind;
use crate::servers::{Server, Status};
use crate::state::AppState;
use crate::validation::required_query;

type Params = Result<Query<HashMap<String, String>>, QueryRejection>;

fn params(query: Params) -> Result<HashMap<String, String>, BridgeError> {
    query.map(|Query(map)| map).map_err(|rejection| {
        BridgeError::InvalidRequest(vec![InvalidField::new(
            "query_invalid",
            ["query"],
            &rejection.body_text(),
        )])
    })
}

pub(crate) async fn list(
    State(state): State<AppState>,
    query: Params,
) -> Result<Response, BridgeError> {
    let query = params(query)?;
    match query.get("serverName").filter(|name| !name.is_empty()) {
        None => {
            let servers = state.servers.servers();
            Server::refresh_all(&servers, ListKind::Tools).await;
            let services = servers
                .iter()
                .map(|server| {
                    let lists = server.lists();
                    ServiceInfo {
                        name: server.name().to_owned(),
                        description: server.description().to_owned(),
                        instructions: server.instructions(),
                        is_core: server.spec().is_core,
                        status: server.status(),
                        tool_count: lists.tools.len(),
                        prompt_count: lists.prompts.len(),
                        resource_count: lists.resources.len() + lists.templates.len(),
                        list_changes: server.list_changes(),
                        icon: server.icon(),
                    }
                })
                .collect();
            Ok(Json(Services {
                success: true,
                services,
            })
            .into_response())
        }
        Some(name) => {
            let server = state
                .servers
                .get(name)
                .ok_or_else(|| BridgeError::UnknownService(name.clone()))?;
            server.refresh(ListKind::Tools).await;
            let lists = server.lists();
            let tools = lists.tools;
            if tools.is_empty() && server.status() != Status::Running {
                let (reason, stderr) = server.last_failure();
                return Err(BridgeError::ServerUnavailable {
                    server: name.clone(),
                    message: format!(
                        "MCP server `{name}` is not running ({reason}), so its tools are unknown. \
                         Tell the user to check its command in the bridge config."
                    ),
                    traceback: stderr,
                });
            }
            let tools = tools
                .iter()
                .map(|tool| ToolInfo {
                    name: tool.name.to_string(),
                    description: tool.description.as_deref().unwrap_or_default().to_owned(),
                    parameters: (*tool.input_schema).clone(),
                    annotations: annotations(tool),
                    ui: crate::views::view_of(tool),
                    icon: lists.tool_icons.get(tool.name.as_ref()).cloned(),
                })
                .collect();
            Ok(Json(ServerToolList {
                success: true,
                tools: ToolList {
                    service_name: name.clone(),
                    service_description: server.description().to_owned(),
                    service_icon: server.icon(),
                    tools,
                },
            })
            .into_response())
        }
    }
}

pub(crate) async fn detail(
    State(state): State<AppState>,
    query: Params,
) -> Result<Response, BridgeError> {
    let query = params(query)?;
    let tool_name = required_query(&query, "toolName")?;
    let server_name = query.get("serverName").filter(|name| !name.is_empty());
    let server = crate::execute::resolve(&state, &tool_name, server_name.map(String::as_str))?;
    let Some(tool) = server.tool(&tool_name) else {
        return Err(tool_not_found(&state, &tool_name, Some(&server)));
    };
    Ok(Json(ToolDetail {
        success: true,
        tool: ToolDetailInfo {
            name: &tool.name,
            description: tool.description.as_deref().unwrap_or_default(),
            server_name: server.name(),
            input_schema: Value::Object((*tool.input_schema).clone()),
            annotations: annotations(&tool),
        },
    })
    .into_response())
}

/// A tool's annotations in MCP's camelCase, only the hints it declared; `{}` for none.
fn annotations(tool: &rmcp::model::Tool) -> Value {
    tool.annotations
        .as_ref()
        .and_then(|annotations| serde_json::to_value(annotations).ok())
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn annotations_are_the_declared_hints_or_empty() {
        let mut tool = rmcp::model::Tool::new("t", "d", rmcp::model::JsonObject::new());
        assert_eq!(annotations(&tool), json!({}));
        tool.annotations = Some(rmcp::model::ToolAnnotations::new().read_only(true));
        assert_eq!(annotations(&tool), json!({"readOnlyHint": true}));
    }
}
