//! Masks secrets in any text before it is typed into a chat page or shown in the float.
//!
//! Error messages and tracebacks leak API keys, passwords, home paths and internal
//! addresses; the chat page belongs to a third party. [`redact`] removes
//! them and says what it removed (`[REDACTED:api-key]`). What counts as a secret is the
//! list and scanner the bridge masks with too (`mcp_bridge_protocol::secrets`); this module
//! only writes the core's placeholders.

use std::borrow::Cow;

use mcp_bridge_protocol::secrets::{self, Mask, Redaction, Rules};

/// Writes the core's placeholder for one match.
fn placeholder(out: &mut String, mask: Mask) {
    match mask {
        Mask::Secret(kind) => {
            out.push_str("[REDACTED:");
            out.push_str(kind);
            out.push(']');
        }
        Mask::PrivateAddress => out.push_str("[REDACTED:private-ip]"),
        Mask::Home { slash: true } => out.push_str("~/"),
        Mask::Home { slash: false } => out.push('~'),
    }
}

/// Masks every secret the scanner knows in `input`, and says how many it masked.
pub fn redact_counted(input: &str) -> Redaction<'_> {
    secrets::mask(input, Rules::ALL, &mut placeholder)
}

/// Masks every secret the scanner knows in `input`.
///
/// Returns the input unchanged (borrowed) when nothing was found, so the common case does
/// not allocate.
pub fn redact(input: &str) -> Cow<'_, str> {
    redact_counted(input).text
}

/// Convenience: [`redact`] into an owned `String`.
pub fn redact_owned(input: &str) -> String {
    redact(input).into_owned()
}

/// Text that has passed the masker. Every constructor masks, reading one from JSON too, so
/// no text bound for the page can skip [`redact`].
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[serde(transparent)]
pub struct Masked(String);

impl Masked {
    /// Masks `s`.
    pub fn new(s: &str) -> Masked {
        Masked(redact_owned(s))
    }

