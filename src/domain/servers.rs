//! The bridge's MCP servers as the options page manages them: a server's name and definition
//! checked before anything is sent (the field named), the bridge's refusals of a change put
//! into the user's words, and the server list with each status in words and a fingerprint
//! that tells the page when its tools list is out of date. The editor's templates live here
//! too, so a template's example values are known and refused until replaced.

use crate::domain::field_error::{FieldError, Invalid};
use crate::domain::float::code;
use crate::domain::i18n::{Lang, count_tools, fill};
use crate::domain::options_views::{Problem, detail_line, status_text};
use crate::domain::outcome::{CallOutcome, ErrorDetail};
use mcp_bridge_protocol::answers::SignInState;
use mcp_bridge_protocol::errors::ErrorType;
use mcp_bridge_protocol::server_def::{self, TransportKind};
use serde::Serialize;
use serde_json::{Value, json};

/// The example values of the templates: a definition holding one is refused until it is
/// replaced (a template's `/path/to/server` would otherwise be "valid" and fail to start).
pub const PLACEHOLDERS: [&str; 3] = ["/path/to/server", "YOUR_TOKEN", "https://example.com/mcp"];

/// What the editor starts from for a new server.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Template {
    pub name: &'static str,
    pub definition: Value,
    /// Said above the editor: saving the first server of the user's own sets the built-in
    /// demo server aside.
    pub notice: Option<String>,
    /// The editor offers to keep the built-in demo server (the bridge can write it into the
    /// config file with the new server).
    pub keep_demo: bool,
}

