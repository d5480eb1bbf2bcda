//! The set of configured servers: built from the config, started in parallel, changed while
//! the bridge runs (added, restarted, removed) and stopped together.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use mcp_bridge_protocol::health::ServerCounts;
use serde::Serialize;
use tokio::time::Instant;

use super::{Server, ServerSpec, Status};
use crate::oauth::SignIns;

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
    use std::time::Duration;

    use super::*;
    use crate::servers::Transport;

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
