//! The JS side of the message contract: every name in `extension/contract.js` must be one the
//! Rust enums accept or produce, and every variant of those enums must have its name there,
//! so renaming a variant on either side fails here instead of in a browser.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};

use mcp_bridge_core::domain::messages::{Command, Origin, Response, parse_incoming};
use serde_json::{Value, json};

/// `group -> names` read from contract.js: lines `group: Object.freeze({` open a group,
/// lines `KEY: 'name',` add a name to it.
fn contract() -> BTreeMap<String, BTreeSet<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/extension/contract.js");
    let text = std::fs::read_to_string(path).expect("extension/contract.js");
    let mut groups: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(group) = line.strip_suffix(": Object.freeze({") {
            current = Some(group.to_string());
        } else if line.starts_with("})") {
            current = None;
        } else if let (Some(group), Some((key, value))) = (&current, line.split_once(": '")) {
            let name = value.trim_end_matches(',').trim_end_matches('\'');
            assert!(
                key.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{key}"
            );
            assert_eq!(
                key.to_ascii_lowercase().replace('_', "-"),
                name,
                "the key names its message"
            );
            groups
                .entry(group.clone())
                .or_default()
                .insert(name.to_string());
        }
    }
    groups
}

fn names(group: &str) -> BTreeSet<String> {
    let all = contract();
    let found = all.get(group).cloned().unwrap_or_default();
    assert!(
        !found.is_empty(),
        "no `{group}` names in contract.js: {all:?}"
    );
    found
}

/// The variants serde lists after "expected one of" when given an unknown one.
fn variants(err: &str) -> BTreeSet<String> {
    let list = err
        .split("expected one of ")
        .nth(1)
        .unwrap_or_else(|| panic!("no variant list in {err}"));
    list.split(", ")
        .map(|v| {
            v.trim_matches(|c: char| c == '`' || c.is_whitespace())
                .to_string()
        })
        .take_while(|v| !v.is_empty())
        .collect()
}

fn known(err: &Result<impl std::fmt::Debug, String>) -> bool {
    !matches!(err, Err(e) if e.contains("unknown variant"))
}

