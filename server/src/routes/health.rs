//! `GET /health`: is the bridge up (open without a token, for the extension's status light),
//! with how many MCP servers are starting, running and failed (counts only, no names).

use axum::Json;
use axum::extract::State;
use mcp_bridge_protocol::health::Health;

use crate::state::AppState;

pub(crate) async fn health(State(state): State<AppState>) -> Json<Health> {
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs_f64())
        .unwrap_or_default();
    Json(Health::new(
        timestamp,
        crate::VERSION,
        state.servers.summary(),
    ))
}
