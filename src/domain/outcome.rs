//! The typed outcome of one bridge call: every way an HTTP answer (or its absence) can
//! look, decoded once, so classification and reports never touch raw bodies.
//!
//! [`from_http`] accepts whatever a bridge or a proxy in front of it may send (docs/BRIDGE.md,
//! "Bridge API"): MCP results in camelCase or snake_case, FastAPI `detail` strings, objects and
//! 422 lists, JSON-RPC error objects, HTML error pages, empty or truncated bodies. The
//! client adds the transport outcomes with [`CallOutcome::unreachable`], [`CallOutcome::timeout`]
//! and [`CallOutcome::aborted`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What happened to a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum CallOutcome {
    /// `200 {success:true, result}` with a result that is not an error.
    Success {
        result: ToolOutput,
        trace_id: Option<String>,
        /// For a large result, which part this is; the bridge keeps the rest.
        #[serde(default)]
        page: Option<Page>,
        /// How many secrets the bridge masked in the result (`"masked"` of its answer).
        #[serde(default)]
        masked: u32,
    },
    /// The tool ran and reported failure (`isError`/`is_error: true`).
    ToolError {
        result: ToolOutput,
        trace_id: Option<String>,
    },
    /// A JSON error body (any status, or a 2xx with `success:false`).
    HttpError {
        status: u16,
        detail: ErrorDetail,
        trace_id: Option<String>,
    },
    /// A body that is not JSON: an HTML page from a proxy, plain text, empty, truncated.
    NotJson {
        status: u16,
        body: BodyKind,
        snippet: String,
        trace_id: Option<String>,
    },
    /// A 2xx JSON body that is not any known shape.
    BadShape {
        status: u16,
        snippet: String,
        trace_id: Option<String>,
    },
    /// `202 {pending:true, call_id}`: the call still runs; poll `GET /calls/{id}`.
    Pending {
        call_id: String,
        trace_id: Option<String>,
        /// The server's progress and question, when the bridge reported any (never stored).
        #[serde(skip)]
        activity: Option<Box<crate::domain::call_activity::Activity>>,
    },
    /// No HTTP answer: connection refused, DNS, network error.
    Unreachable { message: String },
    /// No answer within the client's time limit.
    Timeout { after_ms: u64 },
    /// The user stopped the call.
    Aborted,
    /// The user does not allow the tool in the extension: it was never sent to the bridge.
    Denied,
}

/// How a non-JSON body looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BodyKind {
    Empty,
    Html,
    Text,
    /// Starts like JSON but does not parse (cut off in transit).
    TruncatedJson,
}

/// The `detail` (or equivalent) of an error body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ErrorDetail {
    /// `{"detail": "Not Found"}`, `{"message": "…"}`.
    Text { message: String },
    /// `{"detail": {error, type, traceback, code, retryable, trace_id, server}}`, or a
    /// JSON-RPC style `{"error": {code, message, data}}`.
    Object { error: ErrorFields },
    /// FastAPI request validation (HTTP 422) list.
    Validation { items: Vec<ValidationItem> },
    /// Any other JSON.
    Other { json: Value },
}

/// The bridge's structured error; every field optional, extra keys kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorFields {
    pub message: String,
    pub error_type: Option<String>,
    pub traceback: Option<String>,
    pub code: Option<i64>,
    pub retryable: Option<bool>,
    pub trace_id: Option<String>,
    pub server: Option<String>,
    /// Keys we do not interpret.
    pub extra: Map<String, Value>,
}

/// One entry of a FastAPI/pydantic validation error list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationItem {
    /// pydantic's error type: `missing`, `int_parsing`, `json_invalid`, …
    pub kind: String,
    /// Location, e.g. `["body", "arguments", "quantity"]` (strings and indexes).
    pub loc: Vec<Value>,
    pub msg: String,
    pub input: Option<Value>,
    pub ctx: Option<Value>,
}

/// An MCP `CallToolResult`, from either serialisation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    pub content: Vec<Content>,
    pub is_error: bool,
    pub structured_content: Option<Value>,
}

