//! Turns an outcome into what the user and the AI see (docs/ARCHITECTURE.md, "Reports"): the text
//! typed into the chat, the status float's structured view, and the unmasked record for
//! the options page's error log.
//!
//! Masking is enforced by types: chat text and every text field of the float
//! ([`FloatState`]) are [`Masked`], which can only be made by passing text through
//! [`crate::domain::redact`]. There is no way to build a `Rendered` whose page-bound text
//! skipped the masker.

mod success;
pub mod text;
mod tool_list;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::classify::{Category, Diagnosis, Said, diagnose};
use crate::domain::float::{FloatError, FloatState, FloatStatus};
pub use crate::domain::i18n::Lang;
use crate::domain::i18n::fill;
use crate::domain::outcome::{CallOutcome, cut_chars};
pub use crate::domain::redact::Masked;
use crate::domain::redact::redact;
use crate::domain::toolcall::MalformedCall;

use success::render_success;
pub use success::{result_text, size};
use tool_list::params_text;
pub use tool_list::{TOOL_LIST, render_tool_list, tool_list, tool_list_args};

/// Report settings (from the options page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReportOptions {
    pub lang: Lang,
    /// The interface language: the float's own lines (how far a large result was read, how
    /// many tools a list holds) are for the user.
    pub ui: Lang,
    /// At most this many non-empty traceback lines (the last ones). Default 10.
    pub max_stack_lines: usize,
    /// Upper bound of the chat text in bytes, markers included. Default 8192; values
    /// below 1024 are raised to 1024.
    pub max_len: usize,
    /// The bridge's address, as the reports name it (`http://127.0.0.1:3849`).
    pub bridge_url: String,
    /// The user lets this tool's results through as the tool gave them: a successful
    /// result's text is not masked (errors still are).
    pub unmasked: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            lang: Lang::Zh,
            ui: Lang::Zh,
            max_stack_lines: 10,
            max_len: 8192,
            bridge_url: crate::domain::settings::DEFAULT_BRIDGE_URL.into(),
            unmasked: false,
        }
    }
}

impl ReportOptions {
    fn cap(&self) -> usize {
        self.max_len.max(1024)
    }

    fn address(&self) -> text::Address<'_> {
        text::Address {
            url: &self.bridge_url,
        }
    }
}

/// The unmasked original of a failure, kept only inside the extension (options page
/// error log, background console).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorRecord {
    pub tool: String,
    pub server: Option<String>,
    pub arguments: Value,
    pub error_type: String,
    pub message: String,
    /// The full traceback as received.
    pub traceback: Option<String>,
    pub trace_id: Option<String>,
    pub category: Category,
    pub retryable: bool,
    pub status: Option<u16>,
    pub code: Option<i64>,
}

/// Everything produced for one outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rendered {
    /// Typed into the chat input; wrapped in `<tool_result>`.
    pub chat_text: Masked,
    /// What the float shows (its status, title and error part; the chat loop adds the
    /// report and what happened to it).
    pub float: FloatState,
    /// Present for failures.
    pub record: Option<ErrorRecord>,
}

/// Longest line of a stack or list kept, in characters.
const LINE_CAP: usize = 400;
/// Extra bytes masked past a cut so that a secret crossing the cut is still masked.
const MASK_SLACK: usize = 4096;

/// The single entry point for a tool call's outcome.
pub fn render(
    call_tool: &str,
    args: &Value,
    outcome: &CallOutcome,
    opts: &ReportOptions,
) -> Rendered {
    render_unless_failed(call_tool, outcome, opts).unwrap_or_else(|| {
        // `diagnose` only returns `None` for a success or a denial.
        let d = diagnose(call_tool, outcome).unwrap_or_else(fallback_diagnosis);
        render_failure(call_tool, args, d, opts)
    })
}

/// A success or a denial, rendered; `None` for a failure.
fn render_unless_failed(
    call_tool: &str,
    outcome: &CallOutcome,
    opts: &ReportOptions,
) -> Option<Rendered> {
    match outcome {
        CallOutcome::Success {
            result,
            trace_id: _,
            page,
            masked,
        } => Some(render_success(
            call_tool,
            result,
            page.as_ref(),
            *masked,
            opts,
        )),
        CallOutcome::Denied => Some(render_denied(call_tool, opts.lang)),
        _ => None,
    }
}

