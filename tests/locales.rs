//! The browser's catalog (`extension/_locales/<lang>/messages.json`, the labels of the
//! options page and the float): every key in both languages, with the same placeholders.
#![cfg(not(target_arch = "wasm32"))]

use mcp_bridge_core::domain::sites::CONTENT_SCRIPTS;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

fn catalog(lang: &str) -> Map<String, Value> {
    let path = format!(
        "{}/extension/_locales/{lang}/messages.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect(&path);
    match serde_json::from_str(&text).expect(&path) {
        Value::Object(m) => m,
        other => panic!("{path} is not an object: {other}"),
    }
}

/// The `$NAME$` placeholders a message uses.
fn placeholders(entry: &Value) -> BTreeSet<String> {
    let message = entry["message"].as_str().unwrap_or_default();
    message
        .split('$')
        .skip(1)
        .step_by(2)
        .map(str::to_ascii_lowercase)
        .collect()
}

#[test]
fn every_key_is_in_both_languages_with_the_same_placeholders() {
    let (en, zh) = (catalog("en"), catalog("zh_CN"));
    let (en_keys, zh_keys): (BTreeSet<_>, BTreeSet<_>) = (en.keys().collect(), zh.keys().collect());
    assert_eq!(
        en_keys.symmetric_difference(&zh_keys).collect::<Vec<_>>(),
        Vec::<&&String>::new(),
        "keys in one language only"
    );
    for (key, entry) in &en {
        assert!(
            entry["message"]
                .as_str()
                .is_some_and(|m| !m.trim().is_empty()),
            "{key}"
        );
        assert_eq!(placeholders(entry), placeholders(&zh[key]), "{key}");
    }
}

#[test]
fn the_chinese_catalog_is_chinese() {
    let zh = catalog("zh_CN");
    let english: Vec<&String> = zh
        .iter()
        .filter(|(_, e)| {
            let m = e["message"].as_str().unwrap_or_default();
            // Names (MCP Bridge, Token) and codes may be Latin; a whole sentence may not.
            m.split_whitespace()
                .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
                .count()
                >= 4
        })
        .map(|(k, _)| k)
        .collect();
    assert!(english.is_empty(), "English in zh_CN: {english:?}");
}

/// The keys a page's script or markup names in quotes (`T('key')`, `t('key')`,
/// `data-i18n="key"`, and the content script's key tables).
fn keys_used(file: &str) -> BTreeSet<String> {
    let path = format!("{}/extension/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect(&path);
    let mut out = BTreeSet::new();
    for (open, close) in [
        ("T('", '\''),
        ("t('", '\''),
        ("data-i18n=\"", '"'),
        ("'part", '\''),
        ("'found", '\''),
        ("'missing", '\''),
    ] {
        let table = open.starts_with('\'');
        for (at, _) in text.match_indices(open) {
            // `T(` and `t(` as calls of their own, not the end of `act(` or `list(`.
            let before = text[..at].chars().next_back().unwrap_or(' ');
            if !table && (before.is_ascii_alphanumeric() || "_.$".contains(before)) {
                continue;
            }
            let start = if table { at + 1 } else { at + open.len() };
            let key: String = text[start..].chars().take_while(|c| *c != close).collect();
            let named = key.chars().all(|c| c.is_ascii_alphanumeric()) && !key.is_empty();
            // A table's keys go on past their prefix (`partInput`), unlike `missing` or `parts`.
            let prefix = open.len() - 1;
            if named && (!table || key[prefix..].starts_with(|c: char| c.is_ascii_uppercase())) {
                out.insert(key);
            }
        }
    }
    out
}

#[test]
fn the_float_and_the_popup_take_every_word_from_the_catalog() {
    let (en, zh) = (catalog("en"), catalog("zh_CN"));
    let mut used = BTreeSet::new();
    let content: Vec<String> = CONTENT_SCRIPTS[1..]
        .iter()
        .map(|f| f.trim_start_matches('/').to_string())
        .collect();
    for file in content
        .iter()
        .map(String::as_str)
        .chain(["popup/popup.js", "popup/popup.html"])
    {
        used.extend(keys_used(file));
    }
    assert!(used.len() > 30, "{used:?}");
    let missing: Vec<&String> = used
        .iter()
        .filter(|k| !en.contains_key(*k) || !zh.contains_key(*k))
        .collect();
    assert!(missing.is_empty(), "not in both catalogs: {missing:?}");
    // No English fallback beside a key: `T('key', 'Words')`.
    let content: String = content
        .iter()
        .map(|f| {
            std::fs::read_to_string(format!("{}/extension/{f}", env!("CARGO_MANIFEST_DIR")))
                .unwrap()
        })
        .collect();
    let fallbacks: Vec<&str> = content
        .match_indices("T('")
        .map(|(at, _)| &content[at..(at + 60).min(content.len())])
        .filter(|s| s.split_once("', '").is_some_and(|(k, _)| !k.contains(')')))
        .collect();
    assert!(fallbacks.is_empty(), "fallback strings: {fallbacks:?}");
    // The popup's markup holds no words of its own.
    let html = std::fs::read_to_string(format!(
        "{}/extension/popup/popup.html",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert!(
        !html.contains("\">Insert") && !html.contains("Checking"),
        "{html}"
    );
}

/// The core speaks the language of the catalog the browser picked (`catalogLanguage`, read by
/// the web host): each catalog names its own language, one the core reads as that language.
#[test]
fn each_catalog_names_its_own_language_as_the_core_reads_it() {
    use mcp_bridge_core::domain::i18n::Lang;
    for (dir, lang) in [("en", Lang::En), ("zh_CN", Lang::Zh)] {
        let tag = catalog(dir)["catalogLanguage"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert_eq!(Lang::of_ui(&tag), lang, "{dir}: {tag}");
        assert_eq!(tag, lang.locale(), "{dir}: dates are written in it too");
    }
}
