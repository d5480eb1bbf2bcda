//! What the status float in the chat page shows: the one view of the float, built here for
//! pages and calls and by [`crate::domain::report`] for a call's outcome. The core decides
//! every word; the content script only draws it (as text, never HTML). Every text field is
//! [`Masked`], so nothing here skipped the masker.

use serde::{Deserialize, Serialize};

use crate::domain::call_activity::Activity;
pub use crate::domain::call_activity::{FloatProgress, FloatQuestion};
use crate::domain::field_error::FieldError;
pub use crate::domain::i18n::Lang;
use crate::domain::i18n::fill;
use crate::domain::policy::AskReason;
use crate::domain::redact::Masked;
use crate::domain::toolcall::ToolCall;

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
    pub error_type: Masked,
    pub message: Masked,
    /// [`crate::domain::classify::Category`] as its wire name.
    pub category: String,
    /// The last N stack lines.
    pub stack: Vec<Masked>,
    pub trace_id: Option<Masked>,
    pub retryable: bool,
    /// The advice the report gives the AI, for the user too.
    pub recommendations: Vec<Masked>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatState {
    pub status: FloatStatus,
    /// One line, e.g. "❌ 工具 get_time 执行失败".
    pub title: Masked,
    /// A second line of explanation (how to start the bridge, why a site is off, how far
    /// the AI has read a large result …).
    pub detail: Option<Masked>,
    pub tool: Option<String>,
    /// `Date.now()` when execution started, for the elapsed-time display.
    pub started_at_ms: Option<f64>,
    pub error: Option<FloatError>,
    /// The last report typed (or to be typed) into the chat, for "copy".
    pub report: Option<Masked>,
    /// UI language for the float's own labels: "zh" or "en".
    pub lang: String,
    /// A prompt that offers to keep the choice (Allow once, Always allow, Deny) rather than
    /// Run and Skip.
    pub remember: bool,
    /// How many secret-looking values were masked in the result shown (by the bridge and the
    /// core together).
    #[serde(skip_serializing_if = "is_zero")]
    pub masked: u32,
    /// The line that tells the user so, in their language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masked_note: Option<Masked>,
    /// The images and sounds the tool returned, for the float to show, save and attach.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<FloatMedia>,
    /// A running call's progress, as its server reports it (drawn, never read back).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub progress: Option<FloatProgress>,
    /// The `resource_link`s of the result, each offered for attaching to the chat.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<FloatLink>,
    /// The servers' tools changed since this tab's AI got its instructions (with the button
    /// that inserts them again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools_changed: Option<Masked>,
    /// The question the running call's server asks the user (never shown to the AI; drawn,
    /// never read back).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub question: Option<FloatQuestion>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// An image or a sound from a tool's result, as the bridge sent it (base64). Not text: it
/// never reaches the chat as text and is not masked; it lives only in the float command
/// (floats are never stored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatMedia {
    pub mime_type: String,
    pub data: String,
}

/// A `resource_link` of a tool's result, for the float to offer: *Attach* reads it from the
/// server that returned it, as the Prompts menu's resources are
/// ([`crate::domain::prompts_menu::links`] finds them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatLink {
    pub server: String,
    pub uri: String,
    pub label: Masked,
}

/// At most this much base64 over all of a float's media: a tab message stays small, and
/// what does not fit is still named in the report (and so in "copy").
const MEDIA_CAP: usize = 8 << 20;

/// The media the float may show: raster images and audio whose type is a plain
/// `type/subtype` and whose data is base64, in order, within [`MEDIA_CAP`]. SVG is left out
/// (a document that can hold scripts), as is anything else a page could misread.
pub fn media<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<FloatMedia> {
    let mut left = MEDIA_CAP;
    let mut out = Vec::new();
    for (mime, data) in items {
        let mime = mime.trim().to_ascii_lowercase();
        let plain = |part: &str| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        };
        let typed = match mime.split_once('/') {
            Some((kind, sub)) => ["image", "audio"].contains(&kind) && plain(sub),
            None => false,
        };
        let base64 = !data.is_empty()
            && data
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
        if typed && base64 && mime != "image/svg+xml" && data.len() <= left {
            left -= data.len();
            out.push(FloatMedia {
                mime_type: mime,
                data: data.to_string(),
            });
        }
    }
    out
}

/// A float with a status and a title (masked here) in `lang`.
pub fn new(status: FloatStatus, title: &str, lang: Lang) -> FloatState {
    FloatState {
        status,
        title: Masked::new(title),
        lang: match lang {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
        .into(),
        ..Default::default()
    }
}

fn base(status: FloatStatus, title: String, lang: Lang) -> FloatState {
    new(status, &title, lang)
}

/// The connection is not ready (`domain::status`): what is wrong, and how to connect.
pub fn status(lang: Lang, title: &str, detail: Option<String>) -> FloatState {
    let mut s = base(FloatStatus::Unreachable, title.to_string(), lang);
    s.detail = detail.map(|d| Masked::new(&d));
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
    s.detail = Some(Masked::new(why));
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

/// A running call with its server's progress and question, if any.
pub fn running(
    lang: Lang,
    tool: &str,
    started_at_ms: f64,
    activity: Option<&Activity>,
) -> FloatState {
    let mut s = executing(lang, tool, started_at_ms);
    if let Some(activity) = activity {
        s.progress = activity
            .progress
            .as_ref()
            .map(|p| crate::domain::call_activity::float_progress(p, lang));
        s.question = activity
            .question
            .as_ref()
            .map(|q| crate::domain::call_activity::float_question(q, lang));
    }
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
    s.detail = Some(Masked::new(&format!("{why}\n{args}")));
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
    s.detail = Some(Masked::new(why));
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

/// The float after a call: the report's own view (`outcome`), the report text itself for
/// "copy", and what happened to it. `delivery_problem` is set when the report could not be
/// typed or sent; `unreachable` when the bridge did not answer.
pub fn finished(
    lang: Lang,
    outcome: FloatState,
    report: &Masked,
    unreachable: bool,
    delivery_problem: Option<String>,
) -> FloatState {
    let mut s = outcome;
    if unreachable {
        s.status = FloatStatus::Unreachable;
        s.detail = Some(Masked::new(lang.says().float_not_running));
    }
    if let Some(p) = delivery_problem {
        let why = crate::domain::redact::redact_owned(&p);
        s.detail = Some(Masked::new(&fill(
            lang.says().float_not_delivered,
            &[("why", &why)],
        )));
    }
    s.report = Some(report.clone());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_float_gets_raster_images_and_audio_in_base64_only() {
        let got = media(
            [
                ("image/png", "iVBORw0KGgo="),
                ("Image/JPEG", "/9j/4AAQ"),
                ("audio/wav", "UklGRg=="),
                ("image/svg+xml", "PHN2Zz4="),
                ("text/html", "PGI+"),
                ("image/png\"><script>", "AAAA"),
                ("image/png", "not base64!"),
                ("image/gif", ""),
            ]
            .into_iter(),
        );
        let kept: Vec<&str> = got.iter().map(|m| m.mime_type.as_str()).collect();
        assert_eq!(kept, ["image/png", "image/jpeg", "audio/wav"]);
        assert_eq!(got[0].data, "iVBORw0KGgo=");
        let big = "A".repeat(MEDIA_CAP - 4);
        let got = media(
            [
                ("image/png", big.as_str()),
                ("image/png", "AAAAAAAA"),
                ("image/png", "AAAA"),
            ]
            .into_iter(),
        );
        assert_eq!(got.len(), 2, "the second is over the cap, the third fits");
    }

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
            let detail = f.detail.unwrap().into_string();
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
