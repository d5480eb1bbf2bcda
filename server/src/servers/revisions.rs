//! The MCP protocol revisions the bridge speaks, and the check that a server's answer names
//! one of them: a version no revision has (`1999-01-01`, `latest`, an empty string) leaves
//! the bridge not knowing which rules the server follows, so the server is refused.

use rmcp::model::ProtocolVersion;

/// The revisions the bridge speaks, oldest first: every one rmcp knows.
pub(crate) fn spoken() -> &'static [ProtocolVersion] {
    ProtocolVersion::KNOWN_VERSIONS
}

/// `Ok` when `version` is a revision the bridge speaks; else why the server is refused.
pub(crate) fn check(version: &ProtocolVersion) -> Result<(), String> {
    if spoken().contains(version) {
        return Ok(());
    }
    let names: Vec<&str> = spoken().iter().map(ProtocolVersion::as_str).collect();
    Err(format!(
        "it answered with MCP protocol version `{version}`, which no revision of MCP has; the bridge speaks {}",
        names.join(", ")
    ))
}

/// Why a server whose `server/discover` answer names none of the revisions the bridge asks
/// for is refused.
pub(crate) fn none_shared(supported: &[ProtocolVersion]) -> String {
    let theirs: Vec<String> = supported.iter().map(|v| format!("`{v}`")).collect();
    let names: Vec<&str> = spoken().iter().map(ProtocolVersion::as_str).collect();
    format!(
        "its server/discover answer names MCP protocol versions {}, and none is one the bridge speaks \
         without `initialize`; the bridge speaks {}",
        if theirs.is_empty() {
            "(none)".to_owned()
        } else {
            theirs.join(", ")
        },
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_revisions_pass_and_others_are_named() {
        for known in spoken() {
            assert_eq!(check(known), Ok(()));
        }
        for odd in ["1999-01-01", "latest", "", "2025-11-25 "] {
            let version: ProtocolVersion = serde_json::from_value(serde_json::json!(odd)).unwrap();
            let why = check(&version).unwrap_err();
            assert!(why.contains(&format!("`{odd}`")), "{why}");
            assert!(
                why.contains("2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"),
                "{why}"
            );
        }
    }
}
