//! A tool the server runs as a task (the 2025-11-25 revision's tasks): its `tools/call` asks
//! for a task, the task is polled with `tasks/get` (its status message shown as the call's
//! progress), its questions come while `tasks/result` waits, its result comes from
//! `tasks/result` like any call's, and the user's cancel sends `tasks/cancel`. The bridge's
//! call timeout does not end a task the server says is still at work: the task's own `ttl`
//! bounds it, and polls that fail end it.
//!
//! rmcp reads neither a tool's `execution` nor that revision's task shapes, so the tools that
//! run as tasks are noted from the raw `tools/list` answers before rmcp parses them (on stdio
//! by the receive side, `connect/stdio_decode.rs`; over streamable HTTP by a wrapper of the
//! HTTP client, `connect/http_tasks.rs`), and the task's answers are read from their JSON.
//!
//! The 2026-07-28 revision's tasks, an extension with other shapes, are `ext_tasks.rs`'s.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequestParams, CancelTaskParams, CancelTaskRequest, ClientRequest, CustomRequest,
    GetTaskParams, GetTaskRequest, ProtocolVersion, RequestMetaObject, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde::Deserialize;
use tokio::time::Instant;

use super::{Live, Server};
use crate::calls::activity::CallActivity;
use crate::error::BridgeError;

/// The names of the tools of one connection whose `execution.taskSupport` is `optional` or
/// `required`, as its `tools/list` answers said.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskTools(Arc<Mutex<HashSet<String>>>);

