//! MCP App views in the chat loop: after a call whose tool names a `ui://` view, the bridge
//! keeps the view under a one-time address and the float shows it; what the view then asks
//! (relayed by the extension page that frames it) is decided here — its own server's tools
//! only, through the same policy and round cap as the AI's calls; a message typed into the
//! chat input, never sent; a link offered only when it is `http(s)`.

use super::ChatLoop;
use crate::domain::bridge_api;
use crate::domain::call_log::{AllowedBy, LoggedCall};
use crate::domain::float;
use crate::domain::i18n::{Lang, fill};
use crate::domain::messages::{Command, Response, ViewAsk};
use crate::domain::outcome::{CallOutcome, json_body};
use crate::domain::policy::{self, Target, Verdict};
use crate::domain::settings::{Settings, ToolPolicy};
use crate::domain::sites::host_of;
use crate::domain::tab_state::Phase;
use crate::domain::tab_state::conversation;
use crate::domain::toolcall::ToolCall;
use crate::domain::views::{self, View};
use crate::runtime::host::Host;
use crate::runtime::store::CallLogChange;
use futures_channel::oneshot;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// The view of each call's tool as the judging of the call read it from its server's tool
/// list (`None`: the tool has none), so that its report reads no list again. A restarted
/// worker has none and reads the list.
#[derive(Default)]
pub(super) struct ListedViews(RefCell<Vec<Noted>>);

/// A call's server as it names it, its tool, and the view read for it (its server and its
/// `ui://` address).
type Noted = (Option<String>, String, Option<(String, String)>);

impl ListedViews {
    /// The most calls noted and not yet reported (their calls were denied or skipped).
    const KEPT: usize = 16;

    /// Call `call` runs on the one server that offers its tool, with `view` (its server
    /// and view address) or none.
    pub(super) fn note(&self, call: &ToolCall, view: Option<(String, String)>) {
        let mut noted = self.0.borrow_mut();
        let (server, tool) = (&call.server_name, &call.tool_name);
        noted.retain(|(s, t, _)| !(s == server && t == tool));
        noted.push((server.clone(), tool.clone(), view));
        let excess = noted.len().saturating_sub(Self::KEPT);
        noted.drain(..excess);
    }

    /// What was noted for `call`, taken out: `Some(None)` when its tool has no view.
    fn take(&self, call: &ToolCall) -> Option<Option<(String, String)>> {
        let mut noted = self.0.borrow_mut();
        let (server, tool) = (&call.server_name, &call.tool_name);
        let at = noted
            .iter()
            .position(|(s, t, _)| s == server && t == tool)?;
        Some(noted.remove(at).2)
    }
}

/// The user's answer to the float's question about a view's call.
#[derive(Debug, Clone, Copy)]
pub(super) struct ViewConsent {
    pub run: bool,
    pub always: bool,
    pub trust: bool,
    pub everywhere: bool,
}

/// The view's calls that wait for the user's answer in the float: one per tab at most.
#[derive(Default)]
pub(super) struct Asking(RefCell<Vec<(i32, oneshot::Sender<ViewConsent>)>>);

impl Asking {
    fn asks(&self, tab: i32) -> bool {
        self.0.borrow().iter().any(|(t, _)| *t == tab)
    }

    /// Hands the user's answer to the view's call tab `tab` asks about; `false` when it
    /// asks about none (the answer is then the AI's call's).
    pub(super) fn answer(&self, tab: i32, consent: ViewConsent) -> bool {
        let mut asking = self.0.borrow_mut();
        let Some(at) = asking.iter().position(|(t, _)| *t == tab) else {
            return false;
        };
        let (_, waits) = asking.remove(at);
        // A view closed meanwhile dropped its side: nothing to run.
        let _ = waits.send(consent);
        true
    }
}

/// A view's request refused: the float's words, as the view's JSON-RPC error.
fn refuse(
    lang: Lang,
    template: fn(&crate::domain::i18n::Catalog) -> &'static str,
    tool: &str,
) -> Response {
    let code = float::code(tool);
    Response::error(fill(template(lang.says()), &[("tool", &code)]))
}

