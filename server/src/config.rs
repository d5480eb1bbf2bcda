//! The `mcpServers` config file (the format Claude Desktop, Cursor and mcpo use): where it
//! lives, how it is parsed, and the errors that stop start-up with the file, line and field.

pub(crate) mod command;
pub mod import;
pub mod manage;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use indexmap::IndexMap;
use mcp_bridge_protocol::server_def::{self, TransportKind};
use serde::Deserialize;

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

/// The config directory: `$MCP_BRIDGE_CONFIG_DIR`, else `<platform config dir>/mcp-bridge`.
pub(crate) fn config_dir() -> Result<PathBuf, ConfigError> {
    if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::config_dir()
        .map(|dir| dir.join("mcp-bridge"))
        .ok_or(ConfigError::NoConfigDir)
}

use crate::servers::spec::{DEFAULT_MAX_CONCURRENT_CALLS, McpOptions};
pub use crate::servers::spec::{RootSpec, ServerSpec, SignInSettings, Transport};

#[derive(Debug, Deserialize)]
struct RawConfig {
    #[serde(rename = "mcpServers", default)]
    mcp_servers: IndexMap<String, RawServer>,
}

#[derive(Debug, Deserialize)]
struct RawServer {
    #[serde(rename = "type", default)]
    transport: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default = "enabled_by_default")]
    enabled: bool,
    /// Cline's spelling of `enabled: false`.
    #[serde(default)]
    disabled: bool,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    is_core: bool,
    /// Start-up timeout in seconds.
    #[serde(default)]
    timeout: Option<f64>,
    #[serde(default)]
    call_timeout: Option<f64>,
    #[serde(default)]
    max_concurrent_calls: Option<u64>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// Extra CA certificates (PEM) for a remote server; relative to the config file's folder.
    #[serde(default)]
    ca_file: Option<PathBuf>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret_env: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    instructions: Option<String>,
    #[serde(default)]
    roots: Vec<RootSpec>,
    #[serde(default)]
    max_call_time: Option<f64>,
    #[serde(default)]
    answer_timeout: Option<f64>,
}

fn enabled_by_default() -> bool {
    true
}

/// Parse config text; `path` only names the file in errors. Disabled servers are left out;
/// the order of the file is kept (it decides which server answers a tool two servers have).
pub(crate) fn parse(text: &str, path: &Path) -> Result<Vec<ServerSpec>, ConfigError> {
    // Syntax first, so a broken file is reported as such and not as a bad field.
    if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return Err(ConfigError::Syntax {
            path: path.to_owned(),
            message: strip_position(&err.to_string()),
            line: err.line(),
            column: err.column(),
        });
    }
    check_keys(text, path)?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let raw: RawConfig = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
        let field = err.path().to_string();
        let inner = err.into_inner();
        ConfigError::Field {
            path: path.to_owned(),
            field,
            message: without_value(&strip_position(&inner.to_string())),
            line: inner.line(),
            column: inner.column(),
        }
    })?;

    let mut specs = Vec::new();
    for (name, server) in raw.mcp_servers {
        if !server.enabled || server.disabled {
            continue;
        }
        specs.push(resolve(name, server, path).map_err(|err| with_line(err, text))?);
    }
    Ok(specs)
}

