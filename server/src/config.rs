//! The `mcpServers` config file (the format Claude Desktop, Cursor and mcpo use): where it
//! lives, how it is parsed, and the errors that stop start-up with the file, line and field.

mod check;
pub(crate) mod command;
mod file;
pub mod import;
mod keys;
pub mod manage;
mod parse;

use std::path::PathBuf;
use std::time::Duration;

pub use crate::servers::spec::{RootSpec, ServerSpec, SignInSettings, Transport};
pub(crate) use check::reads_env;
pub(crate) use file::{ConfigSource, config_dir, config_path, load};
pub(crate) use parse::parse;

/// The environment variable that moves the config directory (tests use temporary ones).
pub(crate) const CONFIG_DIR_ENV: &str = "MCP_BRIDGE_CONFIG_DIR";
/// The config file's name inside the config directory.
pub(crate) const CONFIG_FILE_NAME: &str = "mcp-config.json";
/// Start-up time allowed to a server that does not set `timeout`.
pub(crate) const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// The most concurrent calls one server may be given.
pub(crate) const MAX_CONCURRENT_CALLS_LIMIT: u64 = 1024;
/// The demo server's folder inside the config directory.
pub(crate) const DEMO_FOLDER_NAME: &str = "demo-files";

/// Why the config could not be used. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path} is not valid JSON: {message} (line {line}, column {column})")]
    Syntax {
        path: PathBuf,
        message: String,
        line: usize,
        column: usize,
    },
    #[error("config file {path}, field `{field}`: {message} (line {line}, column {column})")]
    Field {
        path: PathBuf,
        field: String,
        message: String,
        line: usize,
        column: usize,
    },
    #[error("config file {path}, line {line}, key `{key}`: {message}")]
    Key {
        path: PathBuf,
        key: String,
        message: String,
        line: usize,
    },
    #[error("config file {path}, line {line}, field `mcpServers.{server}.{field}`: {message}")]
    Server {
        path: PathBuf,
        server: String,
        /// The key of the server entry at fault.
        field: String,
        message: String,
        line: usize,
    },
    #[error(
        "no config directory: set {CONFIG_DIR_ENV} or pass --config (the platform has no user config directory)"
    )]
    NoConfigDir,
}

impl ConfigError {
    /// The dotted path of the field at fault (`mcpServers.time.command`), when there is one.
    pub(crate) fn field(&self) -> Option<String> {
        match self {
            ConfigError::Field { field, .. } => Some(field.clone()),
            ConfigError::Key { key, .. } => Some(key.clone()),
            ConfigError::Server { server, field, .. } if field.is_empty() => {
                Some(format!("mcpServers.{server}"))
            }
            ConfigError::Server { server, field, .. } => {
                Some(format!("mcpServers.{server}.{field}"))
            }
            _ => None,
        }
    }

    /// The line of the problem, when known.
    pub(crate) fn line(&self) -> Option<usize> {
        match self {
            ConfigError::Syntax { line, .. }
            | ConfigError::Field { line, .. }
            | ConfigError::Key { line, .. }
            | ConfigError::Server { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// Whether a raw `mcpServers` entry is enabled (`enabled: false` or Cline's `disabled: true`
/// turn it off).
pub(crate) use mcp_bridge_protocol::server_def::is_enabled as entry_enabled;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enabled_entries() {
        assert!(entry_enabled(&serde_json::json!({"command": "x"})));
        assert!(!entry_enabled(&serde_json::json!({"enabled": false})));
        assert!(!entry_enabled(&serde_json::json!({"disabled": true})));
    }
}
