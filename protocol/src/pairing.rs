//! The native messaging host's words, which hand the extension the bridge's address and token:
//! the extension asks `{"type": "pair"}`; the host answers `paired` (an address that proved it
//! holds the token, and the token), `unavailable` (why, and the command for the user to run)
//! or `error` (a request it does not answer).

use serde::Serialize;

/// The one request's `type`.
pub const PAIR: &str = "pair";
/// The `type` of an answer that pairs.
pub const PAIRED: &str = "paired";
/// The `type` of an answer that cannot pair now.
pub const UNAVAILABLE: &str = "unavailable";
/// The `type` of an answer to a request the host does not answer.
pub const ERROR: &str = "error";

/// `{"type": "pair"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PairRequest {
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl Default for PairRequest {
    fn default() -> Self {
        PairRequest { kind: PAIR }
    }
}

/// The bridge's address and token (`None` for a bridge started with `--no-auth`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Paired<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub url: &'a str,
    pub token: Option<&'a str>,
    /// The host started the bridge for this request.
    pub started: bool,
}

/// Why there is no bridge to pair with, and the command that starts one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unavailable {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub reason: String,
    pub command: String,
}

/// A request the host does not answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostError<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub message: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_as_written() {
        let request = serde_json::to_string(&PairRequest::default()).unwrap();
        assert_eq!(request, r#"{"type":"pair"}"#);
        let paired = Paired {
            kind: PAIRED,
            url: "http://127.0.0.1:3849",
            token: None,
            started: false,
        };
        assert_eq!(
            serde_json::to_string(&paired).unwrap(),
            r#"{"type":"paired","url":"http://127.0.0.1:3849","token":null,"started":false}"#
        );
    }
}
