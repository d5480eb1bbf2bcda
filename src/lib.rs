//! MCP Bridge core: every decision of the extension (is this a tool call, what text goes
//! into the chat, what the float shows) is made here, in Rust compiled to WebAssembly.
//!
//! This file is the only `#[wasm_bindgen]` surface. Everything below it is either pure logic
//! (compiled and tested natively) or the thin browser edge (`wasm32` only).

pub mod classify;
pub mod custom_sites;
pub mod error_log;
pub mod float;
pub mod instructions;
pub mod json_read;
pub mod messages;
pub mod options_views;
pub mod outcome;
pub mod redact;
pub mod report;
pub mod settings;
pub mod sites;
pub mod tab_state;
pub mod toolcall;

#[cfg(target_arch = "wasm32")]
mod background;
#[cfg(target_arch = "wasm32")]
pub mod bridge_client;
#[cfg(target_arch = "wasm32")]
mod chat;
#[cfg(target_arch = "wasm32")]
mod ext;
#[cfg(target_arch = "wasm32")]
mod options_api;

use wasm_bindgen::prelude::*;

/// The core's version, as the extension reports it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The core's version (for the glue and the options page).
#[wasm_bindgen]
pub fn version() -> String {
    VERSION.to_string()
}

/// Handles one message from a content script or an extension page and resolves to the
/// answer. `message` is the JSON text of the message; `sender` is the browser's
/// `MessageSender` (never trusted for more than telling a tab from an extension page).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = handleMessage)]
pub async fn handle_message(message: String, sender: JsValue) -> JsValue {
    background::handle(&message, &sender).await
}

/// Talc instead of the default dlmalloc: the same job in 2.9 KB less gzipped wasm
/// (issue #4's size budget), and faster on wasm by talc's own benchmarks.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
