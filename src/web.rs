//! The browser edge (wasm32 only): the [`WebHost`] behind the host seam, the one
//! [`Background`] a worker runs and the one [`Pages`] an extension page runs (and the
//! worker, for its errands), fed by `lib.rs`.

pub mod host;

#[cfg(feature = "worker")]
use crate::domain::messages::Origin;
#[cfg(feature = "pages")]
use crate::runtime::dispatch::Pages;
#[cfg(feature = "worker")]
use crate::runtime::dispatch::{Background, Reply};
pub use host::WebHost;
use std::rc::Rc;
use wasm_bindgen::JsValue;

#[cfg(feature = "worker")]
thread_local! {
    static BACKGROUND: Rc<Background<WebHost>> = Rc::new(Background::new(WebHost));
}

#[cfg(feature = "pages")]
thread_local! {
    static PAGES: Rc<Pages<WebHost>> = Rc::new(Pages::new(WebHost));
}

/// Answers one request of the extension page that loaded this core.
#[cfg(feature = "pages")]
pub async fn handle_page_request(message: &str) -> JsValue {
    let pages = PAGES.with(Rc::clone);
    let response = pages.handle(message).await;
    host::to_js(&response).unwrap_or(JsValue::NULL)
}

/// Answers an errand the worker handed over from chat tab `tab`.
#[cfg(feature = "pages")]
pub async fn handle_errand(message: &str, tab: i32) -> JsValue {
    let pages = PAGES.with(Rc::clone);
    let response = pages.errand(message, tab).await;
    host::to_js(&response).unwrap_or(JsValue::NULL)
}

/// A failed call the worker's chat loop handed over: its report's text.
#[cfg(feature = "pages")]
pub async fn handle_failure(failed: &str) -> Result<String, JsValue> {
    let pages = PAGES.with(Rc::clone);
    pages
        .report_failure(failed)
        .await
        .map_err(|why| JsValue::from_str(&why))
}

/// One of the worker's alarms went off (in the worker's pages' core).
#[cfg(feature = "pages")]
pub async fn handle_alarm(name: &str) {
    let pages = PAGES.with(Rc::clone);
    pages.alarm(name).await;
}

/// Answers one message the worker received from a content script or an extension page;
/// an errand is answered by the pages' core, which `background.js` starts on the first one.
#[cfg(feature = "worker")]
pub async fn handle_message(message: &str, sender: &JsValue) -> JsValue {
    let (origin, tab) = sender_origin(sender);
    let background = BACKGROUND.with(Rc::clone);
    match background.handle(message, origin, tab).await {
        Reply::Answer(response) => host::to_js(&response).unwrap_or(JsValue::NULL),
        Reply::HandOver { tab } => host::hand_over(message, tab).await.unwrap_or_else(|e| {
            let why = host::js_err("the pages' core did not answer", &e);
            host::to_js(&crate::domain::messages::Response::error(why)).unwrap_or(JsValue::NULL)
        }),
    }
}

/// A sender is an extension page only when the browser says its URL is ours; everything
/// else is treated as an untrusted content script. The tab id comes from the browser too.
#[cfg(feature = "worker")]
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
