//! The user's own chat sites: site configs added as JSON in the options page, turned on for
//! a page's address with no selectors, or written by the picker; checked by the same
//! validation as the shipped ones plus the rules that keep them apart from the shipped
//! sites, and the content-script registration each one needs. Kept in
//! `chrome.storage.local["customSites"]`.
//!
//! A custom config with a shipped site's id is the user's **override** of that site: it may
//! list only that site's hosts (the extension already runs there), needs no permission and
//! no registered script, and is used instead of the shipped config.

use crate::domain::field_error::{FieldError, Invalid};
use crate::domain::sites::{SiteConfig, SiteError};
use serde::{Deserialize, Serialize};

/// More custom sites than this is almost certainly a mistake (each is a registered script).
pub const MAX_CUSTOM_SITES: usize = 50;

/// Prefix of the id under which a custom site's content script is registered.
pub const SCRIPT_ID_PREFIX: &str = "custom-site-";

/// The stored list, in the order the user added them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(transparent)]
pub struct CustomSites(pub Vec<SiteConfig>);

fn bad(field: &str, problem: Invalid) -> SiteError {
    FieldError::new(field, problem)
}

impl CustomSites {
    /// Reads the stored list; configs that no longer validate are dropped, not fatal.
    pub fn from_stored(value: Option<serde_json::Value>) -> CustomSites {
        let Some(serde_json::Value::Array(items)) = value else {
            return CustomSites::default();
        };
        CustomSites(
            items
                .into_iter()
                .filter_map(|v| SiteConfig::parse(&v.to_string()).ok())
                .collect(),
        )
    }

    /// Validates `json` as a custom site next to the shipped `builtin` ones: returns the
    /// config, and whether it replaces a custom site of the same id.
    pub fn check(
        &self,
        json: &str,
        builtin: &[SiteConfig],
    ) -> Result<(SiteConfig, bool), SiteError> {
        if json.trim().is_empty() {
            return Err(bad("config", Invalid::NoConfig));
        }
        let cfg = SiteConfig::parse(json)?;
        self.check_config(cfg, builtin)
    }

    /// [`Self::check`] for a parsed config.
    pub fn check_config(
        &self,
        cfg: SiteConfig,
        builtin: &[SiteConfig],
    ) -> Result<(SiteConfig, bool), SiteError> {
        // A config built in the core (the picker's) was never parsed: validate it here too.
        cfg.validate()?;
        let overridden = builtin.iter().find(|b| b.id == cfg.id);
        for (i, h) in cfg.hosts.iter().enumerate() {
            if let Some(b) = overridden {
                if !b.matches_host(h) {
                    let id = cfg.id.clone();
                    return Err(bad(&format!("hosts[{i}]"), Invalid::BuiltinId { id }));
                }
                continue;
            }
            if let Some(b) = builtin.iter().find(|b| b.matches_host(h)) {
                let (host, site) = (h.clone(), b.id.clone());
                return Err(bad(
                    &format!("hosts[{i}]"),
                    Invalid::HostOfBuiltin { host, site },
                ));
            }
            if let Some(c) = self.0.iter().find(|c| c.id != cfg.id && c.matches_host(h)) {
                let (host, site) = (h.clone(), c.id.clone());
                return Err(bad(
                    &format!("hosts[{i}]"),
                    Invalid::HostOfCustom { host, site },
                ));
            }
        }
        let replaces = self.0.iter().any(|c| c.id == cfg.id);
        if !replaces && self.0.len() >= MAX_CUSTOM_SITES {
            let max = MAX_CUSTOM_SITES;
            return Err(bad("config", Invalid::TooManySites { max }));
        }
        Ok((cfg, replaces))
    }

    /// Adds or replaces (same id) a checked config.
    pub fn upsert(&mut self, cfg: SiteConfig) {
        match self.0.iter_mut().find(|c| c.id == cfg.id) {
            Some(slot) => *slot = cfg,
            None => self.0.push(cfg),
        }
    }

    /// Removes a site; `false` when there was none with that id.
    pub fn remove(&mut self, id: &str) -> bool {
        let before = self.0.len();
        self.0.retain(|c| c.id != id);
        self.0.len() != before
    }

