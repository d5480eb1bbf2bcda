//! The background's message dispatcher: turns a validated request into the answer, calling
//! the bridge when needed.

use crate::messages::{Origin, Request, Response, parse_request};
use crate::{VERSION, ext};
use serde::Serialize;
use wasm_bindgen::JsValue;

/// Default bridge address (the original bridge's port).
const DEFAULT_BRIDGE_URL: &str = "http://127.0.0.1:3849";

pub async fn handle(message: &str, sender: &JsValue) -> JsValue {
    let origin = sender_origin(sender);
    let response = match parse_request(message, origin) {
        Ok(req) => dispatch(req).await,
        Err(message) => Response::Error { message },
    };
    to_js(&response)
}

async fn dispatch(req: Request) -> Response {
    match req {
        Request::Ping => Response::Pong {
            version: VERSION.to_string(),
        },
        Request::GetHealth => health().await,
    }
}

async fn health() -> Response {
    let base = match ext::local_get("bridgeUrl").await {
        Ok(serde_json::Value::String(s)) if !s.is_empty() => s,
        _ => DEFAULT_BRIDGE_URL.to_string(),
    };
    let url = format!("{}/health", base.trim_end_matches('/'));
    let problem = |p: String| Response::Health {
        ok: false,
        bridge_version: None,
        problem: Some(p),
    };
    let resp = match gloo_net::http::Request::get(&url).send().await {
        Ok(r) => r,
        Err(e) => return problem(format!("the bridge at {base} is not reachable ({e})")),
    };
    match resp.json::<serde_json::Value>().await {
        Ok(body) if body.get("status").and_then(|s| s.as_str()) == Some("ok") => Response::Health {
            ok: true,
            bridge_version: body
                .get("version")
                .and_then(|v| v.as_str())
                .map(str::to_string),
            problem: None,
        },
        _ => problem(format!("{base} answered, but not like an MCP Bridge")),
    }
}

/// A sender is an extension page only when the browser says its URL is ours and it has no
/// tab that is a web page; everything else is treated as an untrusted content script.
fn sender_origin(sender: &JsValue) -> Origin {
    let url = js_sys::Reflect::get(sender, &JsValue::from_str("url"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    let own = ext::runtime_get_url("");
    if !own.is_empty() && url.starts_with(&own) {
        Origin::ExtensionPage
    } else {
        Origin::ContentScript
    }
}

fn to_js<T: Serialize>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}
