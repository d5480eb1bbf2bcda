//! The connection test in words: the address and token checked before anything is sent,
//! the verdict of `/health` and of a token-protected route with the form field to point at
//! (the verdict itself is `domain::status`'s), the summary of a working connection, what
//! saving it did, and the header's advice on the options page.

use super::services::ServiceView;
use super::{Lang, Problem};
use crate::domain::bridge_api::ServerStatus;
use crate::domain::i18n::{count_servers, count_tools, fill};
use crate::domain::outcome::{CallOutcome, ErrorDetail};
use crate::domain::settings::{FieldError, validate_bridge_url, validate_token};
use crate::domain::status::{self, PairingNote, Status};
use serde::Serialize;
use serde_json::Value;

/// The command that starts the bridge, as the user should be told it.
pub const START_COMMAND: &str = "mcp-bridge";

/// The command that starts a bridge at `base`: with `--port` when it is not the default one,
/// so the command the user copies gives the address they configured.
pub fn start_command(base: &str) -> String {
    let authority = base
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default();
    let port = authority
        .rsplit_once(':')
        .filter(|(host, _)| !host.is_empty())
        .and_then(|(_, p)| p.parse::<u16>().ok());
    match port {
        Some(p) if p != mcp_bridge_protocol::DEFAULT_PORT => format!("{START_COMMAND} --port {p}"),
        _ => START_COMMAND.to_string(),
    }
}

/// What an answer said, for a message: the bridge's `detail` in one line, or the start of
/// the body it gave.
fn said(answer: &Result<Value, CallOutcome>, lang: Lang) -> String {
    let body = match answer {
        Err(CallOutcome::HttpError { detail, .. }) => return detail_line(detail),
        Err(CallOutcome::NotJson { snippet, .. } | CallOutcome::BadShape { snippet, .. }) => {
            snippet.clone()
        }
        Ok(v) => v.to_string(),
        Err(_) => String::new(),
    };
    let one_line: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s: String = one_line.chars().take(160).collect();
    if s.len() < one_line.len() {
        s.push('…');
    }
    if s.is_empty() {
        lang.says().reply_empty_body.into()
    } else {
        s
    }
}

/// An error `detail` as one line: its message, or a 422 list as `loc: msg; …`.
pub fn detail_line(detail: &ErrorDetail) -> String {
    match detail {
        ErrorDetail::Text { message } => message.clone(),
        ErrorDetail::Object { error } => error.message.clone(),
        ErrorDetail::Validation { items } => {
            let lines: Vec<String> = items
                .iter()
                .map(|i| {
                    let loc: Vec<String> = i
                        .loc
                        .iter()
                        .map(|p| p.as_str().map_or_else(|| p.to_string(), str::to_string))
                        .collect();
                    format!("{}: {}", loc.join("."), i.msg)
                })
                .collect();
            lines.join("; ")
        }
        ErrorDetail::Other { json } => json.to_string(),
    }
}

/// The address and token typed into the form, checked before anything is sent: the base
/// address without its trailing `/`, and the token without the blanks a paste brings along.
pub fn check_connection_input(
    lang: Lang,
    bridge_url: &str,
    token: &str,
) -> Result<(String, String), Problem> {
    let url = bridge_url.trim();
    validate_bridge_url(url)
        .map_err(|m| Problem::invalid(FieldError::new("bridgeUrl", m), lang))?;
    let token = check_token(lang, token)?;
    Ok((url.trim_end_matches('/').to_string(), token))
}

/// A token to send, trimmed: not only blanks, and valid as a setting.
pub(super) fn check_token(lang: Lang, token: &str) -> Result<String, Problem> {
    // No token at all is the user's choice: a bridge started with `--no-auth` takes none,
    // any other answers 401, which the status explains.
    if token.is_empty() {
        return Ok(String::new());
    }
    let trimmed = token.trim();
    if trimmed.is_empty() {
        let message = lang.says().token_empty.into();
        return Err(Problem::new("invalid", Some("token"), message));
    }
    validate_token(trimmed).map_err(|e| Problem::invalid(FieldError::new("token", e), lang))?;
    Ok(trimmed.to_string())
}

