//! What the options page shows, decided from the bridge client's answers: the connection
//! test's verdict in words with the field to point at (the verdict itself is
//! `domain::status`'s), the failure counters, services and tools with their policies, and
//! settings merged from the form. Pure, so every verdict is tested natively; the requests
//! themselves are `runtime::options`'.

pub mod answers;

use crate::domain::bridge_api::{self, ServerStatus};
pub use crate::domain::i18n::Lang;
use crate::domain::i18n::{count_servers, count_tools, fill};
use crate::domain::outcome::{CallOutcome, ErrorDetail};
use crate::domain::policy::{self, Source};
use crate::domain::read_resource::READ_RESOURCE;
use crate::domain::settings::{
    DEFAULT_CHOICE, FieldError, Settings, ToolPolicy, validate_bridge_url, validate_token,
};
use crate::domain::status::{self, PairingNote, Status};
use mcp_bridge_protocol::answers::not_running;
use serde::Serialize;
use serde_json::Value;

/// The command that starts the bridge, as the user should be told it.
pub const START_COMMAND: &str = "mcp-bridge";

/// The command that starts a bridge at `base`: with `--port` when it is not the default one,
/// so the command the user copies gives the address they configured.
pub fn start_command(base: &str) -> String {
    let authority = base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default();
    let port = authority
        .rsplit_once(':')
        .filter(|(host, _)| !host.is_empty())
        .and_then(|(_, p)| p.parse::<u16>().ok());
    match port {
        Some(p) if p != mcp_bridge_protocol::DEFAULT_PORT => format!("{START_COMMAND} --port {p}"),
        _ => START_COMMAND.to_string(),
    }
}

/// What an answer said, for a message: the bridge's `detail` in one line, or the start of
/// the body it gave.
fn said(answer: &Result<Value, CallOutcome>, lang: Lang) -> String {
    let body = match answer {
        Err(CallOutcome::HttpError { detail, .. }) => return detail_line(detail),
        Err(CallOutcome::NotJson { snippet, .. } | CallOutcome::BadShape { snippet, .. }) => {
            snippet.clone()
        }
        Ok(v) => v.to_string(),
        Err(_) => String::new(),
    };
    let one_line: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s: String = one_line.chars().take(160).collect();
    if s.len() < one_line.len() {
        s.push('…');
    }
    if s.is_empty() {
        lang.says().reply_empty_body.into()
    } else {
        s
    }
}

/// An error `detail` as one line: its message, or a 422 list as `loc: msg; …`.
pub fn detail_line(detail: &ErrorDetail) -> String {
    match detail {
        ErrorDetail::Text { message } => message.clone(),
        ErrorDetail::Object { error } => error.message.clone(),
        ErrorDetail::Validation { items } => {
            let lines: Vec<String> = items
                .iter()
                .map(|i| {
                    let loc: Vec<String> = i
                        .loc
                        .iter()
                        .map(|p| p.as_str().map_or_else(|| p.to_string(), str::to_string))
                        .collect();
                    format!("{}: {}", loc.join("."), i.msg)
                })
                .collect();
            lines.join("; ")
        }
        ErrorDetail::Other { json } => json.to_string(),
    }
}

/// Why the page cannot show what it asked for, and which form field to point at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// `not-running`, `wrong-token`, `not-a-bridge`, `refused`, `bad-answer`, `invalid`.
    pub kind: &'static str,
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn new(kind: &'static str, field: Option<&str>, message: String) -> Problem {
        Problem {
            kind,
            field: field.map(str::to_string),
            message,
        }
    }

    /// A form field that does not validate.
    pub fn invalid(e: FieldError, lang: Lang) -> Problem {
        Problem::new("invalid", Some(&e.field), e.problem.say(lang))
    }
}

/// The address and token typed into the form, checked before anything is sent: the base
/// address without its trailing `/`, and the token without the blanks a paste brings along.
pub fn check_connection_input(
    lang: Lang,
    bridge_url: &str,
    token: &str,
) -> Result<(String, String), Problem> {
    let url = bridge_url.trim();
    validate_bridge_url(url)
        .map_err(|m| Problem::invalid(FieldError::new("bridgeUrl", m), lang))?;
    let token = check_token(lang, token)?;
    Ok((url.trim_end_matches('/').to_string(), token))
}

/// A token to send, trimmed: not only blanks, and valid as a setting.
fn check_token(lang: Lang, token: &str) -> Result<String, Problem> {
    // No token at all is the user's choice: a bridge started with `--no-auth` takes none,
    // any other answers 401, which the status explains.
    if token.is_empty() {
        return Ok(String::new());
    }
    let trimmed = token.trim();
    if trimmed.is_empty() {
        let message = lang.says().token_empty.into();
        return Err(Problem::new("invalid", Some("token"), message));
    }
    validate_token(trimmed).map_err(|e| Problem::invalid(FieldError::new("token", e), lang))?;
    Ok(trimmed.to_string())
}

fn not_running(lang: Lang, base: &str) -> Problem {
    let command = start_command(base);
    let args = [("base", base), ("command", command.as_str())];
    Problem::new("not-running", None, fill(lang.says().not_running, &args))
}

/// `/health`: the bridge's version, or why this address is not a working bridge.
pub fn health_verdict(
    lang: Lang,
    base: &str,
    health: &Result<Value, CallOutcome>,
) -> Result<String, Problem> {
    status::of_health(health).map_err(|s| match s {
        Status::WrongAddress { status } => {
            let (status, said) = (status.to_string(), said(health, lang));
            let args = [("base", base), ("status", &status), ("body", &said)];
            let message = fill(lang.says().not_a_bridge_health, &args);
            Problem::new("not-a-bridge", Some("bridgeUrl"), message)
        }
        _ => not_running(lang, base),
    })
}

