//! The browser's side of the host seam: the few `chrome.*` calls and the `fetch` the core
//! needs, bound once here. Firefox provides the same promise-returning `chrome.*` namespace
//! in MV3, so one binding serves both browsers.

use crate::domain::messages::{Command, CommandResult};
use crate::runtime::host::{Area, Host, HttpFailure, HttpRequest, HttpResponse, Level, Method};
use gloo_net::http::{Request, RequestBuilder};
use serde_json::Value;
use std::future::Future;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `chrome.runtime.getURL` — the extension's own origin, to recognise its pages.
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = getURL)]
    pub fn runtime_get_url(path: &str) -> String;

    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = openOptionsPage, catch)]
    async fn runtime_open_options_page() -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "i18n"], js_name = getUILanguage)]
    fn ui_language() -> String;
    #[wasm_bindgen(js_namespace = ["chrome", "i18n"], js_name = getMessage)]
    fn i18n_message(key: &str) -> String;

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

    #[wasm_bindgen(js_namespace = ["chrome", "permissions"], js_name = contains, catch)]
    async fn permissions_contains(perms: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = registerContentScripts, catch)]
    async fn scripting_register(scripts: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = unregisterContentScripts, catch)]
    async fn scripting_unregister(filter: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = getRegisteredContentScripts, catch)]
    async fn scripting_registered(filter: JsValue) -> Result<JsValue, JsValue>;

    /// Missing (a TypeError, caught) when the extension lacks the `nativeMessaging` permission.
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = sendNativeMessage, catch)]
    async fn runtime_send_native_message(host: &str, message: JsValue) -> Result<JsValue, JsValue>;

    /// WebCrypto, in a worker and a page alike (`crypto` is global in both).
    #[wasm_bindgen(js_namespace = ["crypto", "subtle"], js_name = verify, catch)]
    async fn subtle_verify(
        algorithm: &str,
        key: JsValue,
        signature: js_sys::Uint8Array,
        data: js_sys::Uint8Array,
    ) -> Result<JsValue, JsValue>;
    /// Base64 to a "binary string" (one char per byte); throws on what is not base64.
    #[wasm_bindgen(js_name = atob, catch)]
    fn atob(text: &str) -> Result<String, JsValue>;

    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    fn date_now() -> f64;

    /// WebCrypto, for the bridge's proof (`domain::proof`): no crypto code in the wasm.
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues)]
    fn crypto_get_random_values(array: &js_sys::Uint8Array) -> JsValue;
    #[wasm_bindgen(js_namespace = ["crypto", "subtle"], js_name = importKey, catch)]
    async fn subtle_import_key(
        format: &str,
        key: &js_sys::Uint8Array,
        algorithm: &JsValue,
        extractable: bool,
        usages: &js_sys::Array,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["crypto", "subtle"], js_name = sign, catch)]
    async fn subtle_sign(
        algorithm: &str,
        key: &JsValue,
        data: &js_sys::Uint8Array,
    ) -> Result<JsValue, JsValue>;

    /// The worker's global `setTimeout` (there is no `window` in a service worker).
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &js_sys::Function, ms: u32) -> JsValue;
}

/// The real browser. Stateless: every call goes to `chrome.*` or `fetch`.
#[derive(Clone, Copy, Debug, Default)]
pub struct WebHost;

// Values cross between Rust and JS as JSON text (serde_json here, `JSON` there): one serde
// path for the whole core; serde-wasm-bindgen would add a second (de)serializer for every
// type (about 25 KB of wasm before wasm-opt).

/// A Rust value as a plain JS value (maps become objects).
pub fn to_js<T: serde::Serialize + ?Sized>(value: &T) -> Result<JsValue, String> {
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    js_sys::JSON::parse(&text).map_err(|e| js_err("JSON.parse failed", &e))
}

/// `permissions.contains({origins})`'s argument.
#[derive(serde::Serialize)]
struct Permissions<'a> {
    origins: &'a [String],
}

/// One script of `scripting.registerContentScripts`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ContentScript<'a> {
    id: &'a str,
    matches: &'a [String],
    js: &'static [&'static str],
    run_at: &'static str,
    persist_across_sessions: bool,
}

/// The filter of `scripting.getRegisteredContentScripts` and `unregisterContentScripts`.
#[derive(serde::Serialize)]
struct ScriptIds<'a> {
    ids: [&'a str; 1],
}

/// WebCrypto's `HmacImportParams`.
#[derive(serde::Serialize)]
struct HmacAlgorithm {
    name: &'static str,
    hash: &'static str,
}