/// The template of `kind` (`npx`, `uvx`, `local`, `remote`); `None` for another kind.
/// `first`: what a `GET /servers` body says about the next server saved ([`first_server`]).
pub fn template(kind: &str, first: FirstServer, lang: Lang) -> Option<Template> {
    let (name, definition) = match kind {
        "npx" => (
            "everything",
            json!({"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}),
        ),
        "uvx" => (
            "time",
            json!({"command": "uvx", "args": ["mcp-server-time"]}),
        ),
        "local" => (
            "my-server",
            json!({"command": PLACEHOLDERS[0], "args": [], "env": {}}),
        ),
        "remote" => (
            "remote",
            json!({"type": "streamable-http", "url": PLACEHOLDERS[2],
                   "headers": {"Authorization": format!("Bearer {}", PLACEHOLDERS[1])}}),
        ),
        _ => return None,
    };
    let says = lang.says();
    let notice = match first {
        FirstServer::No => None,
        FirstServer::DemoAside => Some(says.server_demo_notice),
        FirstServer::DemoKeepable => Some(says.server_demo_keepable),
    };
    Some(Template {
        name,
        definition,
        notice: notice.map(str::to_string),
        keep_demo: first == FirstServer::DemoKeepable,
    })
}

/// What saving the next server does to the built-in demo server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstServer {
    /// The config file lists servers: nothing.
    No,
    /// Only servers outside the file run (the demo): it steps aside.
    DemoAside,
    /// The same, and the bridge names the demo as built in: it can be kept.
    DemoKeepable,
}

/// What a `GET /servers` body (or the page's list of it) says about the next server saved:
/// the user's first when only servers that are not in the config file run (the built-in
/// demo server), which a bridge that marks it `builtin` can keep.
pub fn first_server(body: &Value) -> FirstServer {
    let Some(list) = body["servers"].as_array() else {
        return FirstServer::No;
    };
    if !list.iter().all(|s| s["definition"].is_null()) {
        FirstServer::No
    } else if list.iter().any(|s| s["builtin"] == true) {
        FirstServer::DemoKeepable
    } else {
        FirstServer::DemoAside
    }
}

/// The first template example still in an entry's text values, with its field.
fn placeholder(entry: &serde_json::Map<String, Value>) -> Option<(String, &'static str)> {
    let found = |text: &str| PLACEHOLDERS.into_iter().find(|p| text.contains(p));
    for (key, value) in entry {
        let hit = match value {
            Value::String(s) => found(s).map(|p| (key.clone(), p)),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, v)| found(v.as_str()?).map(|p| (format!("{key}[{i}]"), p))),
            Value::Object(map) => map
                .iter()
                .find_map(|(k, v)| found(v.as_str()?).map(|p| (format!("{key}.{k}"), p))),
            _ => None,
        };
        if hit.is_some() {
            return hit;
        }
    }
    None
}

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
    if let Some((key, known)) = server_def::misspelt_key(entry) {
        return Err(at(&key.clone(), Invalid::UnknownKey { key, known }));
    }
    if let Some((path, kind)) = server_def::wrong_kind(entry) {
        return Err(at(&path, Invalid::MustBe { kind }));
    }
    if let Some((path, value)) = placeholder(entry) {
        return Err(at(&path, Invalid::Placeholder { value }));
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
/// of the definition it named. `None` for the failures every route shares (a wrong token, a
/// refused origin, no answer), which `options_views::authed_verdict` reads.
pub fn refusal(lang: Lang, server: &str, failed: &CallOutcome) -> Option<Problem> {
    let says = lang.says();
    let status = failed.status()?;
    let detail = match failed {
        CallOutcome::HttpError { detail, .. } => Some(detail),
        _ => None,
    };
    let error = match detail {
        Some(ErrorDetail::Object { error }) => Some(error),
        _ => None,
    };
    let kind = error.and_then(|e| e.error_type.as_deref().map(ErrorType::parse));
    let said = detail.map(detail_line).unwrap_or_default();
    let args = [("server", server), ("said", said.as_str())];
    let (template, field) = match (status, kind) {
        // A bridge from before these routes: axum's plain 404 or 405.
        (404 | 405, None | Some(None)) => {
            let code = status.to_string();
            let message = fill(says.servers_unsupported, &[("status", &code)]);
            return Some(Problem::new("unsupported", None, message));
        }
        (404, Some(Some(ErrorType::ServerNotFound))) => {
            (says.server_unknown, Some("name".to_string()))
        }
        (409, _) => (says.config_file_invalid, None),
        (422, Some(Some(ErrorType::InvalidServerDefinition))) => {
            let named = error
                .and_then(|e| e.extra.get("field"))
                .and_then(Value::as_str);
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
            let field = match detail {
                Some(ErrorDetail::Validation { items }) => items
                    .first()
                    .and_then(|i| i.loc.get(1))
                    .and_then(Value::as_str),
                _ => None,
            };
            (says.server_refused, field.map(str::to_string))
        }
        _ => return None,
    };
    let message = fill(template, &args);
    Some(Problem::new("refused", field.as_deref(), message))
}

/// A server that did not start because its program is not on this computer: what to install,
/// in the user's words. Read from the bridge's reason and the server's stderr.
pub fn missing_program(server: &Value, lang: Lang) -> Option<String> {
    let says = lang.says();
    let program = server["definition"]["command"].as_str()?.trim();
    let said = format!(
        "{} {}",
        server["last_error"].as_str().unwrap_or_default(),
        server["stderr"].as_str().unwrap_or_default()
    )
    .to_ascii_lowercase();
    let missing = ["no such file", "not found", "cannot find", "os error 2"]
        .iter()
        .any(|m| said.contains(m));
    if !missing || program.is_empty() {
        return None;
    }
    let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    let how = match base {
        "uvx" | "uv" => says.install_uvx,
        "npx" | "node" | "npm" => says.install_npx,
        _ => says.install_other,
    };
    Some(fill(
        says.program_missing,
        &[("program", program), ("how", how)],
    ))
}

/// One server of the Servers section.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerRow {
    pub name: String,
    pub enabled: bool,
    /// Its `mcpServers` entry, secrets masked; none for a server not in the file (the demo).
    pub definition: Value,
    /// `running`, `starting`, `crashed`, `unavailable`, `disabled`, `not_loaded`, … as the
    /// bridge says.
    pub status: String,
    pub status_text: String,
    pub pid: Option<u64>,
    pub tool_count_text: String,
    /// Why it is not running, as the bridge says.
    pub last_error: Option<String>,
    /// The last lines it wrote to stderr.
    pub stderr: String,
    /// What to install when its program is missing.
    pub hint: Option<String>,
    /// A remote server's sign-in (none for a local one).
    pub sign_in: Option<SignInView>,
    /// Which variables of the bridge's environment it reads, in words.
    pub reads_env: Option<String>,
    /// Said when the bridge flags the name (`name_warning`): it has look-alike or invisible
    /// characters, shown escaped.
    pub name_warning: Option<String>,
    /// The built-in demo server, running while the config file lists no server.
    pub builtin: bool,
    /// Its icon, a checked `data:image/` URL (`bridge_api::icon`), drawn beside its name.
    pub icon: Option<String>,
}