impl<H: Host> ChatLoop<H> {
    /// After a call's report: when its tool names a view on the server it ran on, keeps the
    /// view at the bridge and has the tab show it. The tool's view is the one the call's
    /// judging read from its server's tool list: a tool without a view costs no request.
    pub(super) async fn show_view(
        &self,
        tab: i32,
        call: &ToolCall,
        outcome: &CallOutcome,
        settings: &Settings,
    ) {
        let (CallOutcome::Success { result, .. } | CallOutcome::ToolError { result, .. }) = outcome
        else {
            return;
        };
        let client = self.client(settings);
        let (server, uri) = match self.listed_views.take(call) {
            Some(Some(view)) => view,
            Some(None) => return,
            // Not judged by this worker (it restarted meanwhile): the tool list is read.
            None => {
                let server = match &call.server_name {
                    Some(server) => server.clone(),
                    None => match self.target_of(call, settings).await {
                        Ok(Target::OfferedBy(servers)) if servers.len() == 1 => {
                            servers[0].0.clone()
                        }
                        _ => return,
                    },
                };
                let answer = client.service_tools_raw(&server).await;
                let listed =
                    json_body(&answer.body).filter(|_| (200..300).contains(&answer.status));
                let uri = listed
                    .as_ref()
                    .and_then(|b| b.pointer("/tools/tools"))
                    .and_then(Value::as_array)
                    .and_then(|tools| tools.iter().find(|t| t["name"] == call.tool_name.as_str()))
                    .and_then(views::resource_uri)
                    .map(str::to_string);
                let Some(uri) = uri else { return };
                (server, uri)
            }
        };
        let kept = client.keep_view(&server, &uri).await;
        let url = kept
            .ok()
            .and_then(|body| body["url"].as_str().map(str::to_string));
        let Some(url) = url else {
            let why = self.ui().says().view_silent;
            let f = self.view_failed_float(&call.tool_name, why);
            self.show(tab, f).await;
            return;
        };
        let Some(id) = url.rsplit('/').next().map(str::to_string) else {
            return;
        };
        let unmasked = settings.passes_unmasked(Some(&server), &call.tool_name);
        let view = View {
            id: id.clone(),
            tab,
            server,
            tool: call.tool_name.clone(),
            url,
            input: views::masked(&call.arguments, unmasked),
            result: views::call_result(result, unmasked),
        };
        // Kept in the session's storage: a restarted worker still answers the view.
        let mut shown = self.store.views(tab).await;
        shown.push(view);
        let excess = shown.len().saturating_sub(views::KEPT_PER_TAB);
        shown.drain(..excess);
        self.store.save_views(tab, &shown).await;
        let cmd = Command::ShowView {
            view: id,
            tool: call.tool_name.clone(),
        };
        self.command(tab, &cmd).await;
    }

    fn view_failed_float(&self, tool: &str, why: &str) -> float::FloatState {
        let lang = self.ui();
        let said = fill(
            lang.says().view_failed,
            &[("tool", &float::code(tool)), ("why", why)],
        );
        float::new(float::FloatStatus::Error, &said, lang)
    }

