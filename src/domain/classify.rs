//! Decides what kind of failure an outcome is, whether the AI may retry, and what it
//! (or the user) should do next (docs/ARCHITECTURE.md, "Reports").
//!
//! Inputs are whatever the bridge told us: Python exception names (possibly qualified,
//! `pydantic_core._pydantic_core.ValidationError`), our bridge's own error types,
//! JSON-RPC codes, HTTP statuses, FastAPI 422 lists, and the tool's name.

mod advice;
mod said;
mod signals;

use mcp_bridge_protocol::errors::{ErrorType, tool_failure};
use mcp_bridge_protocol::rpc;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::outcome::{CallOutcome, ErrorDetail, ToolOutput, cut_chars, display_value};

pub use advice::Advice;
pub use said::{BridgeSaid, Note, Said};
use signals::{
    by_code, by_status, by_type, is_server_not_found, last_nonempty_line, short_type,
    type_from_traceback,
};

/// The failure categories (docs/ARCHITECTURE.md, "Reports").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Category {
    /// Bad arguments; retrying with the same arguments fails again.
    Validation,
    /// The tool threw while running (file, permission, network…).
    Runtime,
    /// The tool ran and reported failure (`isError`).
    Logical,
    /// Timed out, cancelled, stopped by the user.
    Aborted,
    /// Anything unexpected.
    Exception,
    /// The bridge or the MCP server is not reachable.
    Unavailable,
    /// The failure counter refused the call.
    Limit,
}

impl Category {
    /// Every category, in the order the options page shows them.
    pub const ALL: [Category; 7] = [
        Category::Validation,
        Category::Runtime,
        Category::Logical,
        Category::Aborted,
        Category::Exception,
        Category::Unavailable,
        Category::Limit,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Validation => "validation",
            Category::Runtime => "runtime",
            Category::Logical => "logical",
            Category::Aborted => "aborted",
            Category::Exception => "exception",
            Category::Unavailable => "unavailable",
            Category::Limit => "limit",
        }
    }

    /// Whether the same call may be tried again, when the bridge did not say.
    pub fn default_retryable(self) -> bool {
        matches!(
            self,
            Category::Runtime | Category::Logical | Category::Exception
        )
    }
}

/// Everything known about a failure, unmasked (masking happens in `report`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    pub category: Category,
    pub retryable: bool,
    /// Shown as `[Type]`: the exception name, or what we call the situation.
    pub error_type: String,
    pub message: Said,
    pub traceback: Option<String>,
    pub code: Option<i64>,
    pub status: Option<u16>,
    pub trace_id: Option<String>,
    pub server: Option<String>,
    /// For bad arguments, the tool's input schema when the bridge sent it: the report lists
    /// the parameters.
    pub schema: Option<Value>,
    pub advice: Vec<Advice>,
}

/// Diagnoses a failed outcome; `None` for a success.
pub fn diagnose(tool: &str, outcome: &CallOutcome) -> Option<Diagnosis> {
    let status = outcome.status();
    let trace_id = outcome.trace_id().map(String::from);
    let mut d = match outcome {
        // Not a failure: the report says that the user declined (`report::render`).
        CallOutcome::Success { .. } | CallOutcome::Denied => return None,
        CallOutcome::ToolError { result, .. } => tool_error(result),
        CallOutcome::HttpError { status, detail, .. } => http_error(*status, detail),
        CallOutcome::NotJson {
            status,
            body,
            snippet,
            ..
        } => {
            let category = match status {
                502..=504 => Category::Unavailable,
                _ => Category::Exception,
            };
            let category = if *status == 504 {
                Category::Aborted
            } else {
                category
            };
            Draft::new(
                category,
                format!("HTTP {status}"),
                Said::Note(Note::NotJson {
                    status: *status,
                    body: *body,
                    snippet: snippet.clone(),
                }),
            )
        }
        CallOutcome::BadShape {
            status, snippet, ..
        } => Draft::new(
            Category::Exception,
            tool_failure::UNEXPECTED_RESPONSE.into(),
            Said::Note(Note::BadShape {
                status: *status,
                snippet: snippet.clone(),
            }),
        ),
        CallOutcome::Pending { call_id, .. } => Draft::new(
            Category::Aborted,
            "StillRunning".into(),
            Said::Note(Note::StillRunning {
                call_id: call_id.clone(),
            }),
        ),
        CallOutcome::Unreachable { message } => Draft::new(
            Category::Unavailable,
            "BridgeUnreachable".into(),
            Said::Note(Note::Unreachable {
                why: message.clone(),
            }),
        ),
        CallOutcome::Timeout { after_ms } => Draft::new(
            Category::Aborted,
            ErrorType::TimeoutError.as_str().into(),
            Said::Note(Note::TimedOut {
                after_ms: *after_ms,
            }),
        ),
        CallOutcome::Aborted => Draft::new(
            Category::Aborted,
            "Aborted".into(),
            Said::Note(Note::UserAborted),
        ),
    };
    if matches!(outcome, CallOutcome::Aborted) {
        d.user_abort = true;
    }
    if matches!(outcome, CallOutcome::Unreachable { .. }) {
        d.bridge_down = true;
    }
    d.status = status;
    if matches!(&d.message, Said::Quoted(m) if m.trim().is_empty()) {
        d.message = Said::Note(Note::NoMessage {
            status: status.unwrap_or(0),
        });
    }
    let advice = advice::advice(tool, &d);
    let retryable = d
        .retryable
        .unwrap_or_else(|| d.category.default_retryable());
    Some(Diagnosis {
        category: d.category,
        retryable,
        error_type: d.error_type,
        message: d.message,
        traceback: d.traceback,
        code: d.code,
        status,
        trace_id,
        server: d.server,
        schema: d.schema,
        advice,
    })
}

