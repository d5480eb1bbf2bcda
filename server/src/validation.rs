//! Request parsing with FastAPI's 422 error shapes (`[{type, loc, msg, input, ctx?}]`), so that
//! clients written for the Python bridge understand our validation errors.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde_json::{Map, Value};

use crate::error::{BridgeError, InvalidField};
use mcp_bridge_protocol::errors::Loc;
use mcp_bridge_protocol::requests::{Execute, ResetHistory};

/// The longest `wait` a long-poll may ask for, in seconds.
pub(crate) const MAX_WAIT_SECONDS: f64 = 300.0;

/// A request body parsed as JSON; `None` when the body is empty.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonBody(pub Option<Value>);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = BridgeError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    BridgeError::PayloadTooLarge {
                        limit: crate::security::BODY_LIMIT,
                    }
                } else {
                    BridgeError::InvalidRequest(vec![InvalidField::new(
                        "body_read_error",
                        ["body"],
                        &rejection.body_text(),
                    )])
                }
            })?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// Parse a body: empty is `None`, bad JSON is FastAPI's `json_invalid` error.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Option<Value>, BridgeError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(bytes).map(Some).map_err(|err| {
        let position = char_position(bytes, err.line(), err.column());
        let message = err.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(head, _)| head)
            .to_owned();
        let mut ctx = Map::new();
        ctx.insert("error".to_owned(), Value::String(message));
        BridgeError::InvalidRequest(vec![
            InvalidField::new(
                "json_invalid",
                [Loc::from("body"), Loc::from(position)],
                "JSON decode error",
            )
            .with_input(Value::Object(Map::new()))
            .with_ctx(Value::Object(ctx)),
        ])
    })
}

/// The 0-based character offset of a 1-based line and column (as Python's `JSONDecodeError.pos`).
fn char_position(bytes: &[u8], line: usize, column: usize) -> usize {
    let text = String::from_utf8_lossy(bytes);
    let mut position = 0;
    for (index, content) in text.split('\n').enumerate() {
        if index + 1 == line {
            return position + content.chars().take(column.saturating_sub(1)).count();
        }
        position += content.chars().count() + 1;
    }
    position
}

pub(crate) use crate::error::field_error as error;

pub(crate) fn body_object(body: Option<Value>) -> Result<Map<String, Value>, BridgeError> {
    match body {
        None => Err(BridgeError::InvalidRequest(vec![error(
            "missing",
            ["body"],
            "Field required",
            Value::Null,
        )])),
        Some(Value::Object(map)) => Ok(map),
        Some(other) => Err(BridgeError::InvalidRequest(vec![error(
            "model_attributes_type",
            ["body"],
            "Input should be a valid dictionary or object to extract fields from",
            other,
        )])),
    }
}

/// A `ctx` that names the bound a number broke: `{"ge": 0}`.
fn bound(name: &str, value: Value) -> Value {
    let mut ctx = Map::new();
    ctx.insert(name.to_owned(), value);
    Value::Object(ctx)
}

