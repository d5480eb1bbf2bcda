//! `GET /health`, the one route open without a token: the answer, the one test of whether
//! an answer is our bridge's (something else may listen on the port), and the proof handshake
//! both sides follow before the token is sent anywhere: a client sends a fresh nonce as
//! `/health?challenge=<nonce>`, and only the holder of the token can answer
//! `proof = HMAC-SHA256(key = token, message = proof_message(port, nonce))` in hex. The HMAC is
//! each side's own (the bridge's crate, the browser's WebCrypto); the words are these.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The query parameter of `/health` that carries the nonce.
pub const CHALLENGE_PARAM: &str = "challenge";

/// The path that asks for a proof of `nonce`.
pub fn challenge_path(nonce: &str) -> String {
    format!("/health?{CHALLENGE_PARAM}={nonce}")
}

/// The message the bridge on `port` signs for `nonce`. The port is in it so that a stranger on
/// one port cannot relay the challenge to the real bridge on another and pass its answer off.
pub fn proof_message(port: u16, nonce: &str) -> String {
    format!("mcp-bridge-proof\n{port}\n{nonce}")
}

/// Whether `nonce` is one the bridge answers: 16 to 128 characters of `[A-Za-z0-9_-]` (a
/// client's 16 random bytes in hex are 32).
pub fn valid_nonce(nonce: &str) -> bool {
    (16..=128).contains(&nonce.len())
        && nonce
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// What a bridge asked for a proof says about its token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Auth {
    /// It holds one: `proof` follows.
    Token,
    /// It runs with `--no-auth`: it has no token and can prove nothing.
    None,
}

impl Auth {
    /// The word on the wire.
    pub fn word(self) -> &'static str {
        match self {
            Auth::Token => "token",
            Auth::None => "none",
        }
    }
}

/// The `/health` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
    /// Seconds since the Unix epoch.
    pub timestamp: f64,
    pub version: String,
    pub servers: ServerCounts,
    /// Only when a challenge was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Auth>,
    /// The proof (hex), when a challenge was asked of a bridge that holds a token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<String>,
}

/// How many MCP servers are starting, running and failed (counts only, no names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ServerCounts {
    pub starting: usize,
    pub running: usize,
    pub failed: usize,
}

impl Health {
    pub fn new(timestamp: f64, version: &str, servers: ServerCounts) -> Self {
        Health {
            status: "ok".to_owned(),
            timestamp,
            version: version.to_owned(),
            servers,
            auth: None,
            proof: None,
        }
    }
}

/// The bridge's version when `body` is our bridge's `/health` answer (`status: ok` and a
/// version); `None` for anything else.
pub fn version_of(body: &Value) -> Option<&str> {
    if body.get("status").and_then(Value::as_str) != Some("ok") {
        return None;
    }
    body.get("version").and_then(Value::as_str)
}

/// Whether `body` is our bridge's `/health` answer.
pub fn is_ours(body: &Value) -> bool {
    version_of(body).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_an_ok_with_a_version_is_ours() {
        let answer =
            serde_json::to_value(Health::new(1.5, "0.1.0", ServerCounts::default())).unwrap();
        assert_eq!(version_of(&answer), Some("0.1.0"));
        assert!(!is_ours(&json!({"status": "ok"})));
        assert!(!is_ours(&json!({"status": "up", "version": "1"})));
        assert!(!is_ours(&json!({"status": "ok", "version": 1})));
        assert!(!is_ours(&json!("ok")));
    }

    #[test]
    fn the_handshake_words() {
        assert_eq!(
            proof_message(3849, "n0nce"),
            "mcp-bridge-proof\n3849\nn0nce"
        );
        assert_eq!(challenge_path("abc"), "/health?challenge=abc");
        assert!(valid_nonce(&"a".repeat(16)) && valid_nonce("0123456789abcdef-_AZ"));
        assert!(!valid_nonce("short") && !valid_nonce(&"a".repeat(129)));
        assert!(!valid_nonce("0123456789abcdef 0123"));
        let mut answer = Health::new(1.5, "0.1.0", ServerCounts::default());
        answer.auth = Some(Auth::Token);
        answer.proof = Some("ab".to_owned());
        let text = serde_json::to_string(&answer).unwrap();
        assert!(text.ends_with(r#""auth":"token","proof":"ab"}"#), "{text}");
        assert_eq!(serde_json::to_value(Auth::None).unwrap(), Auth::None.word());
    }
}