/// One content item of a tool result. Binary data is not kept, only its size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Content {
    Text {
        text: String,
    },
    /// `data` is the base64 text as the bridge sent it, kept only on its way to the float
    /// (never serialized, so never stored).
    Image {
        mime_type: String,
        bytes: usize,
        #[serde(skip)]
        data: String,
    },
    Audio {
        mime_type: String,
        bytes: usize,
        #[serde(skip)]
        data: String,
    },
    Resource {
        uri: String,
        mime_type: Option<String>,
        text: Option<String>,
        bytes: usize,
    },
    ResourceLink {
        uri: String,
        name: Option<String>,
        mime_type: Option<String>,
    },
    Other {
        json: Value,
    },
}

impl CallOutcome {
    /// The bridge could not be reached (connection refused, network error).
    pub fn unreachable(message: impl Into<String>) -> Self {
        CallOutcome::Unreachable {
            message: message.into(),
        }
    }

    /// The client gave up after `after_ms` milliseconds.
    pub fn timeout(after_ms: u64) -> Self {
        CallOutcome::Timeout { after_ms }
    }

    /// The user stopped the call.
    pub fn aborted() -> Self {
        CallOutcome::Aborted
    }

    /// The user does not allow the tool.
    pub fn denied() -> Self {
        CallOutcome::Denied
    }

    /// Whether this is a tool result that is not an error.
    pub fn is_success(&self) -> bool {
        matches!(self, CallOutcome::Success { .. })
    }

    /// The trace id from the `X-Trace-Id` header or the error body.
    pub fn trace_id(&self) -> Option<&str> {
        match self {
            CallOutcome::Success { trace_id, .. }
            | CallOutcome::ToolError { trace_id, .. }
            | CallOutcome::NotJson { trace_id, .. }
            | CallOutcome::BadShape { trace_id, .. }
            | CallOutcome::Pending { trace_id, .. } => trace_id.as_deref(),
            CallOutcome::HttpError {
                trace_id, detail, ..
            } => trace_id.as_deref().or(match detail {
                ErrorDetail::Object { error } => error.trace_id.as_deref(),
                _ => None,
            }),
            _ => None,
        }
    }

    /// The HTTP status, when there was an HTTP answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            CallOutcome::Success { .. } | CallOutcome::ToolError { .. } => Some(200),
            CallOutcome::HttpError { status, .. }
            | CallOutcome::NotJson { status, .. }
            | CallOutcome::BadShape { status, .. } => Some(*status),
            CallOutcome::Pending { .. } => Some(202),
            _ => None,
        }
    }
}

/// A bridge body as JSON, when it is JSON. Every JSON text in the core is read from `&str`:
/// serde_json's byte-slice reader would be a second copy of its parser in the wasm.
pub fn json_body(body: &[u8]) -> Option<Value> {
    serde_json::from_str(std::str::from_utf8(body).ok()?).ok()
}

/// A route's answer as the bridge client gives it: a 2xx JSON body as JSON; anything else as
/// the outcome that describes it.
#[allow(clippy::result_large_err)] // the answer itself, made once per request
pub fn json_answer(status: u16, trace_id: Option<&str>, body: &[u8]) -> Result<Value, CallOutcome> {
    if (200..300).contains(&status)
        && let Some(v) = json_body(body)
    {
        return Ok(v);
    }
    Err(from_http(status, trace_id, body))
}

/// Decodes one HTTP answer of `POST /execute` (or `GET /calls/{id}`).
pub fn from_http(status: u16, trace_id_header: Option<&str>, body: &[u8]) -> CallOutcome {
    let header_tid = trace_id_header
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from);
    let text = String::from_utf8_lossy(body);
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    let json: Value = match serde_json::from_str(trimmed) {
        Ok(v) => v,
        Err(_) => {
            let kind = body_kind(trimmed);
            return CallOutcome::NotJson {
                status,
                body: kind,
                snippet: snippet_of(trimmed, kind),
                trace_id: header_tid,
            };
        }
    };
    let body_tid = json
        .get("trace_id")
        .or_else(|| json.get("traceId"))
        .and_then(value_string);
    let trace_id = header_tid.or(body_tid);

    if let Some(call_id) = pending_call_id(&json) {
        let activity = crate::domain::call_activity::from_pending(&json).map(Box::new);
        return CallOutcome::Pending {
            call_id,
            trace_id,
            activity,
        };
    }
    if (200..300).contains(&status) {
        return success_body(status, json, trace_id);
    }
    CallOutcome::HttpError {
        status,
        detail: error_detail(&json),
        trace_id,
    }
}

