//! The chat loop in the background: what happens when a tab reports a page or a message.
//! [`crate::tab_state`] decides; this module carries the decision out — runs the call
//! through the bridge (at most once: the call's key is stored before the request leaves),
//! builds the report, types it into the chat, submits it, and keeps the float current.

use crate::bridge_client::BridgeClient;
use crate::ext::{self, Area};
use crate::float::{self, ConfirmReason, FloatState};
use crate::messages::{Command, CommandResult, Response, TabRequest, UserAction};
use crate::options_api::chat_settings;
use crate::outcome::{ErrorDetail, ErrorObject, Outcome};
use crate::report::{self, Lang, ReportOptions};
use crate::settings::{LangSetting, Settings};
use crate::sites::{SiteConfig, host_of};
use crate::tab_state::{Decision, Phase, TabState, Update};
use crate::toolcall::{ToolCall, find_last_call};
use std::cell::RefCell;

/// Keys of calls that already ran (or were answered), newest last; survives restarts.
const EXECUTED_KEY: &str = "executedCalls";
const EXECUTED_CAP: usize = 2000;
/// Seconds the bridge may hold one request before answering "still running" (browsers end
/// an extension worker whose fetch takes ~30 s to answer).
const POLL_WAIT_S: u32 = 20;

thread_local! {
    static SITES: RefCell<Option<Vec<SiteConfig>>> = const { RefCell::new(None) };
    /// Tabs whose call runs in this worker (a restarted worker has none and resumes).
    static RUNNING: RefCell<Tabs> = const { RefCell::new(Tabs(Vec::new())) };
    static CANCELLED: RefCell<Tabs> = const { RefCell::new(Tabs(Vec::new())) };
}

/// A set of tab ids. It holds a handful at most, so a `Vec` does the job of a hash set
/// without hashbrown and SipHash in the wasm (issue #4's size budget).
struct Tabs(Vec<i32>);

impl Tabs {
    fn contains(&self, tab: &i32) -> bool {
        self.0.contains(tab)
    }

    /// `false` when it was already there.
    fn insert(&mut self, tab: i32) -> bool {
        let new = !self.contains(&tab);
        if new {
            self.0.push(tab);
        }
        new
    }

    /// `false` when it was not there.
    fn remove(&mut self, tab: &i32) -> bool {
        let before = self.0.len();
        self.0.retain(|t| t != tab);
        self.0.len() != before
    }
}

fn tab_key(tab: i32) -> String {
    format!("tab:{tab}")
}

async fn load_state(tab: i32) -> TabState {
    ext::get(Area::Session, &tab_key(tab))
        .await
        .ok()
        .flatten()
        .unwrap_or_default()
}

async fn save_state(tab: i32, state: &TabState) {
    if let Err(e) = ext::set(Area::Session, &tab_key(tab), state).await {
        web_sys::console::warn_1(&format!("[MCP Bridge] could not save tab state: {e}").into());
    }
}

