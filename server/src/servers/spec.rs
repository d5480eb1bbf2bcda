//! What one MCP server is to the bridge once its config entry is read: how to reach it, its
//! limits, and the values that must never be shown.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

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
        /// A PEM file of extra CA certificates its TLS certificate may chain to (`ca_file`).
        ca_file: Option<PathBuf>,
        /// How to sign in when it asks for it.
        sign_in: SignInSettings,
    },
    /// A remote server speaking the legacy HTTP+SSE transport (not supported by rmcp 3).
    Sse {
        url: String,
        headers: BTreeMap<String, String>,
    },
}
pub use crate::oauth::SignInSettings;

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
    /// What the server does beyond tools: instructions, roots, progress and question limits.
    pub mcp: McpOptions,
}

/// A server's settings for the parts of MCP beyond tools (`instructions`, `roots`,
/// `max_call_time`, `answer_timeout` in its config entry).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct McpOptions {
    /// Instructions for the AI about this server, added to the server's own.
    pub instructions: String,
    /// The roots `roots/list` answers with (none by default).
    pub roots: Vec<RootSpec>,
    /// The longest a call may run while progress keeps resetting its timeout (default
    /// [`DEFAULT_MAX_CALL_TIME`], never less than the call timeout).
    pub max_call_time: Option<Duration>,
    /// How long the user has to answer a server's question (default [`DEFAULT_ANSWER_TIMEOUT`]).
    pub answer_timeout: Option<Duration>,
    /// The newest MCP revision to speak with the server (`protocol_version`): a server that
    /// takes a newer one but does not work with it (a tool that asks its question the older
    /// way) is kept to the one it works with. `None`: the newest both sides speak.
    pub protocol_version: Option<rmcp::model::ProtocolVersion>,
}

/// One root offered to a server: a `file://` URI and an optional name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum RootSpec {
    Uri(String),
    Named { uri: String, name: Option<String> },
}

impl RootSpec {
    pub(crate) fn uri(&self) -> &str {
        match self {
            RootSpec::Uri(uri) | RootSpec::Named { uri, .. } => uri,
        }
    }

    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            RootSpec::Uri(_) => None,
            RootSpec::Named { name, .. } => name.as_deref(),
        }
    }
}

/// The longest a call may run when progress keeps resetting its timeout, unless the server's
/// `max_call_time` says otherwise.
pub(crate) const DEFAULT_MAX_CALL_TIME: Duration = Duration::from_secs(30 * 60);
/// How long the user has to answer a server's question, unless `answer_timeout` says otherwise.
pub(crate) const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(10 * 60);

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
            mcp: McpOptions::default(),
        }
    }

    /// The `mcpServers` entry that runs the built-in demo server as a server of the config
    /// file (parsed, it gives [`ServerSpec::demo`]): what keeps the demo when the user adds
    /// a server of their own.
    pub(crate) fn demo_entry(exe: &Path, root: &Path) -> serde_json::Value {
        let spec = ServerSpec::demo(exe, root);
        let Transport::Stdio { command, args, .. } = spec.transport else {
            unreachable!("the demo server runs as a local program")
        };
        serde_json::json!({
            "command": command,
            "args": args,
            "description": spec.description,
            "is_core": spec.is_core,
            "timeout": spec.startup_timeout.as_secs(),
        })
    }

    /// Values that must never appear in logs, errors or anything the server sends: `env`
    /// values, header values (and their credential without its scheme: `X` of `Bearer X`) and
    /// the credentials inside a remote server's `url`.
    pub(crate) fn secrets(&self) -> Vec<String> {
        let values: Vec<String> = match &self.transport {
            Transport::Stdio { env, .. } => env.values().cloned().collect(),
            Transport::StreamableHttp { headers, url, .. } | Transport::Sse { headers, url } => {
                headers
                    .values()
                    .flat_map(|value| {
                        std::iter::once(value.clone())
                            .chain(crate::redact::credential_part(value).map(str::to_owned))
                    })
                    .chain(crate::redact::url_secrets(url))
                    .collect()
            }
        };
        values
            .into_iter()
            .filter(|value| value.len() >= crate::redact::MIN_SECRET_LEN)
            .collect()
    }
}
