//! The user's settings: defaults, and validation that names the bad field, so a bad value
//! is refused with a clear message and never half-applied.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

pub const DEFAULT_BRIDGE_URL: &str = "http://127.0.0.1:3849";

/// The name the bridge gives its built-in demo server, which the user always trusts.
pub const BUILTIN_SERVER: &str = "demo";

/// Report language; `Auto` follows the browser's UI language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum LangSetting {
    #[default]
    Auto,
    Zh,
    En,
}

/// What happens to a tool before it runs, from the most to the least permissive (so the
/// strictest of several is their maximum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ToolPolicy {
    #[default]
    Allow,
    Ask,
    Deny,
}

/// The policy menu's choice that returns a tool to its own default (the menu's other
/// choices are the policies' own words).
pub const DEFAULT_CHOICE: &str = "default";

/// A choice of the policy menu as the options page sends it: a policy, or [`DEFAULT_CHOICE`]
/// (or nothing) for none of the user's.
pub fn policy_choice<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<ToolPolicy>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None | Some(DEFAULT_CHOICE) => Ok(None),
        Some(word) => {
            ToolPolicy::deserialize(serde::de::value::StrDeserializer::new(word)).map(Some)
        }
    }
}

/// The chat site a call comes from, as far as its policies go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct SiteScope {
    /// The site config's id (the key of [`Settings::site_tool_policies`]).
    pub id: String,
    /// Its name, as the float says it.
    pub name: String,
    /// The user turned the extension on for this site themselves (*Turn on for this site*,
    /// a site of their own): an every-site *Allow* does not reach it, so every tool that is
    /// not read-only on a trusted server asks there until the user decides on that site.
    pub own: bool,
}

/// Per-site switches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct SiteSettings {
    /// `false` turns the extension off on that site.
    pub disabled: bool,
    /// Insert the instructions into the empty input of a new chat by itself.
    pub auto_insert_instructions: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub bridge_url: String,
    pub token: String,
    pub language: LangSetting,
    /// Send the typed result by itself.
    pub auto_send: bool,
    /// Run a detected call by itself (otherwise the float asks first).
    pub auto_execute: bool,
    /// Traceback lines kept in a report (the last 10, as the original MCP Bridge).
    pub stack_lines: u32,
    /// Automatic rounds without a human message before the loop stops.
    pub max_auto_rounds: u32,
    /// Attach the instructions as a file where the chat site takes pasted files, with one
    /// line in the input pointing to it, instead of typing the whole text.
    pub instructions_as_file: bool,
    /// Keyed by site id.
    pub sites: BTreeMap<String, SiteSettings>,
    /// The policies that hold on every site, keyed by `server:tool` (or `*:tool` when the
    /// server is not known).
    pub tool_policies: BTreeMap<String, ToolPolicy>,
    /// Choices made on one chat site, by site id, then keyed as [`Settings::tool_policies`]:
    /// on that site they come before the every-site ones ([`Settings::on_site`]).
    pub site_tool_policies: BTreeMap<String, BTreeMap<String, ToolPolicy>>,
    /// Tools (`server:tool`, beside their policy) whose results the user lets through as the
    /// tool gave them, secret-looking values unmasked. Only the options page sets it.
    pub unmasked_results: BTreeSet<String>,
    /// Servers the user trusts: their tools' own read-only claims are believed, and what
    /// their closed-world tools return does not mark a conversation ([`Settings::trusts`]).
    pub trusted_servers: BTreeSet<String>,
    /// Tools (`server:tool`) the user lets run unasked even after a conversation read
    /// untrusted content (as their policy says). Only the options page sets it.
    pub exempt_after_untrusted: BTreeSet<String>,
    /// Set only by [`Settings::from_stored`]: why the stored settings could not be used. Never
    /// stored; the float shows it when a call waits because of it.
    #[serde(skip)]
    pub unreadable: Option<FieldError>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            bridge_url: DEFAULT_BRIDGE_URL.to_string(),
            token: String::new(),
            language: LangSetting::Auto,
            auto_send: true,
            auto_execute: true,
            stack_lines: 10,
            max_auto_rounds: 10,
            instructions_as_file: false,
            sites: BTreeMap::new(),
            tool_policies: BTreeMap::new(),
            site_tool_policies: BTreeMap::new(),
            unmasked_results: BTreeSet::new(),
            trusted_servers: BTreeSet::new(),
            exempt_after_untrusted: BTreeSet::new(),
            unreadable: None,
        }
    }
}

