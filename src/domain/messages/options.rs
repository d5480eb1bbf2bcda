//! Requests only the extension's own pages (the options page) may make: they read and change
//! settings and reach bridge routes a chat page must never reach.

use crate::domain::settings::ToolPolicy;
use serde::Deserialize;

/// `{"type": "get-status"}` … on the wire, read by [`super::from_tagged`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    rename_all = "kebab-case",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum PageRequest {
    /// The connection's status (`domain::status`), pairing through the native host first
    /// when the extension has no token, the bridge refuses it, or does not run.
    GetStatus,
    GetSettings,
    /// Validated as a whole; nothing is stored when any field is bad.
    SaveSettings {
        settings: serde_json::Value,
    },
    /// Check an address and token before saving them: version, servers, or the precise reason.
    TestConnection {
        bridge_url: String,
        token: String,
    },
    /// Test an address and token, then save them either way (the bridge may simply not run
    /// yet), saying what the test found; a value that does not validate saves nothing.
    SaveConnection {
        bridge_url: String,
        token: String,
    },
    /// `POST /reset-history`: all counters, or one `server:tool`.
    ResetHistory {
        #[serde(default)]
        server_name: Option<String>,
        #[serde(default)]
        tool_name: Option<String>,
    },
    /// `GET /history`: the failure counters and which tools are refused.
    GetHistory,
    /// The calls that left for the bridge, per conversation ([`crate::domain::call_log`]).
    GetCallLog,
    /// Services and their tools with parameters, plus each tool's policy.
    GetTools,
    /// `key` is `server:tool`; `policy` is the menu's choice: a policy, or
    /// [`DEFAULT_CHOICE`](crate::domain::settings::DEFAULT_CHOICE) (or none) to return the
    /// tool to its own default. Answered with the tool's row as it is now. With `site`,
    /// the choice kept for that chat site only (the float's), otherwise the every-site one.
    SetToolPolicy {
        key: String,
        #[serde(default, deserialize_with = "crate::domain::settings::policy_choice")]
        policy: Option<ToolPolicy>,
        #[serde(default)]
        site: Option<String>,
    },
    /// Let the results of `key` (`server:tool`) through unmasked, or mask them again.
    SetToolUnmasked {
        key: String,
        unmasked: bool,
    },
    /// Let `key` (`server:tool`) run as its policy says even after untrusted content, or not.
    SetToolExempt {
        key: String,
        exempt: bool,
    },
    /// Trust `server` (believe its tools' read-only claims), or not.
    SetServerTrusted {
        server: String,
        trusted: bool,
    },
    /// The last failures with unmasked details (filtered), and counts by category.
    GetErrorLog {
        #[serde(default)]
        filter: crate::domain::error_log::Filter,
    },
    /// The (filtered) log as a JSON file to download: `{filename, json}`.
    ExportErrorLog {
        #[serde(default)]
        filter: crate::domain::error_log::Filter,
    },
    ClearErrorLog,
    /// Validate a custom site config without saving it: the config and the origins whose
    /// permission the page must request (from a click, before `save-custom-site`).
    CheckCustomSite {
        json: String,
    },
    /// Add or replace a custom site config (JSON text), validated by the core; its content
    /// script is registered once the host permission is granted.
    SaveCustomSite {
        json: String,
    },
    RemoveCustomSite {
        id: String,
    },
    /// Built-in and custom site configs with their per-site settings.
    ListSites,
    /// Turn MCP Bridge on for the site of the page at `url`, with no selectors (its parts
    /// are found by what they are); its host permission must be granted first.
    EnableSite {
        url: String,
    },
    /// Read only: whether MCP Bridge already runs on the site of the page at `url` (a
    /// shipped or custom site config holds its host), and whether it could be turned on there.
    SiteState {
        url: String,
    },
    /// Every custom site as one JSON file: `{filename, json}`.
    ExportCustomSites,
    /// Add the sites of an exported file (all or none). With `check`, only validate: the
    /// sites and the origins whose permission the page must request first.
    ImportCustomSites {
        json: String,
        #[serde(default)]
        check: bool,
    },
    /// The subscribed site list: address, version in force, last check, last refusal.
    GetSiteList,
    /// Subscribe to the site list at `url` (replacing any other) and fetch it now.
    SubscribeSiteList {
        url: String,
    },
    /// Fetch the subscribed list now, whenever it was last checked.
    CheckSiteList,
    /// Drop the subscription; the configs it brought stop applying.
    UnsubscribeSiteList,
    /// `GET /servers`: each MCP server's masked definition, status in words, tool count,
    /// last error and stderr, and a fingerprint that changes with names, statuses and tools.
    ListServers,
    /// One server's definition with its secrets unmasked (`GET /servers?reveal=NAME`).
    RevealServer {
        name: String,
    },
    /// The editor's start for a new server of `kind` (`npx`, `uvx`, `local`, `remote`), with
    /// what saving it will do to the built-in demo server.
    ServerTemplate {
        kind: String,
    },
    /// Check a name and an `mcpServers` entry (JSON text) without sending them.
    CheckServer {
        name: String,
        json: String,
    },
    /// Add or replace a server (`PUT /servers/{name}`), checked first like `check-server`.
    /// `keepDemo`: the first server of the user's own keeps the built-in demo server (the
    /// bridge writes its entry into the config file in the same save).
    SaveServer {
        name: String,
        json: String,
        #[serde(default)]
        keep_demo: bool,
    },
    RestartServer {
        name: String,
    },
    SetServerEnabled {
        name: String,
        enabled: bool,
    },
    RemoveServer {
        name: String,
    },
    /// Begin signing in to a remote server (`POST /servers/{name}/sign-in`): the answer holds
    /// the authorization page the options page opens in a new tab.
    SignInServer {
        name: String,
    },
    /// Sign out of a remote server (`POST /servers/{name}/sign-out`).
    SignOutServer {
        name: String,
    },
    /// Other MCP clients' servers: without `names`, what would be added (and what clashes);
    /// with them, those are added.
    ImportServers {
        #[serde(default)]
        names: Option<Vec<String>>,
    },
}

impl PageRequest {
    /// The fields of this request's form that the options page shows under a label of its
    /// own, by field root, with that label (a key of the page's labels): the page names a
    /// refused field by what the user sees. Read before the request is taken apart.
    pub fn field_labels(&self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::TestConnection { .. } | Self::SaveConnection { .. } => {
                &[("bridgeUrl", "fieldBridgeUrl"), ("token", "fieldToken")]
            }
            Self::CheckServer { .. } | Self::SaveServer { .. } => &[
                ("name", "fieldServerName"),
                ("definition", "fieldDefinition"),
            ],
            Self::EnableSite { .. } => &[("url", "enableSiteUrl")],
            Self::SubscribeSiteList { .. } => &[("url", "siteListUrl")],
            Self::SaveSettings { .. } => &[
                ("language", "fieldLanguage"),
                ("autoSend", "fieldAutoSend"),
                ("autoExecute", "fieldAutoExecute"),
                ("instructionsAsFile", "fieldInstructionsAsFile"),
                ("stackLines", "fieldStackLines"),
                ("maxAutoRounds", "fieldMaxAutoRounds"),
            ],
            _ => &[],
        }
    }
}
