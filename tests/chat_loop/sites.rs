//! The user's sites beyond the shipped ones: a subscribed site list (signed with a key pair
//! made for this run, fetched, checked, refused with the reason, checked again once a day),
//! the picker's override, and a site turned on with no selectors.

use super::world::*;
use base64::Engine;
use ed25519_dalek::{Signer, SigningKey};
use mcp_bridge_core::domain::messages::Response;
use mcp_bridge_core::domain::site_list::{DAY_MS, canonical};
use mcp_bridge_core::runtime::host::{Area, HttpRequest};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::hash::{BuildHasher, Hasher};
use std::rc::Rc;

const LIST_URL: &str = "https://lists.example.org/sites.json";
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// A key pair of this run: its seed from the process's own random hasher keys.
fn key_pair() -> SigningKey {
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(7);
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    SigningKey::from_bytes(&seed)
}

fn public_b64(key: &SigningKey) -> String {
    B64.encode(key.verifying_key().to_bytes())
}

/// A list as the signer makes it: the canonical bytes of everything but the signature.
fn signed_list(key: &SigningKey, version: u64, sites: Value) -> Value {
    let mut list = json!({"version": version, "sites": sites});
    let signature = key.sign(&canonical(&list));
    list["signature"] = json!(B64.encode(signature.to_bytes()));
    list
}

/// DeepSeek's shipped config with another input selector.
fn deepseek_with(input: &str) -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/extension/sites/deepseek.json"
    ))
    .unwrap();
    let mut cfg: Value = serde_json::from_str(&text).unwrap();
    cfg["selectors"]["input"] = json!([input]);
    cfg
}

/// A world with the run's verifying key built in, serving `served` at LIST_URL (and the
/// healthy bridge elsewhere).
fn world_serving(key: &SigningKey, served: Rc<RefCell<Value>>) -> World {
    let w = World::new();
    w.file("site-list-key.txt", &format!("{}\n", public_b64(key)));
    w.bridge(move |req: &HttpRequest| {
        if req.url == LIST_URL {
            assert!(
                req.bearer.is_none(),
                "the bridge's token never goes to a list's server"
            );
            return ok_json(200, served.borrow().clone());
        }
        healthy_bridge(req)
    });
    w
}

fn data(r: Response) -> Value {
    match r {
        Response::Data { data } => data,
        other => panic!("not data: {other:?}"),
    }
}

