//! The call path: a `tools/call` or another MCP request sent to a running server under its
//! deadline and concurrency bound, cancelled when abandoned, and every way it can fail turned
//! into the bridge's error.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_bridge_protocol::errors::tool_failure;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification,
    CancelledNotificationParam, ClientNotification, ClientRequest, JsonObject, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use tokio::time::Instant;

use super::challenge;
use super::input_required;
use super::lifecycle::dispose;
use super::{CRASH_STDERR_WAIT, Live, Server, Status, Transport, lock};
use crate::calls::activity::CallActivity;
use crate::error::{BridgeError, code};
use crate::redact::redact;

impl Server {
    /// The report of a call to a server that needs the user to sign in: `again` (why the
    /// sign-in could not be renewed) when it was signed in before, else `reason`.
    pub(super) fn sign_in_required(&self, again: Option<String>, reason: &str) -> BridgeError {
        let name = &self.spec.name;
        let (needs, why) = match &again {
            Some(why) => ("needs the user to sign in again", why.as_str()),
            None => ("needs the user to sign in", reason),
        };
        BridgeError::SignInRequired {
            server: name.clone(),
            message: redact(
                &format!(
                    "MCP server `{name}` {needs}: {why}. This is for the user, not for you: tell them to press \
                     *Sign in* beside `{name}` in the extension's options page, then ask again."
                ),
                &self.secrets,
            ),
        }
    }

    /// A call failed because the authorization server refused to renew the sign-in: the
    /// connection (which has no tokens left) is dropped, so that the next call starts the
    /// server afresh and meets its sign-in challenge; this call is reported as needing one.
    pub(super) fn signed_out_by_refresh(&self, live: &Live, why: String) -> BridgeError {
        let old = {
            let mut current = lock(&self.live);
            match current.as_ref() {
                Some(c) if c.generation == live.generation => current.take(),
                _ => None,
            }
        };
        if let Some(old) = old {
            tokio::spawn(dispose(old));
        }
        {
            let mut health = lock(&self.health);
            health.status = Status::Unavailable;
            health.reason = format!("it needs the user to sign in again: {why}");
        }
        self.sign_in_required(Some(why), "")
    }

    /// A request was refused for a sign-in it lacks: a 401, or a 403 `insufficient_scope`
    /// naming a scope the sign-in was not granted. The challenge is noted, so that the next
    /// sign-in asks for what it names, and the connection is dropped as after a refused
    /// renewal; this call is reported as needing the user to sign in again.
    fn refused_for_sign_in(&self, live: &Live, challenge: String) -> BridgeError {
        let why = if challenge.contains("insufficient_scope") {
            "it answered that this request needs a sign-in with more access"
        } else {
            "it answered that it needs a sign-in"
        }
        .to_owned();
        let refused = self.signed_out_by_refresh(live, why.clone());
        self.sign_ins.note_needed(&self.spec.name, challenge, why);
        refused
    }

    /// The server answered: its failures so far are forgiven.
    pub(super) fn note_alive(&self) {
        let mut health = lock(&self.health);
        health.failures = 0;
        health.status = Status::Running;
    }

    /// The longest a call given `timeout` may take while its server answers (the server's
    /// `max_call_time`, never under the timeout).
    pub(super) fn longest_call(&self, timeout: Duration) -> Duration {
        self.spec
            .mcp
            .max_call_time
            .unwrap_or(crate::servers::spec::DEFAULT_MAX_CALL_TIME)
            .max(timeout)
    }