    /// Answers what view `id` of tab `tab` asks, relayed by its host page.
    pub(super) async fn view_request(
        self: &Rc<Self>,
        tab: i32,
        id: &str,
        ask: ViewAsk,
    ) -> Response {
        let lang = self.ui();
        // An id is only ever answered for the tab that shows it.
        let shown = self.store.views(tab).await;
        let Some(view) = shown.into_iter().find(|v| v.id == id) else {
            return Response::error(lang.says().view_gone);
        };
        let settings = self.store.chat_settings().await;
        match ask {
            ViewAsk::Open => {
                let locale = match self.lang(&settings) {
                    Lang::Zh => "zh-CN",
                    Lang::En => "en",
                };
                let mut data = serde_json::to_value(view.opened(locale)).unwrap_or_default();
                // The one word the host page shows itself: its button for a view's link.
                let labels = &crate::domain::i18n::labels::Labels::of(lang).float;
                data["openLink"] = labels.get("floatOpenUrl").cloned().into();
                Response::Data { data }
            }
            ViewAsk::Call { name, arguments } => {
                let arguments = arguments.unwrap_or_else(|| Value::Object(Default::default()));
                self.view_call(tab, &view, &name, arguments, &settings)
                    .await
            }
            ViewAsk::Message { content } => {
                let Some(text) = views::message_text(&content) else {
                    return Response::error(lang.says().view_no_text);
                };
                // The view's words are its server's content: from a server the user does not
                // trust they mark the conversation before they reach the chat input.
                if !settings.trusts(&view.server) {
                    self.mark_untrusted(tab, &view.tool).await;
                }
                let said = serde_json::Value::String(text.clone());
                self.log_view_act(tab, &view, AllowedBy::ViewMessage, said)
                    .await;
                // Typed and read back like a report, and left in the input for the user
                // to read and send.
                let typed = self.command(tab, &Command::TypeText { text }).await;
                if !typed.ok {
                    let why = typed
                        .reason
                        .unwrap_or_else(|| lang.says().typing_failed.into());
                    return Response::error(crate::domain::redact::redact_owned(&why));
                }
                let said = fill(
                    lang.says().view_wrote,
                    &[("tool", &float::code(&view.tool))],
                );
                self.show(tab, float::said(lang, &said)).await;
                Response::Ack { recheck_ms: None }
            }
            ViewAsk::Link { url } if views::link_allowed(&url) => {
                self.log_view_act(tab, &view, AllowedBy::ViewLink, Value::String(url))
                    .await;
                Response::Ack { recheck_ms: None }
            }
            ViewAsk::Link { .. } => Response::error(lang.says().view_link_refused),
            ViewAsk::Failed { why } => {
                let why = crate::domain::redact::redact_owned(&why);
                let why: String = why.chars().take(160).collect();
                let why = if why.is_empty() {
                    lang.says().view_silent.to_string()
                } else {
                    why
                };
                let f = self.view_failed_float(&view.tool, &why);
                self.show(tab, f).await;
                Response::Ack { recheck_ms: None }
            }
        }
    }

    /// Tab `tab`'s conversation read content of `tool`'s server, which the user does not
    /// trust: marked as an untrusted result marks it (the tab's state and the stored mark).
    async fn mark_untrusted(&self, tab: i32, tool: &str) {
        let _turn = self.queues.enter(tab).await;
        let mut state = self.store.tab(tab).await;
        if state.untrusted.is_none() {
            state.untrusted = Some(tool.to_string());
            self.store.save_tab(tab, &state).await;
        }
        self.store
            .mark_untrusted(conversation(&state.url), tool)
            .await;
    }

    /// Keeps in the call log what view `view` did besides calling a tool: `what` is its
    /// message's text or its link's address, masked and cut as a call's arguments are.
    async fn log_view_act(&self, tab: i32, view: &View, what: AllowedBy, said: Value) {
        let state = self.store.tab(tab).await;
        let act = ToolCall {
            tool_name: view.tool.clone(),
            arguments: said,
            server_name: Some(view.server.clone()),
        };
        let now = self.host.now_ms();
        let id = self.log_id(tab, now);
        let here = conversation(&state.url);
        let entry = LoggedCall::new(id, now, here, &host_of(&state.url), &act, what);
        self.store
            .change_call_log(CallLogChange::Add(Box::new(entry)))
            .await;
    }

    /// A call log id for an entry of tab `tab` at `now`: time-ordered, apart per tab.
    fn log_id(&self, tab: i32, now: f64) -> u64 {
        (now as u64) * 1000 + u64::from(tab.unsigned_abs() % 1000)
    }

