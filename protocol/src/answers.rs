//! What the bridge's listing routes answer, as the bridge writes them: `GET /tools` (the
//! servers) and `GET /tools?serverName=` (one server's tools). The core reads these answers
//! field by field and tolerates missing ones (other bridges leave some out), so these are the
//! writer's types; the core's reader is tested on what they serialize.

use serde::ser::SerializeMap as _;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// Where a server is in its life, as `GET /tools` and `GET /servers` say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerStatus {
    /// Its first start is under way (the bridge serves meanwhile).
    Starting,
    Running,
    /// It crashed; it is restarted on the next call.
    Crashed,
    /// It could not be started; another attempt is made on the next call.
    Unavailable,
    Stopped,
}

impl ServerStatus {
    pub(crate) const ALL: [ServerStatus; 5] = [
        ServerStatus::Starting,
        ServerStatus::Running,
        ServerStatus::Crashed,
        ServerStatus::Unavailable,
        ServerStatus::Stopped,
    ];

    /// The word on the wire.
    pub fn word(self) -> &'static str {
        match self {
            ServerStatus::Starting => "starting",
            ServerStatus::Running => "running",
            ServerStatus::Crashed => "crashed",
            ServerStatus::Unavailable => "unavailable",
            ServerStatus::Stopped => "stopped",
        }
    }

    /// The status a word names; `None` for a word this build does not know.
    pub fn from_word(word: &str) -> Option<ServerStatus> {
        ServerStatus::ALL.into_iter().find(|s| s.word() == word)
    }
}

/// What `GET /servers` says of a configured server that does not run, in place of its
/// [`ServerStatus`].
pub mod not_running {
    /// Turned off in the config.
    pub const DISABLED: &str = "disabled";
    /// In the config file, but the file's last change was not applied (it does not validate,
    /// or it is being applied).
    pub const NOT_LOADED: &str = "not_loaded";
}

/// What `GET /servers` says about a remote server's sign-in (`sign_in`; `null` for a local
/// server): `{"state": "signed_in", "until": …}` and so on. Written by hand, not as serde's
/// internally tagged enum, which would buffer every reading (see the crate's note).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInState {
    /// It has not asked for one.
    NotNeeded,
    /// Tokens are stored; `until` is when the access token expires (RFC 3339), when known.
    SignedIn { until: Option<String> },
    /// It answered 401: the user must sign in (again).
    NeedsSignIn { reason: String },
    /// The last sign-in did not complete.
    Failed { reason: String },
}

impl SignInState {
    pub(crate) const NOT_NEEDED: &'static str = "not_needed";
    pub(crate) const SIGNED_IN: &'static str = "signed_in";
    pub(crate) const NEEDS_SIGN_IN: &'static str = "needs_sign_in";
    pub(crate) const FAILED: &'static str = "failed";

    /// The `state` word.
    pub fn word(&self) -> &'static str {
        match self {
            SignInState::NotNeeded => Self::NOT_NEEDED,
            SignInState::SignedIn { .. } => Self::SIGNED_IN,
            SignInState::NeedsSignIn { .. } => Self::NEEDS_SIGN_IN,
            SignInState::Failed { .. } => Self::FAILED,
        }
    }

    /// The state a `sign_in` object says; `None` for a word this build does not know. A
    /// missing `reason` reads as empty.
    pub fn read(sign_in: &Value) -> Option<SignInState> {
        let reason = || sign_in["reason"].as_str().unwrap_or_default().to_owned();
        Some(match sign_in["state"].as_str()? {
            Self::NOT_NEEDED => SignInState::NotNeeded,
            Self::SIGNED_IN => SignInState::SignedIn {
                until: sign_in["until"].as_str().map(str::to_owned),
            },
            Self::NEEDS_SIGN_IN => SignInState::NeedsSignIn { reason: reason() },
            Self::FAILED => SignInState::Failed { reason: reason() },
            _ => return None,
        })
    }
}

impl Serialize for SignInState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("state", self.word())?;
        match self {
            SignInState::NotNeeded => {}
            SignInState::SignedIn { until } => map.serialize_entry("until", until)?,
            SignInState::NeedsSignIn { reason } | SignInState::Failed { reason } => {
                map.serialize_entry("reason", reason)?
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for SignInState {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        SignInState::read(&value).ok_or_else(|| serde::de::Error::custom("not a sign-in state"))
    }
}

/// `GET /tools`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Services {
    pub success: bool,
    pub services: Vec<ServiceInfo>,
}

