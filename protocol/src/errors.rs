//! The bridge's own errors as they travel: the `type` of each, and the `facts` it sends beside
//! its English text — the values a client needs to say the same thing in its user's words.
//! The bridge builds the facts from these types; the core reads them back with [`Facts::read`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `type` of an error the bridge raises itself. A tool's own failure carries the type
/// its MCP server named (`ValueError`, …), which is none of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    NotFound,
    MethodNotAllowed,
    RequestValidationError,
    Unauthorized,
    Forbidden,
    PayloadTooLarge,
    ServerNotFound,
    ToolNotFound,
    TimeoutError,
    ServerCrashed,
    ServerUnavailable,
    /// A remote server needs the user to sign in (again) before it can be reached.
    SignInRequired,
    BridgeShuttingDown,
    CallLimitExceeded,
    CancelledError,
    CallNotFound,
    ResultNotFound,
    ResultExpired,
    OffsetOutOfRange,
    TransportError,
    InvalidServerDefinition,
    ConfigFileInvalid,
    InternalError,
}

impl ErrorType {
    pub(crate) const ALL: [ErrorType; 23] = [
        ErrorType::NotFound,
        ErrorType::MethodNotAllowed,
        ErrorType::RequestValidationError,
        ErrorType::Unauthorized,
        ErrorType::Forbidden,
        ErrorType::PayloadTooLarge,
        ErrorType::ServerNotFound,
        ErrorType::ToolNotFound,
        ErrorType::TimeoutError,
        ErrorType::ServerCrashed,
        ErrorType::ServerUnavailable,
        ErrorType::SignInRequired,
        ErrorType::BridgeShuttingDown,
        ErrorType::CallLimitExceeded,
        ErrorType::CancelledError,
        ErrorType::CallNotFound,
        ErrorType::ResultNotFound,
        ErrorType::ResultExpired,
        ErrorType::OffsetOutOfRange,
        ErrorType::TransportError,
        ErrorType::InvalidServerDefinition,
        ErrorType::ConfigFileInvalid,
        ErrorType::InternalError,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorType::NotFound => "NotFound",
            ErrorType::MethodNotAllowed => "MethodNotAllowed",
            ErrorType::RequestValidationError => "RequestValidationError",
            ErrorType::Unauthorized => "Unauthorized",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::PayloadTooLarge => "PayloadTooLarge",
            ErrorType::ServerNotFound => "ServerNotFound",
            ErrorType::ToolNotFound => "ToolNotFound",
            ErrorType::TimeoutError => "TimeoutError",
            ErrorType::ServerCrashed => "ServerCrashed",
            ErrorType::ServerUnavailable => "ServerUnavailable",
            ErrorType::SignInRequired => "SignInRequired",
            ErrorType::BridgeShuttingDown => "BridgeShuttingDown",
            ErrorType::CallLimitExceeded => "CallLimitExceeded",
            ErrorType::CancelledError => "CancelledError",
            ErrorType::CallNotFound => "CallNotFound",
            ErrorType::ResultNotFound => "ResultNotFound",
            ErrorType::ResultExpired => "ResultExpired",
            ErrorType::OffsetOutOfRange => "OffsetOutOfRange",
            ErrorType::TransportError => "TransportError",
            ErrorType::InvalidServerDefinition => "InvalidServerDefinition",
            ErrorType::ConfigFileInvalid => "ConfigFileInvalid",
            ErrorType::InternalError => "InternalError",
        }
    }

    /// The bridge's type of this name; `None` for any other name.
    pub fn parse(name: &str) -> Option<ErrorType> {
        ErrorType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// The `type`s the bridge gives a tool's failure that no server gave it: the server answered,
/// but not with what the bridge can pass on. (Other failures of a tool keep the type its
/// server said, as a Python exception's name.)
pub mod tool_failure {
    /// A server answered a method with a result of another kind.
    pub const UNEXPECTED_RESPONSE: &str = "UnexpectedResponse";
    /// A tool asked for more input or started a background task.
    pub const UNSUPPORTED_RESPONSE: &str = "UnsupportedResponse";
    /// A tool's result does not match its `outputSchema`.
    pub const OUTPUT_SCHEMA_MISMATCH: &str = "OutputSchemaMismatch";
}

/// One item of a 422's `detail` list, in FastAPI's shape `{type, loc, msg, input, ctx?}`, so
/// that clients written for the Python bridge read the bridge's validation errors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InvalidField {
    /// What is wrong (`missing`, `string_type`, …).
    #[serde(rename = "type")]
    pub kind: String,
    /// Where: `body` or `query` or `path`, then the field (or a character offset).
    pub loc: Vec<Loc>,
    pub msg: String,
    /// The value at fault, when it may be echoed; `null` otherwise.
    pub input: Value,
    /// The bound broken (`{"ge": 0}`), or the parser's own words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctx: Option<Value>,
}

