//! Consent by site: a choice made in the float on one chat site holds on that site, unless
//! the user ticks "on every site"; a site the user turned on themselves starts with every
//! tool that can change things asking, whatever was allowed on every site.

use super::world::*;
use mcp_bridge_core::runtime::host::Area;
use serde_json::{Value, json};

/// A note writer (it may change things, and stays on this machine, so its results do not
/// mark the conversation) and a clock, both on servers the user trusts.
const SERVERS: [(&str, &[&str]); 2] = [("notes", &["write_note"]), ("time", &["get_current_time"])];

/// Shipped sites other than DeepSeek ([`URL`]), one generated conversation address each.
const ELSEWHERE: [&str; 3] = [
    "https://www.kimi.com/chat/c1",
    "https://chat.qwen.ai/c/c2",
    "https://gemini.google.com/app/c3",
];

fn world(settings: Value) -> World {
    let w = World::new();
    w.bridge(|req| bridge_with(&SERVERS, req));
    w.store(Area::Local, "settings", settings);
    w
}

/// The AI on the page at `url` (tab `tab`, answer `index`) asks to write a note; returns
/// whether it ran without asking.
fn write_runs_unasked(w: &mut World, tab: i32, url: &str, index: u32) -> bool {
    let before = w.executes().len();
    w.answer_at(
        tab,
        url,
        index,
        &call("write_note", json!({"path": format!("/tmp/{index}")})),
    );
    let ran = w.executes().len() > before;
    if !ran {
        assert_eq!(w.last_float(tab)["status"], "confirm");
        // Not this test's question: skip it, so the next call is judged afresh.
        w.action(tab, json!({"action": "confirm", "run": false}));
    }
    ran
}

/// The user answers the write's first question with `answer` (`always-allow` or `deny`),
/// on every site or not.
fn answer_first_question(w: &mut World, tab: i32, url: &str, run: bool, everywhere: bool) {
    w.open_chat_at(tab, url);
    w.answer_at(
        tab,
        url,
        1,
        &call("write_note", json!({"path": "/tmp/first"})),
    );
    let f = w.last_float(tab);
    assert_eq!(f["status"], "confirm", "{f}");
    w.action(
        tab,
        json!({"action": "confirm", "run": run, "always": true, "everywhere": everywhere}),
    );
    assert_ne!(w.last_float(tab)["status"], "confirm", "answered");
}

#[test]
fn the_question_offers_to_keep_the_choice_on_every_site_naming_this_one() {
    let mut w = world(json!({"trustedServers": ["time", "notes"]}));
    w.open_chat(1);
    w.answer(1, 1, &call("write_note", json!({"path": "/tmp/x"})));
    let f = w.last_float(1);
    assert_eq!(
        f["consent"]["everywhere"], "Keep my choice on every site, not only on DeepSeek",
        "{f}"
    );
    // In the user's language.
    w.ui_language("zh-CN");
    w.action(1, json!({"action": "confirm", "run": false}));
    w.answer(1, 2, &call("write_note", json!({"path": "/tmp/y"})));
    let f = w.last_float(1);
    assert!(
        f["consent"]["everywhere"]
            .as_str()
            .is_some_and(|s| s.contains("DeepSeek") && s.contains("所有网站")),
        "{f}"
    );
}

#[test]
fn an_always_allow_on_one_site_holds_there_and_asks_again_elsewhere() {
    let mut w = world(json!({"trustedServers": ["time", "notes"]}));
    answer_first_question(&mut w, 1, URL, true, false);
    assert_eq!(w.executes().len(), 1, "allowed: it ran");
    assert!(write_runs_unasked(&mut w, 1, URL, 2), "kept on DeepSeek");
    for (i, url) in ELSEWHERE.iter().enumerate() {
        let tab = 10 + i as i32;
        w.open_chat_at(tab, url);
        assert!(
            !write_runs_unasked(&mut w, tab, url, 1),
            "asks again on {url}"
        );
    }
    let stored = w.stored(Area::Local, "settings").unwrap();
    assert_eq!(
        stored["siteToolPolicies"]["deepseek"]["notes:write_note"],
        "allow"
    );
    assert!(
        stored["toolPolicies"].get("notes:write_note").is_none(),
        "{stored}"
    );
}