/// One server of `GET /tools`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceInfo {
    pub name: String,
    pub description: String,
    /// What the server (its initialize answer, then its config entry) tells the AI about it.
    pub instructions: String,
    /// A core server is described in the AI's instructions; the others are named.
    pub is_core: bool,
    pub status: ServerStatus,
    pub tool_count: usize,
    pub prompt_count: usize,
    /// Resources and resource templates.
    pub resource_count: usize,
    /// How many times the server announced a changed list.
    pub list_changes: u64,
    /// Its icon (MCP `icons`, one chosen), as a `data:image/…;base64,` URL; absent when it
    /// declares none the bridge could have (docs/BRIDGE.md, "Icons").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
}

/// `GET /tools?serverName=`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerToolList {
    pub success: bool,
    pub tools: ToolList,
}

/// One server's tools.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolList {
    pub service_name: String,
    pub service_description: String,
    /// The server's icon (MCP `icons`, one chosen), as a `data:image/…;base64,` URL; absent when it
    /// declares none the bridge could have (docs/BRIDGE.md, "Icons").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_icon: Option<String>,
    pub tools: Vec<ToolInfo>,
}

/// One tool as the AI and the options page see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// Its input JSON Schema.
    pub parameters: Map<String, Value>,
    /// MCP's `annotations` as the server declared them (`readOnlyHint`, …); `{}` for none.
    pub annotations: Value,
    /// Its MCP App view, when it declares one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ui: Option<ToolUi>,
    /// Its icon (MCP `icons`, one chosen), as a `data:image/…;base64,` URL; absent when it
    /// declares none the bridge could have (docs/BRIDGE.md, "Icons").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
}

/// A tool's MCP App view (the `io.modelcontextprotocol/ui` extension): the `ui://` resource
/// a host shows for its calls, and who may call the tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUi {
    pub resource_uri: String,
    /// `model` (the AI may call it) and/or `app` (its view may); both when the server says
    /// nothing.
    pub visibility: Vec<String>,
}

/// The `202` of `POST /execute` and `GET /calls/{id}`: the call still runs, and what it is
/// doing besides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    pub success: bool,
    /// Always `true`: what tells this answer from a result.
    pub pending: bool,
    /// What to poll (`GET /calls/{id}`) or cancel (`DELETE /calls/{id}`).
    pub call_id: String,
    pub trace_id: String,
    pub elapsed_seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    /// The question the server asks the user, until it is answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Elicitation>,
}

/// The latest `notifications/progress` of a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    pub progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// How many progress notifications have arrived.
    pub updates: u64,
}

/// A question a server asks the user during a call (MCP elicitation).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Elicitation {
    /// What an answer names (`question_id`), so an answer to an older question is refused.
    pub id: String,
    pub server: String,
    pub mode: ElicitationMode,
    pub message: String,
    /// `form`: the JSON schema of the fields to fill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// `url`: the page to open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Seconds the user had left to answer when the question was asked.
    pub answer_timeout_seconds: f64,
}

/// How the user answers a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitationMode {
    /// Fields to fill in.
    Form,
    /// A page to open (a sign-in, a payment); the answer says whether the user went.
    Url,
}

impl ElicitationMode {
    /// The word on the wire.
    pub fn word(self) -> &'static str {
        match self {
            ElicitationMode::Form => "form",
            ElicitationMode::Url => "url",
        }
    }
}

/// `page` of a large result: which part this answer holds; `read_result` gives the rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResultPage {
    /// What `read_result` asks for; `None` when the bridge keeps no more of it.
    pub result_id: Option<String>,
    pub offset: usize,
    pub returned_chars: usize,
    pub total_chars: usize,
    /// Where the next page starts; `None` on the last.
    pub next_offset: Option<usize>,
    /// What became of a large `structuredContent`: `paged` (it is the text paged) or `omitted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<&'static str>,
    /// Why there are no more pages though the result is longer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `GET /history`: the tools that failed in a row, and how many failures refuse the next call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct History {
    pub success: bool,
    pub counters: Vec<Counter>,
    pub limit: u32,
}

/// One tool's failures in a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Counter {
    pub server: String,
    pub tool: String,
    pub failures: u32,
    /// Calls refused since the limit was reached.
    pub refused: u32,
}

