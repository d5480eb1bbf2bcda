//! The answer to the `list_tools_in_service` pseudo-tool: one service's tools with their
//! first line and parameters, from the bridge's `GET /tools?serverName=…`.

use serde_json::Value;

use super::{Rendered, ReportOptions, fit, mask_prefix, render, wrap};
use crate::domain::bridge_api::{self, Tool, params};
use crate::domain::float::FloatStatus;
use crate::domain::i18n::{Lang, fill};
use crate::domain::outcome::{CallOutcome, cut_chars, from_http};
use crate::domain::redact::Masked;

/// The answer to `list_tools_in_service {"service_name": S}` from the HTTP answer of
/// `GET /tools?serverName=S`. A failed request becomes a failure report for the
/// pseudo-tool `list_tools_in_service`.
pub fn render_tool_list(
    service: &str,
    status: u16,
    trace_id_header: Option<&str>,
    body: &[u8],
    opts: &ReportOptions,
) -> Rendered {
    tool_list(service, status, trace_id_header, body, opts)
        .unwrap_or_else(|outcome| render(TOOL_LIST, &tool_list_args(service), &outcome, opts))
}

/// The pseudo-tool that lists one service's tools.
pub const TOOL_LIST: &str = "list_tools_in_service";

/// The arguments of [`TOOL_LIST`] for `service`, as its failure report names them.
pub fn tool_list_args(service: &str) -> Value {
    let mut arguments = serde_json::Map::new();
    arguments.insert("service_name".to_string(), Value::from(service));
    Value::Object(arguments)
}

/// [`render_tool_list`] for a list the bridge gave; the failure's outcome otherwise, for
/// the chat loop to report.
pub fn tool_list(
    service: &str,
    status: u16,
    trace_id_header: Option<&str>,
    body: &[u8],
    opts: &ReportOptions,
) -> Result<Rendered, Box<CallOutcome>> {
    let json: Option<Value> = crate::domain::outcome::json_body(body);
    let tools = json
        .as_ref()
        .filter(|_| (200..300).contains(&status))
        .filter(|j| j.get("success").and_then(Value::as_bool) != Some(false))
        .and_then(|j| j.get("tools"));
    let Some(tools) = tools else {
        let outcome = match from_http(status, trace_id_header, body) {
            // A 2xx without a tool list is an unexpected shape, not a success.
            CallOutcome::Success { .. } | CallOutcome::ToolError { .. } => CallOutcome::BadShape {
                status,
                snippet: cut_chars(&String::from_utf8_lossy(body), 300),
                trace_id: trace_id_header.map(String::from),
            },
            o => o,
        };
        return Err(Box::new(outcome));
    };
    let lang = opts.lang;
    let l = lang.says();
    let name = tools
        .get("service_name")
        .and_then(Value::as_str)
        .unwrap_or(service);
    let title = fill(l.tools_title, &[("service", name)]);
    let mut s = title.clone();
    s.push('\n');
    if let Some(desc) = tools
        .get("service_description")
        .and_then(Value::as_str)
        .filter(|d| !d.trim().is_empty())
    {
        s.push_str(&format!(
            "\n{}: {}\n",
            l.tools_description,
            first_line(desc, 300)
        ));
    }
    s.push('\n');
    let list = json
        .as_ref()
        .and_then(bridge_api::tools)
        .unwrap_or_default();
    if list.is_empty() {
        s.push_str(l.no_tools);
        s.push('\n');
    }
    for tool in &list {
        s.push_str(&tool_line(tool, lang));
    }
    let closing = format!("\n{}", fill(l.tools_closing, &[("service", name)]));
    let avail = opts.cap().saturating_sub(wrap(&closing).len());
    let listing = fit(mask_prefix(&s, avail), avail, l.cut_marker);
    let chat = wrap(&format!("{listing}{closing}"));
    let shown = title.trim_start_matches("# ").replace('`', "");
    let mut float = crate::domain::float::new(FloatStatus::Success, &shown, lang);
    let count = fill(
        opts.ui.says().tool_count,
        &[("count", &list.len().to_string())],
    );
    float.detail = Some(Masked::new(&count));
    Ok(Rendered {
        chat_text: Masked::new(&chat),
        float,
        record: None,
    })
}

fn first_line(s: &str, n: usize) -> String {
    cut_chars(s.trim().lines().next().unwrap_or("").trim(), n)
}

/// ``- `name`: description`` and a parameters line.
fn tool_line(tool: &Tool, lang: Lang) -> String {
    let name = if tool.name.is_empty() {
        "?"
    } else {
        &tool.name
    };
    let desc = first_line(&tool.description, 200);
    let mut s = if desc.is_empty() {
        format!("- `{name}`\n")
    } else {
        format!("- `{name}`: {desc}\n")
    };
    s.push_str(&format!(
        "  {}: {}\n",
        lang.says().params_label,
        params_text(&tool.schema, lang)
    ));
    s
}

/// A schema's parameters on one line: ``date`` (string, required): what it is; …
pub(super) fn params_text(schema: &Value, lang: Lang) -> String {
    let params: Vec<String> = params(schema)
        .into_iter()
        .map(|p| {
            let mut kind = p.kind;
            if p.required {
                kind = format!("{kind}, {}", lang.says().required_mark);
            }
            let d = first_line(&p.description, 120);
            if d.is_empty() {
                format!("`{}` ({kind})", p.name)
            } else {
                format!("`{}` ({kind}): {d}", p.name)
            }
        })
        .collect();
    if params.is_empty() {
        lang.says().no_params.to_string()
    } else {
        params.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::report::tests::{en, zh};
    use serde_json::json;

    #[test]
    fn tool_list() {
        let body = json!({"success": true, "tools": {"service_name": "time", "service_description": "Time tools\nmore", "tools": [
            {"name": "get_current_time", "description": "Get current time.\nLong text", "parameters": {"type": "object",
              "properties": {"timezone": {"type": "string", "description": "IANA name"}, "fmt": {"enum": ["a", "b"]}, "n": {"type": "array", "items": {"type": "integer"}}},
              "required": ["timezone"]}},
            {"name": "ping", "parameters": {"type": "object", "properties": {}}}]}});
        let r = render_tool_list("time", 200, None, body.to_string().as_bytes(), &en());
        let t = r.chat_text.as_str();
        assert!(t.contains("- `get_current_time`: Get current time.\n  parameters: `timezone` (string, required): IANA name; `fmt` (\"a\"|\"b\"); `n` (array<integer>)\n"), "{t}");
        assert!(t.contains("- `ping`\n  parameters: no parameters\n"));
        let r = render_tool_list(
            "nope",
            404,
            None,
            r#"{"detail":"服务 nope 不存在或未成功加载"}"#.as_bytes(),
            &zh(),
        );
        assert_eq!(r.float.error.unwrap().category, "unavailable");
    }
}
