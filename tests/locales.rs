//! The browser's catalog (`extension/_locales/<lang>/messages.json`, the labels of the
//! options page and the float): every key in both languages, with the same placeholders.
#![cfg(not(target_arch = "wasm32"))]

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
