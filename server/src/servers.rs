//! The MCP servers the bridge runs: started in parallel at launch, their tool lists cached,
//! their tools called under a timeout and a concurrency bound, crashes noticed and reported with
//! the server's stderr, restarts on the next call with backoff, and a clean stop (no orphans).

pub(crate) mod challenge;
pub mod client;
mod connect;
pub(crate) mod demo;
pub(crate) mod masked;
pub(crate) mod program;
pub mod reaper;
pub(crate) mod revisions;
pub mod spec;
pub(crate) mod stderr;
pub(crate) mod watchdog;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use mcp_bridge_protocol::errors::tool_failure;

use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification,
    CancelledNotificationParam, ClientNotification, ClientRequest, JsonObject, ServerResult, Tool,
};
use rmcp::service::PeerRequestOptions;
use serde::Serialize;
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::calls::activity::CallActivity;
use crate::error::{BridgeError, code};
use crate::oauth::SignIns;
use crate::redact::redact;
use connect::{Client, StartFailure, connect};
use mcp_bridge_protocol::health::ServerCounts;
pub use spec::{ServerSpec, Transport};
use stderr::StderrTail;

/// The longest pause between restart attempts.
pub(crate) const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// How long a stopping server gets to exit before its process group is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// How long a crash report waits for the dead server's stderr to be fully read.
const CRASH_STDERR_WAIT: Duration = Duration::from_secs(2);

/// The wait before restart attempt number `failures` (1, 2, 4 … 60 s; none before the first).
pub(crate) fn backoff(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    let seconds = 1u64 << (failures - 1).min(6);
    Duration::from_secs(seconds).min(MAX_BACKOFF)
}

/// What `GET /tools` says about a server.
pub(crate) use mcp_bridge_protocol::answers::ServerStatus as Status;

/// A running connection to one server process (one "generation").
struct Live {
    generation: u64,
    peer: rmcp::Peer<rmcp::RoleClient>,
    client: Mutex<Option<Client>>,
    stderr: Arc<StderrTail>,
    pid: Option<u32>,
    /// The tag its processes carry (`reaper`).
    tag: Option<String>,
    /// When this generation started (for the uptime).
    started: std::time::Instant,
}

impl Live {
    fn alive(&self) -> bool {
        !self.peer.is_transport_closed()
    }

    fn take_client(&self) -> Option<Client> {
        self.client
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    }
}

#[derive(Debug, Clone)]
struct Health {
    /// Start failures and crashes since the last call that reached the server.
    failures: u32,
    /// When the last failure happened.
    since: Instant,
    status: Status,
    reason: String,
    stderr: String,
}

