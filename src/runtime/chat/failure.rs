//! A failed call's report, written by the pages' core: the worker's build leaves the
//! diagnosis, its advice and its texts out (docs/ARCHITECTURE.md, "Two builds of the core").

use super::ChatLoop;
use crate::domain::float;
use crate::domain::outcome::Outcome;
use crate::domain::report::{self, FailedCall, Rendered, ReportOptions};
use crate::domain::sites::host_of;
use crate::runtime::host::{Host, Level};
use serde_json::Value;

impl<H: Host> ChatLoop<H> {
    /// The report of `outcome` for `tool`: a success or a denial rendered here, a failure by
    /// the pages' core ([`Host::report_failure`]), which keeps its unmasked record in the
    /// error log under the site of the chat page at `log_for` when one is given (a tool
    /// call's, not what the chat loop asked for itself). Only the report's text comes back: the
    /// float of a failure is drawn from its status alone ([`float::finished`]).
    pub(super) async fn report(
        &self,
        tool: &str,
        args: &Value,
        outcome: &Outcome,
        opts: &ReportOptions,
        log_for: Option<&str>,
    ) -> Rendered {
        if let Some(rendered) = report::render_unless_failed(tool, outcome, opts) {
            return rendered;
        }
        let log_site = log_for.map(host_of);
        let failed = FailedCall {
            tool: tool.to_string(),
            arguments: args.clone(),
            outcome: outcome.clone(),
            options: opts.clone(),
            log_site,
        };
        let failed = serde_json::to_string(&failed).unwrap_or_default();
        match self.host.report_failure(failed).await {
            Ok(text) => Rendered {
                chat_text: report::Masked::new(&text),
                float: float::new(float::FloatStatus::Error, "", opts.lang),
                record: None,
            },
            Err(why) => {
                let m = format!("[MCP Bridge] the failure report was not written: {why}");
                self.host.log(Level::Warn, &m);
                report::render_unwritten(tool, &why, opts.lang)
            }
        }
    }
}
