//! The bridge's MCP servers as the options page manages them: a server's name and definition
//! checked before anything is sent (the field named), the bridge's refusals of a change put
//! into the user's words, and the server list with each status in words and a fingerprint
//! that tells the page when its tools list is out of date.

use crate::domain::field_error::{FieldError, Invalid};
use crate::domain::i18n::{Lang, fill};
use crate::domain::options_views::{Problem, Reply, status_text};
use mcp_bridge_protocol::server_def::{self, TransportKind};
use serde_json::{Value, json};

/// A name the bridge can hold as a config key and a path segment.
pub fn check_name(name: &str) -> Result<(), FieldError> {
    let ok = !name.is_empty()
        && name.chars().count() <= 64
        && !name.chars().all(|c| c == '.')
        // Any letter of another script passes; ASCII is held to letters, digits and `-_.`
        // (`char::is_alphanumeric` would pull Unicode tables into the wasm).
        && name.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.')
                || !(c.is_ascii() || c.is_whitespace() || c.is_control())
        });
    if ok {
        return Ok(());
    }
    let name = name.to_string();
    Err(FieldError::new("name", Invalid::ServerName { name }))
}

fn at(path: &str, problem: Invalid) -> FieldError {
    FieldError::new(format!("definition.{path}"), problem)
}

/// One `mcpServers` entry from the editor's text: a JSON object with `command` (a local
/// program) or `url` (a remote server), each key of the type the bridge reads. Masked
/// secrets (`***`) pass as they are: the bridge keeps the stored value for them.
pub fn check_definition(text: &str) -> Result<Value, FieldError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| FieldError::new("definition", Invalid::Quoted(e.to_string())))?;
    let Some(entry) = value.as_object() else {
        let problem = Invalid::MustBe { kind: "object" };
        return Err(FieldError::new("definition", problem));
    };
    if let Some((path, kind)) = server_def::wrong_kind(entry) {
        return Err(at(&path, Invalid::MustBe { kind }));
    }
    let text_of = |key| entry.get(key).and_then(Value::as_str).map(str::trim);
    let has = |key| text_of(key).is_some();
    let remote = match TransportKind::of(text_of("type"), has("command"), has("url")) {
        Ok(transport) => transport.is_remote(),
        Err(kind) => return Err(at("type", Invalid::UnknownTransport { kind })),
    };
    if remote {
        let url = text_of("url").unwrap_or_default();
        if !server_def::is_web_url(url) {
            let url = url.to_string();
            return Err(at("url", Invalid::RemoteUrl { url }));
        }
    } else if text_of("command").is_none_or(str::is_empty) {
        return Err(at("command", Invalid::NoCommand));
    }
    Ok(value)
}

/// The bridge refused a change to `server`: what it said, in the user's words, with the field
/// of the definition it named. `None` for the answers every route shares (success, a wrong
/// token, a refused origin, no answer), which `options_views::authed_verdict` reads.
pub fn refusal(lang: Lang, server: &str, reply: &Reply) -> Option<Problem> {
    let Reply::Answered {
        status,
        json,
        detail,
        ..
    } = reply
    else {
        return None;
    };
    let says = lang.says();
    let d = json.as_ref().and_then(|j| j.get("detail"));
    let kind = d.and_then(|d| d.get("type")).and_then(Value::as_str);
    let said = detail.as_deref().unwrap_or_default();
    let args = [("server", server), ("said", said)];
    let (template, field) = match (status, kind) {
        // A bridge from before these routes: axum's plain 404 or 405.
        (404 | 405, None) => {
            let code = status.to_string();
            let message = fill(says.servers_unsupported, &[("status", &code)]);
            return Some(Problem::new("unsupported", None, message));
        }
        (404, Some("ServerNotFound")) => (says.server_unknown, Some("name".to_string())),
        (409, _) => (says.config_file_invalid, None),
        (422, Some("InvalidServerDefinition")) => {
            let named = d.and_then(|d| d.get("field")).and_then(Value::as_str);
            let prefix = format!("mcpServers.{server}");
            let rest = named.and_then(|f| f.strip_prefix(&prefix));
            let field = match rest {
                Some(rest) => format!("definition{rest}"),
                None => "definition".to_string(),
            };
            (says.server_refused, Some(field))
        }
        // A request the bridge's validation refused: `loc` is `["body", field]`.
        (422, _) => {
            let loc = d.and_then(|d| d.get(0)).and_then(|i| i.get("loc"));
            let field = loc.and_then(|l| l.get(1)).and_then(Value::as_str);
            (says.server_refused, field.map(str::to_string))
        }
        _ => return None,
    };
    let message = fill(template, &args);
    Some(Problem::new("refused", field.as_deref(), message))
}

