//! The chat loop: what happens when a tab reports a page or a message. Each request, the
//! user's action and the end of a long wait is an event in the tab's queue
//! ([`ChatLoop::event`]): read the tab's state once, let [`crate::domain::tab_events::step`]
//! decide, carry the effects out — run the call through the bridge (at most once: the call's
//! key is stored before the request leaves), build the report, type it into the chat, submit
//! it, keep the float current — and write the state once. Everything it touches goes through
//! the [`Host`], so it runs natively in tests.

use super::bridge_client::BridgeApiClient;
use super::host::{Host, Level};
use super::store::{CallLogChange, Store};
use crate::domain::bridge_api;
use crate::domain::call_log::{self, AllowedBy};
use crate::domain::float::{self, ConfirmReason, FloatState};
use crate::domain::i18n::fill;
use crate::domain::messages::{Command, CommandResult, Response, TabRequest, UserAction};
use crate::domain::outcome::CallOutcome;
use crate::domain::policy::Target;
use crate::domain::policy::without_denied_tools;
use crate::domain::read_resource::{self, READ_RESOURCE};
use crate::domain::report::text::Address;
use crate::domain::report::{self, Lang, ReportOptions};
use crate::domain::settings::{Settings, SiteScope, ToolPolicy, lang_of};
use crate::domain::setup::setup_problem;
use crate::domain::sites::{SiteConfig, host_of};
use crate::domain::status::Status;
use crate::domain::tab_events::{self, Context, Effect, Event};
use crate::domain::tab_state::{Phase, TabState, Update, conversation, server_running as running};
use crate::domain::toolcall::{MalformedCall, ToolCall, find_last_call};
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

mod failure;
mod queue;
mod tools_changed;

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

