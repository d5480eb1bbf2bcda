//! The worker and an extension page each run an instance of the one core over one storage:
//! the worker answers chat tabs only (the chat loop and its errands), the page answers its
//! own requests. (What the page saves steers the worker: every test that saves settings
//! with `World::settings` goes through the page's instance.)

use super::world::*;
use mcp_bridge_core::domain::messages::{Origin, Response};
use serde_json::json;

#[test]
fn the_worker_leaves_page_requests_to_the_pages_core() {
    let mut w = World::new();
    let r = w
        .send(Origin::ExtensionPage, None, json!({"type": "get-settings"}))
        .expect("an answer");
    let r = serde_json::to_value(r).unwrap();
    assert_eq!(r["type"], "error", "{r}");
    assert!(r["message"].as_str().unwrap().contains("own core"), "{r}");
    // The same request in the page's core is answered.
    let r = serde_json::to_value(w.page(json!({"type": "get-settings"}))).unwrap();
    assert_ne!(r["type"], "error", "{r}");
}

/// The worker answers its errands itself, with no other core to start: the Prompts menu
/// asks the bridge, a page's scene is chosen from.
#[test]
fn the_worker_answers_its_errands_itself() {
    let mut w = World::new();
    w.open_chat(4);
    let menu = json!({"type": "user-action", "action": {"action": "menu"}});
    let r = w.tab(4, menu);
    assert!(matches!(r, Response::Menu { .. }), "{r:?}");
    assert!(
        w.requests_to("/prompts") > 0,
        "the menu did not ask the bridge"
    );
    let detect = json!({"type": "detect", "scene": {"viewport": [800, 600], "composers": []}});
    let r = w.tab(4, detect);
    assert!(matches!(r, Response::Detected { .. }), "{r:?}");
}

/// An errand is checked against the contract like every tab message: what breaks it, or
/// comes from no tab, is refused before anything runs.
#[test]
fn an_errand_outside_the_contract_or_from_no_tab_is_refused() {
    let mut w = World::new();
    let extra = json!({"type": "user-action", "action": {"action": "menu", "x": 1}});
    let r = w.tab(4, extra);
    assert!(matches!(r, Response::Error { .. }), "{r:?}");
    let menu = json!({"type": "user-action", "action": {"action": "menu"}});
    let r = w
        .send(Origin::ContentScript, None, menu)
        .expect("an answer");
    assert!(matches!(r, Response::Error { .. }), "{r:?}");
    assert_eq!(
        w.requests_to("/prompts"),
        0,
        "a refused errand asked the bridge"
    );
}

/// An extension page's instance answers only the page's own requests: a chat tab's message
/// is refused, so it never acts on a tab beside the worker's chat loop.
#[test]
fn the_pages_core_refuses_a_tabs_messages() {
    let mut w = World::new();
    let chat = json!({"type": "message-updated", "url": URL, "index": 0,
                      "text": call("echo", json!({})), "generating": false});
    let r = w.page(chat);
    assert!(matches!(r, Response::Error { .. }), "{r:?}");
    assert!(w.executes().is_empty());
}