fn fallback_diagnosis() -> Diagnosis {
    Diagnosis {
        category: Category::Exception,
        retryable: true,
        error_type: "Unknown".into(),
        message: Said::Quoted("unknown outcome".into()),
        traceback: None,
        code: None,
        status: None,
        trace_id: None,
        server: None,
        schema: None,
        advice: Vec::new(),
    }
}

fn wrap(body: &str) -> String {
    format!("<tool_result>\n{body}\n</tool_result>")
}

/// Masks a prefix of `s` large enough to fill `keep` bytes after masking; the flag says
/// whether `s` went on past the masked window.
fn mask_prefix(s: &str, keep: usize) -> (String, bool) {
    mask_prefix_counted(s, keep).0
}

/// [`mask_prefix`], and how many secrets it masked.
fn mask_prefix_counted(s: &str, keep: usize) -> ((String, bool), usize) {
    let window = s.floor_char_boundary(keep.saturating_add(MASK_SLACK));
    let masked = crate::domain::redact::redact_counted(&s[..window]);
    ((masked.text.into_owned(), window < s.len()), masked.count)
}

/// Cuts already-masked text to at most `budget` bytes including `marker`.
fn fit((body, more): (String, bool), budget: usize, marker: &str) -> String {
    if body.len() <= budget && !more {
        return body;
    }
    if body.len() + marker.len() <= budget {
        return format!("{body}{marker}");
    }
    let keep = body.floor_char_boundary(budget.saturating_sub(marker.len()));
    format!("{}{marker}", &body[..keep])
}

/// The last `n` non-empty lines of a traceback, masked, each at most [`LINE_CAP`]
/// characters. Works on the tail only, so a 10 MB traceback costs microseconds.
pub fn stack_tail(tb: &str, n: usize) -> Vec<String> {
    if n == 0 || tb.is_empty() {
        return Vec::new();
    }
    // Start of the n-th non-empty line from the end.
    let mut start = tb.len();
    let mut count = 0;
    let mut end = tb.len();
    while end > 0 && count < n {
        let ls = tb[..end].rfind('\n').map(|p| p + 1).unwrap_or(0);
        if !tb[ls..end].trim().is_empty() {
            count += 1;
            start = ls;
        }
        end = ls.saturating_sub(1);
        if ls == 0 {
            break;
        }
    }
    // Mask with up to 64 KB of context before, from a line start, so that a multi-line
    // secret (a PEM key) that began earlier is still recognised.
    let mut ctx = start.saturating_sub(64 * 1024);
    if ctx > 0 {
        ctx = match tb.as_bytes()[ctx..start].iter().position(|&c| c == b'\n') {
            Some(p) => ctx + p + 1,
            None => start,
        };
    }
    let region = &tb[ctx..];
    // Very long lines: only their starts matter (the line is cut anyway).
    let shortened;
    let region = if region.len() > 256 * 1024 {
        shortened = region
            .split('\n')
            .map(|l| &l[..l.floor_char_boundary(LINE_CAP * 4 + MASK_SLACK)])
            .collect::<Vec<_>>()
            .join("\n");
        shortened.as_str()
    } else {
        region
    };
    let masked = redact(region);
    let mut lines: Vec<String> = masked
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .map(|l| cut_chars(l.trim_end(), LINE_CAP))
        .collect();
    lines.reverse();
    lines
}