impl TaskTools {
    fn names(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Read `line`, a message from the server, for the tools it lists; anything else is left
    /// alone (most lines are skipped without being read: they do not name a `taskSupport`).
    pub(crate) fn note(&self, line: &[u8]) {
        if memchr::memmem::find(line, b"\"taskSupport\"").is_none() {
            return;
        }
        let Ok(listed) = serde_json::from_slice::<Listed>(line) else {
            return;
        };
        let mut names = self.names();
        for tool in listed.result.tools {
            let support = tool.execution.and_then(|e| e.task_support);
            if matches!(support.as_deref(), Some("optional" | "required")) {
                names.insert(tool.name);
            } else {
                names.remove(&tool.name);
            }
        }
    }

    /// Run `tool` as a task from now on (its server answered a plain call with one).
    pub(crate) fn mark(&self, tool: &str) {
        self.names().insert(tool.to_owned());
    }

    /// Whether `tool` is run as a task.
    pub(crate) fn runs_as_task(&self, tool: &str) -> bool {
        self.names().contains(tool)
    }
}

/// The part of a `tools/list` answer that says which tools run as tasks.
#[derive(Deserialize)]
struct Listed {
    result: ListedTools,
}

#[derive(Deserialize)]
struct ListedTools {
    tools: Vec<ListedTool>,
}

#[derive(Deserialize)]
struct ListedTool {
    name: String,
    #[serde(default)]
    execution: Option<Execution>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Execution {
    #[serde(default)]
    task_support: Option<String>,
}

/// A task as the server describes it (`CreateTaskResult.task`, or a `tasks/get` answer).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskState {
    task_id: String,
    status: String,
    #[serde(default)]
    status_message: Option<String>,
    /// How long the server keeps the task, in ms from its creation; `null`: unlimited.
    #[serde(default)]
    ttl: Option<u64>,
    /// How often the server asks to be polled, in ms.
    #[serde(default)]
    poll_interval: Option<u64>,
}

#[derive(Deserialize)]
struct Created {
    task: TaskState,
}

/// The poll interval when the server suggests none.
pub(super) const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// The shortest poll interval the bridge keeps to, whatever the server suggests.
pub(super) const MIN_POLL: Duration = Duration::from_millis(100);

/// Polls in a row that may fail (no answer within the call timeout, or a broken connection)
/// before the call is given up on.
pub(super) const MAX_FAILED_POLLS: u32 = 3;

/// Whether `tool` is called as a task on `live`: its listing says it runs as one, and the
/// connection speaks 2025-11-25, the revision whose tasks these are (2026-07-28's tasks are
/// another protocol, which a server starts on its own: `super::ext_tasks`).
pub(super) fn runs_as_task(live: &Live, tool: &str) -> bool {
    live.tasks.runs_as_task(tool)
        && live
            .peer
            .peer_info()
            .is_some_and(|info| info.protocol_version == ProtocolVersion::V_2025_11_25)
}

/// What a call ends with, as `Server::run_call` says it: `None` when its time ran out.
pub(super) type Outcome = Option<Result<ServerResult, ServiceError>>;

impl Server {
    /// Call `params` as a task. Asking for it gets the rest of the call timeout (`deadline`);
    /// then the task runs until it ends, the server's `ttl` for it passes (without one, the
    /// server's `max_call_time`), or [`MAX_FAILED_POLLS`] polls in a row fail, each poll
    /// getting `timeout`. A server that answers with a plain result has it returned as is.
    pub(super) async fn run_task(
        &self,
        live: &Live,
        params: CallToolRequestParams,
        activity: &Arc<CallActivity>,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Outcome, BridgeError> {
        let tool = params.name.to_string();
        let began = Instant::now();
        let most = self.longest_call(timeout);
        let mut wire = serde_json::to_value(&params).unwrap_or_default();
        wire["task"] = serde_json::json!({"ttl": most.as_millis() as u64});
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(wire)));
        let handle = match live
            .peer
            .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(err) => return Ok(Some(Err(err))),
        };
        // The server's questions while the task runs go to the calls in flight: this is one.
        let _tracked = self
            .shared
            .track(handle.progress_token.clone(), activity.clone());
        let mut abandon = super::call::CancelOnDrop {
            peer: live.peer.clone(),
            id: Some(handle.id.clone()),
        };
        // Unanswered within the call timeout, the request is cancelled as `abandon` drops.
        let Ok(answer) = tokio::time::timeout_at(deadline, handle.await_response()).await else {
            return Ok(None);
        };
        abandon.id = None;
        let created = match answer {
            Err(err) => return Ok(Some(Err(err))),
            Ok(ServerResult::CustomResult(custom)) => {
                match serde_json::from_value::<Created>(custom.0.clone()) {
                    Ok(created) => created.task,
                    Err(_) => return Ok(Some(Ok(ServerResult::CustomResult(custom)))),
                }
            }
            Ok(plain) => return Ok(Some(Ok(plain))),
        };
        self.note_alive();
        let id = created.task_id.clone();
        tracing::debug!(server = %self.spec.name, tool = %tool, task = %id, "the call runs as a task");
        let mut cancel = CancelTaskOnDrop::new(live, &self.spec.name, &id, None);
        let ends = Instant::now() + created.ttl.map_or(most, Duration::from_millis);
        let every = created
            .poll_interval
            .map_or(DEFAULT_POLL, Duration::from_millis)
            .max(MIN_POLL);
        let mut shown: Option<String> = None;
        let mut updates = 0.0;
        let mut failed = 0;
        let mut state = created;
        let mut result: Option<std::pin::Pin<Box<dyn Future<Output = _> + Send>>> = None;
        loop {
            if let Some(message) = &state.status_message
                && shown.as_ref() != Some(message)
            {
                updates += 1.0;
                activity.progress(updates, None, Some(message.clone()));
                shown = Some(message.clone());
            }
            match state.status.as_str() {
                "cancelled" => {
                    cancel.id = None;
                    return Ok(Some(Err(ServiceError::Cancelled {
                        reason: Some("the server cancelled the task".to_owned()),
                    })));
                }
                // The result, and the questions a task asks while it waits for input, come
                // through `tasks/result`, which the server answers when the task has ended.
                "input_required" | "completed" | "failed" if result.is_none() => {
                    let peer = live.peer.clone();
                    let asked = ClientRequest::CustomRequest(CustomRequest::new(
                        "tasks/result",
                        Some(serde_json::json!({"taskId": id})),
                    ));
                    result = Some(Box::pin(async move { peer.send_request(asked).await }));
                }
                _ => {}
            }
            let next = Instant::now() + every;
            if next >= ends {
                tracing::info!(server = %self.spec.name, task = %id, "the task outlived its ttl; cancelling it");
                return Err(self.task_timed_out(
                    &tool,
                    &id,
                    began,
                    "the time the server keeps it for (its ttl) passed",
                ));
            }
            let ended = async {
                match result.as_mut() {
                    Some(result) => result.await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                answer = ended => {
                    cancel.id = None;
                    if answer.is_ok() {
                        self.note_alive();
                    }
                    return Ok(Some(answer));
                }
                () = tokio::time::sleep_until(next) => {}
            }
            let polled = tokio::time::timeout(
                timeout,
                live.peer
                    .send_request(ClientRequest::GetTaskRequest(GetTaskRequest::new(
                        GetTaskParams::new(id.clone()),
                    ))),
            )
            .await;
            match polled {
                Ok(Ok(answer)) => match read_state(&answer) {
                    Some(read) => {
                        failed = 0;
                        self.note_alive();
                        state = read;
                    }
                    None => failed += 1,
                },
                // The server refused the poll (an unknown or expired task): nothing to wait for.
                Ok(Err(ServiceError::McpError(error))) => {
                    cancel.id = None;
                    return Ok(Some(Err(ServiceError::McpError(error))));
                }
                Ok(Err(_)) if !live.alive() => {
                    cancel.id = None;
                    return Ok(Some(Err(ServiceError::TransportClosed)));
                }
                Ok(Err(_)) | Err(_) => failed += 1,
            }
            if failed >= MAX_FAILED_POLLS {
                return Err(self.task_timed_out(
                    &tool,
                    &id,
                    began,
                    &format!(
                        "{MAX_FAILED_POLLS} polls of its status in a row got no usable answer within {} s",
                        timeout.as_secs_f64()
                    ),
                ));
            }
        }
    }

