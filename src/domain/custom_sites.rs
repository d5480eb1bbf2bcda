//! The user's own chat sites: site configs added as JSON in the options page, checked by the
//! same validation as the shipped ones plus the rules that keep them apart from the shipped
//! sites, and the content-script registration each one needs. Kept in
//! `chrome.storage.local["customSites"]`.

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
        if builtin.iter().any(|b| b.id == cfg.id) {
            return Err(bad("id", Invalid::BuiltinId { id: cfg.id }));
        }
        for (i, h) in cfg.hosts.iter().enumerate() {
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

/// The origins to ask the user for, and the content script's match patterns: the same list.
pub fn origins(cfg: &SiteConfig) -> Vec<String> {
    cfg.hosts
        .iter()
        .map(|h| format!("https://{}/*", h.to_ascii_lowercase()))
        .collect()
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
                 "selectors":{"input":[],"send":["b"],"assistantMessage":["m"]}}"#,
                "selectors.input",
            ),
        ] {
            let e = sites.check(json, &builtin()).unwrap_err();
            assert_eq!(e.field, field, "{json}: {e}");
        }
    }

    #[test]
    fn built_in_ids_and_hosts_are_not_taken_over() {
        let mut sites = CustomSites::default();
        let e = sites
            .check(&site("deepseek", "x.org"), &builtin())
            .unwrap_err();
        assert_eq!(e.field, "id");
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
