//! The tasks extension of the 2026-07-28 revision (`io.modelcontextprotocol/tasks`): on a
//! connection of that revision the bridge declares the extension in the per-request
//! capabilities of each `tools/call` (and of the `tasks/*` requests that follow one), and a
//! server may answer the call with a task handle (`resultType: "task"`) in lieu of its result.
//! The task is polled with `tasks/get` at the interval the server suggests; its status message
//! is the call's progress; the questions it asks while `input_required` are asked the user the
//! way an `InputRequiredResult`'s are (`input_required.rs`), each key once, and the answers go
//! back with `tasks/update`; its result (or its error) comes in the last `tasks/get`. The
//! user's cancel, and the bridge giving up, send `tasks/cancel`.
//!
//! As with the 2025-11-25 tasks (`tasks.rs`), the call timeout does not end a task the server
//! says is at work: the task's `ttlMs` does, within the server's `max_call_time`.
//!
//! The extension is declared to 2026-07-28 servers only: the older revisions have no
//! per-request capabilities, and 2025-11-25 has tasks of its own, which the bridge asks for per
//! tool; a server of both revisions must not mistake an `initialize`'s declaration for consent
//! to the newer handles.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::{
    CallToolResult, ClientRequest, CreateTaskResult, ErrorData, GetTaskParams, GetTaskRequest,
    RequestMetaObject, ServerResult, TASKS_EXTENSION_ID, TaskPayload, UpdateTaskParams,
    UpdateTaskRequest,
};
use rmcp::service::PeerRequestOptions;
use tokio::time::Instant;

use super::tasks::{CancelTaskOnDrop, DEFAULT_POLL, MAX_FAILED_POLLS, MIN_POLL, Outcome};
use super::{Live, Server, input_required};
use crate::calls::activity::CallActivity;
use crate::error::BridgeError;

/// Whether the bridge declares the extension to `live`'s server: it speaks 2026-07-28 (or a
/// later revision without `initialize`).
pub(super) fn declared(live: &Live) -> bool {
    live.peer
        .peer_info()
        .is_some_and(|info| !info.protocol_version.has_initialize())
}

/// The options of a request that declares the extension to `live`'s server, when it is one
/// the bridge declares it to; else none. The bridge's capabilities are sent whole, with the
/// extension added, as rmcp would send them without it.
pub(super) fn options(live: &Live) -> PeerRequestOptions {
    if !declared(live) {
        return PeerRequestOptions::no_options();
    }
    PeerRequestOptions::no_options().with_meta(meta())
}

/// The request `_meta` naming the bridge's capabilities with the extension.
fn meta() -> RequestMetaObject {
    let mut capabilities = super::client::capabilities();
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
    let mut meta = RequestMetaObject::default();
    meta.set_client_capabilities(capabilities);
    meta
}