/// One configured MCP server.
pub struct Server {
    spec: ServerSpec,
    /// Shared, so that each call's masking takes it without copying the values.
    secrets: Arc<[String]>,
    /// The bridge's own secrets (its token): masked, and kept out of the child's environment.
    withheld: Vec<String>,
    /// [`Server::secrets`] and the sign-in tokens held for it: masked in all it sends.
    known: masked::Known,
    live: Mutex<Option<Arc<Live>>>,
    health: Mutex<Health>,
    start_lock: tokio::sync::Mutex<()>,
    /// Its lists and calls in flight, shared with its connection's handler.
    shared: Arc<client::Shared>,
    instructions: RwLock<Option<String>>,
    permits: Semaphore,
    generation: AtomicU64,
    stopping: AtomicBool,
    /// Stopped because its definition changed, it was disabled, removed or restarted (not
    /// because the bridge stops).
    retired: AtomicBool,
    /// The largest message accepted from the server, in bytes.
    max_message: usize,
    /// The sign-ins of remote servers (their tokens, their state).
    sign_ins: Arc<SignIns>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Server {
    fn new(
        spec: ServerSpec,
        withheld: Vec<String>,
        max_message: usize,
        sign_ins: Arc<SignIns>,
    ) -> Self {
        let mut secrets = spec.secrets();
        secrets.extend(withheld.iter().cloned());
        let secrets: Arc<[String]> = secrets.into();
        let known = masked::Known::new(&spec, secrets.clone(), &sign_ins);
        let permits = Semaphore::new(spec.max_concurrent_calls);
        let shared = Arc::new(client::Shared::new(&spec));
        Server {
            spec,
            secrets,
            withheld,
            known,
            live: Mutex::new(None),
            health: Mutex::new(Health {
                failures: 0,
                since: Instant::now(),
                status: Status::Starting,
                reason: "it is still starting".to_owned(),
                stderr: String::new(),
            }),
            start_lock: tokio::sync::Mutex::new(()),
            shared,
            instructions: RwLock::new(None),
            permits,
            generation: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
            retired: AtomicBool::new(false),
            max_message,
            sign_ins,
        }
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The values masked wherever this server's words are shown: its configured secrets and the
    /// bridge's own.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// Every value masked in what this server sends, now: [`Server::secrets`] and the access
    /// and refresh tokens the bridge holds for it; shared with work that outlives the borrow
    /// (a large result's masking off the async threads).
    pub(crate) async fn known_secrets(&self) -> Arc<[String]> {
        self.known.values().await
    }

    pub(crate) fn spec(&self) -> &ServerSpec {
        &self.spec
    }

    /// The configured description, else the server's own instructions.
    pub(crate) fn description(&self) -> String {
        if !self.spec.description.is_empty() {
            return self.spec.description.clone();
        }
        self.instructions
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
            .unwrap_or_default()
    }

    pub(crate) fn status(&self) -> Status {
        if let Some(live) = self.current()
            && live.alive()
        {
            return Status::Running;
        }
        match lock(&self.health).status {
            Status::Running => Status::Crashed,
            other => other,
        }
    }

    /// The last error that kept the server from running, with its stderr tail.
    pub(crate) fn last_failure(&self) -> (String, String) {
        let health = lock(&self.health);
        (health.reason.clone(), health.stderr.clone())
    }

    /// The tools of the last successful start, or of the last reload after the server said
    /// they changed (kept across a crash, for routing).
    pub(crate) fn tools(&self) -> Arc<Vec<Tool>> {
        self.shared.lists().tools
    }

    /// Its tools, prompts, resources and resource templates, as last fetched.
    pub fn lists(&self) -> client::Lists {
        self.shared.lists()
    }

    /// How many times the server announced that a list changed (each reloaded the list).
    pub fn list_changes(&self) -> u64 {
        self.shared.changes()
    }

    /// What the AI is told about this server: the instructions of its initialize answer, then
    /// those of its config entry; empty when there are none.
    pub fn instructions(&self) -> String {
        let own = self
            .instructions
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
            .unwrap_or_default();
        [own.trim(), self.spec.mcp.instructions.trim()]
            .iter()
            .filter(|part| !part.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    pub(crate) fn tool(&self, name: &str) -> Option<Tool> {
        self.tools().iter().find(|tool| tool.name == name).cloned()
    }

    /// Whether it lists a tool named `name` (without copying the tool, as [`Server::tool`] does).
    pub(crate) fn has_tool(&self, name: &str) -> bool {
        self.tools().iter().any(|tool| tool.name == name)
    }

    /// The `outputSchema` of its tool `name`, if it declares one.
    pub(crate) fn output_schema(&self, name: &str) -> Option<Arc<JsonObject>> {
        self.tools()
            .iter()
            .find(|tool| tool.name == name)
            .and_then(|tool| tool.output_schema.clone())
    }

    /// The pid (and process group id) of the running child, if any.
    pub fn pid(&self) -> Option<u32> {
        self.current().and_then(|live| live.pid)
    }

    /// How long the running child has been up.
    pub(crate) fn uptime(&self) -> Option<Duration> {
        self.current()
            .filter(|live| live.alive())
            .map(|live| live.started.elapsed())
    }

    fn current(&self) -> Option<Arc<Live>> {
        lock(&self.live).clone()
    }

    fn unavailable(&self, message: String, stderr: String) -> BridgeError {
        BridgeError::ServerUnavailable {
            server: self.spec.name.clone(),
            message: redact(&message, &self.secrets),
            traceback: stderr,
        }
    }

    /// Start a new generation; on failure the health records it.
    async fn start(&self) -> Result<Arc<Live>, StartFailure> {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        match connect(
            &self.shared,
            &self.spec,
            &self.known,
            &self.withheld,
            self.max_message,
            &self.sign_ins,
        )
        .await
        {
            Ok(connected) => {
                self.sign_ins.note_started(&self.spec.name);
                tracing::info!(
                    server = %self.spec.name,
                    tools = connected.tools,
                    pid = connected.pid,
                    "MCP server started"
                );
                *self
                    .instructions
                    .write()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = connected.instructions;
                if let Some(pid) = connected.pid {
                    crate::servers::watchdog::watch(pid);
                }
                let live = Arc::new(Live {
                    generation,
                    peer: connected.client.peer().clone(),
                    client: Mutex::new(Some(connected.client)),
                    stderr: connected.stderr,
                    pid: connected.pid,
                    tag: connected.tag,
                    started: std::time::Instant::now(),
                });
                {
                    let mut health = lock(&self.health);
                    health.status = Status::Running;
                }
                *lock(&self.live) = Some(live.clone());
                if self.stopping.load(Ordering::SeqCst) {
                    // The bridge began to stop while this server was starting.
                    self.stop().await;
                }
                Ok(live)
            }
            Err(failure) => {
                tracing::error!(
                    server = %self.spec.name,
                    error = %failure.message,
                    stderr = %failure.stderr,
                    "MCP server failed to start"
                );
                if let Some(challenge) = &failure.challenge {
                    self.sign_ins.note_needed(
                        &self.spec.name,
                        challenge.clone(),
                        failure.message.clone(),
                    );
                }
                let mut health = lock(&self.health);
                health.failures += 1;
                health.since = Instant::now();
                health.status = Status::Unavailable;
                health.reason = failure.message.clone();
                health.stderr = failure.stderr.clone();
                Err(failure)
            }
        }
    }

    /// Forget generation `generation` after it died, and count the crash.
    fn mark_crashed(&self, generation: u64, reason: &str) {
        let old = {
            let mut live = lock(&self.live);
            match live.as_ref() {
                Some(current) if current.generation == generation => live.take(),
                _ => None,
            }
        };
        let Some(old) = old else { return };
        let tail = old.stderr.tail();
        if !self.stopping.load(Ordering::SeqCst) {
            tracing::error!(server = %self.spec.name, reason, stderr = %tail, "MCP server crashed");
        }
        {
            let mut health = lock(&self.health);
            health.failures += 1;
            health.since = Instant::now();
            health.status = Status::Crashed;
            health.reason = reason.to_owned();
            health.stderr = tail;
        }
        tokio::spawn(dispose(old));
    }

    /// The running connection, (re)starting the server if needed and allowed before `deadline`.
    async fn ensure_live(&self, deadline: Instant) -> Result<Arc<Live>, BridgeError> {
        if let Some(live) = self.current() {
            if live.alive() {
                return Ok(live);
            }
            self.mark_crashed(live.generation, "the server process exited");
        }
        if self.stopping.load(Ordering::SeqCst) {
            let why = if self.retired.load(Ordering::SeqCst) {
                "its definition changed, or it was disabled, removed or restarted; try again"
            } else {
                "the bridge is shutting down"
            };
            return Err(self.unavailable(
                format!("MCP server `{}` is stopping because {why}", self.spec.name),
                String::new(),
            ));
        }
        let Ok(_guard) = tokio::time::timeout_at(deadline, self.start_lock.lock()).await else {
            return Err(self.unavailable(
                format!(
                    "MCP server `{}` is still starting; try again shortly",
                    self.spec.name
                ),
                String::new(),
            ));
        };
        if let Some(live) = self.current()
            && live.alive()
        {
            return Ok(live);
        }
        let health = lock(&self.health).clone();
        let retry_at = health.since + backoff(health.failures);
        let now = Instant::now();
        if retry_at > deadline {
            let wait = retry_at.saturating_duration_since(now).as_secs_f64().ceil();
            return Err(self.unavailable(
                format!(
                    "MCP server `{}` is not running: {}. The bridge restarts it on a call made in {wait} s or later. \
                     If this keeps happening, tell the user to check the server's command in the bridge config; \
                     its stderr is in the traceback.",
                    self.spec.name, health.reason
                ),
                health.stderr,
            ));
        }
        tokio::time::sleep_until(retry_at).await;
        tracing::info!(server = %self.spec.name, failures = health.failures, "starting MCP server");
        match tokio::time::timeout_at(deadline, self.start()).await {
            Ok(Ok(live)) => Ok(live),
            Ok(Err(failure)) if failure.challenge.is_some() => Err(self.sign_in_required(
                self.sign_ins.refresh_refused(&self.spec.name),
                &failure.message,
            )),
            Ok(Err(failure)) => Err(self.unavailable(
                format!(
                    "MCP server `{}` could not be started: {}. Tell the user to check its command in the bridge config; \
                     its stderr is in the traceback.",
                    self.spec.name, failure.message
                ),
                failure.stderr,
            )),
            Err(_) => {
                let mut health = lock(&self.health);
                health.failures += 1;
                health.since = Instant::now();
                health.reason = "it did not finish starting before the call's deadline".to_owned();
                Err(self.unavailable(
                    format!(
                        "MCP server `{}` did not finish starting before the call timed out",
                        self.spec.name
                    ),
                    String::new(),
                ))
            }
        }
    }

    /// The report of a call to a server that needs the user to sign in: `again` (why the
    /// sign-in could not be renewed) when it was signed in before, else `reason`.
    fn sign_in_required(&self, again: Option<String>, reason: &str) -> BridgeError {
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
    fn signed_out_by_refresh(&self, live: &Live, why: String) -> BridgeError {
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
    fn note_alive(&self) {
        let mut health = lock(&self.health);
        health.failures = 0;
        health.status = Status::Running;
    }

    /// Call `tool`; the whole call (restart, queueing, the call itself) gets `timeout`. When the
    /// time is up the MCP request is cancelled (`notifications/cancelled`).
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
        let outcome = self
            .run_call(&live, params, &activity, deadline, timeout)
            .await;
        match outcome {
            None => Err(timed_out()),
            Some(Ok(ServerResult::CallToolResult(result))) => {
                self.note_alive();
                Ok(result)
            }
            Some(Ok(_)) => {
                self.note_alive();
                Err(BridgeError::ToolFailed {
                    server: self.spec.name.clone(),
                    tool: tool.to_owned(),
                    code: code::INTERNAL_ERROR,
                    error_type: tool_failure::UNSUPPORTED_RESPONSE.to_owned(),
                    message: format!(
                        "Tool `{tool}` asked for more input or started a background task; \
                         the bridge cannot answer either, so the call was not completed."
                    ),
                    traceback: String::new(),
                    input_schema: None,
                })
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
    async fn run_call(
        &self,
        live: &Live,
        params: CallToolRequestParams,
        activity: &Arc<CallActivity>,
        mut deadline: Instant,
        timeout: Duration,
    ) -> Option<Result<ServerResult, ServiceError>> {
        let most = self
            .spec
            .mcp
            .max_call_time
            .unwrap_or(crate::servers::spec::DEFAULT_MAX_CALL_TIME)
            .max(timeout);
        let mut cap = Instant::now() + most;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = match tokio::time::timeout_at(
            deadline,
            live.peer
                .send_request_with_option(request, PeerRequestOptions::no_options()),
        )
        .await
        {
            Err(_) => return None,
            Ok(Err(err)) => return Some(Err(err)),
            Ok(Ok(handle)) => handle,
        };
        let _tracked = self
            .shared
            .track(handle.progress_token.clone(), activity.clone());
        let mut abandon = CancelOnDrop {
            peer: live.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let mut changes = activity.subscribe();
        let mut seen = changes
            .borrow_and_update()
            .progress
            .as_ref()
            .map_or(0, |p| p.updates);
        let response = handle.await_response();
        tokio::pin!(response);
        // The time that was left when the user was asked a question.
        let mut paused: Option<(Duration, Instant)> = None;
        loop {
            let until = deadline.min(cap);
            tokio::select! {
                result = &mut response => {
                    abandon.id = None;
                    return Some(result);
                }
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
        let sent = async {
            let handle = live
                .peer
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await?;
            let mut abandon = CancelOnDrop {
                peer: live.peer.clone(),
                id: Some(handle.id.clone()),
            };
            let result = handle.await_response().await;
            abandon.id = None;
            result
        };
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

    /// The error for a call cut short because the bridge, or this server, is stopping.
    fn shutting_down(&self, tool: &str) -> BridgeError {
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
    async fn crashed(&self, tool: &str, live: &Arc<Live>, mark: u64) -> BridgeError {
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

    async fn tool_failed(
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

    /// Stop the server because the config no longer has it as it is (or a restart was asked).
    async fn retire(&self) {
        self.retired.store(true, Ordering::SeqCst);
        self.stop().await;
    }

    /// Stop the server and everything it started.
    pub(crate) async fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let live = lock(&self.live).take();
        if let Some(live) = live {
            dispose(live).await;
        }
        lock(&self.health).status = Status::Stopped;
    }
}

/// Sends `notifications/cancelled` for a request abandoned before its answer came.
struct CancelOnDrop {
    peer: rmcp::Peer<rmcp::RoleClient>,
    id: Option<rmcp::model::RequestId>,
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

/// Close a connection: stdin closed, then SIGTERM, then SIGKILL (rmcp's sequence), and finally
/// SIGKILL to the whole process group so grandchildren (`npx` → `node`) go too.
async fn dispose(live: Arc<Live>) {
    if let Some(client) = live.take_client() {
        let _ = tokio::time::timeout(STOP_GRACE, client.cancel()).await;
    }
    if let Some(pid) = live.pid {
        #[cfg(unix)]
        kill_group(pid);
        crate::servers::watchdog::forget(pid);
    }
    // Descendants that left the process group (`setsid`) carry the server's tag.
    if let Some(tag) = live.tag.clone() {
        let pid = live.pid;
        let _ = tokio::task::spawn_blocking(move || reaper::kill_tagged(&tag, pid)).await;
    }
}

#[cfg(unix)]
fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal; the group is one this process created.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// All configured servers, in config order. The set changes while the bridge runs (servers
/// added, replaced, removed or restarted), so readers get a snapshot.
pub struct Registry {
    servers: RwLock<Vec<Arc<Server>>>,
    sign_ins: Arc<SignIns>,
    withheld: Vec<String>,
    max_message: usize,
    /// Set by [`Registry::shutdown`]: no server is started after it.
    closed: AtomicBool,
}

/// What [`Registry::apply`] changed, by server name.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Changes {
    pub(crate) added: Vec<String>,
    pub(crate) restarted: Vec<String>,
    pub(crate) removed: Vec<String>,
    pub(crate) unchanged: Vec<String>,
}

impl Changes {
    pub(crate) fn is_empty(&self) -> bool {
        self.added.is_empty() && self.restarted.is_empty() && self.removed.is_empty()
    }
}

/// Start `server` unless it runs or is stopping (its first start, or after a restart).
async fn start_once(server: &Server) {
    let _guard = server.start_lock.lock().await;
    if server.current().is_none() && !server.stopping.load(Ordering::SeqCst) {
        let _ = server.start().await;
    }
}

impl Registry {
    /// The configured servers, not started yet.
    pub fn new(specs: Vec<ServerSpec>) -> Self {
        Self::withholding(specs, Vec::new())
    }

    /// The configured servers, not started yet; `withheld` (the bridge's token) is masked in
    /// everything they report and kept out of their environment.
    pub(crate) fn withholding(specs: Vec<ServerSpec>, withheld: Vec<String>) -> Self {
        Self::limited(
            specs,
            withheld,
            crate::calls::results::Limits::default().max_message(),
            Arc::new(SignIns::new(None)),
        )
    }

    /// [`Registry::withholding`], accepting messages up to `max_message` bytes from the
    /// servers (a larger one is dropped by the transport and its call times out).
    pub(crate) fn limited(
        specs: Vec<ServerSpec>,
        withheld: Vec<String>,
        max_message: usize,
        sign_ins: Arc<SignIns>,
    ) -> Self {
        let withheld: Vec<String> = withheld.into_iter().filter(|s| !s.is_empty()).collect();
        let servers = specs
            .into_iter()
            .map(|s| {
                Arc::new(Server::new(
                    s,
                    withheld.clone(),
                    max_message,
                    sign_ins.clone(),
                ))
            })
            .collect();
        Registry {
            servers: RwLock::new(servers),
            sign_ins,
            withheld,
            max_message,
            closed: AtomicBool::new(false),
        }
    }

    fn build(&self, spec: ServerSpec) -> Arc<Server> {
        let server = Server::new(
            spec,
            self.withheld.clone(),
            self.max_message,
            self.sign_ins.clone(),
        );
        if self.closed.load(Ordering::SeqCst) {
            // A change that raced with the shutdown: the server is never started.
            server.stopping.store(true, Ordering::SeqCst);
        }
        Arc::new(server)
    }

    /// Start every server in parallel; those that fail stay unavailable (and are retried on
    /// their next call). Calls meanwhile wait for the start. If this future is dropped, the
    /// children being started are killed.
    pub async fn start_all(&self) {
        let servers = self.servers();
        futures::future::join_all(servers.iter().map(|server| start_once(server))).await;
    }

    /// Make the servers those of `specs`, in that order: a server whose definition is the same
    /// keeps running; a new one is started and a changed one restarted (in the background); one
    /// that is gone is stopped.
    pub(crate) async fn apply(&self, specs: Vec<ServerSpec>) -> Changes {
        let mut changes = Changes::default();
        let mut fresh = Vec::new();
        let old = {
            let mut servers = self
                .servers
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let mut next = Vec::with_capacity(specs.len());
            for spec in specs {
                match servers.iter().find(|s| s.name() == spec.name) {
                    Some(existing) if *existing.spec() == spec => {
                        changes.unchanged.push(spec.name.clone());
                        next.push(existing.clone());
                    }
                    found => {
                        if found.is_some() {
                            changes.restarted.push(spec.name.clone());
                        } else {
                            changes.added.push(spec.name.clone());
                        }
                        let server = self.build(spec);
                        fresh.push(server.clone());
                        next.push(server);
                    }
                }
            }
            std::mem::replace(&mut *servers, next)
        };
        let current = self.servers();
        let retired: Vec<Arc<Server>> = old
            .into_iter()
            .filter(|s| !current.iter().any(|c| Arc::ptr_eq(c, s)))
            .collect();
        for server in &retired {
            if !current.iter().any(|c| c.name() == server.name()) {
                changes.removed.push(server.name().to_owned());
            }
        }
        if !changes.is_empty() {
            tracing::info!(
                added = ?changes.added,
                restarted = ?changes.restarted,
                removed = ?changes.removed,
                "servers changed"
            );
        }
        // The old processes go before their replacements start (a server may hold a port or
        // a lock file).
        futures::future::join_all(retired.iter().map(|server| server.retire())).await;
        for server in fresh {
            tokio::spawn(async move { start_once(&server).await });
        }
        changes
    }

    /// The sign-ins of the remote servers.
    pub(crate) fn sign_ins(&self) -> &Arc<SignIns> {
        &self.sign_ins
    }

    /// Stop `name` and start it again with the same definition; `false` if there is none.
    pub(crate) async fn restart(&self, name: &str) -> bool {
        let (old, fresh) = {
            let mut servers = self
                .servers
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let Some(index) = servers.iter().position(|s| s.name() == name) else {
                return false;
            };
            let fresh = self.build(servers[index].spec().clone());
            (std::mem::replace(&mut servers[index], fresh.clone()), fresh)
        };
        tracing::info!(server = name, "restarting MCP server");
        old.retire().await;
        tokio::spawn(async move { start_once(&fresh).await });
        true
    }

    /// Whether a server's first start is still under way.
    pub(crate) fn any_starting(&self) -> bool {
        self.servers()
            .iter()
            .any(|s| s.status() == Status::Starting)
    }

    /// Wait until no server is in its first start, at most until `deadline`.
    pub(crate) async fn wait_started(&self, deadline: Instant) {
        for server in self
            .servers()
            .iter()
            .filter(|s| s.status() == Status::Starting)
        {
            let _ = tokio::time::timeout_at(deadline, server.start_lock.lock()).await;
        }
    }

    /// How many servers are starting, running, and failed (crashed or unavailable).
    pub(crate) fn summary(&self) -> ServerCounts {
        let servers = self.servers();
        let count = |wanted: &[Status]| {
            servers
                .iter()
                .filter(|s| wanted.contains(&s.status()))
                .count()
        };
        ServerCounts {
            starting: count(&[Status::Starting]),
            running: count(&[Status::Running]),
            failed: count(&[Status::Crashed, Status::Unavailable]),
        }
    }

    /// The servers now, in config order.
    pub fn servers(&self) -> Vec<Arc<Server>> {
        self.servers
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    pub fn get(&self, name: &str) -> Option<Arc<Server>> {
        self.servers()
            .into_iter()
            .find(|server| server.name() == name)
    }

    /// The servers that have `tool`, in config order.
    pub(crate) fn with_tool(&self, tool: &str) -> Vec<Arc<Server>> {
        self.servers()
            .into_iter()
            .filter(|server| server.has_tool(tool))
            .collect()
    }

    /// Stop all servers (in parallel) and their process groups; none is started afterwards.
    pub async fn shutdown(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let servers = self.servers();
        futures::future::join_all(servers.iter().map(|server| server.stop())).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_a_minute() {
        let seconds: Vec<u64> = (0..10).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(seconds, [0, 1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    #[tokio::test]
    async fn apply_keeps_unchanged_servers_and_reports_the_rest() {
        let spec = |name: &str, command: &str| ServerSpec {
            name: name.to_owned(),
            transport: Transport::Stdio {
                command: command.to_owned(),
                args: Vec::new(),
                env: Default::default(),
                cwd: None,
            },
            description: String::new(),
            is_core: false,
            startup_timeout: Duration::from_secs(1),
            call_timeout: None,
            max_concurrent_calls: 1,
            mcp: Default::default(),
        };
        let registry = Registry::new(vec![spec("a", "x"), spec("b", "y")]);
        // Closed first, so that nothing is started by this test.
        registry.shutdown().await;
        let a = registry.get("a").unwrap();
        let changes = registry
            .apply(vec![spec("c", "z"), spec("a", "x"), spec("b", "changed")])
            .await;
        assert_eq!(changes.added, ["c"]);
        assert_eq!(changes.restarted, ["b"]);
        assert_eq!(changes.unchanged, ["a"]);
        assert!(changes.removed.is_empty());
        assert!(Arc::ptr_eq(&a, &registry.get("a").unwrap()));
        let names: Vec<String> = registry
            .servers()
            .iter()
            .map(|s| s.name().to_owned())
            .collect();
        assert_eq!(names, ["c", "a", "b"]);
        let changes = registry.apply(vec![spec("a", "x")]).await;
        assert_eq!(changes.removed, ["c", "b"]);
        assert!(registry.restart("a").await);
        assert!(!registry.restart("nope").await);
    }
}