fn render_failure(tool: &str, args: &Value, d: Diagnosis, opts: &ReportOptions) -> Rendered {
    let lang = opts.lang;
    let l = lang.says();
    let bridge = opts.address();
    let tool_m = Masked::new(&cut_chars(tool, 200));
    let type_m = Masked::new(&cut_chars(&d.error_type, 120));
    let advice: Vec<Masked> = d
        .advice
        .iter()
        .map(|a| Masked::new(&text::advice(a, lang, bridge)))
        .collect();
    let mut said = text::said(&d.message, lang, bridge);
    if let Some(schema) = &d.schema {
        said = format!("{said}\n{}: {}", l.params_label, params_text(schema, lang));
    }
    let stack = d
        .traceback
        .as_deref()
        .map(|tb| stack_tail(tb, opts.max_stack_lines))
        .unwrap_or_default();

    let heading = fill(l.report_failure_title, &[("tool", tool_m.as_str())]);
    let head = format!("{heading}\n{}: [{}] ", l.label_error, type_m);
    let cat = format!(
        "\n{}: {}\n",
        l.label_category,
        text::category_label(d.category, lang)
    );
    let mut tail = String::new();
    if !advice.is_empty() {
        tail.push('\n');
        tail.push_str(l.label_advice);
        tail.push('\n');
        for a in &advice {
            tail.push_str("- ");
            tail.push_str(a.as_str());
            tail.push('\n');
        }
    }
    tail.push('\n');
    tail.push_str(l.failure_closing);
    let fixed = wrap(&format!("{head}{cat}{tail}")).len();
    let mut avail = opts.cap().saturating_sub(fixed);

    // The message comes first; the stack gets what is left.
    let message = fit(mask_prefix(&said, avail), avail, l.cut_marker);
    avail = avail.saturating_sub(message.len());
    let stack_text = stack_section(&stack, avail, l.label_stack, l.cut_marker);

    let chat = wrap(&format!("{head}{message}{cat}{stack_text}{tail}"));
    let title = fill(l.float_failure_title, &[("tool", tool_m.as_str())]);
    let mut float = crate::domain::float::new(FloatStatus::Error, &title, lang);
    float.error = Some(FloatError {
        error_type: type_m,
        message: Masked::new(&fit(mask_prefix(&said, 4000), 4000, l.cut_marker)),
        category: d.category.as_str().into(),
        stack: stack.iter().map(|s| Masked::new(s)).collect(),
        trace_id: d.trace_id.as_deref().map(Masked::new),
        retryable: d.retryable,
        recommendations: advice,
    });
    let record = ErrorRecord {
        tool: tool.to_string(),
        server: d.server,
        arguments: args.clone(),
        error_type: d.error_type,
        message: said,
        traceback: d.traceback,
        trace_id: d.trace_id,
        category: d.category,
        retryable: d.retryable,
        status: d.status,
        code: d.code,
    };
    Rendered {
        chat_text: Masked::new(&chat),
        float,
        record: Some(record),
    }
}

/// The user does not allow the tool: not a failure of the tool, so no category, no advice
/// to correct the arguments, no error record; the AI is told the user declined and not to
/// call it again.
fn render_denied(tool: &str, lang: Lang) -> Rendered {
    let l = lang.says();
    let tool_m = Masked::new(&cut_chars(tool, 200));
    let note = fill(l.note_tool_denied, &[("tool", tool_m.as_str())]);
    let heading = fill(l.report_denied_title, &[("tool", tool_m.as_str())]);
    let chat = wrap(&format!("{heading}\n{note}"));
    let title = fill(l.float_denied_title, &[("tool", tool_m.as_str())]);
    let mut float = crate::domain::float::new(FloatStatus::Denied, &title, lang);
    float.tool = Some(tool.to_string());
    Rendered {
        chat_text: Masked::new(&chat),
        float,
        record: None,
    }
}