/// A plain JS value (from storage or another script) as JSON; `None` for undefined/null.
fn from_js(value: &JsValue) -> Result<Option<Value>, String> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let text = js_sys::JSON::stringify(value)
        .map(|t| t.as_string().unwrap_or_default())
        .map_err(|e| js_err("JSON.stringify failed", &e))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("not JSON: {e}"))
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

fn object_with(key: &str, value: &JsValue) -> Result<JsValue, String> {
    let items = js_sys::Object::new();
    js_sys::Reflect::set(&items, &JsValue::from_str(key), value)
        .map_err(|e| js_err("building the storage item failed", &e))?;
    Ok(items.into())
}

impl Host for WebHost {
    async fn storage_get(&self, area: Area, key: &str) -> Result<Option<Value>, String> {
        let keys = JsValue::from_str(key);
        let got = match area {
            Area::Local => storage_local_get(keys).await,
            Area::Session => storage_session_get(keys).await,
        }
        .map_err(|e| js_err("reading extension storage failed", &e))?;
        let value = js_sys::Reflect::get(&got, &JsValue::from_str(key)).unwrap_or_default();
        from_js(&value).map_err(|e| format!("stored '{key}' is {e}"))
    }

    async fn storage_set(&self, area: Area, key: &str, json: String) -> Result<(), String> {
        let value = js_sys::JSON::parse(&json).map_err(|e| js_err("JSON.parse failed", &e))?;
        let items = object_with(key, &value)?;
        match area {
            Area::Local => storage_local_set(items).await,
            Area::Session => storage_session_set(items).await,
        }
        .map(|_| ())
        .map_err(|e| js_err("writing extension storage failed", &e))
    }

    async fn tab_command(&self, tab: i32, command: &Command) -> Result<CommandResult, String> {
        let answer = tabs_send_message(tab, to_js(command)?)
            .await
            .map_err(|e| js_err("the chat page did not answer", &e))?;
        match from_js(&answer)? {
            None => Ok(CommandResult::default()),
            Some(v) => crate::domain::json_read::from_value(&v)
                .map_err(|e| format!("odd answer from the page: {e}")),
        }
    }

    async fn http(&self, request: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        let url = &request.url;
        let builder = match request.method {
            Method::Get => Request::get(url),
            Method::Post => Request::post(url),
            Method::Put => Request::put(url),
            Method::Patch => Request::patch(url),
            Method::Delete => Request::delete(url),
        };
        let builder: RequestBuilder = match &request.bearer {
            Some(token) => builder.header("Authorization", &format!("Bearer {token}")),
            None => builder,
        };
        let signal = web_sys::AbortSignal::timeout_with_u32(request.timeout_ms);
        let builder = builder.abort_signal(Some(&signal));
        let built = match &request.json {
            Some(body) => builder.json(body),
            None => builder.build(),
        };
        let resp = built
            .map_err(|e| HttpFailure::Unreachable(e.to_string()))?
            .send()
            .await
            .map_err(|e| transport_failure(&e))?;
        Ok(HttpResponse {
            status: resp.status(),
            trace_id: resp.headers().get("x-trace-id"),
            body: resp.binary().await.unwrap_or_default(),
        })
    }

    async fn own_file(&self, path: &str) -> Option<String> {
        let resp = Request::get(&runtime_get_url(path)).send().await.ok()?;
        resp.text().await.ok()
    }

    async fn open_options_page(&self) -> Result<(), String> {
        runtime_open_options_page()
            .await
            .map(|_| ())
            .map_err(|e| js_err("opening the options page failed", &e))
    }

    async fn native_pair(&self) -> Result<Value, String> {
        let request = to_js(&mcp_bridge_protocol::pairing::PairRequest::default())?;
        let answer = runtime_send_native_message(crate::runtime::pairing::HOST_NAME, request)
            .await
            .map_err(|e| js_err("no native host", &e))?;
        from_js(&answer)?.ok_or_else(|| "the native host answered nothing".to_string())
    }

    async fn origins_granted(&self, origins: &[String]) -> bool {
        let Ok(perms) = to_js(&Permissions { origins }) else {
            return false;
        };
        permissions_contains(perms)
            .await
            .map(|v| v.as_bool() == Some(true))
            .unwrap_or(false)
    }

    async fn register_content_script(&self, id: &str, origins: &[String]) -> Result<(), String> {
        let script = [ContentScript {
            id,
            matches: origins,
            js: &crate::domain::sites::CONTENT_SCRIPTS,
            run_at: "document_idle",
            persist_across_sessions: true,
        }];
        scripting_register(to_js(&script)?)
            .await
            .map(|_| ())
            .map_err(|e| js_err("registering the content script failed", &e))
    }

