//! The browser edge: the few `chrome.*` calls the core needs, bound once here so that the
//! rest of the core never touches extension APIs directly. Firefox provides the same
//! promise-returning `chrome.*` namespace in MV3, so one binding serves both browsers.

use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.runtime.getURL` — the extension's own origin, to recognise its pages.
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = getURL)]
    pub fn runtime_get_url(path: &str) -> String;

    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = openOptionsPage, catch)]
    async fn runtime_open_options_page() -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "i18n"], js_name = getUILanguage)]
    pub fn ui_language() -> String;

    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = get, catch)]
    async fn storage_local_get(keys: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = set, catch)]
    async fn storage_local_set(items: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = get, catch)]
    async fn storage_session_get(keys: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "session"], js_name = set, catch)]
    async fn storage_session_set(items: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = sendMessage, catch)]
    async fn tabs_send_message(tab_id: i32, message: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    pub fn now_ms() -> f64;
}

/// Which storage area: `Local` survives browser restarts; `Session` survives only
/// service-worker restarts (and is never written to disk).
#[derive(Debug, Clone, Copy)]
pub enum Area {
    Local,
    Session,
}

// Values cross between Rust and JS as JSON text (serde_json here, `JSON` there): one serde
// path for the whole core. serde-wasm-bindgen would add a second (de)serializer for every
// type, about 25 KB of wasm before wasm-opt (`./build.sh bench`, issue #4's size budget).

/// A Rust value as a plain JS value (maps become objects).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, String> {
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    js_sys::JSON::parse(&text).map_err(|e| js_err("JSON.parse failed", &e))
}

/// A plain JS value (from storage or another script) as JSON text, for serde_json.
fn json_text(value: &JsValue) -> Result<String, String> {
    js_sys::JSON::stringify(value)
        .map(|text| text.as_string().unwrap_or_default())
        .map_err(|e| js_err("JSON.stringify failed", &e))
}

/// A thrown JS value as one sentence: `what: message`.
pub fn js_err(what: &str, e: &JsValue) -> String {
    let text = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    format!("{what}: {text}")
}

/// Reads one key; `Ok(None)` when unset, `Err` when the stored value has the wrong shape.
pub async fn get<T: DeserializeOwned>(area: Area, key: &str) -> Result<Option<T>, String> {
    match get_value(area, key).await? {
        None => Ok(None),
        Some(value) => crate::json_read::from_value(&value)
            .map(Some)
            .map_err(|e| format!("stored '{key}' has an unexpected shape: {e}")),
    }
}

/// Reads one key as a JSON value, for callers that judge its shape themselves (read as a
/// `T = Value` through [`get`], it would be copied once more by the `Value` deserializer).
pub async fn get_value(area: Area, key: &str) -> Result<Option<serde_json::Value>, String> {
    match get_text(area, key).await? {
        None => Ok(None),
        Some(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| format!("stored '{key}' is not JSON: {e}")),
    }
}

// The awaiting halves below are not generic: one state machine each, whatever the type.

/// One key's stored value as JSON text; `None` when unset.
async fn get_text(area: Area, key: &str) -> Result<Option<String>, String> {
    let keys = JsValue::from_str(key);
    let got = match area {
        Area::Local => storage_local_get(keys).await,
        Area::Session => storage_session_get(keys).await,
    }
    .map_err(|e| js_err("reading extension storage failed", &e))?;
    let value = js_sys::Reflect::get(&got, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    json_text(&value).map(Some)
}

pub async fn set<T: Serialize + ?Sized>(area: Area, key: &str, value: &T) -> Result<(), String> {
    set_js(area, key, to_js(value)?).await
}

async fn set_js(area: Area, key: &str, value: JsValue) -> Result<(), String> {
    let items = js_sys::Object::new();
    js_sys::Reflect::set(&items, &JsValue::from_str(key), &value)
        .map_err(|e| js_err("building the storage item failed", &e))?;
    match area {
        Area::Local => storage_local_set(items.into()).await,
        Area::Session => storage_session_set(items.into()).await,
    }
    .map(|_| ())
    .map_err(|e| js_err("writing extension storage failed", &e))
}

/// Sends a command to the content script of `tab_id` and parses its answer.
pub async fn send_to_tab<C: Serialize, R: DeserializeOwned + Default>(
    tab_id: i32,
    command: &C,
) -> Result<R, String> {
    match send_js(tab_id, to_js(command)?).await? {
        None => Ok(R::default()),
        Some(text) => {
            crate::json_read::read(&text).map_err(|e| format!("odd answer from the page: {e}"))
        }
    }
}

/// The content script's answer as JSON text; `None` when it answered nothing.
async fn send_js(tab_id: i32, command: JsValue) -> Result<Option<String>, String> {
    let answer = tabs_send_message(tab_id, command)
        .await
        .map_err(|e| js_err("the chat page did not answer", &e))?;
    if answer.is_undefined() || answer.is_null() {
        return Ok(None);
    }
    json_text(&answer).map(Some)
}

/// The text of one of the extension's own files (`sites/index.json` …).
pub async fn fetch_own(path: &str) -> Option<String> {
    let resp = gloo_net::http::Request::get(&runtime_get_url(path))
        .send()
        .await
        .ok()?;
    resp.text().await.ok()
}

pub async fn open_options_page() -> Result<(), String> {
    runtime_open_options_page()
        .await
        .map(|_| ())
        .map_err(|e| js_err("opening the options page failed", &e))
}