fn pending_call_id(json: &Value) -> Option<String> {
    if json.get("pending").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    json.get("call_id")
        .or_else(|| json.get("callId"))
        .and_then(value_string)
}

fn success_body(status: u16, json: Value, trace_id: Option<String>) -> CallOutcome {
    let obj = match &json {
        Value::Object(o) => o,
        _ => {
            return CallOutcome::BadShape {
                status,
                snippet: json_snippet(&json),
                trace_id,
            };
        }
    };
    if obj.get("success").and_then(Value::as_bool) == Some(false) {
        return CallOutcome::HttpError {
            status,
            detail: error_detail(&json),
            trace_id,
        };
    }
    // `{success:true, result}`, a bare `{result}` (mcpo-like), or a bare CallToolResult.
    let result = match obj.get("result") {
        Some(r) => r,
        None if obj.contains_key("content")
            || obj.contains_key("isError")
            || obj.contains_key("is_error") =>
        {
            &json
        }
        None => {
            return CallOutcome::BadShape {
                status,
                snippet: json_snippet(&json),
                trace_id,
            };
        }
    };
    let result = ToolOutput::from_value(result);
    if result.is_error {
        CallOutcome::ToolError { result, trace_id }
    } else {
        let page = obj.get("page").and_then(|p| Page::deserialize(p).ok());
        let masked = obj
            .get("masked")
            .and_then(Value::as_u64)
            .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
        CallOutcome::Success {
            result,
            trace_id,
            page,
            masked,
        }
    }
}

/// One part of a large result (`"page"` of the bridge's answer): characters `offset` to
/// `offset + returned_chars` of `total_chars`. `result_id` and `next_offset` name the call
/// that reads on (`read_result`); `next_offset` is absent at the end, `result_id` when the
/// result was too large to keep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    pub result_id: Option<String>,
    pub offset: u64,
    pub returned_chars: u64,
    pub total_chars: u64,
    pub next_offset: Option<u64>,
}

impl ToolOutput {
    /// Reads an MCP `CallToolResult` (camelCase or snake_case). A value that is not one
    /// (a plain string, some JSON) becomes a text item or structured content.
    pub fn from_value(v: &Value) -> ToolOutput {
        let Value::Object(o) = v else {
            return match v {
                Value::String(s) => ToolOutput {
                    content: vec![Content::Text { text: s.clone() }],
                    ..Default::default()
                },
                Value::Null => ToolOutput::default(),
                other => ToolOutput {
                    structured_content: Some(other.clone()),
                    ..Default::default()
                },
            };
        };
        let is_error = o
            .get("isError")
            .or_else(|| o.get("is_error"))
            .map(truthy)
            .unwrap_or(false);
        let structured = o
            .get("structuredContent")
            .or_else(|| o.get("structured_content"))
            .filter(|v| !v.is_null())
            .cloned();
        let content = match o.get("content") {
            Some(Value::Array(items)) => items.iter().map(Content::from_value).collect(),
            Some(Value::String(s)) => vec![Content::Text { text: s.clone() }],
            Some(Value::Null) | None => Vec::new(),
            Some(other) => vec![Content::Other {
                json: other.clone(),
            }],
        };
        if content.is_empty() && structured.is_none() && !o.contains_key("content") {
            // Not a CallToolResult at all: keep the whole object as the result.
            return ToolOutput {
                content,
                is_error,
                structured_content: Some(v.clone()),
            };
        }
        ToolOutput {
            content,
            is_error,
            structured_content: structured,
        }
    }

    /// All text items joined with newlines.
    pub fn text(&self) -> String {
        let parts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|c| match c {
                Content::Text { text } => Some(text.as_str()),
                Content::Resource { text: Some(t), .. } => Some(t.as_str()),
                _ => None,
            })
            .collect();
        parts.join("\n")
    }
}

