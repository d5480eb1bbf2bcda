//! Config text into server definitions: JSON syntax first, then the key checks, then each
//! entry's shape, with every error placed at its file, line and field and no value echoed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;

use super::check::resolve;
use super::keys::{check_keys, object_keys};
use super::{ConfigError, RootSpec, ServerSpec};

#[derive(Debug, Deserialize)]
struct RawConfig {
    #[serde(rename = "mcpServers", default)]
    mcp_servers: IndexMap<String, RawServer>,
}

#[derive(Debug, Deserialize)]
pub(super) struct RawServer {
    #[serde(rename = "type", default)]
    pub(super) transport: Option<String>,
    #[serde(default)]
    pub(super) command: Option<String>,
    #[serde(default)]
    pub(super) args: Vec<String>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, String>,
    #[serde(default)]
    pub(super) cwd: Option<PathBuf>,
    #[serde(default = "enabled_by_default")]
    pub(super) enabled: bool,
    /// Cline's spelling of `enabled: false`.
    #[serde(default)]
    pub(super) disabled: bool,
    #[serde(default)]
    pub(super) description: Option<String>,
    #[serde(default)]
    pub(super) is_core: bool,
    /// Start-up timeout in seconds.
    #[serde(default)]
    pub(super) timeout: Option<f64>,
    #[serde(default)]
    pub(super) call_timeout: Option<f64>,
    #[serde(default)]
    pub(super) max_concurrent_calls: Option<u64>,
    #[serde(default)]
    pub(super) url: Option<String>,
    #[serde(default)]
    pub(super) headers: BTreeMap<String, String>,
    /// Extra CA certificates (PEM) for a remote server; relative to the config file's folder.
    #[serde(default)]
    pub(super) ca_file: Option<PathBuf>,
    #[serde(default)]
    pub(super) client_id: Option<String>,
    #[serde(default)]
    pub(super) client_secret_env: Option<String>,
    #[serde(default)]
    pub(super) scopes: Vec<String>,
    /// How the bridge signs in (`grant`) and what that grant needs.
    #[serde(default)]
    pub(super) sign_in: BTreeMap<String, String>,
    #[serde(default)]
    pub(super) client_metadata_url: Option<String>,
    #[serde(default)]
    pub(super) instructions: Option<String>,
    #[serde(default)]
    pub(super) roots: Vec<RootSpec>,
    #[serde(default)]
    pub(super) max_call_time: Option<f64>,
    #[serde(default)]
    pub(super) answer_timeout: Option<f64>,
    /// The newest MCP revision to speak with the server.
    #[serde(default)]
    pub(super) protocol_version: Option<String>,
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

/// serde_json appends " at line L column C"; we report the position separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message[..index].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{DEFAULT_STARTUP_TIMEOUT, Transport};
    use std::time::Duration;

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
        assert_eq!(specs[2].secrets(), ["Bearer abcdef", "abcdef"]);
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
}