/// Reads typed fields out of a JSON object, collecting FastAPI-style errors.
pub(crate) struct Fields<'a> {
    map: &'a Map<String, Value>,
    location: &'static str,
    errors: Vec<InvalidField>,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(map: &'a Map<String, Value>, location: &'static str) -> Self {
        Fields {
            map,
            location,
            errors: Vec::new(),
        }
    }

    pub(crate) fn loc<'b>(&self, field: &'b str) -> [&'b str; 2]
    where
        'a: 'b,
    {
        [self.location, field]
    }

    /// A string the body must hold, borrowed from it.
    pub(crate) fn required_str(&mut self, field: &str) -> Option<&'a str> {
        match self.map.get(field) {
            None => {
                let input = Value::Object(self.map.clone());
                self.errors
                    .push(error("missing", self.loc(field), "Field required", input));
                None
            }
            Some(_) => self.optional_str(field),
        }
    }

    /// A string the body may hold (`null` reads as absent), borrowed from it.
    pub(crate) fn optional_str(&mut self, field: &str) -> Option<&'a str> {
        let map: &'a Map<String, Value> = self.map;
        match map.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text),
            Some(other) => {
                self.errors.push(error(
                    "string_type",
                    self.loc(field),
                    "Input should be a valid string",
                    other.clone(),
                ));
                None
            }
        }
    }

    fn optional_bool(&mut self, field: &str) -> bool {
        match self.map.get(field) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(value)) => *value,
            Some(other) => {
                self.errors.push(error(
                    "bool_type",
                    self.loc(field),
                    "Input should be a valid boolean",
                    other.clone(),
                ));
                false
            }
        }
    }

    pub(crate) fn optional_object(&mut self, field: &str) -> Map<String, Value> {
        match self.map.get(field) {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map.clone(),
            Some(other) => {
                self.errors.push(error(
                    "dict_type",
                    self.loc(field),
                    "Input should be a valid dictionary",
                    other.clone(),
                ));
                Map::new()
            }
        }
    }

    /// An object the body may hold (`null` reads as absent), borrowed from it.
    pub(crate) fn optional_object_ref(&mut self, field: &str) -> Option<&'a Value> {
        let map: &'a Map<String, Value> = self.map;
        match map.get(field) {
            None | Some(Value::Null) => None,
            Some(value @ Value::Object(_)) => Some(value),
            Some(other) => {
                self.errors.push(error(
                    "dict_type",
                    self.loc(field),
                    "Input should be a valid dictionary",
                    other.clone(),
                ));
                None
            }
        }
    }

    fn optional_wait(&mut self, field: &str) -> Option<f64> {
        let value = self.map.get(field)?;
        let number = match value {
            Value::Null => return None,
            Value::Number(number) => number.as_f64(),
            Value::String(text) => text.trim().parse::<f64>().ok(),
            _ => None,
        };
        self.check_wait(field, value, number)
    }

    fn check_wait(&mut self, field: &str, input: &Value, number: Option<f64>) -> Option<f64> {
        match number {
            Some(n) if n.is_finite() && n < 0.0 => {
                let item = error(
                    "greater_than_equal",
                    self.loc(field),
                    "Input should be greater than or equal to 0",
                    input.clone(),
                );
                self.errors.push(item.with_ctx(bound("ge", 0.into())));
                None
            }
            Some(n) if n.is_finite() && n > MAX_WAIT_SECONDS => {
                let item = error(
                    "less_than_equal",
                    self.loc(field),
                    &format!("Input should be less than or equal to {MAX_WAIT_SECONDS}"),
                    input.clone(),
                );
                self.errors
                    .push(item.with_ctx(bound("le", MAX_WAIT_SECONDS.into())));
                None
            }
            Some(n) if n.is_finite() => Some(n),
            _ => {
                self.errors.push(error(
                    "float_parsing",
                    self.loc(field),
                    "Input should be a valid number, unable to parse string as a number",
                    input.clone(),
                ));
                None
            }
        }
    }

    /// Record an error about `field`.
    pub(crate) fn push(&mut self, kind: &str, field: &str, msg: &str, input: Value) {
        let item = error(kind, self.loc(field), msg, input);
        self.errors.push(item);
    }

    pub(crate) fn finish<T>(self, value: impl FnOnce() -> T) -> Result<T, BridgeError> {
        if self.errors.is_empty() {
            Ok(value())
        } else {
            Err(BridgeError::InvalidRequest(self.errors))
        }
    }
}

