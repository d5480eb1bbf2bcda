//! `GET /health`: is the bridge up (open without a token, for the extension's status light),
//! with how many MCP servers are starting, running and failed (counts only, no names).
//! `?challenge=<nonce>` adds the proof that this bridge holds the token (`crate::proof`), so
//! that clients never hand the token to a stranger on the port.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use mcp_bridge_protocol::errors::InvalidField;
use mcp_bridge_protocol::health::{Auth, Health};

use crate::error::BridgeError;
use crate::proof::{CHALLENGE_PARAM, valid_nonce};
use crate::state::AppState;

pub(crate) async fn health(
    State(state): State<AppState>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Health>, BridgeError> {
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs_f64())
        .unwrap_or_default();
    let mut body = Health::new(timestamp, crate::VERSION, state.servers.summary());
    if let Some(nonce) = query.get(CHALLENGE_PARAM) {
        if !valid_nonce(nonce) {
            return Err(BridgeError::InvalidRequest(vec![InvalidField::new(
                "value_error",
                ["query", CHALLENGE_PARAM],
                "must be 16 to 128 characters of A-Z, a-z, 0-9, `-` and `_`",
            )]));
        }
        match state.security.prove(nonce) {
            Some(proof) => {
                body.auth = Some(Auth::Token);
                body.proof = Some(proof);
            }
            None => body.auth = Some(Auth::None),
        }
    }
    Ok(Json(body))
}
