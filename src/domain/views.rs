//! MCP App views: what the core decides about a tool's view (the `ui://` resource a tool
//! names, shown in a sandboxed frame in the float) and about what the view asks of the host —
//! which of its server's tools it may call, the tool's input and result as it is handed them
//! (masked as the chat's copy is), the limits of its size, the links it may open.

use crate::domain::outcome::{Content, ToolOutput};
use crate::domain::redact::redact_owned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The least and the most height a view may ask for (`ui/notifications/size-changed`), in
/// CSS pixels: enough to show a line, never more than a float beside a chat can hold.
pub const MIN_HEIGHT: u32 = 120;
pub const MAX_HEIGHT: u32 = 600;

/// How long a view has to open the conversation (`ui/initialize`) before the float says it
/// failed, in milliseconds.
pub const INIT_MS: u32 = 5000;

/// Views the worker keeps per tab (the newest): an older one's requests are refused.
pub const KEPT_PER_TAB: usize = 4;

/// A listed tool's view (`GET /tools?serverName=`: `ui.resourceUri`), when it has one.
pub fn resource_uri(tool: &Value) -> Option<&str> {
    tool.pointer("/ui/resourceUri")
        .and_then(Value::as_str)
        .filter(|uri| uri.starts_with("ui://"))
}

/// Whether a view may call a listed tool: every tool whose visibility names `app`, or names
/// none (both's, as the bridge reads it); never one for the model only.
pub fn for_app(tool: &Value) -> bool {
    match tool.pointer("/ui/visibility").and_then(Value::as_array) {
        Some(who) => who.iter().any(|v| v.as_str() == Some("app")),
        None => true,
    }
}

/// One view the float shows: what its frame is handed and which server's tools it may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct View {
    /// The bridge's one-time id of the view's address, also the key the frame asks with.
    pub id: String,
    pub tab: i32,
    pub server: String,
    /// The tool whose result the view shows.
    pub tool: String,
    /// The one-time address the frame loads (`GET /views/{id}`).
    pub url: String,
    /// The call's arguments and the result, masked as the chat's copy is.
    pub input: Value,
    pub result: Value,
}

/// What the frame's host page is told when it opens a view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Opened<'a> {
    pub url: &'a str,
    pub tool: &'a str,
    pub server: &'a str,
    pub tool_input: &'a Value,
    pub tool_result: &'a Value,
    /// BCP 47, from the interface language.
    pub locale: &'a str,
    pub min_height: u32,
    pub max_height: u32,
    pub init_ms: u32,
}

impl View {
    pub fn opened<'a>(&'a self, locale: &'a str) -> Opened<'a> {
        Opened {
            url: &self.url,
            tool: &self.tool,
            server: &self.server,
            tool_input: &self.input,
            tool_result: &self.result,
            locale,
            min_height: MIN_HEIGHT,
            max_height: MAX_HEIGHT,
            init_ms: INIT_MS,
        }
    }
}

/// Every string in `value` masked, unless the user let the tool's results through unmasked.
pub fn masked(value: &Value, unmasked: bool) -> Value {
    if unmasked {
        return value.clone();
    }
    match value {
        Value::String(s) => Value::String(redact_owned(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| masked(v, false)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), masked(v, false)))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

/// A tool's output as an MCP `CallToolResult` for a view (`ui/notifications/tool-result`, the
/// answer to its `tools/call`), masked as the chat's copy is. Binary items keep their type
/// and size; their data is not passed on.
pub fn call_result(output: &ToolOutput, unmasked: bool) -> Value {
    let text = |s: &str| {
        if unmasked {
            s.to_string()
        } else {
            redact_owned(s)
        }
    };
    let content: Vec<Value> = output
        .content
        .iter()
        .map(|c| match c {
            Content::Text { text: t } => json!({"type": "text", "text": text(t)}),
            Content::Image { mime_type, .. } | Content::Audio { mime_type, .. } => {
                json!({"type": "text", "text": format!("[{mime_type}]")})
            }
            Content::Resource {
                uri,
                mime_type,
                text: t,
                ..
            } => json!({"type": "resource", "resource": {
                "uri": text(uri), "mimeType": mime_type, "text": text(t.as_deref().unwrap_or_default())}}),
            Content::ResourceLink {
                uri,
                name,
                mime_type,
            } => json!({"type": "resource_link", "uri": text(uri),
                "name": text(name.as_deref().unwrap_or(uri)), "mimeType": mime_type}),
            Content::Other { json } => masked(json, unmasked),
        })
        .collect();
    let mut result = json!({"content": content, "isError": output.is_error});
    if let Some(s) = output.structured_content.as_ref().filter(|s| s.is_object()) {
        result["structuredContent"] = masked(s, unmasked);
    }
    result
}

/// The text of a view's `ui/message` (its text items, one after another), masked; `None`
/// when it holds no text.
pub fn message_text(content: &Value) -> Option<String> {
    let items = content.as_array()?;
    let texts: Vec<&str> = items
        .iter()
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect();
    let text = texts.join("\n\n");
    (!text.trim().is_empty()).then(|| redact_owned(&text))
}

/// Whether a view may ask to open `url`: an absolute `http(s)` address only.
pub fn link_allowed(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"));
    rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/')) && !url.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_for_the_model_only_is_not_the_views() {
        let tool =
            |v: Value| json!({"name": "t", "ui": {"resourceUri": "ui://x", "visibility": v}});
        assert!(for_app(&tool(json!(["app"]))));
        assert!(for_app(&tool(json!(["model", "app"]))));
        assert!(!for_app(&tool(json!(["model"]))));
        assert!(for_app(&json!({"name": "plain"})));
        assert_eq!(resource_uri(&tool(json!(["app"]))), Some("ui://x"));
        assert_eq!(
            resource_uri(&json!({"ui": {"resourceUri": "https://x"}})),
            None
        );
    }

    #[test]
    fn links_are_http_or_https_only() {
        assert!(link_allowed("https://modelcontextprotocol.io/"));
        assert!(link_allowed("http://example.com/a?b"));
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,x",
            "https://",
            "https:///x",
            "//example.com",
            "https://a b",
        ] {
            assert!(!link_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn a_result_reaches_the_view_masked_as_the_chats_copy() {
        let output = ToolOutput {
            content: vec![Content::Text {
                text: "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".into(),
            }],
            is_error: false,
            structured_content: Some(
                json!({"token": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"}),
            ),
        };
        let shown = call_result(&output, false).to_string();
        assert!(!shown.contains("AbCdEfGh"), "{shown}");
        assert!(shown.contains("REDACTED"), "{shown}");
        let passed = call_result(&output, true).to_string();
        assert!(passed.contains("sk-proj-AbCd"), "{passed}");
    }

    #[test]
    fn a_message_is_its_text_masked() {
        let content = json!([{"type": "text", "text": "hello"}, {"type": "image", "data": "x"},
            {"type": "text", "text": "pw postgres://u:hunter2@db/x"}]);
        let text = message_text(&content).unwrap();
        assert!(text.starts_with("hello\n\n"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
        assert_eq!(message_text(&json!([{"type": "image"}])), None);
    }
}
