//! Decides what kind of failure an outcome is, whether the AI may retry, and what it
//! (or the user) should do next (docs/ARCHITECTURE.md, "Reports").
//!
//! Inputs are whatever the bridge told us: Python exception names (possibly qualified,
//! `pydantic_core._pydantic_core.ValidationError`), our bridge's own error types,
//! JSON-RPC codes, HTTP statuses, FastAPI 422 lists, and the tool's name.

use mcp_bridge_protocol::errors::{
    ErrorType, Facts, Refused, ResultGone, TokenProblem, tool_failure,
};
use mcp_bridge_protocol::rpc;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::outcome::{
    BodyKind, CallOutcome, ErrorDetail, ToolResult, ValidationItem, cut_chars, display_value,
};

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
    pub fn read(error_type: &str, error: &crate::domain::outcome::ErrorObject) -> Option<Self> {
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

/// One recommendation; rendered per language by `report::text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Advice {
    CheckSchema,
    RequiredArgs,
    ArgTypes,
    FixListedArgs,
    AskUser,
    /// Call `list_tools_in_service` to see the real tool names.
    ListTools {
        server: Option<String>,
    },
    CheckServerName,
    /// File tools: list the directory or search for the path.
    ListPaths,
    CheckPermission,
    RetryLater,
    CheckUrl,
    CheckQuery,
    ReadToolMessage,
    VerifyState,
    NarrowRequest,
    UserStopped,
    TryOtherTool,
    TellUser,
    /// How to start the bridge (`./build.sh run` or `mcp-bridge`).
    StartBridge,
    CheckServerConfig {
        server: Option<String>,
    },
    CheckToken,
    StopRetrying,
    /// "Reset call history" in the options page or `POST /reset-history`.
    ResetHistory,
    UpdateBridge,
    /// The bridge refused the request itself (origin or host check).
    BridgeRefused,
    /// `read_result` past the end: the whole result has been read.
    ResultRead,
    /// `read_result` for a result the bridge no longer keeps: run the tool again.
    RunToolAgain,
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
    let advice = advice(tool, &d);
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

fn tool_error(result: &ToolResult) -> Draft {
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

fn by_status(status: u16) -> Category {
    match status {
        400 | 404 | 405 | 413 | 415 | 422 => Category::Validation,
        401 => Category::Unavailable,
        403 => Category::Runtime,
        408 | 504 => Category::Aborted,
        429 => Category::Limit,
        499 => Category::Aborted,
        502 | 503 => Category::Unavailable,
        _ => Category::Exception,
    }
}

/// JSON-RPC / MCP error codes.
fn by_code(code: i64) -> Option<Category> {
    Some(match i32::try_from(code).ok()? {
        rpc::INVALID_PARAMS
        | rpc::INVALID_REQUEST
        | rpc::PARSE_ERROR
        | rpc::METHOD_NOT_FOUND
        | rpc::TOOL_NOT_FOUND
        | rpc::PROMPT_NOT_FOUND => Category::Validation,
        rpc::TIMEOUT => Category::Aborted,
        rpc::RESOURCE_NOT_FOUND | rpc::PERMISSION_DENIED => Category::Runtime,
        rpc::UNAUTHORIZED => Category::Unavailable,
        rpc::INTERNAL_ERROR | rpc::SERVER_ERROR => Category::Exception,
        _ => return None,
    })
}

/// `a.b.ValidationError` → `ValidationError`.
fn short_type(t: &str) -> &str {
    t.rsplit(['.', ':']).next().unwrap_or(t).trim()
}

/// The original bridge's type for a service it does not know.
const UNKNOWN_SERVICE: &str = "UnknownService";

/// Whether the type says the AI named a server that does not exist.
fn is_server_not_found(short: &str) -> bool {
    ErrorType::parse(short) == Some(ErrorType::ServerNotFound) || short == UNKNOWN_SERVICE
}

/// Our bridge's own types (the protocol crate's).
fn by_bridge_type(t: ErrorType) -> Option<Category> {
    use ErrorType as T;
    Some(match t {
        T::RequestValidationError | T::ToolNotFound => Category::Validation,
        // The AI named a service that is not configured.
        T::ServerNotFound => Category::Validation,
        // A `read_result` handle or offset the bridge cannot serve.
        T::ResultNotFound | T::ResultExpired | T::OffsetOutOfRange => Category::Validation,
        T::TimeoutError | T::CancelledError => Category::Aborted,
        T::ServerUnavailable
        | T::ServerCrashed
        | T::Unauthorized
        | T::Forbidden
        | T::TransportError => Category::Unavailable,
        // A route or call id the bridge does not know: not the AI's doing.
        T::NotFound | T::MethodNotAllowed | T::CallNotFound => Category::Exception,
        T::CallLimitExceeded => Category::Limit,
        T::PayloadTooLarge
        | T::SignInRequired
        | T::BridgeShuttingDown
        | T::InvalidServerDefinition
        | T::ConfigFileInvalid
        | T::InternalError => return None,
    })
}

/// Python exception names, other bridges' words, and our bridge's types.
fn by_type(t: &str) -> Option<Category> {
    let s = short_type(t);
    if let Some(bridge) = ErrorType::parse(s) {
        return by_bridge_type(bridge);
    }
    // The name the bridge gives a JSON-RPC error that names none (`InvalidParams`, …).
    if let Some(code) = rpc::code_named(s) {
        return by_code(i64::from(code));
    }
    Some(match s {
        "ValueError" | "TypeError" | "KeyError" | "ValidationError" | "InvalidArguments"
        | "JSONDecodeError" | "UnknownTool" | "UnicodeEncodeError" | "AssertionError"
        | "ArgumentError" => Category::Validation,
        "FileNotFoundError"
        | "IsADirectoryError"
        | "NotADirectoryError"
        | "FileExistsError"
        | "OSError"
        | "IOError"
        | "ConnectionError"
        | "ConnectionRefusedError"
        | "ConnectionResetError"
        | "ConnectionAbortedError"
        | "BrokenPipeError"
        | "ConnectError"
        | "HTTPError"
        | "HTTPStatusError"
        | "RequestError"
        | "RequestException"
        | "URLError"
        | "SSLError"
        | "OperationalError"
        | "DatabaseError"
        | "IntegrityError"
        | "ProgrammingError"
        | "CalledProcessError"
        | "RuntimeError"
        | "IndexError"
        | "LookupError"
        | "UnicodeDecodeError"
        | "gaierror"
        | "PermissionDenied"
        | "ToolFailed" => Category::Runtime,
        "TimeoutException" | "ReadTimeout" | "ConnectTimeout" | "KeyboardInterrupt"
        | "Cancelled" | "Aborted" => Category::Aborted,
        "ServiceUnavailable" | "ServerNotRunning" | "BridgeUnreachable" => Category::Unavailable,
        // The AI named a service that is not configured (the original bridge's word).
        UNKNOWN_SERVICE => Category::Validation,
        "CircuitOpen" | "TooManyFailures" | "RateLimited" => Category::Limit,
        _ if s.ends_with("Timeout") || s.ends_with("TimeoutError") => Category::Aborted,
        _ if s.ends_with("NotFoundError")
            || s.ends_with("PermissionError")
            || s.ends_with("ConnectionError") =>
        {
            Category::Runtime
        }
        _ => return None,
    })
}

/// The exception name of a Python traceback's last line (`ValueError: …`).
fn type_from_traceback(tb: &str) -> Option<String> {
    let line = last_nonempty_line(tb)?;
    let name = line.split(':').next()?.trim();
    let valid = !name.is_empty()
        && name.len() < 100
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && (name.ends_with("Error")
            || name.ends_with("Exception")
            || name.ends_with("Interrupt")
            || name.ends_with("Exit"));
    valid.then(|| name.to_string())
}

fn last_nonempty_line(s: &str) -> Option<&str> {
    s.lines().rev().map(str::trim).find(|l| !l.is_empty())
}

/// `["body", "arguments", "items", 0, "qty"]` → `items[0].qty`.
pub fn arg_path(loc: &[Value]) -> String {
    let mut parts = loc;
    if parts
        .first()
        .and_then(Value::as_str)
        .is_some_and(|s| matches!(s, "body" | "query" | "path" | "header"))
    {
        parts = &parts[1..];
    }
    if parts.len() > 1 && parts.first().and_then(Value::as_str) == Some("arguments") {
        parts = &parts[1..];
    }
    let mut out = String::new();
    for p in parts {
        match p {
            Value::Number(n) => out.push_str(&format!("[{n}]")),
            other => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&display_value(other));
            }
        }
    }
    if out.is_empty() { "(body)".into() } else { out }
}