    pub fn get(&self, id: &str) -> Option<&SiteConfig> {
        self.0.iter().find(|c| c.id == id)
    }
}

/// Whether `cfg` is an override of a shipped site (which needs no permission nor script).
pub fn is_override(cfg: &SiteConfig, builtin: &[SiteConfig]) -> bool {
    builtin.iter().any(|b| b.id == cfg.id)
}

/// A site turned on for the page at `url` with no selectors written: its parts are found by
/// what they are. `None` when the address has no host an extension may run on, or is not
/// `https:` (a site's content script runs on [`origins`], which are `https:` only).
pub fn for_address(url: &str) -> Option<SiteConfig> {
    let scheme_ok = url
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
    let host = crate::domain::sites::host_of(url);
    if !scheme_ok || host.is_empty() {
        return None;
    }
    let id: String = host
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let cfg = SiteConfig {
        id,
        name: host.clone(),
        hosts: vec![host],
        editor: crate::domain::sites::EditorKind::Contenteditable,
        selectors: Default::default(),
        stable_ms: 500,
        image_paste: false,
    };
    cfg.validate().ok().map(|()| cfg)
}

/// What the picker found on a page: one selector for each part the user pointed at.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Picked {
    pub input: Option<String>,
    pub send: Option<String>,
    pub answer: Option<String>,
}

/// The override the picker writes: the page's current config (`base`; a config turned on
/// for `url` when there is none) with each picked selector put first in its chain, so it is
/// tried before the ones that stopped matching (which stay, in case the site changes back).
pub fn with_picked(base: Option<SiteConfig>, url: &str, picked: &Picked) -> Option<SiteConfig> {
    let mut cfg = base.or_else(|| for_address(url))?;
    let s = &mut cfg.selectors;
    for (chain, sel) in [
        (&mut s.input, &picked.input),
        (&mut s.send, &picked.send),
        (&mut s.assistant_message, &picked.answer),
    ] {
        if let Some(sel) = sel.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            chain.retain(|c| c != sel);
            chain.insert(0, sel.to_string());
            chain.truncate(crate::domain::sites::MAX_CHAIN);
        }
    }
    Some(cfg)
}

/// The file the options page exports: every custom site, as an array of configs.
pub fn export(sites: &CustomSites) -> String {
    serde_json::to_string_pretty(&sites.0).unwrap_or_else(|_| "[]".into())
}

/// Checks an exported file (`text`) against the sites already stored and the shipped
/// ones: all of it, or nothing. The error's field names the item (`[2].hosts[0]`).
pub fn check_import(
    current: &CustomSites,
    text: &str,
    builtin: &[SiteConfig],
) -> Result<Vec<SiteConfig>, SiteError> {
    let items: Vec<serde_json::Value> = crate::domain::json_read::from_str(text)
        .map_err(|(_, message)| bad("config", Invalid::Quoted(message)))?;
    let mut merged = current.clone();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = |e: SiteError| FieldError::new(format!("[{i}].{}", e.field), e.problem);
        let cfg = SiteConfig::parse(&item.to_string()).map_err(at)?;
        let (cfg, _) = merged.check_config(cfg, builtin).map_err(at)?;
        merged.upsert(cfg.clone());
        out.push(cfg);
    }
    if out.is_empty() {
        return Err(bad("config", Invalid::NoConfig));
    }
    Ok(out)
}

/// The origins to ask the user for, and the content script's match patterns: the same list.
pub fn origins(cfg: &SiteConfig) -> Vec<String> {
    cfg.hosts
        .iter()
        .map(|h| format!("https://{}/*", h.to_ascii_lowercase()))
        .collect()
}

/// The origins turning MCP Bridge on for the page at `url` asks the user for, the ones its
/// content script is then registered on; none where it cannot run. The extension pages ask
/// inside the click, where the browser's permission prompt must start.
pub fn origins_for_address(url: &str) -> Vec<String> {
    for_address(url)
        .map(|cfg| origins(&cfg))
        .unwrap_or_default()
}

