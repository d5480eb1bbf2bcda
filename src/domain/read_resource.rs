//! The `read_resource` pseudo-tool: the AI reads a server's resource by its URI. The core
//! answers it through the bridge's `POST /resources/read` and reports the contents as a tool
//! result of embedded resources (a large text paged like any large result). It follows the
//! policy of a tool of that name on the reading server (`server:read_resource`); a server's own
//! tool called `read_resource` is that tool, not this.

use serde::Serialize;
use serde_json::Value;

use crate::domain::bridge_api::Service;

/// The pseudo-tool's name.
pub const READ_RESOURCE: &str = "read_resource";

/// The URI the call asks for (`uri`), as the AI wrote it.
pub fn uri(arguments: &Value) -> Value {
    arguments.get("uri").cloned().unwrap_or(Value::Null)
}

/// The services that offer resources, in the bridge's order.
pub fn offering(services: &[Service]) -> Vec<String> {
    services
        .iter()
        .filter(|s| s.resource_count.is_some_and(|n| n > 0))
        .map(|s| s.name.clone())
        .collect()
}

/// The body of `POST /resources/read` as `/execute` would have answered it:
/// `{success, result: {content: [{type: "resource", resource}]}, page?}`. Anything else (an
/// error, a body that is no JSON) is left as it is.
pub fn as_tool_answer(body: &[u8]) -> Vec<u8> {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return body.to_vec();
    };
    let Some(contents) = value
        .get("contents")
        .and_then(Value::as_array)
        .filter(|_| value.get("success") == Some(&Value::Bool(true)))
    else {
        return body.to_vec();
    };
    let answer = AsToolAnswer {
        success: true,
        result: AsToolResult {
            content: contents
                .iter()
                .map(|resource| Embedded {
                    kind: "resource",
                    resource,
                })
                .collect(),
            is_error: false,
        },
        page: value.get("page"),
    };
    serde_json::to_vec(&answer).unwrap_or_else(|_| body.to_vec())
}

/// A read resource as `/execute`'s answer, so the chat reads it as it reads a result.
#[derive(Serialize)]
struct AsToolAnswer<'a> {
    success: bool,
    result: AsToolResult<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<&'a Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AsToolResult<'a> {
    content: Vec<Embedded<'a>>,
    is_error: bool,
}

/// MCP's embedded resource block.
#[derive(Serialize)]
struct Embedded<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    resource: &'a Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::outcome::{CallOutcome, Content, from_http};
    use serde_json::json;

    #[test]
    fn a_read_resource_becomes_a_tool_result_of_resources() {
        let body = json!({"success": true, "server": "s", "uri": "demo://a", "contents": [
            {"uri": "demo://a", "mimeType": "text/plain", "text": "hello"},
            {"uri": "demo://b", "mimeType": "image/png", "blob": "AAAA"}
        ]});
        let answer = as_tool_answer(body.to_string().as_bytes());
        let CallOutcome::Success { result, .. } = from_http(200, None, &answer) else {
            panic!("not a success: {}", String::from_utf8_lossy(&answer));
        };
        assert!(matches!(
            &result.content[0],
            Content::Resource { uri, text: Some(t), .. } if uri == "demo://a" && t == "hello"
        ));
        assert!(matches!(
            &result.content[1],
            Content::Resource { text: None, .. }
        ));
    }

    #[test]
    fn errors_and_pages_pass_through() {
        let error = br#"{"detail": {"error": "no", "type": "ServerNotFound"}}"#;
        assert_eq!(as_tool_answer(error), error.to_vec());
        assert_eq!(as_tool_answer(b"not json"), b"not json".to_vec());
        let paged = json!({"success": true, "contents": [{"uri": "u", "text": "page one"}],
                           "page": {"result_id": "r", "next_offset": 8}});
        let answer: Value =
            serde_json::from_slice(&as_tool_answer(paged.to_string().as_bytes())).unwrap();
        assert_eq!(answer["page"]["result_id"], "r");
    }

    #[test]
    fn the_uri_and_the_services_with_resources() {
        assert_eq!(uri(&json!({"uri": "demo://x"})), json!("demo://x"));
        assert_eq!(uri(&json!({})), Value::Null);
        let body = json!({"services": [{"name": "a", "resource_count": 2}, {"name": "b", "resource_count": 0}, {"name": "c"}]});
        let services = crate::domain::bridge_api::services(&body).unwrap();
        assert_eq!(offering(&services), ["a"]);
    }
}