/// Python-like repr of an input value: strings in single quotes, others as JSON.
pub fn python_repr(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", cut_chars(s, 80)),
        other => cut_chars(&other.to_string(), 80),
    }
}

/// What kind of tool this is, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToolKind {
    File,
    Network,
    Database,
    Other,
}

fn tool_kind(tool: &str) -> ToolKind {
    let t = tool.to_ascii_lowercase();
    let has = |ws: &[&str]| ws.iter().any(|w| t.contains(w));
    if has(&[
        "file",
        "fs_",
        "dir",
        "path",
        "folder",
        "glob",
        "grep",
        "ls_",
        "list_allowed",
    ]) {
        ToolKind::File
    } else if has(&[
        "fetch", "http", "url", "web", "browse", "download", "request", "search", "api",
    ]) {
        ToolKind::Network
    } else if has(&["sql", "query", "db_", "database", "table"]) {
        ToolKind::Database
    } else {
        ToolKind::Other
    }
}

fn advice(tool: &str, d: &Draft) -> Vec<Advice> {
    use Advice as A;
    let kind = tool_kind(tool);
    let t = short_type(&d.error_type);
    let mut v = Vec::new();
    match ErrorType::parse(t) {
        Some(ErrorType::OffsetOutOfRange) => return vec![A::ResultRead],
        Some(ErrorType::ResultNotFound | ErrorType::ResultExpired) => {
            return vec![A::RunToolAgain, A::TellUser];
        }
        _ => {}
    }
    match d.category {
        Category::Validation => {
            if d.tool_not_found && is_server_not_found(t) {
                v.push(A::CheckServerName);
                v.push(A::ListTools { server: None });
            } else if d.tool_not_found {
                v.push(A::ListTools {
                    server: d.server.clone(),
                });
                v.push(A::CheckServerName);
            } else if d.validation_list {
                v.push(A::FixListedArgs);
                v.push(A::CheckSchema);
            } else {
                v.push(A::CheckSchema);
                v.push(A::RequiredArgs);
                v.push(A::ArgTypes);
                if kind == ToolKind::File {
                    v.push(A::ListPaths);
                }
                v.push(A::AskUser);
            }
        }
        Category::Runtime => {
            let perm = t.contains("Permission")
                || d.status == Some(403)
                || d.code == Some(i64::from(rpc::PERMISSION_DENIED));
            if kind == ToolKind::File || t.contains("FileNotFound") || t.contains("Directory") {
                v.push(A::ListPaths);
            }
            if perm {
                v.push(A::CheckPermission);
            }
            if t.contains("Connect")
                || t.contains("HTTP")
                || t.contains("URL")
                || kind == ToolKind::Network
            {
                v.push(A::CheckUrl);
                v.push(A::RetryLater);
            }
            if kind == ToolKind::Database {
                v.push(A::CheckQuery);
            }
            v.push(A::TryOtherTool);
            v.push(A::TellUser);
        }
        Category::Logical => {
            v.push(A::ReadToolMessage);
            if kind == ToolKind::File {
                v.push(A::ListPaths);
            }
            if kind == ToolKind::Database {
                v.push(A::CheckQuery);
            }
            v.push(A::VerifyState);
            v.push(A::TryOtherTool);
        }
        Category::Aborted => {
            if d.user_abort {
                v.push(A::UserStopped);
            } else {
                v.push(A::NarrowRequest);
                v.push(A::RetryLater);
                v.push(A::TellUser);
            }
        }
        Category::Exception => {
            if matches!(d.status, Some(404 | 405))
                || d.error_type == tool_failure::UNEXPECTED_RESPONSE
            {
                v.push(A::UpdateBridge);
            }
            v.push(A::TryOtherTool);
            v.push(A::TellUser);
        }
        Category::Unavailable => {
            if d.status == Some(401) || t == "Unauthorized" {
                v.push(A::CheckToken);
            } else if t == "Forbidden" {
                v.push(A::BridgeRefused);
            } else if d.bridge_down || matches!(d.status, Some(502 | 503)) && d.server.is_none() {
                v.push(A::StartBridge);
            } else {
                v.push(A::CheckServerConfig {
                    server: d.server.clone(),
                });
            }
            v.push(A::TellUser);
        }
        Category::Limit => {
            v.push(A::StopRetrying);
            v.push(A::TryOtherTool);
            v.push(A::ResetHistory);
        }
    }
    v
}

