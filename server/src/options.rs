//! The options of the bridge as it serves (`mcp-bridge [OPTIONS]`), with their defaults and
//! checks: the command line fills them, the modules that serve read them.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

/// The default port, the one the original bridge and both extensions use.
pub(crate) const DEFAULT_PORT: u16 = mcp_bridge_protocol::DEFAULT_PORT;
/// Connections open at once, by default.
pub(crate) const DEFAULT_MAX_CONNECTIONS: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct ServeArgs {
    /// Port to listen on.
    #[arg(long, default_value_t = DEFAULT_PORT, env = "MCP_BRIDGE_PORT")]
    pub(crate) port: u16,

    /// Address to listen on. Anything but loopback exposes your tools to the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub(crate) host: IpAddr,

    /// The `mcpServers` config file [default: <config dir>/mcp-bridge/mcp-config.json].
    #[arg(long, env = "MCP_BRIDGE_CONFIG")]
    pub(crate) config: Option<PathBuf>,

    /// Use this token instead of the one stored in the config directory.
    #[arg(long, env = "MCP_BRIDGE_TOKEN", hide_env_values = true)]
    pub(crate) token: Option<String>,

    /// Accept requests without a token (for the original extension; loopback only).
    #[arg(long, conflicts_with = "token")]
    pub(crate) no_auth: bool,

    /// Seconds a tool call may run before it is cancelled (per-server `call_timeout` overrides).
    #[arg(long, default_value_t = 120.0, value_parser = parse_seconds)]
    pub(crate) call_timeout: f64,

    /// Connections open at once; one more is refused with a 503.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS, value_parser = parse_connections)]
    pub(crate) max_connections: usize,

    /// Seconds a client gets to send a request's headers (and a kept-alive connection may idle).
    #[arg(long, default_value_t = 15.0, value_parser = parse_header_seconds)]
    pub(crate) header_timeout: f64,

    /// Results whose text has more characters than this are kept and answered page by page
    /// (read on with the built-in tool `read_result`).
    #[arg(long, value_name = "CHARS", default_value_t = crate::calls::results::DEFAULT_THRESHOLD,
          env = "MCP_BRIDGE_LARGE_RESULT_THRESHOLD", value_parser = parse_chars)]
    pub(crate) large_result_threshold: usize,

    /// Characters in one page of a large result, at most (pages end at line breaks where they can).
    #[arg(long, value_name = "CHARS", default_value_t = crate::calls::results::DEFAULT_PAGE_CHARS,
          env = "MCP_BRIDGE_RESULT_PAGE_SIZE", value_parser = parse_chars)]
    pub(crate) result_page_size: usize,

    /// Memory the kept large results may take together, in MiB; the least recently read go
    /// first. MCP messages up to twice this size (at least 16 MiB) are accepted.
    #[arg(long, value_name = "MIB", default_value_t = crate::calls::results::DEFAULT_STORE_MIB,
          env = "MCP_BRIDGE_RESULT_STORE_SIZE", value_parser = parse_store_mib)]
    pub(crate) result_store_size: usize,

    /// Seconds a large result is kept after it was last read.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::calls::results::DEFAULT_TTL.as_secs_f64(),
          env = "MCP_BRIDGE_RESULT_TTL", value_parser = parse_seconds)]
    pub(crate) result_ttl: f64,

    /// Log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub(crate) log_format: LogFormat,

    /// Write messages and logs to this file instead of stdout and stderr: created private
    /// (0600), rotated at 1 MiB (3 older files kept), and never holding the token.
    #[arg(long, value_name = "PATH")]
    pub log_file: Option<PathBuf>,
}

impl ServeArgs {
    pub(crate) fn call_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.call_timeout)
    }

    pub(crate) fn header_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.header_timeout)
    }

    /// The limits of the large-result store.
    pub(crate) fn result_limits(&self) -> crate::calls::results::Limits {
        crate::calls::results::Limits {
            threshold: self.large_result_threshold,
            page_chars: self.result_page_size,
            memory: self.result_store_size * 1024 * 1024,
            ttl: Duration::from_secs_f64(self.result_ttl),
        }
    }
}

fn parse_chars(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(value) if (16..=crate::calls::results::MAX_PAGE_CHARS).contains(&value) => Ok(value),
        _ => Err(format!(
            "`{text}` must be a whole number of characters between 16 and {}",
            crate::calls::results::MAX_PAGE_CHARS
        )),
    }
}

fn parse_store_mib(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(value) if (1..=65_536).contains(&value) => Ok(value),
        _ => Err(format!(
            "`{text}` must be a whole number of MiB between 1 and 65536"
        )),
    }
}

fn parse_connections(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(value) if (1..=4096).contains(&value) => Ok(value),
        _ => Err(format!(
            "`{text}` must be a whole number between 1 and 4096"
        )),
    }
}

fn parse_header_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && (0.1..=300.0).contains(&value) => Ok(value),
        _ => Err(format!(
            "`{text}` must be a number of seconds between 0.1 and 300"
        )),
    }
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if value.is_finite() && value > 0.0 && value <= 86_400.0 {
        Ok(value)
    } else {
        Err(format!("`{text}` must be between 0 and 86400 seconds"))
    }
}

/// The prefix of the bridge's own environment variables (its options above, the token among
/// them), which no MCP server is given and no server entry may read.
pub(crate) const BRIDGE_ENV_PREFIX: &str = "MCP_BRIDGE_";

/// Whether `variable` is one of the bridge's own environment variables (`MCP_BRIDGE_*`, in
/// any case, as Windows reads names).
pub(crate) fn is_bridge_variable(variable: &str) -> bool {
    variable.to_ascii_uppercase().starts_with(BRIDGE_ENV_PREFIX)
}
