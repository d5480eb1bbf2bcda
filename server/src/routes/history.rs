//! `GET /history` (the failure counters) and `POST /reset-history` (clear all, or one
//! `serverName`/`toolName`).

use axum::Json;
use axum::extract::State;
use mcp_bridge_protocol::answers::{History, HistoryReset};

use crate::error::BridgeError;
use crate::state::AppState;
use crate::validation::{JsonBody, body_or_empty, reset_history};

pub(crate) async fn show(State(state): State<AppState>) -> Json<History> {
    Json(History {
        success: true,
        counters: state.counter.snapshot(),
        limit: state.counter.limit(),
    })
}

pub(crate) async fn reset(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Json<HistoryReset>, BridgeError> {
    let body = body_or_empty(body)?;
    let request = reset_history(&body)?;
    let cleared = state.counter.reset(request.server_name, request.tool_name);
    let message = match (request.server_name, request.tool_name) {
        (None, None) => "调用历史已重置 (all failure counters were reset)".to_owned(),
        (server, tool) => format!(
            "failure counters reset for server {} / tool {}",
            server.unwrap_or("*"),
            tool.unwrap_or("*")
        ),
    };
    tracing::info!(cleared, "failure counters reset");
    Ok(Json(HistoryReset {
        success: true,
        message,
        cleared,
    }))
}
