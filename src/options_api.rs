//! The options page's requests, answered in the background: settings, connection test,
//! call history, tools and policies, the error log, custom sites. This is the browser edge
//! (storage, HTTP, `chrome.scripting`); every verdict comes from the pure modules
//! `options_views`, `error_log` and `custom_sites`.

use crate::bridge_client::BridgeClient;
use crate::custom_sites::{self, CustomSites};
use crate::error_log::{ErrorLog, Filter};
use crate::ext::{self, Area};
use crate::messages::{PageRequest, Response};
use crate::options_views::{self as views, Lang, Problem, Reply};
use crate::report::ErrorRecord;
use crate::settings::{Settings, ToolPolicy};
use crate::sites::SiteConfig;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

/// Storage key of the settings object in `chrome.storage.local`.
pub const SETTINGS_KEY: &str = "settings";
/// Storage key of the error log ([`ErrorLog`]).
pub const ERROR_LOG_KEY: &str = "errorLog";
/// Storage key of the user's own site configs ([`CustomSites`]).
pub const CUSTOM_SITES_KEY: &str = "customSites";

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "permissions"], js_name = contains, catch)]
    async fn permissions_contains(perms: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = registerContentScripts, catch)]
    async fn scripting_register(scripts: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = unregisterContentScripts, catch)]
    async fn scripting_unregister(filter: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = getRegisteredContentScripts, catch)]
    async fn scripting_registered(filter: JsValue) -> Result<JsValue, JsValue>;
}

/// The stored settings, the defaults when none are stored, or what [`Settings::from_stored`]
/// keeps of stored settings that no longer validate (the chat loop uses the same). A refused
/// storage read is an error: a save merged into the defaults would silently drop the
/// user's policies.
async fn load_settings() -> Result<Settings, Problem> {
    match stored_settings().await {
        Ok(stored) => Ok(Settings::from_stored(Ok(stored))),
        Err(e) => Err(problem("storage", None, e)),
    }
}

/// The stored settings as they are, unchecked; `Ok(None)` when none are stored.
async fn stored_settings() -> Result<Option<Value>, String> {
    ext::get_value(Area::Local, SETTINGS_KEY).await
}

/// The settings the chat loop acts on ([`Settings::from_stored`]): a refused storage read is
/// tried once more, and if the settings still cannot be known, no call runs by itself.
pub async fn chat_settings() -> Settings {
    let mut read = stored_settings().await;
    if read.is_err() {
        read = stored_settings().await;
    }
    let settings = Settings::from_stored(read);
    // The chat loop reads the settings on every update of a streaming answer: say each
    // problem once, not once per update.
    let told = WARNED.with(|w| w.replace(settings.unreadable.clone())) == settings.unreadable;
    if let Some(problem) = &settings.unreadable
        && !told
    {
        web_sys::console::warn_1(
            &format!("[MCP Bridge] stored settings unusable ({problem}); every tool call waits for the user's go").into(),
        );
    }
    settings
}