/// A remote server's sign-in as the Servers section shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInView {
    /// `not_needed`, `signed_in`, `needs_sign_in` or `failed`, as the bridge says.
    pub state: String,
    /// The state in the user's words.
    pub text: String,
    /// Whether *Sign in* is offered (needed, or the last one failed).
    pub can_sign_in: bool,
    /// Whether *Sign out* is offered (signed in).
    pub can_sign_out: bool,
}

/// A server's `sign_in` from `GET /servers` in words; `None` for a local server. The bridge's
/// reason and the time are marked as code: data in the bridge's words, not the user's.
pub fn sign_in_view(sign_in: &Value, lang: Lang) -> Option<SignInView> {
    let says = lang.says();
    let word = sign_in["state"].as_str()?;
    let Some(state) = SignInState::read(sign_in) else {
        // A state a newer bridge knows: shown as it said it, with no button.
        return Some(SignInView {
            state: word.to_string(),
            text: word.to_string(),
            can_sign_in: false,
            can_sign_out: false,
        });
    };
    let text = match &state {
        SignInState::NotNeeded => says.sign_in_not_needed.to_string(),
        SignInState::SignedIn { until: Some(until) } => {
            fill(says.sign_in_signed_in_until, &[("until", &code(until))])
        }
        SignInState::SignedIn { until: None } => says.sign_in_signed_in.to_string(),
        SignInState::NeedsSignIn { reason } => {
            fill(says.sign_in_needed, &[("reason", &code(reason))])
        }
        SignInState::Failed { reason } => fill(says.sign_in_failed, &[("reason", &code(reason))]),
    };
    Some(SignInView {
        state: state.word().to_string(),
        text,
        can_sign_in: matches!(
            state,
            SignInState::NeedsSignIn { .. } | SignInState::Failed { .. }
        ),
        can_sign_out: matches!(state, SignInState::SignedIn { .. }),
    })
}

/// What `POST /servers/{name}/sign-in` answered: the page the user opens in a new tab.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInStarted {
    pub server: String,
    pub authorization_url: String,
    /// Said, and confirmed by the user, before the page opens: it is on another origin than
    /// the server's authorization server, so only the user can tell whether it should ask.
    pub notice: Option<String>,
}