/// Any token-protected route: the JSON body of a success, or the precise problem. `version`
/// is what `/health` gave beside it (`None`: it did not answer as our bridge); whether the
/// connection or this request failed is [`status::of_refused_route`]'s verdict.
pub fn authed_verdict(
    lang: Lang,
    base: &str,
    answer: &Result<Value, CallOutcome>,
    version: Option<&str>,
    token_empty: bool,
) -> Result<Value, Problem> {
    let says = lang.says();
    let said = said(answer, lang);
    let not_a_bridge = |status: u16| {
        let code = status.to_string();
        let args = [("base", base), ("status", &code), ("said", &said)];
        let message = fill(says.not_a_bridge_answer, &args);
        Problem::new("not-a-bridge", Some("bridgeUrl"), message)
    };
    let failed = match answer {
        Ok(v) if v.is_object() => return Ok(v.clone()),
        Ok(_) => return Err(not_a_bridge(200)),
        Err(o) => o,
    };
    match status::of_refused_route(version, failed, token_empty) {
        Some(Status::NotRunning) => Err(not_running(lang, base)),
        Some(Status::WrongAddress { status }) => Err(not_a_bridge(status)),
        // Our bridge answered `/health` but gave this route no answer: the browser hid its
        // refusal of the token.
        Some(_) if failed.status().is_none() => {
            let args = [("version", version.unwrap_or_default()), ("base", base)];
            let message = fill(says.hidden_refusal, &args);
            Err(Problem::new("wrong-token", Some("token"), message))
        }
        // One sentence in the user's words: what the bridge said is for developers.
        Some(_) => {
            let message = says.token_refused.to_string();
            Err(Problem::new("wrong-token", Some("token"), message))
        }
        None if failed.status() == Some(403) => {
            let message = fill(says.request_refused, &[("said", &said)]);
            Err(Problem::new("refused", None, message))
        }
        None => {
            let kind = match failed {
                CallOutcome::HttpError { detail, .. }
                    if !matches!(detail, ErrorDetail::Other { .. }) =>
                {
                    "bad-answer"
                }
                _ => "not-a-bridge",
            };
            let code = failed.status().unwrap_or(200).to_string();
            let args = [("status", code.as_str()), ("said", &said)];
            Err(Problem::new(kind, None, fill(says.bridge_answered, &args)))
        }
    }
}

/// One MCP server as the page lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceView {
    pub name: String,
    pub description: String,
    /// `running`, `failed`, … as the bridge says; `unknown` for bridges that do not say.
    pub status: String,
    /// The status in the page's language.
    pub status_text: String,
    pub tool_count: Option<u64>,
    /// How many resources it offers, when the bridge says.
    pub resource_count: Option<u64>,
    pub is_core: bool,
}

/// A server's status as the page shows it; a status this build does not know, as it came.
pub fn status_text(status: Option<&str>, lang: Lang) -> String {
    let says = lang.says();
    let Some(word) = status else {
        return says.status_unknown.to_string();
    };
    match ServerStatus::from_word(word) {
        Some(ServerStatus::Running) => says.status_running,
        Some(ServerStatus::Starting) => says.status_starting,
        Some(ServerStatus::Crashed) => says.status_crashed,
        Some(ServerStatus::Unavailable) => says.status_unavailable,
        Some(ServerStatus::Stopped) => says.status_stopped,
        None => match word {
            // An older bridge's word.
            "failed" => says.status_unavailable,
            not_running::DISABLED => says.status_disabled,
            not_running::NOT_LOADED => says.status_not_loaded,
            other => return other.to_string(),
        },
    }
    .to_string()
}

/// The services of a `GET /tools` body, as the page lists them.
pub fn services(body: &Value, lang: Lang) -> Result<Vec<ServiceView>, Problem> {
    let list = bridge_api::services(body).map_err(|m| Problem::new("bad-answer", None, m))?;
    Ok(list
        .into_iter()
        .map(|s| ServiceView {
            status_text: status_text(s.status.as_deref(), lang),
            name: s.name,
            description: s.description,
            status: s.status.unwrap_or_else(|| "unknown".into()),
            tool_count: s.tool_count,
            resource_count: s.resource_count,
            is_core: s.is_core,
        })
        .collect())
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The connection test's verdict shown in the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConnectionReport {
    pub url: String,
    pub version: String,
    pub services: Vec<ConnectionService>,
    pub running: usize,
    /// The verdict in one sentence.
    pub summary: String,
}

/// One server in the connection test's list, with its tool count in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionService {
    #[serde(flatten)]
    pub service: ServiceView,
    pub tool_count_text: Option<String>,
}

/// The connection test's verdict shown in the page.
pub fn connection_report(
    lang: Lang,
    version: &str,
    base: &str,
    services: Vec<ServiceView>,
) -> ConnectionReport {
    let running = services
        .iter()
        .filter(|s| ServerStatus::from_word(&s.status) == Some(ServerStatus::Running))
        .count();
    let servers = count_servers(lang, services.len() as u64);
    let summary = fill(
        lang.says().connection_ok,
        &[
            ("version", version),
            ("servers", &servers),
            ("running", &running.to_string()),
        ],
    );
    ConnectionReport {
        url: base.to_string(),
        version: version.to_string(),
        services: services
            .into_iter()
            .map(|service| ConnectionService {
                tool_count_text: service.tool_count.map(|n| count_tools(lang, n)),
                service,
            })
            .collect(),
        running,
        summary,
    }
}

/// What saving the connection did: the settings as stored, and what the test before found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavedConnection {
    pub settings: Value,
    pub connected: bool,
    /// One sentence: saved and connected, or saved and why the connection does not work yet.
    pub message: String,
}

/// The answer to saving the connection, from the test made before it (its summary, or why).
pub fn saved_connection(
    lang: Lang,
    settings: Value,
    test: Result<String, Problem>,
) -> SavedConnection {
    let says = lang.says();
    let (connected, message) = match test {
        Ok(summary) => (true, fill(says.saved_connected, &[("summary", &summary)])),
        Err(p) => (
            false,
            fill(says.saved_not_connected, &[("why", &p.message)]),
        ),
    };
    SavedConnection {
        settings,
        connected,
        message,
    }
}

/// The header's advice on the options page itself, where the status's general advice
/// ("paste it into Options") would point at the page the user is on: the two ways to
/// connect, with the command for the configured address. `None`: the status's own detail
/// stands (connected, a stranger at the address, or a pairing that failed with its reason).
pub fn header_detail(
    lang: Lang,
    status: &Status,
    note: &PairingNote,
    base: &str,
) -> Option<String> {
    if !status.wants_pairing() || matches!(note, PairingNote::Failed { .. }) {
        return None;
    }
    let command = start_command(base);
    Some(fill(
        lang.says().status_two_ways_here,
        &[("command", &command)],
    ))
}

/// One failure counter row of `GET /history`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterView {
    pub server: String,
    pub tool: String,
    pub failures: u64,
    pub refused: u64,
    /// The next call of this tool is refused until a reset or a success.
    pub blocked: bool,
}

/// The failure counters as the page shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryView {
    /// Failures in a row after which a tool is refused.
    pub limit: u64,
    pub counters: Vec<CounterView>,
    /// `server:tool` of each refused tool.
    pub blocked: Vec<String>,
}

