//! The chat loop: what happens when a tab reports a page or a message. Each request, the
//! user's action and the end of a long wait is an event in the tab's queue
//! ([`ChatLoop::event`]): read the tab's state once, let [`crate::domain::tab_events::step`]
//! decide, carry the effects out — run the call through the bridge (at most once: the call's
//! key is stored before the request leaves), build the report, type it into the chat, submit
//! it, keep the float current — and write the state once. Everything it touches goes through
//! the [`Host`], so it runs natively in tests.
//!
//! This file holds the loop itself (the request, the event's turn, what starts after it);
//! the page's reports are `pages`, the call at the bridge and its report `call`, a held
//! call's watch `held`, a call's server `target`, the consent question `consent`, the user's
//! actions `actions`, the icons the float shows `icons`.

use super::bridge_client::BridgeApiClient;
use super::host::Host;
use super::store::Store;
use crate::domain::call_activity::Question;
use crate::domain::call_log::AllowedBy;
use crate::domain::float::{self, FloatState};
use crate::domain::messages::{Command, CommandResult, Response, TabRequest};
use crate::domain::report::{Lang, ReportOptions};
use crate::domain::settings::{Settings, lang_of};
use crate::domain::sites::host_of;
use crate::domain::tab_events::{self, Context, Effect, Event};
use crate::domain::tab_state::{Phase, TabState, Update, conversation};
use crate::domain::toolcall::ToolCall;
use std::cell::RefCell;
use std::rc::Rc;

/// A call to send (or to poll again after a restart), with what the call log needs.
struct Run {
    key: String,
    call: ToolCall,
    resume: Option<String>,
    allowed: Option<AllowedBy>,
    /// The tab's address when the call started.
    url: String,
}

mod actions;
mod call;
mod consent;
mod failure;
mod held;
mod icons;
mod pages;
mod queue;
mod target;
mod tools_changed;
mod views;

/// Seconds the bridge may hold one request before answering "still running" (browsers end
/// an extension worker whose fetch takes ~30 s to answer).
pub const POLL_WAIT_S: u32 = 20;

/// Seconds the first request of a call may be held: short, so that a call still running
/// has its id (the one thing a *Cancel* needs at the bridge) within a second, not after a
/// whole long-poll. Most calls answer within it, so their report comes no later.
pub const FIRST_WAIT_S: u32 = 1;

/// What the chat loop answers an errand (never sent there: the dispatcher hands errands to
/// [`super::errands`]).
const ERRAND_IN_CHAT_LOOP: &str = "answered by the worker's errands";

/// The built-in tool that lists one service's tools instead of running anything.
pub const LIST_TOOLS: &str = "list_tools_in_service";

/// One worker's chat loop. What it holds in memory is only what a worker restart may lose:
/// each tab's queue of events, and which tabs this worker polls or watches the bridge for.
/// Everything else is in the [`Store`].
pub struct ChatLoop<H: Host> {
    host: H,
    store: Rc<Store<H>>,
    /// One queue per tab: a tab's events are carried out one at a time.
    queues: queue::TabQueues,
    /// Tabs whose call runs in this worker (a restarted worker has none and resumes).
    running: TabSet,
    /// Tabs whose held call this worker watches the bridge for.
    watching: TabSet,
    /// The server's question each tab's float shows, which the user's answer is read by (a
    /// restarted worker resumes polling and is shown the question again).
    questions: Questions,
    /// The icons of the tools and servers read to find calls' servers, for the float.
    icons: icons::Icons,
    /// The views' calls that wait for the user's answer in the float.
    asking: views::Asking,
    /// The views of the calls judged and not yet reported.
    listed_views: views::ListedViews,
}

/// A tab's state after one event, and when its content script should report again.
struct Turned {
    state: TabState,
    recheck: Option<u32>,
}

/// A set of tab ids: a handful at most, so a plain list.
#[derive(Default)]
struct TabSet(RefCell<Vec<i32>>);

impl TabSet {
    fn contains(&self, tab: i32) -> bool {
        self.0.borrow().contains(&tab)
    }

    /// `false` when it was already there.
    fn insert(&self, tab: i32) -> bool {
        let new = !self.contains(tab);
        if new {
            self.0.borrow_mut().push(tab);
        }
        new
    }

    /// `false` when it was not there.
    fn remove(&self, tab: i32) -> bool {
        let had = self.contains(tab);
        self.0.borrow_mut().retain(|t| *t != tab);
        had
    }
}

/// The question each tab's float shows: a handful at most, so a plain list.
#[derive(Default)]
struct Questions(RefCell<Vec<(i32, Question)>>);

impl Questions {
    /// Tab `tab` shows `question` now (`None`: no question).
    fn set(&self, tab: i32, question: Option<&Question>) {
        let mut shown = self.0.borrow_mut();
        shown.retain(|(t, _)| *t != tab);
        if let Some(q) = question {
            shown.push((tab, q.clone()));
        }
    }

