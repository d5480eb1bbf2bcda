//! Every word a screen shows is the core's: the keys the float, the picker, the popup and the
//! options page name are labels of the core (`domain::i18n::labels`) — the float's and the
//! picker's in the part the content script is sent — and the browser's `_locales` hold only
//! what the manifest names and the tag of the language the browser picked.
#![cfg(not(target_arch = "wasm32"))]

use mcp_bridge_core::domain::i18n::{Lang, labels::Labels};
use mcp_bridge_core::domain::sites::CONTENT_SCRIPTS;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

fn read(file: &str) -> String {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).expect(&path)
}

fn catalog(lang: &str) -> Map<String, Value> {
    let file = format!("extension/_locales/{lang}/messages.json");
    match serde_json::from_str(&read(&file)).expect(&file) {
        Value::Object(m) => m,
        other => panic!("{file} is not an object: {other}"),
    }
}

/// The keys a script or markup names in quotes (`T('key')`, `t('key')`, `data-i18n="key"`,
/// `data-i18n-placeholder="key"`, and the key tables `'partX'`, `'foundX'`, `'missingX'`).
fn keys_used(file: &str) -> BTreeSet<String> {
    let text = read(file);
    let mut out = BTreeSet::new();
    for (open, close) in [
        ("T('", '\''),
        ("t('", '\''),
        ("data-i18n=\"", '"'),
        ("data-i18n-aria-label=\"", '"'),
        ("data-i18n-placeholder=\"", '"'),
        ("'part", '\''),
        ("'found", '\''),
        ("'missing", '\''),
        ("'picker", '\''),
        ("'float", '\''),
    ] {
        let table = open.starts_with('\'');
        for (at, _) in text.match_indices(open) {
            // `T(` and `t(` as calls of their own, not the end of `act(` or `list(`.
            let before = text[..at].chars().next_back().unwrap_or(' ');
            if !table && (before.is_ascii_alphanumeric() || "_.$".contains(before)) {
                continue;
            }
            // A button's action name (`'data-action': 'floatAttachLink'`) is not a label.
            if table && text[..at].trim_end().ends_with("'data-action':") {
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

fn files_under(dir: &str) -> Vec<String> {
    let path = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(&path)
        .expect(&path)
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.ends_with(".js") || f.ends_with(".html"))
        .map(|f| format!("{dir}/{f}"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_float_and_the_picker_take_every_word_from_the_part_the_content_script_is_sent() {
    let mut used = BTreeSet::new();
    for file in CONTENT_SCRIPTS[1..]
        .iter()
        .map(|f| format!("extension/{}", f.trim_start_matches('/')))
        .chain(["extension/picker.js".to_string()])
    {
        used.extend(keys_used(&file));
    }
    // The picker shows the labels its steps name.
    used.extend(
        mcp_bridge_core::domain::picker::plan()
            .iter()
            .map(|s| s.label.to_string()),
    );
    assert!(used.len() > 40, "{used:?}");
    for lang in [Lang::En, Lang::Zh] {
        let float = &Labels::of(lang).float;
        let missing: Vec<&String> = used.iter().filter(|k| !float.contains_key(*k)).collect();
        assert!(
            missing.is_empty(),
            "{lang:?}: not sent to the content script: {missing:?}"
        );
    }
    // No English fallback beside a key: `T('key', 'Words')`.
    let content: String = CONTENT_SCRIPTS[1..]
        .iter()
        .map(|f| read(&format!("extension/{}", f.trim_start_matches('/'))))
        .collect();
    let fallbacks: Vec<&str> = content
        .match_indices("T('")
        .map(|(at, _)| &content[at..(at + 60).min(content.len())])
        .filter(|s| s.split_once("', '").is_some_and(|(k, _)| !k.contains(')')))
        .collect();
    assert!(fallbacks.is_empty(), "fallback strings: {fallbacks:?}");
}

#[test]
fn the_popup_and_the_options_page_take_every_word_from_the_labels() {
    let mut used = BTreeSet::new();
    for file in files_under("extension/popup")
        .into_iter()
        .chain(files_under("options"))
        .chain(["extension/pages.js".to_string()])
    {
        used.extend(keys_used(&file));
    }
    assert!(used.len() > 150, "{}", used.len());
    for lang in [Lang::En, Lang::Zh] {
        let all = Labels::of(lang).all();
        let missing: Vec<&String> = used
            .iter()
            .filter(|k| !all.contains_key(k.as_str()))
            .collect();
        assert!(missing.is_empty(), "{lang:?}: no such label: {missing:?}");
    }
    // The popup's markup holds no words of its own.
    let html = read("extension/popup/popup.html");
    assert!(
        !html.contains("\">Insert") && !html.contains("Checking"),
        "{html}"
    );
}

#[test]
fn every_label_is_named_by_a_screen() {
    let mut used = BTreeSet::new();
    for file in CONTENT_SCRIPTS[1..]
        .iter()
        .map(|f| format!("extension/{}", f.trim_start_matches('/')))
        .chain(files_under("extension/popup"))
        .chain(files_under("options"))
        .chain(["extension/picker.js".into(), "extension/pages.js".into()])
        // The picker's steps name their labels in the core's plan.
        .chain(["src/domain/picker.rs".into()])
    {
        let text = read(&file);
        used.extend(
            Labels::of(Lang::En)
                .all()
                .into_keys()
                .filter(|k| text.contains(&format!("'{k}'")) || text.contains(&format!("\"{k}\"")))
                .map(String::from),
        );
    }
    let unused: Vec<&str> = Labels::of(Lang::En)
        .all()
        .into_keys()
        .filter(|k| !used.contains(*k))
        .collect();
    assert!(unused.is_empty(), "labels no screen names: {unused:?}");
}

/// The browser's catalogs keep only what the browser reads: the manifest's `__MSG_` names and
/// `catalogLanguage`, the tag of the catalog it picked, which the core reads as its language.
#[test]
fn the_browsers_catalogs_hold_only_the_manifests_words_and_their_own_language() {
    let manifest = read("manifest.json");
    let mut wanted: BTreeSet<String> = manifest
        .split("__MSG_")
        .skip(1)
        .filter_map(|rest| rest.split_once("__").map(|(k, _)| k.to_string()))
        .collect();
    wanted.insert("catalogLanguage".into());
    for (dir, lang) in [("en", Lang::En), ("zh_CN", Lang::Zh)] {
        let catalog = catalog(dir);
        let keys: BTreeSet<String> = catalog.keys().cloned().collect();
        assert_eq!(keys, wanted, "{dir}");
        let tag = catalog["catalogLanguage"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert_eq!(Lang::of_ui(&tag), lang, "{dir}: {tag}");
        assert_eq!(tag, lang.locale(), "{dir}: dates are written in it too");
    }
}