/// `POST /reset-history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryReset {
    pub success: bool,
    pub message: String,
    /// How many counters were cleared.
    pub cleared: usize,
}

/// `GET /tool-detail`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDetail<'a> {
    pub success: bool,
    pub tool: ToolDetailInfo<'a>,
}

/// One tool with its server, in MCP's camelCase.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDetailInfo<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub server_name: &'a str,
    pub input_schema: Value,
    /// As in [`ToolInfo`].
    pub annotations: Value,
}

/// A successful `/execute` (and `read_result`): the MCP result, and `page` when it is a page
/// of a large one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolAnswer {
    pub success: bool,
    pub result: ToolResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<ResultPage>,
    /// How many secrets were masked in it, when any were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masked: Option<usize>,
}

/// MCP's `CallToolResult`, in its camelCase.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The content blocks as the server sent them (the first text cut to a page when large).
    pub content: Vec<Value>,
    pub structured_content: Option<Value>,
    pub is_error: bool,
}

/// `DELETE /calls/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallCancelled<'a> {
    pub success: bool,
    pub call_id: &'a str,
    /// `false` when the call had finished already.
    pub cancelled: bool,
    pub message: &'a str,
}

/// `POST /calls/{id}/elicitation`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ElicitationAnswered<'a> {
    pub success: bool,
    pub call_id: &'a str,
    pub question_id: &'a str,
    /// `accept`, `decline` or `cancel`.
    pub action: &'a str,
}

/// `GET /prompts`: each server's prompts as the server listed them, with `server` added (and
/// `arguments: []` when it gave none).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prompts {
    pub success: bool,
    pub prompts: Vec<Map<String, Value>>,
}

/// `POST /prompts/get`: a prompt rendered, its messages as the server sent them (or, when
/// their text is large, its first page: see [`RoleContent`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptRendered<'a> {
    pub success: bool,
    pub server: &'a str,
    pub name: &'a str,
    pub description: Option<String>,
    pub messages: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<ResultPage>,
}

/// One message of a paged prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleContent<R> {
    pub role: R,
    pub content: Value,
}

/// `POST /complete`: at most 100 values.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion<'a> {
    pub success: bool,
    pub server: &'a str,
    pub values: Vec<String>,
    pub total: Option<u32>,
    pub has_more: Option<bool>,
}

/// `GET /resources`: as the servers listed them, with `server` added.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resources {
    pub success: bool,
    pub resources: Vec<Map<String, Value>>,
}

/// `GET /resource-templates`: as the servers listed them, with `server` added.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplates {
    pub success: bool,
    pub resource_templates: Vec<Map<String, Value>>,
}

/// `POST /resources/read`: the contents as the server sent them, or, when their text is
/// large, the first page ([`TextContents`] and the blobs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceRead<'a> {
    pub success: bool,
    pub server: &'a str,
    pub uri: &'a str,
    pub contents: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<ResultPage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masked: Option<usize>,
    /// Blobs over the large-result threshold, each replaced by a note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blobs_left_out: Option<usize>,
}

/// `POST /views`: the one-time address an MCP App view is served from (`GET /views/{id}`),
/// for a sandboxed frame; it works once, within `expires_in_seconds`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewAddress<'a> {
    pub success: bool,
    pub server: &'a str,
    pub uri: &'a str,
    pub url: String,
    pub expires_in_seconds: u64,
    /// Whether the view asks the host for a border and background (`_meta.ui.prefersBorder`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// A text of a paged resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContents<'a> {
    pub uri: &'a str,
    pub text: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<&'a str>,
}

/// `POST /servers/{name}/sign-in`: the page the user opens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignInBegun<'a> {
    pub success: bool,
    pub server: &'a str,
    pub authorization_url: &'a str,
    /// Named to the user before the page opens.
    pub authorization_origin: &'a str,
    pub issuer: Option<&'a str>,
    pub authorization_origin_differs: bool,
}

/// `POST /servers/{name}/sign-out`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignedOut<'a> {
    pub success: bool,
    pub server: &'a str,
    /// Tokens were stored and are forgotten.
    pub signed_out: bool,
    /// The authorization server was told to revoke them.
    pub revoked: bool,
}

/// `GET /servers`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerList {
    pub success: bool,
    pub config_path: String,
    /// Whether the config file reads as JSON now.
    pub config_valid: bool,
    pub servers: Vec<ServerEntry>,
}

