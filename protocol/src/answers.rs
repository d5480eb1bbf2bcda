//! What the bridge's listing routes answer, as the bridge writes them: `GET /tools` (the
//! servers) and `GET /tools?serverName=` (one server's tools). The core reads these answers
//! field by field and tolerates missing ones (other bridges leave some out), so these are the
//! writer's types; the core's reader is tested on what they serialize.

use serde::Serialize;
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
    pub const ALL: [ServerStatus; 5] = [
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
}

/// `GET /tools?serverName=`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceTools {
    pub success: bool,
    pub tools: ToolList,
}

/// One server's tools.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolList {
    pub service_name: String,
    pub service_description: String,
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
pub struct Page {
    /// What `read_result` asks for; `None` when the bridge keeps no more of it.
    pub result_id: Option<String>,
    pub offset: usize,
    pub returned_chars: usize,
    pub total_chars: usize,
    /// Where the next page starts; `None` on the last.
    pub next_offset: Option<usize>,
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
}
