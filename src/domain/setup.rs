//! Whether a failed call is the user's setup to fix — no bridge at the address, no or a
//! wrong token, the bridge refusing the extension, a remote server waiting for a sign-in —
//! rather than a failure for the AI to act on; the float then says what to do, and the
//! call can run once it is fixed.

use crate::domain::float;
use crate::domain::outcome::{CallOutcome, ErrorDetail};
use crate::domain::report::text::Address;
use crate::domain::settings::Settings;
use crate::domain::status::{self, PairingNote};
use crate::domain::tab_state::SIGN_IN_REQUIRED;
use mcp_bridge_protocol::errors::ErrorType;

/// When an outcome is the user's setup keeping the call from the bridge — no bridge at
/// the address, no or a wrong token, the bridge refusing the extension — what to tell
/// the user, in words with the fix. Nothing ran, so the call can run later. Failures the
/// bridge reported about the tool or its server are the AI's, as always.
pub fn setup_problem(outcome: &CallOutcome, settings: &Settings) -> Option<float::Setup> {
    let address = Address {
        url: settings.base_url(),
    }
    .host()
    .to_string();
    // The connection's own verdict first: not running, no or a wrong token.
    if let Some(status) = status::of_failure(outcome, settings.token.is_empty()) {
        return float::Setup::of_status(&status, &address, &PairingNote::None);
    }
    match outcome {
        CallOutcome::HttpError {
            status: 403,
            detail: ErrorDetail::Object { error },
            ..
        } if error.error_type.as_deref() == Some(ErrorType::Forbidden.as_str()) => {
            Some(float::Setup::Refused { address })
        }
        // A remote server that needs the user to sign in: the user's to fix, not the AI's.
        CallOutcome::HttpError {
            detail: ErrorDetail::Object { error },
            ..
        } if error.error_type.as_deref() == Some(SIGN_IN_REQUIRED) => Some(float::Setup::SignIn {
            server: error.server.clone().unwrap_or_default(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::float::Setup;
    use crate::domain::outcome::from_http;

    fn settings(token: &str) -> Settings {
        Settings {
            token: token.into(),
            ..Settings::default()
        }
    }

    #[test]
    fn no_bridge_at_the_address_is_the_users_to_fix() {
        let s = settings("t");
        let problem = setup_problem(&CallOutcome::unreachable("refused"), &s);
        assert!(
            matches!(problem, Some(Setup::NotRunning { .. })),
            "{problem:?}"
        );
    }

    #[test]
    fn the_bridge_refusing_the_extension_or_a_sign_in_is_the_users_to_fix() {
        let s = settings("t");
        let refused = from_http(
            403,
            None,
            br#"{"detail":{"error":"no","type":"Forbidden"}}"#,
        );
        let problem = setup_problem(&refused, &s);
        assert!(
            matches!(problem, Some(Setup::Refused { .. })),
            "{problem:?}"
        );
        let body = br#"{"detail":{"error":"sign in","type":"SignInRequired","server":"notes"}}"#;
        let sign_in = from_http(503, None, body);
        assert_eq!(
            setup_problem(&sign_in, &s),
            Some(Setup::SignIn {
                server: "notes".into()
            })
        );
    }

    #[test]
    fn a_tools_own_failure_is_the_ais() {
        let s = settings("t");
        let body = br#"{"detail":{"error":"bad date","type":"ValueError"}}"#;
        assert_eq!(setup_problem(&from_http(500, None, body), &s), None);
    }
}