/// `GET /servers` as the page shows it: each server's status in words, and a fingerprint of
/// the names, statuses and tool counts; when it changes, the tools list is read again.
pub fn list_view(body: &Value, lang: Lang) -> Value {
    let mut out = body.clone();
    let mut fingerprint = String::new();
    let list = out.get_mut("servers").and_then(Value::as_array_mut);
    for server in list.into_iter().flatten() {
        let status = server["status"].as_str().map(str::to_string);
        let tools = server["tool_count"].as_u64().unwrap_or(0);
        let name = server["name"].as_str().unwrap_or_default();
        let status = status.as_deref();
        fingerprint.push_str(&format!("{name}={}:{tools};", status.unwrap_or("?")));
        server["statusText"] = json!(status_text(status, lang));
    }
    out["fingerprint"] = json!(fingerprint);
    out
}

/// One server's definition from a `GET /servers?reveal=NAME` body.
pub fn revealed(body: &Value, name: &str) -> Value {
    let list = body["servers"].as_array().into_iter().flatten();
    let found = list.into_iter().find(|s| s["name"] == name);
    let definition = found.map_or(Value::Null, |s| s["definition"].clone());
    json!({ "name": name, "definition": definition })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EN: Lang = Lang::En;

    fn field_of(text: &str) -> String {
        check_definition(text).unwrap_err().field
    }

    #[test]
    fn names_fit_a_config_key_and_a_path() {
        for good in ["time", "my-server_2", "a.b", "时间"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "a/b", "a b", "..", "x?y", &"n".repeat(65)] {
            let e = check_name(bad).unwrap_err();
            assert_eq!(e.field, "name", "{bad}");
        }
        let e = check_name("a/b").unwrap_err();
        assert!(
            e.say(Lang::Zh).contains("不是有效的服务器名称"),
            "{}",
            e.say(Lang::Zh)
        );
    }

    #[test]
    fn definitions_name_the_field_that_is_wrong() {
        let ok = [
            r#"{"command": "uvx", "args": ["mcp-server-time"]}"#,
            r#"{"command": "npx", "args": ["-y", "pkg"], "env": {"KEY": "***"}}"#,
            r#"{"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}"#,
            r#"{"type": "sse", "url": "http://127.0.0.1:9/sse"}"#,
            r#"{"type": "stdio", "command": "x", "enabled": false}"#,
        ];
        for text in ok {
            assert!(check_definition(text).is_ok(), "{text}");
        }
        for (text, field) in [
            ("{\"command\": ", "definition"),
            ("[1]", "definition"),
            (r#"{"args": ["x"]}"#, "definition.command"),
            (r#"{"command": "  "}"#, "definition.command"),
            (r#"{"command": 5}"#, "definition.command"),
            (r#"{"command": "x", "args": "y"}"#, "definition.args"),
            (
                r#"{"command": "x", "args": ["a", 2]}"#,
                "definition.args[1]",
            ),
            (r#"{"command": "x", "env": {"A": 1}}"#, "definition.env.A"),
            (r#"{"command": "x", "enabled": "no"}"#, "definition.enabled"),
            (r#"{"type": "ws", "url": "ws://x"}"#, "definition.type"),
            (r#"{"type": "http", "url": "ftp://x"}"#, "definition.url"),
            (r#"{"type": "http"}"#, "definition.url"),
        ] {
            assert_eq!(field_of(text), field, "{text}");
        }
        let e = check_definition(r#"{"command": "x", "args": "y"}"#).unwrap_err();
        assert_eq!(e.say(EN), "definition.args: must be an array");
        assert_eq!(e.say(Lang::Zh), "definition.args: 必须是数组");
    }

    fn answered(status: u16, body: Value) -> Reply {
        Reply::from_raw(status, body.to_string().as_bytes(), EN)
    }

    #[test]
    fn refusals_name_the_field_in_the_users_language() {
        let body = json!({"detail": {"error": "The server definition was refused: `command` is required",
            "type": "InvalidServerDefinition", "field": "mcpServers.time.command", "line": 3}});
        let p = refusal(EN, "time", &answered(422, body.clone())).unwrap();
        assert_eq!(p.field.as_deref(), Some("definition.command"));
        assert!(
            p.message.starts_with(
                "The bridge refused the change to time: The server definition was refused"
            ),
            "{}",
            p.message
        );
        let p = refusal(Lang::Zh, "time", &answered(422, body)).unwrap();
        assert!(
            p.message.starts_with("桥接服务拒绝了对 time 的修改"),
            "{}",
            p.message
        );
        let p = refusal(
            EN,
            "x",
            &answered(
                422,
                json!({"detail": [{"type": "value_error",
            "loc": ["body", "enabled"], "msg": "`enabled` must be true or false"}]}),
            ),
        )
        .unwrap();
        assert_eq!(p.field.as_deref(), Some("enabled"));
        let p = refusal(
            EN,
            "gone",
            &answered(
                404,
                json!({"detail": {"error": "There is no MCP server named `gone`",
            "type": "ServerNotFound"}}),
            ),
        )
        .unwrap();
        assert!(p.message.contains("no server named gone"), "{}", p.message);
        let p = refusal(
            EN,
            "x",
            &answered(
                409,
                json!({"detail": {"error": "line 4", "type": "ConfigFileInvalid"}}),
            ),
        )
        .unwrap();
        assert!(
            p.message.contains("fix the file first: line 4"),
            "{}",
            p.message
        );
        let p = refusal(EN, "x", &answered(404, json!({"detail": "Not Found"}))).unwrap();
        assert_eq!(p.kind, "unsupported");
        // What every route shares is left to the general verdict.
        for status in [200, 401, 403, 500] {
            assert!(
                refusal(
                    EN,
                    "x",
                    &answered(
                        status,
                        json!({"detail": {"error": "e", "type": "Forbidden"}})
                    )
                )
                .is_none()
            );
        }
        assert!(refusal(EN, "x", &Reply::Unreachable("refused".into())).is_none());
    }

    #[test]
    fn the_list_says_each_status_and_changes_its_fingerprint_with_the_tools() {
        let body = json!({"success": true, "servers": [
            {"name": "time", "status": "running", "tool_count": 2},
            {"name": "off", "status": "disabled", "tool_count": 0}]});
        let v = list_view(&body, EN);
        assert_eq!(v["servers"][0]["statusText"], "running");
        assert_eq!(v["servers"][1]["statusText"], "turned off");
        assert_eq!(
            list_view(&body, Lang::Zh)["servers"][1]["statusText"],
            "已关闭"
        );
        let mut fewer = body.clone();
        fewer["servers"][0]["tool_count"] = json!(1);
        assert_ne!(list_view(&fewer, EN)["fingerprint"], v["fingerprint"]);
        assert_eq!(list_view(&body, EN)["fingerprint"], v["fingerprint"]);
        let shown = revealed(
            &json!({"servers": [{"name": "a", "definition": {"env": {"K": "v"}}}]}),
            "a",
        );
        assert_eq!(shown["definition"]["env"]["K"], "v");
    }
}