    /// A view's `tools/call`: a tool of the view's own server that a view may call, judged as
    /// the AI's call of it would be (a *Deny* holds; a tool that asks asks in the float, saying
    /// a view makes the call, and the user's choice is kept as for the AI's call), counted as
    /// an automatic round unless the user let it run, logged, and run.
    async fn view_call(
        &self,
        tab: i32,
        view: &View,
        name: &str,
        arguments: Value,
        settings: &Settings,
    ) -> Response {
        let lang = self.ui();
        let state = self.store.tab(tab).await;
        let scoped = settings.on_site(state.site.as_ref());
        let client = self.client(&scoped);
        let answer = client.service_tools_raw(&view.server).await;
        let listed = json_body(&answer.body).filter(|_| (200..300).contains(&answer.status));
        let raw = listed
            .as_ref()
            .and_then(|b| b.pointer("/tools/tools"))
            .and_then(Value::as_array)
            .and_then(|tools| tools.iter().find(|t| t["name"] == name))
            .filter(|t| views::for_app(t));
        let tool = listed
            .as_ref()
            .and_then(bridge_api::tools)
            .and_then(|tools| tools.into_iter().find(|t| t.name == name));
        let (Some(_), Some(tool)) = (raw, tool) else {
            return refuse(lang, |c| c.view_not_its_tool, name);
        };
        let target = Target::OfferedBy(vec![(view.server.clone(), tool.annotations)]);
        let marked = self.store.untrusted_mark(conversation(&state.url)).await;
        let call = ToolCall {
            tool_name: name.to_string(),
            arguments,
            server_name: Some(view.server.clone()),
        };
        let by_user = match policy::verdict(&scoped, name, &target, false, marked.as_deref()) {
            Verdict::Deny => return refuse(lang, |c| c.view_denied, name),
            Verdict::Ask(reason) => {
                // Asked as the AI's call would be, unless the float asks about one already.
                let asks = matches!(state.phase, Phase::Detected { .. }) || self.asking.asks(tab);
                if asks {
                    return refuse(lang, |c| c.view_asks, name);
                }
                let url = &state.url;
                let f = self
                    .consent(url, &call, reason.into(), &scoped, Some(&view.tool))
                    .await;
                let (waits, answered) = oneshot::channel();
                self.asking.0.borrow_mut().push((tab, waits));
                self.show(tab, f).await;
                let Ok(answer) = answered.await else {
                    return refuse(lang, |c| c.view_skipped, name);
                };
                if answer.run && answer.trust {
                    self.trust(&view.server).await;
                }
                if answer.always {
                    let policy = if answer.run {
                        ToolPolicy::Allow
                    } else {
                        ToolPolicy::Deny
                    };
                    let site = state.site.as_ref();
                    self.remember(&call, policy, site, answer.everywhere).await;
                }
                let f = float::ready(lang, &host_of(&state.url));
                self.show(tab, f).await;
                if !answer.run {
                    return refuse(lang, |c| c.view_skipped, name);
                }
                true
            }
            Verdict::Run => false,
        };
        if !by_user {
            // The round cap counts a view's automatic calls as the AI's: in the tab's turn.
            let _turn = self.queues.enter(tab).await;
            let mut state = self.store.tab(tab).await;
            if state.auto_rounds >= scoped.max_auto_rounds {
                return Response::error(lang.says().view_rounds);
            }
            state.auto_rounds += 1;
            self.store.save_tab(tab, &state).await;
        }
        let allowed = if by_user {
            AllowedBy::User
        } else {
            policy::allowed_by(&scoped, name, &target, false, marked.as_deref())
        };
        let now = self.host.now_ms();
        let id = self.log_id(tab, now);
        let here = conversation(&state.url);
        let entry = LoggedCall::new(id, now, here, &host_of(&state.url), &call, allowed);
        self.store
            .change_call_log(CallLogChange::Add(Box::new(entry)))
            .await;
        let unmasked = scoped.passes_unmasked(Some(&view.server), name);
        let server = Some(view.server.as_str());
        let outcome = client
            .execute_as(name, &call.arguments, server, None, unmasked)
            .await;
        match &outcome {
            CallOutcome::Success { result, .. } | CallOutcome::ToolError { result, .. } => {
                Response::Data {
                    data: views::call_result(result, unmasked),
                }
            }
            other => {
                let opts = self.report_options(&scoped);
                let r = self.report(name, &call.arguments, other, &opts, None).await;
                Response::error(r.float.title.to_string())
            }
        }
    }
}