/// The sign-in route's answer, typed.
pub fn sign_in_started(body: &Value, name: &str, lang: Lang) -> SignInStarted {
    let notice = (body["authorization_origin_differs"] == true).then(|| {
        let origin = code(body["authorization_origin"].as_str().unwrap_or_default());
        let issuer = code(body["issuer"].as_str().unwrap_or("?"));
        fill(
            lang.says().sign_in_elsewhere,
            &[
                ("server", &code(name)),
                ("origin", &origin),
                ("issuer", &issuer),
            ],
        )
    });
    SignInStarted {
        server: name.to_string(),
        authorization_url: body["authorization_url"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        notice,
    }
}

/// Which variables of the bridge's environment an entry reads (`reads_env` in `GET /servers`
/// and the import preview), in words; `None` when it reads none.
pub fn reads_env(entry: &Value, lang: Lang) -> Option<String> {
    let names: Vec<String> = entry["reads_env"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .map(code)
        .collect();
    (!names.is_empty()).then(|| fill(lang.says().reads_env, &[("names", &names.join(", "))]))
}

/// The warning for a server whose name the bridge flags (`name_warning` in `GET /servers`), in
/// the user's words; `None` when it flags nothing. The bridge's own sentence is English, so the
/// name is escaped here from the row's `name`, by the bridge's rule.
pub fn name_warning(entry: &Value, lang: Lang) -> Option<String> {
    entry["name_warning"].as_str()?;
    let name = entry["name"].as_str().unwrap_or_default();
    Some(fill(
        lang.says().name_warning,
        &[("escaped", &code(&escaped_name(name)))],
    ))
}

/// `name` as the bridge shows an odd one ([`escaped_name`](mcp_bridge_protocol::server_def::escaped_name)),
/// its length said in a cut one.
fn escaped_name(name: &str) -> String {
    match mcp_bridge_protocol::server_def::escaped_name(name) {
        (shown, Some(count)) => format!("{shown}… ({count})"),
        (shown, None) => shown,
    }
}

/// The import preview with, for each server found, which variables it reads in words
/// (`reads_env_text`).
pub fn import_view(mut body: Value, lang: Lang) -> Value {
    if let Some(servers) = body["found"]["servers"].as_array_mut() {
        for server in servers {
            server["reads_env_text"] = Value::from(reads_env(server, lang));
        }
    }
    body
}

/// The Servers section's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServersView {
    pub config_path: Option<String>,
    /// Whether the config file validates as it is now.
    pub config_valid: bool,
    pub servers: Vec<ServerRow>,
    /// Names, statuses and tool counts: when it changes, the tools list is read again.
    pub fingerprint: String,
    /// When the page reads the list again, so it follows the bridge (a crash, a hand edit of
    /// the config file): sooner while a server is starting.
    pub recheck_ms: u32,
}

/// How often the page reads the server list again, and how often while a server starts.
const LIST_RECHECK_MS: u32 = 3000;
const STARTING_RECHECK_MS: u32 = 1000;

/// `GET /servers` as the page shows it: each server's status and tool count in words, what
/// to install when its program is missing, and a fingerprint of the names, statuses and tool
/// counts; when it changes, the tools list is read again.
pub fn list_view(body: &Value, lang: Lang) -> ServersView {
    let mut fingerprint = String::new();
    let list = body["servers"].as_array().into_iter().flatten();
    let servers: Vec<ServerRow> = list
        .map(|server| {
            let status = server["status"].as_str();
            let tools = server["tool_count"].as_u64().unwrap_or(0);
            let name = server["name"].as_str().unwrap_or_default();
            fingerprint.push_str(&format!("{name}={}:{tools};", status.unwrap_or("?")));
            ServerRow {
                name: name.to_string(),
                enabled: server["enabled"].as_bool().unwrap_or(true),
                definition: server["definition"].clone(),
                status: status.unwrap_or("unknown").to_string(),
                status_text: status_text(status, lang),
                pid: server["pid"].as_u64(),
                tool_count_text: count_tools(lang, tools),
                last_error: server["last_error"].as_str().map(str::to_string),
                stderr: server["stderr"].as_str().unwrap_or_default().to_string(),
                hint: missing_program(server, lang),
                sign_in: sign_in_view(&server["sign_in"], lang),
                reads_env: reads_env(server, lang),
                name_warning: name_warning(server, lang),
                builtin: server["builtin"] == true,
                icon: crate::domain::bridge_api::icon(server),
            }
        })
        .collect();
    let starting = servers.iter().any(|s| s.status == "starting");
    ServersView {
        recheck_ms: if starting {
            STARTING_RECHECK_MS
        } else {
            LIST_RECHECK_MS
        },
        config_path: body["config_path"].as_str().map(str::to_string),
        config_valid: body["config_valid"].as_bool().unwrap_or(true),
        servers,
        fingerprint,
    }
}

/// What the page says after a server was saved: added or saved, and whether the built-in
/// demo server stepped aside for it or was kept (`kept`: its name in the config file now).
pub fn saved_message(
    name: &str,
    created: bool,
    was_demo_only: bool,
    kept: Option<&str>,
    lang: Lang,
) -> String {
    let says = lang.says();
    let template = match (created, was_demo_only, kept) {
        (true, _, Some(_)) => says.server_added_demo_kept,
        (true, true, None) => says.server_added_demo_aside,
        (true, false, None) => says.server_added,
        (false, _, _) => says.server_saved,
    };
    let demo = format!("`{}`", kept.unwrap_or_default());
    fill(
        template,
        &[("server", &format!("`{name}`")), ("demo", &demo)],
    )
}

/// One server's definition, revealed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Revealed {
    pub name: String,
    pub definition: Value,
}