/// A server error gets the line of its field (or of the server's name when the field is
/// missing).
fn with_line(err: ConfigError, text: &str) -> ConfigError {
    let ConfigError::Server {
        path,
        server,
        field,
        message,
        ..
    } = err
    else {
        return err;
    };
    let objects = object_keys(text);
    let line_of = |object: &[&str], key: &str| {
        objects
            .iter()
            .find(|(path, _)| path.iter().map(String::as_str).eq(object.iter().copied()))
            .and_then(|(_, keys)| keys.iter().rev().find(|k| k.key == key))
            .map(|k| k.line)
    };
    let line = line_of(&["mcpServers", &server], &field)
        .or_else(|| line_of(&["mcpServers"], &server))
        .unwrap_or(1);
    ConfigError::Server {
        path,
        server,
        field,
        message,
        line,
    }
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

/// The config file to use: `explicit` (`--config`), else the default one in [`config_dir`].
pub(crate) fn config_path(explicit: Option<&Path>) -> Result<PathBuf, ConfigError> {
    match explicit {
        Some(path) => Ok(path.to_owned()),
        None => Ok(config_dir()?.join(CONFIG_FILE_NAME)),
    }
}

/// Whether a raw `mcpServers` entry is enabled (`enabled: false` or Cline's `disabled: true`
/// turn it off).
pub(crate) use mcp_bridge_protocol::server_def::is_enabled as entry_enabled;

fn resolve(name: String, raw: RawServer, path: &Path) -> Result<ServerSpec, ConfigError> {
    let fail = |field: &str, message: String| ConfigError::Server {
        path: path.to_owned(),
        server: name.clone(),
        field: field.to_owned(),
        message,
        line: 0,
    };
    if name.trim().is_empty() {
        return Err(fail("", "a server name must not be empty".to_owned()));
    }
    let seconds = |field: &str, value: Option<f64>| -> Result<Option<Duration>, ConfigError> {
        match value {
            None => Ok(None),
            Some(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => {
                Ok(Some(Duration::from_secs_f64(v)))
            }
            Some(v) => Err(fail(
                field,
                format!("`{field}` must be a number of seconds between 0 and 86400, not {v}"),
            )),
        }
    };
    let startup_timeout = seconds("timeout", raw.timeout)?.unwrap_or(DEFAULT_STARTUP_TIMEOUT);
    let call_timeout = seconds("call_timeout", raw.call_timeout)?;
    let max_call_time = seconds("max_call_time", raw.max_call_time)?;
    let answer_timeout = seconds("answer_timeout", raw.answer_timeout)?;
    if let Some(root) = raw
        .roots
        .iter()
        .find(|root| !root.uri().starts_with("file://"))
    {
        return Err(fail(
            "roots",
            format!(
                "each root must be a file:// URI (such as \"file:///home/me/project\"), not \"{}\"",
                root.uri()
            ),
        ));
    }
    let max_concurrent_calls = match raw.max_concurrent_calls {
        Some(n @ 1..=MAX_CONCURRENT_CALLS_LIMIT) => n as usize,
        Some(n) => {
            return Err(fail(
                "max_concurrent_calls",
                format!(
                    "`max_concurrent_calls` must be between 1 and {MAX_CONCURRENT_CALLS_LIMIT}, not {n}"
                ),
            ));
        }
        None => DEFAULT_MAX_CONCURRENT_CALLS,
    };
    let kind = TransportKind::of(
        raw.transport.as_deref(),
        raw.command.is_some(),
        raw.url.is_some(),
    )
    .map_err(|other| {
        fail(
            "type",
            format!("unknown `type` \"{other}\"; use \"stdio\", \"streamable-http\" or \"sse\""),
        )
    })?;
    let transport = match kind {
        TransportKind::Stdio => {
            let command = raw
                .command
                .filter(|command| !command.trim().is_empty())
                .ok_or_else(|| {
                    fail(
                        "command",
                        "`command` is required for a stdio server".to_owned(),
                    )
                })?;
            Transport::Stdio {
                command,
                args: raw.args,
                env: raw.env,
                cwd: raw.cwd,
            }
        }
        remote => {
            let remote_name = remote.as_str();
            let url = raw
                .url
                .filter(|url| server_def::is_web_url(url))
                .ok_or_else(|| {
                    fail(
                        "url",
                        format!(
                            "`url` (http:// or https://) is required for a {remote_name} server"
                        ),
                    )
                })?;
            if remote == TransportKind::Sse {
                Transport::Sse {
                    url,
                    headers: raw.headers,
                }
            } else {
                let ca_file = raw.ca_file.map(|file| match path.parent() {
                    Some(dir) if file.is_relative() => dir.join(file),
                    _ => file,
                });
                Transport::StreamableHttp {
                    url,
                    headers: raw.headers,
                    ca_file,
                    sign_in: SignInSettings {
                        client_id: raw.client_id,
                        client_secret_env: raw.client_secret_env,
                        scopes: raw.scopes,
                    },
                }
            }
        }
    };
    Ok(ServerSpec {
        name,
        transport,
        description: raw.description.unwrap_or_default(),
        is_core: raw.is_core,
        startup_timeout,
        call_timeout,
        max_concurrent_calls,
        mcp: McpOptions {
            instructions: raw.instructions.unwrap_or_default(),
            roots: raw.roots,
            max_call_time,
            answer_timeout,
        },
    })
}

/// The keys a server entry may have (the protocol's definition schema).
fn server_keys() -> Vec<&'static str> {
    server_def::key_names().collect()
}

/// One key of a JSON object and the line it is on.
#[derive(Debug, Clone, PartialEq)]
struct KeyAt {
    key: String,
    line: usize,
}

/// Every object in `text` (valid JSON): its path of keys from the root, and its keys with their
/// lines, duplicates included (a JSON parser keeps only the last of a duplicate).
fn object_keys(text: &str) -> Vec<(Vec<String>, Vec<KeyAt>)> {
    enum Frame {
        Object {
            path: Vec<String>,
            keys: Vec<KeyAt>,
            expect_key: bool,
        },
        Array {
            path: Vec<String>,
            index: usize,
        },
    }
    let child_path = |stack: &[Frame]| match stack.last() {
        None => Vec::new(),
        Some(Frame::Object { path, keys, .. }) => {
            let mut path = path.clone();
            path.push(keys.last().map(|k| k.key.clone()).unwrap_or_default());
            path
        }
        Some(Frame::Array { path, index }) => {
            let mut path = path.clone();
            path.push(index.to_string());
            path
        }
    };
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut objects = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'"' => {
                let mut end = i + 1;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                let end = end.min(bytes.len() - 1);
                if let Some(Frame::Object {
                    keys, expect_key, ..
                }) = stack.last_mut()
                    && *expect_key
                {
                    let key = serde_json::from_str::<String>(&text[i..=end])
                        .unwrap_or_else(|_| text[i + 1..end].to_owned());
                    keys.push(KeyAt { key, line });
                    *expect_key = false;
                }
                i = end;
            }
            b'{' => {
                let path = child_path(&stack);
                stack.push(Frame::Object {
                    path,
                    keys: Vec::new(),
                    expect_key: true,
                });
            }
            b'[' => {
                let path = child_path(&stack);
                stack.push(Frame::Array { path, index: 0 });
            }
            b'}' | b']' => {
                if let Some(Frame::Object { path, keys, .. }) = stack.pop() {
                    objects.push((path, keys));
                }
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                Some(Frame::Array { index, .. }) => *index += 1,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    objects
}

/// Whether `given` looks like a misspelling of `known` (case, `_`/`-` and small typos).
fn close_to(given: &str, known: &str) -> bool {
    let normalize = |s: &str| s.to_ascii_lowercase().replace(['_', '-', ' '], "");
    let (a, b) = (normalize(given), normalize(known));
    a == b || strsim::jaro_winkler(&a, &b) >= 0.9 || strsim::damerau_levenshtein(&a, &b) <= 2
}

/// The checks a JSON parser cannot make: the top level is an object, no key appears twice
/// (a duplicate server name would silently replace the first), and a misspelt key is an error
/// with "did you mean" rather than silently ignored.
fn check_keys(text: &str, path: &Path) -> Result<(), ConfigError> {
    let fail = |key: String, line: usize, message: String| ConfigError::Key {
        path: path.to_owned(),
        key,
        message,
        line,
    };
    let trimmed = text.trim_start();
    if !trimmed.starts_with('{') {
        let line = text[..text.len() - trimmed.len()].matches('\n').count() + 1;
        let found = match trimmed.chars().next() {
            Some('[') => "an array",
            Some('"') => "a string",
            _ => "not an object",
        };
        return Err(fail(
            "(top level)".to_owned(),
            line,
            format!(
                "the config must be a JSON object with the key `mcpServers`, like {{\"mcpServers\": {{\"time\": {{\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}}}}}}, but it is {found}"
            ),
        ));
    }
    let objects = object_keys(text);
    for (object_path, keys) in &objects {
        for (index, first) in keys.iter().enumerate() {
            if let Some(second) = keys[index + 1..].iter().find(|k| k.key == first.key) {
                let mut full = object_path.clone();
                full.push(first.key.clone());
                let what = if object_path.len() == 1 && object_path[0] == "mcpServers" {
                    format!(
                        "server name `{}` is used twice, on lines {} and {}; a JSON object keeps only the last, so rename or remove one",
                        first.key, first.line, second.line
                    )
                } else {
                    format!(
                        "key `{}` appears twice, on lines {} and {}; remove one",
                        first.key, first.line, second.line
                    )
                };
                return Err(fail(full.join("."), second.line, what));
            }
        }
    }
    let did_you_mean = |given: &str, known: &[&str]| {
        known
            .iter()
            .filter(|k| close_to(given, k))
            .max_by(|a, b| {
                strsim::jaro_winkler(given, a).total_cmp(&strsim::jaro_winkler(given, b))
            })
            .map(|k| (*k).to_owned())
    };
    for (object_path, keys) in &objects {
        match object_path.as_slice() {
            [] => {
                let has_servers = keys.iter().any(|k| k.key == "mcpServers");
                for key in keys.iter().filter(|k| k.key != "mcpServers") {
                    if let Some(known) = did_you_mean(&key.key, &["mcpServers"]) {
                        return Err(fail(
                            key.key.clone(),
                            key.line,
                            format!(
                                "unknown key; did you mean `{known}`? (keys are case-sensitive)"
                            ),
                        ));
                    }
                    if !has_servers {
                        return Err(fail(
                            key.key.clone(),
                            key.line,
                            "unknown key, and there is no `mcpServers`: the servers go in {\"mcpServers\": {…}}".to_owned(),
                        ));
                    }
                }
            }
            [servers, name] if servers == "mcpServers" => {
                let known_keys = server_keys();
                for key in keys
                    .iter()
                    .filter(|k| !known_keys.contains(&k.key.as_str()))
                {
                    let full = format!("mcpServers.{name}.{}", key.key);
                    match did_you_mean(&key.key, &known_keys) {
                        Some(known) => {
                            return Err(fail(
                                full,
                                key.line,
                                format!("unknown key; did you mean `{known}`?"),
                            ));
                        }
                        // Other clients' own keys (`autoApprove`, …) are harmless.
                        None => tracing::warn!(
                            config = %path.display(),
                            line = key.line,
                            key = %full,
                            "unknown key ignored"
                        ),
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// serde_json appends " at line L column C"; we report the position separately.
/// A serde type error without the value it quotes: `invalid type: string "sk-…", expected a
/// map` becomes `invalid type: string, expected a map`. The value may be a secret (a mistyped
/// `env` or header), and errors are shown and logged.
fn without_value(message: &str) -> String {
    for prefix in [
        "invalid type: ",
        "invalid value: ",
        "invalid length ",
        "unknown variant ",
    ] {
        let Some(rest) = message.strip_prefix(prefix) else {
            continue;
        };
        let Some(expected) = rest.rfind(", expected ") else {
            return format!("{prefix}(value not shown)");
        };
        let described = &rest[..expected];
        let kind = described
            .split(['"', '`'])
            .next()
            .unwrap_or_default()
            .trim_end();
        return format!("{prefix}{kind}{}", &rest[expected..]);
    }
    message.to_owned()
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message[..index].to_owned(),
        None => message.to_owned(),
    }
}

/// Where the servers come from: a config file, or the demo server when there is none.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Source {
    File(PathBuf),
    /// No file at this (default) path: the demo server runs.
    Demo {
        missing: PathBuf,
    },
}

/// Load the servers: `explicit` (from `--config`) must exist; the default file may be missing,
/// and then the demo server (run from `exe`) is the one server.
pub(crate) fn load(
    explicit: Option<&Path>,
    exe: &Path,
) -> Result<(Vec<ServerSpec>, Source), ConfigError> {
    let dir = match explicit {
        Some(_) => None,
        None => Some(config_dir()?),
    };
    let path = match (explicit, &dir) {
        (Some(path), _) => path.to_owned(),
        (None, Some(dir)) => dir.join(CONFIG_FILE_NAME),
        (None, None) => return Err(ConfigError::NoConfigDir),
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok((parse(&text, &path)?, Source::File(path))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && dir.is_some() => {
            let root = dir.unwrap_or_default().join(DEMO_FOLDER_NAME);
            Ok((
                vec![ServerSpec::demo(exe, &root)],
                Source::Demo { missing: path },
            ))
        }
        Err(source) => Err(ConfigError::Read { path, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::spec::DEMO_SERVER_NAME;

    #[test]
    fn a_mistyped_value_is_not_echoed() {
        let text =
            r#"{"mcpServers": {"a": {"command": "x", "env": {"K": 12345678}, "headers": {}}}}"#;
        let err = parse(text, Path::new("c.json")).unwrap_err().to_string();
        assert!(!err.contains("12345678"), "{err}");
        assert!(
            err.contains("invalid type: integer, expected a string"),
            "{err}"
        );
        let text = r#"{"mcpServers": {"a": {"command": "x", "env": "sk-proj-abcdefghijklmnopqrstuvwxyz"}}}"#;
        let err = parse(text, Path::new("c.json")).unwrap_err().to_string();
        assert!(!err.contains("abcdefghij"), "{err}");
        assert!(err.contains("mcpServers.a.env"), "{err}");
        assert_eq!(
            without_value("invalid value: string \"a, b\", expected one of x"),
            "invalid value: string, expected one of x"
        );
    }

    fn parse_ok(text: &str) -> Vec<ServerSpec> {
        parse(text, Path::new("mcp-config.json")).unwrap()
    }

    #[test]
    fn parses_claude_desktop_style_config_in_file_order() {
        let specs = parse_ok(
            r#"{"mcpServers": {
                "zeta": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
                "alpha": {"command": "node", "description": "files", "is_core": true, "timeout": 5, "call_timeout": 9.5},
                "off": {"command": "x", "enabled": false},
                "cline-off": {"command": "x", "disabled": true},
                "remote": {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer abcdef"}}
            }}"#,
        );
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha", "remote"]);
        assert_eq!(
            specs[0].transport,
            Transport::Stdio {
                command: "uvx".into(),
                args: vec!["mcp-server-time".into()],
                env: BTreeMap::from([("TZ".into(), "UTC".into())]),
                cwd: None
            }
        );
        assert!(specs[1].is_core);
        assert_eq!(specs[1].description, "files");
        assert_eq!(specs[1].startup_timeout, Duration::from_secs(5));
        assert_eq!(specs[1].call_timeout, Some(Duration::from_secs_f64(9.5)));
        assert_eq!(specs[0].startup_timeout, DEFAULT_STARTUP_TIMEOUT);
        assert!(matches!(
            specs[2].transport,
            Transport::StreamableHttp { .. }
        ));
        assert_eq!(specs[2].secrets(), vec!["Bearer abcdef".to_owned()]);
    }

    #[test]
    fn empty_object_means_no_servers() {
        assert!(parse_ok("{}").is_empty());
    }

    #[test]
    fn syntax_error_names_file_and_line() {
        let err = parse(
            "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}",
            Path::new("/c/mcp-config.json"),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, ConfigError::Syntax { line: 3, .. }), "{text}");
        assert!(text.contains("/c/mcp-config.json"), "{text}");
        assert!(text.contains("line 3"), "{text}");
    }

    #[test]
    fn bad_field_names_the_field_and_line() {
        let err = parse(
            "{\"mcpServers\": {\n \"time\": {\n  \"command\": \"x\",\n  \"enabled\": \"yes\"\n }\n}}",
            Path::new("cfg.json"),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("mcpServers.time.enabled"), "{text}");
        assert!(text.contains("line 4"), "{text}");
        assert!(text.contains("cfg.json"), "{text}");
    }

    #[test]
    fn missing_command_and_bad_type_are_reported() {
        let err = parse(r#"{"mcpServers":{"a":{"args":[]}}}"#, Path::new("c.json")).unwrap_err();
        assert!(err.to_string().contains("`command` is required"), "{err}");
        let err = parse(
            r#"{"mcpServers":{"a":{"type":"ws","url":"http://x"}}}"#,
            Path::new("c.json"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown `type`"), "{err}");
        let err = parse(
            r#"{"mcpServers":{"a":{"command":"x","timeout":-1}}}"#,
            Path::new("c.json"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("`timeout`"), "{err}");
    }

    #[test]
    fn instructions_roots_and_limits_beyond_tools() {
        let specs = parse_ok(
            r#"{"mcpServers":{"a":{"command":"x","instructions":"Use it for files.",
                "roots":["file:///home/me/src",{"uri":"file:///tmp","name":"Scratch"}],
                "max_call_time":120,"answer_timeout":30}}}"#,
        );
        let mcp = &specs[0].mcp;
        assert_eq!(mcp.instructions, "Use it for files.");
        assert_eq!(mcp.roots[0].uri(), "file:///home/me/src");
        assert_eq!(mcp.roots[1].name(), Some("Scratch"));
        assert_eq!(mcp.max_call_time, Some(Duration::from_secs(120)));
        assert_eq!(mcp.answer_timeout, Some(Duration::from_secs(30)));
        // None of it by default.
        let plain = parse_ok(r#"{"mcpServers":{"a":{"command":"x"}}}"#);
        assert_eq!(plain[0].mcp, McpOptions::default());
        let err = parse(
            r#"{"mcpServers":{"a":{"command":"x","roots":["/home/me"]}}}"#,
            Path::new("c.json"),
        )
        .unwrap_err();
        assert_eq!(err.field().as_deref(), Some("mcpServers.a.roots"));
        assert!(err.to_string().contains("file:// URI"), "{err}");
        let err = parse(
            r#"{"mcpServers":{"a":{"command":"x","max_call_time":0}}}"#,
            Path::new("c.json"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("`max_call_time`"), "{err}");
    }

    #[test]
    fn a_server_error_names_its_field_and_line() {
        let err = parse(
            "{\"mcpServers\": {\n \"a\": {\n  \"args\": []\n },\n \"b\": {\"command\": \"x\",\n  \"timeout\": 0}\n}}",
            Path::new("c.json"),
        )
        .unwrap_err();
        assert_eq!(err.field().as_deref(), Some("mcpServers.a.command"));
        assert_eq!(err.line(), Some(2), "{err}");
        let err = parse(
            "{\"mcpServers\": {\n \"b\": {\"command\": \"x\",\n  \"timeout\": 0}\n}}",
            Path::new("c.json"),
        )
        .unwrap_err();
        assert_eq!(err.field().as_deref(), Some("mcpServers.b.timeout"));
        assert_eq!(err.line(), Some(3), "{err}");
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn enabled_entries() {
        assert!(entry_enabled(&serde_json::json!({"command": "x"})));
        assert!(!entry_enabled(&serde_json::json!({"enabled": false})));
        assert!(!entry_enabled(&serde_json::json!({"disabled": true})));
    }

    #[test]
    fn wrong_shapes_and_misspelt_keys_are_errors() {
        let err = parse("[]", Path::new("c.json")).unwrap_err().to_string();
        assert!(
            err.contains("c.json") && err.contains("line 1") && err.contains("mcpServers"),
            "{err}"
        );
        let err = parse("{\n \"mcpservers\": {}\n}", Path::new("c.json"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 2")
                && err.contains("`mcpservers`")
                && err.contains("did you mean `mcpServers`"),
            "{err}"
        );
        let err = parse(
            "{\"mcpServers\": {\"a\": {\"command\": \"x\",\n \"max_concurent_calls\": 2}}}",
            Path::new("c.json"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("line 2") && err.contains("did you mean `max_concurrent_calls`"),
            "{err}"
        );
        // Keys of other clients are ignored, other top-level keys too.
        parse_ok(
            r#"{"globalShortcut": "x", "mcpServers": {"a": {"command": "x", "autoApprove": []}}}"#,
        );
    }

    #[test]
    fn duplicate_server_names_name_both_lines() {
        let err = parse(
            "{\"mcpServers\": {\n \"a\": {\"command\": \"x\"},\n \"b\": {\"command\": \"y\", \"args\": [\"{\\\"a\\\"\"]},\n \"a\": {\"command\": \"z\"}\n}}",
            Path::new("c.json"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("lines 2 and 4") && err.contains("`a`"),
            "{err}"
        );
    }

    #[test]
    fn numbers_are_bounded_by_name() {
        for value in ["18446744073709551615", "0", "1025", "-1", "1e30"] {
            let err = parse(
                &format!(
                    r#"{{"mcpServers":{{"a":{{"command":"x","max_concurrent_calls":{value}}}}}}}"#
                ),
                Path::new("c.json"),
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains("max_concurrent_calls"), "{value}: {err}");
        }
        assert_eq!(
            parse_ok(r#"{"mcpServers":{"a":{"command":"x","max_concurrent_calls":1024}}}"#)[0]
                .max_concurrent_calls,
            1024
        );
    }

    #[test]
    fn url_alone_means_streamable_http() {
        let specs = parse_ok(r#"{"mcpServers":{"r":{"url":"https://example.com/mcp"}}}"#);
        assert!(matches!(
            specs[0].transport,
            Transport::StreamableHttp { .. }
        ));
        let specs =
            parse_ok(r#"{"mcpServers":{"r":{"type":"sse","url":"https://example.com/sse"}}}"#);
        assert!(matches!(specs[0].transport, Transport::Sse { .. }));
    }

    #[test]
    fn missing_default_file_means_demo_server() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.json");
        // An explicit --config must exist.
        assert!(matches!(
            load(Some(&missing), Path::new("/bin/mcp-bridge")),
            Err(ConfigError::Read { .. })
        ));
    }

    #[test]
    fn demo_spec_runs_the_demo_subcommand() {
        let spec = ServerSpec::demo(Path::new("/opt/mcp-bridge"), Path::new("/d"));
        assert_eq!(spec.name, DEMO_SERVER_NAME);
        match spec.transport {
            Transport::Stdio { command, args, .. } => {
                assert_eq!(command, "/opt/mcp-bridge");
                assert_eq!(args, ["demo-server", "--root", "/d"]);
            }
            other => panic!("unexpected transport {other:?}"),
        }
    }
}