fn input_on_page(w: &mut World, tab: i32) -> Value {
    match w.page_ready(tab, URL) {
        Response::PageSetup { site: Some(s), .. } => json!(s.selectors.input),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_signed_list_is_taken_and_a_tampered_one_refused_keeping_the_one_in_force() {
    let key = key_pair();
    let served = Rc::new(RefCell::new(signed_list(
        &key,
        3,
        json!([deepseek_with("textarea.v3")]),
    )));
    let mut w = world_serving(&key, Rc::clone(&served));
    let shipped = input_on_page(&mut w, 1);

    let view = data(w.page(json!({"type": "subscribe-site-list", "url": LIST_URL})));
    assert_eq!(view["version"], 3, "{view}");
    assert!(view["refused"].is_null(), "{view}");
    assert_eq!(view["sites"], json!(["deepseek"]));
    assert_eq!(view["checkedMs"], json!(1_700_000_000_000.0));
    assert_eq!(input_on_page(&mut w, 1), json!(["textarea.v3"]));

    // Tampered: version 4 with the signature of another text.
    let mut tampered = signed_list(&key, 4, json!([deepseek_with("textarea.v4")]));
    tampered["sites"][0]["selectors"]["input"] = json!(["textarea.evil"]);
    *served.borrow_mut() = tampered;
    let view = data(w.page(json!({"type": "check-site-list"})));
    assert_eq!(view["version"], 3, "the version in force stays");
    let refused = view["refused"].as_str().unwrap();
    assert!(refused.contains("signature does not match"), "{refused}");
    assert_eq!(input_on_page(&mut w, 1), json!(["textarea.v3"]));

    // Signed by another key: refused the same way.
    *served.borrow_mut() = signed_list(&SigningKey::from_bytes(&[9; 32]), 5, json!([]));
    let view = data(w.page(json!({"type": "check-site-list"})));
    assert!(
        view["refused"].as_str().unwrap().contains("signature"),
        "{view}"
    );

    // Older, well signed: refused with both versions.
    *served.borrow_mut() = signed_list(&key, 2, json!([deepseek_with("textarea.v2")]));
    let view = data(w.page(json!({"type": "check-site-list"})));
    let refused = view["refused"].as_str().unwrap();
    assert!(
        refused.contains("version 2") && refused.contains("version 3"),
        "{refused}"
    );

    // Well signed but invalid: refused naming the field.
    *served.borrow_mut() = signed_list(&key, 6, json!([deepseek_with("div[")]));
    let view = data(w.page(json!({"type": "check-site-list"})));
    let refused = view["refused"].as_str().unwrap();
    assert!(refused.contains("sites[0].selectors.input[0]"), "{refused}");
    assert_eq!(input_on_page(&mut w, 1), json!(["textarea.v3"]));

    // Unsubscribed: the shipped config is back.
    data(w.page(json!({"type": "unsubscribe-site-list"})));
    assert_eq!(input_on_page(&mut w, 1), shipped);
}

#[test]
fn without_a_key_or_with_a_bad_address_nothing_is_taken() {
    let key = key_pair();
    let served = Rc::new(RefCell::new(signed_list(
        &key,
        1,
        json!([deepseek_with("x")]),
    )));
    let mut w = world_serving(&key, served);
    w.file("site-list-key.txt", "");
    let view = data(w.page(json!({"type": "subscribe-site-list", "url": LIST_URL})));
    assert!(view["version"].is_null());
    assert!(
        view["refused"].as_str().unwrap().contains("no key"),
        "{view}"
    );
    for url in [
        "http://lists.example.org/x.json",
        "ftp://x/y",
        "",
        "https://",
    ] {
        match w.page(json!({"type": "subscribe-site-list", "url": url})) {
            Response::Error { field, message } => {
                assert_eq!(field.as_deref(), Some("url"), "{url}: {message}")
            }
            other => panic!("{url}: {other:?}"),
        }
    }
    // The subscription from before the bad addresses is unchanged.
    let view = data(w.page(json!({"type": "get-site-list"})));
    assert_eq!(view["url"], LIST_URL);
}

#[test]
fn the_daily_alarm_fetches_at_most_once_a_day() {
    let key = key_pair();
    let served = Rc::new(RefCell::new(signed_list(&key, 1, json!([]))));
    let mut w = world_serving(&key, Rc::clone(&served));
    let fetches = |w: &World| {
        w.host
            .0
            .requests
            .borrow()
            .iter()
            .filter(|r| r.url == LIST_URL)
            .count()
    };
    w.alarm("site-list");
    assert_eq!(fetches(&w), 0, "nothing subscribed, nothing fetched");
    data(w.page(json!({"type": "subscribe-site-list", "url": LIST_URL})));
    assert_eq!(fetches(&w), 1);
    *served.borrow_mut() = signed_list(&key, 2, json!([deepseek_with("textarea.daily")]));
    w.advance(DAY_MS / 2.0);
    w.alarm("site-list");
    assert_eq!(fetches(&w), 1, "half a day after the last check");
    w.alarm("another-alarm");
    w.advance(DAY_MS / 2.0);
    w.alarm("site-list");
    assert_eq!(fetches(&w), 2, "a day after");
    assert_eq!(w.stored(Area::Local, "siteList").unwrap()["version"], 2);
    // On demand, whenever.
    data(w.page(json!({"type": "check-site-list"})));
    assert_eq!(fetches(&w), 3);
}

/// What the picker sends for an element with `classes`, found by the page as `found` says
/// (`(selector, count, includes)`; none inside another).
fn chosen(tag: &str, classes: &[&str], found: &[(&str, u32, bool)]) -> Value {
    json!({
        "element": {
            "tag": tag, "classes": classes,
            "path": [{"tag": tag, "nth": 2, "of": 2}, {"tag": "main", "id": "thread", "nth": 1, "of": 1}],
        },
        "found": found.iter().map(|(selector, count, includes)|
            json!({"selector": selector, "count": count, "includes": includes, "disjoint": true}))
            .collect::<Vec<_>>(),
    })
}

#[test]
fn the_picker_follows_the_cores_plan_and_candidates() {
    let mut w = World::new();
    let plan = serde_json::to_value(w.tab(
        1,
        json!({"type": "user-action", "action": {"action": "pick-start"}}),
    ))
    .unwrap();
    let parts: Vec<&str> = plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["part"].as_str().unwrap())
        .collect();
    assert_eq!(parts, ["input", "send", "answer"], "{plan}");
    assert!(
        plan["steps"][1]["widen"]
            .as_str()
            .unwrap()
            .contains("button"),
        "{plan}"
    );
    let r = serde_json::to_value(w.tab(1, json!({"type": "user-action", "action": {"action": "pick-candidates",
        "element": {"tag": "button", "attributes": {"aria-label": "Send"}, "classes": ["send", "x9F3K2a"],
                    "path": [{"tag": "button", "nth": 1, "of": 1}, {"tag": "form", "id": "composer", "nth": 1, "of": 1}]}}}))).unwrap();
    assert_eq!(r["type"], "pick-candidates", "{r}");
    assert_eq!(
        r["selectors"],
        json!([
            r#"button[aria-label="Send"]"#,
            "button.send",
            "#composer > button"
        ])
    );
}

#[test]
fn picked_parts_override_the_site_at_once_and_show_in_the_options() {
    let mut w = World::new();
    let before = input_on_page(&mut w, 1);
    let r = w.tab(
        1,
        json!({"type": "user-action", "action": {"action": "picked", "url": URL,
               "input": chosen("div", &["renamed-input"], &[("div.renamed-input", 1, true)]),
               "send": chosen("button", &["renamed"], &[("button.renamed", 1, true)]),
               "answer": chosen("div", &["renamed-answer", "md"], &[
                   ("div.renamed-answer", 3, true), ("div.md", 5, true), ("div.renamed-answer.md", 3, true)])}}),
    );
    let site = match r {
        Response::PageSetup {
            site: Some(s),
            float,
            ..
        } => {
            let detail = serde_json::to_value(&float).unwrap()["detail"].clone();
            assert!(detail.as_str().unwrap().contains("Saved"), "{detail}");
            s
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(site.id, "deepseek", "an override of the shipped site");
    assert_eq!(site.selectors.input[0], "div.renamed-input");
    assert_eq!(site.selectors.send[0], "button.renamed");
    assert_eq!(
        site.selectors.assistant_message[0], "div.md",
        "the one finding the most answers"
    );
    assert_eq!(
        &site.selectors.input[1..],
        before
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(input_on_page(&mut w, 2)[0], "div.renamed-input");
    assert!(
        w.host.0.registered.borrow().is_empty(),
        "a shipped site needs no script"
    );
    // Listed, exported, and removable in the options page.
    let sites = data(w.page(json!({"type": "list-sites"})));
    let row = sites["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "deepseek" && s["builtin"] == false)
        .cloned()
        .expect("the override is listed");
    assert!(row["json"].as_str().unwrap().contains("div.renamed-input"));
    let export = data(w.page(json!({"type": "export-custom-sites"})));
    assert!(export["json"].as_str().unwrap().contains("button.renamed"));
    data(w.page(json!({"type": "remove-custom-site", "id": "deepseek"})));
    assert_eq!(input_on_page(&mut w, 3), before);
    // The export imports back, whole.
    let r = data(w.page(json!({"type": "import-custom-sites", "json": export["json"]})));
    assert_eq!(r["sites"], json!(["deepseek"]));
    assert_eq!(input_on_page(&mut w, 4)[0], "div.renamed-input");
}

#[test]
fn a_selector_the_page_made_up_is_never_saved() {
    let mut w = World::new();
    // The page claims an invalid selector and one of its own found the element alone; neither
    // is a candidate of the core, so the element's path is saved.
    let r = w.tab(
        1,
        json!({"type": "user-action", "action": {"action": "picked", "url": URL,
               "input": chosen("textarea", &[], &[("div[x", 1, true), ("body *", 1, true)])}}),
    );
    match r {
        Response::PageSetup { site: Some(s), .. } => {
            assert_eq!(s.selectors.input[0], "#thread > textarea:nth-of-type(2)");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_pick_on_a_page_without_a_site_is_refused_and_nothing_changes() {
    let mut w = World::new();
    let r = w.tab(
        1,
        json!({"type": "user-action", "action": {"action": "picked", "url": "https://elsewhere.example/chat",
               "input": chosen("textarea", &["box"], &[("textarea.box", 1, true)])}}),
    );
    // The page keeps its site; the float, opened, says what was not saved and why.
    match r {
        Response::PageSetup {
            site: None,
            problem: Some(why),
            float,
            ..
        } => {
            assert!(why.contains("no site config"), "{why}");
            let float = serde_json::to_value(&float).unwrap();
            assert_eq!(float["status"], "error", "{float}");
            assert_eq!(float["opens"], true, "{float}");
            assert_eq!(float["title"], "The picked parts were not saved", "{float}");
            assert!(float["detail"].as_str().unwrap().contains("no site config"));
        }
        other => panic!("{other:?}"),
    }
    assert!(w.stored(Area::Local, "customSites").is_none());
}

#[test]
fn any_site_is_turned_on_with_no_selectors_once_its_host_is_granted() {
    let mut w = World::new();
    let url = "https://copilot.example.com/chats/7";
    w.host.0.granted.set(false);
    match w.page(json!({"type": "enable-site", "url": url})) {
        Response::Error { field, message } => {
            assert_eq!(field.as_deref(), Some("hosts"));
            assert!(
                message.contains("https://copilot.example.com/*"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(w.stored(Area::Local, "customSites").is_none());
    w.host.0.granted.set(true);
    let r = data(w.page(json!({"type": "enable-site", "url": url})));
    assert_eq!(r["already"], false);
    assert_eq!(
        r["site"]["selectors"],
        json!({"input": [], "send": [], "assistantMessage": [], "generating": [], "messageArea": []})
    );
    assert_eq!(
        *w.host.0.registered.borrow(),
        [(
            "custom-site-copilot-example-com".to_string(),
            vec!["https://copilot.example.com/*".to_string()]
        )]
    );
    match w.page_ready(1, url) {
        Response::PageSetup { site: Some(s), .. } => assert_eq!(s.id, "copilot-example-com"),
        other => panic!("{other:?}"),
    }
    // Asking again changes nothing; a shipped site is already on.
    assert_eq!(
        data(w.page(json!({"type": "enable-site", "url": url})))["already"],
        true
    );
    assert_eq!(
        data(w.page(json!({"type": "enable-site", "url": URL})))["already"],
        true
    );
    match w.page(json!({"type": "enable-site", "url": "chrome://extensions"})) {
        Response::Error { field, .. } => assert_eq!(field.as_deref(), Some("url")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_popup_learns_whether_a_site_is_on_without_changing_anything() {
    let mut w = World::new();
    // A shipped site is on; nothing is offered there.
    let r = data(w.page(json!({"type": "site-state", "url": URL})));
    assert_eq!(r["on"], true, "{r}");
    assert_eq!(r["canEnable"], false, "{r}");
    assert_eq!(r["name"], "DeepSeek", "{r}");
    // A page with no config could be turned on; asking stores and registers nothing.
    let url = "https://copilot.example.com/chats/7";
    let r = data(w.page(json!({"type": "site-state", "url": url})));
    assert_eq!(r, json!({"on": false, "name": null, "canEnable": true}));
    assert!(w.stored(Area::Local, "customSites").is_none());
    assert!(w.host.0.registered.borrow().is_empty());
    // Once turned on, it says so.
    data(w.page(json!({"type": "enable-site", "url": url})));
    assert_eq!(
        data(w.page(json!({"type": "site-state", "url": url})))["on"],
        true
    );
    // A page the extension cannot run on is neither on nor offered.
    let r = data(w.page(json!({"type": "site-state", "url": "chrome://extensions"})));
    assert_eq!(r, json!({"on": false, "name": null, "canEnable": false}));
}