/// The body of `POST /execute`, `{name, arguments?, serverName?, wait?, unmasked?}`, read into
/// the protocol's [`Execute`] borrowed from `map`, and the `wait` the caller asked for. The
/// protocol's `wait` is whole seconds (what the core writes); the original extension and other
/// clients send any number of seconds (`0.05`, or a numeric string), so the bridge reads it as
/// given beside the call, and the call's own `wait` is left empty.
pub(crate) fn execute(map: &Map<String, Value>) -> Result<(Execute<'_>, Option<f64>), BridgeError> {
    let mut fields = Fields::new(map, "body");
    let name = fields.required_str("name");
    let arguments = fields.optional_object_ref("arguments");
    let server_name = fields.optional_str("serverName");
    let wait = fields.optional_wait("wait");
    let unmasked = fields.optional_bool("unmasked");
    fields.finish(|| {
        let call = Execute {
            name: name.unwrap_or_default(),
            arguments: arguments.unwrap_or(&EMPTY_ARGUMENTS),
            server_name: server_name.filter(|name| !name.is_empty()),
            wait: None,
            unmasked,
        };
        (call, wait)
    })
}

/// The arguments of a call that sent none.
static EMPTY_ARGUMENTS: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| Value::Object(Map::new()));

/// A call to run, owned (it outlives the request when it runs in the background): what
/// [`execute`] read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExecuteRequest {
    pub(crate) name: String,
    pub(crate) arguments: Map<String, Value>,
    pub(crate) server_name: Option<String>,
    /// Long-poll: answer `202 pending` if the call takes longer than this many seconds.
    pub(crate) wait: Option<f64>,
    /// Let credential shapes in the result through unmasked (the user's choice for this tool,
    /// sent by the extension); the bridge's token and configured secrets are masked anyway.
    pub(crate) unmasked: bool,
}

impl ExecuteRequest {
    pub(crate) fn from_body(body: Option<Value>) -> Result<Self, BridgeError> {
        let map = body_object(body)?;
        let (call, wait) = execute(&map)?;
        Ok(ExecuteRequest {
            name: call.name.to_owned(),
            arguments: call.arguments.as_object().cloned().unwrap_or_default(),
            server_name: call.server_name.map(str::to_owned),
            wait,
            unmasked: call.unmasked,
        })
    }
}

/// The body of `POST /reset-history`, `{serverName?, toolName?}`, read from `map` (an
/// empty body is an empty map: every counter).
pub(crate) fn reset_history(map: &Map<String, Value>) -> Result<ResetHistory<'_>, BridgeError> {
    let mut fields = Fields::new(map, "body");
    let server_name = fields.optional_str("serverName");
    let tool_name = fields.optional_str("toolName");
    fields.finish(|| ResetHistory {
        server_name,
        tool_name,
    })
}

/// An optional body's object: an empty one when there is no body.
pub(crate) fn body_or_empty(body: Option<Value>) -> Result<Map<String, Value>, BridgeError> {
    match body {
        None => Ok(Map::new()),
        body => body_object(body),
    }
}

/// A query parameter that must be present.
pub(crate) fn required_query(
    query: &std::collections::HashMap<String, String>,
    name: &str,
) -> Result<String, BridgeError> {
    match query.get(name).filter(|value| !value.is_empty()) {
        Some(value) => Ok(value.clone()),
        None => Err(BridgeError::InvalidRequest(vec![error(
            "missing",
            ["query", name],
            "Field required",
            Value::Null,
        )])),
    }
}

