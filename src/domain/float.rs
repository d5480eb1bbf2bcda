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
    /// The extension is off on this site, or the site config is broken.
    Disabled,
}

/// The error part of the float (seed 000's "错误详情").
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
}

use crate::domain::policy::AskReason;
use crate::domain::report::{FloatView, Lang};

fn t(lang: Lang, zh: &str, en: &str) -> String {
    match lang {
        Lang::Zh => zh.to_string(),
        Lang::En => en.to_string(),
    }
}

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

/// The float of a page where the extension is active and idle.
pub fn ready(lang: Lang, site_name: &str) -> FloatState {
    base(
        FloatStatus::Ready,
        t(lang, "MCP Bridge 已就绪", "MCP Bridge is ready") + " · " + site_name,
        lang,
    )
}

/// The extension is off here: the user turned it off, or the site config is broken.
pub fn disabled(lang: Lang, why: &str) -> FloatState {
    let mut s = base(
        FloatStatus::Disabled,
        t(
            lang,
            "MCP Bridge 在此网站已停用",
            "MCP Bridge is off on this site",
        ),
        lang,
    );
    s.detail = Some(crate::domain::redact::redact_owned(why));
    s
}

pub fn executing(lang: Lang, tool: &str, started_at_ms: f64) -> FloatState {
    let mut s = base(
        FloatStatus::Executing,
        t(lang, "正在执行 ", "Running ") + tool,
        lang,
    );
    s.tool = Some(tool.to_string());
    s.started_at_ms = Some(started_at_ms);
    s
}

/// A detected call waits for the user: `why` says why it was not run by itself.
pub fn confirm(lang: Lang, tool: &str, arguments: &serde_json::Value, why: &str) -> FloatState {
    let mut s = base(
        FloatStatus::Confirm,
        t(lang, "是否运行工具 ", "Run tool ") + tool + "?",
        lang,
    );
    s.tool = Some(tool.to_string());
    let args = serde_json::to_string(arguments).unwrap_or_default();
    s.detail = Some(crate::domain::redact::redact_owned(&format!(
        "{why}\n{args}"
    )));
    s
}

/// Why a call waits: the user's "ask" policy, auto-execute off, the round cap, or settings
/// that could not be read.
pub fn confirm_reason(lang: Lang, reason: ConfirmReason, cap: u32) -> String {
    match reason {
        ConfirmReason::Policy => t(
            lang,
            "此工具设置为“运行前询问”。",
            "This tool is set to “ask before running”.",
        ),
        ConfirmReason::Manual => t(lang, "自动执行已关闭。", "Automatic execution is off."),
        ConfirmReason::RoundCap => match lang {
            Lang::Zh => format!("已连续自动执行 {cap} 轮而没有用户消息，已暂停以防循环。"),
            Lang::En => format!(
                "{cap} automatic rounds ran without a message from you; paused to stop a loop."
            ),
        },
        ConfirmReason::Ambiguous(servers) => {
            let first = servers.first().map(String::as_str).unwrap_or_default();
            let all = servers.join(", ");
            match lang {
                Lang::Zh => format!(
                    "多个服务（{all}）都提供此工具，调用没有指明 server_name；允许后将在 {first} 上运行。"
                ),
                Lang::En => format!(
                    "Several servers ({all}) offer this tool and the call does not name one; if you allow it, it runs on {first}."
                ),
            }
        }
        ConfirmReason::Unreadable(why) => match lang {
            Lang::Zh => {
                format!("无法使用已保存的设置（{why}）：在选项页修正前，工具不会自动运行。")
            }
            Lang::En => format!(
                "Your saved settings cannot be used ({why}): no tool runs by itself until you fix them in the options page."
            ),
        },
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmReason {
    Policy,
    Manual,
    RoundCap,
    /// Why the stored settings could not be used ([`crate::domain::settings::Settings::unreadable`]).
    Unreadable(String),
    /// The servers that offer the tool; the call runs on the first.
    Ambiguous(Vec<String>),
}

impl From<AskReason> for ConfirmReason {
    fn from(r: AskReason) -> Self {
        match r {
            AskReason::Policy => ConfirmReason::Policy,
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
    if unreachable {
        s.detail = Some(t(
            lang,
            "桥接服务未运行。请在终端启动：./build.sh run（或 mcp-bridge），然后点“重新检测”。",
            "The bridge is not running. Start it in a terminal: ./build.sh run (or mcp-bridge), then press Re-detect.",
        ));
    }
    if let Some(p) = delivery_problem {
        let prefix = t(
            lang,
            "结果未能自动填入聊天框，请点“复制报告”后手动粘贴：",
            "The result could not be put into the chat; press Copy report and paste it: ",
        );
        s.detail = Some(prefix + &crate::domain::redact::redact_owned(&p));
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
            let text = confirm_reason(lang, ConfirmReason::Unreadable(why.clone()), 10);
            assert!(text.contains("token: contains sk-ant-"), "{text}");
            let f = confirm(lang, "echo", &json!({"text": "hi"}), &text);
            let detail = f.detail.unwrap();
            assert!(!detail.contains("AAAAAAAAAAAAAAAA"), "{detail}");
            assert!(detail.ends_with("\n{\"text\":\"hi\"}"), "{detail}");
        }
        let en = confirm_reason(Lang::En, ConfirmReason::Unreadable(why), 10);
        assert!(en.contains("options page"), "{en}");
    }
}