pub use crate::domain::field_error::{FieldError, Invalid};

impl Settings {
    /// Parses stored or submitted settings; unknown keys are ignored, missing ones default.
    pub fn from_json(value: &serde_json::Value) -> Result<Settings, FieldError> {
        if value.is_null() {
            return Ok(Settings::default());
        }
        // Through the text, so that a refusal can name its field (`crate::domain::json_read`).
        let settings: Settings = crate::domain::json_read::from_str(&value.to_string())
            .map_err(|(field, message)| FieldError::new(field, Invalid::Quoted(message)))?;
        settings.validate()?;
        Ok(settings)
    }

    /// The settings the extension acts on (and the options page shows), from what reading
    /// the stored ones gave (`Ok(None)`: nothing stored). When they cannot be known (storage
    /// refused the read, or what is stored no longer validates), the user's deny and ask
    /// policies cannot be known either, so nothing runs by itself: every call waits for the
    /// user's go, and [`Settings::unreadable`] says why. The bridge address and token are
    /// kept when they are valid by themselves, so that a call the user lets run still
    /// reaches the bridge.
    pub fn from_stored(read: Result<Option<serde_json::Value>, String>) -> Settings {
        let stored = match read {
            Ok(None) => return Settings::default(),
            Ok(Some(stored)) => stored,
            Err(problem) => {
                return Settings::cautious(FieldError::new("", Invalid::Quoted(problem)));
            }
        };
        let e = match Settings::from_json(&stored) {
            Ok(settings) => return settings,
            Err(e) => e,
        };
        let mut s = Settings::cautious(e);
        let text = |key: &str| stored.get(key).and_then(serde_json::Value::as_str);
        if let Some(url) = text("bridgeUrl").filter(|u| validate_bridge_url(u).is_ok()) {
            s.bridge_url = url.to_string();
        }
        if let Some(token) = text("token").filter(|t| validate_token(t).is_ok()) {
            s.token = token.to_string();
        }
        s
    }

    fn cautious(why: FieldError) -> Settings {
        Settings {
            auto_execute: false,
            unreadable: Some(why),
            ..Settings::default()
        }
    }

    /// Checks every field; the first bad one is reported.
    pub fn validate(&self) -> Result<(), FieldError> {
        let err = |field: &str, problem: Invalid| Err(FieldError::new(field, problem));
        if let Err(why) = validate_bridge_url(&self.bridge_url) {
            return err("bridgeUrl", why);
        }
        if let Err(why) = validate_token(&self.token) {
            return err("token", why);
        }
        if !(1..=200).contains(&self.stack_lines) {
            let got = u64::from(self.stack_lines);
            return err(
                "stackLines",
                Invalid::OutOfRange {
                    min: 1,
                    max: 200,
                    got,
                },
            );
        }
        if !(1..=100).contains(&self.max_auto_rounds) {
            let got = u64::from(self.max_auto_rounds);
            return err(
                "maxAutoRounds",
                Invalid::OutOfRange {
                    min: 1,
                    max: 100,
                    got,
                },
            );
        }
        Ok(())
    }

    /// The policy the user set for a tool, if any: an exact `server:tool` entry wins over
    /// `*:tool`.
    pub fn explicit_policy(&self, server: Option<&str>, tool: &str) -> Option<ToolPolicy> {
        server
            .and_then(|s| self.tool_policies.get(&format!("{s}:{tool}")))
            .or_else(|| self.tool_policies.get(&format!("*:{tool}")))
            .copied()
    }

    /// Whether the user lets this tool's results through unmasked on this server (the chat
    /// loop resolves a call that names no server to the server that runs it first; one it
    /// cannot resolve stays masked).
    pub fn passes_unmasked(&self, server: Option<&str>, tool: &str) -> bool {
        server.is_some_and(|s| self.unmasked_results.contains(&format!("{s}:{tool}")))
    }

    /// Whether the user trusts `server`: the built-in demo server always, any other once the
    /// user marked it trusted in the options page.
    pub fn trusts(&self, server: &str) -> bool {
        server == BUILTIN_SERVER || self.trusted_servers.contains(server)
    }

    /// Whether the user lets this tool run unasked after untrusted content.
    pub fn exempts_after_untrusted(&self, server: &str, tool: &str) -> bool {
        self.exempt_after_untrusted
            .contains(&format!("{server}:{tool}"))
    }

