//! Site lists taken by subscription, the way an ad blocker takes filter lists: new selectors
//! for the chat sites without a release of the extension. A list is JSON,
//! `{"version": N, "sites": [site config…], "signature": "<base64>"}`, signed with Ed25519
//! over its [`canonical`] bytes (everything but `signature`); the verifying key ships with
//! the extension. This module is the pure part: the bytes that are signed, what a list may
//! hold, which version wins, when it is checked again. The signature itself is checked by
//! the browser (WebCrypto, behind the host seam), never by the wasm.
//!
//! A list carries site configs only — selectors and options, never code — validated like
//! the shipped ones. Whatever is wrong with a list, it is refused with the reason and the
//! configs in force stay as they were.

use crate::domain::field_error::FieldError;
use crate::domain::i18n::{Lang, fill};
use crate::domain::sites::SiteConfig;
use serde::Serialize;
use serde_json::Value;

/// A list longer than this is refused unread.
pub const MAX_LIST_BYTES: usize = 1024 * 1024;
/// More sites than this in one list is a mistake.
pub const MAX_LIST_SITES: usize = 200;
/// A list is checked at most once in this long, unless the user asks.
pub const DAY_MS: f64 = 24.0 * 60.0 * 60.0 * 1000.0;

/// The subscription as stored (`siteList` in local storage): where the list comes from,
/// the configs of the version in force, and how the last check went.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    pub url: String,
    /// The version in force; `None` until a list was accepted.
    pub version: Option<u64>,
    pub sites: Vec<SiteConfig>,
    /// When the list was last fetched (ms since the epoch), whatever came of it.
    pub checked_ms: Option<f64>,
    /// Why the last check refused what it fetched, in the words of that moment's language.
    pub refused: Option<String>,
}

impl Subscription {
    /// Reads the stored value field by field, each site config through
    /// `SiteConfig::parse` (the reader the worker has anyway: a derived `Deserialize` here
    /// cost the worker's wasm about 10 KB); what does not read is left out.
    pub fn from_stored(value: Option<&Value>) -> Subscription {
        let Some(v) = value else {
            return Subscription::default();
        };
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Subscription {
            url: text("url").unwrap_or_default(),
            version: v.get("version").and_then(Value::as_u64),
            sites: v
                .get("sites")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|s| SiteConfig::parse(&s.to_string()).ok())
                        .collect()
                })
                .unwrap_or_default(),
            checked_ms: v.get("checkedMs").and_then(Value::as_f64),
            refused: text("refused"),
        }
    }
}

/// Why a fetched list was not taken.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The list could not be fetched: the transport's or the server's words.
    Fetch(String),
    TooLarge,
    /// Not JSON, or not the shape of a list; `field` names what is wrong.
    NotAList(FieldError),
    /// This build has no verifying key.
    NoKey,
    /// The browser cannot check Ed25519 signatures: its own words.
    NoCrypto(String),
    BadSignature,
    Older {
        got: u64,
        have: u64,
    },
    /// A site config in the list failed validation.
    Invalid(FieldError),
}

impl Refusal {
    pub fn say(&self, lang: Lang) -> String {
        let says = lang.says();
        match self {
            Refusal::Fetch(why) => fill(says.list_fetch_failed, &[("why", why)]),
            Refusal::TooLarge => fill(
                says.list_too_large,
                &[("max", &(MAX_LIST_BYTES / 1024).to_string())],
            ),
            Refusal::NotAList(e) => fill(says.list_not_a_list, &[("why", &e.say(lang))]),
            Refusal::NoKey => says.list_no_key.into(),
            Refusal::NoCrypto(why) => fill(says.list_no_crypto, &[("why", why)]),
            Refusal::BadSignature => says.list_bad_signature.into(),
            Refusal::Older { got, have } => fill(
                says.list_older,
                &[("got", &got.to_string()), ("have", &have.to_string())],
            ),
            Refusal::Invalid(e) => fill(says.list_invalid, &[("why", &e.say(lang))]),
        }
    }
}

/// A fetched list whose shape is right, before its signature is checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Unverified {
    pub version: u64,
    /// The bytes the signature must cover: [`canonical`] of the list without `signature`.
    pub signed: Vec<u8>,
    /// Base64 as the list carries it.
    pub signature: String,
    sites: Vec<Value>,
}

