//! The connection's status, and pairing through the native messaging host: when the
//! extension has no token, the bridge refuses it or does not run, the core asks the host
//! (which knows the bridge's address and token, and starts it) and stores what it says.
//! The token field in the options stays as the fallback. The token goes only to a server
//! that proved it holds it (`domain::proof`).

use super::bridge_client::BridgeApiClient;
use super::host::Host;
use super::store::Store;
use crate::domain::settings::{Settings, validate_bridge_url, validate_token};
use crate::domain::status::{self, PairingNote, Status};
use serde_json::Value;

/// The name `mcp-bridge install` registers the host under.
pub const HOST_NAME: &str = "dev.mcp_bridge.host";

/// The connection's status with these settings, through the one bridge client: `/health` with a
/// fresh challenge, then `/tools` — with the token only when the server proved it holds it. A
/// server that answers like the bridge but cannot prove it is judged as refusing the token
/// (and never receives it).
pub async fn probe<H: Host>(host: &H, settings: &Settings) -> Status {
    let client = BridgeApiClient::new(host, settings.base_url(), &settings.token);
    let tools = match client.check().await {
        Ok(()) => client.services().await,
        Err(instead) => Err(instead),
    };
    status::judge(
        client.version().as_deref(),
        &tools,
        settings.token.is_empty(),
    )
}

/// Asks the native host, and stores the address and token it gives when they differ from
/// the settings. `Ok(true)` when the settings changed.
pub async fn pair<H: Host>(host: &H, store: &Store<H>) -> Result<bool, PairingNote> {
    let answer = host.native_pair().await.map_err(|why| {
        host.log(
            super::host::Level::Warn,
            &format!("no native host to pair with: {why}"),
        );
        PairingNote::Absent
    })?;
    let text = |key: &str| answer[key].as_str().unwrap_or_default().to_string();
    if answer["type"] != mcp_bridge_protocol::pairing::PAIRED {
        return Err(PairingNote::Failed {
            reason: text("reason"),
            command: text("command"),
        });
    }
    let url = text("url");
    // A `--no-auth` bridge has no token: the host says `null`.
    let token = match &answer["token"] {
        Value::String(token) => token.clone(),
        _ => String::new(),
    };
    if validate_bridge_url(&url).is_err() || validate_token(&token).is_err() {
        return Err(PairingNote::Failed {
            reason: format!("the host answered an address this extension does not use: {url}"),
            command: "mcp-bridge".into(),
        });
    }
    let Ok(mut settings) = store.settings().await else {
        return Ok(false);
    };
    if settings.base_url() == url.trim_end_matches('/') && settings.token == token {
        return Ok(false);
    }
    settings.bridge_url = url;
    settings.token = token;
    store
        .save_settings(&settings)
        .await
        .map(|()| true)
        .map_err(|reason| PairingNote::Failed {
            reason,
            command: "mcp-bridge".into(),
        })
}

/// The status with the stored settings; when pairing could help, pair first and look again.
/// The settings it ends with come back too.
pub async fn status_paired<H: Host>(host: &H, store: &Store<H>) -> (Status, Settings, PairingNote) {
    let mut settings = store.chat_settings().await;
    let mut status = probe(host, &settings).await;
    let mut note = PairingNote::None;
    if status.wants_pairing() {
        match pair(host, store).await {
            Ok(_) => {
                settings = store.chat_settings().await;
                status = probe(host, &settings).await;
            }
            Err(why) => note = why,
        }
    }
    (status, settings, note)
}
