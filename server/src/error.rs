//! The bridge's one error type. Every error becomes a FastAPI-style response — `{"detail": …}`
//! with a string, an object `{error, type, traceback, code, retryable, trace_id, server}` or a
//! 422 list — so extensions written for the Python bridge understand it.

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

use crate::redact::{mask_json, mask_patterns};

pub(crate) use mcp_bridge_protocol::errors::InvalidField;
pub(crate) use mcp_bridge_protocol::errors::Refused;
use mcp_bridge_protocol::errors::{
    CancelledBy, Closest, ErrorAnswer, ErrorObject, ErrorType, Facts, ResultGone, ServerTools,
    TokenProblem,
};

/// One FastAPI validation error that echoes its `input`.
pub(crate) fn field_error<L: Into<mcp_bridge_protocol::errors::Loc>>(
    kind: &str,
    loc: impl IntoIterator<Item = L>,
    msg: &str,
    input: Value,
) -> InvalidField {
    InvalidField::new(kind, loc, msg).with_input(input)
}

/// A typed answer as JSON (the answers are plain data: this cannot fail).
pub(crate) fn to_value(answer: impl Serialize) -> Value {
    serde_json::to_value(answer).unwrap_or(Value::Null)
}
/// JSON-RPC and MCP error codes (the protocol crate's, shared with the extension's core).
pub(crate) use mcp_bridge_protocol::rpc as code;

/// The HTTP status for a JSON-RPC error code, following the MCP adapter's mapping.
pub(crate) fn status_for_code(code: i32) -> StatusCode {
    StatusCode::from_u16(code::http_status(code)).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// Everything that can go wrong while answering a request.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum BridgeError {
    /// No such route (FastAPI's `{"detail":"Not Found"}`).
    #[error("Not Found")]
    RouteNotFound,
    #[error("Method Not Allowed")]
    MethodNotAllowed,
    /// A malformed request: FastAPI's 422 list of `{type, loc, msg, input, ctx?}`.
    #[error("request validation failed: {0:?}")]
    InvalidRequest(Vec<InvalidField>),
    /// No token, or not this bridge's (`missing` tells which).
    #[error("{message}")]
    Unauthorized { missing: bool, message: String },
    /// A request the bridge refuses whatever its token: `refused` says what was wrong with
    /// it, `value` is the header value or name at fault.
    #[error("{message}")]
    Forbidden {
        refused: Refused,
        value: String,
        message: String,
    },
    #[error("the request body is larger than the limit of {limit} bytes")]
    PayloadTooLarge { limit: usize },
    /// `GET /tools?serverName=` for a server the bridge does not know (the original's string).
    #[error("服务 {0} 不存在或未成功加载")]
    UnknownService(String),
    #[error("{message}")]
    ServerNotFound {
        server: String,
        /// The servers there are.
        available: Vec<String>,
        message: String,
    },
    #[error("{message}")]
    ToolNotFound {
        tool: String,
        server: Option<String>,
        /// Tool names close to `tool`, each with its server.
        closest: Vec<(String, String)>,
        /// Each server with its tools (`None` while its tools are unknown).
        services: Vec<(String, Option<Vec<String>>)>,
        message: String,
    },
    /// The MCP server answered the call with a JSON-RPC error.
    #[error("{message}")]
    ToolFailed {
        server: String,
        tool: String,
        code: i32,
        error_type: String,
        message: String,
        traceback: String,
        /// For bad arguments: the tool's input schema, sent as `input_schema` so the client
        /// can show the parameters.
        input_schema: Option<Box<Value>>,
    },
    #[error("{message}")]
    Timeout {
        server: String,
        tool: String,
        seconds: f64,
        message: String,
    },
    /// The MCP server process died during the call; `traceback` is its stderr tail.
    #[error("{message}")]
    ServerCrashed {
        server: String,
        tool: String,
        message: String,
        traceback: String,
    },
    /// The MCP server is not running and could not be (re)started now.
    #[error("{message}")]
    ServerUnavailable {
        server: String,
        message: String,
        traceback: String,
    },
    /// A remote server needs the user to sign in (again): its calls wait for the user, not
    /// for the AI.
    #[error("{message}")]
    SignInRequired { server: String, message: String },
    #[error("{message}")]
    CallLimitExceeded {
        server: String,
        tool: String,
        failures: u32,
        limit: u32,
        message: String,
    },
    #[error("{message}")]
    Cancelled {
        server: String,
        tool: String,
        /// Cancelled by the user through `DELETE /calls/{id}` (not by the MCP server).
        by_user: bool,
        message: String,
    },
    #[error("{message}")]
    CallNotFound { call_id: String, message: String },
    /// `read_result` for a result the bridge does not keep: never kept (`gone: false`), or
    /// expired or dropped for room (`gone: true`).
    #[error("{message}")]
    ResultNotFound {
        result_id: String,
        gone: bool,
        /// Why, with the limit that applied (seconds or MiB).
        reason: ResultGone,
        limit: u64,
        message: String,
    },
    /// `read_result` at an offset at or past the end of the result.
    #[error("{message}")]
    OffsetOutOfRange {
        result_id: String,
        offset: u64,
        total_chars: u64,
        message: String,
    },
    /// The bridge is stopping: a call still running when the shutdown drain ended was stopped.
    #[error("{message}")]
    ShuttingDown {
        server: String,
        tool: String,
        message: String,
    },
    /// The connection to the MCP server failed in a way that is not a crash.
    #[error("{message}")]
    Transport {
        server: String,
        tool: String,
        message: String,
    },
    /// A server definition (or the config it would make) does not validate; `field` is the
    /// dotted path of the field at fault.
    #[error("{message}")]
    InvalidServer {
        server: String,
        field: Option<String>,
        line: Option<usize>,
        message: String,
    },
    /// The config file on disk does not validate (a hand edit in progress): the bridge will not
    /// write over it.
    #[error("{0}")]
    ConfigFileInvalid(String),
    #[error("{0}")]
    Internal(String),
}

