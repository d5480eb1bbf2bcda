//! Keeps secrets out of everything the bridge logs or returns: configured secrets (a server's
//! `env` values, header values, credentials in its `url`) by value, and anything that looks like
//! a credential (`password=…`, `api_key=…`, `user:password@` in a URL) by its shape.

/// Shorter values (`"1"`, `"true"`, `"UTC"`) are too common to mask without mangling text.
pub(crate) const MIN_SECRET_LEN: usize = 4;

/// What a masked secret reads as.
pub(crate) const MASK: &str = "***";

/// Key names whose `key=value` (or JSON `"key": "value"`) value is always masked; matched
/// case-insensitively at the end of a longer name too (`db_password=`, `X-Api-Key=`).
const SECRET_KEYS: [&str; 12] = [
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "access_key",
    "private_key",
    "credentials",
    "credential",
];

/// Replace every occurrence of every secret in `text` with [`MASK`], longest secrets first
/// so that a secret containing another is masked whole; then mask credential-shaped text
/// (see [`mask_patterns`]).
pub(crate) fn redact(text: &str, secrets: &[String]) -> String {
    let mut ordered: Vec<&String> = secrets
        .iter()
        .filter(|secret| secret.len() >= MIN_SECRET_LEN)
        .collect();
    ordered.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    let mut out = text.to_owned();
    for secret in ordered {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), MASK);
        }
    }
    mask_patterns(&out)
}

/// Mask credential-shaped text that no configured secret covers: the value of `password=…`,
/// `api_key=…`, `"token": "…"` and the like, and the password of a URL's `user:password@`.
pub(crate) fn mask_patterns(text: &str) -> String {
    mask_url_userinfo(&mask_key_values(text))
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
                    let lower = key.to_ascii_lowercase();
                    let secret = SECRET_KEYS.iter().any(|name| lower.ends_with(name));
                    let value = match value {
                        Value::String(text) if secret && !text.is_empty() => {
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

/// Characters that end a masked value.
fn ends_value(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '&' | '"' | '\'' | ',' | ';' | '\\' | '`' | ')' | ']' | '}'
        )
}

fn mask_key_values(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut index = 0;
    while index < text.len() {
        let Some(key) = SECRET_KEYS
            .iter()
            .find(|key| lower[index..].starts_with(**key))
        else {
            index += text[index..].chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let mut cursor = index + key.len();
        // A quoted JSON key: `"password": "value"`.
        let quoted = text[cursor..].starts_with('"');
        if quoted {
            cursor += 1;
        }
        let rest = &text[cursor..];
        let spaces = rest.len() - rest.trim_start().len();
        let after_spaces = &rest[spaces..];
        let separator =
            if after_spaces.starts_with('=') || (quoted && after_spaces.starts_with(':')) {
                1
            } else {
                0
            };
        if separator == 0 {
            index += key.len();
            continue;
        }
        cursor += spaces + separator;
        let rest = &text[cursor..];
        cursor += rest.len() - rest.trim_start_matches([' ', '\t']).len();
        // An escaped or plain opening quote belongs to the value's syntax, not to the value.
        for opener in ["\\\"", "\"", "'"] {
            if text[cursor..].starts_with(opener) {
                cursor += opener.len();
                break;
            }
        }
        let value_len: usize = text[cursor..]
            .chars()
            .take_while(|c| !ends_value(*c))
            .map(char::len_utf8)
            .sum();
        if value_len == 0 || &text[cursor..cursor + value_len] == MASK {
            index = cursor.max(index + key.len());
            continue;
        }
        out.push_str(&text[copied..cursor]);
        out.push_str(MASK);
        copied = cursor + value_len;
        index = copied;
    }
    out.push_str(&text[copied..]);
    out
}

fn mask_url_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let authority_len = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\'' | '`'))
            .unwrap_or(tail.len());
        let authority = &tail[..authority_len];
        match authority.rfind('@') {
            Some(at) => {
                let userinfo = &authority[..at];
                match userinfo.split_once(':') {
                    Some((user, _)) => {
                        out.push_str(user);
                        out.push(':');
                        out.push_str(MASK);
                    }
                    // A bare user part is often a token (`https://TOKEN@host`).
                    None => out.push_str(MASK),
                }
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[authority_len..];
    }
    out.push_str(rest);
    out
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
            if let Some((name, value)) = pair.split_once('=') {
                let name = name.to_ascii_lowercase();
                if SECRET_KEYS.iter().any(|key| name.ends_with(key)) {
                    found.push(value.to_owned());
                }
            }
        }
    }
    found.retain(|value| !value.is_empty());
    found
}

/// A log writer that masks credential-shaped text in every line before it reaches stderr.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct MaskingStderr;

impl std::io::Write for MaskingStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr()
            .lock()
            .write_all(mask_patterns(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().lock().flush()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for MaskingStderr {
    type Writer = MaskingStderr;

    fn make_writer(&'a self) -> Self::Writer {
        MaskingStderr
    }
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
            "DB_PASSWORD = '*** w' and API_KEY=***&x=1"
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
            mask_patterns("GET https://bob:s3cret@example.com/x?a=1 and ftp://tok@h"),
            "GET https://bob:***@example.com/x?a=1 and ftp://***@h"
        );
        assert_eq!(
            mask_patterns("Missing token: send it; token_count 3; ü password="),
            "Missing token: send it; token_count 3; ü password="
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
    fn secrets_in_urls() {
        assert_eq!(
            url_secrets("https://bob:pw123@h:1/mcp?api_key=k999&x=1&access_token=zz"),
            ["pw123", "k999", "zz"]
        );
        assert!(url_secrets("http://127.0.0.1:9/mcp").is_empty());
    }
}