fn not_running(lang: Lang, base: &str) -> Problem {
    let command = start_command(base);
    let args = [("base", base), ("command", command.as_str())];
    Problem::new("not-running", None, fill(lang.says().not_running, &args))
}

/// `/health`: the bridge's version, or why this address is not a working bridge.
pub fn health_verdict(
    lang: Lang,
    base: &str,
    health: &Result<Value, CallOutcome>,
) -> Result<String, Problem> {
    status::of_health(health).map_err(|s| match s {
        Status::WrongAddress { status } => {
            let (status, said) = (status.to_string(), said(health, lang));
            let args = [("base", base), ("status", &status), ("body", &said)];
            let message = fill(lang.says().not_a_bridge_health, &args);
            Problem::new("not-a-bridge", Some("bridgeUrl"), message)
        }
        _ => not_running(lang, base),
    })
}

/// Any token-protected route: the JSON body of a success, or the precise problem. `version`
/// is what `/health` gave beside it (`None`: it did not answer as our bridge); whether the
/// connection or this request failed is [`status::of_refused_route`]'s verdict.
pub fn authed_verdict(
    lang: Lang,
    base: &str,
    answer: &Result<Value, CallOutcome>,
    version: Option<&str>,
    token_empty: bool,
) -> Result<Value, Problem> {
    let says = lang.says();
    let said = said(answer, lang);
    let not_a_bridge = |status: u16| {
        let code = status.to_string();
        let args = [("base", base), ("status", &code), ("said", &said)];
        let message = fill(says.not_a_bridge_answer, &args);
        Problem::new("not-a-bridge", Some("bridgeUrl"), message)
    };
    let failed = match answer {
        Ok(v) if v.is_object() => return Ok(v.clone()),
        Ok(_) => return Err(not_a_bridge(200)),
        Err(o) => o,
    };
    match status::of_refused_route(version, failed, token_empty) {
        Some(Status::NotRunning) => Err(not_running(lang, base)),
        Some(Status::WrongAddress { status }) => Err(not_a_bridge(status)),
        // Our bridge answered `/health` but gave this route no answer: the browser hid its
        // refusal of the token.
        Some(_) if failed.status().is_none() => {
            let args = [("version", version.unwrap_or_default()), ("base", base)];
            let message = fill(says.hidden_refusal, &args);
            Err(Problem::new("wrong-token", Some("token"), message))
        }
        // One sentence in the user's words: what the bridge said is for developers.
        Some(_) => {
            let message = says.token_refused.to_string();
            Err(Problem::new("wrong-token", Some("token"), message))
        }
        None if failed.status() == Some(403) => {
            let message = fill(says.request_refused, &[("said", &said)]);
            Err(Problem::new("refused", None, message))
        }
        None => {
            let kind = match failed {
                CallOutcome::HttpError { detail, .. }
                    if !matches!(detail, ErrorDetail::Other { .. }) =>
                {
                    "bad-answer"
                }
                _ => "not-a-bridge",
            };
            let code = failed.status().unwrap_or(200).to_string();
            let args = [("status", code.as_str()), ("said", &said)];
            Err(Problem::new(kind, None, fill(says.bridge_answered, &args)))
        }
    }
}

/// The connection test's verdict shown in the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConnectionReport {
    pub url: String,
    pub version: String,
    pub services: Vec<ConnectionService>,
    pub running: usize,
    /// The verdict in one sentence.
    pub summary: String,
}

/// One server in the connection test's list, with its tool count in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionService {
    #[serde(flatten)]
    pub service: ServiceView,
    pub tool_count_text: Option<String>,
}

