//! What the status float in the chat page shows. The core decides every word; the content
//! script only draws it (as text, never HTML). Everything here has passed the masker.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FloatStatus {
    #[default]
    Ready,
    /// A detected call waits for the user's go (policy "ask" or auto-execute off).
    Confirm,
    Executing,
    Success,
    Error,
    /// The bridge is not reachable.
    Unreachable,
    /// A call waits for the user's setup (bridge not running, token missing or wrong).
    Held,
    /// The extension is off on this site, or the site config is broken.
    Disabled,
}

/// The error part of the float ("错误详情" in the original MCP Bridge).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatError {
    pub error_type: String,
    pub message: String,
    pub category: String,
    /// The last N stack lines.
    pub stack: Vec<String>,
    pub trace_id: Option<String>,
    pub retryable: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatState {
    pub status: FloatStatus,
    /// One line, e.g. "❌ 工具 get_time 执行失败".
    pub title: String,
    /// A second line of explanation (how to start the bridge, why a site is off …).
    pub detail: Option<String>,
    pub tool: Option<String>,
    /// `Date.now()` when execution started, for the elapsed-time display.
    pub started_at_ms: Option<f64>,
    pub error: Option<FloatError>,
    /// The last report typed (or to be typed) into the chat, for "copy".
    pub report: Option<String>,
    /// UI language for the float's own labels: "zh" or "en".
    pub lang: String,
    /// A prompt that offers to keep the choice (Allow once, Always allow, Deny) rather than
    /// Run and Skip.
    pub remember: bool,
}

use crate::domain::field_error::FieldError;
use crate::domain::i18n::fill;
use crate::domain::policy::AskReason;
use crate::domain::report::{FloatView, Lang};
use crate::domain::toolcall::ToolCall;

