//! The browser edge: the few `chrome.*` / `browser.*` calls the core needs, bound once here
//! so that the rest of the core never touches extension APIs directly.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.runtime.getURL` — the extension's own origin, to recognise its pages.
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = getURL)]
    pub fn runtime_get_url(path: &str) -> String;

    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = get, catch)]
    async fn storage_local_get(keys: JsValue) -> Result<JsValue, JsValue>;
}

/// Reads one key of `chrome.storage.local` as a JSON value (`Null` when unset).
pub async fn local_get(key: &str) -> Result<serde_json::Value, String> {
    let got = storage_local_get(JsValue::from_str(key))
        .await
        .map_err(|e| format!("chrome.storage.local.get failed: {e:?}"))?;
    let obj: serde_json::Value = serde_wasm_bindgen::from_value(got)
        .map_err(|e| format!("chrome.storage.local returned something unexpected: {e}"))?;
    Ok(obj.get(key).cloned().unwrap_or(serde_json::Value::Null))
}