/// The connection test's verdict shown in the page.
pub fn connection_report(
    lang: Lang,
    version: &str,
    base: &str,
    services: Vec<ServiceView>,
) -> ConnectionReport {
    let running = services
        .iter()
        .filter(|s| ServerStatus::from_word(&s.status) == Some(ServerStatus::Running))
        .count();
    let servers = count_servers(lang, services.len() as u64);
    let summary = fill(
        lang.says().connection_ok,
        &[
            ("version", version),
            ("servers", &servers),
            ("running", &running.to_string()),
        ],
    );
    ConnectionReport {
        url: base.to_string(),
        version: version.to_string(),
        services: services
            .into_iter()
            .map(|service| ConnectionService {
                tool_count_text: service.tool_count.map(|n| count_tools(lang, n)),
                service,
            })
            .collect(),
        running,
        summary,
    }
}

/// What saving the connection did: the settings as stored, and what the test before found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavedConnection {
    pub settings: Value,
    pub connected: bool,
    /// One sentence: saved and connected, or saved and why the connection does not work yet.
    pub message: String,
}

/// The answer to saving the connection, from the test made before it (its summary, or why).
pub fn saved_connection(
    lang: Lang,
    settings: Value,
    test: Result<String, Problem>,
) -> SavedConnection {
    let says = lang.says();
    let (connected, message) = match test {
        Ok(summary) => (true, fill(says.saved_connected, &[("summary", &summary)])),
        Err(p) => (
            false,
            fill(says.saved_not_connected, &[("why", &p.message)]),
        ),
    };
    SavedConnection {
        settings,
        connected,
        message,
    }
}