    /// Call `tool`; the whole call (restart, queueing, the call itself) gets `timeout`. When the
    /// time is up the MCP request is cancelled (`notifications/cancelled`). A tool the server
    /// runs as a task is followed as `super::tasks` says, its task cancelled (`tasks/cancel`)
    /// when the call is.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: JsonObject,
        timeout: Duration,
    ) -> Result<CallToolResult, BridgeError> {
        let deadline = Instant::now() + timeout;
        let timed_out = || BridgeError::Timeout {
            server: self.spec.name.clone(),
            tool: tool.to_owned(),
            seconds: timeout.as_secs_f64(),
            message: format!(
                "Tool `{tool}` on server `{}` did not finish within {} s, so the bridge cancelled it. \
                 It may be slow or stuck: try a smaller request, or tell the user the call timeout \
                 (--call-timeout or the server's call_timeout) can be raised.",
                self.spec.name,
                timeout.as_secs_f64()
            ),
        };
        let live = self.ensure_live(deadline).await?;
        let Ok(permit) = tokio::time::timeout_at(deadline, self.permits.acquire()).await else {
            return Err(timed_out());
        };
        let _permit = permit.map_err(|_| {
            self.unavailable(
                format!("MCP server `{}` is stopping", self.spec.name),
                String::new(),
            )
        })?;
        let mark = live.stderr.mark();
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        // A background call has its own activity (shown by GET /calls/{id}); a direct one still
        // gets its timeout reset by progress.
        let activity = crate::calls::activity::current()
            .unwrap_or_else(|| Arc::new(crate::calls::activity::CallActivity::unseen()));
        // Dropping the call future (timeout, DELETE /calls/{id}) sends notifications/cancelled.
        // A tool the server runs as a task is followed until the task ends, past the timeout.
        let outcome = if super::tasks::runs_as_task(&live, tool) {
            self.run_task(&live, params, &activity, deadline, timeout)
                .await?
        } else {
            self.run_call(&live, params, &activity, deadline, timeout)
                .await
        };
        // A 2026-07-28 server may answer with a task (the tasks extension), followed to its end.
        let outcome = match outcome {
            Some(Ok(ServerResult::CreateTaskResult(created)))
                if super::ext_tasks::declared(&live) =>
            {
                self.follow_task(&live, tool, created, &activity, timeout)
                    .await?
            }
            other => other,
        };
        match outcome {
            None => Err(timed_out()),
            Some(Ok(ServerResult::CallToolResult(result))) => {
                self.note_alive();
                Ok(result)
            }
            // A task handle of the tasks extension from a server it was not declared to: an
            // invalid answer, which no later call should take for a task of 2025-11-25.
            Some(Ok(ServerResult::CreateTaskResult(_))) => {
                self.note_alive();
                Err(self.unsupported_response(
                    tool,
                    format!(
                        "Tool `{tool}` answered with a task of the tasks extension \
                         (io.modelcontextprotocol/tasks), which the bridge declares only to servers \
                         of MCP 2026-07-28, not to `{}`; so this call has no result.",
                        self.spec.name
                    ),
                ))
            }
            Some(Ok(_)) => {
                self.note_alive();
                // A task the call did not ask for: the server runs the tool as a task, though
                // its listing did not say so. The next call asks for one and follows it.
                live.tasks.mark(tool);
                Err(self.unsupported_response(
                    tool,
                    format!(
                        "Tool `{tool}` started a background task without being asked to, so \
                         this call has no result. The bridge now calls `{tool}` as a task and \
                         follows it to its result."
                    ),
                ))
            }
            Some(Err(_)) if self.stopping.load(Ordering::SeqCst) => Err(self.shutting_down(tool)),
            Some(Err(ServiceError::McpError(error))) => {
                self.note_alive();
                Err(self.tool_failed(tool, error, &live, mark).await)
            }
            Some(Err(ServiceError::Timeout { .. })) => Err(timed_out()),
            Some(Err(ServiceError::Cancelled { reason })) => Err(BridgeError::Cancelled {
                server: self.spec.name.clone(),
                tool: tool.to_owned(),
                by_user: false,
                message: format!(
                    "The call of tool `{tool}` was cancelled{}.",
                    reason.map(|r| format!(": {r}")).unwrap_or_default()
                ),
            }),
            Some(Err(_)) if self.sign_ins.refresh_refused(&self.spec.name).is_some() => {
                let why = self
                    .sign_ins
                    .refresh_refused(&self.spec.name)
                    .unwrap_or_default();
                Err(self.signed_out_by_refresh(&live, why))
            }
            Some(Err(err)) if let Some(challenge) = challenge::of(&err) => {
                Err(self.refused_for_sign_in(&live, challenge))
            }
            Some(Err(err)) if !live.alive() || matches!(err, ServiceError::TransportClosed) => {
                Err(self.crashed(tool, &live, mark).await)
            }
            Some(Err(err)) => Err(BridgeError::Transport {
                server: self.spec.name.clone(),
                tool: tool.to_owned(),
                message: redact(
                    &format!(
                        "The bridge could not talk to MCP server `{}` while calling `{tool}`: {err}",
                        self.spec.name
                    ),
                    &self.secrets,
                ),
            }),
        }
    }

    /// Send the `tools/call` and wait for its answer until `deadline`; `None` when the time is
    /// up. Each progress notification moves the deadline to `timeout` from then, up to the
    /// server's `max_call_time` after the call began; while the server waits for the user to
    /// answer its question the clock stops (the question has its own limit).
    pub(super) async fn run_call(
        &self,
        live: &Live,
        params: CallToolRequestParams,
        activity: &Arc<CallActivity>,
        mut deadline: Instant,
        timeout: Duration,
    ) -> Option<Result<ServerResult, ServiceError>> {
        let mut cap = Instant::now() + self.longest_call(timeout);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut changes = activity.subscribe();
        let mut seen = changes
            .borrow_and_update()
            .progress
            .as_ref()
            .map_or(0, |p| p.updates);
        // Every round of the call: a 2026-07-28 server's questions come in its result, and
        // while the user answers them the clock stops as for any question.
        let response = self.exchange(live, request, Some(activity), true);
        tokio::pin!(response);
        // The time that was left when the user was asked a question.
        let mut paused: Option<(Duration, Instant)> = None;
        loop {
            let until = deadline.min(cap);
            tokio::select! {
                result = &mut response => return Some(result),
                _ = tokio::time::sleep_until(until), if paused.is_none() => return None,
                changed = changes.changed() => {
                    if changed.is_err() {
                        continue;
                    }
                    let snapshot = changes.borrow_and_update().clone();
                    let now = Instant::now();
                    let updates = snapshot.progress.as_ref().map_or(0, |p| p.updates);
                    if updates > seen {
                        seen = updates;
                        deadline = now + timeout;
                    }
                    match (snapshot.elicitation.is_some(), paused) {
                        (true, None) => paused = Some((deadline.saturating_duration_since(now), now)),
                        (false, Some((left, since))) => {
                            deadline = now + left;
                            cap += now - since;
                            paused = None;
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// Send `request` and wait for its answer, cancelling it (`notifications/cancelled`) when
    /// dropped first. An `InputRequiredResult` is answered (`super::input_required`) — its
    /// questions asked through `call` — and the request sent again with the answers, up to
    /// [`input_required::MAX_ROUNDS`] times; the answer is never an `InputRequiredResult`.
    /// With `tasks` (a `tools/call`), it declares the tasks extension where the bridge does
    /// (`super::ext_tasks`), so the answer may be a task handle.
    async fn exchange(
        &self,
        live: &Live,
        mut request: ClientRequest,
        call: Option<&Arc<CallActivity>>,
        tasks: bool,
    ) -> Result<ServerResult, ServiceError> {
        let mut without_questions = 0;
        for _ in 0..input_required::MAX_ROUNDS {
            let handle = live
                .peer
                .send_request_with_option(
                    request.clone(),
                    if tasks {
                        super::ext_tasks::options(live)
                    } else {
                        PeerRequestOptions::no_options()
                    },
                )
                .await?;
            let _tracked = call.map(|call| {
                self.shared
                    .track(handle.progress_token.clone(), call.clone())
            });
            let mut abandon = CancelOnDrop {
                peer: live.peer.clone(),
                id: Some(handle.id.clone()),
            };
            let result = handle.await_response().await;
            abandon.id = None;
            let asked = match result? {
                ServerResult::InputRequiredResult(asked) => asked,
                answer => return Ok(answer),
            };
            let retry = input_required::answer(&self.shared, call, asked)
                .await
                .map_err(ServiceError::McpError)?;
            if retry.responses.is_none() {
                input_required::pause(without_questions).await;
                without_questions += 1;
            } else {
                without_questions = 0;
            }
            if !input_required::carry(&mut request, retry) {
                return Err(ServiceError::UnexpectedResponse);
            }
        }
        Err(ServiceError::McpError(input_required::too_many_rounds()))
    }

    /// Send an MCP request other than `tools/call` (`prompts/get`, `resources/read`,
    /// `completion/complete`) under `timeout`, starting the server if needed. `method` names it
    /// in errors.
    pub(crate) async fn request(
        &self,
        method: &str,
        request: ClientRequest,
        timeout: Duration,
    ) -> Result<ServerResult, BridgeError> {
        let deadline = Instant::now() + timeout;
        let live = self.ensure_live(deadline).await?;
        let mark = live.stderr.mark();
        let sent = self.exchange(&live, request, None, false);
        match tokio::time::timeout_at(deadline, sent).await {
            Err(_) => Err(BridgeError::Timeout {
                server: self.spec.name.clone(),
                tool: method.to_owned(),
                seconds: timeout.as_secs_f64(),
                message: format!(
                    "MCP server `{}` did not answer `{method}` within {} s.",
                    self.spec.name,
                    timeout.as_secs_f64()
                ),
            }),
            Ok(Ok(result)) => {
                self.note_alive();
                Ok(result)
            }
            Ok(Err(ServiceError::McpError(error))) => {
                self.note_alive();
                Err(self.tool_failed(method, error, &live, mark).await)
            }
            Ok(Err(_)) if self.stopping.load(Ordering::SeqCst) => Err(self.shutting_down(method)),
            Ok(Err(_)) if self.sign_ins.refresh_refused(&self.spec.name).is_some() => {
                let why = self
                    .sign_ins
                    .refresh_refused(&self.spec.name)
                    .unwrap_or_default();
                Err(self.signed_out_by_refresh(&live, why))
            }
            Ok(Err(err)) if let Some(challenge) = challenge::of(&err) => {
                Err(self.refused_for_sign_in(&live, challenge))
            }
            Ok(Err(err)) if !live.alive() || matches!(err, ServiceError::TransportClosed) => {
                Err(self.crashed(method, &live, mark).await)
            }
            Ok(Err(err)) => Err(BridgeError::Transport {
                server: self.spec.name.clone(),
                tool: method.to_owned(),
                message: redact(
                    &format!(
                        "The bridge could not talk to MCP server `{}` while sending `{method}`: {err}",
                        self.spec.name
                    ),
                    &self.secrets,
                ),
            }),
        }
    }

    /// The error for a call of `tool` whose answer was no result the bridge can read
    /// (`message` says what came instead).
    fn unsupported_response(&self, tool: &str, message: String) -> BridgeError {
        BridgeError::ToolFailed {
            server: self.spec.name.clone(),
            tool: tool.to_owned(),
            code: code::INTERNAL_ERROR,
            error_type: tool_failure::UNSUPPORTED_RESPONSE.to_owned(),
            message,
            traceback: String::new(),
            input_schema: None,
        }
    }

    /// The error for a call cut short because the bridge, or this server, is stopping.
    pub(super) fn shutting_down(&self, tool: &str) -> BridgeError {
        if self.retired.load(Ordering::SeqCst) {
            return BridgeError::ServerUnavailable {
                server: self.spec.name.clone(),
                message: format!(
                    "MCP server `{}` was stopped while tool `{tool}` was running, because its definition \
                     changed or it was disabled, removed or restarted. The call did not complete and may have \
                     partly taken effect; run it again if the server is still configured.",
                    self.spec.name
                ),
                traceback: String::new(),
            };
        }
        BridgeError::ShuttingDown {
            server: self.spec.name.clone(),
            tool: tool.to_owned(),
            message: format!(
                "The bridge is shutting down: tool `{tool}` on server `{}` was still running when the \
                 shutdown's grace period ended, so the bridge stopped the server. The call did not complete \
                 and may have partly taken effect; run it again once the bridge is back.",
                self.spec.name
            ),
        }
    }

    /// The error for a call whose server died; its traceback is the stderr written since the
    /// call began (`mark`), never an earlier call's.
    pub(super) async fn crashed(&self, tool: &str, live: &Arc<Live>, mark: u64) -> BridgeError {
        if self.stopping.load(Ordering::SeqCst) {
            return self.shutting_down(tool);
        }
        let remote = !matches!(self.spec.transport, Transport::Stdio { .. });
        if !remote {
            live.stderr.wait_closed(CRASH_STDERR_WAIT).await;
        }
        let reason = if remote {
            "the connection to the server was lost"
        } else {
            "the server process exited"
        };
        self.mark_crashed(live.generation, reason);
        let traceback = live.stderr.since(mark);
        if remote {
            return BridgeError::Transport {
                server: self.spec.name.clone(),
                tool: tool.to_owned(),
                message: format!(
                    "The connection to MCP server `{}` was lost while running tool `{tool}`; \
                     the call may or may not have taken effect. The bridge reconnects on the next call.",
                    self.spec.name
                ),
            };
        }
        BridgeError::ServerCrashed {
            server: self.spec.name.clone(),
            tool: tool.to_owned(),
            message: format!(
                "MCP server `{}` crashed (its process exited) while running tool `{tool}`; the call did not complete \
                 and may have partly taken effect. The bridge restarts the server on the next call. \
                 The server's last stderr lines are in the traceback.",
                self.spec.name
            ),
            traceback,
        }
    }

    pub(super) async fn tool_failed(
        &self,
        tool: &str,
        error: rmcp::ErrorData,
        live: &Live,
        mark: u64,
    ) -> BridgeError {
        let data = error.data.as_ref();
        let text_field = |key: &str| {
            data.and_then(|data| data.get(key))
                .and_then(|value| value.as_str())
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
        };
        let code = error.code.0;
        let error_type = text_field("type")
            .or_else(|| text_field("error_type"))
            .unwrap_or_else(|| code::type_name(code).to_owned());
        let traceback = match text_field("traceback").or_else(|| text_field("stack")) {
            Some(traceback) => traceback,
            None => {
                // Servers usually print the stack to stderr just before answering.
                tokio::time::sleep(Duration::from_millis(50)).await;
                live.stderr.since(mark)
            }
        };
        // Bad arguments: the client shows the tool's parameters, in its user's language.
        let input_schema = (code == code::INVALID_PARAMS)
            .then(|| self.tool(tool))
            .flatten()
            .map(|tool| Box::new(serde_json::Value::Object((*tool.input_schema).clone())));
        BridgeError::ToolFailed {
            server: self.spec.name.clone(),
            tool: tool.to_owned(),
            code,
            error_type: redact(&error_type, &self.secrets),
            message: redact(&error.message, &self.secrets),
            traceback: redact(&traceback, &self.secrets),
            input_schema,
        }
    }
}

/// Sends `notifications/cancelled` for a request abandoned before its answer came.
pub(super) struct CancelOnDrop {
    pub(super) peer: rmcp::Peer<rmcp::RoleClient>,
    pub(super) id: Option<rmcp::model::RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        let notification = CancelledNotification::new(CancelledNotificationParam::new(
            Some(id),
            Some("request abandoned by the caller".to_owned()),
        ));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer
                    .send_notification(ClientNotification::CancelledNotification(notification))
                    .await;
            });
        }
    }
}