/// The first wait between two checks of the bridge for a held call, and the longest.
const HELD_FIRST_WAIT_MS: u32 = 250;
const HELD_MAX_WAIT_MS: u32 = 2000;

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

    /// The config for a page: the user's own, the subscribed list's, or the shipped one.
    async fn site_for(&self, url: &str) -> Option<SiteConfig> {
        // Boxed as `dyn`: one copy of the three storage reads, not one inlined into every
        // caller's state machine (about 3 KB of the worker's wasm).
        let host = host_of(url);
        let find: std::pin::Pin<Box<dyn std::future::Future<Output = Option<SiteConfig>> + '_>> =
            Box::pin(self.store.site_for_host(&host));
        find.await
    }

    /// The site as far as its policies go: one the user turned on themselves (a custom site
    /// that overrides no shipped one) is [`SiteScope::own`].
    async fn scope_of(&self, site: &SiteConfig) -> SiteScope {
        let custom = self.store.custom_sites().await;
        let builtin = self.store.builtin_sites().await;
        let own = custom
            .0
            .iter()
            .any(|c| c.id == site.id && !crate::domain::custom_sites::is_override(c, &builtin));
        SiteScope {
            id: site.id.clone(),
            name: site.name.clone(),
            own,
        }
    }

    /// When a shipped config claims this page's host but does not validate, says which file
    /// and field, so the float can tell the user instead of the page silently doing nothing.
    async fn broken_config_for(&self, url: &str, lang: Lang) -> Option<String> {
        let host = host_of(url);
        self.store
            .builtin_site_files()
            .await
            .into_iter()
            .find_map(|(file, raw)| {
                let e = crate::domain::sites::problem_for_host(&raw, &host)?.to_string();
                let args = [("file", file.as_str()), ("problem", e.as_str())];
                Some(fill(lang.says().page_broken_config, &args))
            })
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
        }
    }

    async fn page_ready(self: &Rc<Self>, tab: i32, url: &str) -> Response {
        let settings = self.store.chat_settings().await;
        // Everything here is said to the user: the interface language.
        let lang = self.ui();
        let Some(site) = self.site_for(url).await else {
            let problem = self
                .broken_config_for(url, lang)
                .await
                .unwrap_or_else(|| lang.says().page_no_site.into());
            let off = float::disabled(lang, &problem);
            return Response::page_setup(None, Some(problem), off);
        };
        if settings.site(&site.id).disabled {
            let off = float::disabled(lang, &float::code(&site.name));
            return Response::page_setup(None, Some("turned off in the options".into()), off);
        }
        let scope = self.scope_of(&site).await;
        let ready_event = Event::PageReady {
            url,
            site: Some(scope),
        };
        let state = self.event(tab, &settings, ready_event).await.state;
        let ready = match &state.phase {
            // The page was reloaded while a call ran: keep showing it; the result still comes.
            Phase::Executing {
                tool, started_ms, ..
            } => float::executing(lang, tool, *started_ms),
            _ => float::ready(lang, &site.name),
        };
        let this = Rc::clone(self);
        let name = site.name.clone();
        self.host
            .spawn(async move { this.check_bridge(tab, settings, &name).await });
        Response::page_setup(Some(site), None, ready)
    }

    /// Checks the connection as soon as a page opens, not only after a call: with no token,
    /// a refused one or no bridge, the core pairs through the native host first; what is
    /// still wrong shows in the float, with the two ways to connect.
    async fn check_bridge(&self, tab: i32, settings: Settings, site_name: &str) {
        let (status, after, note) = super::pairing::status_paired(&self.host, &self.store).await;
        let _ = settings;
        let float = if matches!(status, Status::Connected { .. }) {
            // Tools that changed while the page was closed are said at once.
            let Some(notice) = self.tools_changed(tab, &after).await else {
                return;
            };
            let mut f = float::ready(self.ui(), site_name);
            f.tools_changed = Some(notice);
            f
        } else {
            let address = Address {
                url: after.base_url(),
            }
            .host();
            let Some(problem) = float::Setup::of_status(&status, address, &note) else {
                return;
            };
            float::status(self.ui(), &problem)
        };
        // The check runs beside the chat loop and may answer late: a call held, asked about
        // or running meanwhile owns the float (a held call says the same problem, with what
        // to do about the call). Decided in the tab's turn, so a call cannot slip in between.
        let _turn = self.queues.enter(tab).await;
        if self.store.tab(tab).await.phase.at_rest() {
            self.show(tab, float).await;
        }
    }

    async fn message_updated(self: &Rc<Self>, tab: i32, update: Update<'_>) -> Response {
        let settings = self.store.chat_settings().await;
        let Some(site) = self.site_for(update.url).await else {
            return Response::error("this page has no site config");
        };
        let stable_ms = site.stable_ms;
        let turned = self
            .event(tab, &settings, Event::Update { update, stable_ms })
            .await;
        self.resume_if_orphaned(tab, &turned.state, &settings);
        Response::Ack {
            recheck_ms: turned.recheck,
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

    /// Tells the AI its call block is not a valid call.
    async fn report_malformed(&self, tab: i32, malformed: &MalformedCall, settings: &Settings) {
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

    /// Which server a call would run on, and what its tool declares there: the server it
    /// names, or the ones whose tool lists (`GET /tools?serverName=`) hold the tool.
    /// `Err` when the user's setup keeps the bridge out of reach: the outcome, and what to
    /// tell the user.
    async fn target_of(
        &self,
        call: &ToolCall,
        settings: &Settings,
    ) -> Result<Target, (CallOutcome, float::Setup)> {
        if call.tool_name == LIST_TOOLS {
            // Answered by the core from the tool lists: nothing runs.
            return Ok(Target::NotOffered(None));
        }
        let client = self.client(settings);
        let named = call.server_name.clone();
        let listed = match client.services().await {
            Ok(body) => bridge_api::services(&body).ok(),
            Err(outcome) => match setup_problem(&outcome, settings) {
                Some(why) => return Err((outcome, why)),
                None => None,
            },
        };
        let services: Vec<String> = match (&named, listed) {
            (Some(server), _) => vec![server.clone()],
            (None, Some(services)) => services.into_iter().map(|s| s.name).collect(),
            (None, None) => return Ok(Target::Unknown(None)),
        };
        let (mut offering, mut unread) = (Vec::new(), false);
        for service in services {
            let answer = client.service_tools_raw(&service).await;
            let tools = crate::domain::outcome::json_body(&answer.body)
                .filter(|_| (200..300).contains(&answer.status))
                .and_then(|b| bridge_api::tools(&b));
            match tools {
                Some(tools) => {
                    if let Some(t) = tools.iter().find(|t| t.name == call.tool_name) {
                        offering.push((service, t.annotations));
                    }
                }
                // A server still starting, or failed: it may offer the tool too.
                None => unread = true,
            }
        }
        if offering.is_empty() && call.tool_name == READ_RESOURCE {
            // The pseudo-tool, judged as a tool of that name on the reading server.
            let readers = match &named {
                Some(server) => vec![server.clone()],
                None => match client.services().await {
                    Ok(body) => bridge_api::services(&body)
                        .map(|s| read_resource::offering(&s))
                        .unwrap_or_default(),
                    Err(_) => Vec::new(),
                },
            };
            if !readers.is_empty() {
                let no_hints = bridge_api::Annotations::default();
                return Ok(Target::OfferedBy(
                    readers.into_iter().map(|s| (s, no_hints)).collect(),
                ));
            }
        }
        Ok(match (offering.is_empty(), unread) {
            (false, _) => Target::OfferedBy(offering),
            (true, true) => Target::Unknown(named),
            (true, false) => Target::NotOffered(named),
        })
    }

    /// Whether a call is the `read_resource` pseudo-tool: so named, on a server (the one it
    /// names) that has no tool of its own by that name.
    async fn reads_resource(&self, client: &BridgeApiClient<'_, H>, call: &ToolCall) -> bool {
        if call.tool_name != READ_RESOURCE {
            return false;
        }
        let Some(server) = call.server_name.as_deref() else {
            return true;
        };
        let answer = client.service_tools_raw(server).await;
        let tools = crate::domain::outcome::json_body(&answer.body)
            .filter(|_| (200..300).contains(&answer.status))
            .and_then(|b| bridge_api::tools(&b));
        !tools.is_some_and(|tools| tools.iter().any(|t| t.name == READ_RESOURCE))
    }

    /// Saves the user's choice for a tool, on the server the call runs on (`*` when that
    /// could not be known).
    async fn remember(
        &self,
        call: &ToolCall,
        policy: ToolPolicy,
        site: Option<&SiteScope>,
        everywhere: bool,
    ) {
        let server = call.server_name.as_deref().unwrap_or("*");
        let key = format!("{server}:{}", call.tool_name);
        self.change_settings(|s| s.remember(&key, policy, site, everywhere))
            .await;
    }

    /// Saves that the user trusts `server` (from the consent question).
    async fn trust(&self, server: &str) {
        self.change_settings(|s| {
            s.trusted_servers.insert(server.to_string());
        })
        .await;
    }

    /// Saves one change of the user's to the stored settings.
    async fn change_settings(&self, change: impl FnOnce(&mut Settings)) {
        match self.store.settings().await {
            Ok(mut settings) if settings.unreadable.is_none() => {
                change(&mut settings);
                if let Err(e) = self.store.save_settings(&settings).await {
                    self.host.log(Level::Warn, &format!("[MCP Bridge] {e}"));
                }
            }
            // Settings that cannot be read are not overwritten with a half-known copy.
            _ => self.host.log(
                Level::Warn,
                "[MCP Bridge] choice not saved: settings unreadable",
            ),
        }
    }

    /// Shows the prompt for a call (the tab's state already says it waits for the user).
    async fn ask(
        &self,
        tab: i32,
        url: &str,
        call: &ToolCall,
        reason: ConfirmReason,
        settings: &Settings,
    ) {
        let ui = self.ui();
        let remember = matches!(
            reason,
            ConfirmReason::FirstUse | ConfirmReason::NotTrusted(_)
        );
        let reason_kept = reason.clone();
        let why = float::confirm_reason(ui, reason, settings.max_auto_rounds);
        let site = match self.site_for(url).await {
            Some(site) => site.name,
            None => host_of(url),
        };
        let mut f = float::confirm(ui, &site, call, &why, remember);
        if let (ConfirmReason::NotTrusted(server), true) = (&reason_kept, remember) {
            float::offer_trust(&mut f, ui, server);
        }
        self.show(tab, f).await;
    }

    /// Runs a call at the bridge, outside the tab's queue (a long call answers after
    /// minutes), and hands its answer back as [`Event::CallEnded`]: the report, or a hold
    /// when the user's setup kept it from the bridge. `resume`: the bridge's id of a call a
    /// previous worker started.
    async fn run_call(self: Rc<Self>, tab: i32, run: Run, settings: Settings) {
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
        self.show(tab, float::executing(lang, &call.tool_name, started))
            .await;
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

    /// Checks the bridge — an authenticated route, so a wrong token counts as not ready —
    /// with a growing pause of at most [`HELD_MAX_WAIT_MS`], and once it answers hands
    /// [`Event::BridgeBack`] to the tab's queue, which runs (or judges) the held call if it
    /// is still held. Stops when the user told the AI or skipped the call. Each check reads
    /// the tab's stored state, which also keeps the browser from ending an idle worker.
    async fn watch_held(self: Rc<Self>, tab: i32) {
        if !self.watching.insert(tab) {
            return;
        }
        let mut wait = HELD_FIRST_WAIT_MS;
        let mut told: Option<float::Setup> = None;
        let mut asked_host = false;
        loop {
            self.host.sleep(wait).await;
            wait = (wait * 2).min(HELD_MAX_WAIT_MS);
            let Phase::Held { call, problem, .. } = self.store.tab(tab).await.phase else {
                break;
            };
            let settings = self.store.chat_settings().await;
            let outcome = match self.client(&settings).services().await {
                // A sign-in is awaited: the bridge answers all along, so the call waits
                // until the server runs (the callback restarts it with the tokens).
                Ok(services)
                    if problem
                        .sign_in_server()
                        .is_some_and(|server| !running(&services, server)) =>
                {
                    continue;
                }
                Ok(_) => {
                    self.watching.remove(tab);
                    self.event(tab, &settings, Event::BridgeBack).await;
                    return;
                }
                Err(outcome) => outcome,
            };
            // No token, a refused one or no bridge: the native host may know the token and
            // start the bridge. Asked once per watch; the next check finds out.
            let why = setup_problem(&outcome, &settings);
            if why.is_some() && !asked_host {
                asked_host = true;
                if super::pairing::pair(&self.host, &self.store).await.is_ok() {
                    wait = HELD_FIRST_WAIT_MS;
                    continue;
                }
            }
            // The problem may change while the user fixes it (the bridge starts, but the
            // token is still wrong): the float says the current one.
            if why.is_some() && why != told {
                if let Some(problem) = &why {
                    let f = float::held(self.ui(), &call.tool_name, problem);
                    self.show(tab, f).await;
                }
                told = why;
            }
        }
        self.watching.remove(tab);
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
                let f = float::running(lang, &call.tool_name, started, now.as_ref());
                self.show(tab, f).await;
                shown = now;
            }
            let pending = Event::Pending {
                call_id: call_id.clone(),
            };
            let turned = self.event(tab, settings, pending).await;
            if tab_events::cancelled(&turned.state) {
                client.cancel(&call_id).await;
                return CallOutcome::aborted();
            }
            let seen = shown.as_ref().and_then(|a| a.question.as_ref());
            let seen = seen.map(|q| q.id.as_str());
            outcome = client.poll(&call_id, POLL_WAIT_S, seen).await;
        }
        outcome
    }

    async fn list_tools(self: &Rc<Self>, tab: i32, call: &ToolCall, settings: &Settings) {
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
    async fn deliver(
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

    /// Types the instructions (services from `GET /tools`) into the chat input, without
    /// sending. When the bridge cannot be asked, the float says why instead.
    async fn insert_instructions(&self, tab: i32, settings: &Settings) -> Result<(), String> {
        let lang = self.lang(settings);
        let client = self.client(settings);
        match client.services().await {
            Ok(body) => {
                let services = crate::domain::bridge_api::services(&body)?;
                let tools = self.tool_lists(&client, &services, settings).await;
                let text = crate::domain::instructions::build(&services, &tools, lang);
                let typed = self.command(tab, &Command::TypeText { text }).await;
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

    /// Each service's tools the AI may call (denied ones left out), in the services' order;
    /// `None` for a service whose list cannot be read (not running).
    async fn tool_lists(
        &self,
        client: &BridgeApiClient<'_, H>,
        services: &[bridge_api::Service],
        settings: &Settings,
    ) -> Vec<Option<Vec<bridge_api::Tool>>> {
        let mut out = Vec::with_capacity(services.len());
        for s in services {
            let answer = client.service_tools_raw(&s.name).await;
            let tools = crate::domain::outcome::json_body(&answer.body)
                .filter(|_| (200..300).contains(&answer.status))
                .and_then(|b| bridge_api::tools(&b))
                .map(|mut tools| {
                    tools.retain(|t| {
                        settings.policy_for(Some(&s.name), &t.name) != ToolPolicy::Deny
                    });
                    tools
                });
            out.push(tools);
        }
        out
    }

    async fn user_action(self: &Rc<Self>, tab: i32, action: UserAction) -> Response {
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
                    let body = crate::domain::call_activity::answer_body(
                        &question_id,
                        &answer,
                        content.as_ref(),
                    );
                    if let Err(why) = self.client(&settings).answer(id, body).await {
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
                let confirm = Event::Confirm {
                    run,
                    always,
                    trust,
                    everywhere,
                };
                self.event(tab, &settings, confirm).await;
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
            | UserAction::Picked { .. } => return Response::error(ERRAND_IN_CHAT_LOOP),
        }
        Response::Ack { recheck_ms: None }
    }
}