#[test]
fn every_tab_message_name_is_a_tab_request() {
    let js = names("tab");
    for name in &js {
        let parsed = parse_incoming(&json!({ "type": name }).to_string(), Origin::ContentScript);
        assert!(known(&parsed), "{name}: {parsed:?}");
    }
    let err = parse_incoming(r#"{"type":"no-such-message"}"#, Origin::ContentScript).unwrap_err();
    assert_eq!(variants(&err), js, "contract.js `tab` vs TabRequest");
}

#[test]
fn every_user_action_name_is_a_user_action() {
    let js = names("action");
    let tab = |action: Value| {
        parse_incoming(
            &json!({ "type": "user-action", "action": action }).to_string(),
            Origin::ContentScript,
        )
    };
    for name in &js {
        let parsed = tab(json!({ "action": name }));
        assert!(known(&parsed), "{name}: {parsed:?}");
    }
    let err = tab(json!({ "action": "no-such-action" })).unwrap_err();
    assert_eq!(variants(&err), js, "contract.js `action` vs UserAction");
}

#[test]
fn every_view_ask_name_is_a_view_ask() {
    let js = names("viewAsk");
    let view = |ask: Value| {
        parse_incoming(
            &json!({ "type": "view", "view": "v", "ask": ask }).to_string(),
            Origin::ExtensionPage,
        )
    };
    for name in &js {
        let parsed = view(json!({ "ask": name }));
        assert!(known(&parsed), "{name}: {parsed:?}");
    }
    let err = view(json!({ "ask": "no-such-ask" })).unwrap_err();
    assert_eq!(variants(&err), js, "contract.js `viewAsk` vs ViewAsk");
}

#[test]
fn every_page_request_name_is_a_page_request() {
    let js = names("page");
    for name in &js {
        let parsed = parse_incoming(&json!({ "type": name }).to_string(), Origin::ExtensionPage);
        assert!(known(&parsed), "{name}: {parsed:?}");
    }
    let err = parse_incoming(r#"{"type":"no-such-request"}"#, Origin::ExtensionPage).unwrap_err();
    assert_eq!(variants(&err), js, "contract.js `page` vs PageRequest");
}

#[test]
fn every_command_name_is_a_command() {
    let js = names("command");
    for name in &js {
        let read =
            serde_json::from_value::<Command>(json!({ "type": name })).map_err(|e| e.to_string());
        assert!(known(&read), "{name}: {read:?}");
    }
    // A command the core produces carries its name in `type`.
    let typed = serde_json::to_value(Command::TypeText { text: "x".into() }).unwrap();
    assert!(js.contains(typed["type"].as_str().unwrap()), "{typed}");
    let err = serde_json::from_value::<Command>(json!({ "type": "no-such-command" }))
        .unwrap_err()
        .to_string();
    assert_eq!(variants(&err), js, "contract.js `command` vs Command");
}

#[test]
fn every_response_name_is_a_response() {
    let js = names("response");
    for name in &js {
        let read =
            serde_json::from_value::<Response>(json!({ "type": name })).map_err(|e| e.to_string());
        assert!(known(&read), "{name}: {read:?}");
    }
    for produced in [
        Response::error("x"),
        Response::Ack { recheck_ms: None },
        Response::Data { data: json!({}) },
        Response::Pong {
            version: "1".into(),
        },
    ] {
        let v = serde_json::to_value(&produced).unwrap();
        assert!(js.contains(v["type"].as_str().unwrap()), "{v}");
    }
    let err = serde_json::from_value::<Response>(json!({ "type": "no-such-response" }))
        .unwrap_err()
        .to_string();
    assert_eq!(variants(&err), js, "contract.js `response` vs Response");
}

/// The fields the options page's modules (`options/*.js`) read through `name.`
/// (`tool.policyWhy`, `service.statusText`): the names after the dot, method calls left out.
fn read_by_options_js(name: &str) -> BTreeSet<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/options");
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir(dir).expect("options/") {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        if file.ends_with(".js") {
            found.extend(read_in(&format!("options/{file}"), name));
        }
    }
    found
}

/// The fields a page's script (`path` in the repository) reads through `name.`.
fn read_in(path: &str, name: &str) -> BTreeSet<String> {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).expect(path);
    let needle = format!("{name}.");
    let mut found = BTreeSet::new();
    for (i, _) in text.match_indices(&needle) {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let field: String = text[i + needle.len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let rest = &text[i + needle.len() + field.len()..];
        if !field.is_empty() && !rest.starts_with('(') {
            found.insert(field);
        }
    }
    found
}

/// The keys of a typed answer: each in camelCase, and a superset of what the page reads.
fn check_shape(what: &str, answer: &Value, read: &BTreeSet<String>) {
    let keys: BTreeSet<String> = answer
        .as_object()
        .unwrap_or_else(|| panic!("{what} is not an object: {answer}"))
        .keys()
        .cloned()
        .collect();
    for key in &keys {
        assert!(
            !key.contains('_') && key.starts_with(|c: char| c.is_ascii_lowercase()),
            "{what}.{key} is not camelCase"
        );
    }
    let missing: Vec<&String> = read.difference(&keys).collect();
    assert!(
        missing.is_empty(),
        "options.js reads {what}.{missing:?}, which the core does not answer (it has {keys:?})"
    );
}

#[test]
fn the_options_pages_typed_answers_have_the_fields_options_js_reads() {
    use mcp_bridge_core::domain::i18n::Lang;
    use mcp_bridge_core::domain::options_views::{ServiceView, connection_report, service_tools};
    use mcp_bridge_core::domain::settings::Settings;

    let service = ServiceView {
        name: "demo".into(),
        description: String::new(),
        status: "running".into(),
        status_text: "running".into(),
        tool_count: Some(1),
        resource_count: None,
        is_core: false,
        icon: Some("data:image/png;base64,iVBORw0K".into()),
    };
    let body = json!({"tools": {"tools": [{"name": "echo", "description": "Echo",
        "icon": "data:image/png;base64,iVBORw0K",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "annotations": {"readOnlyHint": true}}]}});
    let tools = serde_json::to_value(service_tools(
        &service,
        Ok(body),
        &Settings::default(),
        Lang::En,
    ))
    .unwrap();
    // The shape, and that it is what the page draws from.
    check_shape("service tools", &tools, &BTreeSet::new());
    check_shape("tool", &tools["tools"][0], &read_by_options_js("tool"));
    check_shape("service", &tools["service"], &read_by_options_js("service"));
    check_shape(
        "policy choice",
        &tools["tools"][0]["choices"][0],
        &read_by_options_js("c")
            .intersection(&["value".to_string(), "label".to_string()].into())
            .cloned()
            .collect(),
    );
    assert_eq!(tools["tools"][0]["choice"], "default");
    assert_eq!(tools["tools"][0]["paramsText"], " (`text`*: `string`)");
    assert_eq!(tools["tools"][0]["hints"], json!(["only reads"]));

    // `s.` is a server row, a site row or a connection's server, by where it is read: every
    // field read is one of theirs.
    let body = json!({"config_path": "/c.json", "config_valid": true, "servers": [{"name": "time",
        "enabled": true, "definition": {"command": "uvx"}, "status": "running", "pid": 7,
        "tool_count": 2, "last_error": null, "stderr": ""}]});
    let list =
        serde_json::to_value(mcp_bridge_core::domain::servers::list_view(&body, Lang::En)).unwrap();
    check_shape(
        "server list",
        &list,
        &read_by_options_js("data")
            .intersection(
                &["configPath", "configValid", "servers", "fingerprint"]
                    .map(String::from)
                    .into(),
            )
            .cloned()
            .collect(),
    );
    let row = mcp_bridge_core::domain::options_views::answers::SiteRow {
        id: "x".into(),
        name: "X".into(),
        hosts: vec![],
        builtin: true,
        overrides: false,
        enabled: true,
        auto_insert: false,
        json: None,
    };
    let site = serde_json::to_value(row).unwrap();
    let mut known: BTreeSet<String> = list["servers"][0]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    known.extend(site.as_object().unwrap().keys().cloned());
    check_shape("server row", &list["servers"][0], &BTreeSet::new());
    check_shape("site row", &site, &BTreeSet::new());

    let report = serde_json::to_value(connection_report(
        Lang::En,
        "1.0",
        "http://x",
        vec![service],
    ))
    .unwrap();
    check_shape(
        "connection report",
        &report,
        &BTreeSet::from(["summary".to_string(), "services".to_string()]),
    );
    check_shape(
        "connection service",
        &report["services"][0],
        &BTreeSet::from([
            "name".to_string(),
            "status".to_string(),
            "statusText".to_string(),
            "toolCountText".to_string(),
            "description".to_string(),
        ]),
    );
    known.extend(report["services"][0].as_object().unwrap().keys().cloned());
    // The connection's status, as the options header and the popup draw it.
    use mcp_bridge_core::domain::status::{PairingNote, Status, view};
    let connected = Status::Connected {
        version: "1.0".into(),
        servers: 1,
        tools: 2,
        failed: vec![],
    };
    let status = serde_json::to_value(view(Lang::En, &connected, "x", &PairingNote::None)).unwrap();
    let mut read = read_by_options_js("status");
    read.extend(read_in("extension/popup/popup.js", "status"));
    assert!(
        read.contains("failed") && read.contains("recheckMs"),
        "{read:?}"
    );
    let down = view(Lang::En, &Status::NotRunning, "x", &PairingNote::Absent);
    let down = serde_json::to_value(down).unwrap();
    // Some fields come only when connected (`failed`), others only until then (`recheckMs`).
    let mut either = status.clone();
    either["recheckMs"] = down["recheckMs"].clone();
    check_shape("status", &either, &read);
    check_shape(
        "status when not connected",
        &down,
        &BTreeSet::from(["state".into(), "title".into()]),
    );
    assert!(down.get("failed").is_none(), "{down}");

    // The popup's main button follows `site-state`.
    let site = serde_json::to_value(mcp_bridge_core::domain::options_views::answers::SiteState {
        on: true,
        name: Some("DeepSeek".into()),
        can_enable: false,
    })
    .unwrap();
    let read = read_in("extension/popup/popup.js", "site");
    assert!(read.contains("canEnable"), "{read:?}");
    check_shape("site state", &site, &read);

    // `fillSettings(s)` reads the settings answer.
    let settings = serde_json::to_value(mcp_bridge_core::domain::options_views::settings_answer(
        &Settings::default(),
        Lang::En,
    ))
    .unwrap();
    check_shape("settings", &settings, &BTreeSet::new());
    known.extend(settings.as_object().unwrap().keys().cloned());
    let unknown: Vec<String> = read_by_options_js("s")
        .difference(&known)
        .cloned()
        .collect();
    assert!(
        unknown.is_empty(),
        "options.js reads s.{unknown:?}, which no row has"
    );
}

#[test]
fn every_way_of_typing_the_core_names_is_one_content_js_carries_out() {
    use mcp_bridge_core::domain::sites::EditorKind;
    let text = content_script();
    let mut named = BTreeSet::new();
    for editor in [
        EditorKind::Textarea,
        EditorKind::Prosemirror,
        EditorKind::Lexical,
        EditorKind::Quill,
        EditorKind::Contenteditable,
    ] {
        let table = serde_json::to_value(mcp_bridge_core::domain::typing::Typing::for_site(editor))
            .unwrap();
        let mut lists = vec![table["unmarkedWays"].clone()];
        for marker in table["markers"].as_array().unwrap() {
            assert!(marker["selector"].as_str().is_some_and(|s| !s.is_empty()));
            lists.push(marker["ways"].clone());
        }
        for ways in lists {
            let ways = ways.as_array().unwrap();
            assert!(!ways.is_empty(), "no way to type into a kind: {table}");
            named.extend(ways.iter().map(|w| w.as_str().unwrap().to_string()));
        }
    }
    for way in &named {
        let carried = [
            format!("{way}: (el, text) =>"),
            format!("'{way}': (el, text) =>"),
        ];
        assert!(
            text.lines().any(|l| carried
                .iter()
                .any(|c| l.trim_start().starts_with(c.as_str()))),
            "the content script has no `{way}` in its ways of typing"
        );
    }
    assert_eq!(named.len(), 8, "{named:?}");
    // The script reads the table by these names.
    for field in ["typing.markers", "typing.unmarked", "typing.unmarkedWays"] {
        assert!(
            text.contains(field),
            "the content script does not read {field}"
        );
    }
}

/// The content script's files (after contract.js), as one text.
fn content_script() -> String {
    use mcp_bridge_core::domain::sites::CONTENT_SCRIPTS;
    CONTENT_SCRIPTS[1..]
        .iter()
        .map(|file| {
            let path = format!("{}/extension{file}", env!("CARGO_MANIFEST_DIR"));
            std::fs::read_to_string(&path).expect(&path)
        })
        .collect()
}

#[test]
fn the_manifest_loads_the_content_script_files_a_custom_site_gets() {
    use mcp_bridge_core::domain::sites::CONTENT_SCRIPTS;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/manifest.json");
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let listed: Vec<String> = manifest["content_scripts"][0]["js"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("/{}", f.as_str().unwrap()))
        .collect();
    assert_eq!(listed, CONTENT_SCRIPTS);
    assert_eq!(
        CONTENT_SCRIPTS[0], "/contract.js",
        "the message names load first"
    );
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/extension/content");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| format!("/content/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    on_disk.sort();
    let mut loaded = CONTENT_SCRIPTS[1..].to_vec();
    loaded.sort();
    assert_eq!(on_disk, loaded, "every file of extension/content is loaded");
}