    /// The error for a task the bridge stopped following (and cancels), saying `why`; its
    /// `seconds` are those since the call asked for the task (`began`).
    pub(super) fn task_timed_out(
        &self,
        tool: &str,
        id: &str,
        began: Instant,
        why: &str,
    ) -> BridgeError {
        BridgeError::Timeout {
            server: self.spec.name.clone(),
            tool: tool.to_owned(),
            seconds: began.elapsed().as_secs_f64(),
            message: format!(
                "Tool `{tool}` on server `{}` ran as a task (`{id}`), and the bridge stopped waiting for it \
                 and cancelled it: {why}. The task may have partly taken effect; try again, or a smaller request.",
                self.spec.name
            ),
        }
    }
}

/// The task state in a `tasks/get` answer, which rmcp reads as its own revision's task (or,
/// where that does not fit, leaves as it came).
fn read_state(answer: &ServerResult) -> Option<TaskState> {
    serde_json::from_value(serde_json::to_value(answer).ok()?).ok()
}

/// Sends `tasks/cancel` for a task the call stopped following before it ended (the user's
/// cancel, the bridge stopping, its `ttl` passed), and logs what the server answered.
pub(super) struct CancelTaskOnDrop {
    peer: rmcp::Peer<rmcp::RoleClient>,
    server: String,
    id: Option<String>,
    /// The request `_meta` the cancel carries (the tasks extension's declaration).
    meta: Option<RequestMetaObject>,
}

impl CancelTaskOnDrop {
    pub(super) fn new(
        live: &Live,
        server: &str,
        id: &str,
        meta: Option<RequestMetaObject>,
    ) -> Self {
        CancelTaskOnDrop {
            peer: live.peer.clone(),
            server: server.to_owned(),
            id: Some(id.to_owned()),
            meta,
        }
    }

    /// The task ended by itself: nothing to cancel.
    pub(super) fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        let server = std::mem::take(&mut self.server);
        let options = match self.meta.take() {
            Some(meta) => PeerRequestOptions::no_options().with_meta(meta),
            None => PeerRequestOptions::no_options(),
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let request = ClientRequest::CancelTaskRequest(CancelTaskRequest::new(
                CancelTaskParams::new(id.clone()),
            ));
            let sent = async {
                peer.send_request_with_option(request, options)
                    .await?
                    .await_response()
                    .await
            };
            match tokio::time::timeout(Duration::from_secs(30), sent).await {
                Ok(Ok(answer)) => {
                    // The tasks extension's answer is an empty acknowledgement, without a status.
                    let status = read_state(&answer).map(|state| state.status);
                    tracing::info!(server = %server, task = %id, status = status.as_deref().unwrap_or("acknowledged"), "the task was cancelled at the server");
                }
                Ok(Err(err)) => {
                    tracing::info!(server = %server, task = %id, error = %err, "the server did not cancel the task");
                }
                Err(_) => {
                    tracing::info!(server = %server, task = %id, "the server did not answer tasks/cancel");
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_that_run_as_tasks_are_noted_from_their_listing() {
        let tools = TaskTools::default();
        let listed = serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [
            {"name": "research", "inputSchema": {}, "execution": {"taskSupport": "required"}},
            {"name": "maybe", "inputSchema": {}, "execution": {"taskSupport": "optional"}},
            {"name": "never", "inputSchema": {}, "execution": {"taskSupport": "forbidden"}},
            {"name": "plain", "inputSchema": {}}
        ]}});
        tools.note(listed.to_string().as_bytes());
        assert!(tools.runs_as_task("research"));
        assert!(tools.runs_as_task("maybe"));
        assert!(!tools.runs_as_task("never"));
        assert!(!tools.runs_as_task("plain"));
        // A later listing that forbids it again is heeded.
        let relisted = serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [
            {"name": "research", "inputSchema": {}, "execution": {"taskSupport": "forbidden"}}
        ]}});
        tools.note(relisted.to_string().as_bytes());
        assert!(!tools.runs_as_task("research"));
        // A tool's result that merely mentions the word changes nothing.
        tools.note(br#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"\"taskSupport\""}]}}"#);
        assert!(tools.runs_as_task("maybe"));
    }

    #[test]
    fn a_task_state_is_read_from_either_shape() {
        let created: Created = serde_json::from_value(serde_json::json!({"task": {
            "taskId": "t1", "status": "working", "ttl": 300000, "pollInterval": 1000,
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z"}}))
        .unwrap();
        assert_eq!(created.task.poll_interval, Some(1000));
        assert_eq!(created.task.ttl, Some(300000));
        let polled: ServerResult = serde_json::from_value(serde_json::json!({
            "taskId": "t1", "status": "completed", "statusMessage": "done",
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": null}))
        .unwrap();
        let state = read_state(&polled).unwrap();
        assert_eq!(state.status, "completed");
        assert_eq!(state.status_message.as_deref(), Some("done"));
    }
}
