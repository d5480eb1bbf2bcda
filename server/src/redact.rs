//! Keeps secrets out of everything the bridge logs or returns: configured secrets (a server's
//! `env` values, header values, credentials in its `url`, the bridge's own token) by value,
//! and anything that looks like a credential by its shape. What looks like one is the list and
//! scanner the extension's core masks with too (`mcp_bridge_protocol::secrets`); the bridge
//! writes `***` for each.
//!
//! Errors and logs get every rule, key names included (`password=…`); a tool's successful
//! result only the shapes that are credentials on their own ([`mask_result`]), since a result
//! may rightly hold a value under a key named `password` that the user asked for.

use std::borrow::Cow;

use mcp_bridge_protocol::secrets::{self, Mask, Redaction, Rules};

mod known;
pub(crate) use known::mask_known_in;

/// Shorter values (`"1"`, `"true"`, `"UTC"`) are too common to mask without mangling text.
pub(crate) const MIN_SECRET_LEN: usize = secrets::MIN_KNOWN_LEN;

/// What a masked secret reads as.
pub(crate) const MASK: &str = "***";

fn stars(out: &mut String, _: Mask) {
    out.push_str(MASK);
}

/// Replace every occurrence of every secret in `text` with [`MASK`], longest secrets first
/// so that a secret containing another is masked whole; then mask credential-shaped text
/// (see [`mask_patterns`]).
pub(crate) fn redact(text: &str, secrets: &[String]) -> String {
    let known: Vec<&str> = secrets.iter().map(String::as_str).collect();
    let by_value = secrets::mask_known(text, &known, MASK);
    mask_patterns(&by_value.text)
}

/// Mask credential-shaped text that no configured secret covers: the value of `password=…`,
/// `api_key: …`, `"token": "…"`, `Authorization: Bearer …` and the like, private keys,
/// provider keys, JWTs, and the credentials of a URL.
pub(crate) fn mask_patterns(text: &str) -> String {
    secrets::mask(text, Rules::SECRETS, &mut stars)
        .text
        .into_owned()
}

/// A successful tool result's text with the known secrets (`known`: the bridge's token, the
/// server's configured values) and the credential shapes masked, and how many were.
pub fn mask_result<'a>(text: &'a str, known: &[&str]) -> Redaction<'a> {
    let by_value = secrets::mask_known(text, known, MASK);
    let (shaped, shapes) = {
        let by_shape = secrets::mask(&by_value.text, Rules::SHAPES, &mut stars);
        match by_shape.text {
            Cow::Owned(text) => (Some(text), by_shape.count),
            Cow::Borrowed(_) => (None, 0),
        }
    };
    let count = by_value.count + shapes;
    match shaped {
        Some(text) => Redaction {
            text: Cow::Owned(text),
            count,
        },
        None => Redaction {
            text: by_value.text,
            count,
        },
    }
}

/// Only the values known to be secret masked in `text` (a result the user lets through: its
/// shapes pass, the bridge's token and the server's configured secrets never do).
pub(crate) fn mask_known<'a>(text: &'a str, known: &[&str]) -> Redaction<'a> {
    secrets::mask_known(text, known, MASK)
}

/// [`mask_patterns`] over every string of a JSON value; a string under a secret-looking key
/// (`{"password": "…"}`) is masked whole.
pub(crate) fn mask_json(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(text) => Value::String(mask_patterns(&text)),
        Value::Array(items) => Value::Array(items.into_iter().map(mask_json).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let value = match value {
                        Value::String(text) if secrets::is_secret_key(&key) && !text.is_empty() => {
                            Value::String(MASK.to_owned())
                        }
                        other => mask_json(other),
                    };
                    (key, value)
                })
                .collect(),
        ),
        other => other,
    }
}

/// The credential of a header value that names its scheme (`Bearer X`, `Basic X`, `token X`):
/// `X`, which a server may echo without the scheme.
pub(crate) fn credential_part(value: &str) -> Option<&str> {
    let (scheme, credential) = value.trim().split_once(' ')?;
    let credential = credential.trim();
    let is_scheme = !scheme.is_empty()
        && scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'));
    (is_scheme && !credential.is_empty()).then_some(credential)
}