/// Intermediate result before advice is chosen.
struct Draft {
    category: Category,
    error_type: String,
    message: Said,
    traceback: Option<String>,
    code: Option<i64>,
    retryable: Option<bool>,
    server: Option<String>,
    schema: Option<Value>,
    status: Option<u16>,
    tool_not_found: bool,
    validation_list: bool,
    user_abort: bool,
    bridge_down: bool,
}

impl Draft {
    fn new(category: Category, error_type: String, message: Said) -> Draft {
        Draft {
            category,
            error_type,
            message,
            traceback: None,
            code: None,
            retryable: None,
            server: None,
            schema: None,
            status: None,
            tool_not_found: false,
            validation_list: false,
            user_abort: false,
            bridge_down: false,
        }
    }
}

fn tool_error(result: &ToolOutput) -> Draft {
    let mut message = result.text();
    if message.trim().is_empty()
        && let Some(v) = &result.structured_content
    {
        message = display_value(v);
    }
    let lower = message.to_ascii_lowercase();
    // SDKs report argument validation as an isError result: FastMCP/pydantic
    // ("1 validation error for …", "Input should be …"), rmcp/serde ("failed to
    // deserialize parameters: missing field `b`"), the TypeScript SDK (zod: "Invalid
    // arguments for tool …").
    const ARG_ERRORS: &[&str] = &[
        "validation error",
        "input should be",
        "invalid arguments",
        "invalid params",
        "failed to deserialize parameters",
        "missing field `",
        "missing required argument",
        "missing required parameter",
    ];
    let category = if ARG_ERRORS.iter().any(|p| lower.contains(p)) {
        Category::Validation
    } else {
        Category::Logical
    };
    let said = if message.trim().is_empty() {
        Said::Note(Note::EmptyToolError)
    } else {
        Said::Quoted(message.trim().to_string())
    };
    let mut d = Draft::new(category, "ToolError".into(), said);
    if lower.contains("unknown tool") || lower.contains("tool not found") {
        d.category = Category::Validation;
        d.tool_not_found = true;
    }
    d
}

fn http_error(status: u16, detail: &ErrorDetail) -> Draft {
    match detail {
        ErrorDetail::Text { message } => {
            // FastAPI's own "Not Found"/"Method Not Allowed": the route is missing, so
            // whatever answers on the port is not (this version of) the bridge.
            let category = match message.as_str() {
                "Not Found" | "Method Not Allowed" => Category::Exception,
                _ => by_status(status),
            };
            let mut d = Draft::new(
                category,
                format!("HTTP {status}"),
                Said::Quoted(message.clone()),
            );
            refine_by_message(&mut d);
            d
        }
        ErrorDetail::Validation { items } => {
            let mut d = Draft::new(
                Category::Validation,
                ErrorType::RequestValidationError.as_str().into(),
                Said::Note(Note::Validation {
                    items: items.clone(),
                }),
            );
            d.validation_list = true;
            d.retryable = Some(false);
            d
        }
        ErrorDetail::Other { json } => Draft::new(
            by_status(status),
            format!("HTTP {status}"),
            Said::Quoted(cut_chars(&json.to_string(), 2000)),
        ),
        ErrorDetail::Object { error } => {
            let tb_type = error.traceback.as_deref().and_then(type_from_traceback);
            let error_type = error
                .error_type
                .clone()
                .or(tb_type)
                .unwrap_or_else(|| format!("HTTP {status}"));
            let mut message = Said::Quoted(error.message.clone());
            if error.message.trim().is_empty() {
                message = match error.traceback.as_deref().and_then(last_nonempty_line) {
                    Some(line) => Said::Quoted(line.to_string()),
                    None => Said::Note(Note::NoMessage { status }),
                };
            }
            if let Some(said) = BridgeSaid::read(&error_type, error) {
                message = Said::Note(Note::Bridge(said));
            }
            let mut d = Draft::new(by_status(status), error_type, message);
            d.traceback = error.traceback.clone();
            d.code = error.code;
            d.retryable = error.retryable;
            d.server = error.server.clone();
            d.schema = error
                .extra
                .get("input_schema")
                .filter(|s| s.is_object())
                .cloned();
            if let Some(c) = error.code.and_then(by_code) {
                d.category = c;
            }
            if let Some(c) = by_type(&d.error_type) {
                d.category = c;
            }
            if error
                .code
                .and_then(|c| i32::try_from(c).ok())
                .is_some_and(rpc::is_not_found)
                || matches!(
                    ErrorType::parse(short_type(&d.error_type)),
                    Some(ErrorType::ToolNotFound)
                )
                || is_server_not_found(short_type(&d.error_type))
            {
                d.tool_not_found = true;
            }
            refine_by_message(&mut d);
            d
        }
    }
}

