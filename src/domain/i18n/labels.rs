//! The words of the extension's own screens — the options page, the toolbar popup and the
//! float's controls — one table per language in `labels/<lang>.json`, so the core holds every
//! word a user reads and the screens ask it for theirs. The browser's `_locales` keep only what
//! the manifest names and the tag of the language the browser picked.
//!
//! A label's values are numbered, `{1}` … `{9}`, in the order the screen passes them.

use super::Lang;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One language's labels, in two parts: what the content script needs for the float and the
/// picker (sent with each page's setup), and the rest, which only extension pages read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Labels {
    pub float: BTreeMap<String, String>,
    pub pages: BTreeMap<String, String>,
}

impl Labels {
    /// The labels of `lang`.
    pub fn of(lang: Lang) -> &'static Labels {
        static EN: OnceLock<Labels> = OnceLock::new();
        static ZH: OnceLock<Labels> = OnceLock::new();
        match lang {
            Lang::En => EN.get_or_init(|| parse(include_str!("labels/en.json"))),
            Lang::Zh => ZH.get_or_init(|| parse(include_str!("labels/zh.json"))),
        }
    }

    /// Every label, for an extension page (the popup shows the float's part names too).
    pub fn all(&self) -> BTreeMap<&str, &str> {
        self.float
            .iter()
            .chain(&self.pages)
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    /// The label `key` with its numbered values filled; the key itself when there is no such
    /// label (so a missing one shows as a name a test can find, never as nothing).
    pub fn say(&self, key: &str, values: &[&str]) -> String {
        let text = self.float.get(key).or_else(|| self.pages.get(key));
        let Some(text) = text else {
            return key.to_string();
        };
        let mut out = text.clone();
        for (i, value) in values.iter().enumerate() {
            out = out.replace(&format!("{{{}}}", i + 1), value);
        }
        out
    }
}

/// What an extension page is given: the labels and the language tag its dates are written in.
#[derive(Debug, Serialize)]
pub struct PageLabels {
    pub locale: &'static str,
    pub labels: BTreeMap<&'static str, &'static str>,
}

impl PageLabels {
    pub fn of(lang: Lang) -> PageLabels {
        PageLabels {
            locale: lang.locale(),
            labels: Labels::of(lang).all(),
        }
    }
}

/// The tables ship inside the core and are checked by the tests below, so a broken one is a
/// build that never passed; should it happen anyway, the screens show keys, not a crash.
fn parse(text: &str) -> Labels {
    serde_json::from_str(text).unwrap_or_else(|_| Labels {
        float: BTreeMap::new(),
        pages: BTreeMap::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The numbered values a label uses.
    fn values(text: &str) -> BTreeSet<String> {
        text.split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}'))
            .map(|(n, _)| n.to_string())
            .filter(|n| n.parse::<u8>().is_ok())
            .collect()
    }

    #[test]
    fn both_tables_parse_and_hold_the_same_keys_in_the_same_parts_with_the_same_values() {
        for text in [
            include_str!("labels/en.json"),
            include_str!("labels/zh.json"),
        ] {
            let parsed: Result<Labels, _> = serde_json::from_str(text);
            assert!(parsed.is_ok(), "{parsed:?}");
        }
        let (en, zh) = (Labels::of(Lang::En), Labels::of(Lang::Zh));
        assert!(en.float.len() > 40 && en.pages.len() > 150);
        for (part, e, z) in [
            ("float", &en.float, &zh.float),
            ("pages", &en.pages, &zh.pages),
        ] {
            let (ek, zk): (BTreeSet<_>, BTreeSet<_>) = (e.keys().collect(), z.keys().collect());
            assert_eq!(ek, zk, "{part}: keys in one language only");
            for (key, text) in e {
                assert!(
                    !text.trim().is_empty() && !z[key].trim().is_empty(),
                    "{key}"
                );
                assert_eq!(values(text), values(&z[key]), "{key}: values differ");
            }
        }
        let overlap: Vec<_> = en
            .float
            .keys()
            .filter(|k| en.pages.contains_key(*k))
            .collect();
        assert!(overlap.is_empty(), "in both parts: {overlap:?}");
    }

    #[test]
    fn the_chinese_table_is_chinese_and_the_english_one_english() {
        for (key, z) in Labels::of(Lang::Zh).all() {
            // Names (MCP Bridge, Token) and code may be Latin; a whole sentence may not.
            let words = z
                .split_whitespace()
                .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
                .count();
            assert!(words < 4, "English in zh {key}: {z}");
            assert!(!z.contains("桥接程序"), "zh {key}: the bridge is 桥接服务");
        }
        for (key, e) in Labels::of(Lang::En).all() {
            assert!(
                !e.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "en {key}: {e}"
            );
        }
    }

    #[test]
    fn say_fills_numbered_values_and_names_a_missing_label() {
        let en = Labels::of(Lang::En);
        assert_eq!(
            en.say("popupOn", &["kimi.com"]),
            "MCP Bridge is on for kimi.com."
        );
        assert_eq!(en.say("noSuchLabel", &[]), "noSuchLabel");
        let page = PageLabels::of(Lang::Zh);
        assert_eq!(page.locale, "zh-CN");
        assert_eq!(
            page.labels["partInput"],
            Labels::of(Lang::Zh).float["partInput"]
        );
    }
}