    async fn unregister_content_script(&self, id: &str) {
        let Ok(filter) = to_js(&ScriptIds { ids: [id] }) else {
            return;
        };
        let present = scripting_registered(filter.clone())
            .await
            .map(|v| js_sys::Array::from(&v).length() > 0)
            .unwrap_or(false);
        if present {
            let _ = scripting_unregister(filter).await;
        }
    }

    async fn hmac_sha256(&self, key: &str, message: &str) -> Result<String, String> {
        let algorithm = to_js(&HmacAlgorithm {
            name: "HMAC",
            hash: "SHA-256",
        })?;
        let usages = js_sys::Array::of1(&JsValue::from_str("sign"));
        let key = js_sys::Uint8Array::from(key.as_bytes());
        let key = subtle_import_key("raw", &key, &algorithm, false, &usages)
            .await
            .map_err(|e| js_err("importing the HMAC key failed", &e))?;
        let data = js_sys::Uint8Array::from(message.as_bytes());
        let signature = subtle_sign("HMAC", &key, &data)
            .await
            .map_err(|e| js_err("computing the HMAC failed", &e))?;
        Ok(hex(&js_sys::Uint8Array::new(&signature).to_vec()))
    }

    fn random_nonce(&self) -> String {
        let bytes = js_sys::Uint8Array::new_with_length(16);
        crypto_get_random_values(&bytes);
        hex(&bytes.to_vec())
    }

    async fn verify_signature(
        &self,
        public_key: &str,
        signed: &[u8],
        signature: &str,
    ) -> Result<bool, String> {
        let bytes = |b64: &str| -> Option<js_sys::Uint8Array> {
            let text = atob(b64.trim()).ok()?;
            let raw: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
            Some(js_sys::Uint8Array::from(raw.as_slice()))
        };
        let raw_key = bytes(public_key).ok_or("the built-in key is not base64")?;
        let usages = js_sys::Array::of1(&JsValue::from_str("verify"));
        // Chromium ≥ 137 and Firefox ≥ 129 know Ed25519; an older browser throws
        // NotSupportedError here, which the user is told as it is.
        let key = subtle_import_key(
            "raw",
            &raw_key,
            &JsValue::from_str("Ed25519"),
            false,
            &usages,
        )
        .await
        .map_err(|e| js_err("WebCrypto Ed25519", &e))?;
        let Some(signature) = bytes(signature) else {
            return Ok(false);
        };
        let data = js_sys::Uint8Array::from(signed);
        let ok = subtle_verify("Ed25519", key, signature, data)
            .await
            .map_err(|e| js_err("WebCrypto Ed25519", &e))?;
        Ok(ok.as_bool() == Some(true))
    }

    async fn sleep(&self, ms: u32) {
        let wait = js_sys::Promise::new(&mut |resolve, _| {
            set_timeout(&resolve, ms);
        });
        let _ = wasm_bindgen_futures::JsFuture::from(wait).await;
    }

    fn now_ms(&self) -> f64 {
        date_now()
    }

    /// The language of the catalog the browser picked for the pages' labels
    /// (`catalogLanguage`), so that the core's sentences and the labels beside them follow
    /// one fallback rule, the browser's: a `zh-TW` or `fr` browser, which has no catalog of
    /// its own, gets the default (English) throughout rather than Chinese from the core
    /// beside English labels.
    fn ui_language(&self) -> String {
        match i18n_message("catalogLanguage") {
            tag if tag.is_empty() => ui_language(),
            tag => tag,
        }
    }

    fn spawn(&self, task: impl Future<Output = ()> + 'static) {
        wasm_bindgen_futures::spawn_local(task);
    }

    fn log(&self, level: Level, message: &str) {
        let m = JsValue::from_str(message);
        match level {
            Level::Warn => web_sys::console::warn_1(&m),
            Level::Error => web_sys::console::error_1(&m),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `fetch` rejects with a `TimeoutError` when our signal fired (Chromium) — or with an
/// `AbortError` (Firefox ESR, found by `tests/web_client.rs`); a `TypeError` when there was
/// no connection (bridge not running, wrong port). The only signal attached is the timeout
/// signal, so both abort names mean "timed out"; a user's stop is a `DELETE /calls/{id}` by
/// the chat loop, not an aborted fetch.
fn transport_failure(e: &gloo_net::Error) -> HttpFailure {
    match e {
        gloo_net::Error::JsError(js) if js.name == "TimeoutError" || js.name == "AbortError" => {
            HttpFailure::TimedOut
        }
        other => HttpFailure::Unreachable(other.to_string()),
    }
}
