//! The worker and an extension page each run their own core over one storage: the worker
//! answers chat tabs only, the page answers its own requests. (What the page saves steers
//! the worker: every test that saves settings with `World::settings` goes through the
//! page's core.)

use super::world::*;
use mcp_bridge_core::domain::messages::Origin;
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