    /// The schema of question `id` when tab `tab` shows it; `Null` when it shows another
    /// question or none.
    fn schema(&self, tab: i32, id: &str) -> serde_json::Value {
        self.0
            .borrow()
            .iter()
            .find(|(t, q)| *t == tab && q.id == id)
            .map(|(_, q)| q.schema.clone())
            .unwrap_or_default()
    }
}

/// Sends a chat tab a command; a tab that cannot take it answers as one that refused.
pub(super) async fn tab_command<H: Host>(host: &H, tab: i32, cmd: &Command) -> CommandResult {
    host.tab_command(tab, cmd)
        .await
        .unwrap_or_else(|reason| CommandResult {
            ok: false,
            reason: Some(reason),
        })
}

/// Draws `float` in chat tab `tab`.
pub(super) async fn show_float<H: Host>(host: &H, tab: i32, float: FloatState) {
    let cmd = Command::FloatState {
        float: Box::new(float),
    };
    tab_command(host, tab, &cmd).await;
}

impl<H: Host> ChatLoop<H> {
    pub fn new(host: H, store: Rc<Store<H>>) -> Rc<Self> {
        Rc::new(ChatLoop {
            host,
            store,
            queues: queue::TabQueues::default(),
            running: TabSet::default(),
            watching: TabSet::default(),
            questions: Questions::default(),
            icons: icons::Icons::default(),
            asking: views::Asking::default(),
            listed_views: views::ListedViews::default(),
        })
    }

    /// The report language: the text for the AI.
    fn lang(&self, settings: &Settings) -> Lang {
        lang_of(settings, &self.host.ui_language())
    }

    /// The interface language: everything the float says to the user.
    fn ui(&self) -> Lang {
        Lang::of_ui(&self.host.ui_language())
    }

    fn report_options(&self, settings: &Settings) -> ReportOptions {
        ReportOptions {
            lang: self.lang(settings),
            ui: self.ui(),
            max_stack_lines: settings.stack_lines as usize,
            bridge_url: settings.base_url().to_string(),
            ..ReportOptions::default()
        }
    }