impl Content {
    fn from_value(v: &Value) -> Content {
        let s = |k: &str, alt: &str| {
            v.get(k)
                .or_else(|| v.get(alt))
                .and_then(Value::as_str)
                .map(String::from)
        };
        let b64_len = |data: Option<&Value>| {
            data.and_then(Value::as_str)
                .map(|d| d.len() / 4 * 3)
                .unwrap_or(0)
        };
        match v.get("type").and_then(Value::as_str) {
            Some("text") => Content::Text {
                text: s("text", "text").unwrap_or_default(),
            },
            Some("image") => Content::Image {
                mime_type: s("mimeType", "mime_type").unwrap_or_else(|| "image".into()),
                bytes: b64_len(v.get("data")),
                data: s("data", "data").unwrap_or_default(),
            },
            Some("audio") => Content::Audio {
                mime_type: s("mimeType", "mime_type").unwrap_or_else(|| "audio".into()),
                bytes: b64_len(v.get("data")),
                data: s("data", "data").unwrap_or_default(),
            },
            Some("resource") => {
                let r = v.get("resource").unwrap_or(&Value::Null);
                let rs = |k: &str, alt: &str| {
                    r.get(k)
                        .or_else(|| r.get(alt))
                        .and_then(Value::as_str)
                        .map(String::from)
                };
                let text = rs("text", "text");
                Content::Resource {
                    uri: rs("uri", "uri").unwrap_or_default(),
                    mime_type: rs("mimeType", "mime_type"),
                    bytes: text
                        .as_ref()
                        .map(String::len)
                        .unwrap_or_else(|| b64_len(r.get("blob"))),
                    text,
                }
            }
            Some("resource_link") => Content::ResourceLink {
                uri: s("uri", "uri").unwrap_or_default(),
                name: s("name", "name"),
                mime_type: s("mimeType", "mime_type"),
            },
            _ => match v {
                Value::String(t) => Content::Text { text: t.clone() },
                other => Content::Other {
                    json: other.clone(),
                },
            },
        }
    }
}

/// The detail of an error body in whichever shape it came.
pub fn error_detail(json: &Value) -> ErrorDetail {
    let Value::Object(o) = json else {
        return match json {
            Value::String(s) => ErrorDetail::Text { message: s.clone() },
            other => ErrorDetail::Other {
                json: other.clone(),
            },
        };
    };
    if let Some(d) = o.get("detail") {
        return match d {
            Value::String(s) => ErrorDetail::Text { message: s.clone() },
            Value::Object(m) => ErrorDetail::Object {
                error: error_object(m),
            },
            Value::Array(items)
                if !items.is_empty()
                    && items
                        .iter()
                        .all(|i| i.get("msg").is_some() || i.get("loc").is_some()) =>
            {
                ErrorDetail::Validation {
                    items: items.iter().map(validation_item).collect(),
                }
            }
            other => ErrorDetail::Other {
                json: other.clone(),
            },
        };
    }
    match o.get("error") {
        Some(Value::Object(m)) => {
            let mut e = error_object(m);
            // Top-level keys next to a nested error (`{error:{…}, trace_id}`).
            merge_top(&mut e, o);
            return ErrorDetail::Object { error: e };
        }
        Some(Value::String(_)) if o.contains_key("type") || o.contains_key("traceback") => {
            return ErrorDetail::Object {
                error: error_object(o),
            };
        }
        Some(Value::String(s)) => return ErrorDetail::Text { message: s.clone() },
        _ => {}
    }
    if let Some(Value::String(s)) = o.get("message") {
        if o.contains_key("type") || o.contains_key("code") {
            return ErrorDetail::Object {
                error: error_object(o),
            };
        }
        return ErrorDetail::Text { message: s.clone() };
    }
    ErrorDetail::Other { json: json.clone() }
}

fn merge_top(e: &mut ErrorFields, top: &Map<String, Value>) {
    if e.trace_id.is_none() {
        e.trace_id = top.get("trace_id").and_then(value_string);
    }
    if e.error_type.is_none() {
        e.error_type = top.get("type").and_then(value_string);
    }
}

