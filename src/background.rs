//! The background's message dispatcher: checks who is speaking, parses the message against
//! the contract, and hands it to the chat loop (tabs) or the options API (extension pages).

use crate::messages::{Incoming, Origin, Response, TabRequest, parse_incoming};
use crate::{VERSION, chat, ext, options_api};
use serde::Serialize;
use wasm_bindgen::JsValue;

pub async fn handle(message: &str, sender: &JsValue) -> JsValue {
    let (origin, tab_id) = sender_origin(sender);
    let response = match parse_incoming(message, origin) {
        Ok(Incoming::Tab(TabRequest::Ping)) => Response::Pong {
            version: VERSION.to_string(),
        },
        Ok(Incoming::Tab(req)) => match tab_id {
            Some(tab) => chat::handle(tab, req).await,
            None => Response::error("chat messages must come from a tab"),
        },
        Ok(Incoming::Page(req)) => options_api::handle(req).await,
        Err(message) => Response::error(message),
    };
    to_js(&response)
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
    let own = ext::runtime_get_url("");
    let origin = if !own.is_empty() && url.starts_with(&own) {
        Origin::ExtensionPage
    } else {
        Origin::ContentScript
    };
    (origin, tab_id)
}

pub fn to_js<T: Serialize>(value: &T) -> JsValue {
    ext::to_js(value).unwrap_or(JsValue::NULL)
}