/// `GET /history`: the counters with the tools that are refused first.
pub fn history_view(body: &Value) -> HistoryView {
    let limit = body.get("limit").and_then(Value::as_u64).unwrap_or(3);
    let mut rows: Vec<CounterView> = body
        .get("counters")
        .and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    let failures = r.get("failures").and_then(Value::as_u64).unwrap_or(0);
                    CounterView {
                        server: str_of(r, "server"),
                        tool: str_of(r, "tool"),
                        failures,
                        refused: r.get("refused").and_then(Value::as_u64).unwrap_or(0),
                        blocked: failures >= limit,
                    }
                })
                .filter(|r| r.failures > 0 || r.refused > 0)
                .collect()
        })
        .unwrap_or_default();
    // Blocked tools first, then by name.
    rows.sort_by(|a, b| (!a.blocked, &a.server, &a.tool).cmp(&(!b.blocked, &b.server, &b.tool)));
    let blocked: Vec<String> = rows
        .iter()
        .filter(|r| r.blocked)
        .map(|r| format!("{}:{}", r.server, r.tool))
        .collect();
    HistoryView {
        limit,
        counters: rows,
        blocked,
    }
}

/// What a reset of the call history did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResetView {
    pub message: String,
    /// How many counters were cleared, as the bridge says (none from an older bridge).
    pub cleared: Option<u64>,
    /// The counters as they are after the reset, when they could be read.
    pub history: Option<HistoryView>,
}

/// `POST /reset-history`: what was done, in the page's language (the bridge's own words
/// are in its language, not the user's).
pub fn reset_view(body: &Value, lang: Lang, history: Option<HistoryView>) -> ResetView {
    ResetView {
        message: lang.says().history_reset.to_string(),
        cleared: body.get("cleared").and_then(Value::as_u64),
        history,
    }
}

/// One choice of a tool's policy menu.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyChoice {
    /// `default` (the tool's own default), `allow`, `ask` or `deny`.
    pub value: &'static str,
    pub label: String,
}

/// A choice about a tool kept for one chat site (made in the float there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteChoice {
    /// The site's id.
    pub site: String,
    /// The policy's key there (`server:tool`, or `*:tool`).
    pub key: String,
    /// "On `deepseek`: Always allow", in the page's language.
    pub line: String,
}

/// One tool of the Tools section, with everything its row shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolView {
    /// `server:tool`, the key of its policy.
    pub key: String,
    pub name: String,
    pub description: String,
    /// The policy in force.
    pub policy: ToolPolicy,
    pub policy_source: Source,
    /// What the menu shows: `default`, or the policy the user chose.
    pub choice: &'static str,
    pub choices: Vec<PolicyChoice>,
    /// Why this policy is in force, in one sentence.
    pub policy_why: String,
    /// The user lets this tool's results through with secrets unmasked.
    pub unmasked: bool,
    /// The user lets this tool run as its policy says even after untrusted content.
    pub exempt: bool,
    /// Choices kept for single chat sites, which come before the policy there.
    pub on_sites: Vec<SiteChoice>,
    /// What the tool says about itself (its MCP annotations), in words.
    pub hints: Vec<String>,
    pub params: Vec<bridge_api::Param>,
    /// The parameters in one line, wrapped in the language's parentheses: `` (`name`*:
    /// `type`, …) `` (`*`: required; names and types between backticks, as code).
    pub params_text: String,
}

/// One service of the Tools section: its tools, or why they could not be listed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceToolsView {
    pub service: ServiceView,
    /// The user trusts the server: its tools' own read-only claims are believed.
    pub trusted: bool,
    pub tools: Vec<ToolView>,
    pub problem: Option<String>,
}

/// The answer to the Tools section's request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolsAnswer {
    pub services: Vec<ServiceToolsView>,
}

fn policy_word(lang: Lang, p: ToolPolicy) -> &'static str {
    let says = lang.says();
    match p {
        ToolPolicy::Allow => says.policy_word_allow,
        ToolPolicy::Ask => says.policy_word_ask,
        ToolPolicy::Deny => says.policy_word_deny,
    }
}

fn policy_value(p: ToolPolicy) -> &'static str {
    match p {
        ToolPolicy::Allow => "allow",
        ToolPolicy::Ask => "ask",
        ToolPolicy::Deny => "deny",
    }
}

/// One tool's row: the policy in force and why, the menu (with what *Default* means for this
/// tool), the annotations in words and the parameter summary.
pub fn tool_view(server: &str, tool: &bridge_api::Tool, s: &Settings, lang: Lang) -> ToolView {
    let says = lang.says();
    let (policy, source) = policy::on_server(s, server, &tool.name, &tool.annotations);
    // What *Default* means for this user: with the servers they trust, without their choices.
    let defaults = Settings {
        tool_policies: Default::default(),
        site_tool_policies: Default::default(),
        ..s.clone()
    };
    let (default, _) = policy::on_server(&defaults, server, &tool.name, &tool.annotations);
    let default_word = policy_word(lang, default);
    let policy_why = match source {
        Source::User => fill(
            says.policy_set_by_you,
            &[
                ("policy", policy_word(lang, policy)),
                ("default", default_word),
            ],
        ),
        Source::ReadOnly => says.policy_read_only.to_string(),
        Source::NotTrusted => says.policy_not_trusted.to_string(),
        _ => says.policy_may_change.to_string(),
    };
    let mut choices = vec![PolicyChoice {
        value: DEFAULT_CHOICE,
        label: fill(says.policy_default_choice, &[("policy", default_word)]),
    }];
    for p in [ToolPolicy::Allow, ToolPolicy::Ask, ToolPolicy::Deny] {
        let label = policy_word(lang, p).to_string();
        choices.push(PolicyChoice {
            value: policy_value(p),
            label,
        });
    }
    let a = &tool.annotations;
    let hints = [
        (a.read_only, says.ann_read_only),
        (a.destructive, says.ann_destructive),
        (a.idempotent, says.ann_idempotent),
        (a.open_world, says.ann_open_world),
    ]
    .into_iter()
    .filter(|(on, _)| *on == Some(true))
    .map(|(_, word)| word.to_string())
    .collect();
    let params = bridge_api::params(&tool.schema);
    let items = params
        .iter()
        .map(|p| {
            let required = if p.required { "*" } else { "" };
            let item = [("name", p.name.as_str()), ("required", required)];
            fill(
                says.param_item,
                &[item[0], item[1], ("kind", p.kind.as_str())],
            )
        })
        .collect::<Vec<_>>();
    let params_text = if items.is_empty() {
        String::new()
    } else {
        fill(says.params_wrap, &[("params", &items.join(says.list_sep))])
    };
    let key = format!("{server}:{}", tool.name);
    ToolView {
        on_sites: site_choices(s, server, &tool.name, lang),
        unmasked: s.unmasked_results.contains(&key),
        exempt: s.exempt_after_untrusted.contains(&key),
        key,
        name: tool.name.clone(),
        description: tool.description.clone(),
        policy,
        policy_source: source,
        choice: if source == Source::User {
            policy_value(policy)
        } else {
            DEFAULT_CHOICE
        },
        choices,
        policy_why,
        hints,
        params,
        params_text,
    }
}

