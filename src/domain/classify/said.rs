//! What a failure says, as values rather than sentences: the tool's own words quoted, or a
//! situation (ours, or our bridge's told by its `facts`) that the report words in the
//! reader's language.

use mcp_bridge_protocol::errors::{ErrorType, Facts, Refused, ResultGone, TokenProblem};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::outcome::{BodyKind, ValidationItem};

/// What a failure says: words of its own, or a situation the report puts into words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Said {
    /// The tool's or the bridge's own words, quoted as they are in every language.
    Quoted(String),
    /// A situation with no words of its own; the report says it in the reader's language.
    Note(Note),
}

impl Said {
    /// The quoted words; empty for a note.
    pub fn quoted(&self) -> &str {
        match self {
            Said::Quoted(s) => s,
            Said::Note(_) => "",
        }
    }
}

/// The situations the core describes itself (`report::text::said` words them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Note {
    NotJson {
        status: u16,
        body: BodyKind,
        snippet: String,
    },
    BadShape {
        status: u16,
        snippet: String,
    },
    StillRunning {
        call_id: String,
    },
    Unreachable {
        why: String,
    },
    TimedOut {
        after_ms: u64,
    },
    UserAborted,
    EmptyToolError,
    NoMessage {
        status: u16,
    },
    /// A FastAPI/pydantic 422 list, one line per item.
    Validation {
        items: Vec<ValidationItem>,
    },
    /// Our bridge's own failure, told by the `facts` it sends beside its English text.
    Bridge(BridgeSaid),
}

/// What our bridge said, as values (docs/BRIDGE.md, "Bridge API": `facts`), so the
/// report says it in the reader's language instead of quoting the bridge's English.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum BridgeSaid {
    TokenMissing,
    TokenWrong,
    /// A refused request: what was wrong with it, and the header value at fault.
    Refused {
        what: Refused,
        value: String,
    },
    TooLarge {
        limit: u64,
    },
    NoServer {
        server: String,
        available: Vec<String>,
    },
    /// `server` is set when the AI named the server; `services` lists each server with its
    /// tools (`None` while unknown); `closest` holds `(tool, server)` pairs.
    NoTool {
        tool: String,
        server: Option<String>,
        closest: Vec<(String, String)>,
        services: Vec<(String, Option<Vec<String>>)>,
    },
    CallLimit {
        server: String,
        tool: String,
        failures: u64,
        limit: u64,
    },
    TimedOut {
        server: String,
        tool: String,
        seconds: String,
    },
    Crashed {
        server: String,
        tool: String,
    },
    ShuttingDown {
        server: String,
        tool: String,
    },
    CancelledByUser {
        tool: String,
    },
    NoCall {
        call_id: String,
    },
    /// `limit` is in seconds for an expired result, in MiB for an evicted one.
    NoResult {
        result_id: String,
        reason: ResultGone,
        limit: u64,
    },
    PastEnd {
        result_id: String,
        offset: u64,
        total: u64,
    },
}

impl BridgeSaid {
    /// Reads the facts our bridge sends with an error of type `error_type`; `None` when the
    /// error has no facts (another bridge, or words that are not the bridge's own).
    pub fn read(error_type: &str, error: &crate::domain::outcome::ErrorFields) -> Option<Self> {
        let facts = Facts::read(error_type, error.extra.get("facts")?)?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        let server = error.server.clone().unwrap_or_default();
        let tool = text(error.extra.get("tool"));
        let result_id = text(error.extra.get("result_id"));
        Some(match facts {
            Facts::Token {
                reason: TokenProblem::MissingToken,
            } => BridgeSaid::TokenMissing,
            Facts::Token { .. } => BridgeSaid::TokenWrong,
            Facts::Refused { refused, value } => BridgeSaid::Refused {
                what: refused,
                value,
            },
            Facts::TooLarge { limit } => BridgeSaid::TooLarge { limit },
            Facts::NoServer { available } => BridgeSaid::NoServer { server, available },
            Facts::NoTool { closest, services } => BridgeSaid::NoTool {
                tool,
                server: error.server.clone(),
                closest: closest.into_iter().map(|c| (c.tool, c.server)).collect(),
                services: services.into_iter().map(|s| (s.name, s.tools)).collect(),
            },
            Facts::CallLimit { failures, limit } => BridgeSaid::CallLimit {
                server,
                tool,
                failures,
                limit,
            },
            Facts::TimedOut { seconds } => BridgeSaid::TimedOut {
                server,
                tool,
                seconds: if seconds.fract() == 0.0 {
                    (seconds as u64).to_string()
                } else {
                    seconds.to_string()
                },
            },
            Facts::Nothing if error_type == ErrorType::ServerCrashed.as_str() => {
                BridgeSaid::Crashed { server, tool }
            }
            Facts::Nothing => BridgeSaid::ShuttingDown { server, tool },
            Facts::CancelledBy { .. } => BridgeSaid::CancelledByUser { tool },
            Facts::NoCall { call_id } => BridgeSaid::NoCall { call_id },
            Facts::NoResult { reason, limit } => BridgeSaid::NoResult {
                result_id,
                reason,
                limit,
            },
            Facts::PastEnd {
                offset,
                total_chars,
            } => BridgeSaid::PastEnd {
                result_id,
                offset,
                total: total_chars,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::classify::tests::diag;

    #[test]
    fn only_our_bridges_facts_are_reworded() {
        // A tool's own TimeoutError (no facts) is quoted as it is.
        let d = diag(
            504,
            r#"{"detail":{"error":"upstream slow","type":"TimeoutError"}}"#,
        );
        assert_eq!(d.message, Said::Quoted("upstream slow".into()));
        // Our bridge's, with facts, is told in the reader's language.
        let d = diag(
            504,
            r#"{"detail":{"error":"x","type":"TimeoutError","server":"demo","tool":"slow","facts":{"seconds":2.5}}}"#,
        );
        assert_eq!(
            d.message,
            Said::Note(Note::Bridge(BridgeSaid::TimedOut {
                server: "demo".into(),
                tool: "slow".into(),
                seconds: "2.5".into()
            }))
        );
        // Facts under a type we do not know: quoted.
        let d = diag(
            500,
            r#"{"detail":{"error":"odd","type":"Novel","facts":{}}}"#,
        );
        assert_eq!(d.message, Said::Quoted("odd".into()));
    }
}
