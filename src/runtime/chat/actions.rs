//! What the user does in the float or the page: the buttons, a call typed by hand, an
//! answer to a server's question, the instructions inserted.

use super::views::ViewConsent;
use super::{ChatLoop, ERRAND_IN_CHAT_LOOP};
use crate::domain::float;
use crate::domain::i18n::Lang;
use crate::domain::i18n::fill;
use crate::domain::messages::{Command, CommandResult, Response, UserAction};
use crate::domain::policy::Target;
use crate::domain::report;
use crate::domain::settings::Settings;
use crate::domain::setup::setup_problem;
use crate::domain::tab_events::Event;
use crate::domain::tab_state::Phase;
use crate::domain::toolcall::find_last_call;
use crate::runtime::host::Host;
use std::rc::Rc;

impl<H: Host> ChatLoop<H> {
    /// Types the instructions (services from `GET /tools`) into the chat input, without
    /// sending — or, where the user chose so and the site takes files, attaches them as a
    /// file with one line typed beside it. When the bridge cannot be asked, the float says why instead.
    pub(super) async fn insert_instructions(
        &self,
        tab: i32,
        settings: &Settings,
    ) -> Result<(), String> {
        let lang = self.lang(settings);
        let client = self.client(settings);
        match client.services().await {
            Ok(body) => {
                let services = crate::domain::bridge_api::services(&body)?;
                let tools = self.tool_lists(&client, &services, settings).await;
                let text = crate::domain::instructions::build(&services, &tools, lang);
                let typed = if settings.instructions_as_file && self.takes_files(tab).await {
                    self.attach_instructions(tab, text, lang).await
                } else {
                    self.command(tab, &Command::TypeText { text }).await
                };
                if typed.ok {
                    // What this tab's AI now knows: a later change of the tools is said.
                    let told = crate::domain::instructions::fingerprint(&services, &tools);
                    self.store.set_told_tools(tab, &told).await;
                    Ok(())
                } else {
                    Err(typed.reason.unwrap_or_default())
                }
            }
            Err(outcome) => {
                let opts = self.report_options(settings);
                let null = serde_json::Value::Null;
                let r = self
                    .report("list_services", &null, &outcome, &opts, None)
                    .await;
                // The bridge is out of reach or refuses: what to do on this machine; any
                // other answer is the bridge's report (behind *Show report*).
                let setup = setup_problem(&outcome, settings);
                let how = float::Finished {
                    tool: Some("list_services"),
                    setup: setup.as_ref(),
                    delivery_problem: None,
                };
                let f = float::finished(self.ui(), r.float, &r.chat_text, how);
                self.show(tab, f).await;
                Ok(())
            }
        }
    }

    /// Whether the tab's chat site takes pasted files (its config's `imagePaste`).
    async fn takes_files(&self, tab: i32) -> bool {
        let url = self.store.tab(tab).await.url;
        self.site_for(&url).await.is_some_and(|s| s.image_paste)
    }

    /// The instructions as a file on the chat input, and one line in the input pointing to
    /// it; where the page does not take the file, the whole text is typed as usual.
    async fn attach_instructions(&self, tab: i32, text: String, lang: Lang) -> CommandResult {
        use crate::domain::instructions::{FILE_NAME, FILE_TYPE, attached_line};
        let file = Command::AttachFile {
            name: FILE_NAME.into(),
            mime_type: FILE_TYPE.into(),
            text: text.clone(),
        };
        if self.command(tab, &file).await.ok {
            let line = attached_line(lang);
            self.command(tab, &Command::TypeText { text: line }).await
        } else {
            self.command(tab, &Command::TypeText { text }).await
        }
    }