fn error_object(m: &Map<String, Value>) -> ErrorFields {
    const KNOWN: &[&str] = &[
        "error",
        "message",
        "msg",
        "type",
        "error_type",
        "errorType",
        "traceback",
        "stack",
        "code",
        "retryable",
        "trace_id",
        "traceId",
        "server",
        "server_name",
        "serverName",
    ];
    let pick = |keys: &[&str]| keys.iter().find_map(|k| m.get(*k)).filter(|v| !v.is_null());
    let mut message = pick(&["error", "message", "msg"])
        .map(display_value)
        .unwrap_or_default();
    let mut error_type = pick(&["type", "error_type", "errorType"]).and_then(value_string);
    let mut code = pick(&["code"]).and_then(|v| match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    // JSON-RPC nested under `error`: `{"error": {"code": -32602, "message": "…"}}`.
    if let Some(Value::Object(inner)) = m
        .get("error")
        .filter(|e| e.get("message").is_some() || e.get("code").is_some())
    {
        let i = error_object(inner);
        message = i.message;
        error_type = error_type.or(i.error_type);
        code = code.or(i.code);
    }
    let traceback = pick(&["traceback", "stack"]).map(|v| match v {
        Value::Array(lines) => lines
            .iter()
            .map(display_value)
            .collect::<Vec<_>>()
            .join("\n"),
        other => display_value(other),
    });
    let retryable = pick(&["retryable"]).and_then(|v| match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) => s.parse().ok(),
        _ => None,
    });
    // Inserted one by one: collecting into the map would sort first, and each sort
    // instantiation costs ~4 KB of wasm.
    let mut extra = Map::new();
    for (k, v) in m.iter().filter(|(k, _)| !KNOWN.contains(&k.as_str())) {
        extra.insert(k.clone(), v.clone());
    }
    ErrorFields {
        message,
        error_type,
        traceback: traceback.filter(|t| !t.trim().is_empty()),
        code,
        retryable,
        trace_id: pick(&["trace_id", "traceId"]).and_then(value_string),
        server: pick(&["server", "server_name", "serverName"]).and_then(value_string),
        extra,
    }
}

fn validation_item(v: &Value) -> ValidationItem {
    ValidationItem {
        kind: v.get("type").and_then(value_string).unwrap_or_default(),
        loc: match v.get("loc") {
            Some(Value::Array(a)) => a.clone(),
            Some(Value::Null) | None => Vec::new(),
            Some(other) => vec![other.clone()],
        },
        msg: v.get("msg").map(display_value).unwrap_or_default(),
        input: v.get("input").cloned(),
        ctx: v.get("ctx").cloned().filter(|c| !c.is_null()),
    }
}

/// A string value as is; any other value as compact JSON (keys sorted).
pub(crate) fn display_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Strings and numbers as a string; other values not.
fn value_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => s.eq_ignore_ascii_case("true"),
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        _ => false,
    }
}

fn body_kind(t: &str) -> BodyKind {
    if t.is_empty() {
        BodyKind::Empty
    } else if t.starts_with('{') || t.starts_with('[') {
        BodyKind::TruncatedJson
    } else if t.starts_with('<') {
        BodyKind::Html
    } else {
        BodyKind::Text
    }
}

const SNIPPET: usize = 300;

/// A short human-readable piece of a non-JSON body: the title and first heading of an
/// HTML page with tags removed, else the start of the text.
fn snippet_of(t: &str, kind: BodyKind) -> String {
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    if kind != BodyKind::Html {
        return cut_chars(&collapse(t), SNIPPET);
    }
    let text = collapse(&html_text(t));
    // Error pages repeat their <title> as the first heading; say it once.
    let title = html_title(t)
        .map(|s| collapse(&s))
        .filter(|s| !s.is_empty());
    let text = match title {
        Some(title) => match text.strip_prefix(title.as_str()) {
            Some(rest) => format!(
                "{title}{}",
                rest.trim_start()
                    .strip_prefix(title.as_str())
                    .unwrap_or(rest)
            ),
            None => text,
        },
        None => text,
    };
    cut_chars(&text, SNIPPET)
}

fn html_title(t: &str) -> Option<String> {
    let head = &t[..t.floor_char_boundary(8192)];
    let lower = head.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let close = open_end + lower[open_end..].find("</title>")?;
    Some(head[open_end..close].to_string())
}