    /// The policy the user set for a tool, Allow when none.
    pub fn policy_for(&self, server: Option<&str>, tool: &str) -> ToolPolicy {
        server
            .and_then(|s| self.tool_policies.get(&format!("{s}:{tool}")))
            .or_else(|| self.tool_policies.get(&format!("*:{tool}")))
            .copied()
            .unwrap_or_default()
    }

    /// The settings as they hold on `site`: the choices made there come first; on a site
    /// the user turned on themselves, an every-site *Allow* does not count. The choices of
    /// one site never reach another. A site's choice about a tool replaces every every-site
    /// one it would otherwise lose to (a `*:tool` choice there covers the tool on every
    /// server), so a *Deny* made on a site holds there. Only for deciding: never saved.
    pub fn on_site(&self, site: Option<&SiteScope>) -> std::borrow::Cow<'_, Settings> {
        use std::borrow::Cow;
        let Some(site) = site else {
            return Cow::Borrowed(self);
        };
        let mine = self.site_tool_policies.get(&site.id);
        if mine.is_none() && !site.own {
            return Cow::Borrowed(self);
        }
        let mut s = self.clone();
        s.site_tool_policies.clear();
        if site.own {
            s.tool_policies.retain(|_, p| *p != ToolPolicy::Allow);
        }
        for (key, policy) in mine.into_iter().flatten() {
            let (server, tool) = key.split_once(':').unwrap_or(("*", key));
            s.tool_policies.retain(|k, _| {
                let (s, t) = k.split_once(':').unwrap_or(("*", k));
                t != tool || (server != "*" && s != server)
            });
            s.tool_policies.insert(key.clone(), *policy);
        }
        Cow::Owned(s)
    }

    /// Keeps the user's choice about a tool (`key`, as in [`Settings::tool_policies`]) made
    /// on `site`: for that site only, unless `everywhere` (or no site is known), which also
    /// takes back what other sites were told about the tool. A site of the user's own keeps
    /// its copy, since an every-site *Allow* does not reach it.
    pub fn remember(
        &mut self,
        key: &str,
        policy: ToolPolicy,
        site: Option<&SiteScope>,
        everywhere: bool,
    ) {
        let on_site = |s: &mut Settings, id: &str| {
            let mine = s.site_tool_policies.entry(id.to_string()).or_default();
            mine.insert(key.to_string(), policy);
        };
        match site {
            Some(site) if !everywhere => on_site(self, &site.id),
            _ => {
                for mine in self.site_tool_policies.values_mut() {
                    mine.remove(key);
                }
                self.site_tool_policies.retain(|_, mine| !mine.is_empty());
                self.tool_policies.insert(key.to_string(), policy);
                if let Some(site) = site.filter(|s| s.own) {
                    on_site(self, &site.id);
                }
            }
        }
    }

    /// *Ask me next time*: every saved *Deny* that refuses `tool` (on `server` when the call
    /// named it, else on any server), on every site and on `site`, becomes *Ask*.
    pub fn ask_again(&mut self, tool: &str, server: Option<&str>, site: Option<&str>) {
        let applies = |key: &str| match key.rsplit_once(':') {
            Some((s, t)) => t == tool && (server.is_none() || s == "*" || Some(s) == server),
            None => false,
        };
        let here = site.and_then(|id| self.site_tool_policies.get_mut(id));
        let policies = self
            .tool_policies
            .iter_mut()
            .chain(here.into_iter().flatten());
        for (key, policy) in policies {
            if *policy == ToolPolicy::Deny && applies(key) {
                *policy = ToolPolicy::Ask;
            }
        }
    }

    pub fn site(&self, id: &str) -> SiteSettings {
        self.sites.get(id).cloned().unwrap_or_default()
    }

    /// The bridge address without a trailing slash.
    pub fn base_url(&self) -> &str {
        self.bridge_url.trim_end_matches('/')
    }
}

/// A token is pasted from a terminal: nothing but the token itself.
pub fn validate_token(token: &str) -> Result<(), Invalid> {
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Invalid::TokenSpaces);
    }
    Ok(())
}

