//! `POST /execute`: run a tool, blocking — or with `wait`, answering `202 pending` when the call
//! takes longer than `wait` seconds (see `calls.rs`).

use std::time::Duration;

use axum::Json;
use axum::extract::{Extension, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mcp_bridge_protocol::answers::Pending;

use crate::calls::PendingCall;
use crate::error::BridgeError;
use crate::execute::{execute as run, outcome};
use crate::state::AppState;
use crate::trace::TraceId;
use crate::validation::{ExecuteRequest, JsonBody};

pub(crate) async fn execute(
    State(state): State<AppState>,
    Extension(TraceId(trace_id)): Extension<TraceId>,
    JsonBody(body): JsonBody,
) -> Result<Response, BridgeError> {
    let request = ExecuteRequest::from_body(body)?;
    // A page of a kept result is at hand: it never becomes a background call.
    if crate::execute::is_read_result(&state, &request) {
        return Ok(Json(state.results.read(&request.arguments)?).into_response());
    }
    let Some(wait) = request.wait else {
        return Ok(Json(run(&state, &request).await?).into_response());
    };
    // Resolve now, so an unknown tool or server is answered at once and never becomes a call.
    let server =
        crate::execute::resolve_when_started(&state, &request.name, request.server_name.as_deref())
            .await?;
    let work = {
        let state = state.clone();
        let trace_id = trace_id.clone();
        let request = request.clone();
        async move { outcome(run(&state, &request).await, &trace_id) }
    };
    let call = state.calls.spawn(
        Some(server.name().to_owned()),
        request.name.clone(),
        trace_id.clone(),
        work,
    );
    // Progress or a question from the server ends the wait early, so they are shown at once.
    match call
        .wait_or_activity(Duration::from_secs_f64(wait), None)
        .await
    {
        Some(done) => {
            state.calls.forget(&call.id);
            Ok(done.into_response())
        }
        None => Ok(pending(&call)),
    }
}

/// The `202` answer for a call that is still running, with its latest progress and the
/// question its server asks the user, if any (see `calls/activity.rs`).
pub(crate) fn pending(call: &PendingCall) -> Response {
    let snapshot = call.activity.snapshot();
    let body = Pending {
        success: true,
        pending: true,
        call_id: call.id.clone(),
        trace_id: call.trace_id.clone(),
        elapsed_seconds: call.activity.elapsed_seconds(),
        progress: snapshot.progress,
        elicitation: snapshot.elicitation.map(|q| q.asked),
    };
    (StatusCode::ACCEPTED, Json(body)).into_response()
}
