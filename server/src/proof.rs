//! Proving that the bridge is the bridge before anyone hands it the token: whoever listens on
//! the bridge's port while the bridge is down (another local user, another program) must not
//! receive the token. A client sends a fresh random nonce to the open route
//! `GET /health?challenge=<nonce>`; only the holder of the token can answer
//! `proof = HMAC-SHA256(key = token, message = proof_message(port, nonce))` (hex; the message,
//! the parameter and the nonce rule are the protocol crate's, `health`).
//!
//! A `--no-auth` bridge has no token, so it can prove nothing: it answers `"auth": "none"` and
//! no proof. That is safe because there is nothing to leak — a client that holds a token sends
//! it only after a valid proof, and a `--no-auth` bridge needs none.

use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

pub(crate) use mcp_bridge_protocol::health::{CHALLENGE_PARAM, challenge_path, valid_nonce};

fn mac(token: &str, port: u16, nonce: &str) -> HmacSha256 {
    // HMAC takes a key of any length: this cannot fail.
    let mut mac = HmacSha256::new_from_slice(token.as_bytes()).expect("HMAC takes any key");
    mac.update(mcp_bridge_protocol::health::proof_message(port, nonce).as_bytes());
    mac
}

/// The proof for `nonce` from a bridge on `port` holding `token`, in lowercase hex.
pub(crate) fn answer(token: &str, port: u16, nonce: &str) -> String {
    hex(&mac(token, port, nonce).finalize().into_bytes())
}

/// Whether `proof` (hex) is the answer to `nonce` from the holder of `token` on `port`,
/// compared in constant time.
pub fn verify(token: &str, port: u16, nonce: &str, proof: &str) -> bool {
    let Some(bytes) = unhex(proof) else {
        return false;
    };
    mac(token, port, nonce).verify_slice(&bytes).is_ok()
}

/// A fresh nonce: 16 bytes from the OS random source, in hex.
pub fn new_nonce() -> String {
    let mut bytes = [0u8; 16];
    // Without an OS random source no token could have been made either.
    getrandom::fill(&mut bytes).expect("the OS random source");
    hex(&bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_verifies_only_for_its_token_port_and_nonce() {
        let nonce = "00112233445566778899aabbccddeeff";
        let proof = answer("secret", 3849, nonce);
        assert_eq!(proof.len(), 64);
        assert!(verify("secret", 3849, nonce, &proof));
        assert!(!verify("other", 3849, nonce, &proof));
        assert!(!verify("secret", 3850, nonce, &proof));
        assert!(!verify(
            "secret",
            3849,
            "00112233445566778899aabbccddeefe",
            &proof
        ));
        assert!(!verify("secret", 3849, nonce, "zz"));
        assert!(!verify("secret", 3849, nonce, ""));
    }

    /// The extension computes the same HMAC with WebCrypto: its tests check this value too
    /// (computed independently, with Python's `hmac`).
    #[test]
    fn a_known_answer() {
        assert_eq!(
            answer("T0k", 3849, "0123456789abcdef0123456789abcdef"),
            KNOWN_ANSWER
        );
    }

    const KNOWN_ANSWER: &str = "d3c8ff5bd17cc1740f6d0e9b726ef0ec7f4aa37c072691f8dabef9d381c916af";

    #[test]
    fn nonces_are_fresh_and_valid() {
        let a = new_nonce();
        assert!(valid_nonce(&a));
        assert_ne!(a, new_nonce());
        assert!(!valid_nonce("short"));
        assert!(!valid_nonce(&"a".repeat(129)));
        assert!(!valid_nonce("0123456789abcdef 0123"));
    }
}
