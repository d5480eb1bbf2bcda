//! Validation of one server definition: timeouts, limits, roots and transport checked and
//! turned into the [`ServerSpec`] the bridge runs.

use std::path::Path;
use std::time::Duration;

use mcp_bridge_protocol::server_def::{self, TransportKind};

use super::parse::RawServer;
use super::{
    ConfigError, DEFAULT_STARTUP_TIMEOUT, MAX_CONCURRENT_CALLS_LIMIT, ServerSpec, SignInSettings,
    Transport,
};
use crate::servers::spec::{DEFAULT_MAX_CONCURRENT_CALLS, McpOptions};

pub(super) fn resolve(
    name: String,
    raw: RawServer,
    path: &Path,
) -> Result<ServerSpec, ConfigError> {
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
    // A name is logged and shown: a line break or an escape sequence in it could forge a log
    // line or drive the terminal.
    if name.chars().any(char::is_control) {
        return Err(fail(
            "",
            "a server name must not contain control characters (line breaks, tabs, escape sequences); it is the key under `mcpServers`".to_owned(),
        ));
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
    let protocol_version = match raw.protocol_version.as_deref() {
        None => None,
        Some(given) => {
            let spoken = crate::servers::revisions::spoken();
            match spoken.iter().find(|v| v.as_str() == given) {
                Some(version) => Some(version.clone()),
                None => {
                    let names: Vec<&str> = spoken.iter().map(|v| v.as_str()).collect();
                    return Err(fail(
                        "protocol_version",
                        format!(
                            "`protocol_version` must be an MCP revision the bridge speaks: {}",
                            names.join(", ")
                        ),
                    ));
                }
            }
        }
    };
    // Which root is wrong, not what it holds: an error never quotes a value.
    if let Some(at) = raw
        .roots
        .iter()
        .position(|root| !root.uri().starts_with("file://"))
    {
        return Err(fail(
            "roots",
            format!(
                "each root must be a file:// URI (such as \"file:///home/me/project\"); root {} is not",
                at + 1
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
                if let Some(variable) = raw
                    .client_secret_env
                    .as_deref()
                    .filter(|variable| crate::options::is_bridge_variable(variable))
                {
                    return Err(fail(
                        "client_secret_env",
                        format!(
                            "`client_secret_env` names `{variable}`, one of the bridge's own variables (`MCP_BRIDGE_*`: its token, its settings), which are never sent to a server; name the variable that holds the client's secret"
                        ),
                    ));
                }
                let grant = crate::oauth::machine::grant_from_config(
                    &raw.sign_in,
                    raw.client_id.as_deref(),
                    raw.client_secret_env.as_deref(),
                    path.parent(),
                )
                .map_err(|(field, message)| fail(&field, message))?;
                let client_metadata_url = match raw.client_metadata_url {
                    Some(document) if document.is_empty() => None,
                    Some(document) => {
                        crate::oauth::check_metadata_url(&document)
                            .map_err(|message| fail("client_metadata_url", message))?;
                        Some(document)
                    }
                    None => crate::oauth::CLIENT_METADATA_URL
                        .filter(|document| !document.is_empty())
                        .map(str::to_owned),
                };
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
                        grant,
                        client_metadata_url,
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
            protocol_version,
        },
    })
}

/// The variables of the bridge's environment that a server entry reads (its
/// `client_secret_env`), so that the user sees which before adding it.
pub(crate) fn reads_env(definition: &serde_json::Value) -> Vec<String> {
    let auth = &definition["sign_in"];
    [
        &definition["client_secret_env"],
        &auth["private_key_env"],
        &auth["idp_client_secret_env"],
        &auth["id_token_env"],
    ]
    .into_iter()
    .filter_map(|value| value.as_str().map(str::to_owned))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse;

    fn parse_ok(text: &str) -> Vec<ServerSpec> {
        parse(text, Path::new("mcp-config.json")).unwrap()
    }

    #[test]
    fn the_variables_a_machine_sign_in_reads_are_named() {
        let entry = serde_json::json!({
            "url": "https://x.example/mcp",
            "client_id": "c",
            "client_secret_env": "WIKI_SECRET",
            "sign_in": {
                "grant": "cross_app_access",
                "idp_client_secret_env": "IDP_SECRET",
                "id_token_env": "ID_TOKEN",
            },
        });
        assert_eq!(reads_env(&entry), ["WIKI_SECRET", "IDP_SECRET", "ID_TOKEN"]);
        let keyed = serde_json::json!({"sign_in": {"private_key_env": "ROBOT_KEY"}});
        assert_eq!(reads_env(&keyed), ["ROBOT_KEY"]);
    }

    #[test]
    fn client_secret_env_never_names_the_bridges_own_variables() {
        for variable in [
            "MCP_BRIDGE_TOKEN",
            "mcp_bridge_token",
            "MCP_BRIDGE_CONFIG_DIR",
        ] {
            let text = format!(
                r#"{{"mcpServers":{{"a":{{"url":"https://x.example/mcp","client_id":"c","client_secret_env":"{variable}"}}}}}}"#
            );
            let err = parse(&text, Path::new("c.json")).unwrap_err().to_string();
            assert!(err.contains("bridge's own variables"), "{err}");
        }
        let text = r#"{"mcpServers":{"a":{"url":"https://x.example/mcp","client_id":"c","client_secret_env":"WIKI_SECRET"}}}"#;
        assert_eq!(parse_ok(text).len(), 1);
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
    fn a_wrong_root_is_refused_without_its_value() {
        let err = parse(
            r#"{"mcpServers":{"a":{"command":"x","roots":["file:///ok","/home/me/api_key=s3cr3t-v4lue"]}}}"#,
            Path::new("c.json"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("root 2 is not"), "{err}");
        assert!(!err.contains("s3cr3t") && !err.contains("api_key"), "{err}");
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
    fn a_pinned_revision_must_be_one_the_bridge_speaks() {
        let pinned =
            parse_ok(r#"{"mcpServers":{"a":{"command":"x","protocol_version":"2025-06-18"}}}"#);
        assert_eq!(
            pinned[0].mcp.protocol_version.as_ref().map(|v| v.as_str()),
            Some("2025-06-18")
        );
        assert_eq!(
            parse_ok(r#"{"mcpServers":{"a":{"command":"x"}}}"#)[0]
                .mcp
                .protocol_version,
            None
        );
        for bad in ["latest", "", "1999-01-01"] {
            let text =
                format!(r#"{{"mcpServers":{{"a":{{"command":"x","protocol_version":"{bad}"}}}}}}"#);
            let err = parse(&text, Path::new("c.json")).unwrap_err().to_string();
            assert!(
                err.contains("`protocol_version`") && err.contains("2025-11-25, 2026-07-28"),
                "{bad}: {err}"
            );
        }
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
}
