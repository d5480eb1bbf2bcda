//! Fetching and taking the subscribed site list: from the options page when the user
//! subscribes or asks, and from the worker's daily alarm. The rules are
//! `domain::site_list`'s; this module fetches, asks the host to check the signature, and
//! stores what came of it (a refusal keeps the configs in force).

use super::host::{Host, HttpFailure, HttpRequest, Method};
use super::store::Store;
use crate::domain::i18n::{Lang, fill};
use crate::domain::site_list::{self, Refusal, SiteListVerdict, Subscription};
use serde_json::Value;

/// The extension's file that holds the verifying key (base64 of the raw 32-byte Ed25519
/// public key), written by `build.sh` from its build setting.
pub const KEY_FILE: &str = "site-list-key.txt";

/// How long a fetch of the list may take.
const FETCH_TIMEOUT_MS: u32 = 20_000;

/// A list's address must be https, or http on this computer (a list served locally).
pub fn check_url(lang: Lang, url: &str) -> Result<String, String> {
    let url = url.trim();
    let host = crate::domain::sites::host_of(url);
    let local = matches!(host.as_str(), "127.0.0.1" | "localhost");
    let ok = (url.starts_with("https://") || (url.starts_with("http://") && local))
        && !host.is_empty()
        && !url.chars().any(char::is_whitespace);
    if ok {
        Ok(url.to_string())
    } else {
        Err(fill(lang.says().list_bad_url, &[("url", url)]))
    }
}

/// The subscription as the options page shows it.
pub fn view(list: &Subscription) -> Value {
    let ids: Vec<&str> = list.sites.iter().map(|s| s.id.as_str()).collect();
    /// The subscription's fields the page shows, in its camelCase.
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct View<'a> {
        url: &'a str,
        version: Option<u64>,
        checked_ms: Option<f64>,
        refused: Option<&'a str>,
        sites: Vec<&'a str>,
    }
    serde_json::to_value(View {
        url: &list.url,
        version: list.version,
        checked_ms: list.checked_ms,
        refused: list.refused.as_deref(),
        sites: ids,
    })
    .unwrap_or_default()
}

/// Fetches the list now, checks it and stores the outcome; answers the subscription as it
/// is afterwards, and the refusal in words when the fetched list was not taken.
pub async fn check<H: Host>(
    host: &H,
    store: &Store<H>,
    lang: Lang,
) -> Result<(Subscription, Option<String>), String> {
    let mut list = store.site_list().await;
    if list.url.is_empty() {
        return Err(lang.says().list_not_subscribed.into());
    }
    let outcome = fetch_and_judge(host, &list).await;
    list.checked_ms = Some(host.now_ms());
    let refused = match outcome {
        Ok(SiteListVerdict::Take { version, sites }) => {
            list.version = Some(version);
            list.sites = sites;
            None
        }
        Ok(SiteListVerdict::Same) => None,
        Err(r) => Some(r.say(lang)),
    };
    list.refused = refused.clone();
    store.save_site_list(&list).await?;
    Ok((list, refused))
}

/// The daily alarm: checks the list when one is subscribed and a day has passed since the
/// last check.
pub async fn check_if_due<H: Host>(host: &H, store: &Store<H>) {
    let list = store.site_list().await;
    if list.url.is_empty() || !site_list::due(list.checked_ms, host.now_ms()) {
        return;
    }
    let lang = Lang::of_ui(&host.ui_language());
    if let Err(e) = check(host, store, lang).await {
        host.log(super::host::Level::Warn, &format!("site list: {e}"));
    }
}

async fn fetch_and_judge<H: Host>(
    host: &H,
    list: &Subscription,
) -> Result<SiteListVerdict, Refusal> {
    let answer = host
        .http(HttpRequest {
            method: Method::Get,
            url: list.url.clone(),
            bearer: None,
            json: None,
            timeout_ms: FETCH_TIMEOUT_MS,
        })
        .await
        .map_err(|t| {
            Refusal::Fetch(match t {
                HttpFailure::TimedOut => format!("no answer in {} s", FETCH_TIMEOUT_MS / 1000),
                HttpFailure::Unreachable(why) => why,
            })
        })?;
    if answer.status != 200 {
        return Err(Refusal::Fetch(format!("HTTP {}", answer.status)));
    }
    if answer.body.len() > site_list::MAX_LIST_BYTES {
        return Err(Refusal::TooLarge);
    }
    let text = String::from_utf8_lossy(&answer.body);
    let unverified = site_list::read(&text)?;
    let key = host.own_file(KEY_FILE).await.unwrap_or_default();
    let key = key.trim();
    if key.is_empty() {
        return Err(Refusal::NoKey);
    }
    let ok = host
        .verify_signature(key, &unverified.signed, &unverified.signature)
        .await
        .map_err(Refusal::NoCrypto)?;
    site_list::judge(list, unverified, ok)
}