    fn client<'a>(&'a self, settings: &Settings) -> BridgeApiClient<'a, H> {
        BridgeApiClient::new(&self.host, settings.base_url(), &settings.token)
    }

    async fn command(&self, tab: i32, cmd: &Command) -> CommandResult {
        tab_command(&self.host, tab, cmd).await
    }

    async fn show(&self, tab: i32, float: FloatState) {
        show_float(&self.host, tab, float).await;
    }

    /// Handles one request from a chat tab. Every request that touches the tab's state is
    /// one [`Event`] in the tab's queue ([`Self::event`]).
    pub async fn handle(self: &Rc<Self>, tab: i32, req: TabRequest) -> Response {
        match req {
            // Answered by the dispatcher before a request reaches the chat loop.
            TabRequest::Ping => Response::pong(),
            TabRequest::PageReady { url } => self.page_ready(tab, &url).await,
            TabRequest::EmptyChat { url } => {
                let settings = self.store.chat_settings().await;
                if let Some(site) = self.site_for(&url).await
                    && settings.site(&site.id).auto_insert_instructions
                    && let Err(reason) = self.insert_instructions(tab, &settings).await
                {
                    return Response::error(reason);
                }
                Response::Ack { recheck_ms: None }
            }
            TabRequest::MessageUpdated {
                url,
                index,
                text,
                generating,
                baseline,
                changed_at,
            } => {
                let u = Update {
                    url: &url,
                    index,
                    text: &text,
                    generating,
                    baseline,
                    changed_at,
                };
                self.message_updated(tab, u).await
            }
            TabRequest::UserMessage => {
                let settings = self.store.chat_settings().await;
                self.event(tab, &settings, Event::UserMessage).await;
                Response::Ack { recheck_ms: None }
            }
            TabRequest::UserAction { action } => self.user_action(tab, action).await,
            // `super::errands` answers it; the dispatcher never sends it here.
            TabRequest::Detect { .. } => Response::error(ERRAND_IN_CHAT_LOOP),
            TabRequest::View { view, ask } => self.view_request(tab, &view, ask).await,
        }
    }

    /// Carries out one event of tab `tab` in the tab's turn: reads its state once, lets
    /// [`tab_events::step`] decide, carries the effects out in order, and writes the state
    /// once (when it changed). Judging a call asks the bridge for its tool lists within the
    /// turn and decides again ([`Event::Judged`]). What waits long — a call at the bridge,
    /// typing a report, watching for a held call's bridge — starts after the write, outside
    /// the turn, and comes back as an event; so *Cancel* never waits behind a call.
    async fn event(self: &Rc<Self>, tab: i32, settings: &Settings, event: Event<'_>) -> Turned {
        let _turn = self.queues.enter(tab).await;
        let mut state = self.store.tab(tab).await;
        let read = state.clone();
        // The choices made on the tab's site come first there.
        let site = match &event {
            Event::PageReady { site, .. } => site.clone(),
            _ => state.site.clone(),
        };
        let scoped = settings.on_site(site.as_ref());
        let settings: &Settings = &scoped;
        // The mark a conversation keeps in storage, for a page that loads or an address
        // this tab did not show before.
        let address = match &event {
            Event::PageReady { url, .. } => Some(*url),
            Event::Update { update, .. }
                if conversation(update.url) != conversation(&state.url) =>
            {
                Some(update.url)
            }
            _ => None,
        };
        let marked = match address {
            Some(url) => self.store.untrusted_mark(conversation(url)).await,
            None => None,
        };
        let (mut recheck, mut later) = (None, Vec::new());
        let mut next = Some(event);
        while let Some(event) = next.take() {
            let executed = if event.may_start_a_call() {
                self.store.executed().await
            } else {
                Vec::new()
            };
            let cx = Context {
                settings,
                now_ms: self.host.now_ms(),
                executed: &executed,
                marked: marked.as_deref(),
            };
            for effect in tab_events::step(&mut state, event, &cx) {
                match effect {
                    Effect::MarkExecuted(key) => self.store.mark_executed(&key).await,
                    Effect::Recheck(ms) => recheck = Some(ms),
                    Effect::Judge { key, call, by_user } => {
                        let target = self.target_of(&call, settings).await;
                        next = Some(Event::Judged {
                            key,
                            call,
                            by_user,
                            target,
                        });
                    }
                    Effect::Ask { call, reason } => {
                        self.ask(tab, &state.url, &call, reason, settings).await;
                    }
                    Effect::ReportMalformed(malformed) => {
                        self.report_malformed(tab, &malformed, settings).await;
                    }
                    Effect::ShowReady => {
                        let f = float::ready(self.ui(), &host_of(&state.url));
                        self.show(tab, f).await;
                    }
                    Effect::Remember {
                        call,
                        policy,
                        site,
                        everywhere,
                    } => {
                        self.remember(&call, policy, site.as_ref(), everywhere)
                            .await
                    }
                    Effect::Trust { server } => self.trust(&server).await,
                    Effect::CancelAtBridge { call_id } => {
                        self.client(settings).cancel(&call_id).await;
                    }
                    Effect::Run { .. } | Effect::Deliver { .. } | Effect::Hold { .. } => {
                        later.push(effect);
                    }
                }
            }
        }
        // A new mark, or a marked tab's conversation getting its address: kept for the
        // conversation, before anything of this event goes on.
        if let Some(tool) = &state.untrusted
            && (read.untrusted.as_ref() != Some(tool) || read.url != state.url)
        {
            let here = conversation(&state.url);
            self.store.mark_untrusted(here, tool).await;
        }
        if state != read {
            self.store.save_tab(tab, &state).await;
        }
        for effect in later {
            self.start(tab, effect, settings, &state.url);
        }
        Turned { state, recheck }
    }

    /// Starts what an event left for after its write, outside the tab's queue: a call at
    /// the bridge, a report, or the watch of a held call. Each comes back as an event.
    fn start(self: &Rc<Self>, tab: i32, effect: Effect, settings: &Settings, url: &str) {
        let this = Rc::clone(self);
        let settings = settings.clone();
        match effect {
            Effect::Run {
                key,
                call,
                resume,
                allowed,
            } => {
                if !self.running.insert(tab) {
                    return;
                }
                let url = url.to_string();
                let run = Run {
                    key,
                    call,
                    resume,
                    allowed,
                    url,
                };
                self.host
                    .spawn(async move { this.run_call(tab, run, settings).await });
            }
            Effect::Deliver { call, outcome } => {
                let url = url.to_string();
                self.host.spawn(async move {
                    match outcome {
                        Some(outcome) => this.deliver(tab, &call, &outcome, &settings, &url).await,
                        None => this.list_tools(tab, &call, &settings).await,
                    }
                });
            }
            Effect::Hold { tool, why } => self.host.spawn(async move {
                this.show(tab, float::held(this.ui(), &tool, &why)).await;
                this.watch_held(tab).await;
            }),
            _ => {}
        }
    }

    /// After a worker restart the tab may still say "executing" with no one polling, or hold
    /// a call no one watches the bridge for: take it up again.
    fn resume_if_orphaned(self: &Rc<Self>, tab: i32, state: &TabState, settings: &Settings) {
        match &state.phase {
            Phase::Held { .. } if !self.watching.contains(tab) => {
                let this = Rc::clone(self);
                self.host.spawn(async move { this.watch_held(tab).await });
            }
            Phase::Executing {
                key,
                tool,
                call_id: Some(call_id),
                ..
            } if !self.running.contains(tab) => {
                let call = ToolCall {
                    tool_name: tool.clone(),
                    arguments: serde_json::Value::Null,
                    server_name: None,
                };
                let (key, resume) = (key.clone(), Some(call_id.clone()));
                let run = Effect::Run {
                    key,
                    call,
                    resume,
                    allowed: None,
                };
                self.start(tab, run, settings, &state.url);
            }
            _ => {}
        }
    }
}