/// Text of an HTML page without tags, scripts and styles (scans at most 64 KB).
fn html_text(t: &str) -> String {
    let t = &t[..t.floor_char_boundary(65536)];
    let mut out = String::new();
    let mut rest = t;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        out.push(' ');
        let after = &rest[lt..];
        let lower: String = after
            .chars()
            .take(8)
            .collect::<String>()
            .to_ascii_lowercase();
        let skip_to = if lower.starts_with("<script") {
            after.find("</script>").map(|p| p + 9)
        } else if lower.starts_with("<style") {
            after.find("</style>").map(|p| p + 8)
        } else {
            after.find('>').map(|p| p + 1)
        };
        match skip_to {
            Some(p) => rest = &after[p..],
            None => {
                rest = "";
                break;
            }
        }
        if out.len() > SNIPPET * 4 {
            break;
        }
    }
    out.push_str(rest);
    out.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn json_snippet(v: &Value) -> String {
    cut_chars(&v.to_string(), SNIPPET)
}

/// At most `n` characters, with `…` when cut.
pub(crate) fn cut_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The core is tested with serde_json as the extension's wasm has it: without the
    /// bridge's `preserve_order` (`./build.sh test` runs `cargo test -p mcp-bridge-core` on its
    /// own, so the workspace's features do not unify into it), so a map reads in key order and
    /// nothing re-sorts it by hand.
    #[test]
    fn json_objects_read_in_key_order_as_in_the_extension() {
        let v = json!({"b": 1, "a": {"d": 2, "c": [{"f": 3, "e": 4}]}});
        assert_eq!(
            display_value(&v),
            r#"{"a":{"c":[{"e":4,"f":3}],"d":2},"b":1}"#
        );
    }

    #[test]
    fn the_bridges_own_pending_answer_reads_back_whole() {
        use mcp_bridge_protocol::answers as wire;
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let sent = wire::Pending {
            success: true,
            pending: true,
            call_id: "c7".into(),
            trace_id: "t".into(),
            elapsed_seconds: 1.5,
            progress: Some(wire::Progress {
                progress: 3.0,
                total: Some(12.0),
                message: Some("copying".into()),
                updates: 2,
            }),
            elicitation: Some(wire::Elicitation {
                id: "q1".into(),
                server: "everything".into(),
                mode: wire::ElicitationMode::Url,
                message: "Sign in".into(),
                requested_schema: Some(schema.clone()),
                url: Some("https://example.com/in".into()),
                answer_timeout_seconds: 60.0,
            }),
        };
        let body = serde_json::to_vec(&sent).unwrap();
        let CallOutcome::Pending {
            call_id, activity, ..
        } = from_http(202, None, &body)
        else {
            panic!("not read as pending");
        };
        assert_eq!(call_id, "c7");
        let read = *activity.unwrap();
        use crate::domain::call_activity::{CallProgress, Question};
        let progress = CallProgress {
            progress: 3.0,
            total: Some(12.0),
            message: Some("copying".into()),
        };
        assert_eq!(read.progress, Some(progress));
        let question = Question {
            id: "q1".into(),
            server: "everything".into(),
            mode: "url".into(),
            message: "Sign in".into(),
            schema,
            url: Some("https://example.com/in".into()),
        };
        assert_eq!(read.question, Some(question));
    }

    fn out(status: u16, body: &str) -> CallOutcome {
        from_http(status, None, body.as_bytes())
    }

    #[test]
    fn success_and_tool_errors() {
        let o = out(
            200,
            r#"{"success":true,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}"#,
        );
        let CallOutcome::Success { result, .. } = o else {
            panic!()
        };
        assert_eq!(result.text(), "ok");
        let o = out(
            200,
            r#"{"success":true,"result":{"content":[{"type":"text","text":"bad"}],"isError":true}}"#,
        );
        assert!(matches!(o, CallOutcome::ToolError { .. }));
        let o = out(
            200,
            r#"{"success":true,"result":{"content":[],"is_error":true,"structured_content":{"a":1}}}"#,
        );
        let CallOutcome::ToolError { result, .. } = o else {
            panic!()
        };
        assert_eq!(result.structured_content, Some(json!({"a": 1})));
    }

    #[test]
    fn content_kinds() {
        let r = ToolOutput::from_value(&json!({"content":[
            {"type":"image","data":"AAAA","mimeType":"image/png"},
            {"type":"resource","resource":{"uri":"file:///a","mime_type":"text/plain","text":"hi"}},
            {"type":"resource_link","uri":"file:///b","name":"b"},
            {"type":"weird"}]}));
        assert_eq!(
            r.content[0],
            Content::Image {
                mime_type: "image/png".into(),
                bytes: 3,
                data: "AAAA".into(),
            }
        );
        assert!(matches!(r.content[1], Content::Resource { bytes: 2, .. }));
        assert!(matches!(r.content[2], Content::ResourceLink { .. }));
        assert!(matches!(r.content[3], Content::Other { .. }));
    }

    #[test]
    fn detail_shapes() {
        let o = out(404, r#"{"detail":"Not Found"}"#);
        assert!(matches!(
            o,
            CallOutcome::HttpError {
                status: 404,
                detail: ErrorDetail::Text { .. },
                ..
            }
        ));
        let o = from_http(500, Some("t-1"), br#"{"detail":{"error":"boom","type":"ValueError","traceback":"x","code":-32602,"retryable":false,"trace_id":"t-2","server":"s","extra":1}}"#);
        let CallOutcome::HttpError {
            detail: ErrorDetail::Object { error },
            trace_id,
            ..
        } = &o
        else {
            panic!()
        };
        assert_eq!(error.code, Some(-32602));
        assert_eq!(error.retryable, Some(false));
        assert_eq!(error.extra.get("extra"), Some(&json!(1)));
        assert_eq!(trace_id.as_deref(), Some("t-1"));
        let o = out(500, r#"{"detail":{"error":{"nested":true},"type":42}}"#);
        let CallOutcome::HttpError {
            detail: ErrorDetail::Object { error },
            ..
        } = &o
        else {
            panic!()
        };
        assert_eq!(error.message, r#"{"nested":true}"#);
        assert_eq!(error.error_type.as_deref(), Some("42"));
        let o = out(
            422,
            r#"{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required","input":{}}]}"#,
        );
        let CallOutcome::HttpError {
            detail: ErrorDetail::Validation { items },
            ..
        } = &o
        else {
            panic!()
        };
        assert_eq!(items[0].kind, "missing");
        let o = out(
            400,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
        );
        let CallOutcome::HttpError {
            detail: ErrorDetail::Object { error },
            ..
        } = &o
        else {
            panic!()
        };
        assert_eq!(
            (error.code, error.message.as_str()),
            (Some(-32601), "Method not found")
        );
        assert!(matches!(
            out(500, "[1,2]"),
            CallOutcome::HttpError {
                detail: ErrorDetail::Other { .. },
                ..
            }
        ));
    }

    #[test]
    fn non_json_and_shapes() {
        let o = out(
            502,
            "<html><head><title>502 Bad Gateway</title><style>x{}</style></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>",
        );
        let CallOutcome::NotJson { body, snippet, .. } = &o else {
            panic!()
        };
        assert_eq!(*body, BodyKind::Html);
        assert_eq!(snippet, "502 Bad Gateway nginx");
        assert!(matches!(
            out(500, ""),
            CallOutcome::NotJson {
                body: BodyKind::Empty,
                ..
            }
        ));
        assert!(matches!(
            out(200, r#"{"success":true,"res"#),
            CallOutcome::NotJson {
                body: BodyKind::TruncatedJson,
                ..
            }
        ));
        assert!(matches!(
            out(200, r#"{"hello":1}"#),
            CallOutcome::BadShape { .. }
        ));
        assert!(matches!(out(200, r#"[]"#), CallOutcome::BadShape { .. }));
        assert!(matches!(
            out(200, r#"{"success":false,"error":"no"}"#),
            CallOutcome::HttpError { status: 200, .. }
        ));
        let o = out(202, r#"{"success":true,"pending":true,"call_id":"c1"}"#);
        assert_eq!(
            o,
            CallOutcome::Pending {
                call_id: "c1".into(),
                trace_id: None,
                activity: None,
            }
        );
    }

    #[test]
    fn serde_is_camel_case() {
        let o = CallOutcome::Timeout { after_ms: 5 };
        assert_eq!(
            serde_json::to_value(&o).unwrap(),
            json!({"timeout":{"afterMs":5}})
        );
    }
}
