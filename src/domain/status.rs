//! The connection's state in one word, from what the bridge answered: not running, wrong
//! address, token missing, token rejected, or connected (with its servers and tools). The
//! options header, the toolbar popup and the float all show this one verdict, so they can
//! never disagree; an authenticated route decides, not `/health` alone. The chat loop's held
//! calls and the options page's requests are judged here too.

use crate::domain::bridge_api::{self, ServerStatus};
use crate::domain::i18n::{Lang, count_servers, count_tools, fill};
use crate::domain::outcome::CallOutcome;
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    NotRunning,
    /// Something answers at the address, but not our bridge (the HTTP status it gave).
    WrongAddress {
        status: u16,
    },
    /// The bridge asks for a token and none is set.
    TokenMissing,
    TokenRejected,
    Connected {
        /// The bridge's version (`/health`).
        version: String,
        servers: usize,
        tools: u64,
        /// The servers that failed to start.
        failed: Vec<String>,
    },
}

impl Status {
    /// The word the pages style and the tests read.
    pub fn word(&self) -> &'static str {
        match self {
            Status::NotRunning => "not-running",
            Status::WrongAddress { .. } => "wrong-address",
            Status::TokenMissing => "token-missing",
            Status::TokenRejected => "token-rejected",
            Status::Connected { .. } => "connected",
        }
    }

    /// Whether asking the native host could help: it knows the token and can start the
    /// bridge. A stranger at the address is the user's to sort out.
    pub fn wants_pairing(&self) -> bool {
        matches!(
            self,
            Status::NotRunning | Status::TokenMissing | Status::TokenRejected
        )
    }
}

/// The verdict from the bridge client's answers: the version `/health` gave when it was asked
/// for the proof (`None` when it did not answer as our bridge), and what `/tools` came back as
/// — the client sends it only to a server that proved it holds the token, so a refusal to
/// prove reads as a refused token.
pub fn judge(
    version: Option<&str>,
    tools: &Result<Value, CallOutcome>,
    token_empty: bool,
) -> Status {
    let (version, body) = match (version, tools) {
        (Some(version), Ok(body)) => (version, body),
        (None, Ok(_)) => return Status::WrongAddress { status: 200 },
        (_, Err(o)) => {
            return of_refused_route(version, o, token_empty).unwrap_or(Status::WrongAddress {
                status: o.status().unwrap_or(200),
            });
        }
    };
    match bridge_api::services(body) {
        Ok(services) => Status::Connected {
            version: version.to_string(),
            servers: services.len(),
            tools: services
                .iter()
                .filter(|s| s.state() == Some(ServerStatus::Running))
                .filter_map(|s| s.tool_count)
                .sum(),
            failed: services
                .iter()
                .filter(|s| {
                    !matches!(
                        s.state(),
                        Some(ServerStatus::Running | ServerStatus::Starting)
                    )
                })
                .map(|s| s.name.clone())
                .collect(),
        },
        Err(_) => Status::WrongAddress { status: 200 },
    }
}

/// What `/health`'s answer says: the bridge's version, or the connection's state when it
/// did not answer as our bridge.
pub fn of_health(health: &Result<Value, CallOutcome>) -> Result<String, Status> {
    match health {
        Ok(v) => mcp_bridge_protocol::health::version_of(v)
            .map(str::to_owned)
            .ok_or(Status::WrongAddress { status: 200 }),
        Err(o) if no_answer(o) => Err(Status::NotRunning),
        Err(o) => Err(Status::WrongAddress {
            status: o.status().unwrap_or(200),
        }),
    }
}

/// What a token-protected route's failure says about the connection, given the version
/// `/health` gave beside it (`None`: it did not answer as our bridge). `None` when the
/// connection is not what failed: the bridge answered this request with its own refusal.
pub fn of_refused_route(
    version: Option<&str>,
    failed: &CallOutcome,
    token_empty: bool,
) -> Option<Status> {
    let refused = if token_empty {
        Status::TokenMissing
    } else {
        Status::TokenRejected
    };
    match version {
        None if no_answer(failed) => Some(Status::NotRunning),
        None => Some(Status::WrongAddress {
            status: failed.status().unwrap_or(200),
        }),
        // Our bridge answered `/health` but not this route: the browser hid a refusal (its
        // 401 carries no CORS headers, and Firefox applies CORS to extensions that were not
        // granted the host permission).
        Some(_) if no_answer(failed) => Some(refused),
        Some(_) if failed.status() == Some(401) => Some(refused),
        Some(_) => None,
    }
}

