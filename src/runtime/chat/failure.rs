//! A call's report, and for a failed tool call the unmasked record the error log keeps.

use super::ChatLoop;
use crate::domain::float;
use crate::domain::outcome::CallOutcome;
use crate::domain::report::{self, Rendered, ReportOptions};
use crate::domain::sites::host_of;
use crate::runtime::host::{Host, Level};
use serde_json::Value;
use std::rc::Rc;

impl<H: Host> ChatLoop<H> {
    /// The report of `outcome` for `tool`. A failure's unmasked record goes to the console
    /// and, without the report waiting for it, into the error log under the site of the
    /// chat page at `log_for` when one is given (a tool call's, not what the chat loop asked
    /// for itself). Only the report's text is kept of a failure: its float is drawn from its
    /// status alone ([`float::finished`]).
    pub(super) async fn report(
        &self,
        tool: &str,
        args: &Value,
        outcome: &CallOutcome,
        opts: &ReportOptions,
        log_for: Option<&str>,
    ) -> Rendered {
        let rendered = report::render(tool, args, outcome, opts);
        let Some(record) = rendered.record else {
            return rendered;
        };
        if let Some(site) = log_for.map(host_of) {
            let json = serde_json::to_string(&record).unwrap_or_default();
            let m = format!("[MCP Bridge] Tool error details: {json}");
            self.host.log(Level::Error, &m);
            let store = Rc::clone(&self.store);
            self.host
                .spawn(async move { store.record_failure(Some(site), record).await });
        }
        Rendered {
            chat_text: rendered.chat_text,
            float: float::new(float::FloatStatus::Error, "", opts.lang),
            record: None,
        }
    }
}
