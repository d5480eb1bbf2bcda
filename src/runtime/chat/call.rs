//! The call path: a call run at the bridge (sent, polled while it runs, its progress and
//! questions in the float), its report built, typed into the chat and sent.

use super::{ChatLoop, FIRST_WAIT_S, LIST_TOOLS, POLL_WAIT_S, Run};
use crate::domain::call_log;
use crate::domain::float::{self, FloatState};
use crate::domain::messages::Command;
use crate::domain::outcome::CallOutcome;
use crate::domain::policy::without_denied_tools;
use crate::domain::read_resource;
use crate::domain::report::text::Address;
use crate::domain::report::{self, Lang};
use crate::domain::settings::Settings;
use crate::domain::setup::setup_problem;
use crate::domain::sites::host_of;
use crate::domain::tab_events::{self, Event};
use crate::domain::tab_state::conversation;
use crate::domain::toolcall::{MalformedCall, ToolCall};
use crate::runtime::host::Host;
use crate::runtime::store::CallLogChange;
use std::rc::Rc;

impl<H: Host> ChatLoop<H> {
    /// Tells the AI its call block is not a valid call.
    pub(super) async fn report_malformed(
        &self,
        tab: i32,
        malformed: &MalformedCall,
        settings: &Settings,
    ) {
        let r = report::render_malformed(malformed, &self.report_options(settings));
        let text = r.chat_text.to_string();
        let problem = self.type_and_send(tab, &text, settings).await;
        let how = float::Finished {
            tool: None,
            setup: None,
            delivery_problem: problem.as_deref(),
        };
        let f = float::finished(self.ui(), r.float, &r.chat_text, how);
        self.show(tab, f).await;
    }

    /// Runs a call at the bridge, outside the tab's queue (a long call answers after
    /// minutes), and hands its answer back as [`Event::CallEnded`]: the report, or a hold
    /// when the user's setup kept it from the bridge. `resume`: the bridge's id of a call a
    /// previous worker started.
    pub(super) async fn run_call(self: Rc<Self>, tab: i32, run: Run, settings: Settings) {
        let Run {
            key,
            call,
            resume,
            allowed,
            url,
        } = run;
        let lang = self.ui();
        let started = self.host.now_ms();
        // What leaves for the bridge is logged before it leaves (a call polled again after
        // a restart was logged when it started).
        let logged = match allowed {
            Some(allowed) if resume.is_none() && call.tool_name != LIST_TOOLS => {
                let id = (started as u64) * 1000 + u64::from(tab.unsigned_abs() % 1000);
                let here = conversation(&url);
                let entry =
                    call_log::LoggedCall::new(id, started, here, &host_of(&url), &call, allowed);
                self.store
                    .change_call_log(CallLogChange::Add(Box::new(entry)))
                    .await;
                Some(id)
            }
            _ => None,
        };
        let mut f = float::executing(lang, &call.tool_name, started);
        f.icon = self.icons.of_call(&call);
        self.show(tab, f).await;
        let client = self.client(&settings);
        let outcome = if call.tool_name == LIST_TOOLS {
            None
        } else if self.reads_resource(&client, &call).await {
            let uri = read_resource::uri(&call.arguments);
            Some(client.read_resource(call.server_name.as_deref(), uri).await)
        } else {
            let unmasked = settings.passes_unmasked(call.server_name.as_deref(), &call.tool_name);
            let shown = (lang, started);
            Some(
                self.execute(tab, &settings, &call, resume, unmasked, shown)
                    .await,
            )
        };
        let setup = outcome.as_ref().and_then(|o| setup_problem(o, &settings));
        if let (Some(id), Some(_)) = (logged, &setup) {
            // Held: it never reached the bridge; logged again when it runs.
            self.store.change_call_log(CallLogChange::Remove(id)).await;
        }
        let ended = Event::CallEnded {
            key,
            call,
            outcome,
            setup,
            allowed,
        };
        self.event(tab, &settings, ended).await;
        // Only now: until the tab's state moved on, a report of the tab must not resume it.
        self.running.remove(tab);
    }

    /// Sends the call with long-polling; every "still running" is an [`Event::Pending`] in
    /// the tab's queue, which records the call id for a resume after a restart (and whose
    /// read keeps the worker alive).
    async fn execute(
        self: &Rc<Self>,
        tab: i32,
        settings: &Settings,
        call: &ToolCall,
        resume: Option<String>,
        unmasked: bool,
        (lang, started): (Lang, f64),
    ) -> CallOutcome {
        let client = self.client(settings);
        let mut outcome = match resume {
            Some(id) => client.poll(&id, POLL_WAIT_S, None).await,
            None => {
                let server = call.server_name.as_deref();
                let (name, args) = (&call.tool_name, &call.arguments);
                client
                    .execute_as(name, args, server, Some(FIRST_WAIT_S), unmasked)
                    .await
            }
        };
        let mut shown: Option<crate::domain::call_activity::Activity> = None;
        while let CallOutcome::Pending {
            call_id, activity, ..
        } = &outcome
        {
            let call_id = call_id.clone();
            // The server's progress and question go to the float (never to the AI).
            let now = activity.as_deref().cloned();
            if now != shown {
                let question = now.as_ref().and_then(|a| a.question.as_ref());
                // Kept before it shows: an answer is read by the question the user sees.
                self.questions.set(tab, question);
                let mut f = float::running(lang, &call.tool_name, started, now.as_ref());
                f.icon = self.icons.of_call(call);
                self.show(tab, f).await;
                shown = now;
            }
            let pending = Event::Pending {
                call_id: call_id.clone(),
            };
            let turned = self.event(tab, settings, pending).await;
            if tab_events::cancelled(&turned.state) {
                self.questions.set(tab, None);
                client.cancel(&call_id).await;
                return CallOutcome::aborted();
            }
            let seen = shown.as_ref().and_then(|a| a.question.as_ref());
            let seen = seen.map(|q| q.id.as_str());
            outcome = client.poll(&call_id, POLL_WAIT_S, seen).await;
        }
        self.questions.set(tab, None);
        outcome
    }

