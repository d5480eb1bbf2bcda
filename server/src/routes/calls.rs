//! `GET /calls/{id}?wait=S&seen=Q` (the result of a long-polled call, or `202` again with its
//! progress and the question its server asks; the wait ends early when either changes, and at
//! once when a question other than `Q`, the one the client shows, waits) and
//! `DELETE /calls/{id}` (cancel it).

use std::collections::HashMap;
use std::time::Duration;

use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use mcp_bridge_protocol::answers::CallCancelled;

use crate::error::{BridgeError, InvalidField};
use crate::state::AppState;
use crate::validation::wait_query;

/// The call id from the path (a malformed one is a 422, in JSON like every error).
pub(super) fn call_id(path: Result<Path<String>, PathRejection>) -> Result<String, BridgeError> {
    path.map(|Path(id)| id).map_err(|rejection| {
        BridgeError::InvalidRequest(vec![InvalidField::new(
            "string_type",
            ["path", "call_id"],
            &rejection.body_text(),
        )])
    })
}

pub(super) fn unknown(call_id: &str) -> BridgeError {
    BridgeError::CallNotFound {
        call_id: call_id.to_owned(),
        message: format!(
            "There is no call `{call_id}`: no call with this id is running, and no finished call's result is kept under it. \
             Either the call finished more than 10 minutes ago (results stay fetchable for 10 minutes after the call ends), \
             its result came in the answer to POST /execute itself (then no call id was kept), the id is mistyped, \
             or the bridge restarted. Run the tool again if it is still needed."
        ),
    }
}

pub(crate) async fn fetch(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Response, BridgeError> {
    let call_id = call_id(path)?;
    let query = query.map(|Query(q)| q).unwrap_or_default();
    let wait = wait_query(&query)?;
    let call = state.calls.get(&call_id).ok_or_else(|| unknown(&call_id))?;
    let seen = query.get("seen").map(String::as_str);
    match call
        .wait_or_activity(Duration::from_secs_f64(wait), seen)
        .await
    {
        Some(outcome) => Ok(outcome.into_response()),
        None => Ok(super::execute::pending(&call)),
    }
}

pub(crate) async fn cancel(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, BridgeError> {
    let call_id = call_id(path)?;
    let was_running = state
        .calls
        .cancel(&call_id, |call| {
            let err = BridgeError::Cancelled {
                server: call.server.clone().unwrap_or_default(),
                tool: call.tool.clone(),
                by_user: true,
                message: format!(
                    "The call of tool `{}` was cancelled by the user before it finished; it may have partly taken effect.",
                    call.tool
                ),
            };
            crate::execute::outcome(Err(err), &call.trace_id)
        })
        .ok_or_else(|| unknown(&call_id))?;
    if was_running {
        tracing::info!(call_id, "call cancelled");
    }
    Ok(Json(CallCancelled {
        success: true,
        call_id: &call_id,
        cancelled: was_running,
        message: if was_running {
            "the call was cancelled"
        } else {
            "the call had already finished"
        },
    })
    .into_response())
}