/// One server of `GET /servers`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerEntry {
    pub name: String,
    pub enabled: bool,
    /// Its config entry, secrets masked unless revealed; `None` when it is not in the file.
    pub definition: Option<Value>,
    /// A [`ServerStatus`] word, or one of [`not_running`].
    pub status: &'static str,
    pub pid: Option<u32>,
    pub uptime_seconds: Option<f64>,
    pub tool_count: usize,
    /// Why it is not running (not while it starts).
    pub last_error: Option<String>,
    /// Its stderr tail while it does not run.
    pub stderr: String,
    /// `None` for a local server.
    pub sign_in: Option<SignInState>,
    /// The built-in demo server.
    pub builtin: bool,
    /// The environment variables its definition reads.
    pub reads_env: Vec<String>,
    /// Its name escaped, when a new server could not have it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_warning: Option<String>,
    /// Its icon (MCP `icons`, one chosen), as a `data:image/…;base64,` URL; absent when it
    /// declares none the bridge could have (docs/BRIDGE.md, "Icons").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
}

/// `POST /servers/{name}/restart`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Restarted<'a> {
    pub success: bool,
    pub server: &'a str,
    pub restarted: [&'a str; 1],
}

/// `PATCH`, `PUT` and `DELETE /servers/{name}`: what applying the changed file did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changed<'a, C> {
    pub success: bool,
    pub server: &'a str,
    pub changes: C,
    /// `PUT`: whether the server is new.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<bool>,
    /// `PUT`: the built-in server written into the file beside it (`null` for none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<Option<String>>,
}

/// `POST /servers/import` without `names`: what the other apps' files hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportPreview {
    pub success: bool,
    pub dry_run: bool,
    pub found: ImportFound,
}

/// The files looked at and the servers in them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportFound {
    pub sources: Vec<ImportSource>,
    pub servers: Vec<ImportCandidate>,
}

/// One file looked at. A file the caller named is not said to exist or not (`exists: null`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportSource {
    pub client: String,
    pub path: String,
    pub exists: Option<bool>,
    pub error: Option<String>,
}

/// One server found in another app's file, its definition masked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportCandidate {
    pub name: String,
    pub client: String,
    pub path: String,
    pub definition: Value,
    /// Why it cannot be added under this name.
    pub clash: Option<String>,
    /// Why it would not validate.
    pub error: Option<String>,
    pub addable: bool,
    pub reads_env: Vec<String>,
}

/// `POST /servers/import` with `names`: what became of each.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportReport<C> {
    pub added: Vec<String>,
    pub clashes: Vec<ImportRefused>,
    pub invalid: Vec<ImportRefused>,
    pub not_found: Vec<String>,
    /// What applying the file did, when anything was added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<C>,
    pub success: bool,
}

/// A server asked for that was not added: `reason` of a clash, `error` of an invalid one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportRefused {
    pub name: String,
    pub client: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_has_its_word_and_back() {
        for status in ServerStatus::ALL {
            let wire = serde_json::to_value(status).unwrap();
            assert_eq!(wire, status.word());
            assert_eq!(ServerStatus::from_word(status.word()), Some(status));
        }
        assert_eq!(ServerStatus::from_word("failed"), None);
    }

    #[test]
    fn a_sign_in_state_is_written_and_read_back() {
        let states = [
            SignInState::NotNeeded,
            SignInState::SignedIn { until: None },
            SignInState::SignedIn {
                until: Some("2026-11-24T21:00:00Z".to_owned()),
            },
            SignInState::NeedsSignIn {
                reason: "it answered 401".to_owned(),
            },
            SignInState::Failed {
                reason: "denied".to_owned(),
            },
        ];
        let written: Vec<String> = states
            .iter()
            .map(|s| serde_json::to_string(s).unwrap())
            .collect();
        assert_eq!(
            written,
            [
                r#"{"state":"not_needed"}"#,
                r#"{"state":"signed_in","until":null}"#,
                r#"{"state":"signed_in","until":"2026-11-24T21:00:00Z"}"#,
                r#"{"state":"needs_sign_in","reason":"it answered 401"}"#,
                r#"{"state":"failed","reason":"denied"}"#,
            ]
        );
        for state in states {
            let value = serde_json::to_value(&state).unwrap();
            assert_eq!(SignInState::read(&value), Some(state));
        }
        assert_eq!(
            SignInState::read(&serde_json::json!({"state": "odd"})),
            None
        );
    }
}