/// The secrets inside a URL: the password (or bare user) of `user:password@`, and the values
/// of query parameters whose names look secret (`api_key`, `token`, …).
pub(crate) fn url_secrets(url: &str) -> Vec<String> {
    let mut found = Vec::new();
    if let Some((_, tail)) = url.split_once("://") {
        let authority = tail.split(['/', '?', '#']).next().unwrap_or("");
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            match userinfo.split_once(':') {
                Some((_, password)) => found.push(password.to_owned()),
                None => found.push(userinfo.to_owned()),
            }
        }
    }
    if let Some((_, query)) = url.split_once('?') {
        let query = query.split('#').next().unwrap_or("");
        for pair in query.split('&') {
            if let Some((name, value)) = pair.split_once('=')
                && secrets::is_secret_key(name)
            {
                found.push(value.to_owned());
            }
        }
    }
    found.retain(|value| !value.is_empty());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_every_occurrence() {
        let secrets = vec!["sk-12345".to_owned()];
        assert_eq!(
            redact("key sk-12345 and again sk-12345.", &secrets),
            "key *** and again ***."
        );
    }

    #[test]
    fn longest_secret_wins_and_short_values_are_left_alone() {
        let secrets = vec!["abcd".to_owned(), "abcdefgh".to_owned(), "UTC".to_owned()];
        assert_eq!(redact("abcdefgh abcd UTC", &secrets), "*** *** UTC");
    }

    #[test]
    fn no_secrets_no_change() {
        assert_eq!(redact("plain", &[]), "plain");
    }

    #[test]
    fn credential_shapes_are_masked() {
        assert_eq!(
            mask_patterns("login failed: password=hunter2 user=bob"),
            "login failed: password=*** user=bob"
        );
        assert_eq!(
            mask_patterns("DB_PASSWORD = 'p@ss w' and API_KEY=abc&x=1"),
            "DB_PASSWORD = '***' and API_KEY=***&x=1"
        );
        assert_eq!(
            mask_patterns(r#"{"password": "hunter2", "token":"t0k"}"#),
            r#"{"password": "***", "token":"***"}"#
        );
        assert_eq!(
            mask_patterns(r#"{"error":"bad password=hunter2\" end"}"#),
            r#"{"error":"bad password=***\" end"}"#
        );
        assert_eq!(
            mask_patterns(
                "GET https://bob:s3cret@example.com/x?a=1 and ftp://0123456789abcdef0123@h"
            ),
            "GET https://bob:***@example.com/x?a=1 and ftp://***@h"
        );
        assert_eq!(
            mask_patterns("Missing token; token_count 3; ü password="),
            "Missing token; token_count 3; ü password="
        );
        assert_eq!(mask_patterns("password=*** twice"), "password=*** twice");
    }

    #[test]
    fn json_values_are_masked() {
        let value = serde_json::json!([{"input": {"db_password": "hunter2", "n": 1, "note": "api_key=abc"}}]);
        assert_eq!(
            mask_json(value),
            serde_json::json!([{"input": {"db_password": "***", "n": 1, "note": "api_key=***"}}])
        );
    }

    #[test]
    fn a_header_credential_without_its_scheme() {
        assert_eq!(credential_part("Bearer abc.def"), Some("abc.def"));
        assert_eq!(credential_part("token  ghp_x "), Some("ghp_x"));
        assert_eq!(credential_part("plain-api-key"), None);
        assert_eq!(credential_part("Bearer "), None);
    }

    #[test]
    fn secrets_in_urls() {
        assert_eq!(
            url_secrets("https://bob:pw123@h:1/mcp?api_key=k999&x=1&access_token=zz"),
            ["pw123", "k999", "zz"]
        );
        assert!(url_secrets("http://127.0.0.1:9/mcp").is_empty());
    }

    use proptest::prelude::*;

    /// A credential known by its key name only (masked in errors and logs), and its value.
    fn key_value() -> impl Strategy<Value = (String, String)> {
        prop_oneof![
            "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("password=9{b}"), format!("9{b}"))),
            "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("password: 9{b}"), format!("9{b}"))),
            "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("\"token\": \"9{b}\""), format!("9{b}"))),
            "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("passphrase=9{b}"), format!("9{b}"))),
            "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("cookie=9{b}"), format!("9{b}"))),
            "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("access_key_id=9{b}"), format!("9{b}"))),
            "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("secret_key=9{b}"), format!("9{b}"))),
            "[A-Za-z0-9]{6,20}".prop_map(|b| (format!("密码：9{b}"), format!("9{b}"))),
        ]
    }

    proptest! {
        /// Every shape of the shared list (`secrets::examples`, built from its prefixes, PEM
        /// kinds and schemes), planted anywhere: masked in a result, an error and a log.
        #[test]
        fn shapes_never_leave_in_a_result_an_error_or_a_log(
            before in "[ -~\n]{0,30}", after in "[ -~\n]{0,30}", body in "[A-Za-z0-9]{8,40}"
        ) {
            for (planted, secret) in secrets::examples(&body) {
                let text = format!("{before} {planted} {after}");
                let result = mask_result(&text, &[]);
                prop_assert!(!result.text.contains(&secret), "{}", result.text);
                prop_assert!(result.count >= 1);
                prop_assert_eq!(mask_result(&result.text, &[]).count, 0);
                let error = mask_patterns(&text);
                prop_assert!(!error.contains(&secret), "{}", error);
                prop_assert_eq!(mask_patterns(&error), error);
            }
        }

        #[test]
        fn key_values_never_leave_in_an_error_or_a_log(
            before in "[ -~\n]{0,30}", after in "[ -~\n]{0,30}", (planted, secret) in key_value()
        ) {
            let text = format!("{before}\n{planted}\n{after}");
            let error = mask_patterns(&text);
            prop_assert!(!error.contains(&secret), "{}", error);
            prop_assert_eq!(mask_patterns(&error), error);
        }

        #[test]
        fn the_bridge_token_never_leaves_a_result(token in "[0-9a-f]{64}", before in "[ -~]{0,30}") {
            let text = format!("{before}{token}");
            let result = mask_result(&text, &[token.as_str()]);
            prop_assert!(!result.text.contains(&token));
        }
    }
}
