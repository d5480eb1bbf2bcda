//! The one owner of everything the extension keeps: every storage key, the shape stored
//! under it, and the schema version. The chat loop and the options backend read and write
//! through here and nowhere else (`docs/ARCHITECTURE.md`, "Storage").

use super::host::{Area, Host, Level};
use crate::domain::call_log::{self, CallLog};
use crate::domain::custom_sites::CustomSites;
use crate::domain::error_log::ErrorLog;
use crate::domain::field_error::FieldError;
use crate::domain::json_read;
use crate::domain::report::ErrorRecord;
use crate::domain::settings::Settings;
use crate::domain::sites::SiteConfig;
use crate::domain::tab_state::TabState;
use serde::Serialize;
use serde_json::Value;
use std::cell::{Cell, RefCell};

/// The storage keys, all of them. The content script keeps one more of its own, the float's
/// position per site (`floatPos:<site id>` in local storage), which the core never reads.
pub mod keys {
    /// Local: [`super::Settings`].
    pub const SETTINGS: &str = "settings";
    /// Local: [`super::ErrorLog`], the last failures, unmasked.
    pub const ERROR_LOG: &str = "errorLog";
    /// Local: [`super::CustomSites`], the user's own site configs.
    pub const CUSTOM_SITES: &str = "customSites";
    /// Local: [`crate::domain::site_list::Subscription`], the subscribed site list.
    pub const SITE_LIST: &str = "siteList";
    /// Local: keys of calls that already ran (or were answered), newest last.
    pub const EXECUTED: &str = "executedCalls";
    /// Local: conversations (addresses without fragment) that read untrusted content, each
    /// with the tool it came from, newest last.
    pub const UNTRUSTED_CHATS: &str = "untrustedChats";
    /// Local: [`crate::domain::call_log::CallLog`], the calls that left for the bridge.
    pub const CALL_LOG: &str = "callLog";
    /// Local: the schema version the stored values were written in.
    pub const SCHEMA_VERSION: &str = "schemaVersion";
    /// Local: the content script's files custom sites were last registered with.
    pub const CONTENT_SCRIPTS: &str = "contentScripts";
    /// Session: prefix of one tab's [`super::TabState`] (`tab:<id>`).
    pub const TAB_PREFIX: &str = "tab:";
    /// Session: prefix of the MCP App views a tab's float shows
    /// ([`crate::domain::views::View`], the newest last: `views:<id>`), kept for a restarted
    /// worker to answer them.
    pub const VIEWS_PREFIX: &str = "views:";
    /// Session: prefix of the tools' fingerprint as a tab's AI last got them in its
    /// instructions (`toldTools:<id>`); apart from the tab state, because inserting the
    /// instructions is not an event of the tab's queue (it changes nothing the chat loop
    /// decides on), so the two writes never meet.
    pub const TOLD_TOOLS_PREFIX: &str = "toldTools:";
}

/// The schema this build writes. Version 1 is every build before the key existed; version 2
/// stores the same shapes, records its number, and registers custom sites' content scripts
/// with the message names they need; version 3 registers them again with rooted file paths
/// (Firefox had resolved the plain ones against the options page's folder); version 4 with
/// the content script's files (`sites::CONTENT_SCRIPTS`: it became several). Since then the
/// list the scripts were registered with is stored beside the version, and a build whose
/// list differs registers them again without a new version.
pub const SCHEMA_VERSION: u32 = 4;

/// How many marked conversations are kept (the oldest go first).
const UNTRUSTED_CAP: usize = 1000;

/// How many executed-call keys are kept.
const EXECUTED_CAP: usize = 2000;

/// One change to the stored call log.
pub enum CallLogChange {
    Add(Box<call_log::LoggedCall>),
    Remove(u64),
}

/// Changes to one stored value that several tasks may make at once, written one batch at a
/// time: a read-modify-write each would lose some.
struct Batched<T> {
    pending: RefCell<Vec<T>>,
    writing: Cell<bool>,
}

