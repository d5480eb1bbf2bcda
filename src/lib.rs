//! MCP Bridge core: every decision of the extension (is this a tool call, what text goes
//! into the chat, what the float shows) is made here, in Rust compiled to WebAssembly.
//!
//! Three layers, each importing only the ones before it (`docs/ARCHITECTURE.md`):
//! [`domain`] is pure logic; [`runtime`] carries its decisions out over the [`runtime::host`]
//! seam and compiles natively; `web` (wasm32 only) is the browser behind that seam. This file
//! is the only `#[wasm_bindgen]` surface.

pub mod domain;
pub mod runtime;
#[cfg(target_arch = "wasm32")]
pub mod web;

use wasm_bindgen::prelude::*;

/// The core's version, as the extension reports it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The core's version (for the glue and the options page).
#[wasm_bindgen]
pub fn version() -> String {
    VERSION.to_string()
}

/// The background worker's entry: handles one message from a content script or an
/// extension page and resolves to the answer. `message` is the JSON text of the message;
/// `sender` is the browser's `MessageSender` (never trusted for more than telling a tab
/// from an extension page).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = handleMessage)]
pub async fn handle_message(message: String, sender: JsValue) -> JsValue {
    web::handle_message(&message, &sender).await
}

/// An extension page's entry (options, popup): answers one of its own requests
/// (`PageRequest`) in the page, over the same storage and bridge as the worker.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = handlePageRequest)]
pub async fn handle_page_request(message: String) -> JsValue {
    web::handle_page_request(&message).await
}

/// The origins turning MCP Bridge on for the page at `url` asks for
/// (`custom_sites::origins_for_address`), none where it cannot run. Synchronous: the popup
/// and the options page call it inside the click that must start the permission prompt.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = siteOrigins)]
pub fn site_origins(url: String) -> Vec<String> {
    domain::custom_sites::origins_for_address(&url)
}

/// An extension page's words (`domain::i18n::labels`) in the interface language, with the
/// language tag its dates are written in, as JSON text: `{"locale", "labels"}`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = pageLabels)]
pub fn page_labels() -> String {
    web::page_labels()
}

/// The worker's alarms (`chrome.alarms.onAlarm`): the daily check of the site list.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = handleAlarm)]
pub async fn handle_alarm(name: String) {
    web::handle_alarm(&name).await
}

/// The worker's alarms (`runtime::errands::ALARMS`) as JSON text: `background.js` creates
/// each one that is missing, by name, first delay and period in minutes.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
pub fn alarms() -> String {
    serde_json::to_string(&runtime::errands::ALARMS).unwrap_or_else(|_| "[]".into())
}

/// Talc instead of the default dlmalloc: the same job in 2.9 KB less gzipped wasm, and
/// faster on wasm by talc's own benchmarks.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