/// The `read_resource` pseudo-tool as a row of the Tools section: no annotations, so by
/// default it asks, as the chat loop judges it.
pub fn read_resource_tool(lang: Lang) -> bridge_api::Tool {
    bridge_api::Tool {
        name: READ_RESOURCE.to_string(),
        description: lang.says().read_resources_row.to_string(),
        schema: serde_json::from_str(
            r#"{"type": "object", "required": ["uri"], "properties": {"uri": {"type": "string"}}}"#,
        )
        .unwrap_or_default(),
        annotations: bridge_api::Annotations::default(),
    }
}

/// One service of the Tools section: its tools with parameters and policies, or why its
/// tools could not be listed.
pub fn service_tools(
    service: &ServiceView,
    reply: Result<Value, Problem>,
    s: &Settings,
    lang: Lang,
) -> ServiceToolsView {
    let body = match reply {
        Ok(b) => b,
        Err(p) => {
            return ServiceToolsView {
                trusted: s.trusts(&service.name),
                service: service.clone(),
                tools: Vec::new(),
                problem: Some(p.message),
            };
        }
    };
    let mut listed = bridge_api::tools(&body).unwrap_or_default();
    // A server that offers resources is read through the `read_resource` pseudo-tool, whose
    // policy is kept like a tool's (`server:read_resource`); a tool of its own by that name
    // is that tool instead.
    let reads = service.resource_count.is_some_and(|n| n > 0);
    if reads && !listed.iter().any(|t| t.name == READ_RESOURCE) {
        listed.push(read_resource_tool(lang));
    }
    let tools = listed
        .iter()
        .map(|t| tool_view(&service.name, t, s, lang))
        .collect();
    ServiceToolsView {
        trusted: s.trusts(&service.name),
        service: service.clone(),
        tools,
        problem: None,
    }
}

/// The settings as the options page shows them (their stored shape), and why the stored
/// ones could not be used, if they could not (the page then shows what the chat loop uses
/// instead).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingsAnswer {
    #[serde(flatten)]
    pub settings: Settings,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

/// The settings as the options page shows them; `unreadable` says why the stored ones could
/// not be used.
pub fn settings_answer(settings: &Settings, lang: Lang) -> SettingsAnswer {
    SettingsAnswer {
        settings: settings.clone(),
        unreadable: settings.unreadable.as_ref().map(|why| why.say(lang)),
    }
}

/// The settings after the form's values are laid over the stored ones. Keys the form does
/// not send (tool policies, per-site switches it did not show) keep their stored values;
/// any bad field refuses the whole change.
pub fn merge_settings(
    current: &Settings,
    submitted: &Value,
    lang: Lang,
) -> Result<Settings, Problem> {
    let says = lang.says();
    let Value::Object(fields) = submitted else {
        let message = says.settings_not_object.into();
        return Err(Problem::new("invalid", Some("settings"), message));
    };
    let mut merged =
        serde_json::to_value(current).unwrap_or_else(|_| Value::Object(serde_json::Map::new()));
    for (k, v) in fields {
        if merged.get(k).is_none() {
            let message = fill(says.not_a_setting, &[("key", k)]);
            return Err(Problem::new("invalid", Some(k), message));
        }
        if k == "sites"
            && let (Some(cur), Some(new)) = (merged[k].as_object_mut(), v.as_object())
        {
            for (site, switches) in new {
                cur.insert(site.clone(), switches.clone());
            }
            continue;
        }
        merged[k] = v.clone();
    }
    // A token of blanks is refused when the form sends one; an empty one is allowed (the
    // bridge decides, and the status explains its 401).
    if let Some(t) = fields.get("token").and_then(Value::as_str) {
        merged["token"] = Value::String(check_token(lang, t)?);
    }
    if let Some(u) = merged.get("bridgeUrl").and_then(Value::as_str) {
        merged["bridgeUrl"] = Value::String(u.trim().to_string());
    }
    Settings::from_json(&merged).map_err(|e| Problem::invalid(e, lang))
}

/// Sets one tool's policy; `key` is `server:tool` (`*:tool` for any server), on every site
/// or, with `site`, on that chat site only. `None` removes the user's choice, so the tool's
/// own default (or the every-site choice, on a site) applies again.
pub fn set_policy(
    current: &Settings,
    key: &str,
    policy: Option<ToolPolicy>,
    site: Option<&str>,
    lang: Lang,
) -> Result<Settings, Problem> {
    check_tool_key(key, lang)?;
    let mut s = current.clone();
    let policies = match site {
        Some(site) => s.site_tool_policies.entry(site.to_string()).or_default(),
        None => &mut s.tool_policies,
    };
    match policy {
        Some(p) => policies.insert(key.to_string(), p),
        None => policies.remove(key),
    };
    s.site_tool_policies.retain(|_, mine| !mine.is_empty());
    Ok(s)
}

/// The choices kept for `server`'s `tool` on single chat sites (the float's), one line each
/// in the page's language.
fn site_choices(s: &Settings, server: &str, tool: &str, lang: Lang) -> Vec<SiteChoice> {
    let keys = [format!("{server}:{tool}"), format!("*:{tool}")];
    let mut out = Vec::new();
    for (site, mine) in &s.site_tool_policies {
        for key in &keys {
            if let Some(p) = mine.get(key) {
                let args = [("site", site.as_str()), ("policy", policy_word(lang, *p))];
                out.push(SiteChoice {
                    site: site.clone(),
                    key: key.clone(),
                    line: fill(lang.says().policy_on_site, &args),
                });
            }
        }
    }
    out
}

/// The settings with the results of `key` (`server:tool`) let through unmasked, or not.
pub fn set_unmasked(
    current: &Settings,
    key: &str,
    unmasked: bool,
    lang: Lang,
) -> Result<Settings, Problem> {
    check_tool_key(key, lang)?;
    let mut s = current.clone();
    if unmasked {
        s.unmasked_results.insert(key.to_string());
    } else {
        s.unmasked_results.remove(key);
    }
    Ok(s)
}

/// The settings with `key` (`server:tool`) exempted from asking after untrusted content,
/// or not.
pub fn set_exempt(
    current: &Settings,
    key: &str,
    exempt: bool,
    lang: Lang,
) -> Result<Settings, Problem> {
    check_tool_key(key, lang)?;
    let mut s = current.clone();
    if exempt {
        s.exempt_after_untrusted.insert(key.to_string());
    } else {
        s.exempt_after_untrusted.remove(key);
    }
    Ok(s)
}

/// The settings with `server` trusted, or not (the built-in demo server is always trusted).
pub fn set_trusted(current: &Settings, server: &str, trusted: bool) -> Settings {
    let mut s = current.clone();
    if trusted {
        s.trusted_servers.insert(server.to_string());
    } else {
        s.trusted_servers.remove(server);
    }
    s
}