impl<T> Default for Batched<T> {
    fn default() -> Self {
        Batched {
            pending: RefCell::new(Vec::new()),
            writing: Cell::new(false),
        }
    }
}

impl<T> Batched<T> {
    /// Queues `item`; unless a write is under way (which picks it up), writes every batch
    /// with `write` until none is left.
    async fn add(&self, item: T, mut write: impl AsyncFnMut(Vec<T>)) {
        self.pending.borrow_mut().push(item);
        if self.writing.replace(true) {
            return;
        }
        loop {
            let batch = std::mem::take(&mut *self.pending.borrow_mut());
            if batch.is_empty() {
                break;
            }
            write(batch).await;
        }
        self.writing.set(false);
    }
}

/// One worker's access to storage and the shipped files.
pub struct Store<H: Host> {
    host: H,
    /// The shipped site config files, fetched once per worker.
    site_files: RefCell<Option<Vec<(String, String)>>>,
    /// The ones of those that validate, parsed once.
    sites: RefCell<Option<Vec<SiteConfig>>>,
    /// Failures waiting for the error log: the chat loops of several tabs may fail at once.
    failures: Batched<(f64, Option<String>, ErrorRecord)>,
    /// Changes waiting for the call log: several tabs' calls may start at once.
    calls: Batched<CallLogChange>,
    /// The last settings problem the console was told about.
    warned: RefCell<Option<FieldError>>,
}

impl<H: Host> Store<H> {
    pub fn new(host: H) -> Store<H> {
        Store {
            host,
            site_files: RefCell::new(None),
            sites: RefCell::new(None),
            failures: Batched::default(),
            calls: Batched::default(),
            warned: RefCell::new(None),
        }
    }

    async fn get(&self, area: Area, key: &str) -> Result<Option<Value>, String> {
        self.host.storage_get(area, key).await
    }

    async fn set<T: Serialize + ?Sized>(&self, area: Area, key: &str, v: &T) -> Result<(), String> {
        let json = serde_json::to_string(v).map_err(|e| e.to_string())?;
        self.host.storage_set(area, key, json).await
    }

    /// Brings stored values written by an older build up to [`SCHEMA_VERSION`]. Run once
    /// per worker before anything else is read; a failure is logged and changes nothing.
    pub async fn migrate(&self) {
        let version = match self.get(Area::Local, keys::SCHEMA_VERSION).await {
            Ok(v) => v.and_then(|v| v.as_u64()).unwrap_or(1),
            Err(e) => {
                self.host.log(Level::Warn, &format!("[MCP Bridge] {e}"));
                return;
            }
        };
        let files = crate::domain::sites::CONTENT_SCRIPTS;
        let registered_with = self.get(Area::Local, keys::CONTENT_SCRIPTS).await;
        let registered_with = registered_with.ok().flatten();
        let same_files = registered_with
            .as_ref()
            .and_then(|v| v.as_array())
            .is_some_and(|v| {
                v.len() == files.len() && v.iter().zip(files).all(|(a, b)| a.as_str() == Some(b))
            });
        if version >= u64::from(SCHEMA_VERSION) && same_files {
            return;
        }
        // 1 → 2 → 3 → 4 and any change of the file list: the stored shapes did not change,
        // but the content script of a custom site needs the message names loaded before it,
        // from rooted paths, as today's files: register each one again. An override of a
        // shipped site has none (the manifest's runs).
        let builtin = self.builtin_sites().await;
        for site in self.custom_sites().await.0 {
            if crate::domain::custom_sites::is_override(&site, &builtin) {
                continue;
            }
            let id = crate::domain::custom_sites::script_id(&site.id);
            let origins = crate::domain::custom_sites::origins(&site);
            self.host.unregister_content_script(&id).await;
            if let Err(e) = self.host.register_content_script(&id, &origins).await {
                self.host.log(Level::Warn, &format!("[MCP Bridge] {e}"));
            }
        }
        // A newer build's version is kept (a downgrade only registers its own files).
        let version = version.max(u64::from(SCHEMA_VERSION));
        for (key, value) in [
            (keys::SCHEMA_VERSION, serde_json::json!(version)),
            (keys::CONTENT_SCRIPTS, serde_json::json!(files)),
        ] {
            if let Err(e) = self.set(Area::Local, key, &value).await {
                self.host.log(Level::Warn, &format!("[MCP Bridge] {e}"));
            }
        }
    }

