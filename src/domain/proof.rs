//! Before the extension sends its token anywhere, the server at the configured address must
//! prove it holds that token: the core sends a fresh random nonce to the open route
//! `GET /health?challenge=<nonce>` and checks the answer's `proof`, which must be
//! HMAC-SHA256(key = token, message = "mcp-bridge-proof\n<port>\n<nonce>") in hex — the same
//! definition as the bridge's. A stranger listening on the port while the bridge is down
//! cannot compute it, so it never receives the token. The HMAC itself is the browser's
//! (WebCrypto, through the host seam); this module says what to ask and how to read the answer.
//!
//! A `--no-auth` bridge has no token: it answers `"auth": "none"` and no proof. Anyone can
//! claim that, so the core believes it only when it holds no token itself (the user chose
//! such a bridge); holding one, a server that does not prove it is never used.

use mcp_bridge_protocol::health::Auth;
use serde_json::Value;

pub use mcp_bridge_protocol::health::{CHALLENGE_PARAM, challenge_path, proof_message as message};

/// The port of a bridge address (`http://127.0.0.1:3849`; without a port, HTTP's 80).
pub fn port_of(base_url: &str) -> Option<u16> {
    let rest = base_url.strip_prefix("http://")?;
    let authority = rest.split('/').next()?;
    // `[::1]:3849` or `127.0.0.1:3849`; the part after the last `]`.
    let after_host = authority
        .rsplit_once(']')
        .map_or(authority, |(_, port)| port);
    match after_host.rsplit_once(':') {
        Some((_, port)) => port.parse().ok(),
        None => Some(80),
    }
}

/// What a `/health?challenge=…` answer claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Not our bridge's `/health` at all.
    NotOurs,
    /// Our shape, and `"auth": "none"`: a bridge without a token.
    NoAuth,
    /// Our shape, with this proof (hex) — still to be checked.
    Proof(String),
    /// Our shape, but no proof (an older bridge, or a stranger imitating the shape).
    Unproved,
}

/// Reads a `/health` answer (its status and JSON body).
pub fn claim(status: u16, body: Option<&Value>) -> Claim {
    let Some(body) = body.filter(|b| status == 200 && mcp_bridge_protocol::health::is_ours(b))
    else {
        return Claim::NotOurs;
    };
    match (body["auth"].as_str(), body["proof"].as_str()) {
        (_, Some(proof)) => Claim::Proof(proof.to_string()),
        (Some(none), None) if none == Auth::None.word() => Claim::NoAuth,
        _ => Claim::Unproved,
    }
}

/// Compares two hex proofs without stopping at the first difference.
pub fn same(expected: &str, given: &str) -> bool {
    let (a, b) = (expected.as_bytes(), given.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter()
        .zip(b)
        .fold(0u8, |acc, (x, y)| acc | (x ^ y.to_ascii_lowercase()))
        == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ports_of_addresses() {
        assert_eq!(port_of("http://127.0.0.1:3849"), Some(3849));
        assert_eq!(port_of("http://[::1]:4000"), Some(4000));
        assert_eq!(port_of("http://localhost"), Some(80));
        assert_eq!(port_of("http://[::1]"), Some(80));
        assert_eq!(port_of("https://127.0.0.1:1"), None);
        assert_eq!(port_of("http://127.0.0.1:99999"), None);
    }

    #[test]
    fn claims() {
        let ours = json!({"status": "ok", "version": "0.1.0", "proof": "ab"});
        assert_eq!(claim(200, Some(&ours)), Claim::Proof("ab".into()));
        assert_eq!(claim(500, Some(&ours)), Claim::NotOurs);
        assert_eq!(claim(200, None), Claim::NotOurs);
        let open = json!({"status": "ok", "version": "0.1.0", "auth": "none"});
        assert_eq!(claim(200, Some(&open)), Claim::NoAuth);
        let bare = json!({"status": "ok", "version": "0.1.0"});
        assert_eq!(claim(200, Some(&bare)), Claim::Unproved);
        assert_eq!(claim(200, Some(&json!({"ok": true}))), Claim::NotOurs);
    }

    #[test]
    fn the_message_is_the_bridges() {
        // The bridge signs exactly this (server/src/proof.rs).
        assert_eq!(message(3849, "abc"), "mcp-bridge-proof\n3849\nabc");
        assert!(same("00ff", "00FF"));
        assert!(!same("00ff", "00fe"));
        assert!(!same("00ff", "00ff00"));
    }
}
