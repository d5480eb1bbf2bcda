//! What one MCP server is to the bridge once its config entry is read: how to reach it, its
//! limits, and the values that must never be shown.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Concurrent calls allowed to one server that does not set `max_concurrent_calls`.
pub(crate) const DEFAULT_MAX_CONCURRENT_CALLS: usize = 32;
/// The name the built-in demo server gets when there is no config file.
pub(crate) const DEMO_SERVER_NAME: &str = "demo";

/// How the bridge talks to one MCP server.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Set over the bridge's own environment.
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    /// A remote server speaking MCP streamable HTTP.
    StreamableHttp {
        url: String,
        headers: BTreeMap<String, String>,
    },
    /// A remote server speaking the legacy HTTP+SSE transport (not supported by rmcp 3).
    Sse {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// One MCP server, resolved from its config entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    pub name: String,
    pub transport: Transport,
    pub description: String,
    pub is_core: bool,
    pub startup_timeout: Duration,
    /// Overrides `--call-timeout` for this server.
    pub call_timeout: Option<Duration>,
    pub max_concurrent_calls: usize,
}

impl ServerSpec {
    /// The built-in demo server, run by `exe demo-server --root ROOT`; it reads files in `root`.
    pub fn demo(exe: &Path, root: &Path) -> Self {
        ServerSpec {
            name: DEMO_SERVER_NAME.to_owned(),
            transport: Transport::Stdio {
                command: exe.to_string_lossy().into_owned(),
                args: vec![
                    "demo-server".to_owned(),
                    "--root".to_owned(),
                    root.to_string_lossy().into_owned(),
                ],
                env: BTreeMap::new(),
                cwd: None,
            },
            description: "Built-in demo tools of MCP Bridge (echo, add, get_time, read_text_file and one tool for each kind of failure)".to_owned(),
            is_core: true,
            startup_timeout: Duration::from_secs(20),
            call_timeout: None,
            max_concurrent_calls: DEFAULT_MAX_CONCURRENT_CALLS,
        }
    }

    /// Values that must never appear in logs or errors: `env` values, header values and the
    /// credentials inside a remote server's `url`.
    pub(crate) fn secrets(&self) -> Vec<String> {
        let values: Vec<String> = match &self.transport {
            Transport::Stdio { env, .. } => env.values().cloned().collect(),
            Transport::StreamableHttp { headers, url } | Transport::Sse { headers, url } => headers
                .values()
                .cloned()
                .chain(crate::redact::url_secrets(url))
                .collect(),
        };
        values
            .into_iter()
            .filter(|value| value.len() >= crate::redact::MIN_SECRET_LEN)
            .collect()
    }
}