/// One step of an [`InvalidField`]'s `loc`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Loc {
    Key(String),
    /// A character offset (into a body that is not JSON).
    Offset(usize),
}

impl From<&str> for Loc {
    fn from(key: &str) -> Self {
        Loc::Key(key.to_owned())
    }
}

impl From<&String> for Loc {
    fn from(key: &String) -> Self {
        Loc::Key(key.clone())
    }
}

impl From<usize> for Loc {
    fn from(offset: usize) -> Self {
        Loc::Offset(offset)
    }
}

impl InvalidField {
    /// An error whose `input` is `null`.
    pub fn new<L: Into<Loc>>(kind: &str, loc: impl IntoIterator<Item = L>, msg: &str) -> Self {
        InvalidField {
            kind: kind.to_owned(),
            loc: loc.into_iter().map(Into::into).collect(),
            msg: msg.to_owned(),
            input: Value::Null,
            ctx: None,
        }
    }

    /// The same, echoing `input`.
    pub fn with_input(mut self, input: Value) -> Self {
        self.input = input;
        self
    }

    /// The same, with `ctx`.
    pub fn with_ctx(mut self, ctx: Value) -> Self {
        self.ctx = Some(ctx);
        self
    }
}

/// The object form of an error's `detail`: its English text, its type and code, and what it is
/// about. Keys that only some errors have are left out when absent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorObject<'a> {
    pub error: String,
    #[serde(rename = "type")]
    pub error_type: &'a str,
    pub traceback: String,
    pub code: i32,
    pub retryable: bool,
    pub trace_id: &'a str,
    pub server: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<&'a str>,
    /// A kept result's id (`read_result`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_id: Option<&'a str>,
    /// A tool's input schema, beside its bad arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// See [`Facts`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts: Option<Value>,
    /// A server definition's field at fault (present, maybe `null`, for those errors only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<Option<usize>>,
}

/// Every error answer: FastAPI's `{"detail": …}`, with a string, a 422 list or an
/// [`ErrorObject`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorAnswer<D> {
    pub detail: D,
}

/// What a refused request had wrong with it (`facts.refused` of a 403).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Refused {
    /// A `Host` the bridge does not answer to (DNS rebinding).
    Host,
    /// A web page's `Origin`.
    Origin,
    /// Server management asked of a bridge started with `--no-auth`.
    NoAuth,
    /// More than one `Host` or `Origin` header (and any reason a newer bridge may add).
    #[serde(other)]
    Ambiguous,
}

/// Why a token was refused (`facts.reason` of a 401).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TokenProblem {
    MissingToken,
    #[serde(other)]
    WrongToken,
}

/// Why a kept result cannot be read (`facts.reason` of `ResultNotFound`/`ResultExpired`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultGone {
    /// Older than the time it is kept (`limit` seconds).
    Expired,
    /// Dropped to make room (`limit` MiB).
    Evicted,
    /// Never kept under this id.
    #[serde(other)]
    Unknown,
}

/// Who cancelled a call (`facts.by` of `CancelledError`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CancelledBy {
    User,
}

/// A tool whose name is close to the one asked for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Closest {
    pub tool: String,
    pub server: String,
}

/// One MCP server and its tools (`None` while they are unknown).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerTools {
    pub name: String,
    pub tools: Option<Vec<String>>,
}

