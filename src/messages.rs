//! The one message contract between the JavaScript glue (content scripts, options page) and
//! the Rust core in the background. Both sides speak these tagged enums; anything else is
//! rejected as untrusted input.

use serde::{Deserialize, Serialize};

/// Upper bound on the size of any message a content script may send (the newest assistant
/// message text dominates it). Larger messages are refused, never truncated silently.
pub const MAX_MESSAGE_BYTES: usize = 2 * 1024 * 1024;

/// Where a message came from, as the browser (not the sender) tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// A content script in a chat tab: untrusted, may only report and ask to run detected calls.
    ContentScript,
    /// An extension page (options): trusted, may change settings.
    ExtensionPage,
}

/// What the glue asks of the core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Request {
    /// Liveness check; answered with the core's version.
    Ping,
    /// The options page asks for the bridge's `/health`, fetched by the core.
    GetHealth,
}

impl Request {
    /// Whether a sender of this origin may make this request at all.
    pub fn allowed_from(&self, origin: Origin) -> bool {
        match self {
            Request::Ping => true,
            Request::GetHealth => origin == Origin::ExtensionPage,
        }
    }
}

/// What the core answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Response {
    Pong {
        version: String,
    },
    Health {
        ok: bool,
        /// The bridge's version when it answered.
        #[serde(skip_serializing_if = "Option::is_none")]
        bridge_version: Option<String>,
        /// A sentence for the user when it did not.
        #[serde(skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
    },
    /// The request was refused or could not be understood.
    Error {
        message: String,
    },
}

/// Parses a message from the glue, refusing anything that is not part of the contract.
pub fn parse_request(json: &str, origin: Origin) -> Result<Request, String> {
    if json.len() > MAX_MESSAGE_BYTES {
        return Err(format!(
            "message of {} bytes exceeds the limit of {MAX_MESSAGE_BYTES}",
            json.len()
        ));
    }
    let req: Request =
        serde_json::from_str(json).map_err(|e| format!("not a valid MCP Bridge message: {e}"))?;
    if !req.allowed_from(origin) {
        return Err("this message is not allowed from a web page's content script".into());
    }
    Ok(req)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_round_trips_as_tagged_json() {
        let req = parse_request(r#"{"type":"ping"}"#, Origin::ContentScript).unwrap();
        assert_eq!(req, Request::Ping);
        let pong = Response::Pong {
            version: "1.2.3".into(),
        };
        assert_eq!(
            serde_json::to_string(&pong).unwrap(),
            r#"{"type":"pong","version":"1.2.3"}"#
        );
    }

    #[test]
    fn unknown_and_malformed_messages_are_refused() {
        assert!(parse_request(r#"{"type":"rm-rf"}"#, Origin::ContentScript).is_err());
        assert!(parse_request("not json", Origin::ExtensionPage).is_err());
        assert!(parse_request(r#"{"kind":"ping"}"#, Origin::ExtensionPage).is_err());
    }

    #[test]
    fn content_scripts_cannot_reach_extension_only_requests() {
        let err = parse_request(r#"{"type":"get-health"}"#, Origin::ContentScript).unwrap_err();
        assert!(err.contains("not allowed"));
        assert!(parse_request(r#"{"type":"get-health"}"#, Origin::ExtensionPage).is_ok());
    }

    #[test]
    fn oversized_messages_are_refused() {
        let big = format!(
            r#"{{"type":"ping","pad":"{}"}}"#,
            "x".repeat(MAX_MESSAGE_BYTES)
        );
        assert!(
            parse_request(&big, Origin::ContentScript)
                .unwrap_err()
                .contains("exceeds")
        );
    }
}