impl Server {
    /// Follow the task `created`, which the server answered a call with, to its end: until it
    /// ends, its `ttlMs` passes (within the server's `max_call_time`, which bounds a task
    /// without one), or [`MAX_FAILED_POLLS`] polls in a row fail, each getting `timeout`.
    pub(super) async fn follow_task(
        &self,
        live: &Live,
        tool: &str,
        created: CreateTaskResult,
        activity: &Arc<CallActivity>,
        timeout: Duration,
    ) -> Result<Outcome, BridgeError> {
        let began = Instant::now();
        let mut task = created.task;
        let id = task.task_id.clone();
        tracing::debug!(server = %self.spec.name, tool = %tool, task = %id, "the call runs as a task (tasks extension)");
        let mut cancel = CancelTaskOnDrop::new(live, &self.spec.name, &id, Some(meta()));
        let most = self.longest_call(timeout);
        let ends = began + task.ttl_ms.map_or(most, Duration::from_millis).min(most);
        let mut payload = TaskPayload::Working;
        let mut shown: Option<String> = None;
        let mut updates = 0.0;
        let mut failed = 0;
        // The keys of the questions already answered: a poll before the server took the
        // answers in names them again.
        let mut answered: HashSet<String> = HashSet::new();
        loop {
            if let Some(message) = &task.status_message
                && shown.as_ref() != Some(message)
            {
                updates += 1.0;
                activity.progress(updates, None, Some(message.clone()));
                shown = Some(message.clone());
            }
            match payload {
                TaskPayload::Completed { result } => {
                    cancel.disarm();
                    self.note_alive();
                    return Ok(Some(
                        serde_json::from_value::<CallToolResult>(serde_json::Value::Object(result))
                            .map(ServerResult::CallToolResult)
                            .map_err(|_| ServiceError::UnexpectedResponse),
                    ));
                }
                TaskPayload::Failed { error } => {
                    cancel.disarm();
                    let error =
                        serde_json::from_value::<ErrorData>(serde_json::Value::Object(error))
                            .unwrap_or_else(|_| {
                                ErrorData::internal_error(
                                    task.status_message
                                        .clone()
                                        .unwrap_or_else(|| "the task failed".to_owned()),
                                    None,
                                )
                            });
                    return Ok(Some(Err(ServiceError::McpError(error))));
                }
                TaskPayload::Cancelled => {
                    cancel.disarm();
                    return Ok(Some(Err(ServiceError::Cancelled {
                        reason: Some("the server cancelled the task".to_owned()),
                    })));
                }
                TaskPayload::InputRequired { input_requests } => {
                    let new: rmcp::model::InputRequests = input_requests
                        .into_iter()
                        .filter(|(key, _)| !answered.contains(key))
                        .collect();
                    if !new.is_empty() {
                        let keys: Vec<String> = new.keys().cloned().collect();
                        let responses = match input_required::answer_requests(
                            &self.shared,
                            Some(activity),
                            new,
                        )
                        .await
                        {
                            Ok(responses) => responses,
                            Err(error) => return Ok(Some(Err(ServiceError::McpError(error)))),
                        };
                        answered.extend(keys);
                        let update = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(
                            UpdateTaskParams::new(id.clone(), responses),
                        ));
                        match self.send_task_request(live, update, timeout).await {
                            Ok(Ok(_)) => {}
                            Ok(Err(ServiceError::McpError(error))) => {
                                return Ok(Some(Err(ServiceError::McpError(error))));
                            }
                            Ok(Err(_)) | Err(_) if !live.alive() => {
                                cancel.disarm();
                                return Ok(Some(Err(ServiceError::TransportClosed)));
                            }
                            Ok(Err(_)) | Err(_) => failed += 1,
                        }
                    }
                }
                _ => {}
            }
            let every = task
                .poll_interval_ms
                .map_or(DEFAULT_POLL, Duration::from_millis)
                .max(MIN_POLL);
            let next = Instant::now() + every;
            if next >= ends {
                tracing::info!(server = %self.spec.name, task = %id, "the task outlived its time; cancelling it");
                return Err(self.task_timed_out(
                    tool,
                    &id,
                    began,
                    "the time the server keeps it for (its ttlMs), or the server's max_call_time, passed",
                ));
            }
            tokio::time::sleep_until(next).await;
            let poll =
                ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(id.clone())));
            match self.send_task_request(live, poll, timeout).await {
                Ok(Ok(ServerResult::GetTaskResult(got))) => {
                    failed = 0;
                    self.note_alive();
                    task = got.task.task;
                    payload = got.task.payload;
                }
                Ok(Ok(_)) => {
                    failed += 1;
                    payload = TaskPayload::Working;
                }
                // The server refused the poll (an unknown or expired task): nothing to wait for.
                Ok(Err(ServiceError::McpError(error))) => {
                    cancel.disarm();
                    return Ok(Some(Err(ServiceError::McpError(error))));
                }
                Ok(Err(_)) if !live.alive() => {
                    cancel.disarm();
                    return Ok(Some(Err(ServiceError::TransportClosed)));
                }
                Ok(Err(_)) | Err(_) => {
                    failed += 1;
                    payload = TaskPayload::Working;
                }
            }
            if failed >= MAX_FAILED_POLLS {
                return Err(self.task_timed_out(
                    tool,
                    &id,
                    began,
                    &format!(
                        "{MAX_FAILED_POLLS} requests about it in a row got no usable answer within {} s",
                        timeout.as_secs_f64()
                    ),
                ));
            }
        }
    }

    /// Send `request`, one of the `tasks/*` requests, declaring the extension; `Err` when no
    /// answer came within `timeout`.
    async fn send_task_request(
        &self,
        live: &Live,
        request: ClientRequest,
        timeout: Duration,
    ) -> Result<Result<ServerResult, ServiceError>, tokio::time::error::Elapsed> {
        tokio::time::timeout(timeout, async {
            let handle = live
                .peer
                .send_request_with_option(request, options(live))
                .await?;
            let mut abandon = super::call::CancelOnDrop {
                peer: live.peer.clone(),
                id: Some(handle.id.clone()),
            };
            let answer = handle.await_response().await;
            abandon.id = None;
            answer
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_is_declared_with_the_bridges_other_capabilities() {
        let meta = serde_json::to_value(meta()).unwrap();
        let capabilities = &meta["io.modelcontextprotocol/clientCapabilities"];
        assert_eq!(
            capabilities["extensions"]["io.modelcontextprotocol/tasks"],
            serde_json::json!({})
        );
        assert!(capabilities["elicitation"].is_object(), "{meta}");
    }
}