    /// `s` as it is: only for a tool result the user chose, on the options page, to let
    /// through unmasked (`Settings::unmasked_results`).
    pub fn passed_by_user(s: String) -> Masked {
        Masked(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl std::fmt::Display for Masked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Masked {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|s| Masked::new(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        let once = redact(s).into_owned();
        assert_eq!(redact(&once), once, "not idempotent for {s:?}");
        once
    }

    #[test]
    fn provider_keys() {
        assert_eq!(
            r("key sk-abcdefghijklmnopqrstuvwxyz012345 used"),
            "key [REDACTED:api-key] used"
        );
        assert_eq!(
            r("sk-ant-api03-abcdefghijklmnopqrstuvwxyz"),
            "[REDACTED:api-key]"
        );
        assert_eq!(
            r("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"),
            "[REDACTED:token]"
        );
        assert_eq!(
            r("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
            "[REDACTED:token]"
        );
        assert_eq!(r("xoxb-1234567890-abcdefghij"), "[REDACTED:token]");
        assert_eq!(r("AKIAIOSFODNN7EXAMPLE"), "[REDACTED:api-key]");
        assert_eq!(
            r("AIzaSyA-1234567890abcdefghijklmnopqrstu"),
            "[REDACTED:api-key]"
        );
        assert_eq!(r("sk_live_4eC39HqLyjWDarjtT1zdp7dc"), "[REDACTED:api-key]");
        assert_eq!(
            r("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"),
            "[REDACTED:token]"
        );
        // Too short, or an ordinary word.
        assert_eq!(r("ask-me sk-short task-list"), "ask-me sk-short task-list");
    }

    #[test]
    fn authorization_and_bearer() {
        assert_eq!(
            r("Authorization: Bearer abc123def456ghi789"),
            "Authorization: Bearer [REDACTED:token]"
        );
        assert_eq!(
            r(r#"{"authorization": "Basic dXNlcjpwYXNz"}"#),
            r#"{"authorization": "Basic [REDACTED:token]"}"#
        );
        assert_eq!(
            r("headers={'Authorization': 'tok_12345678'}"),
            "headers={'Authorization': '[REDACTED:token]'}"
        );
        assert_eq!(
            r("a Bearer token is required"),
            "a Bearer token is required"
        );
        assert_eq!(r("bearer eyJhbGciOi.x"), "bearer [REDACTED:token]");
    }

    #[test]
    fn jwt() {
        let t = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_eq!(r(&format!("token {t} end")), "token [REDACTED:jwt] end");
    }

    #[test]
    fn url_passwords() {
        assert_eq!(
            r("postgres://admin:s3cr3t@db.internal:5432/app"),
            "postgres://admin:[REDACTED:password]@db.internal:5432/app"
        );
        assert_eq!(
            r("redis://:hunter2@cache:6379"),
            "redis://:[REDACTED:password]@cache:6379"
        );
        assert_eq!(
            r("https://user@example.com/x"),
            "https://user@example.com/x"
        );
        assert_eq!(
            r("see https://example.com/a:b@c"),
            "see https://example.com/a:b@c"
        );
    }

    #[test]
    fn key_value_pairs() {
        assert_eq!(
            r("password=hunter2 next"),
            "password=[REDACTED:password] next"
        );
        assert_eq!(
            r(r#"{"password": "p@ss word"}"#),
            r#"{"password": "[REDACTED:password]"}"#
        );
        assert_eq!(r("DB_PASSWORD='x y'"), "DB_PASSWORD='[REDACTED:password]'");
        assert_eq!(r("api_key: abc123"), "api_key: [REDACTED:api-key]");
        assert_eq!(r("GITHUB_TOKEN=abc"), "GITHUB_TOKEN=[REDACTED:token]");
        assert_eq!(
            r("?client_secret=zzz&x=1"),
            "?client_secret=[REDACTED:secret]&x=1"
        );
        assert_eq!(
            r("Server=db;User Id=sa;Password=Pa55;"),
            "Server=db;User Id=sa;Password=[REDACTED:password];"
        );
        assert_eq!(
            r("max_tokens=100 tokenizer=x"),
            "max_tokens=100 tokenizer=x"
        );
        assert_eq!(r("password: null"), "password: null");
        assert_eq!(r("if password == other"), "if password == other");
        assert_eq!(r("密码：abc123 ok"), "密码：[REDACTED:password] ok");
        assert_eq!(
            r(r#"{\"token\": \"abc\"}"#),
            r#"{\"token\": \"[REDACTED:token]\"}"#
        );
        assert_eq!(r("dbPassword=x1"), "dbPassword=[REDACTED:password]");
    }

    #[test]
    fn pem() {
        let s = "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\ny";
        assert_eq!(r(s), "x\n[REDACTED:private-key]\ny");
        assert_eq!(
            r("-----BEGIN PRIVATE KEY-----\nMIIE"),
            "[REDACTED:private-key]"
        );
        let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
        assert_eq!(r(cert), cert);
    }

    #[test]
    fn home_dirs() {
        assert_eq!(r("File \"/home/alice/proj/a.py\""), "File \"~/proj/a.py\"");
        assert_eq!(r("/Users/bob/Library/x"), "~/Library/x");
        assert_eq!(r(r"C:\Users\Carol\AppData\x.py"), "~/AppData\\x.py");
        assert_eq!(r(r"C:\\Users\\Carol\\x.py"), "~/x.py");
        assert_eq!(r("C:/Users/dave/x"), "~/x");
        assert_eq!(r("cd /home/eve"), "cd ~");
        assert_eq!(r("/usr/home/x"), "/usr/home/x");
    }

    #[test]
    fn private_ips() {
        assert_eq!(
            r("connect 10.0.0.5:80 failed"),
            "connect [REDACTED:private-ip]:80 failed"
        );
        assert_eq!(r("192.168.1.20"), "[REDACTED:private-ip]");
        assert_eq!(
            r("172.20.1.1 172.32.1.1"),
            "[REDACTED:private-ip] 172.32.1.1"
        );
        assert_eq!(r("127.0.0.1:3849 8.8.8.8"), "127.0.0.1:3849 8.8.8.8");
        assert_eq!(r("version 1.10.0.1"), "version 1.10.0.1");
        assert_eq!(r("[fd12:3456:789a::1]:80"), "[[REDACTED:private-ip]]:80");
        assert_eq!(r("fdisk: failed"), "fdisk: failed");
    }

    #[test]
    fn borrowed_when_clean() {
        assert!(matches!(redact("nothing to see"), Cow::Borrowed(_)));
        assert_eq!(r("中文 ok ☃"), "中文 ok ☃");
    }
}
