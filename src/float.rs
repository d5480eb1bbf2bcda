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