    // -- settings --------------------------------------------------------------------

    /// The stored settings as they are, unchecked; `Ok(None)` when none are stored.
    pub async fn settings_value(&self) -> Result<Option<Value>, String> {
        self.get(Area::Local, keys::SETTINGS).await
    }

    /// The settings the chat loop acts on ([`Settings::from_stored`]): a refused storage read
    /// is tried once more, and if the settings still cannot be known, no call runs by itself.
    pub async fn chat_settings(&self) -> Settings {
        let mut read = self.settings_value().await;
        if read.is_err() {
            read = self.settings_value().await;
        }
        let settings = Settings::from_stored(read);
        // The chat loop reads the settings on every update of a streaming answer: say each
        // problem once, not once per update.
        let told = self.warned.replace(settings.unreadable.clone()) == settings.unreadable;
        if let Some(problem) = &settings.unreadable
            && !told
        {
            // In English: the developer console is not the user's page.
            self.host.log(
                Level::Warn,
                &format!("[MCP Bridge] stored settings unusable ({problem}); every tool call waits for the user's go"),
            );
        }
        settings
    }

    /// The settings for the options page: as the chat loop sees them, but a refused storage
    /// read is an error (a save merged into the defaults would drop the user's policies).
    pub async fn settings(&self) -> Result<Settings, String> {
        self.settings_value()
            .await
            .map(|stored| Settings::from_stored(Ok(stored)))
    }

    pub async fn save_settings(&self, settings: &Settings) -> Result<(), String> {
        self.set(Area::Local, keys::SETTINGS, settings).await
    }

    // -- tab state -------------------------------------------------------------------

    /// One tab's state; a fresh one when none is stored or it cannot be read. The chat
    /// loop reads it once per event of the tab and writes it back once (`runtime::chat`).
    pub async fn tab(&self, tab: i32) -> TabState {
        let key = format!("{}{tab}", keys::TAB_PREFIX);
        match self.get(Area::Session, &key).await {
            Ok(Some(v)) => json_read::from_value(&v).unwrap_or_default(),
            _ => TabState::default(),
        }
    }

    pub async fn save_tab(&self, tab: i32, state: &TabState) {
        let key = format!("{}{tab}", keys::TAB_PREFIX);
        if let Err(e) = self.set(Area::Session, &key, state).await {
            let m = format!("[MCP Bridge] could not save tab state: {e}");
            self.host.log(Level::Warn, &m);
        }
    }