/// What a check comes to once the signature was checked.
#[derive(Debug, Clone, PartialEq)]
pub enum SiteListVerdict {
    /// A newer version: these configs are now in force.
    Take {
        version: u64,
        sites: Vec<SiteConfig>,
    },
    /// The version in force again: nothing changes.
    Same,
}

/// The JSON text of `value` with every object's keys in order, no whitespace, strings
/// escaped as `JSON.stringify` escapes them. This is what the signer signs, so the list may
/// be re-indented or its keys reordered without breaking it. The order is serde_json's map
/// order (by bytes, which is code point order); JavaScript sorts by UTF-16 code units, which
/// differs only between characters above U+FFFF and U+E000–U+FFFF — a key no list has (such
/// a list would be refused, never wrongly taken).
pub fn canonical(value: &Value) -> Vec<u8> {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out.into_bytes()
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            // In the order the signer's JavaScript sorts keys, whatever order the map keeps.
            let entries = crate::domain::json_read::sorted_members(map);
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn not_a_list(field: &str, words: &str) -> Refusal {
    Refusal::NotAList(FieldError::new(
        field,
        crate::domain::field_error::Invalid::Quoted(words.into()),
    ))
}

/// Reads a fetched list's shape: an object with exactly `version` (a whole number ≥ 1),
/// `sites` (an array) and `signature` (a string).
pub fn read(text: &str) -> Result<Unverified, Refusal> {
    if text.len() > MAX_LIST_BYTES {
        return Err(Refusal::TooLarge);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| not_a_list("", &e.to_string()))?;
    let Value::Object(mut map) = value else {
        return Err(not_a_list("", "not a JSON object"));
    };
    if let Some(extra) = map
        .keys()
        .find(|k| !["version", "sites", "signature"].contains(&k.as_str()))
    {
        return Err(not_a_list(extra, "unknown field"));
    }
    let signature = match map.remove("signature") {
        Some(Value::String(s)) if !s.is_empty() => s,
        _ => return Err(not_a_list("signature", "missing, or not a string")),
    };
    let version = match map.get("version").and_then(Value::as_u64) {
        Some(v) if v >= 1 => v,
        _ => return Err(not_a_list("version", "must be a whole number of 1 or more")),
    };
    let sites = match map.get("sites") {
        Some(Value::Array(items)) if items.len() <= MAX_LIST_SITES => items.clone(),
        Some(Value::Array(_)) => {
            let words = format!("more than {MAX_LIST_SITES} sites");
            return Err(not_a_list("sites", &words));
        }
        _ => return Err(not_a_list("sites", "missing, or not an array")),
    };
    let signed = canonical(&Value::Object(map));
    Ok(Unverified {
        version,
        signed,
        signature,
        sites,
    })
}

/// Decides what a list whose signature was checked (`signature_ok`) does to the
/// subscription: refused (bad signature, an older version, a config that does not
/// validate, two configs for one id or host), the same version again, or taken.
pub fn judge(
    current: &Subscription,
    list: Unverified,
    signature_ok: bool,
) -> Result<SiteListVerdict, Refusal> {
    if !signature_ok {
        return Err(Refusal::BadSignature);
    }
    if let Some(have) = current.version {
        if list.version < have {
            return Err(Refusal::Older {
                got: list.version,
                have,
            });
        }
        if list.version == have {
            return Ok(SiteListVerdict::Same);
        }
    }
    let mut sites: Vec<SiteConfig> = Vec::with_capacity(list.sites.len());
    for (i, item) in list.sites.iter().enumerate() {
        let at = |e: FieldError| {
            Refusal::Invalid(FieldError::new(
                format!("sites[{i}].{}", e.field),
                e.problem,
            ))
        };
        let cfg = SiteConfig::parse(&item.to_string()).map_err(at)?;
        if sites.iter().any(|s| s.id == cfg.id) {
            let words = format!("'{}' is listed twice", cfg.id);
            return Err(at(FieldError::new(
                "id",
                crate::domain::field_error::Invalid::Quoted(words),
            )));
        }
        if let Some((j, h)) = cfg
            .hosts
            .iter()
            .enumerate()
            .find(|(_, h)| sites.iter().any(|s| s.matches_host(h)))
        {
            let words = format!("'{h}' is listed twice");
            return Err(at(FieldError::new(
                format!("hosts[{j}]"),
                crate::domain::field_error::Invalid::Quoted(words),
            )));
        }
        sites.push(cfg);
    }
    Ok(SiteListVerdict::Take {
        version: list.version,
        sites,
    })
}

/// Whether the daily check should fetch the list now: never checked, a day or more since,
/// or a clock that went back.
pub fn due(checked_ms: Option<f64>, now_ms: f64) -> bool {
    match checked_ms {
        None => true,
        Some(at) => now_ms - at >= DAY_MS || now_ms < at,
    }
}

/// Whether a config names any selector for the three parts (a site turned on with none
/// yields to a list's config for its host).
fn has_selectors(cfg: &SiteConfig) -> bool {
    let s = &cfg.selectors;
    !(s.input.is_empty() && s.send.is_empty() && s.assistant_message.is_empty())
}

/// The config for `host`, in the order the user expects: their own config with selectors
/// (written or picked), then the subscribed list's, then their own without selectors (a
/// site they turned on), then the shipped one.
pub fn config_for<'a>(
    host: &str,
    custom: &'a [SiteConfig],
    list: &'a [SiteConfig],
    builtin: &'a [SiteConfig],
) -> Option<&'a SiteConfig> {
    let own = crate::domain::sites::for_host(custom, host);
    own.filter(|c| has_selectors(c))
        .or_else(|| crate::domain::sites::for_host(list, host))
        .or(own)
        .or_else(|| crate::domain::sites::for_host(builtin, host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn site(id: &str, host: &str, input: &str) -> Value {
        json!({"id": id, "name": id, "hosts": [host], "editor": "textarea",
               "selectors": {"input": [input], "send": ["button"], "assistantMessage": [".a"]}})
    }

    fn list(version: u64, sites: Vec<Value>) -> String {
        json!({"version": version, "sites": sites, "signature": "c2ln"}).to_string()
    }

    #[test]
    fn the_signed_bytes_ignore_layout_and_key_order_but_not_content() {
        let a = read(&list(2, vec![site("x", "a.org", "textarea")])).unwrap();
        let relaid = r#"{ "signature": "other",
            "sites": [ {"selectors": {"assistantMessage": [".a"], "send": ["button"], "input": ["textarea"]},
                        "editor": "textarea", "hosts": ["a.org"], "name": "x", "id": "x"} ],
            "version": 2 }"#;
        let b = read(relaid).unwrap();
        assert_eq!(a.signed, b.signed);
        assert_eq!(
            String::from_utf8(a.signed.clone()).unwrap(),
            r#"{"sites":[{"editor":"textarea","hosts":["a.org"],"id":"x","name":"x","selectors":{"assistantMessage":[".a"],"input":["textarea"],"send":["button"]}}],"version":2}"#
        );
        let c = read(&list(2, vec![site("x", "a.org", "textarea.changed")])).unwrap();
        assert_ne!(a.signed, c.signed);
        // Escaping as JSON.stringify does: quotes, backslashes, control characters; the
        // rest of Unicode as it is.
        assert_eq!(
            canonical(&json!({"b": "\"\\\n\u{1}é中", "a": [1, true, null]})),
            "{\"a\":[1,true,null],\"b\":\"\\\"\\\\\\n\\u0001é中\"}".as_bytes()
        );
    }

    #[test]
    fn a_list_of_the_wrong_shape_names_what_is_wrong() {
        for (text, field) in [
            ("not json", ""),
            ("[]", ""),
            (r#"{"version":1,"sites":[]}"#, "signature"),
            (r#"{"version":0,"sites":[],"signature":"s"}"#, "version"),
            (r#"{"version":"2","sites":[],"signature":"s"}"#, "version"),
            (r#"{"version":1,"sites":{},"signature":"s"}"#, "sites"),
            (
                r#"{"version":1,"sites":[],"signature":"s","script":"x"}"#,
                "script",
            ),
        ] {
            match read(text) {
                Err(Refusal::NotAList(e)) => assert_eq!(e.field, field, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let huge = " ".repeat(MAX_LIST_BYTES + 1);
        assert_eq!(read(&huge), Err(Refusal::TooLarge));
        let many = list(1, vec![json!({}); MAX_LIST_SITES + 1]);
        assert!(matches!(read(&many), Err(Refusal::NotAList(e)) if e.field == "sites"));
    }

    #[test]
    fn only_a_signed_newer_valid_list_is_taken() {
        let current = Subscription {
            url: "https://lists.example.org/sites.json".into(),
            version: Some(3),
            ..Default::default()
        };
        let good = || read(&list(4, vec![site("x", "a.org", "textarea")])).unwrap();
        assert_eq!(judge(&current, good(), false), Err(Refusal::BadSignature));
        match judge(&current, good(), true).unwrap() {
            SiteListVerdict::Take { version, sites } => {
                assert_eq!(version, 4);
                assert_eq!(sites[0].id, "x");
            }
            other => panic!("{other:?}"),
        }
        let older = read(&list(2, vec![])).unwrap();
        assert_eq!(
            judge(&current, older, true),
            Err(Refusal::Older { got: 2, have: 3 })
        );
        let same = read(&list(3, vec![])).unwrap();
        assert_eq!(judge(&current, same, true), Ok(SiteListVerdict::Same));
        // Anything a site config may not hold is refused, naming the item.
        for (sites, field) in [
            (
                vec![site("x", "a.org", "div[")],
                "sites[0].selectors.input[0]",
            ),
            (
                vec![
                    json!({"id": "x", "name": "x", "hosts": ["a.org"], "editor": "textarea", "run": "alert(1)"}),
                ],
                "sites[0].run",
            ),
            (
                vec![site("x", "a.org", "t"), site("x", "b.org", "t")],
                "sites[1].id",
            ),
            (
                vec![site("x", "a.org", "t"), site("y", "A.org", "t")],
                "sites[1].hosts[0]",
            ),
        ] {
            match judge(&current, read(&list(9, sites)).unwrap(), true) {
                Err(Refusal::Invalid(e)) => assert_eq!(e.field, field),
                other => panic!("{field}: {other:?}"),
            }
        }
        // The first list of a subscription is taken at any version.
        assert!(matches!(
            judge(
                &Subscription::default(),
                read(&list(1, vec![])).unwrap(),
                true
            ),
            Ok(SiteListVerdict::Take { version: 1, .. })
        ));
    }

    #[test]
    fn a_subscription_is_read_back_as_stored_and_garbage_left_out() {
        let list = Subscription {
            url: "https://x.org/l.json".into(),
            version: Some(4),
            sites: vec![SiteConfig::parse(&site("x", "a.org", "t").to_string()).unwrap()],
            checked_ms: Some(5.0),
            refused: Some("no".into()),
        };
        let stored = serde_json::to_value(&list).unwrap();
        assert_eq!(Subscription::from_stored(Some(&stored)), list);
        let mut broken = stored.clone();
        broken["sites"] = json!([{"id": 1}, site("y", "b.org", "t")]);
        broken["version"] = json!("4");
        let back = Subscription::from_stored(Some(&broken));
        assert_eq!((back.version, back.sites.len()), (None, 1));
        assert_eq!(Subscription::from_stored(None), Subscription::default());
    }

    #[test]
    fn the_list_is_checked_at_most_once_a_day() {
        let t = 1_700_000_000_000.0;
        assert!(due(None, t));
        assert!(!due(Some(t), t + DAY_MS - 1.0));
        assert!(due(Some(t), t + DAY_MS));
        assert!(due(Some(t), t - 1000.0), "the clock went back");
    }

    #[test]
    fn own_selectors_win_then_the_list_then_a_bare_site_then_the_shipped_one() {
        let cfg = |v: Value| SiteConfig::parse(&v.to_string()).unwrap();
        let builtin = vec![cfg(site("ds", "chat.deepseek.com", "shipped"))];
        let list = vec![
            cfg(site("ds", "chat.deepseek.com", "listed")),
            cfg(site("co", "copilot.example.com", "listed")),
        ];
        let bare = cfg(
            json!({"id": "co", "name": "co", "hosts": ["copilot.example.com"], "editor": "textarea"}),
        );
        let picked = cfg(site("ds", "chat.deepseek.com", "picked"));
        let input = |c: Option<&SiteConfig>| c.map(|c| c.selectors.input.first().cloned());
        let host = "chat.deepseek.com";
        assert_eq!(
            input(config_for(host, &[], &[], &builtin)),
            Some(Some("shipped".into()))
        );
        assert_eq!(
            input(config_for(host, &[], &list, &builtin)),
            Some(Some("listed".into()))
        );
        let custom = vec![picked, bare];
        assert_eq!(
            input(config_for(host, &custom, &list, &builtin)),
            Some(Some("picked".into()))
        );
        let other = "copilot.example.com";
        assert_eq!(
            input(config_for(other, &custom, &list, &builtin)),
            Some(Some("listed".into()))
        );
        assert_eq!(input(config_for(other, &custom, &[], &builtin)), Some(None));
        assert!(config_for("nowhere.org", &custom, &list, &builtin).is_none());
    }
}