/// Messages of the original bridge that carry the real meaning (it raises plain
/// `ValueError` for both a missing tool and the call limit).
fn refine_by_message(d: &mut Draft) {
    let m = d.message.quoted().to_ascii_lowercase();
    if m.contains("已达到最大调用次数")
        || m.contains("maximum number of calls")
        || m.contains("call limit")
        || m.contains("failed 3 times in a row")
    {
        d.category = Category::Limit;
        d.retryable = Some(false);
    } else if m.contains("不存在于任何服务中")
        || m.contains("not found in any service")
        || m.contains("unknown tool")
    {
        d.category = Category::Validation;
        d.tool_not_found = true;
    } else if m.contains("不存在或未成功加载") {
        d.category = Category::Unavailable;
    }
}

/// Convenience for the float and tests: the category of an outcome.
pub fn category_of(tool: &str, outcome: &CallOutcome) -> Option<Category> {
    diagnose(tool, outcome).map(|d| d.category)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::outcome::from_http;

    /// The diagnosis of a bridge's HTTP answer to a call of `get_tickets`.
    pub(super) fn diag(status: u16, body: &str) -> Diagnosis {
        diagnose("get_tickets", &from_http(status, None, body.as_bytes())).unwrap()
    }

    #[test]
    fn sdk_argument_errors_in_is_error_results() {
        for text in [
            "failed to deserialize parameters: invalid type: string \\\"five\\\", expected f64",
            "failed to deserialize parameters: missing field `b`",
            "Error executing tool add: 1 validation error for addArguments",
            "MCP error -32602: Invalid arguments for tool add",
        ] {
            let body = format!(
                r#"{{"success":true,"result":{{"content":[{{"type":"text","text":"{text}"}}],"isError":true}}}}"#
            );
            assert_eq!(diag(200, &body).category, Category::Validation, "{text}");
        }
    }

    #[test]
    fn the_python_bridge_messages_are_classified() {
        let d = diag(
            500,
            r#"{"detail":{"error":"工具 get_tickets 已达到最大调用次数 (3次)","type":"ValueError"}}"#,
        );
        assert_eq!(d.category, Category::Limit);
        assert!(d.advice.contains(&Advice::ResetHistory));
        let d = diag(
            500,
            r#"{"detail":{"error":"工具 unknown_tool 不存在于任何服务中","type":"ValueError"}}"#,
        );
        assert!(matches!(d.advice[0], Advice::ListTools { .. }));
    }

    #[test]
    fn validation_lines() {
        let d = diag(
            422,
            r#"{"detail":[
            {"type":"int_parsing","loc":["body","arguments","quantity"],"msg":"Input should be a valid integer","input":"five"},
            {"type":"missing","loc":["body","name"],"msg":"Field required","input":{}},
            {"type":"json_invalid","loc":["body",12],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting value"}}]}"#,
        );
        assert_eq!(d.category, Category::Validation);
        // The words are the report's; classification keeps the items.
        let Said::Note(Note::Validation { items }) = &d.message else {
            panic!("{:?}", d.message)
        };
        assert_eq!(items.len(), 3);
    }

    #[test]
    fn transport_and_tool_errors() {
        let d = diagnose("x", &CallOutcome::unreachable("refused")).unwrap();
        assert_eq!(d.category, Category::Unavailable);
        assert_eq!(d.advice[0], Advice::StartBridge);
        let d = diagnose("x", &CallOutcome::aborted()).unwrap();
        assert_eq!((d.category, d.retryable), (Category::Aborted, false));
        let d = diag(
            200,
            r#"{"success":true,"result":{"content":[{"type":"text","text":"no such row"}],"isError":true}}"#,
        );
        assert_eq!((d.category, d.retryable), (Category::Logical, true));
        let d = diagnose("read_file", &from_http(200, None, br#"{"success":true,"result":{"content":[{"type":"text","text":"missing"}],"is_error":true}}"#)).unwrap();
        assert!(d.advice.contains(&Advice::ListPaths));
        assert_eq!(
            diag(502, "<html>bad gateway</html>").category,
            Category::Unavailable
        );
        assert_eq!(diag(200, r#"{"x":1}"#).category, Category::Exception);
    }
}