/// No HTTP answer at all: nothing listens, the request timed out, or it was cut off.
fn no_answer(o: &CallOutcome) -> bool {
    matches!(
        o,
        CallOutcome::Unreachable { .. } | CallOutcome::Timeout { .. } | CallOutcome::Aborted
    )
}

/// The same verdict for a request that failed on its way to the bridge (the chat loop's call):
/// the status it shows when the setup kept it from the bridge — nothing answers, or the token
/// is missing or refused — and `None` for any other failure.
pub fn of_failure(outcome: &CallOutcome, token_empty: bool) -> Option<Status> {
    match outcome {
        CallOutcome::Unreachable { .. } => Some(Status::NotRunning),
        CallOutcome::HttpError { status: 401, .. } if token_empty => Some(Status::TokenMissing),
        CallOutcome::HttpError { status: 401, .. } => Some(Status::TokenRejected),
        _ => None,
    }
}

/// What pairing through the native host found, when it was tried and did not connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairingNote {
    /// Not tried, or it worked.
    None,
    /// No host is registered (or the extension may not use one).
    Absent,
    /// The host answered but could not hand out the bridge.
    Failed { reason: String, command: String },
}

/// The status in words, as the options header and the popup show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusView {
    /// [`Status::word`]: what the tests read.
    pub state: &'static str,
    /// How the pages colour it: the one place a status becomes a colour.
    pub look: Look,
    pub title: String,
    /// What to do about it, or which servers failed.
    pub detail: Option<String>,
    /// The bridge's address as the user knows it (`127.0.0.1:3849`).
    pub url: String,
    /// Only when connected: servers, tools of running servers, servers that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub servers: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<Vec<String>>,
    /// Until connected: when a page showing this asks again, so it sees the bridge (and turns
    /// its buttons on) the moment it runs.
    #[serde(rename = "recheckMs", skip_serializing_if = "Option::is_none")]
    pub recheck_ms: Option<u32>,
}

/// How often a page showing a bridge that is not connected asks again.
pub const RECHECK_MS: u32 = 3000;

/// The colour a status is drawn in (the pages' `data-state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Look {
    /// Connected, every server running.
    Ok,
    /// Connected, some server failed.
    Warn,
    /// Not connected.
    Down,
}

impl Status {
    /// How this status is drawn.
    pub fn look(&self) -> Look {
        match self {
            Status::Connected { failed, .. } if failed.is_empty() => Look::Ok,
            Status::Connected { .. } => Look::Warn,
            _ => Look::Down,
        }
    }
}