/// The `facts` of each error that has them. Each variant's fields are the object's keys;
/// which variant an object is follows from the error's `type`, never from its keys.
#[derive(Debug, Clone, PartialEq)]
pub enum Facts {
    Token {
        reason: TokenProblem,
    },
    Refused {
        refused: Refused,
        value: String,
    },
    TooLarge {
        limit: u64,
    },
    NoServer {
        available: Vec<String>,
    },
    NoTool {
        closest: Vec<Closest>,
        services: Vec<ServerTools>,
    },
    TimedOut {
        seconds: f64,
    },
    CallLimit {
        failures: u64,
        limit: u64,
    },
    CancelledBy {
        by: CancelledBy,
    },
    /// A crash, a shutdown or a sign-in needed: the type says it all, `{}`.
    Nothing,
    NoCall {
        call_id: String,
    },
    NoResult {
        reason: ResultGone,
        limit: u64,
    },
    PastEnd {
        offset: u64,
        total_chars: u64,
    },
}

/// The objects themselves, one struct per shape (plain structs: no tagged enum to buffer).
mod shape {
    use super::*;

    #[derive(Serialize, Deserialize)]
    pub(crate) struct Token {
        pub reason: TokenProblem,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct Refused {
        pub refused: super::Refused,
        #[serde(default)]
        pub value: String,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct Limit {
        #[serde(default)]
        pub limit: u64,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct NoServer {
        #[serde(default)]
        pub available: Vec<String>,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct NoTool {
        #[serde(default)]
        pub closest: Vec<Closest>,
        #[serde(default)]
        pub services: Vec<ServerTools>,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct TimedOut {
        pub seconds: f64,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct CallLimit {
        #[serde(default)]
        pub failures: u64,
        #[serde(default)]
        pub limit: u64,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct Cancelled {
        pub by: CancelledBy,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct Nothing {}
    #[derive(Serialize, Deserialize)]
    pub(crate) struct NoCall {
        #[serde(default)]
        pub call_id: String,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct NoResult {
        pub reason: ResultGone,
        #[serde(default)]
        pub limit: u64,
    }
    #[derive(Serialize, Deserialize)]
    pub(crate) struct PastEnd {
        #[serde(default)]
        pub offset: u64,
        #[serde(default)]
        pub total_chars: u64,
    }
}

impl Facts {
    /// The `facts` object as the bridge sends it.
    pub fn to_value(&self) -> Value {
        let value = match self.clone() {
            Facts::Token { reason } => serde_json::to_value(shape::Token { reason }),
            Facts::Refused { refused, value } => {
                serde_json::to_value(shape::Refused { refused, value })
            }
            Facts::TooLarge { limit } => serde_json::to_value(shape::Limit { limit }),
            Facts::NoServer { available } => serde_json::to_value(shape::NoServer { available }),
            Facts::NoTool { closest, services } => {
                serde_json::to_value(shape::NoTool { closest, services })
            }
            Facts::TimedOut { seconds } => serde_json::to_value(shape::TimedOut { seconds }),
            Facts::CallLimit { failures, limit } => {
                serde_json::to_value(shape::CallLimit { failures, limit })
            }
            Facts::CancelledBy { by } => serde_json::to_value(shape::Cancelled { by }),
            Facts::Nothing => serde_json::to_value(shape::Nothing {}),
            Facts::NoCall { call_id } => serde_json::to_value(shape::NoCall { call_id }),
            Facts::NoResult { reason, limit } => {
                serde_json::to_value(shape::NoResult { reason, limit })
            }
            Facts::PastEnd {
                offset,
                total_chars,
            } => serde_json::to_value(shape::PastEnd {
                offset,
                total_chars,
            }),
        };
        value.unwrap_or(Value::Null)
    }

    /// The facts of an error of `type` `error_type`; `None` when that type has none (a
    /// tool's own failure, another bridge's error) or the object is not of its shape.
    pub fn read(error_type: &str, facts: &Value) -> Option<Facts> {
        fn of<T: for<'de> Deserialize<'de>>(facts: &Value) -> Option<T> {
            T::deserialize(facts).ok()
        }
        if !facts.is_object() {
            return None;
        }
        Some(match ErrorType::parse(error_type)? {
            ErrorType::Unauthorized => {
                let reason =
                    of::<shape::Token>(facts).map_or(TokenProblem::WrongToken, |t| t.reason);
                Facts::Token { reason }
            }
            ErrorType::Forbidden => {
                let shape::Refused { refused, value } = of(facts)?;
                Facts::Refused { refused, value }
            }
            ErrorType::PayloadTooLarge => Facts::TooLarge {
                limit: of::<shape::Limit>(facts)?.limit,
            },
            ErrorType::ServerNotFound => Facts::NoServer {
                available: of::<shape::NoServer>(facts)?.available,
            },
            ErrorType::ToolNotFound => {
                let shape::NoTool { closest, services } = of(facts)?;
                Facts::NoTool { closest, services }
            }
            ErrorType::TimeoutError => Facts::TimedOut {
                seconds: of::<shape::TimedOut>(facts)?.seconds,
            },
            ErrorType::CallLimitExceeded => {
                let shape::CallLimit { failures, limit } = of(facts)?;
                Facts::CallLimit { failures, limit }
            }
            ErrorType::CancelledError => Facts::CancelledBy {
                by: of::<shape::Cancelled>(facts)?.by,
            },
            ErrorType::ServerCrashed
            | ErrorType::BridgeShuttingDown
            | ErrorType::SignInRequired => Facts::Nothing,
            ErrorType::CallNotFound => Facts::NoCall {
                call_id: of::<shape::NoCall>(facts)?.call_id,
            },
            ErrorType::ResultNotFound | ErrorType::ResultExpired => {
                let shape::NoResult { reason, limit } = of(facts)?;
                Facts::NoResult { reason, limit }
            }
            ErrorType::OffsetOutOfRange => {
                let shape::PastEnd {
                    offset,
                    total_chars,
                } = of(facts)?;
                Facts::PastEnd {
                    offset,
                    total_chars,
                }
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_type_reads_back_from_its_name() {
        for t in ErrorType::ALL {
            assert_eq!(ErrorType::parse(t.as_str()), Some(t));
        }
        assert_eq!(ErrorType::parse("ValueError"), None);
    }

    #[test]
    fn facts_go_out_and_come_back_the_same() {
        let cases = [
            (
                "Unauthorized",
                Facts::Token {
                    reason: TokenProblem::MissingToken,
                },
                json!({"reason": "missing-token"}),
            ),
            (
                "Forbidden",
                Facts::Refused {
                    refused: Refused::NoAuth,
                    value: String::new(),
                },
                json!({"refused": "no-auth", "value": ""}),
            ),
            (
                "ToolNotFound",
                Facts::NoTool {
                    closest: vec![Closest {
                        tool: "get_time".into(),
                        server: "time".into(),
                    }],
                    services: vec![ServerTools {
                        name: "off".into(),
                        tools: None,
                    }],
                },
                json!({"closest": [{"tool": "get_time", "server": "time"}], "services": [{"name": "off", "tools": null}]}),
            ),
            (
                "ResultExpired",
                Facts::NoResult {
                    reason: ResultGone::Expired,
                    limit: 600,
                },
                json!({"reason": "expired", "limit": 600}),
            ),
            (
                "CancelledError",
                Facts::CancelledBy {
                    by: CancelledBy::User,
                },
                json!({"by": "user"}),
            ),
            ("ServerCrashed", Facts::Nothing, json!({})),
        ];
        for (error_type, facts, value) in cases {
            assert_eq!(facts.to_value(), value, "{error_type}");
            assert_eq!(Facts::read(error_type, &value), Some(facts), "{error_type}");
        }
    }

    #[test]
    fn unknown_words_fall_back_and_foreign_types_have_no_facts() {
        let odd = json!({"refused": "something-new", "value": "x"});
        assert_eq!(
            Facts::read("Forbidden", &odd),
            Some(Facts::Refused {
                refused: Refused::Ambiguous,
                value: "x".into()
            })
        );
        assert_eq!(Facts::read("ValueError", &json!({})), None);
        assert_eq!(Facts::read("TimeoutError", &json!({})), None);
        assert_eq!(Facts::read("TimeoutError", &json!("x")), None);
    }
}