async fn executed_keys() -> Vec<String> {
    ext::get(Area::Local, EXECUTED_KEY)
        .await
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Records `key` as executed. Called before the bridge sees the call, so a crash, reload or
/// worker restart in between can lose a result but never run the call twice.
async fn mark_executed(key: &str) {
    let mut keys = executed_keys().await;
    if !keys.iter().any(|k| k == key) {
        keys.push(key.to_string());
        let excess = keys.len().saturating_sub(EXECUTED_CAP);
        keys.drain(..excess);
        if let Err(e) = ext::set(Area::Local, EXECUTED_KEY, &keys).await {
            web_sys::console::error_1(&format!("[MCP Bridge] {e}").into());
        }
    }
}

fn lang_of(settings: &Settings) -> Lang {
    match settings.language {
        LangSetting::Zh => Lang::Zh,
        LangSetting::En => Lang::En,
        LangSetting::Auto if ext::ui_language().to_ascii_lowercase().starts_with("zh") => Lang::Zh,
        LangSetting::Auto => Lang::En,
    }
}

fn report_options(settings: &Settings) -> ReportOptions {
    ReportOptions {
        lang: lang_of(settings),
        max_stack_lines: settings.stack_lines as usize,
        ..ReportOptions::default()
    }
}

/// The shipped configs, fetched once per worker.
async fn site_configs() -> Vec<SiteConfig> {
    if let Some(cached) = SITES.with(|s| s.borrow().clone()) {
        return cached;
    }
    let configs = crate::options_api::builtin_sites().await;
    SITES.with(|s| *s.borrow_mut() = Some(configs.clone()));
    configs
}

/// The config for a page, custom sites first so a user can override a built-in one.
async fn site_for(url: &str) -> Option<SiteConfig> {
    let host = host_of(url);
    let custom = crate::options_api::custom_sites().await;
    if let Some(c) = crate::sites::for_host(&custom.0, &host) {
        return Some(c.clone());
    }
    crate::sites::for_host(&site_configs().await, &host).cloned()
}

/// When a shipped config claims this page's host but does not validate, says which file and
/// field, so the float can tell the user instead of the page silently doing nothing.
async fn broken_config_for(url: &str) -> Option<String> {
    let host = host_of(url);
    crate::options_api::builtin_site_files()
        .await
        .into_iter()
        .find_map(|(file, raw)| {
            crate::sites::problem_for_host(&raw, &host)
                .map(|e| format!("the site config {file} is broken ({e}); MCP Bridge is off here"))
        })
}

async fn command(tab: i32, cmd: &Command) -> CommandResult {
    ext::send_to_tab(tab, cmd)
        .await
        .unwrap_or_else(|reason| CommandResult {
            ok: false,
            reason: Some(reason),
        })
}

async fn show(tab: i32, float: FloatState) {
    command(
        tab,
        &Command::FloatState {
            float: Box::new(float),
        },
    )
    .await;
}

pub async fn handle(tab: i32, req: TabRequest) -> Response {
    match req {
        TabRequest::Ping => Response::Pong {
            version: crate::VERSION.into(),
        },
        TabRequest::PageReady { url } => page_ready(tab, &url).await,
        TabRequest::EmptyChat { url } => {
            let settings = chat_settings().await;
            if let Some(site) = site_for(&url).await
                && settings.site(&site.id).auto_insert_instructions
                && let Err(reason) = insert_instructions(tab, &settings).await
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
            message_updated(tab, u).await
        }
        TabRequest::UserMessage => {
            let mut state = load_state(tab).await;
            state.on_user_message();
            save_state(tab, &state).await;
            Response::Ack { recheck_ms: None }
        }
        TabRequest::UserAction { action } => user_action(tab, action).await,
    }
}

async fn page_ready(tab: i32, url: &str) -> Response {
    let settings = chat_settings().await;
    let lang = lang_of(&settings);
    let Some(site) = site_for(url).await else {
        let problem = broken_config_for(url)
            .await
            .unwrap_or_else(|| "no site config for this page".into());
        return Response::PageSetup {
            site: None,
            float: Box::new(float::disabled(lang, &problem)),
            problem: Some(problem),
        };
    };
    if settings.site(&site.id).disabled {
        return Response::PageSetup {
            site: None,
            problem: Some("turned off in the options".into()),
            float: Box::new(float::disabled(lang, &site.name)),
        };
    }
    // A fresh page: forget the previous page's message, keep the round counter.
    let old = load_state(tab).await;
    let mut state = TabState {
        url: url.to_string(),
        auto_rounds: old.auto_rounds,
        ..TabState::default()
    };
    let mut ready = float::ready(lang, &site.name);
    if let Phase::Executing {
        tool, started_ms, ..
    } = &old.phase
    {
        // The page was reloaded while a call ran: keep showing it; the result still comes.
        ready = float::executing(lang, tool, *started_ms);
        state.phase = old.phase.clone();
    }
    save_state(tab, &state).await;
    wasm_bindgen_futures::spawn_local(check_bridge(tab, settings));
    Response::PageSetup {
        site: Some(site),
        problem: None,
        float: Box::new(ready),
    }
}

/// Shows "bridge not running" in the float as soon as a page opens, not only after a call.
async fn check_bridge(tab: i32, settings: Settings) {
    let client = BridgeClient::new(settings.base_url(), &settings.token);
    if let outcome @ Outcome::Unreachable { .. } = client.health_outcome().await {
        let opts = report_options(&settings);
        let r = report::render("health", &serde_json::Value::Null, &outcome, &opts);
        show(
            tab,
            float::finished(opts.lang, &r.float, r.chat_text.as_str(), true, None),
        )
        .await;
    }
}

async fn message_updated(tab: i32, u: Update<'_>) -> Response {
    let settings = chat_settings().await;
    let Some(site) = site_for(u.url).await else {
        return Response::error("this page has no site config");
    };
    let mut state = load_state(tab).await;
    let executed = executed_keys().await;
    let decision = state.on_update(&u, &settings, site.stable_ms, ext::now_ms(), |k| {
        executed.iter().any(|e| e == k)
    });
    let recheck = match &decision {
        Decision::Wait { recheck_ms } => Some(*recheck_ms),
        _ => None,
    };
    resume_if_orphaned(tab, &state, &settings);
    save_state(tab, &state).await;
    carry_out(tab, state, decision, settings).await;
    Response::Ack {
        recheck_ms: recheck,
    }
}

/// After a worker restart the tab may still say "executing" with no one polling: resume.
fn resume_if_orphaned(tab: i32, state: &TabState, settings: &Settings) {
    if let Phase::Executing {
        key,
        tool,
        call_id: Some(call_id),
        ..
    } = &state.phase
    {
        if RUNNING.with(|r| r.borrow().contains(&tab)) {
            return;
        }
        let call = ToolCall {
            tool_name: tool.clone(),
            arguments: serde_json::Value::Null,
            server_name: None,
        };
        let (key, call_id, settings) = (key.clone(), call_id.clone(), settings.clone());
        wasm_bindgen_futures::spawn_local(async move {
            run(tab, key, call, settings, Some(call_id)).await;
        });
    }
}

async fn carry_out(tab: i32, mut state: TabState, decision: Decision, settings: Settings) {
    let lang = lang_of(&settings);
    match decision {
        Decision::Wait { .. } | Decision::Nothing => {}
        Decision::Run { key, call } => {
            wasm_bindgen_futures::spawn_local(run(tab, key, call, settings, None));
        }
        Decision::Confirm { key, call } => {
            let reason = match (&settings.unreadable, settings.auto_execute) {
                (Some(why), _) => ConfirmReason::Unreadable(why.clone()),
                (None, true) => ConfirmReason::Policy,
                (None, false) => ConfirmReason::Manual,
            };
            ask(tab, &mut state, key, call, lang, reason, &settings).await;
        }
        Decision::RoundCap { key, call } => {
            ask(
                tab,
                &mut state,
                key,
                call,
                lang,
                ConfirmReason::RoundCap,
                &settings,
            )
            .await;
        }
        Decision::Deny { key, call } => {
            mark_executed(&key).await;
            let outcome = denied(&call, lang);
            deliver(tab, &call, &outcome, &settings).await;
        }
        Decision::Malformed { key, malformed } => {
            mark_executed(&key).await;
            let r = report::render_malformed(&malformed, &report_options(&settings));
            let text = r.chat_text.to_string();
            let problem = type_and_send(tab, &text, settings.auto_send).await;
            let f = float::finished(lang, &r.float, &text, false, problem);
            show(tab, f).await;
        }
    }
}

async fn ask(
    tab: i32,
    state: &mut TabState,
    key: String,
    call: ToolCall,
    lang: Lang,
    reason: ConfirmReason,
    settings: &Settings,
) {
    let why = float::confirm_reason(lang, reason, settings.max_auto_rounds);
    let f = float::confirm(lang, &call.tool_name, &call.arguments, &why);
    state.phase = Phase::Detected { key, call };
    save_state(tab, state).await;
    show(tab, f).await;
}

/// The report for a call the user's policy does not allow.
fn denied(call: &ToolCall, lang: Lang) -> Outcome {
    let message = match lang {
        Lang::Zh => format!(
            "用户在 MCP Bridge 中禁止了工具 {}，它没有被执行。请不要再调用它；改用其他工具，或请用户在扩展选项中允许它。",
            call.tool_name
        ),
        Lang::En => format!(
            "The user does not allow the tool {} in MCP Bridge; it was not run. Do not call it again: use another tool, or ask the user to allow it in the extension's options.",
            call.tool_name
        ),
    };
    Outcome::HttpError {
        status: 403,
        detail: ErrorDetail::Object {
            error: ErrorObject {
                message,
                error_type: Some("ToolDenied".into()),
                retryable: Some(false),
                ..ErrorObject::default()
            },
        },
        trace_id: None,
    }
}

/// Runs a call and delivers its report. `resume_call_id` continues polling a call a
/// previous worker started.
async fn run(
    tab: i32,
    key: String,
    call: ToolCall,
    settings: Settings,
    resume_call_id: Option<String>,
) {
    if !RUNNING.with(|r| r.borrow_mut().insert(tab)) {
        return;
    }
    // Reports are handled concurrently: a second decision for the same key may arrive
    // after the first run finished. The executed set is the single source of truth.
    if resume_call_id.is_none() && executed_keys().await.contains(&key) {
        RUNNING.with(|r| r.borrow_mut().remove(&tab));
        return;
    }
    CANCELLED.with(|c| c.borrow_mut().remove(&tab));
    mark_executed(&key).await;
    let lang = lang_of(&settings);
    let started = ext::now_ms();
    let mut state = load_state(tab).await;
    if resume_call_id.is_none() {
        state.auto_rounds += 1;
    }
    state.phase = Phase::Executing {
        key: key.clone(),
        tool: call.tool_name.clone(),
        started_ms: started,
        call_id: resume_call_id.clone(),
    };
    save_state(tab, &state).await;
    show(tab, float::executing(lang, &call.tool_name, started)).await;

    let client = BridgeClient::new(settings.base_url(), &settings.token);
    let outcome = if call.tool_name == "list_tools_in_service" {
        None
    } else {
        Some(execute(tab, &client, &call, resume_call_id).await)
    };
    let mut state = load_state(tab).await;
    state.phase = Phase::Injecting { key };
    save_state(tab, &state).await;

    match outcome {
        Some(outcome) => deliver(tab, &call, &outcome, &settings).await,
        None => list_tools(tab, &client, &call, &settings).await,
    }
    RUNNING.with(|r| r.borrow_mut().remove(&tab));
}

/// Sends the call with long-polling; every poll also refreshes the tab state, which keeps
/// the worker alive and records the call id for a resume after a restart.
async fn execute(
    tab: i32,
    client: &BridgeClient,
    call: &ToolCall,
    resume: Option<String>,
) -> Outcome {
    let mut outcome = match resume {
        Some(id) => client.poll(&id, POLL_WAIT_S).await,
        None => {
            client
                .execute(
                    &call.tool_name,
                    &call.arguments,
                    call.server_name.as_deref(),
                    Some(POLL_WAIT_S),
                )
                .await
        }
    };
    while let Outcome::Pending { call_id, .. } = &outcome {
        let call_id = call_id.clone();
        let mut state = load_state(tab).await;
        if let Phase::Executing { call_id: id, .. } = &mut state.phase {
            *id = Some(call_id.clone());
        }
        save_state(tab, &state).await;
        if CANCELLED.with(|c| c.borrow_mut().remove(&tab)) {
            client.cancel(&call_id).await;
            return Outcome::aborted();
        }
        outcome = client.poll(&call_id, POLL_WAIT_S).await;
    }
    if CANCELLED.with(|c| c.borrow_mut().remove(&tab)) {
        return Outcome::aborted();
    }
    outcome
}

async fn list_tools(tab: i32, client: &BridgeClient, call: &ToolCall, settings: &Settings) {
    let service = call
        .arguments
        .get("service_name")
        .and_then(|s| s.as_str())
        .unwrap_or_default()
        .to_string();
    let (status, trace, body) = client.service_tools_raw(&service).await;
    let body = without_denied_tools(&service, body, settings);
    let opts = report_options(settings);
    let r = report::render_tool_list(&service, status, trace.as_deref(), &body, &opts);
    let text = r.chat_text.to_string();
    let problem = type_and_send(tab, &text, settings.auto_send).await;
    finish(
        tab,
        float::finished(opts.lang, &r.float, &text, status == 0, problem),
        false,
    )
    .await;
}

/// Denied tools are left out of what the AI is told about a service.
fn without_denied_tools(service: &str, body: Vec<u8>, settings: &Settings) -> Vec<u8> {
    let Some(mut json) = crate::outcome::json_body(&body) else {
        return body;
    };
    let Some(tools) = json
        .pointer_mut("/tools/tools")
        .and_then(|t| t.as_array_mut())
    else {
        return body;
    };
    tools.retain(|t| {
        let name = t.get("name").and_then(|n| n.as_str()).unwrap_or_default();
        settings.policy_for(Some(service), name) != crate::settings::ToolPolicy::Deny
    });
    serde_json::to_vec(&json).unwrap_or(body)
}

/// Builds the report for an outcome, keeps the unmasked record inside the extension, types
/// the masked text into the chat and sends it.
async fn deliver(tab: i32, call: &ToolCall, outcome: &Outcome, settings: &Settings) {
    let opts = report_options(settings);
    let r = report::render(&call.tool_name, &call.arguments, outcome, &opts);
    if let Some(record) = &r.record {
        let js = crate::background::to_js(record);
        web_sys::console::error_2(&"[MCP Bridge] Tool error details:".into(), &js);
        crate::options_api::record_failure(Some(site_name_of_tab(tab).await), record.clone()).await;
    }
    let text = r.chat_text.to_string();
    let problem = type_and_send(tab, &text, settings.auto_send).await;
    let unreachable = matches!(outcome, Outcome::Unreachable { .. });
    let failed = r.record.is_some();
    finish(
        tab,
        float::finished(opts.lang, &r.float, &text, unreachable, problem),
        failed,
    )
    .await;
}

async fn site_name_of_tab(tab: i32) -> String {
    host_of(&load_state(tab).await.url)
}

async fn finish(tab: i32, f: FloatState, failed: bool) {
    let mut state = load_state(tab).await;
    state.phase = if failed { Phase::Error } else { Phase::Done };
    save_state(tab, &state).await;
    show(tab, f).await;
}

/// Types `text`, checks it landed, and submits when asked. `Some(reason)` when the text did
/// not make it; the float then offers it for copying, so a result is never lost.
async fn type_and_send(tab: i32, text: &str, auto_send: bool) -> Option<String> {
    let typed = command(
        tab,
        &Command::TypeText {
            text: text.to_string(),
        },
    )
    .await;
    if !typed.ok {
        return Some(typed.reason.unwrap_or_else(|| "typing failed".into()));
    }
    if auto_send {
        let sent = command(tab, &Command::Submit).await;
        if !sent.ok {
            return Some(sent.reason.unwrap_or_else(|| "sending failed".into()));
        }
    }
    None
}

/// Types the instructions (services from `GET /tools`) into the chat input, without sending.
/// When the bridge cannot be asked, the float says why instead.
async fn insert_instructions(tab: i32, settings: &Settings) -> Result<(), String> {
    let lang = lang_of(settings);
    let client = BridgeClient::new(settings.base_url(), &settings.token);
    match client.services().await {
        Ok(body) => {
            let services = crate::instructions::services_from(&body)?;
            let text = crate::instructions::build(&services, lang);
            let typed = command(tab, &Command::TypeText { text }).await;
            if typed.ok {
                Ok(())
            } else {
                Err(typed.reason.unwrap_or_default())
            }
        }
        Err(outcome) => {
            let opts = report_options(settings);
            let r = report::render("list_services", &serde_json::Value::Null, &outcome, &opts);
            let unreachable = matches!(outcome, Outcome::Unreachable { .. });
            show(
                tab,
                float::finished(lang, &r.float, r.chat_text.as_str(), unreachable, None),
            )
            .await;
            Ok(())
        }
    }
}

async fn user_action(tab: i32, action: UserAction) -> Response {
    let settings = chat_settings().await;
    let lang = lang_of(&settings);
    let mut state = load_state(tab).await;
    match action {
        UserAction::InsertInstructions => {
            if let Err(reason) = insert_instructions(tab, &settings).await {
                return Response::error(reason);
            }
        }
        UserAction::Redetect { index, text } => {
            let executed = executed_keys().await;
            let decision =
                state.redetect(&text, index, &settings, |k| executed.iter().any(|e| e == k));
            save_state(tab, &state).await;
            if decision == Decision::Nothing {
                show(tab, float::ready(lang, &host_of(&state.url))).await;
            }
            carry_out(tab, state, decision, settings).await;
        }
        UserAction::ManualInput { text } => match find_last_call(&text) {
            Some(Ok(call)) => {
                // An explicit request of the user: its own key, so pasting again runs again.
                let key = format!("manual:{}:{}", ext::now_ms(), call.fingerprint());
                let decision =
                    match settings.policy_for(call.server_name.as_deref(), &call.tool_name) {
                        crate::settings::ToolPolicy::Deny => Decision::Deny { key, call },
                        _ => Decision::Run { key, call },
                    };
                carry_out(tab, state, decision, settings).await;
            }
            Some(Err(malformed)) => {
                let r = report::render_malformed(&malformed, &report_options(&settings));
                show(
                    tab,
                    float::finished(lang, &r.float, r.chat_text.as_str(), false, None),
                )
                .await;
            }
            None => return Response::error("no complete <tool_code> call in the text"),
        },
        UserAction::Cancel => {
            CANCELLED.with(|c| c.borrow_mut().insert(tab));
            if let Phase::Executing {
                call_id: Some(id), ..
            } = &state.phase
            {
                BridgeClient::new(settings.base_url(), &settings.token)
                    .cancel(id)
                    .await;
            }
        }
        UserAction::Confirm { run: go } => {
            if let Phase::Detected { key, call } = std::mem::take(&mut state.phase) {
                save_state(tab, &state).await;
                if go {
                    // The user's go also starts a fresh count of automatic rounds.
                    let mut s = load_state(tab).await;
                    s.on_user_message();
                    save_state(tab, &s).await;
                    wasm_bindgen_futures::spawn_local(run(tab, key, call, settings, None));
                } else {
                    mark_executed(&key).await;
                    show(tab, float::ready(lang, &host_of(&state.url))).await;
                }
            }
        }
        UserAction::OpenDetails => {
            if let Err(e) = ext::open_options_page().await {
                return Response::error(e);
            }
        }
    }
    Response::Ack { recheck_ms: None }
}