#[test]
fn an_always_allow_on_every_site_holds_everywhere() {
    let mut w = world(json!({"trustedServers": ["time", "notes"]}));
    answer_first_question(&mut w, 1, URL, true, true);
    for (i, url) in ELSEWHERE.iter().enumerate() {
        let tab = 10 + i as i32;
        w.open_chat_at(tab, url);
        assert!(write_runs_unasked(&mut w, tab, url, 1), "runs on {url}");
    }
}

#[test]
fn a_deny_on_one_site_holds_there_over_an_every_site_allow_and_nowhere_else() {
    let mut w = world(json!({"trustedServers": ["time", "notes"],
                             "toolPolicies": {"notes:write_note": "allow"}}));
    w.open_chat(1);
    assert!(write_runs_unasked(&mut w, 1, URL, 1));
    // The user changes their mind on DeepSeek: the options page's every-site *Allow* stays.
    let mut s = w.stored(Area::Local, "settings").unwrap();
    s["siteToolPolicies"] = json!({"deepseek": {"*:write_note": "deny"}});
    w.store(Area::Local, "settings", s);
    let before = w.executes().len();
    w.answer(1, 2, &call("write_note", json!({"path": "/tmp/2"})));
    assert_eq!(w.executes().len(), before, "the site's Deny holds");
    assert_ne!(w.last_float(1)["status"], "confirm");
    let kimi = ELSEWHERE[0];
    w.open_chat_at(2, kimi);
    assert!(write_runs_unasked(&mut w, 2, kimi, 1), "not on Kimi");
}

#[test]
fn a_deny_from_the_float_is_kept_for_the_site_it_was_made_on() {
    let mut w = world(json!({"trustedServers": ["time", "notes"]}));
    answer_first_question(&mut w, 1, URL, false, false);
    assert_eq!(w.executes().len(), 0);
    let before = w.floats(1).len();
    w.answer(1, 2, &call("write_note", json!({"path": "/tmp/2"})));
    assert_eq!(w.executes().len(), 0, "denied on DeepSeek");
    let asked = w.floats(1)[before..]
        .iter()
        .any(|f| f["status"] == "confirm");
    assert!(!asked, "a kept Deny does not ask");
    let kimi = ELSEWHERE[0];
    w.open_chat_at(2, kimi);
    w.answer_at(2, kimi, 1, &call("write_note", json!({"path": "/tmp/k"})));
    assert_eq!(w.last_float(2)["status"], "confirm", "Kimi asks");
}

#[test]
fn a_site_the_user_turned_on_asks_before_tools_that_can_change_things() {
    let mut w = world(json!({"trustedServers": ["time", "notes"],
                             "toolPolicies": {"notes:write_note": "allow"}}));
    let hosts = ["copilot.example.com", "chat.example.org", "ai.example.net"];
    for (i, host) in hosts.iter().enumerate() {
        let url = format!("https://{host}/c/{i}");
        let r = w.page(json!({"type": "enable-site", "url": url}));
        assert!(format!("{r:?}").contains("Data"), "{r:?}");
        let tab = 20 + i as i32;
        w.open_chat_at(tab, &url);
        assert!(
            !write_runs_unasked(&mut w, tab, &url, 1),
            "{host}: the write asks"
        );
        // A read-only tool of a server the user trusts still runs by itself.
        let before = w.executes().len();
        w.answer_at(tab, &url, 2, &call("get_current_time", json!({})));
        assert_eq!(w.executes().len(), before + 1, "{host}: the clock runs");
        // Allowed there, on every site: now it runs there too.
        w.answer_at(tab, &url, 3, &call("write_note", json!({"path": "/tmp/3"})));
        let f = w.last_float(tab);
        assert!(f["consent"]["everywhere"].as_str().is_some(), "{f}");
        w.action(
            tab,
            json!({"action": "confirm", "run": true, "always": true, "everywhere": true}),
        );
        assert!(
            write_runs_unasked(&mut w, tab, &url, 4),
            "{host}: allowed there"
        );
    }
    // A shipped site keeps the every-site Allow.
    w.open_chat(1);
    assert!(write_runs_unasked(&mut w, 1, URL, 1));
}
