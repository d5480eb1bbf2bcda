//! The browser edge (wasm32 only): the [`WebHost`] behind the host seam, the one
//! [`Background`] a worker runs and the one [`Pages`] an extension page runs, fed by
//! `lib.rs`. Each is created on its first use, so a page never builds the chat loop and the
//! worker never builds the options backend.

pub mod host;

use crate::domain::messages::Origin;
use crate::runtime::dispatch::{Background, Pages};
pub use host::WebHost;
use std::rc::Rc;
use wasm_bindgen::JsValue;

thread_local! {
    static BACKGROUND: Rc<Background<WebHost>> = Rc::new(Background::new(WebHost));
    static PAGES: Rc<Pages<WebHost>> = Rc::new(Pages::new(WebHost));
}

/// Answers one request of the extension page that loaded this core.
pub async fn handle_page_request(message: &str) -> JsValue {
    let pages = PAGES.with(Rc::clone);
    let response = pages.handle(message).await;
    host::to_js(&response).unwrap_or(JsValue::NULL)
}

/// Answers one message the worker received from a content script or an extension page.
pub async fn handle_message(message: &str, sender: &JsValue) -> JsValue {
    let (origin, tab) = sender_origin(sender);
    let background = BACKGROUND.with(Rc::clone);
    let response = background.handle(message, origin, tab).await;
    host::to_js(&response).unwrap_or(JsValue::NULL)
}

/// The labels of an extension page, in the language of the catalog the browser picked.
pub fn page_labels() -> String {
    use crate::domain::i18n::{Lang, labels::PageLabels};
    use crate::runtime::host::Host;
    let lang = Lang::of_ui(&WebHost.ui_language());
    serde_json::to_string(&PageLabels::of(lang)).unwrap_or_else(|_| "{}".into())
}

/// One of the worker's alarms went off.
pub async fn handle_alarm(name: &str) {
    let background = BACKGROUND.with(Rc::clone);
    background.alarm(name).await;
}

/// A sender is an extension page only when the browser says its URL is ours; everything
/// else is treated as an untrusted content script. The tab id comes from the browser too.
fn sender_origin(sender: &JsValue) -> (Origin, Option<i32>) {
    let get = |obj: &JsValue, key: &str| js_sys::Reflect::get(obj, &JsValue::from_str(key)).ok();
    let url = get(sender, "url")
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    let tab_id = get(sender, "tab")
        .filter(|t| t.is_object())
        .and_then(|t| get(&t, "id"))
        .and_then(|id| id.as_f64())
        .map(|id| id as i32);
    let own = host::runtime_get_url("");
    let origin = if !own.is_empty() && url.starts_with(&own) {
        Origin::ExtensionPage
    } else {
        Origin::ContentScript
    };
    (origin, tab_id)
}