/// One server's definition from a `GET /servers?reveal=NAME` body.
pub fn revealed(body: &Value, name: &str) -> Revealed {
    let list = body["servers"].as_array().into_iter().flatten();
    let found = list.into_iter().find(|s| s["name"] == name);
    let definition = found.map_or(Value::Null, |s| s["definition"].clone());
    Revealed {
        name: name.to_string(),
        definition,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_servers_sign_in_in_words_with_its_buttons() {
        let row = |sign_in: Value, lang| {
            list_view(
                &json!({"servers": [{"name": "wiki", "sign_in": sign_in}]}),
                lang,
            )
            .servers[0]
                .sign_in
                .clone()
        };
        assert_eq!(row(Value::Null, Lang::En), None, "a local server has none");
        let needs = row(
            json!({"state": "needs_sign_in", "reason": "it answered 401"}),
            Lang::En,
        )
        .unwrap();
        assert_eq!(needs.text, "needs sign-in (`it answered 401`)");
        assert!(needs.can_sign_in && !needs.can_sign_out);
        let signed = row(
            json!({"state": "signed_in", "until": "2026-11-24T21:00:00Z"}),
            Lang::Zh,
        )
        .unwrap();
        assert_eq!(signed.text, "已登录，有效期至 `2026-11-24T21:00:00Z`");
        assert!(!signed.can_sign_in && signed.can_sign_out);
        let failed = row(json!({"state": "failed", "reason": "x"}), Lang::En).unwrap();
        assert_eq!(failed.text, "sign-in failed: `x`");
        assert!(failed.can_sign_in);
        let none = row(json!({"state": "not_needed"}), Lang::En).unwrap();
        assert!(!none.can_sign_in && !none.can_sign_out);
    }

    #[test]
    fn a_sign_in_page_elsewhere_is_said_before_it_opens() {
        let answer = |differs: bool| {
            json!({
                "authorization_url": "https://login.example/authorize?state=s",
                "authorization_origin": "https://login.example",
                "issuer": "https://auth.wiki.example",
                "authorization_origin_differs": differs,
            })
        };
        let started = sign_in_started(&answer(true), "wiki", Lang::En);
        assert_eq!(
            started.authorization_url,
            "https://login.example/authorize?state=s"
        );
        let notice = started.notice.unwrap();
        assert!(
            notice.contains("`wiki`")
                && notice.contains("`https://login.example`")
                && notice.contains("`https://auth.wiki.example`"),
            "{notice}"
        );
        let zh = sign_in_started(&answer(true), "wiki", Lang::Zh)
            .notice
            .unwrap();
        assert!(
            zh.contains("`https://login.example`") && zh.contains("登录"),
            "{zh}"
        );
        // On the issuer's own origin nothing is said: the page opens at once.
        assert_eq!(
            sign_in_started(&answer(false), "wiki", Lang::En).notice,
            None
        );
        // A bridge that does not say opens at once too, as before.
        let older = json!({"authorization_url": "https://x.example/a"});
        assert_eq!(sign_in_started(&older, "wiki", Lang::En).notice, None);
    }

    #[test]
    fn a_servers_icon_is_passed_on_only_as_a_data_image_url() {
        let list = list_view(
            &json!({"servers": [
                {"name": "a", "icon": "data:image/svg+xml;base64,PHN2Zy8+"},
                {"name": "b", "icon": "data:text/html;base64,PGI+"},
                {"name": "c", "icon": "https://example.com/c.png"},
                {"name": "d"},
            ]}),
            Lang::En,
        );
        let icons: Vec<Option<&str>> = list.servers.iter().map(|s| s.icon.as_deref()).collect();
        assert_eq!(
            icons,
            [Some("data:image/svg+xml;base64,PHN2Zy8+"), None, None, None]
        );
    }

    #[test]
    fn a_flagged_name_is_warned_of_escaped_in_the_users_language() {
        let list = list_view(
            &json!({"servers": [
                {"name": "d\u{435}mo\u{200b}", "name_warning": "the server name \"d\\u{435}mo\\u{200b}\" (shown escaped) would be refused"},
                {"name": "demo"},
            ]}),
            Lang::En,
        );
        let said = list.servers[0].name_warning.clone().unwrap();
        assert!(
            said.contains("`d\\u{435}mo\\u{200b}`") && said.contains("Rename it"),
            "{said}"
        );
        assert_eq!(list.servers[1].name_warning, None);
        let zh = list_view(
            &json!({"servers": [{"name": "a\u{202e}b", "name_warning": "…"}]}),
            Lang::Zh,
        );
        let said = zh.servers[0].name_warning.clone().unwrap();
        assert!(
            said.contains("`a\\u{202e}b`") && said.contains("改名"),
            "{said}"
        );
        let long = "\u{435}".repeat(100);
        let said = name_warning(&json!({"name": long, "name_warning": "…"}), Lang::En).unwrap();
        assert!(
            said.contains("… (100)") && !said.contains('\u{435}'),
            "{said}"
        );
    }

    #[test]
    fn the_variables_an_entry_reads_are_named() {
        let list = list_view(
            &json!({"servers": [
                {"name": "wiki", "reads_env": ["MCP_BRIDGE_TOKEN"]},
                {"name": "time", "reads_env": []},
            ]}),
            Lang::En,
        );
        let said = list.servers[0].reads_env.clone().unwrap();
        assert!(said.contains("`MCP_BRIDGE_TOKEN`"), "{said}");
        assert_eq!(list.servers[1].reads_env, None);
        let preview = import_view(
            json!({"found": {"servers": [{"name": "cloud", "reads_env": ["AWS_SECRET_ACCESS_KEY"]}]}}),
            Lang::Zh,
        );
        let said = preview["found"]["servers"][0]["reads_env_text"]
            .as_str()
            .unwrap();
        assert!(
            said.contains("`AWS_SECRET_ACCESS_KEY`") && said.contains("环境变量"),
            "{said}"
        );
    }

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
            r#"{"url": "https://mcp.example.org/mcp", "headers": {"Authorization": "Bearer x"}}"#,
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
            // A misspelt key is named as itself, not as the key it lacks.
            (r#"{"comand": "uvx"}"#, "definition.comand"),
            // A template's example left in place.
            (r#"{"command": "/path/to/server"}"#, "definition.command"),
            (
                r#"{"url": "https://example.com/mcp", "headers": {}}"#,
                "definition.url",
            ),
            (
                r#"{"url": "https://a.org/mcp", "headers": {"Authorization": "Bearer YOUR_TOKEN"}}"#,
                "definition.headers.Authorization",
            ),
            (
                r#"{"command": "x", "args": ["/path/to/server/a"]}"#,
                "definition.args[0]",
            ),
        ] {
            assert_eq!(field_of(text), field, "{text}");
        }
        let e = check_definition(r#"{"comand": "uvx"}"#).unwrap_err();
        assert_eq!(
            e.say(EN),
            "definition.comand: `comand` is not a key of a server definition; did you mean `command`?"
        );
        let e = check_definition(r#"{"command": "/path/to/server"}"#).unwrap_err();
        assert!(
            e.say(EN).contains("replace it with your own"),
            "{}",
            e.say(EN)
        );
        // Every template is refused as it comes only where it holds an example.
        for (kind, refused) in [
            ("npx", false),
            ("uvx", false),
            ("local", true),
            ("remote", true),
        ] {
            let t = template(kind, FirstServer::No, EN).unwrap();
            let checked = check_definition(&t.definition.to_string());
            assert_eq!(checked.is_err(), refused, "{kind}: {checked:?}");
        }
        let e = check_definition(r#"{"command": "x", "args": "y"}"#).unwrap_err();
        assert_eq!(e.say(EN), "definition.args: must be an array");
        assert_eq!(e.say(Lang::Zh), "definition.args: 必须是数组");
    }

    fn answered(status: u16, body: Value) -> CallOutcome {
        crate::domain::outcome::from_http(status, None, body.to_string().as_bytes())
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
        assert!(refusal(EN, "x", &CallOutcome::unreachable("refused")).is_none());
    }

    #[test]
    fn the_first_server_of_ones_own_sets_the_demo_aside_and_says_so() {
        let demo = json!({"servers": [{"name": "demo", "definition": null, "status": "running"}]});
        let builtin = json!({"servers": [{"name": "demo", "definition": null, "builtin": true}]});
        let mine = json!({"servers": [{"name": "demo", "definition": null},
            {"name": "time", "definition": {"command": "uvx"}}]});
        assert_eq!(first_server(&demo), FirstServer::DemoAside);
        assert_eq!(first_server(&builtin), FirstServer::DemoKeepable);
        assert_eq!(first_server(&mine), FirstServer::No);
        let aside = template("uvx", FirstServer::DemoAside, EN).unwrap();
        assert!(aside.notice.unwrap().contains("demo server steps aside"));
        assert!(!aside.keep_demo);
        // A bridge that names its built-in demo server: the editor offers to keep it.
        let keepable = template("uvx", FirstServer::DemoKeepable, EN).unwrap();
        assert!(keepable.notice.unwrap().contains("unless you keep it"));
        assert!(keepable.keep_demo);
        let none = template("uvx", FirstServer::No, EN).unwrap();
        assert_eq!((none.notice, none.keep_demo), (None, false));
        assert!(template("docker", FirstServer::No, EN).is_none());
        let said = saved_message("time", true, true, None, EN);
        assert!(said.contains("demo server steps aside"), "{said}");
        assert_eq!(
            saved_message("time", true, false, None, EN),
            "Added `time`."
        );
        assert_eq!(
            saved_message("time", true, true, Some("demo"), EN),
            "Added `time`; the built-in demo server stays, as `demo` in the config file."
        );
        assert_eq!(
            saved_message("time", false, true, None, EN),
            "Saved `time`; it restarts with the change."
        );
    }

    #[test]
    fn a_missing_program_is_named_with_how_to_install_it() {
        let server = |command: &str, error: &str| json!({"definition": {"command": command}, "last_error": error, "stderr": ""});
        let uvx = server(
            "uvx",
            "failed to start `uvx`: No such file or directory (os error 2)",
        );
        let said = missing_program(&uvx, EN).unwrap();
        assert!(
            said.starts_with("`uvx` is not installed on this computer."),
            "{said}"
        );
        assert!(said.contains("docs.astral.sh/uv"), "{said}");
        let npx = server("/usr/bin/npx", "program not found");
        assert!(missing_program(&npx, EN).unwrap().contains("nodejs.org"));
        let other = server("my-tool", "No such file or directory");
        assert!(
            missing_program(&other, Lang::Zh)
                .unwrap()
                .contains("完整路径")
        );
        // A program that ran and failed is not a missing one.
        assert_eq!(missing_program(&server("uvx", "exit status 1"), EN), None);
        let listed = json!(list_view(&json!({"servers": [uvx]}), EN));
        assert!(
            listed["servers"][0]["hint"]
                .as_str()
                .unwrap()
                .contains("uv")
        );
        assert_eq!(listed["servers"][0]["toolCountText"], "0 tools");
    }

    #[test]
    fn the_list_says_each_status_and_changes_its_fingerprint_with_the_tools() {
        let body = json!({"success": true, "servers": [
            {"name": "time", "status": "running", "tool_count": 2},
            {"name": "off", "status": "disabled", "tool_count": 0}]});
        let v = json!(list_view(&body, EN));
        assert_eq!(v["servers"][0]["statusText"], "running");
        assert_eq!(v["servers"][1]["statusText"], "turned off");
        assert_eq!(
            json!(list_view(&body, Lang::Zh))["servers"][1]["statusText"],
            "已关闭"
        );
        let mut fewer = body.clone();
        fewer["servers"][0]["tool_count"] = json!(1);
        assert_ne!(list_view(&fewer, EN).fingerprint, v["fingerprint"]);
        assert_eq!(list_view(&body, EN).fingerprint, v["fingerprint"]);
        // The page reads the list again: sooner while a server starts.
        assert_eq!(v["recheckMs"], 3000);
        let mut starting = body.clone();
        starting["servers"][0]["status"] = json!("starting");
        assert_eq!(list_view(&starting, EN).recheck_ms, 1000);
        let shown = revealed(
            &json!({"servers": [{"name": "a", "definition": {"env": {"K": "v"}}}]}),
            "a",
        );
        assert_eq!(shown.definition["env"]["K"], "v");
    }
}