/// `key` is one tool on one server: `server:tool`.
fn check_tool_key(key: &str, lang: Lang) -> Result<(), Problem> {
    match key.split_once(':') {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() && !tool.contains(':') => {
            Ok(())
        }
        _ => {
            let message = fill(lang.says().not_server_tool, &[("key", key)]);
            Err(Problem::new("invalid", Some("key"), message))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tools_results_are_let_through_unmasked_only_by_its_key() {
        let s = set_unmasked(&Settings::default(), "demo:echo", true, Lang::En).unwrap();
        assert!(s.passes_unmasked(Some("demo"), "echo"));
        assert!(
            !s.passes_unmasked(None, "echo"),
            "a call naming no server stays masked"
        );
        assert!(!s.passes_unmasked(Some("other"), "echo"));
        let stored = serde_json::to_value(&s).unwrap();
        assert_eq!(stored["unmaskedResults"], serde_json::json!(["demo:echo"]));
        assert_eq!(Settings::from_json(&stored).unwrap(), s);
        let s = set_unmasked(&s, "demo:echo", false, Lang::En).unwrap();
        assert!(!s.passes_unmasked(Some("demo"), "echo"));
        assert!(set_unmasked(&s, "echo", true, Lang::En).is_err());
    }

    #[test]
    fn trusting_a_server_believes_its_read_only_claims_and_an_exemption_is_kept_per_tool() {
        let mut tool = read_resource_tool(Lang::En);
        tool.name = "now".into();
        tool.annotations.read_only = Some(true);
        let row = tool_view("time", &tool, &Settings::default(), Lang::En);
        assert_eq!(
            (row.policy, row.policy_source),
            (ToolPolicy::Ask, Source::NotTrusted)
        );
        assert!(
            row.policy_why.contains("not marked its server trusted"),
            "{}",
            row.policy_why
        );
        assert!(!row.exempt, "off by default");
        let s = set_trusted(&Settings::default(), "time", true);
        let row = tool_view("time", &tool, &s, Lang::En);
        assert_eq!(
            (row.policy, row.policy_source),
            (ToolPolicy::Allow, Source::ReadOnly)
        );
        let s = set_exempt(&s, "time:now", true, Lang::En).unwrap();
        assert!(tool_view("time", &tool, &s, Lang::En).exempt);
        let stored = serde_json::to_value(&s).unwrap();
        assert_eq!(stored["trustedServers"], serde_json::json!(["time"]));
        assert_eq!(
            stored["exemptAfterUntrusted"],
            serde_json::json!(["time:now"])
        );
        assert_eq!(Settings::from_json(&stored).unwrap(), s);
        assert!(set_exempt(&s, "now", true, Lang::En).is_err());
        // Settings stored before the flags existed read as before: nothing trusted but demo.
        let old = Settings::from_json(&serde_json::json!({"toolPolicies": {"time:now": "allow"}}))
            .unwrap();
        assert!(old.trusts("demo") && !old.trusts("time"));
        assert_eq!(
            old.explicit_policy(Some("time"), "now"),
            Some(ToolPolicy::Allow)
        );
    }

    const BASE: &str = "http://127.0.0.1:3849";
    const EN: Lang = Lang::En;

    #[test]
    fn connection_verdicts_speak_chinese_too() {
        let e =
            health_verdict(Lang::Zh, BASE, &Err(CallOutcome::unreachable("refused"))).unwrap_err();
        assert!(e.message.contains("没有桥接服务响应"), "{}", e.message);
        assert!(e.message.contains("`mcp-bridge`"));
        let e = authed_verdict(Lang::Zh, BASE, &answered(401, ""), VERSION, false).unwrap_err();
        assert!(!e.message.contains("HTTP 401"), "{}", e.message);
        assert!(e.message.contains("令牌"), "{}", e.message);
        let e = check_connection_input(Lang::Zh, BASE, "  ").unwrap_err();
        assert!(e.message.contains("令牌为空"));
        assert!(check_connection_input(Lang::Zh, BASE, "").is_ok());
        let e = authed_verdict(
            Lang::Zh,
            BASE,
            &Err(CallOutcome::timeout(10_000)),
            VERSION,
            false,
        )
        .unwrap_err();
        assert!(e.message.contains("拒绝了这个令牌"), "{}", e.message);
    }

    /// What `/health` gave beside a route's answer: our bridge answered it.
    const VERSION: Option<&str> = Some("0.1.0");

    #[allow(clippy::result_large_err)]
    fn answered(status: u16, body: &str) -> Result<Value, CallOutcome> {
        crate::domain::outcome::json_answer(status, None, body.as_bytes())
    }

    #[test]
    fn client_outcomes_keep_status_and_detail() {
        let r = Err(crate::domain::outcome::from_http(
            401,
            None,
            br#"{"detail":{"error":"wrong token","type":"Unauthorized"}}"#,
        ));
        let e = authed_verdict(EN, BASE, &r, VERSION, false).unwrap_err();
        assert_eq!(e.kind, "wrong-token");
        assert!(e.message.contains("refused this token"), "{}", e.message);
        // No answer, and `/health` gave none either.
        let r = Err(CallOutcome::unreachable("Failed to fetch"));
        assert_eq!(
            authed_verdict(EN, BASE, &r, None, false).unwrap_err().kind,
            "not-running"
        );
        let r = Err(CallOutcome::timeout(10_000));
        assert_eq!(
            health_verdict(EN, BASE, &r).unwrap_err().kind,
            "not-running"
        );
        let r = Err(crate::domain::outcome::from_http(
            404,
            None,
            b"<html>nope</html>",
        ));
        assert_eq!(
            health_verdict(EN, BASE, &r).unwrap_err().kind,
            "not-a-bridge"
        );
        let r = Ok(json!({"status":"ok","version":"9"}));
        assert_eq!(health_verdict(EN, BASE, &r).unwrap(), "9");
    }

    #[test]
    fn form_input_is_checked_before_anything_is_sent() {
        assert_eq!(
            check_connection_input(EN, " http://127.0.0.1:3849/ ", "abc").unwrap(),
            (BASE.to_string(), "abc".to_string())
        );
        // A pasted token keeps the blanks around it out; blanks inside are still refused.
        assert_eq!(check_connection_input(EN, BASE, " abc\n").unwrap().1, "abc");
        let e = check_connection_input(EN, "http://example.com:3849", "abc").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("bridgeUrl"));
        let e = check_connection_input(EN, BASE, "  ").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("token"));
        assert!(e.message.contains("empty"));
        let e = check_connection_input(EN, BASE, "ab cd").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("token"));
    }

    #[test]
    fn a_refused_connection_says_how_to_start_the_bridge() {
        let e = health_verdict(
            EN,
            BASE,
            &Err(CallOutcome::unreachable("connection refused")),
        )
        .unwrap_err();
        assert_eq!(e.kind, "not-running");
        assert_eq!(
            e.message,
            "No bridge answers at http://127.0.0.1:3849. Start it in a terminal with `mcp-bridge`, then test again."
        );
        let e =
            authed_verdict(EN, BASE, &Err(CallOutcome::timeout(10_000)), None, false).unwrap_err();
        assert_eq!(e.kind, "not-running");
        // Another port: the command the user copies starts the bridge on it.
        let other = "http://localhost:4100";
        let e = health_verdict(EN, other, &Err(CallOutcome::unreachable("x"))).unwrap_err();
        assert!(
            e.message.contains("`mcp-bridge --port 4100`"),
            "{}",
            e.message
        );
        assert_eq!(start_command("http://127.0.0.1"), "mcp-bridge");
        assert_eq!(
            start_command("http://[::1]:5000/"),
            "mcp-bridge --port 5000"
        );
    }

    #[test]
    fn saving_the_connection_says_what_the_test_before_found() {
        let ok = saved_connection(
            EN,
            json!({"token": "t"}),
            Ok("Connected to bridge 1.0: 1 server, 1 running.".into()),
        );
        assert!(ok.connected);
        assert_eq!(
            ok.message,
            "Saved. Connected to bridge 1.0: 1 server, 1 running."
        );
        let refused = authed_verdict(EN, BASE, &answered(401, ""), VERSION, false).unwrap_err();
        let bad = saved_connection(EN, json!({}), Err(refused));
        assert!(!bad.connected);
        assert!(
            bad.message.starts_with(
                "Saved, but the connection does not work yet: The bridge refused this token"
            ),
            "{}",
            bad.message
        );
    }

    #[test]
    fn the_header_on_the_options_page_points_at_the_field_below_with_the_port() {
        let d = header_detail(
            EN,
            &Status::TokenMissing,
            &PairingNote::Absent,
            "http://127.0.0.1:4100",
        )
        .unwrap();
        assert!(d.contains("`mcp-bridge --port 4100`"), "{d}");
        assert!(d.contains("Token field"), "{d}");
        assert!(!d.contains("Options"), "{d}");
        let failed = PairingNote::Failed {
            reason: "r".into(),
            command: "c".into(),
        };
        assert_eq!(header_detail(EN, &Status::NotRunning, &failed, BASE), None);
        let connected = Status::Connected {
            version: "1".into(),
            servers: 1,
            tools: 1,
            failed: vec![],
        };
        assert_eq!(
            header_detail(EN, &connected, &PairingNote::None, BASE),
            None
        );
    }

    #[test]
    fn something_else_on_the_port_is_not_a_bridge() {
        for reply in [
            answered(200, "<html>hello</html>"),
            answered(404, r#"{"detail":"Not Found"}"#),
            answered(200, r#"{"status":"fine"}"#),
            answered(200, ""),
        ] {
            let e = health_verdict(EN, BASE, &reply).unwrap_err();
            assert_eq!(e.kind, "not-a-bridge", "{reply:?}");
            assert_eq!(e.field.as_deref(), Some("bridgeUrl"));
        }
        let e = health_verdict(EN, BASE, &answered(200, "")).unwrap_err();
        assert!(e.message.contains("an empty body"), "{}", e.message);
        assert_eq!(
            health_verdict(
                EN,
                BASE,
                &answered(200, r#"{"status":"ok","timestamp":1.5,"version":"0.1.0"}"#)
            )
            .unwrap(),
            "0.1.0"
        );
    }

    #[test]
    fn a_wrong_token_names_the_token_field() {
        let e = authed_verdict(
            EN,
            BASE,
            &answered(
                401,
                r#"{"detail":{"error":"missing or wrong token","type":"Unauthorized"}}"#,
            ),
            VERSION,
            false,
        )
        .unwrap_err();
        assert_eq!(e.kind, "wrong-token");
        assert_eq!(e.field.as_deref(), Some("token"));
        // One sentence in the user's words, whatever the bridge said.
        assert_eq!(
            e.message,
            "The bridge refused this token — copy it again from the bridge's window, or run `mcp-bridge install` to pair."
        );
        let e2 = authed_verdict(EN, BASE, &answered(401, ""), VERSION, false).unwrap_err();
        assert_eq!(e2.message, e.message);
    }

    #[test]
    fn a_hidden_refusal_after_a_healthy_bridge_points_at_the_token() {
        // Our bridge answered `/health`, but the route gave no answer the browser showed.
        let e = authed_verdict(
            EN,
            BASE,
            &Err(CallOutcome::unreachable("x")),
            VERSION,
            false,
        )
        .unwrap_err();
        assert_eq!(e.kind, "wrong-token");
        assert_eq!(e.field.as_deref(), Some("token"));
        assert!(e.message.contains("refused this token"), "{}", e.message);
        assert!(e.message.contains("0.1.0"));
    }

    #[test]
    fn other_errors_quote_the_detail_in_any_shape() {
        let e = authed_verdict(
            EN,
            BASE,
            &answered(403, r#"{"detail":"web origins are refused"}"#),
            VERSION,
            false,
        )
        .unwrap_err();
        assert_eq!(e.kind, "refused");
        assert!(e.message.contains("web origins are refused"));
        let e = authed_verdict(
            EN,
            BASE,
            &answered(
                422,
                r#"{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required"}]}"#,
            ),
            VERSION,
            false,
        )
        .unwrap_err();
        assert!(
            e.message.contains("body.name: Field required"),
            "{}",
            e.message
        );
        let e = authed_verdict(
            EN,
            BASE,
            &answered(502, "<h1>Bad Gateway</h1>"),
            VERSION,
            false,
        )
        .unwrap_err();
        assert_eq!(e.kind, "not-a-bridge");
        let e = authed_verdict(EN, BASE, &answered(200, "[1,2]"), VERSION, false).unwrap_err();
        assert_eq!(e.kind, "not-a-bridge");
    }

    #[test]
    fn services_and_the_connection_report() {
        let body = json!({"success":true,"services":[
            {"name":"demo","description":"Demo","is_core":true,"status":"running","tool_count":9},
            {"name":"broken","description":"","status":{"failed":"exit 1"}},
            {"name":"old"}
        ]});
        let s = services(&body, EN).unwrap();
        assert_eq!(s[0].tool_count, Some(9));
        assert!(s[0].is_core);
        assert_eq!(s[2].status, "unknown");
        assert!(s[1].status.contains("failed"));
        let r = json!(connection_report(EN, "0.1.0", BASE, s));
        assert_eq!(r["running"], 1);
        assert_eq!(r["services"][0]["toolCount"], 9);
        assert_eq!(r["services"][0]["toolCountText"], "9 tools");
        assert_eq!(
            r["summary"],
            "Connected to bridge 0.1.0: 3 servers, 1 running."
        );
        let one = services(
            &json!({"services":[{"name":"a","status":"running","tool_count":1}]}),
            EN,
        )
        .unwrap();
        let r = connection_report(EN, "0.1.0", BASE, one);
        assert_eq!(r.summary, "Connected to bridge 0.1.0: 1 server, 1 running.");
        assert_eq!(r.services[0].tool_count_text.as_deref(), Some("1 tool"));
        assert!(services(&json!({"success":true}), EN).is_err());
    }

    #[test]
    fn the_bridges_own_history_answer_reads_back_whole() {
        use mcp_bridge_protocol::answers::{Counter, History};
        let counter = |tool: &str, failures| Counter {
            server: "demo".into(),
            tool: tool.into(),
            failures,
            refused: 1,
        };
        let sent = History {
            success: true,
            counters: vec![counter("a", 1), counter("b", 2)],
            limit: 2,
        };
        let view = history_view(&serde_json::to_value(sent).unwrap());
        assert_eq!(view.limit, 2);
        assert_eq!(view.blocked, ["demo:b"]);
        let read: Vec<_> = view
            .counters
            .iter()
            .map(|c| (c.tool.as_str(), c.failures, c.refused))
            .collect();
        assert_eq!(read, [("b", 2, 1), ("a", 1, 1)]);
    }

    #[test]
    fn history_puts_refused_tools_first() {
        let v = json!(history_view(&json!({"success":true,"limit":3,"counters":[
            {"server":"a","tool":"ok","failures":1,"refused":0},
            {"server":"demo","tool":"fail_runtime","failures":3,"refused":2},
            {"server":"z","tool":"clean","failures":0,"refused":0}
        ]})));
        assert_eq!(v["counters"][0]["tool"], "fail_runtime");
        assert_eq!(v["counters"][0]["blocked"], true);
        assert_eq!(v["counters"][1]["blocked"], false);
        assert_eq!(
            v["counters"].as_array().unwrap().len(),
            2,
            "zero rows hidden"
        );
        assert_eq!(v["blocked"], json!(["demo:fail_runtime"]));
        assert_eq!(history_view(&json!({})).counters, vec![]);
        let v = json!(history_view(&json!({"limit":3,"counters":[
            {"server":"s","tool":"d","failures":1},
            {"server":"s","tool":"c","failures":3},
            {"server":"r","tool":"z","failures":2},
            {"server":"a","tool":"b","failures":4},
            {"server":"s","tool":"a","failures":1}
        ]})));
        let order: Vec<String> = v["counters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{}:{}",
                    r["server"].as_str().unwrap(),
                    r["tool"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(order, ["a:b", "s:c", "r:z", "s:a", "s:d"]);
        // The bridge's words are in its language; the page says it in the user's.
        let done = json!({"message":"调用历史已重置","cleared":2});
        assert_eq!(reset_view(&done, EN, None).message, "call history reset");
        assert_eq!(reset_view(&done, EN, None).cleared, Some(2));
    }

    #[test]
    fn tools_carry_parameters_and_policies() {
        let settings =
            Settings::from_json(&json!({"toolPolicies":{"demo:crash":"deny","*:echo":"ask"}}))
                .unwrap();
        let svc = ServiceView {
            status_text: "running".into(),
            name: "demo".into(),
            description: String::new(),
            status: "running".into(),
            tool_count: Some(2),
            resource_count: None,
            is_core: false,
        };
        let body = json!({"success":true,"tools":{"service_name":"demo","tools":[
            {"name":"echo","description":"Echo","parameters":{"type":"object",
              "properties":{"text":{"type":"string","description":"what"},"n":{"type":["integer","null"]},
                            "mode":{"enum":["a","b"]}},"required":["text"]}},
            {"name":"crash","description":"","parameters":{}}
        ]}});
        let v = json!(service_tools(&svc, Ok(body), &settings, EN));
        assert_eq!(v["tools"][0]["policy"], "ask");
        assert_eq!(v["tools"][0]["key"], "demo:echo");
        assert_eq!(v["tools"][1]["policy"], "deny");
        let p = &v["tools"][0]["params"];
        let text = p
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "text")
            .unwrap();
        assert_eq!(text["required"], true);
        assert_eq!(text["type"], "string");
        let n = p
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "n")
            .unwrap();
        // One summary for the page and the AI: `null` is what "optional" already says.
        assert_eq!(n["type"], "integer");
        let mode = p.as_array().unwrap().iter().find(|p| p["name"] == "mode");
        assert_eq!(mode.unwrap()["type"], "\"a\"|\"b\"");
        let v = json!(service_tools(
            &svc,
            Err(Problem::new("bad-answer", None, "server down".into())),
            &settings,
            EN,
        ));
        assert_eq!(v["problem"], "server down");
    }

    #[test]
    fn a_server_with_resources_has_a_read_resources_row_with_its_policy() {
        let body = json!({"success":true,"tools":{"service_name":"docs","tools":[
            {"name":"echo","description":"Echo","parameters":{}}]}});
        let svc = |resources| ServiceView {
            status_text: "running".into(),
            name: "docs".into(),
            description: String::new(),
            status: "running".into(),
            tool_count: Some(1),
            resource_count: resources,
            is_core: false,
        };
        let keys = |v: &Value| -> Vec<String> {
            v["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["key"].as_str().unwrap().to_owned())
                .collect()
        };
        let none = json!(service_tools(
            &svc(Some(0)),
            Ok(body.clone()),
            &Settings::default(),
            EN
        ));
        assert_eq!(keys(&none), ["docs:echo"]);
        let unknown = json!(service_tools(
            &svc(None),
            Ok(body.clone()),
            &Settings::default(),
            EN
        ));
        assert_eq!(keys(&unknown), ["docs:echo"]);

        // Nothing chosen: it asks, as the chat loop does for a tool without hints.
        let v = json!(service_tools(
            &svc(Some(3)),
            Ok(body.clone()),
            &Settings::default(),
            EN
        ));
        assert_eq!(keys(&v), ["docs:echo", "docs:read_resource"]);
        let row = &v["tools"][1];
        assert_eq!(
            (row["policy"].as_str(), row["choice"].as_str()),
            (Some("ask"), Some("default"))
        );
        assert!(
            row["description"].as_str().unwrap().contains("resources"),
            "{row}"
        );
        assert!(row["paramsText"].as_str().unwrap().contains("uri"), "{row}");

        // A choice made in the float shows here, and one made here is what the float uses.
        let chosen = set_policy(
            &Settings::default(),
            "docs:read_resource",
            Some(ToolPolicy::Allow),
            None,
            EN,
        )
        .unwrap();
        assert_eq!(
            policy::on_server(
                &chosen,
                "docs",
                READ_RESOURCE,
                &bridge_api::Annotations::default()
            )
            .0,
            ToolPolicy::Allow
        );
        let v = json!(service_tools(&svc(Some(3)), Ok(body), &chosen, Lang::Zh));
        assert_eq!(
            (
                v["tools"][1]["policy"].as_str(),
                v["tools"][1]["choice"].as_str()
            ),
            (Some("allow"), Some("allow"))
        );
        assert!(
            v["tools"][1]["description"]
                .as_str()
                .unwrap()
                .contains("资源")
        );

        // A server's own tool of that name is that tool: one row, its own.
        let own = json!({"success":true,"tools":{"service_name":"docs","tools":[
            {"name":"read_resource","description":"Its own","parameters":{}}]}});
        let v = json!(service_tools(
            &svc(Some(3)),
            Ok(own),
            &Settings::default(),
            EN
        ));
        assert_eq!(keys(&v), ["docs:read_resource"]);
        assert_eq!(v["tools"][0]["description"], "Its own");
    }

    #[test]
    fn merged_settings_keep_what_the_form_did_not_send() {
        let current = Settings::from_json(&json!({"token":"t0","toolPolicies":{"a:b":"deny"},
            "sites":{"deepseek":{"disabled":true}}}))
        .unwrap();
        let s = merge_settings(
            &current,
            &json!({"bridgeUrl":" http://localhost:4000 ","autoSend":false,
                    "sites":{"kimi":{"autoInsertInstructions":true}}}),
            EN,
        )
        .unwrap();
        assert_eq!(s.bridge_url, "http://localhost:4000");
        assert!(!s.auto_send);
        assert_eq!(s.token, "t0");
        assert_eq!(s.policy_for(Some("a"), "b"), ToolPolicy::Deny);
        assert!(s.site("deepseek").disabled);
        assert!(s.site("kimi").auto_insert_instructions);
    }

    #[test]
    fn bad_settings_name_the_field_and_change_nothing() {
        let current = Settings::from_json(&json!({"token":"t0"})).unwrap();
        for (submitted, field) in [
            (json!({"bridgeUrl":"http://evil.example:3849"}), "bridgeUrl"),
            (json!({"token":"  "}), "token"),
            (json!({"stackLines":0}), "stackLines"),
            (json!({"stackLines":"ten"}), "stackLines"),
            (json!({"maxAutoRounds":1000}), "maxAutoRounds"),
            (json!({"language":"fr"}), "language"),
            (json!({"colour":"red"}), "colour"),
            (
                json!({"sites":{"kimi":{"disabled":"yes"}}}),
                "sites.kimi.disabled",
            ),
        ] {
            let e = merge_settings(&current, &submitted, EN).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{submitted}: {e:?}");
        }
        assert!(merge_settings(&current, &json!([1]), EN).is_err());
        // Behaviour can be saved before there is a token at all.
        let fresh = merge_settings(&Settings::default(), &json!({"stackLines": 5}), EN).unwrap();
        assert_eq!(fresh.stack_lines, 5);
        // No token is the user's choice (a `--no-auth` bridge needs none); blanks are a typo.
        assert!(merge_settings(&Settings::default(), &json!({"token": ""}), EN).is_ok());
        assert!(merge_settings(&Settings::default(), &json!({"token": " "}), EN).is_err());
    }

    #[test]
    fn unusable_stored_settings_are_named_and_a_save_replaces_them() {
        let stored = json!({"token": "t0", "maxAutoRounds": 0});
        let shown = Settings::from_stored(Ok(Some(stored)));
        let answer = json!(settings_answer(&shown, EN));
        assert_eq!(answer["token"], "t0");
        assert_eq!(answer["autoExecute"], false);
        assert_eq!(
            answer["unreadable"],
            "maxAutoRounds: must be between 1 and 100, got 0"
        );
        // The reason is never a setting: a save stores settings that validate, without it.
        assert!(merge_settings(&shown, &json!({"unreadable": "x"}), EN).is_err());
        let saved = merge_settings(&shown, &json!({"autoExecute": true}), EN).unwrap();
        assert_eq!(saved.unreadable, None);
        assert!(
            json!(settings_answer(&saved, EN))
                .get("unreadable")
                .is_none()
        );
        assert!(Settings::from_json(&json!(saved)).is_ok());
    }

    #[test]
    fn a_tools_row_lists_the_choices_kept_for_single_sites_and_each_can_be_forgotten() {
        let mut s = Settings::default();
        s.remember(
            "time:now",
            ToolPolicy::Allow,
            Some(&scope("deepseek")),
            false,
        );
        s.remember("*:now", ToolPolicy::Deny, Some(&scope("kimi")), false);
        let tool = bridge_api::Tool {
            name: "now".into(),
            description: String::new(),
            schema: serde_json::Value::Null,
            annotations: bridge_api::Annotations::default(),
        };
        let row = tool_view("time", &tool, &s, EN);
        let lines: Vec<&str> = row.on_sites.iter().map(|c| c.line.as_str()).collect();
        assert_eq!(
            lines,
            [
                "On `deepseek` only: Allow (chosen there in the float)",
                "On `kimi` only: Deny (chosen there in the float)"
            ]
        );
        assert_eq!(
            row.choice, DEFAULT_CHOICE,
            "the every-site menu is untouched"
        );
        let kimi = &row.on_sites[1];
        let forgot = set_policy(&s, &kimi.key, None, Some(&kimi.site), EN).unwrap();
        assert_eq!(tool_view("time", &tool, &forgot, EN).on_sites.len(), 1);
        assert!(!forgot.site_tool_policies.contains_key("kimi"));
    }

    fn scope(id: &str) -> crate::domain::settings::SiteScope {
        crate::domain::settings::SiteScope {
            id: id.into(),
            name: id.into(),
            own: false,
        }
    }

    #[test]
    fn policies_need_a_server_and_tool_key() {
        let s = set_policy(
            &Settings::default(),
            "demo:crash",
            Some(ToolPolicy::Deny),
            None,
            EN,
        )
        .unwrap();
        assert_eq!(s.policy_for(Some("demo"), "crash"), ToolPolicy::Deny);
        // Back to the tool's own default: the user's choice is gone.
        let back = set_policy(&s, "demo:crash", None, None, EN).unwrap();
        assert_eq!(back.explicit_policy(Some("demo"), "crash"), None);
        assert!(
            set_policy(
                &Settings::default(),
                "*:echo",
                Some(ToolPolicy::Ask),
                None,
                EN
            )
            .is_ok()
        );
        for bad in ["crash", ":crash", "demo:", "a:b:c"] {
            let e =
                set_policy(&Settings::default(), bad, Some(ToolPolicy::Ask), None, EN).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("key"));
        }
    }
}