/// The bridge must be plain HTTP on this machine: the extension only has host permission
/// for loopback, and a token must never travel to another host.
pub fn validate_bridge_url(url: &str) -> Result<(), Invalid> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| Invalid::NotHttp { url: url.into() })?;
    let authority = rest.split('/').next().unwrap_or("");
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => (h, Some(p)),
        _ => (authority, None),
    };
    if !matches!(host, "127.0.0.1" | "localhost" | "[::1]") {
        return Err(Invalid::NotThisComputer { host: host.into() });
    }
    if let Some(p) = port {
        match p.parse::<u16>() {
            Ok(n) if n > 0 => {}
            _ => return Err(Invalid::NotAPort { port: p.into() }),
        }
    }
    let path = &rest[authority.len()..];
    if !(path.is_empty() || path == "/") {
        return Err(Invalid::HasPath { path: path.into() });
    }
    Ok(())
}

/// The report language a user's settings ask for, `Auto` following the browser's UI
/// language (`ui_language`).
pub fn lang_of(settings: &Settings, ui_language: &str) -> crate::domain::i18n::Lang {
    use crate::domain::i18n::Lang;
    match settings.language {
        LangSetting::Zh => Lang::Zh,
        LangSetting::En => Lang::En,
        LangSetting::Auto if ui_language.to_ascii_lowercase().starts_with("zh") => Lang::Zh,
        LangSetting::Auto => Lang::En,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scope(id: &str, own: bool) -> SiteScope {
        SiteScope {
            id: id.into(),
            name: id.into(),
            own,
        }
    }

    #[test]
    fn a_choice_made_on_one_site_holds_there_and_nowhere_else() {
        let mut s = Settings::default();
        let (deepseek, kimi) = (scope("deepseek", false), scope("kimi", false));
        s.remember("files:rm", ToolPolicy::Allow, Some(&deepseek), false);
        let here = s.on_site(Some(&deepseek));
        assert_eq!(
            here.explicit_policy(Some("files"), "rm"),
            Some(ToolPolicy::Allow)
        );
        let there = s.on_site(Some(&kimi));
        assert_eq!(there.explicit_policy(Some("files"), "rm"), None);
        assert_eq!(
            s.explicit_policy(Some("files"), "rm"),
            None,
            "not every site"
        );
        // A *Deny* made on a site holds there over an every-site *Allow*, also one that
        // names the server where the site's choice does not.
        s.tool_policies.insert("files:rm".into(), ToolPolicy::Allow);
        s.remember("*:rm", ToolPolicy::Deny, Some(&kimi), false);
        let there = s.on_site(Some(&kimi));
        assert_eq!(
            there.explicit_policy(Some("files"), "rm"),
            Some(ToolPolicy::Deny)
        );
        assert_eq!(
            s.on_site(Some(&scope("qwen", false)))
                .explicit_policy(Some("files"), "rm"),
            Some(ToolPolicy::Allow)
        );
    }

    #[test]
    fn ask_me_next_time_turns_only_that_tools_denials_to_ask() {
        let mut s = Settings::default();
        for (key, policy) in [
            ("fs:write", ToolPolicy::Deny),
            ("*:write", ToolPolicy::Deny),
            ("other:write", ToolPolicy::Deny),
            ("fs:read", ToolPolicy::Deny),
            ("fs:write_all", ToolPolicy::Deny),
            ("demo:write", ToolPolicy::Allow),
        ] {
            s.tool_policies.insert(key.into(), policy);
        }
        let (deepseek, kimi) = (scope("deepseek", false), scope("kimi", false));
        s.remember("fs:write", ToolPolicy::Deny, Some(&deepseek), false);
        s.remember("fs:write", ToolPolicy::Deny, Some(&kimi), false);
        let policy = |s: &Settings, key: &str| s.tool_policies[key];
        s.ask_again("write", Some("fs"), Some("deepseek"));
        assert_eq!(policy(&s, "fs:write"), ToolPolicy::Ask);
        assert_eq!(policy(&s, "*:write"), ToolPolicy::Ask);
        assert_eq!(
            policy(&s, "other:write"),
            ToolPolicy::Deny,
            "another server's"
        );
        assert_eq!(policy(&s, "fs:read"), ToolPolicy::Deny, "another tool");
        assert_eq!(policy(&s, "fs:write_all"), ToolPolicy::Deny, "another tool");
        assert_eq!(policy(&s, "demo:write"), ToolPolicy::Allow, "not a denial");
        let on = |s: &Settings, site: &str| s.site_tool_policies[site]["fs:write"];
        assert_eq!(on(&s, "deepseek"), ToolPolicy::Ask, "this site's");
        assert_eq!(on(&s, "kimi"), ToolPolicy::Deny, "another site's stays");
        // A call that named no server: the denial in force may be any server's.
        s.ask_again("write", None, None);
        assert_eq!(policy(&s, "other:write"), ToolPolicy::Ask);
        assert_eq!(policy(&s, "demo:write"), ToolPolicy::Allow);
    }

    #[test]
    fn a_choice_on_every_site_takes_back_what_single_sites_were_told() {
        let mut s = Settings::default();
        let (deepseek, kimi) = (scope("deepseek", false), scope("kimi", false));
        s.remember("files:rm", ToolPolicy::Allow, Some(&deepseek), false);
        s.remember("files:rm", ToolPolicy::Deny, Some(&kimi), true);
        assert_eq!(s.tool_policies["files:rm"], ToolPolicy::Deny);
        assert!(
            s.site_tool_policies.is_empty(),
            "{:?}",
            s.site_tool_policies
        );
        for site in [&deepseek, &kimi] {
            let on = s.on_site(Some(site));
            assert_eq!(
                on.explicit_policy(Some("files"), "rm"),
                Some(ToolPolicy::Deny)
            );
        }
        // No site known (a call from nowhere the extension knows): every site.
        s.remember("time:now", ToolPolicy::Allow, None, false);
        assert_eq!(s.tool_policies["time:now"], ToolPolicy::Allow);
    }

    #[test]
    fn a_site_the_user_turned_on_is_not_reached_by_an_every_site_allow() {
        let mut s = Settings::default();
        s.tool_policies.insert("files:rm".into(), ToolPolicy::Allow);
        s.tool_policies
            .insert("files:wipe".into(), ToolPolicy::Deny);
        let mine = scope("my-chat", true);
        let on = s.on_site(Some(&mine));
        assert_eq!(on.explicit_policy(Some("files"), "rm"), None);
        assert_eq!(
            on.explicit_policy(Some("files"), "wipe"),
            Some(ToolPolicy::Deny),
            "a Deny reaches every site"
        );
        s.remember("files:rm", ToolPolicy::Allow, Some(&mine), true);
        let on = s.on_site(Some(&mine));
        assert_eq!(
            on.explicit_policy(Some("files"), "rm"),
            Some(ToolPolicy::Allow),
            "an every-site choice made there holds there too"
        );
    }

    #[test]
    fn settings_stored_before_choices_by_site_read_as_every_site_choices() {
        let old = json!({"toolPolicies": {"files:rm": "allow"}, "trustedServers": ["time"]});
        let s = Settings::from_json(&old).unwrap();
        assert!(s.site_tool_policies.is_empty());
        let on = s.on_site(Some(&scope("deepseek", false)));
        assert_eq!(
            on.explicit_policy(Some("files"), "rm"),
            Some(ToolPolicy::Allow)
        );
        let stored = serde_json::to_value(&s).unwrap();
        assert_eq!(stored["siteToolPolicies"], json!({}));
    }

    #[test]
    fn the_chat_loop_runs_nothing_by_itself_when_settings_cannot_be_read() {
        assert_eq!(Settings::from_stored(Ok(None)), Settings::default());

        let stored = json!({"toolPolicies": {"*:echo": "deny"}});
        let s = Settings::from_stored(Ok(Some(stored)));
        assert_eq!(s.policy_for(None, "echo"), ToolPolicy::Deny);
        assert!(s.auto_execute && s.unreadable.is_none());

        let s = Settings::from_stored(Err("reading extension storage failed: boom".into()));
        assert!(!s.auto_execute, "a call must wait for the user");
        assert_eq!(
            s.unreadable.map(|e| e.to_string()).as_deref(),
            Some("reading extension storage failed: boom")
        );

        let s = Settings::from_stored(Ok(Some(json!({"stackLines": "ten"}))));
        assert!(!s.auto_execute);
        assert!(
            s.unreadable
                .unwrap()
                .to_string()
                .starts_with("stackLines: ")
        );
    }

    #[test]
    fn unreadable_settings_keep_a_valid_connection_and_nothing_else() {
        let stored = json!({
            "bridgeUrl": "http://localhost:4000",
            "token": "tok-123",
            "autoSend": false,
            "toolPolicies": {"*:echo": "sometimes"},
        });
        let s = Settings::from_stored(Ok(Some(stored)));
        assert_eq!(
            (s.bridge_url.as_str(), s.token.as_str()),
            ("http://localhost:4000", "tok-123")
        );
        assert!(s.auto_send, "only the connection is salvaged");
        assert!(!s.auto_execute);
        assert!(
            s.unreadable
                .unwrap()
                .to_string()
                .starts_with("toolPolicies")
        );

        // A connection that is itself bad is not used.
        let stored = json!({"bridgeUrl": "http://evil.example", "token": "a b", "stackLines": 0});
        let s = Settings::from_stored(Ok(Some(stored)));
        assert_eq!(
            (s.bridge_url.as_str(), s.token.as_str()),
            (DEFAULT_BRIDGE_URL, "")
        );
        assert_eq!(
            s.unreadable.map(|e| e.to_string()).as_deref(),
            Some("bridgeUrl: 'evil.example' is not this computer; use 127.0.0.1 or localhost")
        );
    }

    #[test]
    fn defaults_match_the_original_bridge() {
        let s = Settings::from_json(&serde_json::Value::Null).unwrap();
        assert_eq!(s.bridge_url, "http://127.0.0.1:3849");
        assert_eq!(s.stack_lines, 10);
        assert_eq!(s.max_auto_rounds, 10);
    }

    #[test]
    fn partial_settings_keep_defaults_for_the_rest() {
        let s = Settings::from_json(&json!({"token": "abc", "autoSend": false})).unwrap();
        assert_eq!(s.token, "abc");
        assert!(!s.auto_send);
        assert_eq!(s.stack_lines, 10);
    }

    #[test]
    fn bad_addresses_name_the_field_and_the_reason() {
        for (url, needle) in [
            ("https://127.0.0.1:3849", "http://"),
            ("http://example.com:3849", "not this computer"),
            ("http://127.0.0.1:99999", "not a port"),
            ("http://127.0.0.1:3849/api", "remove the path"),
            ("127.0.0.1:3849", "http://"),
        ] {
            let e = Settings::from_json(&json!({ "bridgeUrl": url })).unwrap_err();
            assert_eq!(e.field, "bridgeUrl");
            assert!(e.to_string().contains(needle), "{url}: {e}");
        }
        for ok in [
            "http://127.0.0.1:3849",
            "http://localhost:4000/",
            "http://[::1]:3849",
        ] {
            assert!(validate_bridge_url(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn wrong_types_and_ranges_are_refused() {
        let e = Settings::from_json(&json!({"stackLines": "ten"})).unwrap_err();
        assert_eq!(e.field, "stackLines");
        assert!(e.to_string().contains("invalid type"), "{e}");
        let e = Settings::from_json(&json!({"toolPolicies": {"a:b": "maybe"}})).unwrap_err();
        assert_eq!(e.field, "toolPolicies.a:b");
        let e = Settings::from_json(&json!({"stackLines": 0})).unwrap_err();
        assert_eq!(e.field, "stackLines");
        let e = Settings::from_json(&json!({"token": "abc def"})).unwrap_err();
        assert_eq!(e.field, "token");
    }

    #[test]
    fn exact_tool_policy_beats_wildcard() {
        let s =
            Settings::from_json(&json!({"toolPolicies": {"*:crash": "deny", "demo:crash": "ask"}}))
                .unwrap();
        assert_eq!(s.policy_for(Some("demo"), "crash"), ToolPolicy::Ask);
        assert_eq!(s.policy_for(Some("other"), "crash"), ToolPolicy::Deny);
        assert_eq!(s.policy_for(None, "echo"), ToolPolicy::Allow);
    }

    #[test]
    fn the_report_language_is_the_users_choice_or_follows_the_browser() {
        use crate::domain::i18n::Lang;
        let with = |language| Settings {
            language,
            ..Settings::default()
        };
        assert_eq!(lang_of(&with(LangSetting::Zh), "en-US"), Lang::Zh);
        assert_eq!(lang_of(&with(LangSetting::En), "zh-CN"), Lang::En);
        assert_eq!(lang_of(&with(LangSetting::Auto), "zh-CN"), Lang::Zh);
        assert_eq!(lang_of(&with(LangSetting::Auto), "ZH-tw"), Lang::Zh);
        assert_eq!(lang_of(&with(LangSetting::Auto), "fr"), Lang::En);
    }
}