thread_local! {
    /// The last settings problem the console was told about.
    static WARNED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// Failures waiting to be written, and whether a write is under way: the chat loops of
    /// several tabs may fail at once, and a read-modify-write each would lose records.
    static PENDING: std::cell::RefCell<Vec<(f64, Option<String>, ErrorRecord)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    static WRITING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Keeps the unmasked record of a failed tool call for the error log (called by the chat
/// loop). `site` is the chat page's host. Never fails the caller: a storage error is
/// logged to the console. Concurrent calls are written one batch at a time.
pub async fn record_failure(site: Option<String>, record: ErrorRecord) {
    let site = site.filter(|s| !s.is_empty());
    PENDING.with(|p| p.borrow_mut().push((ext::now_ms(), site, record)));
    if WRITING.with(|w| w.replace(true)) {
        return; // the write under way picks this one up
    }
    loop {
        let batch = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
        if batch.is_empty() {
            break;
        }
        let mut log = stored_log().await;
        for (time, site, record) in batch {
            log.push(time, site, record);
        }
        if let Err(e) = ext::set(Area::Local, ERROR_LOG_KEY, &log).await {
            web_sys::console::warn_1(&format!("[MCP Bridge] error log not saved: {e}").into());
        }
    }
    WRITING.with(|w| w.set(false));
}

/// The user's custom site configs (for matching a page's host in the chat loop).
pub async fn custom_sites() -> CustomSites {
    CustomSites::from_stored(
        ext::get_value(Area::Local, CUSTOM_SITES_KEY)
            .await
            .ok()
            .flatten(),
    )
}

/// The shipped site config files (`sites/index.json` and the files it lists) as
/// `(file name, JSON text)`, unparsed, so callers can say what is wrong with a broken one.
pub async fn builtin_site_files() -> Vec<(String, String)> {
    let Some(index) = ext::fetch_own("sites/index.json").await else {
        return Vec::new();
    };
    let files: Vec<String> = crate::json_read::read(&index).unwrap_or_default();
    let mut out = Vec::new();
    for f in files {
        if let Some(raw) = ext::fetch_own(&format!("sites/{f}")).await {
            out.push((f, raw));
        }
    }
    out
}

/// The shipped site configs that validate.
pub async fn builtin_sites() -> Vec<SiteConfig> {
    builtin_site_files()
        .await
        .iter()
        .filter_map(|(_, raw)| SiteConfig::parse(raw).ok())
        .collect()
}

pub async fn handle(req: PageRequest) -> Response {
    let result = match req {
        PageRequest::GetHealth => health().await,
        PageRequest::GetSettings => load_settings().await.map(|s| views::settings_answer(&s)),
        PageRequest::SaveSettings { settings } => save_settings(settings).await,
        PageRequest::TestConnection { bridge_url, token } => {
            test_connection(&bridge_url, &token).await
        }
        PageRequest::ResetHistory {
            server_name,
            tool_name,
        } => reset_history(server_name, tool_name).await,
        PageRequest::GetHistory => history().await,
        PageRequest::GetTools => tools().await,
        PageRequest::SetToolPolicy { key, policy } => set_policy(key, policy).await,
        PageRequest::GetErrorLog { filter } => error_log(&filter).await,
        PageRequest::ExportErrorLog { filter } => export_log(&filter).await,
        PageRequest::ClearErrorLog => {
            let mut log = stored_log().await;
            let cleared = log.len();
            log.clear();
            store(ERROR_LOG_KEY, &log).await.map(|()| json!({ "cleared": cleared }))
        }
        PageRequest::CheckCustomSite { json } => check_site(&json).await.map(|(cfg, replaces)| {
            json!({ "site": cfg, "origins": custom_sites::origins(&cfg), "replaces": replaces })
        }),
        PageRequest::SaveCustomSite { json } => save_site(&json).await,
        PageRequest::RemoveCustomSite { id } => remove_site(&id).await,
        PageRequest::ListSites => list_sites().await,
    };
    match result {
        Ok(data) => Response::Data { data },
        Err(p) => Response::Error {
            message: p.message,
            field: p.field,
        },
    }
}

fn problem(kind: &'static str, field: Option<&str>, message: String) -> Problem {
    Problem {
        kind,
        field: field.map(str::to_string),
        message,
    }
}

fn filter_problem((field, message): (String, String)) -> Problem {
    problem("invalid", Some(&field), message)
}

async fn store<T: serde::Serialize + ?Sized>(key: &str, value: &T) -> Result<(), Problem> {
    ext::set(Area::Local, key, value)
        .await
        .map_err(|e| problem("storage", None, e))
}

async fn store_settings(s: &Settings) -> Result<(), Problem> {
    store(SETTINGS_KEY, s).await
}

async fn stored_log() -> ErrorLog {
    ErrorLog::from_stored(
        ext::get_value(Area::Local, ERROR_LOG_KEY)
            .await
            .ok()
            .flatten(),
    )
}

/// The options page speaks the browser's UI language (chrome.i18n), and so do the core's
/// messages to it.
fn page_lang() -> Lang {
    if ext::ui_language().to_ascii_lowercase().starts_with("zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// The stored address and token, refusing to call the bridge without a token.
async fn connection() -> Result<(String, BridgeClient), Problem> {
    let s = load_settings().await?;
    let base = views::check_connection_input(page_lang(), &s.bridge_url, &s.token)?;
    let client = BridgeClient::new(&base, &s.token);
    Ok((base, client))
}

// ---------------------------------------------------------------------------------------
// the requests
// ---------------------------------------------------------------------------------------

/// [`views::authed_verdict`], telling a refusal the browser hid (the bridge answers
/// `/health` but not this route) from a bridge that is not running.
async fn authed(base: &str, client: &BridgeClient, reply: Reply) -> Result<Value, Problem> {
    match views::authed_verdict(page_lang(), base, &reply) {
        Err(p) if p.kind == "not-running" => {
            let health = Reply::from_client(client.health().await);
            match (views::health_verdict(page_lang(), base, &health), &reply) {
                (Ok(version), Reply::Unreachable(why)) => {
                    Err(views::hidden_refusal(page_lang(), base, &version, why))
                }
                _ => Err(p),
            }
        }
        other => other,
    }
}

async fn health() -> Result<Value, Problem> {
    let s = load_settings().await?;
    let base = s.base_url().to_string();
    let reply = Reply::from_client(BridgeClient::new(&base, "").health().await);
    let version = views::health_verdict(page_lang(), &base, &reply)?;
    Ok(json!({ "url": base, "version": version }))
}

async fn set_policy(key: String, policy: ToolPolicy) -> Result<Value, Problem> {
    let current = load_settings().await?;
    let updated = views::set_policy(&current, &key, policy)?;
    store_settings(&updated).await?;
    Ok(json!({ "key": key, "policy": policy }))
}

async fn save_settings(submitted: Value) -> Result<Value, Problem> {
    let current = load_settings().await?;
    let merged = views::merge_settings(&current, &submitted)?;
    store_settings(&merged).await?;
    Ok(json!(merged))
}

async fn test_connection(bridge_url: &str, token: &str) -> Result<Value, Problem> {
    let base = views::check_connection_input(page_lang(), bridge_url, token)?;
    let client = BridgeClient::new(&base, token);
    let version = views::health_verdict(
        page_lang(),
        &base,
        &Reply::from_client(client.health().await),
    )?;
    let body = authed(&base, &client, Reply::from_client(client.services().await)).await?;
    let services = views::services(&body)?;
    Ok(views::connection_report(&version, &base, services))
}

async fn history() -> Result<Value, Problem> {
    let (base, client) = connection().await?;
    let body = authed(&base, &client, Reply::from_client(client.history().await)).await?;
    Ok(views::history_view(&body))
}

async fn reset_history(server: Option<String>, tool: Option<String>) -> Result<Value, Problem> {
    let (base, client) = connection().await?;
    let server = server.filter(|s| !s.is_empty());
    let tool = tool.filter(|t| !t.is_empty());
    let answer = client
        .reset_history(server.as_deref(), tool.as_deref())
        .await;
    let done = authed(&base, &client, Reply::from_client(answer)).await?;
    // Show the counters as they are now, so the page never shows a stale refusal.
    let after = views::authed_verdict(
        page_lang(),
        &base,
        &Reply::from_client(client.history().await),
    )
    .map(|b| views::history_view(&b))
    .unwrap_or(Value::Null);
    let mut out = views::reset_view(&done);
    out["history"] = after;
    Ok(out)
}

async fn tools() -> Result<Value, Problem> {
    let (base, client) = connection().await?;
    let settings = load_settings().await?;
    let body = authed(&base, &client, Reply::from_client(client.services().await)).await?;
    let services = views::services(&body)?;
    let mut out = Vec::new();
    for svc in &services {
        let (status, _, body) = client.service_tools_raw(&svc.name).await;
        let reply = views::authed_verdict(page_lang(), &base, &Reply::from_raw(status, &body));
        out.push(views::service_tools(svc, reply, &settings));
    }
    Ok(json!({ "services": out }))
}

async fn error_log(filter: &Filter) -> Result<Value, Problem> {
    ErrorLog::check_filter(filter).map_err(filter_problem)?;
    Ok(json!(stored_log().await.view(filter)))
}

async fn export_log(filter: &Filter) -> Result<Value, Problem> {
    ErrorLog::check_filter(filter).map_err(filter_problem)?;
    let (filename, text) = stored_log().await.export(filter, ext::now_ms());
    Ok(json!({ "filename": filename, "json": text }))
}

async fn check_site(json_text: &str) -> Result<(SiteConfig, bool), Problem> {
    let builtin = builtin_sites().await;
    custom_sites()
        .await
        .check(json_text, &builtin)
        .map_err(|e| problem("invalid", Some(&e.field), e.message))
}

async fn save_site(json_text: &str) -> Result<Value, Problem> {
    let (cfg, replaces) = check_site(json_text).await?;
    let origins = custom_sites::origins(&cfg);
    let granted = permissions_contains(ext_js(&json!({ "origins": origins }))?)
        .await
        .map(|v| v.as_bool() == Some(true))
        .unwrap_or(false);
    if !granted {
        return Err(problem(
            "permission",
            Some("hosts"),
            format!(
                "permission to run on {} was not granted, so nothing was saved",
                origins.join(", ")
            ),
        ));
    }
    let id = custom_sites::script_id(&cfg.id);
    unregister(&id).await;
    let script = json!([{
        "id": id,
        "matches": origins,
        "js": ["contract.js", "content.js"],
        "runAt": "document_idle",
        "persistAcrossSessions": true,
    }]);
    scripting_register(ext_js(&script)?).await.map_err(|e| {
        problem(
            "scripting",
            None,
            ext::js_err("registering the content script failed", &e),
        )
    })?;
    let mut sites = custom_sites().await;
    sites.upsert(cfg.clone());
    store(CUSTOM_SITES_KEY, &sites).await?;
    Ok(json!({ "site": cfg, "replaced": replaces, "origins": origins }))
}

async fn remove_site(id: &str) -> Result<Value, Problem> {
    let mut sites = custom_sites().await;
    let origins = sites.get(id).map(custom_sites::origins).unwrap_or_default();
    if !sites.remove(id) {
        return Err(problem(
            "invalid",
            Some("id"),
            format!("there is no custom site '{id}'"),
        ));
    }
    unregister(&custom_sites::script_id(id)).await;
    store(CUSTOM_SITES_KEY, &sites).await?;
    Ok(json!({ "removed": id, "origins": origins }))
}

/// Removes a registered script if there is one (a missing id is not an error for us).
async fn unregister(id: &str) {
    let filter = json!({ "ids": [id] });
    let Ok(filter) = ext_js(&filter) else { return };
    let present = scripting_registered(filter.clone())
        .await
        .map(|v| js_sys::Array::from(&v).length() > 0)
        .unwrap_or(false);
    if present {
        let _ = scripting_unregister(filter).await;
    }
}

async fn list_sites() -> Result<Value, Problem> {
    let settings = load_settings().await?;
    let custom = custom_sites().await;
    let mut rows = Vec::new();
    for (cfg, builtin) in builtin_sites()
        .await
        .into_iter()
        .map(|c| (c, true))
        .chain(custom.0.into_iter().map(|c| (c, false)))
    {
        let s = settings.site(&cfg.id);
        rows.push(json!({
            "id": cfg.id,
            "name": cfg.name,
            "hosts": cfg.hosts,
            "builtin": builtin,
            "enabled": !s.disabled,
            "autoInsert": s.auto_insert_instructions,
            "json": if builtin { Value::Null } else {
                Value::String(serde_json::to_string_pretty(&cfg).unwrap_or_default())
            },
        }));
    }
    Ok(json!({ "sites": rows }))
}

fn ext_js(v: &Value) -> Result<JsValue, Problem> {
    ext::to_js(v).map_err(|e| problem("internal", None, e))
}