/// The id of the registered content script of a custom site.
pub fn script_id(site_id: &str) -> String {
    format!("{SCRIPT_ID_PREFIX}{site_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(id: &str, host: &str) -> String {
        format!(
            r#"{{"id":"{id}","name":"{id}","hosts":["{host}"],"editor":"textarea",
            "selectors":{{"input":["textarea"],"send":["button"],"assistantMessage":[".a"]}}}}"#
        )
    }

    fn builtin() -> Vec<SiteConfig> {
        vec![SiteConfig::parse(&site("deepseek", "chat.deepseek.com")).unwrap()]
    }

    #[test]
    fn a_new_site_is_accepted_and_gets_its_origins() {
        let sites = CustomSites::default();
        let (cfg, replaces) = sites
            .check(&site("mine", "Chat.Example.org"), &builtin())
            .unwrap();
        assert!(!replaces);
        assert_eq!(origins(&cfg), ["https://chat.example.org/*"]);
        assert_eq!(script_id(&cfg.id), "custom-site-mine");
    }

    #[test]
    fn malformed_configs_name_the_field() {
        let sites = CustomSites::default();
        for (json, field) in [
            ("", "config"),
            ("{", "config"),
            (r#"{"id":"x"}"#, "config"),
            (&site("bad id", "a.b") as &str, "id"),
            (&site("x", "https://a.b/") as &str, "hosts[0]"),
            (
                r#"{"id":"x","name":"x","hosts":["a.b"],"editor":"monaco",
                 "selectors":{"input":["t"],"send":["b"],"assistantMessage":["m"]}}"#,
                "editor",
            ),
            (
                r#"{"id":"x","name":"x","hosts":["a.b"],"editor":"textarea",
                 "selectors":{"input":[""],"send":["b"],"assistantMessage":["m"]}}"#,
                "selectors.input[0]",
            ),
        ] {
            let e = sites.check(json, &builtin()).unwrap_err();
            assert_eq!(e.field, field, "{json}: {e}");
        }
    }

    #[test]
    fn built_in_ids_and_hosts_are_not_taken_over() {
        let mut sites = CustomSites::default();
        // A shipped site's id is an override, on that site's hosts only.
        let e = sites
            .check(&site("deepseek", "x.org"), &builtin())
            .unwrap_err();
        assert_eq!(e.field, "hosts[0]");
        let (own, replaces) = sites
            .check(&site("deepseek", "chat.deepseek.com"), &builtin())
            .unwrap();
        assert!(!replaces && is_override(&own, &builtin()));
        let e = sites
            .check(&site("ds2", "CHAT.deepseek.com"), &builtin())
            .unwrap_err();
        assert_eq!(e.field, "hosts[0]");
        assert!(e.to_string().contains("built-in site 'deepseek'"), "{e}");
        let (cfg, _) = sites.check(&site("one", "a.org"), &builtin()).unwrap();
        sites.upsert(cfg);
        let e = sites.check(&site("two", "a.org"), &builtin()).unwrap_err();
        assert!(e.to_string().contains("your site 'one'"), "{e}");
        // The same id may change its own hosts.
        let (cfg, replaces) = sites.check(&site("one", "a.org"), &builtin()).unwrap();
        assert!(replaces);
        sites.upsert(cfg);
        assert_eq!(sites.0.len(), 1);
    }

    #[test]
    fn remove_and_storage_round_trip() {
        let mut sites = CustomSites::default();
        sites.upsert(SiteConfig::parse(&site("one", "a.org")).unwrap());
        sites.upsert(SiteConfig::parse(&site("two", "b.org")).unwrap());
        let stored = serde_json::to_value(&sites).unwrap();
        assert!(stored.is_array());
        let mut back = CustomSites::from_stored(Some(stored));
        assert_eq!(back, sites);
        assert!(back.remove("one"));
        assert!(!back.remove("one"));
        assert!(back.get("two").is_some());
        // Garbage in storage is dropped item by item.
        let mixed = serde_json::json!([{"id": 1}, serde_json::to_value(&sites.0[0]).unwrap()]);
        assert_eq!(CustomSites::from_stored(Some(mixed)).0.len(), 1);
        assert_eq!(
            CustomSites::from_stored(Some(serde_json::json!("x"))),
            CustomSites::default()
        );
    }

    #[test]
    fn a_page_is_turned_on_with_no_selectors() {
        let cfg = for_address("https://Copilot.Microsoft.com/chats/1?x").unwrap();
        assert_eq!(cfg.id, "copilot-microsoft-com");
        assert_eq!(cfg.hosts, ["copilot.microsoft.com"]);
        assert_eq!(cfg.selectors, Default::default());
        let (cfg, _) = CustomSites::default()
            .check(&serde_json::to_string(&cfg).unwrap(), &builtin())
            .unwrap();
        assert!(!is_override(&cfg, &builtin()));
        assert_eq!(origins(&cfg), ["https://copilot.microsoft.com/*"]);
        for bad in [
            "about:blank",
            "file:///x",
            "chrome://extensions",
            "https:///",
        ] {
            assert!(for_address(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_page_asks_for_the_origin_its_script_is_registered_on() {
        assert_eq!(
            origins_for_address("HTTPS://Chat.Example.org/c/1"),
            ["https://chat.example.org/*"]
        );
        // The content script runs on `https:` only: a plain-http page cannot be turned on,
        // rather than being granted an origin its own page never matches.
        for none in ["http://chat.example.org/c/1", "about:blank", "not a url"] {
            assert!(origins_for_address(none).is_empty(), "{none}");
            assert!(for_address(none).is_none(), "{none}");
        }
    }

    #[test]
    fn picked_selectors_go_first_and_keep_the_old_ones() {
        let base = SiteConfig::parse(&site("deepseek", "chat.deepseek.com")).unwrap();
        let picked = Picked {
            input: Some("div.new-input".into()),
            send: Some("button".into()),
            answer: None,
        };
        let cfg = with_picked(Some(base), "https://chat.deepseek.com/a", &picked).unwrap();
        assert_eq!(cfg.selectors.input, ["div.new-input", "textarea"]);
        assert_eq!(cfg.selectors.send, ["button"], "not listed twice");
        assert_eq!(
            cfg.selectors.assistant_message,
            [".a"],
            "not picked: as it was"
        );
        // On a page with no config the picker's result is a new site.
        let cfg = with_picked(None, "https://chat.new.org/", &picked).unwrap();
        assert_eq!((cfg.id.as_str(), cfg.hosts.len()), ("chat-new-org", 1));
        assert_eq!(cfg.selectors.input, ["div.new-input"]);
        assert!(cfg.validate().is_ok());
    }

    #[test]
    fn an_export_imports_back_whole_or_not_at_all() {
        let mut sites = CustomSites::default();
        sites.upsert(SiteConfig::parse(&site("one", "a.org")).unwrap());
        sites.upsert(SiteConfig::parse(&site("deepseek", "chat.deepseek.com")).unwrap());
        let file = export(&sites);
        let back = check_import(&CustomSites::default(), &file, &builtin()).unwrap();
        assert_eq!(back, sites.0);
        let mut items: Vec<serde_json::Value> = serde_json::from_str(&file).unwrap();
        items.push(
            serde_json::json!({"id": "two", "name": "t", "hosts": ["a.org"], "editor": "quill"}),
        );
        let e = check_import(
            &CustomSites::default(),
            &serde_json::to_string(&items).unwrap(),
            &builtin(),
        )
        .unwrap_err();
        assert_eq!(e.field, "[2].hosts[0]", "{e}");
        for text in ["", "{}", "[]", "[1]"] {
            assert!(check_import(&sites, text, &builtin()).is_err(), "{text}");
        }
    }

    #[test]
    fn the_number_of_sites_is_bounded() {
        let mut sites = CustomSites::default();
        for i in 0..MAX_CUSTOM_SITES {
            sites.upsert(SiteConfig::parse(&site(&format!("s{i}"), &format!("h{i}.org"))).unwrap());
        }
        let e = sites.check(&site("more", "more.org"), &[]).unwrap_err();
        assert_eq!(e.field, "config");
        assert!(
            sites.check(&site("s0", "h0.org"), &[]).is_ok(),
            "replacing is fine"
        );
    }
}
