//! The options page's requests, answered in the background: settings, connection test,
//! call history, tools and policies, the error log, custom sites.

use crate::ext::{self, Area};
use crate::messages::{PageRequest, Response};
use crate::settings::Settings;

/// Storage key of the settings object in `chrome.storage.local`.
pub const SETTINGS_KEY: &str = "settings";

/// The stored settings, or the defaults when none are stored or they no longer validate.
pub async fn load_settings() -> Settings {
    match ext::get::<serde_json::Value>(Area::Local, SETTINGS_KEY).await {
        Ok(Some(v)) => Settings::from_json(&v).unwrap_or_default(),
        _ => Settings::default(),
    }
}

pub async fn handle(req: PageRequest) -> Response {
    match req {
        PageRequest::GetHealth => health().await,
        other => Response::error(format!("not implemented yet: {other:?}")),
    }
}

async fn health() -> Response {
    let settings = load_settings().await;
    let base = settings.base_url().to_string();
    let url = format!("{base}/health");
    let resp = match gloo_net::http::Request::get(&url).send().await {
        Ok(r) => r,
        Err(e) => return Response::error(format!("the bridge at {base} is not reachable ({e})")),
    };
    match resp.json::<serde_json::Value>().await {
        Ok(body) if body.get("status").and_then(|s| s.as_str()) == Some("ok") => {
            Response::Data { data: body }
        }
        _ => Response::error(format!("{base} answered, but not like an MCP Bridge")),
    }
}
