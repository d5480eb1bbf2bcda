//! The worker and an extension page each run their own core over one storage: the worker
//! answers chat tabs only, the page answers its own requests. (What the page saves steers
//! the worker: every test that saves settings with `World::settings` goes through the
//! page's core.)

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

/// The worker's own core does not run its errands: it checks them against the contract
/// and hands them over, and the pages' core it starts answers them (`World::send` routes
/// them as `background.js` does).
#[test]
fn the_worker_hands_its_errands_to_its_pages_core() {
    use mcp_bridge_core::runtime::dispatch::{Background, Reply};
    let w = World::new();
    let background = Background::new(w.host.clone());
    let ask = |message: serde_json::Value, tab: Option<i32>| {
        let text = message.to_string();
        futures::executor::block_on(background.handle(&text, Origin::ContentScript, tab))
    };
    let menu = json!({"type": "user-action", "action": {"action": "menu"}});
    assert_eq!(ask(menu.clone(), Some(4)), Reply::HandOver { tab: 4 });
    let detect = json!({"type": "detect", "scene": {"viewport": [800, 600], "composers": []}});
    assert_eq!(ask(detect, Some(4)), Reply::HandOver { tab: 4 });
    assert_eq!(
        w.requests_to("/prompts"),
        0,
        "the worker asked the bridge itself"
    );
    // Checked before it is handed over: what breaks the contract, or comes from no tab, is
    // refused by the worker.
    let extra = json!({"type": "user-action", "action": {"action": "menu", "x": 1}});
    let Reply::Answer(refused) = ask(extra, Some(4)) else {
        panic!("a message outside the contract was handed over")
    };
    assert!(matches!(refused, Response::Error { .. }), "{refused:?}");
    let Reply::Answer(refused) = ask(menu, None) else {
        panic!("a message from no tab was handed over")
    };
    assert!(matches!(refused, Response::Error { .. }), "{refused:?}");
}

/// The pages' core answers only errands: a chat-loop request handed to it is refused, so it
/// never acts on a tab's messages beside the worker's chat loop.
#[test]
fn the_pages_core_answers_errands_only() {
    use mcp_bridge_core::runtime::dispatch::Pages;
    let w = World::new();
    let pages = Pages::new(w.host.clone());
    let errand = |message: serde_json::Value| {
        futures::executor::block_on(pages.errand(&message.to_string(), 4))
    };
    let chat = json!({"type": "message-updated", "url": URL, "index": 0,
                      "text": call("echo", json!({})), "generating": false});
    let r = errand(chat);
    assert!(
        matches!(&r, Response::Error { message, .. } if message.contains("pages' core")),
        "{r:?}"
    );
    assert!(w.executes().is_empty());
    let detect = json!({"type": "detect", "scene": {"viewport": [800, 600], "composers": []}});
    assert!(matches!(errand(detect), Response::Detected { .. }));
}