/// The `wait` query parameter of `GET /calls/{id}` (0 when absent).
pub(crate) fn wait_query(
    query: &std::collections::HashMap<String, String>,
) -> Result<f64, BridgeError> {
    let Some(text) = query.get("wait") else {
        return Ok(0.0);
    };
    let map = Map::new();
    let mut fields = Fields::new(&map, "query");
    let input = Value::String(text.clone());
    let wait = fields.check_wait("wait", &input, text.trim().parse::<f64>().ok());
    fields.finish(|| wait.unwrap_or(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn details(err: BridgeError) -> Vec<Value> {
        match err {
            BridgeError::InvalidRequest(items) => items
                .iter()
                .map(|item| serde_json::to_value(item).unwrap())
                .collect(),
            other => panic!("expected a 422, got {other:?}"),
        }
    }

    #[test]
    fn execute_request_ok() {
        let request = ExecuteRequest::from_body(Some(
            json!({"name": "echo", "arguments": {"text": "hi"}, "serverName": "demo", "wait": 5}),
        ))
        .unwrap();
        assert_eq!(request.name, "echo");
        assert_eq!(request.arguments["text"], "hi");
        assert_eq!(request.server_name.as_deref(), Some("demo"));
        assert_eq!(request.wait, Some(5.0));
        // The original extension's shapes: a fraction of a second, a numeric string, nulls.
        let sent = json!({"name": "echo", "arguments": null, "serverName": null, "wait": "0.05"});
        let (call, wait) = execute(sent.as_object().unwrap()).unwrap();
        assert_eq!(
            (call.name, call.server_name, wait),
            ("echo", None, Some(0.05))
        );
        assert_eq!(call.arguments, &json!({}));
        let minimal = ExecuteRequest::from_body(Some(json!({"name": "echo"}))).unwrap();
        assert!(minimal.arguments.is_empty());
        assert_eq!(minimal.server_name, None);
        assert_eq!(minimal.wait, None);
    }

    #[test]
    fn missing_name_is_fastapi_shaped() {
        let body = json!({"arguments": {}});
        let items = details(ExecuteRequest::from_body(Some(body.clone())).unwrap_err());
        assert_eq!(
            items,
            vec![
                json!({"type": "missing", "loc": ["body", "name"], "msg": "Field required", "input": body})
            ]
        );
    }

    #[test]
    fn wrong_types_are_all_reported() {
        let items = details(
            ExecuteRequest::from_body(Some(
                json!({"name": 5, "arguments": [1], "serverName": true, "wait": -1}),
            ))
            .unwrap_err(),
        );
        let kinds: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "string_type",
                "dict_type",
                "string_type",
                "greater_than_equal"
            ]
        );
        assert_eq!(items[1]["loc"], json!(["body", "arguments"]));
        assert_eq!(items[3]["ctx"], json!({"ge": 0}));
    }

    #[test]
    fn body_must_be_an_object() {
        let items = details(ExecuteRequest::from_body(Some(json!([1, 2]))).unwrap_err());
        assert_eq!(items[0]["type"], "model_attributes_type");
        let items = details(ExecuteRequest::from_body(None).unwrap_err());
        assert_eq!(
            items,
            vec![
                json!({"type": "missing", "loc": ["body"], "msg": "Field required", "input": null})
            ]
        );
    }

    #[test]
    fn invalid_json_is_json_invalid_with_position() {
        let items = details(parse_json(b"{\"name\": }").unwrap_err());
        assert_eq!(items[0]["type"], "json_invalid");
        assert_eq!(items[0]["loc"], json!(["body", 9]));
        assert_eq!(items[0]["msg"], "JSON decode error");
        assert!(items[0]["ctx"]["error"].is_string());
        assert_eq!(parse_json(b"  \n").unwrap(), None);
    }

    #[test]
    fn reset_request() {
        let empty = body_or_empty(None).unwrap();
        assert_eq!(reset_history(&empty).unwrap(), ResetHistory::default());
        let one = body_or_empty(Some(json!({"serverName": "s", "toolName": "t"}))).unwrap();
        let one = reset_history(&one).unwrap();
        assert_eq!(one.server_name, Some("s"));
        assert_eq!(one.tool_name, Some("t"));
        let wrong = body_or_empty(Some(json!({"toolName": 1}))).unwrap();
        assert!(reset_history(&wrong).is_err());
    }

    #[test]
    fn queries() {
        let mut query = std::collections::HashMap::new();
        assert!(required_query(&query, "toolName").is_err());
        assert_eq!(wait_query(&query).unwrap(), 0.0);
        query.insert("wait".to_owned(), "2.5".to_owned());
        assert_eq!(wait_query(&query).unwrap(), 2.5);
        query.insert("wait".to_owned(), "soon".to_owned());
        let items = details(wait_query(&query).unwrap_err());
        assert_eq!(items[0]["loc"], json!(["query", "wait"]));
    }
}