/// The header's advice on the options page itself, where the status's general advice
/// ("paste it into Options") would point at the page the user is on: the two ways to
/// connect, with the command for the configured address. `None`: the status's own detail
/// stands (connected, a stranger at the address, or a pairing that failed with its reason).
pub fn header_detail(
    lang: Lang,
    status: &Status,
    note: &PairingNote,
    base: &str,
) -> Option<String> {
    if !status.wants_pairing() || matches!(note, PairingNote::Failed { .. }) {
        return None;
    }
    let command = start_command(base);
    Some(fill(
        lang.says().status_two_ways_here,
        &[("command", &command)],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BASE: &str = "http://127.0.0.1:3849";
    const EN: Lang = Lang::En;

    #[test]
    fn connection_verdicts_speak_chinese_too() {
        let e =
            health_verdict(Lang::Zh, BASE, &Err(CallOutcome::unreachable("refused"))).unwrap_err();
        assert!(e.message.contains("没有桥接服务响应"), "{}", e.message);
        assert!(e.message.contains("`mcp-bridge`"));
        let e = authed_verdict(Lang::Zh, BASE, &answered(401, ""), VERSION, false).unwrap_err();
        assert!(!e.message.contains("HTTP 401"), "{}", e.message);
        assert!(e.message.contains("令牌"), "{}", e.message);
        let e = check_connection_input(Lang::Zh, BASE, "  ").unwrap_err();
        assert!(e.message.contains("令牌为空"));
        assert!(check_connection_input(Lang::Zh, BASE, "").is_ok());
        let e = authed_verdict(
            Lang::Zh,
            BASE,
            &Err(CallOutcome::timeout(10_000)),
            VERSION,
            false,
        )
        .unwrap_err();
        assert!(e.message.contains("拒绝了这个令牌"), "{}", e.message);
    }

    /// What `/health` gave beside a route's answer: our bridge answered it.
    const VERSION: Option<&str> = Some("0.1.0");

    #[allow(clippy::result_large_err)]
    fn answered(status: u16, body: &str) -> Result<Value, CallOutcome> {
        crate::domain::outcome::json_answer(status, None, body.as_bytes())
    }

    #[test]
    fn client_outcomes_keep_status_and_detail() {
        let r = Err(crate::domain::outcome::from_http(
            401,
            None,
            br#"{"detail":{"error":"wrong token","type":"Unauthorized"}}"#,
        ));
        let e = authed_verdict(EN, BASE, &r, VERSION, false).unwrap_err();
        assert_eq!(e.kind, "wrong-token");
        assert!(e.message.contains("refused this token"), "{}", e.message);
        // No answer, and `/health` gave none either.
        let r = Err(CallOutcome::unreachable("Failed to fetch"));
        assert_eq!(
            authed_verdict(EN, BASE, &r, None, false).unwrap_err().kind,
            "not-running"
        );
        let r = Err(CallOutcome::timeout(10_000));
        assert_eq!(
            health_verdict(EN, BASE, &r).unwrap_err().kind,
            "not-running"
        );
        let r = Err(crate::domain::outcome::from_http(
            404,
            None,
            b"<html>nope</html>",
        ));
        assert_eq!(
            health_verdict(EN, BASE, &r).unwrap_err().kind,
            "not-a-bridge"
        );
        let r = Ok(json!({"status":"ok","version":"9"}));
        assert_eq!(health_verdict(EN, BASE, &r).unwrap(), "9");
    }

    #[test]
    fn form_input_is_checked_before_anything_is_sent() {
        assert_eq!(
            check_connection_input(EN, " http://127.0.0.1:3849/ ", "abc").unwrap(),
            (BASE.to_string(), "abc".to_string())
        );
        // A pasted token keeps the blanks around it out; blanks inside are still refused.
        assert_eq!(check_connection_input(EN, BASE, " abc\n").unwrap().1, "abc");
        let e = check_connection_input(EN, "http://example.com:3849", "abc").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("bridgeUrl"));
        let e = check_connection_input(EN, BASE, "  ").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("token"));
        assert!(e.message.contains("empty"));
        let e = check_connection_input(EN, BASE, "ab cd").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("token"));
    }

    #[test]
    fn a_refused_connection_says_how_to_start_the_bridge() {
        let e = health_verdict(
            EN,
            BASE,
            &Err(CallOutcome::unreachable("connection refused")),
        )
        .unwrap_err();
        assert_eq!(e.kind, "not-running");
        assert_eq!(
            e.message,
            "No bridge answers at http://127.0.0.1:3849. Start it in a terminal with `mcp-bridge`, then test again."
        );
        let e =
            authed_verdict(EN, BASE, &Err(CallOutcome::timeout(10_000)), None, false).unwrap_err();
        assert_eq!(e.kind, "not-running");
        // Another port: the command the user copies starts the bridge on it.
        let other = "http://localhost:4100";
        let e = health_verdict(EN, other, &Err(CallOutcome::unreachable("x"))).unwrap_err();
        assert!(
            e.message.contains("`mcp-bridge --port 4100`"),
            "{}",
            e.message
        );
        assert_eq!(start_command("http://127.0.0.1"), "mcp-bridge");
        assert_eq!(
            start_command("http://[::1]:5000/"),
            "mcp-bridge --port 5000"
        );
    }

    #[test]
    fn saving_the_connection_says_what_the_test_before_found() {
        let ok = saved_connection(
            EN,
            json!({"token": "t"}),
            Ok("Connected to bridge 1.0: 1 server, 1 running.".into()),
        );
        assert!(ok.connected);
        assert_eq!(
            ok.message,
            "Saved. Connected to bridge 1.0: 1 server, 1 running."
        );
        let refused = authed_verdict(EN, BASE, &answered(401, ""), VERSION, false).unwrap_err();
        let bad = saved_connection(EN, json!({}), Err(refused));
        assert!(!bad.connected);
        assert!(
            bad.message.starts_with(
                "Saved, but the connection does not work yet: The bridge refused this token"
            ),
            "{}",
            bad.message
        );
    }

    #[test]
    fn the_header_on_the_options_page_points_at_the_field_below_with_the_port() {
        let d = header_detail(
            EN,
            &Status::TokenMissing,
            &PairingNote::Absent,
            "http://127.0.0.1:4100",
        )
        .unwrap();
        assert!(d.contains("`mcp-bridge --port 4100`"), "{d}");
        assert!(d.contains("Token field"), "{d}");
        assert!(!d.contains("Options"), "{d}");
        let failed = PairingNote::Failed {
            reason: "r".into(),
            command: "c".into(),
        };
        assert_eq!(header_detail(EN, &Status::NotRunning, &failed, BASE), None);
        let connected = Status::Connected {
            version: "1".into(),
            servers: 1,
            tools: 1,
            failed: vec![],
        };
        assert_eq!(
            header_detail(EN, &connected, &PairingNote::None, BASE),
            None
        );
    }

    #[test]
    fn something_else_on_the_port_is_not_a_bridge() {
        for reply in [
            answered(200, "<html>hello</html>"),
            answered(404, r#"{"detail":"Not Found"}"#),
            answered(200, r#"{"status":"fine"}"#),
            answered(200, ""),
        ] {
            let e = health_verdict(EN, BASE, &reply).unwrap_err();
            assert_eq!(e.kind, "not-a-bridge", "{reply:?}");
            assert_eq!(e.field.as_deref(), Some("bridgeUrl"));
        }
        let e = health_verdict(EN, BASE, &answered(200, "")).unwrap_err();
        assert!(e.message.contains("an empty body"), "{}", e.message);
        assert_eq!(
            health_verdict(
                EN,
                BASE,
                &answered(200, r#"{"status":"ok","timestamp":1.5,"version":"0.1.0"}"#)
            )
            .unwrap(),
            "0.1.0"
        );
    }

    #[test]
    fn a_wrong_token_names_the_token_field() {
        let e = authed_verdict(
            EN,
            BASE,
            &answered(
                401,
                r#"{"detail":{"error":"missing or wrong token","type":"Unauthorized"}}"#,
            ),
            VERSION,
            false,
        )
        .unwrap_err();
        assert_eq!(e.kind, "wrong-token");
        assert_eq!(e.field.as_deref(), Some("token"));
        // One sentence in the user's words, whatever the bridge said.
        assert_eq!(
            e.message,
            "The bridge refused this token — copy it again from the bridge's window, or run `mcp-bridge install` to pair."
        );
        let e2 = authed_verdict(EN, BASE, &answered(401, ""), VERSION, false).unwrap_err();
        assert_eq!(e2.message, e.message);
    }

    #[test]
    fn a_hidden_refusal_after_a_healthy_bridge_points_at_the_token() {
        // Our bridge answered `/health`, but the route gave no answer the browser showed.
        let e = authed_verdict(
            EN,
            BASE,
            &Err(CallOutcome::unreachable("x")),
            VERSION,
            false,
        )
        .unwrap_err();
        assert_eq!(e.kind, "wrong-token");
        assert_eq!(e.field.as_deref(), Some("token"));
        assert!(e.message.contains("refused this token"), "{}", e.message);
        assert!(e.message.contains("0.1.0"));
    }

    #[test]
    fn other_errors_quote_the_detail_in_any_shape() {
        let e = authed_verdict(
            EN,
            BASE,
            &answered(403, r#"{"detail":"web origins are refused"}"#),
            VERSION,
            false,
        )
        .unwrap_err();
        assert_eq!(e.kind, "refused");
        assert!(e.message.contains("web origins are refused"));
        let e = authed_verdict(
            EN,
            BASE,
            &answered(
                422,
                r#"{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required"}]}"#,
            ),
            VERSION,
            false,
        )
        .unwrap_err();
        assert!(
            e.message.contains("body.name: Field required"),
            "{}",
            e.message
        );
        let e = authed_verdict(
            EN,
            BASE,
            &answered(502, "<h1>Bad Gateway</h1>"),
            VERSION,
            false,
        )
        .unwrap_err();
        assert_eq!(e.kind, "not-a-bridge");
        let e = authed_verdict(EN, BASE, &answered(200, "[1,2]"), VERSION, false).unwrap_err();
        assert_eq!(e.kind, "not-a-bridge");
    }
}