/// The status in words for the pages.
pub fn view(lang: Lang, status: &Status, address: &str, note: &PairingNote) -> StatusView {
    let says = lang.says();
    let title = match status {
        Status::NotRunning => fill(says.status_not_running, &[("address", address)]),
        Status::WrongAddress { status } => fill(
            says.status_wrong_address,
            &[("address", address), ("status", &status.to_string())],
        ),
        Status::TokenMissing => says.status_token_missing.into(),
        Status::TokenRejected => says.status_token_rejected.into(),
        Status::Connected {
            version,
            servers,
            tools,
            ..
        } => fill(
            says.status_connected,
            &[
                ("version", version),
                ("servers", &count_servers(lang, *servers as u64)),
                ("tools", &count_tools(lang, *tools)),
            ],
        ),
    };
    let detail = match (status, note) {
        (Status::Connected { failed, .. }, _) if !failed.is_empty() => {
            Some(fill(says.status_failed, &[("names", &failed.join(", "))]))
        }
        (Status::Connected { .. }, _) => None,
        (_, PairingNote::Failed { reason, command }) if status.wants_pairing() => Some(fill(
            says.status_host_failed,
            &[("reason", reason), ("command", command)],
        )),
        (_, _) if status.wants_pairing() => Some(says.status_two_ways.into()),
        _ => None,
    };
    let connected = match status {
        Status::Connected {
            servers,
            tools,
            failed,
            ..
        } => Some((*servers, *tools, failed.clone())),
        _ => None,
    };
    StatusView {
        state: status.word(),
        look: status.look(),
        title,
        detail,
        url: address.to_string(),
        servers: connected.as_ref().map(|c| c.0),
        tools: connected.as_ref().map(|c| c.1),
        recheck_ms: connected.is_none().then_some(RECHECK_MS),
        failed: connected.map(|c| c.2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The view as the pages get it.
    fn shown(lang: Lang, status: &Status, address: &str, note: &PairingNote) -> Value {
        serde_json::to_value(view(lang, status, address, note)).unwrap()
    }

    const VERSION: Option<&str> = Some("0.1.0");

    // The bridge client's own answer type (see `runtime::bridge_client`).
    #[allow(clippy::result_large_err)]
    fn answer(status: u16, json: Value) -> Result<Value, CallOutcome> {
        Err(crate::domain::outcome::from_http(
            status,
            None,
            json.to_string().as_bytes(),
        ))
    }

    #[test]
    fn a_route_refused_beside_a_healthy_bridge_is_the_token_and_anything_else_its_own() {
        let unproved = answer(
            401,
            json!({"detail": {"error": "no proof", "type": "Unauthorized"}}),
        );
        let unproved = unproved.unwrap_err();
        let gone = CallOutcome::unreachable("Failed to fetch");
        // Our bridge answered `/health`: no answer at all is a refusal the browser hid.
        assert_eq!(
            of_refused_route(VERSION, &gone, false),
            Some(Status::TokenRejected)
        );
        assert_eq!(
            of_refused_route(VERSION, &unproved, true),
            Some(Status::TokenMissing)
        );
        // Its own refusal of this request says nothing about the connection.
        let server_error = answer(500, json!({"detail": "boom"})).unwrap_err();
        assert_eq!(of_refused_route(VERSION, &server_error, false), None);
        // Without our bridge's `/health`: nothing there, or a stranger (whatever it says).
        assert_eq!(
            of_refused_route(None, &gone, false),
            Some(Status::NotRunning)
        );
        assert_eq!(
            of_refused_route(None, &unproved, false),
            Some(Status::WrongAddress { status: 401 })
        );
        assert_eq!(
            of_health(&Ok(json!({"status": "ok", "version": "2"}))),
            Ok("2".to_string())
        );
        // The one test of our `/health` (the protocol's): `ok` and a version.
        for not_ours in [json!({"status": "fine"}), json!({"status": "ok"})] {
            assert_eq!(
                of_health(&Ok(not_ours)),
                Err(Status::WrongAddress { status: 200 })
            );
        }
        assert_eq!(
            of_health(&Err(CallOutcome::timeout(1))),
            Err(Status::NotRunning)
        );
    }

    #[test]
    fn every_state_is_reachable() {
        let nothing = Err(CallOutcome::unreachable("connection refused"));
        assert_eq!(judge(None, &nothing, false), Status::NotRunning);
        assert_eq!(
            judge(None, &Err(CallOutcome::timeout(5000)), false),
            Status::NotRunning
        );
        assert_eq!(
            judge(None, &answer(404, json!({"detail": "Not Found"})), false),
            Status::WrongAddress { status: 404 }
        );
        // A web server that answers 200 with some other JSON is not our bridge either.
        assert_eq!(
            judge(None, &answer(200, json!({"ok": true})), false),
            Status::WrongAddress { status: 200 }
        );
        let refused = answer(401, json!({"detail": "Unauthorized"}));
        assert_eq!(judge(VERSION, &refused, true), Status::TokenMissing);
        assert_eq!(judge(VERSION, &refused, false), Status::TokenRejected);
        assert_eq!(judge(VERSION, &nothing, false), Status::TokenRejected);
        let tools = Ok(json!({"success": true, "services": [
            {"name": "time", "status": "running", "tool_count": 2},
            {"name": "files", "status": "running", "tool_count": 14},
            {"name": "broken", "status": "failed", "tool_count": 0},
            {"name": "slow", "status": "starting"},
        ]}));
        assert_eq!(
            judge(VERSION, &tools, false),
            Status::Connected {
                version: "0.1.0".into(),
                servers: 4,
                tools: 16,
                failed: vec!["broken".into()]
            }
        );
        // A bridge started with --no-auth takes an empty token: connected, not "missing".
        assert!(matches!(
            judge(VERSION, &tools, true),
            Status::Connected { .. }
        ));
        assert_eq!(
            judge(VERSION, &answer(500, json!({})), false),
            Status::WrongAddress { status: 500 }
        );
        assert_eq!(
            judge(VERSION, &Ok(json!({"no": "services"})), false),
            Status::WrongAddress { status: 200 }
        );
    }

    #[test]
    fn a_failed_request_is_judged_like_the_status() {
        let refused = answer(401, json!({"detail": "Unauthorized"})).unwrap_err();
        assert_eq!(of_failure(&refused, true), Some(Status::TokenMissing));
        assert_eq!(of_failure(&refused, false), Some(Status::TokenRejected));
        let nothing = CallOutcome::unreachable("connection refused");
        assert_eq!(of_failure(&nothing, false), Some(Status::NotRunning));
        let tool_failed = answer(500, json!({"detail": "boom"})).unwrap_err();
        assert_eq!(of_failure(&tool_failed, false), None);
    }

    #[test]
    fn pairing_helps_only_where_the_host_can() {
        assert!(Status::NotRunning.wants_pairing());
        assert!(Status::TokenMissing.wants_pairing());
        assert!(Status::TokenRejected.wants_pairing());
        assert!(!Status::WrongAddress { status: 404 }.wants_pairing());
        let connected = Status::Connected {
            version: "0.1.0".into(),
            servers: 1,
            tools: 1,
            failed: vec![],
        };
        assert!(!connected.wants_pairing());
        // A page asks again until it is connected, then no more.
        let none = PairingNote::None;
        let shown_connected = shown(Lang::En, &connected, "127.0.0.1:3849", &none);
        assert!(
            shown_connected.get("recheckMs").is_none(),
            "{shown_connected}"
        );
        for down in [
            Status::NotRunning,
            Status::TokenMissing,
            Status::TokenRejected,
        ] {
            let view = shown(Lang::En, &down, "127.0.0.1:3849", &none);
            assert_eq!(view["recheckMs"], RECHECK_MS, "{view}");
        }
    }

    #[test]
    fn views_in_both_languages() {
        let address = "127.0.0.1:3849";
        let connected = Status::Connected {
            version: "0.1.0".into(),
            servers: 2,
            tools: 16,
            failed: vec!["broken".into()],
        };
        let en = shown(Lang::En, &connected, address, &PairingNote::None);
        assert_eq!(en["state"], "connected");
        assert_eq!(
            en["title"],
            "Connected — bridge 0.1.0 · 2 servers, 16 tools"
        );
        assert_eq!(en["detail"], "Did not start: broken");
        assert_eq!(en["failed"], json!(["broken"]));
        let zh = shown(Lang::Zh, &connected, address, &PairingNote::None);
        assert_eq!(zh["title"], "已连接 — 桥接服务 0.1.0 · 2 个服务，16 个工具");

        let absent = shown(Lang::En, &Status::NotRunning, address, &PairingNote::Absent);
        assert_eq!(absent["state"], "not-running");
        assert!(absent["title"].as_str().unwrap().contains(address));
        let two_ways = absent["detail"].as_str().unwrap();
        assert!(two_ways.contains("mcp-bridge install") && two_ways.contains("Options"));
        let zh = shown(
            Lang::Zh,
            &Status::TokenRejected,
            address,
            &PairingNote::Absent,
        );
        assert!(
            zh["detail"]
                .as_str()
                .unwrap()
                .contains("mcp-bridge install")
        );

        let failed = PairingNote::Failed {
            reason: "no permission".into(),
            command: "/opt/mcp-bridge".into(),
        };
        let v = shown(Lang::En, &Status::NotRunning, address, &failed);
        assert!(v["detail"].as_str().unwrap().contains("/opt/mcp-bridge"));
        let wrong = shown(
            Lang::En,
            &Status::WrongAddress { status: 404 },
            address,
            &PairingNote::Absent,
        );
        assert_eq!(wrong["state"], "wrong-address");
        assert_eq!(wrong["detail"], Value::Null);
    }

    #[test]
    fn each_status_has_one_colour() {
        let connected = |failed: Vec<String>| Status::Connected {
            version: "0.1.0".into(),
            servers: 2,
            tools: 3,
            failed,
        };
        let look =
            |s: &Status| shown(Lang::En, s, "127.0.0.1:3849", &PairingNote::None)["look"].clone();
        assert_eq!(look(&connected(vec![])), "ok");
        assert_eq!(look(&connected(vec!["broken".into()])), "warn");
        for down in [
            Status::NotRunning,
            Status::WrongAddress { status: 404 },
            Status::TokenMissing,
            Status::TokenRejected,
        ] {
            assert_eq!(look(&down), "down", "{down:?}");
        }
    }
}