/// Convenience for the float and tests: the category of an outcome.
pub fn category_of(tool: &str, outcome: &CallOutcome) -> Option<Category> {
    diagnose(tool, outcome).map(|d| d.category)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::outcome::from_http;

    fn diag(status: u16, body: &str) -> Diagnosis {
        diagnose("get_tickets", &from_http(status, None, body.as_bytes())).unwrap()
    }

    #[test]
    fn python_types() {
        let d = diag(
            500,
            r#"{"detail":{"error":"Invalid date","type":"ValueError","traceback":"Traceback\nValueError: Invalid date"}}"#,
        );
        assert_eq!((d.category, d.retryable), (Category::Validation, false));
        let d = diag(
            500,
            r#"{"detail":{"error":"x","type":"FileNotFoundError"}}"#,
        );
        assert_eq!((d.category, d.retryable), (Category::Runtime, true));
        let d = diag(
            500,
            r#"{"detail":{"error":"x","type":"asyncio.exceptions.CancelledError"}}"#,
        );
        assert_eq!(d.category, Category::Aborted);
        let d = diag(
            500,
            r#"{"detail":{"error":"x","type":"pydantic_core._pydantic_core.ValidationError"}}"#,
        );
        assert_eq!(d.category, Category::Validation);
        let d = diag(
            500,
            r#"{"detail":{"error":"x","type":"ZeroDivisionError"}}"#,
        );
        assert_eq!(d.category, Category::Exception);
        // Type only in the traceback.
        let d = diag(
            500,
            r#"{"detail":{"error":"denied","traceback":"Traceback (most recent call last):\nPermissionError: denied"}}"#,
        );
        assert_eq!(
            (d.category, d.error_type.as_str()),
            (Category::Runtime, "PermissionError")
        );
    }

    #[test]
    fn bridge_types_and_codes() {
        assert_eq!(
            diag(
                504,
                r#"{"detail":{"error":"t","type":"TimeoutError","code":-32001}}"#
            )
            .category,
            Category::Aborted
        );
        assert_eq!(
            diag(
                502,
                r#"{"detail":{"error":"t","type":"ServerCrashed","server":"s"}}"#
            )
            .category,
            Category::Unavailable
        );
        assert_eq!(
            diag(
                429,
                r#"{"detail":{"error":"t","type":"CallLimitExceeded"}}"#
            )
            .category,
            Category::Limit
        );
        let d = diag(
            404,
            r#"{"detail":{"error":"no tool","type":"ToolNotFound","code":-32003,"server":"s"}}"#,
        );
        assert_eq!(d.category, Category::Validation);
        assert_eq!(
            d.advice[0],
            Advice::ListTools {
                server: Some("s".into())
            }
        );
        assert_eq!(
            diag(500, r#"{"detail":{"error":"t","code":-32602}}"#).category,
            Category::Validation
        );
        assert_eq!(
            diag(500, r#"{"detail":{"error":"t","code":-32603}}"#).category,
            Category::Exception
        );
        let d = diag(
            500,
            r#"{"detail":{"error":"t","type":"RuntimeError","retryable":false}}"#,
        );
        assert!(!d.retryable);
    }

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

    #[test]
    fn our_bridge_types() {
        let d = diag(
            404,
            r#"{"detail":{"error":"no service x","type":"ServerNotFound"}}"#,
        );
        assert_eq!(d.category, Category::Validation);
        assert_eq!(d.advice[0], Advice::CheckServerName);
        let d = diag(
            403,
            r#"{"detail":{"error":"origin refused","type":"Forbidden"}}"#,
        );
        assert_eq!(
            (d.category, &d.advice[0]),
            (Category::Unavailable, &Advice::BridgeRefused)
        );
        assert_eq!(
            diag(404, r#"{"detail":"Not Found"}"#).category,
            Category::Exception
        );
        assert_eq!(
            diag(404, r#"{"detail":{"error":"x","type":"CallNotFound"}}"#).category,
            Category::Exception
        );
        assert_eq!(
            diag(409, r#"{"detail":{"error":"x","type":"CancelledError"}}"#).category,
            Category::Aborted
        );
        assert_eq!(
            diag(
                502,
                r#"{"detail":{"error":"x","type":"TransportError","server":"s"}}"#
            )
            .category,
            Category::Unavailable
        );
        assert_eq!(
            diag(
                413,
                r#"{"detail":{"error":"too big","type":"PayloadTooLarge"}}"#
            )
            .category,
            Category::Validation
        );
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