    pub(super) async fn list_tools(
        self: &Rc<Self>,
        tab: i32,
        call: &ToolCall,
        settings: &Settings,
    ) {
        let client = self.client(settings);
        let service = call
            .arguments
            .get("service_name")
            .and_then(|s| s.as_str())
            .unwrap_or_default()
            .to_string();
        let answer = client.service_tools_raw(&service).await;
        let body = without_denied_tools(&service, answer.body, settings);
        let opts = self.report_options(settings);
        let (status, trace) = (answer.status, answer.trace_id.as_deref());
        let r = match report::tool_list(&service, status, trace, &body, &opts) {
            Ok(r) => r,
            Err(outcome) => {
                let args = report::tool_list_args(&service);
                self.report(report::TOOL_LIST, &args, &outcome, &opts, None)
                    .await
            }
        };
        let text = r.chat_text.to_string();
        let problem = self.type_and_send(tab, &text, settings).await;
        let setup = match status {
            0 => setup_problem(&CallOutcome::unreachable(""), settings),
            _ => None,
        };
        let how = float::Finished {
            tool: Some(&call.tool_name),
            setup: setup.as_ref(),
            delivery_problem: problem.as_deref(),
        };
        let f = float::finished(self.ui(), r.float, &r.chat_text, how);
        self.finish(tab, settings, f, false).await;
    }

    /// Builds the report for an outcome, keeps the unmasked record inside the extension,
    /// types the masked text into the chat and sends it.
    /// `url`: the chat page's, for the error log.
    pub(super) async fn deliver(
        self: &Rc<Self>,
        tab: i32,
        call: &ToolCall,
        outcome: &CallOutcome,
        settings: &Settings,
        url: &str,
    ) {
        let mut opts = self.report_options(settings);
        opts.unmasked = settings.passes_unmasked(call.server_name.as_deref(), &call.tool_name);
        let (tool, args) = (&call.tool_name, &call.arguments);
        let r = self.report(tool, args, outcome, &opts, Some(url)).await;
        let failed = r.float.status == float::FloatStatus::Error;
        let text = r.chat_text.to_string();
        let problem = self.type_and_send(tab, &text, settings).await;
        let setup = match outcome {
            CallOutcome::Unreachable { .. } => setup_problem(outcome, settings),
            _ => None,
        };
        let how = float::Finished {
            tool: Some(&call.tool_name),
            setup: setup.as_ref(),
            delivery_problem: problem.as_deref(),
        };
        let mut f = float::finished(self.ui(), r.float, &r.chat_text, how);
        let bridge = Address {
            url: settings.base_url(),
        };
        let server = call.server_name.as_deref();
        crate::domain::failure_reason::explain(&mut f, self.ui(), tool, server, outcome, bridge);
        if let CallOutcome::Success { result, .. } = outcome {
            let server = call.server_name.as_deref();
            f.links = crate::domain::prompts_menu::links(&result.content, server);
        }
        // A call may change a server's tools (servers add tools as they go).
        f.tools_changed = self.tools_changed(tab, settings).await;
        self.finish(tab, settings, f, failed).await;
        self.show_view(tab, call, outcome, settings).await;
    }

    /// The report is out (or offered for copying): the tab rests, and the float says so.
    async fn finish(self: &Rc<Self>, tab: i32, settings: &Settings, f: FloatState, failed: bool) {
        self.event(tab, settings, Event::Delivered { failed }).await;
        self.show(tab, f).await;
    }

    /// Types `text`, checks it landed, and submits when asked. `Some(reason)` when the text
    /// did not make it; the float then offers it for copying, so a result is never lost.
    async fn type_and_send(&self, tab: i32, text: &str, settings: &Settings) -> Option<String> {
        let says = self.ui().says();
        let cmd = Command::TypeText {
            text: text.to_string(),
        };
        let typed = self.command(tab, &cmd).await;
        if !typed.ok {
            return Some(typed.reason.unwrap_or_else(|| says.typing_failed.into()));
        }
        if settings.auto_send {
            let sent = self.command(tab, &Command::Submit).await;
            if !sent.ok {
                return Some(sent.reason.unwrap_or_else(|| says.sending_failed.into()));
            }
        }
        None
    }
}