/// `\n调用堆栈:\nline…\n` holding as many of the last lines as fit in `avail` bytes.
fn stack_section(lines: &[String], avail: usize, label: &str, cut: &str) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let header = format!("\n{label}\n");
    let mut used = header.len();
    let mut from = lines.len();
    while from > 0 && used + lines[from - 1].len() < avail {
        used += lines[from - 1].len() + 1;
        from -= 1;
    }
    let dropped = from > 0;
    if dropped {
        // Room for the marker line.
        let marker_len = cut.len() + 3;
        while from < lines.len() && used + marker_len > avail {
            used -= lines[from].len() + 1;
            from += 1;
        }
        if used + marker_len > avail {
            return String::new();
        }
    }
    let mut s = header;
    if dropped {
        s.push_str("  ");
        s.push_str(cut);
        s.push('\n');
    }
    for line in &lines[from..] {
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// The report for a complete but malformed `<tool_code>` block.
pub fn render_malformed(m: &MalformedCall, opts: &ReportOptions) -> Rendered {
    let l = opts.lang.says();
    let raw = fit(mask_prefix(&m.raw, 1500), 1500, l.cut_marker);
    let error = Masked::new(&cut_chars(&m.error, 500));
    let body = fill(
        l.malformed_body,
        &[("error", error.as_str()), ("raw", &raw)],
    );
    let chat = wrap(&format!("{}\n{body}", l.report_malformed_title));
    let mut float =
        crate::domain::float::new(FloatStatus::Error, l.float_malformed_title, opts.lang);
    float.error = Some(FloatError {
        error_type: Masked::new("MalformedCall"),
        message: error,
        category: Category::Validation.as_str().into(),
        ..Default::default()
    });
    Rendered {
        chat_text: Masked::new(&chat),
        float,
        record: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::outcome::from_http;
    use serde_json::json;

    /// Report options in Chinese (the default) and in English, for the report modules' tests.
    pub(super) fn zh() -> ReportOptions {
        ReportOptions::default()
    }

    pub(super) fn en() -> ReportOptions {
        ReportOptions {
            lang: Lang::En,
            ..Default::default()
        }
    }

    const PYTHON_BRIDGE_VALUE_ERROR: &str = r#"{"detail":{"error":"Invalid date format: 2025-13-45","type":"ValueError","traceback":"Traceback (most recent call last):\n  File \"/path/to/mcp_server.py\", line 123, in get_tickets\n    date = parse_date(params['date'])\n  File \"/path/to/utils.py\", line 45, in parse_date\n    raise ValueError(f\"Invalid date format: {date_str}\")\nValueError: Invalid date format: 2025-13-45"}}"#;

    #[test]
    fn a_value_error_report_has_the_reference_shape() {
        let o = from_http(500, None, PYTHON_BRIDGE_VALUE_ERROR.as_bytes());
        let r = render(
            "get-interline-tickets",
            &json!({"date": "2025-13-45"}),
            &o,
            &zh(),
        );
        let t = r.chat_text.as_str();
        assert!(t.starts_with("<tool_result>\n# MCP Bridge · `get-interline-tickets` 执行失败\n**错误信息**: [ValueError] Invalid date format: 2025-13-45\n**错误类别**: validation（参数错误，修正参数后再调用）\n\n调用堆栈:\nTraceback (most recent call last):\n  File \"/path/to/mcp_server.py\", line 123, in get_tickets\n"), "{t}");
        assert!(t.ends_with("请分析错误原因。你可以尝试修正参数后重新调用该工具，或者选择其他工具，或者直接告诉用户无法完成任务。\n</tool_result>"));
        assert!(t.contains("\n建议:\n- "));
        let rec = r.record.unwrap();
        assert_eq!(rec.arguments, json!({"date": "2025-13-45"}));
        let error = r.float.error.unwrap();
        assert_eq!(error.stack.len(), 6);
        assert_eq!(error.category, "validation");
    }

    #[test]
    fn english_mirror() {
        let o = from_http(500, None, PYTHON_BRIDGE_VALUE_ERROR.as_bytes());
        let t = render("t", &json!({}), &o, &en()).chat_text.into_string();
        assert!(t.starts_with(
            "<tool_result>\n# MCP Bridge · `t` failed\n**Error**: [ValueError] Invalid date"
        ));
        assert!(t.contains("\n\nCall stack:\n"));
        assert!(t.contains("\nRecommendations:\n- "));
    }

    #[test]
    fn stack_is_last_lines_and_cap_holds() {
        let tb: String = (0..5000).map(|i| format!("line {i}\n\n")).collect();
        let s = stack_tail(&tb, 10);
        assert_eq!(s.first().map(String::as_str), Some("line 4990"));
        assert_eq!(s.len(), 10);
        let body = json!({"detail": {"error": "x".repeat(20000), "type": "RuntimeError", "traceback": tb}});
        let o = from_http(500, None, body.to_string().as_bytes());
        let r = render("t", &json!({}), &o, &zh());
        assert!(
            r.chat_text.as_str().len() <= 8192,
            "{}",
            r.chat_text.as_str().len()
        );
        assert!(r.chat_text.as_str().contains("…[内容过长，已截断]"));
        assert!(r.chat_text.as_str().ends_with("</tool_result>"));
    }

    #[test]
    fn secrets_masked_everywhere_but_the_record() {
        let body = json!({"detail": {"error": "auth failed for sk-abcdefghijklmnopqrstuvwxyz123456", "type": "RuntimeError",
            "traceback": "File \"/home/alice/x.py\"\nRuntimeError: password=hunter2"}});
        let o = from_http(500, None, body.to_string().as_bytes());
        let r = render("t", &json!({"k": 1}), &o, &en());
        let all = serde_json::to_string(&(&r.chat_text, &r.float)).unwrap();
        assert!(
            !all.contains("sk-abc") && !all.contains("hunter2") && !all.contains("alice"),
            "{all}"
        );
        assert!(r.record.unwrap().message.contains("sk-abc"));
    }

    #[test]
    fn malformed_report() {
        let m = MalformedCall {
            error: "missing `tool_name`".into(),
            raw: "{\"arguments\": {}}".into(),
        };
        let t = render_malformed(&m, &en()).chat_text.into_string();
        assert!(t.contains("**Error**: missing `tool_name`"));
        assert!(t.contains("<tool_code>\n{\"tool_name\": \"TOOL_NAME\""));
    }
}