    /// The MCP App views tab `tab`'s float shows, the newest last.
    pub async fn views(&self, tab: i32) -> Vec<crate::domain::views::View> {
        let key = format!("{}{tab}", keys::VIEWS_PREFIX);
        match self.get(Area::Session, &key).await {
            Ok(Some(v)) => json_read::from_value(&v).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    pub async fn save_views(&self, tab: i32, views: &[crate::domain::views::View]) {
        let key = format!("{}{tab}", keys::VIEWS_PREFIX);
        if let Err(e) = self.set(Area::Session, &key, &views).await {
            let m = format!("[MCP Bridge] could not save the tab's views: {e}");
            self.host.log(Level::Warn, &m);
        }
    }

    /// The tools' fingerprint as this tab's AI last got them
    /// ([`crate::domain::instructions::fingerprint`]), if it got instructions here.
    pub async fn told_tools(&self, tab: i32) -> Option<String> {
        let key = format!("{}{tab}", keys::TOLD_TOOLS_PREFIX);
        match self.get(Area::Session, &key).await {
            Ok(Some(serde_json::Value::String(s))) => Some(s),
            _ => None,
        }
    }

    pub async fn set_told_tools(&self, tab: i32, fingerprint: &str) {
        let key = format!("{}{tab}", keys::TOLD_TOOLS_PREFIX);
        if let Err(e) = self.set(Area::Session, &key, &fingerprint).await {
            let m = format!("[MCP Bridge] could not save the tools told: {e}");
            self.host.log(Level::Warn, &m);
        }
    }

    // -- executed calls --------------------------------------------------------------

    /// Keys of calls that already ran, newest last; survives restarts.
    pub async fn executed(&self) -> Vec<String> {
        match self.get(Area::Local, keys::EXECUTED).await {
            Ok(Some(v)) => json_read::from_value(&v).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Records `key` as executed. Called before the bridge sees the call, so a crash, reload
    /// or worker restart in between can lose a result but never run the call twice.
    pub async fn mark_executed(&self, key: &str) {
        let mut keys = self.executed().await;
        if keys.iter().any(|k| k == key) {
            return;
        }
        keys.push(key.to_string());
        let excess = keys.len().saturating_sub(EXECUTED_CAP);
        keys.drain(..excess);
        if let Err(e) = self.set(Area::Local, keys::EXECUTED, &keys).await {
            self.host.log(Level::Error, &format!("[MCP Bridge] {e}"));
        }
    }

    /// The tool whose untrusted content `conversation` read, if it did.
    pub async fn untrusted_mark(&self, conversation: &str) -> Option<String> {
        let marks = self.untrusted_marks().await;
        marks
            .into_iter()
            .find_map(|(c, tool)| (c == conversation).then_some(tool))
    }

    async fn untrusted_marks(&self) -> Vec<(String, String)> {
        match self.get(Area::Local, keys::UNTRUSTED_CHATS).await {
            Ok(Some(v)) => json_read::from_value(&v).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Keeps that `conversation` read untrusted content from `tool`.
    pub async fn mark_untrusted(&self, conversation: &str, tool: &str) {
        let mut marks = self.untrusted_marks().await;
        if marks.iter().any(|(c, _)| c == conversation) {
            return;
        }
        marks.push((conversation.to_string(), tool.to_string()));
        let excess = marks.len().saturating_sub(UNTRUSTED_CAP);
        marks.drain(..excess);
        if let Err(e) = self.set(Area::Local, keys::UNTRUSTED_CHATS, &marks).await {
            self.host.log(Level::Error, &format!("[MCP Bridge] {e}"));
        }
    }

    // -- call log --------------------------------------------------------------------

    pub async fn call_log(&self) -> CallLog {
        let stored: Option<Value> = self.get(Area::Local, keys::CALL_LOG).await.ok().flatten();
        stored
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default()
    }

    /// Adds a call that leaves for the bridge, or takes back one that did not reach it.
    /// Never fails the caller: a storage error is logged to the console.
    pub async fn change_call_log(&self, change: CallLogChange) {
        let write = async |batch: Vec<CallLogChange>| {
            let mut log = self.call_log().await;
            for change in batch {
                match change {
                    CallLogChange::Add(entry) => log.push(*entry),
                    CallLogChange::Remove(id) => log.remove(id),
                }
            }
            if let Err(e) = self.set(Area::Local, keys::CALL_LOG, &log).await {
                let m = format!("[MCP Bridge] call log not saved: {e}");
                self.host.log(Level::Warn, &m);
            }
        };
        self.calls.add(change, write).await;
    }

    pub async fn clear_call_log(&self) -> Result<(), String> {
        self.set(Area::Local, keys::CALL_LOG, &CallLog::default())
            .await
    }

    // -- error log -------------------------------------------------------------------

    pub async fn error_log(&self) -> ErrorLog {
        ErrorLog::from_stored(self.get(Area::Local, keys::ERROR_LOG).await.ok().flatten())
    }

    pub async fn save_error_log(&self, log: &ErrorLog) -> Result<(), String> {
        self.set(Area::Local, keys::ERROR_LOG, log).await
    }

    /// Keeps the unmasked record of a failed tool call for the error log. `site` is the chat
    /// page's host. Never fails the caller: a storage error is logged to the console.
    /// Concurrent calls are written one batch at a time.
    pub async fn record_failure(&self, site: Option<String>, record: ErrorRecord) {
        let site = site.filter(|s| !s.is_empty());
        let now = self.host.now_ms();
        let write = async |batch: Vec<(f64, Option<String>, ErrorRecord)>| {
            let mut log = self.error_log().await;
            for (time, site, record) in batch {
                log.push(time, site, record);
            }
            if let Err(e) = self.save_error_log(&log).await {
                let m = format!("[MCP Bridge] error log not saved: {e}");
                self.host.log(Level::Warn, &m);
            }
        };
        self.failures.add((now, site, record), write).await;
    }

    // -- sites -----------------------------------------------------------------------

    /// The user's own site configs.
    pub async fn custom_sites(&self) -> CustomSites {
        CustomSites::from_stored(
            self.get(Area::Local, keys::CUSTOM_SITES)
                .await
                .ok()
                .flatten(),
        )
    }

    pub async fn save_custom_sites(&self, sites: &CustomSites) -> Result<(), String> {
        self.set(Area::Local, keys::CUSTOM_SITES, sites).await
    }

    /// The subscribed site list (an empty `url` when there is none); unreadable is none.
    pub async fn site_list(&self) -> crate::domain::site_list::Subscription {
        let stored = self.get(Area::Local, keys::SITE_LIST).await.ok().flatten();
        crate::domain::site_list::Subscription::from_stored(stored.as_ref())
    }

    pub async fn save_site_list(
        &self,
        list: &crate::domain::site_list::Subscription,
    ) -> Result<(), String> {
        self.set(Area::Local, keys::SITE_LIST, list).await
    }

    /// The config in force for `host`: the user's, the subscribed list's or the shipped one
    /// (`site_list::config_for` decides the order).
    pub async fn site_for_host(&self, host: &str) -> Option<SiteConfig> {
        let custom = self.custom_sites().await;
        let list = self.site_list().await;
        let builtin = self.builtin_sites().await;
        crate::domain::site_list::config_for(host, &custom.0, &list.sites, &builtin).cloned()
    }

    /// The shipped site config files (`sites/index.json` and the files it lists) as
    /// `(file name, JSON text)`, unparsed, so callers can say what is wrong with a broken
    /// one. Read once per worker.
    pub async fn builtin_site_files(&self) -> Vec<(String, String)> {
        if let Some(files) = self.site_files.borrow().clone() {
            return files;
        }
        let mut out = Vec::new();
        if let Some(index) = self.host.own_file("sites/index.json").await {
            let names: Vec<String> = json_read::read(&index).unwrap_or_default();
            for name in names {
                if let Some(raw) = self.host.own_file(&format!("sites/{name}")).await {
                    out.push((name, raw));
                }
            }
        }
        *self.site_files.borrow_mut() = Some(out.clone());
        out
    }

    /// The shipped site configs that validate.
    pub async fn builtin_sites(&self) -> Vec<SiteConfig> {
        if let Some(sites) = self.sites.borrow().clone() {
            return sites;
        }
        let sites: Vec<SiteConfig> = self
            .builtin_site_files()
            .await
            .iter()
            .filter_map(|(_, raw)| SiteConfig::parse(raw).ok())
            .collect();
        *self.sites.borrow_mut() = Some(sites.clone());
        sites
    }
}