/// The body of an error: FastAPI's `detail` in one of its three forms.
enum Detail {
    Text(&'static str),
    Owned(String),
    List(Vec<InvalidField>),
    Object,
}

impl BridgeError {
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            BridgeError::RouteNotFound
            | BridgeError::UnknownService(_)
            | BridgeError::ServerNotFound { .. }
            | BridgeError::ToolNotFound { .. }
            | BridgeError::CallNotFound { .. }
            | BridgeError::ResultNotFound { gone: false, .. } => StatusCode::NOT_FOUND,
            BridgeError::ResultNotFound { gone: true, .. } => StatusCode::GONE,
            BridgeError::OffsetOutOfRange { .. } => StatusCode::RANGE_NOT_SATISFIABLE,
            BridgeError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            BridgeError::InvalidRequest(_) => StatusCode::UNPROCESSABLE_ENTITY,
            BridgeError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            BridgeError::Forbidden { .. } => StatusCode::FORBIDDEN,
            BridgeError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            BridgeError::ToolFailed { code, .. } => status_for_code(*code),
            BridgeError::Timeout { .. } => StatusCode::GATEWAY_TIMEOUT,
            BridgeError::ServerCrashed { .. } | BridgeError::Transport { .. } => {
                StatusCode::BAD_GATEWAY
            }
            BridgeError::ServerUnavailable { .. }
            | BridgeError::SignInRequired { .. }
            | BridgeError::ShuttingDown { .. } => StatusCode::SERVICE_UNAVAILABLE,
            BridgeError::CallLimitExceeded { .. } => StatusCode::TOO_MANY_REQUESTS,
            BridgeError::Cancelled { .. } => StatusCode::CONFLICT,
            BridgeError::InvalidServer { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            BridgeError::ConfigFileInvalid(_) => StatusCode::CONFLICT,
            BridgeError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The `type` of the object form: the error's class name, as Python bridges send it.
    pub(crate) fn type_name(&self) -> &str {
        match self {
            BridgeError::ToolFailed { error_type, .. } => error_type,
            other => other.error_type().as_str(),
        }
    }

    /// The bridge's own type of this error (a tool's failure carries the MCP server's).
    fn error_type(&self) -> ErrorType {
        match self {
            BridgeError::RouteNotFound => ErrorType::NotFound,
            BridgeError::MethodNotAllowed => ErrorType::MethodNotAllowed,
            BridgeError::InvalidRequest(_) => ErrorType::RequestValidationError,
            BridgeError::Unauthorized { .. } => ErrorType::Unauthorized,
            BridgeError::Forbidden { .. } => ErrorType::Forbidden,
            BridgeError::PayloadTooLarge { .. } => ErrorType::PayloadTooLarge,
            BridgeError::UnknownService(_) | BridgeError::ServerNotFound { .. } => {
                ErrorType::ServerNotFound
            }
            BridgeError::ToolNotFound { .. } => ErrorType::ToolNotFound,
            BridgeError::ToolFailed { .. } => ErrorType::InternalError,
            BridgeError::Timeout { .. } => ErrorType::TimeoutError,
            BridgeError::ServerCrashed { .. } => ErrorType::ServerCrashed,
            BridgeError::ServerUnavailable { .. } => ErrorType::ServerUnavailable,
            BridgeError::SignInRequired { .. } => ErrorType::SignInRequired,
            BridgeError::ShuttingDown { .. } => ErrorType::BridgeShuttingDown,
            BridgeError::CallLimitExceeded { .. } => ErrorType::CallLimitExceeded,
            BridgeError::Cancelled { .. } => ErrorType::CancelledError,
            BridgeError::CallNotFound { .. } => ErrorType::CallNotFound,
            BridgeError::ResultNotFound { gone: false, .. } => ErrorType::ResultNotFound,
            BridgeError::ResultNotFound { gone: true, .. } => ErrorType::ResultExpired,
            BridgeError::OffsetOutOfRange { .. } => ErrorType::OffsetOutOfRange,
            BridgeError::Transport { .. } => ErrorType::TransportError,
            BridgeError::InvalidServer { .. } => ErrorType::InvalidServerDefinition,
            BridgeError::ConfigFileInvalid(_) => ErrorType::ConfigFileInvalid,
            BridgeError::Internal(_) => ErrorType::InternalError,
        }
    }

    /// The JSON-RPC/MCP code of the object form.
    pub(crate) fn code(&self) -> i32 {
        match self {
            BridgeError::RouteNotFound | BridgeError::MethodNotAllowed => code::METHOD_NOT_FOUND,
            BridgeError::InvalidRequest(_) => code::INVALID_PARAMS,
            BridgeError::Unauthorized { .. } => code::UNAUTHORIZED,
            BridgeError::Forbidden { .. } => code::PERMISSION_DENIED,
            BridgeError::PayloadTooLarge { .. } => code::INVALID_REQUEST,
            BridgeError::UnknownService(_)
            | BridgeError::ServerNotFound { .. }
            | BridgeError::ToolNotFound { .. } => code::TOOL_NOT_FOUND,
            BridgeError::ToolFailed { code, .. } => *code,
            BridgeError::Timeout { .. } => code::TIMEOUT,
            BridgeError::Cancelled { .. } => code::REQUEST_CANCELLED,
            BridgeError::CallNotFound { .. } | BridgeError::ResultNotFound { .. } => {
                code::RESOURCE_NOT_FOUND
            }
            BridgeError::OffsetOutOfRange { .. } | BridgeError::InvalidServer { .. } => {
                code::INVALID_PARAMS
            }
            BridgeError::ConfigFileInvalid(_) => code::INVALID_REQUEST,
            BridgeError::Internal(_) => code::INTERNAL_ERROR,
            BridgeError::ServerCrashed { .. }
            | BridgeError::ServerUnavailable { .. }
            | BridgeError::SignInRequired { .. }
            | BridgeError::ShuttingDown { .. }
            | BridgeError::CallLimitExceeded { .. }
            | BridgeError::Transport { .. } => code::SERVER_ERROR,
        }
    }

    /// Whether the same request may succeed if sent again later.
    pub(crate) fn retryable(&self) -> bool {
        matches!(
            self,
            BridgeError::Timeout { .. }
                | BridgeError::ServerCrashed { .. }
                | BridgeError::ServerUnavailable { .. }
                | BridgeError::ShuttingDown { .. }
                | BridgeError::Cancelled { .. }
                | BridgeError::Transport { .. }
        )
    }

    /// The MCP server the error is about.
    pub(crate) fn server(&self) -> Option<&str> {
        match self {
            BridgeError::ServerNotFound { server, .. }
            | BridgeError::ToolFailed { server, .. }
            | BridgeError::Timeout { server, .. }
            | BridgeError::ServerCrashed { server, .. }
            | BridgeError::ServerUnavailable { server, .. }
            | BridgeError::SignInRequired { server, .. }
            | BridgeError::CallLimitExceeded { server, .. }
            | BridgeError::Cancelled { server, .. }
            | BridgeError::ShuttingDown { server, .. }
            | BridgeError::Transport { server, .. } => Some(server),
            BridgeError::InvalidServer { server, .. } => Some(server),
            BridgeError::ToolNotFound { server, .. } => server.as_deref(),
            BridgeError::UnknownService(server) => Some(server),
            _ => None,
        }
    }

    /// The tool the error is about.
    pub(crate) fn tool(&self) -> Option<&str> {
        match self {
            BridgeError::ToolNotFound { tool, .. }
            | BridgeError::ToolFailed { tool, .. }
            | BridgeError::Timeout { tool, .. }
            | BridgeError::ServerCrashed { tool, .. }
            | BridgeError::CallLimitExceeded { tool, .. }
            | BridgeError::Cancelled { tool, .. }
            | BridgeError::ShuttingDown { tool, .. }
            | BridgeError::Transport { tool, .. } => Some(tool),
            BridgeError::ResultNotFound { .. } | BridgeError::OffsetOutOfRange { .. } => {
                Some(mcp_bridge_protocol::READ_RESULT)
            }
            _ => None,
        }
    }

    /// The kept result the error is about (`read_result`).
    pub(crate) fn result_id(&self) -> Option<&str> {
        match self {
            BridgeError::ResultNotFound { result_id, .. }
            | BridgeError::OffsetOutOfRange { result_id, .. } => Some(result_id),
            _ => None,
        }
    }

    /// What the object form's `facts` holds: the values behind the English `error` text, so
    /// that a client can say the same in its user's language (docs/ARCHITECTURE.md, "Bridge
    /// API"). `None` for errors whose text is not the bridge's own words (a tool's failure).
    pub(crate) fn facts(&self) -> Option<Facts> {
        Some(match self {
            BridgeError::Unauthorized { missing, .. } => Facts::Token {
                reason: if *missing {
                    TokenProblem::MissingToken
                } else {
                    TokenProblem::WrongToken
                },
            },
            BridgeError::Forbidden { refused, value, .. } => Facts::Refused {
                refused: *refused,
                value: value.clone(),
            },
            BridgeError::PayloadTooLarge { limit } => Facts::TooLarge {
                limit: *limit as u64,
            },
            BridgeError::ServerNotFound { available, .. } => Facts::NoServer {
                available: available.clone(),
            },
            BridgeError::ToolNotFound {
                closest, services, ..
            } => Facts::NoTool {
                closest: closest
                    .iter()
                    .map(|(tool, server)| Closest {
                        tool: tool.clone(),
                        server: server.clone(),
                    })
                    .collect(),
                services: services
                    .iter()
                    .map(|(name, tools)| ServerTools {
                        name: name.clone(),
                        tools: tools.clone(),
                    })
                    .collect(),
            },
            BridgeError::Timeout { seconds, .. } => Facts::TimedOut { seconds: *seconds },
            BridgeError::CallLimitExceeded {
                failures, limit, ..
            } => Facts::CallLimit {
                failures: u64::from(*failures),
                limit: u64::from(*limit),
            },
            BridgeError::Cancelled { by_user: true, .. } => Facts::CancelledBy {
                by: CancelledBy::User,
            },
            BridgeError::ServerCrashed { .. }
            | BridgeError::ShuttingDown { .. }
            | BridgeError::SignInRequired { .. } => Facts::Nothing,
            BridgeError::CallNotFound { call_id, .. } => Facts::NoCall {
                call_id: call_id.clone(),
            },
            BridgeError::ResultNotFound { reason, limit, .. } => Facts::NoResult {
                reason: *reason,
                limit: *limit,
            },
            BridgeError::OffsetOutOfRange {
                offset,
                total_chars,
                ..
            } => Facts::PastEnd {
                offset: *offset,
                total_chars: *total_chars,
            },
            _ => return None,
        })
    }

    /// The stack (or stderr tail) of the object form.
    pub(crate) fn traceback(&self) -> &str {
        match self {
            BridgeError::ToolFailed { traceback, .. }
            | BridgeError::ServerCrashed { traceback, .. }
            | BridgeError::ServerUnavailable { traceback, .. } => traceback,
            _ => "",
        }
    }

    /// Whether this outcome of a tool call counts towards the failure counter: the call reached
    /// the MCP server and failed there (not: refused, unknown, or the server was not running).
    pub(crate) fn counts_as_failure(&self) -> bool {
        matches!(
            self,
            BridgeError::ToolFailed { .. }
                | BridgeError::Timeout { .. }
                | BridgeError::ServerCrashed { .. }
                | BridgeError::Transport { .. }
        )
    }

    fn detail(&self) -> Detail {
        match self {
            BridgeError::RouteNotFound => Detail::Text("Not Found"),
            BridgeError::MethodNotAllowed => Detail::Text("Method Not Allowed"),
            BridgeError::UnknownService(_) => Detail::Owned(self.to_string()),
            BridgeError::InvalidRequest(items) => Detail::List(items.clone()),
            _ => Detail::Object,
        }
    }

    /// The status and JSON body of this error, with `trace_id` in the object form.
    pub(crate) fn render(&self, trace_id: &str) -> (StatusCode, Value) {
        let detail = match self.detail() {
            Detail::Text(text) => Value::from(text),
            Detail::Owned(text) => Value::from(mask_patterns(&text)),
            Detail::List(items) => mask_json(to_value(items)),
            Detail::Object => {
                let (field, line) = match self {
                    BridgeError::InvalidServer { field, line, .. } => {
                        (Some(field.clone()), Some(*line))
                    }
                    _ => (None, None),
                };
                let input_schema = match self {
                    BridgeError::ToolFailed {
                        input_schema: Some(schema),
                        ..
                    } => Some((**schema).clone()),
                    _ => None,
                };
                to_value(ErrorObject {
                    error: mask_patterns(&self.to_string()),
                    error_type: self.type_name(),
                    traceback: mask_patterns(self.traceback()),
                    code: self.code(),
                    retryable: self.retryable(),
                    trace_id,
                    server: self.server(),
                    tool: self.tool(),
                    result_id: self.result_id(),
                    input_schema,
                    facts: self.facts().map(|facts| mask_json(facts.to_value())),
                    field,
                    line,
                })
            }
        };
        (self.status(), to_value(ErrorAnswer { detail }))
    }

    /// The response, with an explicit trace id (for results of calls that outlive a request).
    pub(crate) fn into_response_with_trace(self, trace_id: &str) -> Response {
        let (status, body) = self.render(trace_id);
        let mut response = (status, axum::Json(body)).into_response();
        if let Ok(value) = HeaderValue::from_str(trace_id) {
            response.headers_mut().insert(crate::trace::HEADER, value);
        }
        response
    }
}

impl IntoResponse for BridgeError {
    fn into_response(self) -> Response {
        let trace_id = crate::trace::current().unwrap_or_else(crate::trace::new_id);
        self.into_response_with_trace(&trace_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_rpc_codes_map_to_the_python_bridge_statuses() {
        assert_eq!(status_for_code(-32602), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(status_for_code(-32003), StatusCode::NOT_FOUND);
        assert_eq!(status_for_code(-32002), StatusCode::NOT_FOUND);
        assert_eq!(status_for_code(-32004), StatusCode::NOT_FOUND);
        assert_eq!(status_for_code(-32601), StatusCode::NOT_FOUND);
        assert_eq!(status_for_code(-32001), StatusCode::GATEWAY_TIMEOUT);
        assert_eq!(status_for_code(-32008), StatusCode::FORBIDDEN);
        assert_eq!(status_for_code(-32010), StatusCode::UNAUTHORIZED);
        assert_eq!(status_for_code(-32700), StatusCode::BAD_REQUEST);
        assert_eq!(status_for_code(-32603), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(status_for_code(-32000), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(status_for_code(12345), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn object_form_has_every_key() {
        let err = BridgeError::ToolFailed {
            server: "demo".into(),
            tool: "fail_runtime".into(),
            code: -32603,
            error_type: "RuntimeError".into(),
            message: "boom".into(),
            traceback: "Traceback ...".into(),
            input_schema: None,
        };
        let (status, body) = err.render("t1");
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        let detail = &body["detail"];
        assert_eq!(detail["error"], "boom");
        assert_eq!(detail["type"], "RuntimeError");
        assert_eq!(detail["traceback"], "Traceback ...");
        assert_eq!(detail["code"], -32603);
        assert_eq!(detail["retryable"], false);
        assert_eq!(detail["trace_id"], "t1");
        assert_eq!(detail["server"], "demo");
        assert_eq!(detail["tool"], "fail_runtime");
    }

    #[test]
    fn string_and_list_forms() {
        assert_eq!(
            BridgeError::RouteNotFound.render("t").1,
            json!({"detail": "Not Found"})
        );
        assert_eq!(
            BridgeError::UnknownService("x".into()).render("t").1,
            json!({"detail": "服务 x 不存在或未成功加载"})
        );
        let item = json!({"type": "missing", "loc": ["body", "name"], "msg": "Field required", "input": {}});
        let error =
            InvalidField::new("missing", ["body", "name"], "Field required").with_input(json!({}));
        let (status, body) = BridgeError::InvalidRequest(vec![error]).render("t");
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body, json!({"detail": [item]}));
    }

    #[test]
    fn timeouts_and_limits() {
        let timeout = BridgeError::Timeout {
            server: "s".into(),
            tool: "t".into(),
            seconds: 2.5,
            message: "m".into(),
        };
        assert_eq!(timeout.status(), StatusCode::GATEWAY_TIMEOUT);
        assert_eq!(timeout.code(), -32001);
        assert_eq!(timeout.type_name(), "TimeoutError");
        assert!(timeout.retryable());
        assert!(timeout.counts_as_failure());
        assert_eq!(
            timeout.render("t").1["detail"]["facts"],
            json!({"seconds": 2.5})
        );
        let limit = BridgeError::CallLimitExceeded {
            server: "s".into(),
            tool: "t".into(),
            failures: 3,
            limit: 3,
            message: "m".into(),
        };
        assert_eq!(limit.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(!limit.retryable());
        assert!(!limit.counts_as_failure());
        assert_eq!(
            limit.render("t").1["detail"]["facts"],
            json!({"failures": 3, "limit": 3})
        );
    }

    #[test]
    fn facts_only_where_the_words_are_the_bridges() {
        let failed = BridgeError::ToolFailed {
            server: "s".into(),
            tool: "t".into(),
            code: -32603,
            error_type: "RuntimeError".into(),
            message: "boom".into(),
            traceback: String::new(),
            input_schema: None,
        };
        assert!(failed.render("t").1["detail"].get("facts").is_none());
        let refused = BridgeError::Forbidden {
            refused: Refused::Origin,
            value: "https://evil.example".into(),
            message: "m".into(),
        };
        assert_eq!(
            refused.render("t").1["detail"]["facts"],
            json!({"refused": "origin", "value": "https://evil.example"})
        );
        let unknown = BridgeError::ToolNotFound {
            tool: "get_tme".into(),
            server: None,
            closest: vec![("get_time".into(), "time".into())],
            services: vec![
                ("time".into(), Some(vec!["get_time".into()])),
                ("off".into(), None),
            ],
            message: "m".into(),
        };
        assert_eq!(
            unknown.render("t").1["detail"]["facts"],
            json!({
                "closest": [{"tool": "get_time", "server": "time"}],
                "services": [{"name": "time", "tools": ["get_time"]}, {"name": "off", "tools": null}]
            })
        );
    }
}
