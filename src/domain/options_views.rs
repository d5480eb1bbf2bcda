//! What the options page shows, decided from the bridge client's answers: the connection
//! test's verdict in words with the field to point at (the verdict itself is
//! `domain::status`'s), the failure counters, services and tools with their policies, and
//! settings merged from the form. Pure, so every verdict is tested natively; the requests
//! themselves are `runtime::options`'. One module per part of the page; this file holds
//! what they share (the page's [`Problem`]) and names their items for the runtime.

pub mod answers;
mod connection;
mod history;
mod services;
mod settings_changes;
mod tools;

pub use crate::domain::i18n::Lang;
pub use connection::{
    ConnectionReport, ConnectionService, START_COMMAND, SavedConnection, authed_verdict,
    check_connection_input, connection_report, detail_line, header_detail, health_verdict,
    saved_connection, start_command,
};
pub use history::{CounterView, HistoryView, ResetView, history_view, reset_view};
pub use services::{ServiceView, services, status_text};
pub use settings_changes::{
    SettingsAnswer, merge_settings, set_exempt, set_policy, set_trusted, set_unmasked,
    settings_answer,
};
pub use tools::{
    PolicyChoice, ServiceToolsView, SiteChoice, ToolView, ToolsAnswer, read_resource_tool,
    service_tools, tool_view,
};

use crate::domain::i18n::{fill, labels::Labels};
use crate::domain::settings::FieldError;
use serde::Serialize;

/// Why the page cannot show what it asked for, and which form field to point at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// `not-running`, `wrong-token`, `not-a-bridge`, `refused`, `bad-answer`, `invalid`.
    pub kind: &'static str,
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn new(kind: &'static str, field: Option<&str>, message: String) -> Problem {
        Problem {
            kind,
            field: field.map(str::to_string),
            message,
        }
    }

    /// A form field that does not validate.
    pub fn invalid(e: FieldError, lang: Lang) -> Problem {
        Problem::new("invalid", Some(&e.field), e.problem.say(lang))
    }

    /// What the page shows: for a field, the label its form shows it under (`label`, a key
    /// of the page's labels, when it has one), the field's path, the reason and that nothing
    /// changed; otherwise the reason as it is.
    pub fn sentence(&self, lang: Lang, label: Option<&str>) -> String {
        let Some(field) = &self.field else {
            return self.message.clone();
        };
        let says = lang.says();
        match label {
            Some(key) => {
                let label = Labels::of(lang).say(key, &[]);
                let args = [
                    ("label", label.as_str()),
                    ("field", field),
                    ("why", &self.message),
                ];
                fill(says.field_problem, &args)
            }
            None => fill(
                says.field_problem_bare,
                &[("field", field), ("why", &self.message)],
            ),
        }
    }
}
