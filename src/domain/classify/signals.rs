//! Reads a category from each signal a failure carries: its HTTP status, its JSON-RPC code,
//! and its error type's name (Python's, other bridges', our bridge's own).

use mcp_bridge_protocol::errors::ErrorType;
use mcp_bridge_protocol::rpc;

use super::Category;

pub(super) fn by_status(status: u16) -> Category {
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
pub(super) fn by_code(code: i64) -> Option<Category> {
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
pub(super) fn short_type(t: &str) -> &str {
    t.rsplit(['.', ':']).next().unwrap_or(t).trim()
}

/// The original bridge's type for a service it does not know.
const UNKNOWN_SERVICE: &str = "UnknownService";

/// Whether the type says the AI named a server that does not exist.
pub(super) fn is_server_not_found(short: &str) -> bool {
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
pub(super) fn by_type(t: &str) -> Option<Category> {
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
pub(super) fn type_from_traceback(tb: &str) -> Option<String> {
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

pub(super) fn last_nonempty_line(s: &str) -> Option<&str> {
    s.lines().rev().map(str::trim).find(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::super::{Advice, Category};
    use crate::domain::classify::tests::diag;

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
}
