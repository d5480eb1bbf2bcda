//! `GET /health`, the one route open without a token: the answer, and the one test of whether
//! an answer is our bridge's (something else may listen on the port).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `/health` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
    /// Seconds since the Unix epoch.
    pub timestamp: f64,
    pub version: String,
    pub servers: ServerCounts,
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
}