    pub(super) async fn user_action(self: &Rc<Self>, tab: i32, action: UserAction) -> Response {
        let settings = self.store.chat_settings().await;
        // Everything said here is for the user: the interface language.
        let lang = self.ui();
        match action {
            UserAction::InsertInstructions => {
                if let Err(reason) = self.insert_instructions(tab, &settings).await {
                    return Response::error(reason);
                }
            }
            UserAction::Redetect { index, text } => {
                let text = &text;
                self.event(tab, &settings, Event::Redetect { index, text })
                    .await;
            }
            UserAction::ManualInput { text } => match find_last_call(&text) {
                Some(Ok(call)) => {
                    // Out of reach, the bridge cannot run it either: the run reports that.
                    let target = self.target_of(&call, &settings).await;
                    let target = target.unwrap_or(Target::Unknown(call.server_name.clone()));
                    self.event(tab, &settings, Event::Manual { call, target })
                        .await;
                }
                Some(Err(malformed)) => {
                    let r = report::render_malformed(&malformed, &self.report_options(&settings));
                    let how = float::Finished {
                        tool: None,
                        setup: None,
                        delivery_problem: None,
                    };
                    let f = float::finished(lang, r.float, &r.chat_text, how);
                    self.show(tab, f).await;
                }
                None => return Response::error("no complete <tool_code> call in the text"),
            },
            UserAction::Answer {
                question_id,
                answer,
                content,
            } => {
                // Read in the tab's turn (nothing is written): the call the question is of.
                let _turn = self.queues.enter(tab).await;
                // A refused answer is said inside the form, which keeps what the user typed.
                if let Phase::Executing {
                    call_id: Some(id), ..
                } = &self.store.tab(tab).await.phase
                {
                    // Read by the question the float shows: a field that is not of its
                    // type is refused here, and nothing goes to the bridge.
                    let schema = self.questions.schema(tab, &question_id);
                    let body = crate::domain::call_activity::answer_body(
                        &question_id,
                        &answer,
                        content.as_ref(),
                        &schema,
                        lang,
                    );
                    let sent = match body {
                        Ok(body) => self.client(&settings).answer(id, body).await,
                        Err(why) => Err(why),
                    };
                    if let Err(why) = sent {
                        let why = fill(lang.says().float_answer_refused, &[("why", &why)]);
                        return Response::error(crate::domain::redact::redact_owned(&why));
                    }
                }
            }
            UserAction::Cancel => {
                self.event(tab, &settings, Event::Cancel).await;
            }
            UserAction::Confirm {
                run,
                always,
                trust,
                everywhere,
            } => {
                let consent = ViewConsent {
                    run,
                    always,
                    trust,
                    everywhere,
                };
                // The float asks about a view's call, or else about the AI's.
                if !self.asking.answer(tab, consent) {
                    let confirm = Event::Confirm {
                        run,
                        always,
                        trust,
                        everywhere,
                    };
                    self.event(tab, &settings, confirm).await;
                }
            }
            UserAction::Held { tell_ai } => {
                self.event(tab, &settings, Event::Held { tell_ai }).await;
            }
            UserAction::OpenDetails => {
                if let Err(e) = self.host.open_options_page().await {
                    return Response::error(e);
                }
            }
            UserAction::ResetTool { tool, server } => {
                // The options page's reset of one counter, from the float of the blocked call.
                let server = server.filter(|s| !s.is_empty());
                let client = self.client(&settings);
                if let Err(outcome) = client.reset_history(server.as_deref(), Some(&tool)).await {
                    let opts = self.report_options(&settings);
                    let r = self
                        .report(
                            "reset-history",
                            &serde_json::Value::Null,
                            &outcome,
                            &opts,
                            None,
                        )
                        .await;
                    return Response::error(r.chat_text.to_string());
                }
                let done = fill(lang.says().ui_reset_done, &[("tool", &float::code(&tool))]);
                self.show(tab, float::said(lang, &done)).await;
            }
            UserAction::AskNextTime { tool, server } => {
                let site = self.store.tab(tab).await.site.map(|site| site.id);
                let server = server.as_deref();
                self.change_settings(|s| s.ask_again(&tool, server, site.as_deref()))
                    .await;
                let done = fill(lang.says().ui_ask_done, &[("tool", &float::code(&tool))]);
                self.show(tab, float::said(lang, &done)).await;
            }
            // `super::errands` answers these; the dispatcher never sends them here.
            UserAction::Menu
            | UserAction::Complete { .. }
            | UserAction::UseItem { .. }
            | UserAction::PickStart
            | UserAction::PickCandidates { .. }
            | UserAction::Picked { .. } => return Response::error(ERRAND_IN_CHAT_LOOP),
        }
        Response::Ack { recheck_ms: None }
    }
}