fn base(status: FloatStatus, title: String, lang: Lang) -> FloatState {
    FloatState {
        status,
        title,
        lang: match lang {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
        .into(),
        ..Default::default()
    }
}

/// The connection is not ready (`domain::status`): what is wrong, and how to connect.
pub fn status(lang: Lang, title: &str, detail: Option<String>) -> FloatState {
    let mut s = base(FloatStatus::Unreachable, title.to_string(), lang);
    s.detail = detail.map(|d| crate::domain::redact::redact_owned(&d));
    s
}

/// The float of a page where the extension is active and idle.
pub fn ready(lang: Lang, site_name: &str) -> FloatState {
    base(
        FloatStatus::Ready,
        fill(lang.says().float_ready, &[("site", site_name)]),
        lang,
    )
}

/// The extension is off here: the user turned it off, or the site config is broken.
pub fn disabled(lang: Lang, why: &str) -> FloatState {
    let mut s = base(
        FloatStatus::Disabled,
        lang.says().float_disabled.to_string(),
        lang,
    );
    s.detail = Some(crate::domain::redact::redact_owned(why));
    s
}

pub fn executing(lang: Lang, tool: &str, started_at_ms: f64) -> FloatState {
    let mut s = base(
        FloatStatus::Executing,
        fill(lang.says().float_running, &[("tool", tool)]),
        lang,
    );
    s.tool = Some(tool.to_string());
    s.started_at_ms = Some(started_at_ms);
    s
}

/// Arguments shown in a prompt: at most this many characters.
const PROMPT_ARGS_CHARS: usize = 600;

/// A detected call waits for the user: the server, the tool, its arguments (masked and
/// shortened), and `why` it was not run by itself.
pub fn confirm(lang: Lang, call: &ToolCall, why: &str) -> FloatState {
    let says = lang.says();
    let tool = call.tool_name.as_str();
    let title = match &call.server_name {
        Some(server) => fill(says.float_confirm_on, &[("tool", tool), ("server", server)]),
        None => fill(says.float_confirm, &[("tool", tool)]),
    };
    let mut s = base(FloatStatus::Confirm, title, lang);
    s.tool = Some(tool.to_string());
    let args = serde_json::to_string(&call.arguments).unwrap_or_default();
    let args = crate::domain::outcome::cut_chars(&args, PROMPT_ARGS_CHARS);
    s.detail = Some(crate::domain::redact::redact_owned(&format!(
        "{why}\n{args}"
    )));
    s
}

/// A call that waits for the bridge: `why` says what is wrong and how to fix it.
pub fn held(lang: Lang, tool: &str, why: &str) -> FloatState {
    let mut s = base(
        FloatStatus::Held,
        fill(lang.says().float_held, &[("tool", tool)]),
        lang,
    );
    s.tool = Some(tool.to_string());
    s.detail = Some(crate::domain::redact::redact_owned(why));
    s
}

/// Why a call waits: the user's "ask" policy, auto-execute off, the round cap, or settings
/// that could not be read.
pub fn confirm_reason(lang: Lang, reason: ConfirmReason, cap: u32) -> String {
    let says = lang.says();
    match reason {
        ConfirmReason::Policy => says.confirm_policy.into(),
        ConfirmReason::Manual => says.confirm_manual.into(),
        ConfirmReason::FirstUse => says.confirm_first_use.into(),
        ConfirmReason::RoundCap => fill(says.confirm_round_cap, &[("cap", &cap.to_string())]),
        ConfirmReason::Ambiguous(servers) => {
            let first = servers.first().map(String::as_str).unwrap_or_default();
            let all = servers.join(", ");
            fill(
                says.confirm_ambiguous,
                &[("servers", &all), ("first", first)],
            )
        }
        ConfirmReason::Unreadable(why) => fill(says.confirm_unreadable, &[("why", &why.say(lang))]),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmReason {
    Policy,
    /// Nothing set for a tool that may change things.
    FirstUse,
    Manual,
    RoundCap,
    /// Why the stored settings could not be used ([`crate::domain::settings::Settings::unreadable`]).
    Unreadable(FieldError),
    /// The servers that offer the tool; the call runs on the first.
    Ambiguous(Vec<String>),
}

impl From<AskReason> for ConfirmReason {
    fn from(r: AskReason) -> Self {
        match r {
            AskReason::Policy => ConfirmReason::Policy,
            AskReason::FirstUse => ConfirmReason::FirstUse,
            AskReason::Manual => ConfirmReason::Manual,
            AskReason::Unreadable(why) => ConfirmReason::Unreadable(why),
            AskReason::Ambiguous(servers) => ConfirmReason::Ambiguous(servers),
        }
    }
}

/// The float after a call: the report's structured view, plus what happened to the text.
/// `delivery_problem` is set when the report could not be typed or sent.
pub fn finished(
    lang: Lang,
    view: &FloatView,
    report: &str,
    unreachable: bool,
    delivery_problem: Option<String>,
) -> FloatState {
    let failed = view.error_type.is_some();
    let status = match (unreachable, failed) {
        (true, _) => FloatStatus::Unreachable,
        (false, true) => FloatStatus::Error,
        (false, false) => FloatStatus::Success,
    };
    let mut s = base(status, view.title.to_string(), lang);
    if failed {
        s.error = Some(FloatError {
            error_type: view
                .error_type
                .as_ref()
                .map(|m| m.to_string())
                .unwrap_or_default(),
            message: view.message.to_string(),
            category: view
                .category
                .map(|c| c.as_str().to_string())
                .unwrap_or_default(),
            stack: view.stack.iter().map(|m| m.to_string()).collect(),
            trace_id: view.trace_id.as_ref().map(|m| m.to_string()),
            retryable: view.retryable.unwrap_or(false),
        });
    }
    if let Some(progress) = &view.progress {
        s.detail = Some(progress.to_string());
    }
    if unreachable {
        s.detail = Some(lang.says().float_not_running.to_string());
    }
    if let Some(p) = delivery_problem {
        let why = crate::domain::redact::redact_owned(&p);
        s.detail = Some(fill(lang.says().float_not_delivered, &[("why", &why)]));
    }
    s.report = Some(report.to_string());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_held_back_by_unusable_settings_says_why_masked() {
        let why =
            "token: contains sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".to_string();
        for lang in [Lang::En, Lang::Zh] {
            let text = confirm_reason(
                lang,
                ConfirmReason::Unreadable(FieldError::new(
                    "token",
                    crate::domain::field_error::Invalid::Quoted(why.clone()),
                )),
                10,
            );
            assert!(text.contains("token: contains sk-ant-"), "{text}");
            let call = ToolCall {
                tool_name: "echo".into(),
                arguments: json!({"text": "hi"}),
                server_name: None,
            };
            let f = confirm(lang, &call, &text);
            let detail = f.detail.unwrap();
            assert!(!detail.contains("AAAAAAAAAAAAAAAA"), "{detail}");
            assert!(detail.ends_with("\n{\"text\":\"hi\"}"), "{detail}");
        }
        let en = confirm_reason(
            Lang::En,
            ConfirmReason::Unreadable(FieldError::new(
                "token",
                crate::domain::field_error::Invalid::Quoted(why),
            )),
            10,
        );
        assert!(en.contains("options page"), "{en}");
    }
}
