//! The MCP servers the bridge runs: started in parallel at launch, their lists cached (for their
//! `ttlMs`, when they give one),
//! their tools called under a timeout and a concurrency bound, crashes noticed and reported with
//! the server's stderr, restarts on the next call with backoff, and a clean stop (no orphans).

mod call;
pub(crate) mod challenge;
pub mod client;
mod connect;
pub(crate) mod demo;
mod ext_tasks;
pub(crate) mod icons;
mod input_required;
mod lifecycle;
mod listen;
pub(crate) mod masked;
pub(crate) mod program;
pub(crate) mod reaper;
mod registry;
pub(crate) mod revisions;
pub(crate) mod spec;
pub(crate) mod stderr;
mod tasks;
pub(crate) mod watchdog;

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::{JsonObject, Tool};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::error::BridgeError;
use crate::oauth::SignIns;
use crate::redact::redact;
use connect::Client;
pub(crate) use registry::Changes;
pub use registry::Registry;
pub(crate) use spec::{ServerSpec, Transport};
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
    /// The tools it runs as tasks.
    tasks: tasks::TaskTools,
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
    pub(crate) fn secrets(&self) -> &[String] {
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
    /// they changed or their `ttlMs` ran out (kept across a crash, for routing).
    pub(crate) fn tools(&self) -> Arc<Vec<Tool>> {
        self.shared.lists().tools
    }

    /// Its tools, prompts, resources and resource templates, as last fetched.
    pub(crate) fn lists(&self) -> client::Lists {
        self.shared.lists()
    }

    /// List `kind` again first when it is older than the `ttlMs` the server gave it (and the
    /// server runs); a list without one is kept until the server announces a change.
    pub(crate) async fn refresh(&self, kind: client::ListKind) {
        if let Some(live) = self.current().filter(|live| live.alive()) {
            self.shared.refresh_if_expired(&live.peer, kind).await;
        }
    }

    /// [`Server::refresh`] for list `kind` of each of `servers`, together.
    pub(crate) async fn refresh_all(servers: &[Arc<Server>], kind: client::ListKind) {
        futures::future::join_all(servers.iter().map(|server| server.refresh(kind))).await;
    }

    /// Its own icon (`serverInfo.icons`), as a `data:` URL.
    pub(crate) fn icon(&self) -> Option<String> {
        self.shared.server_icon()
    }

    /// How many times the server announced that a list changed (each reloaded the list).
    pub(crate) fn list_changes(&self) -> u64 {
        self.shared.changes()
    }

    /// What the AI is told about this server: the instructions of its initialize answer, then
    /// those of its config entry; empty when there are none.
    pub(crate) fn instructions(&self) -> String {
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

    /// Whether it lists a tool named `name` that the AI may call (`views::for_model`), without
    /// copying the tool, as [`Server::tool`] does.
    pub(crate) fn has_tool(&self, name: &str) -> bool {
        self.tools()
            .iter()
            .any(|tool| tool.name == name && crate::views::for_model(tool))
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
}
