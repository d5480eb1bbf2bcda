//! A server's life: starting a generation, noticing that it died, restarting it with backoff
//! when a call needs it, and stopping it with everything it started.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use tokio::time::Instant;

use super::connect::{StartFailure, connect};
use super::{Live, STOP_GRACE, Server, Status, backoff, lock, reaper};
use crate::error::BridgeError;

impl Server {
    /// Start a new generation; on failure the health records it.
    pub(super) async fn start(&self) -> Result<Arc<Live>, StartFailure> {
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
                    tasks: connected.tasks,
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
    pub(super) fn mark_crashed(&self, generation: u64, reason: &str) {
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
    pub(super) async fn ensure_live(&self, deadline: Instant) -> Result<Arc<Live>, BridgeError> {
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

    /// Stop the server because the config no longer has it as it is (or a restart was asked).
    pub(super) async fn retire(&self) {
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

/// Close a connection: stdin closed, then SIGTERM, then SIGKILL (rmcp's sequence), and finally
/// SIGKILL to the whole process group so grandchildren (`npx` → `node`) go too.
pub(super) async fn dispose(live: Arc<Live>) {
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
pub(super) fn kill_group(pgid: u32) {
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
