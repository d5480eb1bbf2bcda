//! The bridge's HTTP API as the runtime uses it: which route, which body, which time limit,
//! and what every answer (or its absence) means as one [`CallOutcome`]. The request itself goes
//! through the [`Host`]; nothing here interprets bodies beyond that. The token goes only to a
//! server that proved it holds it (`domain::proof`), once per client, before its first request
//! with the token.

// An `CallOutcome` is the answer itself, made once per request: boxing the error side buys nothing.
#![allow(clippy::result_large_err)]

use super::host::{Host, HttpFailure, HttpRequest, HttpResponse, Method};
use crate::domain::outcome::{self, CallOutcome};
use crate::domain::proof::{self, Claim};
use mcp_bridge_protocol::errors::{ErrorAnswer, ErrorType};
use mcp_bridge_protocol::requests;
use serde_json::Value;
use std::cell::{Cell, RefCell};

/// Time allowed for quick routes (health, tools, history).
const QUICK_TIMEOUT_MS: u32 = 10_000;
/// Time allowed for the routes that change servers (stopping one may take a few seconds).
const ADMIN_TIMEOUT_MS: u32 = 30_000;
/// Slack on top of a long-poll's `wait` before the client gives up on the request.
const POLL_SLACK_MS: u32 = 8_000;
/// Without long-polling the bridge's own call timeout (120 s) governs.
const UNPOLLED_TIMEOUT_MS: u32 = 130_000;

/// What the server at the address proved, once asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Proved {
    NotYet,
    /// It holds our token: send it.
    Token,
    /// A `--no-auth` bridge, believed only while the extension holds no token: none is sent.
    NoAuth,
}

pub struct BridgeApiClient<'h, H: Host> {
    host: &'h H,
    base: String,
    token: String,
    proved: Cell<Proved>,
    /// The version `/health` gave when asked for the proof, if it answered as our bridge.
    version: RefCell<Option<String>>,
}

impl<'h, H: Host> BridgeApiClient<'h, H> {
    pub fn new(host: &'h H, base_url: &str, token: &str) -> Self {
        BridgeApiClient {
            host,
            base: base_url.trim_end_matches('/').to_string(),
            token: token.to_string(),
            proved: Cell::new(Proved::NotYet),
            version: RefCell::new(None),
        }
    }

    /// The bridge's version, once `/health` answered the proof's question in our bridge's
    /// shape (whether or not it proved it holds the token).
    pub fn version(&self) -> Option<String> {
        self.version.borrow().clone()
    }

    /// Whether the extension holds a token for this bridge.
    pub fn holds_token(&self) -> bool {
        !self.token.is_empty()
    }

    /// Asks the server at the address to prove it holds the token now, even when the
    /// extension has none (the connection's status wants to know who answers). `Err`: what to
    /// judge instead of an answer — nothing there, a stranger's answer, or a refusal to prove.
    pub async fn check(&self) -> Result<(), CallOutcome> {
        self.prove().await.map(|_| ())
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        json: Option<Value>,
        timeout_ms: u32,
    ) -> Result<HttpResponse, CallOutcome> {
        let bearer = if self.token.is_empty() || path == "/health" {
            None
        } else {
            match self.prove().await? {
                Proved::Token => Some(self.token.clone()),
                _ => None,
            }
        };
        self.plain(method, path, bearer, json, timeout_ms).await
    }

    async fn plain(
        &self,
        method: Method,
        path: &str,
        bearer: Option<String>,
        json: Option<Value>,
        timeout_ms: u32,
    ) -> Result<HttpResponse, CallOutcome> {
        let request = HttpRequest {
            method,
            url: format!("{}{path}", self.base),
            bearer,
            json,
            timeout_ms,
        };
        self.host.http(request).await.map_err(|t| match t {
            HttpFailure::TimedOut => CallOutcome::timeout(u64::from(timeout_ms)),
            HttpFailure::Unreachable(why) => CallOutcome::unreachable(why),
        })
    }

    /// Asks the server to prove it holds the token (once per client). `Err`: what to answer
    /// instead of sending the request — no answer, the stranger's own answer, or a refusal
    /// in the bridge's words when something answers like the bridge but cannot prove it.
    async fn prove(&self) -> Result<Proved, CallOutcome> {
        if self.proved.get() != Proved::NotYet {
            return Ok(self.proved.get());
        }
        let nonce = self.host.random_nonce();
        let path = proof::challenge_path(&nonce);
        let answer = self
            .plain(Method::Get, &path, None, None, QUICK_TIMEOUT_MS)
            .await?;
        let body = outcome::json_body(&answer.body);
        let claim = proof::claim(answer.status, body.as_ref());
        if claim != Claim::NotOurs {
            let version = body.as_ref().and_then(|b| b["version"].as_str());
            *self.version.borrow_mut() = version.map(str::to_owned);
        }
        let proved = match claim {
            Claim::NotOurs => {
                return Err(outcome::from_http(
                    answer.status,
                    answer.trace_id.as_deref(),
                    &answer.body,
                ));
            }
            // `"auth": "none"` proves nothing: believed only when we hold no token either.
            Claim::NoAuth if self.token.is_empty() => Proved::NoAuth,
            Claim::NoAuth | Claim::Unproved => return Err(unproved()),
            Claim::Proof(given) => {
                if !proof_holds(self.host, &self.base, &self.token, &nonce, &given).await {
                    return Err(unproved());
                }
                Proved::Token
            }
        };
        self.proved.set(proved);
        Ok(proved)
    }

    async fn outcome(
        &self,
        method: Method,
        path: &str,
        json: Option<Value>,
        ms: u32,
    ) -> CallOutcome {
        match self.send(method, path, json, ms).await {
            Ok(r) => outcome::from_http(r.status, r.trace_id.as_deref(), &r.body),
            Err(o) => o,
        }
    }

    async fn json(&self, path: &str) -> Result<Value, CallOutcome> {
        let r = self.send(Method::Get, path, None, QUICK_TIMEOUT_MS).await?;
        json_or_outcome(r)
    }

    /// `GET /health`'s JSON, or what went wrong.
    pub async fn health(&self) -> Result<Value, CallOutcome> {
        self.json("/health").await
    }

    /// `GET /tools`: the service list.
    pub async fn services(&self) -> Result<Value, CallOutcome> {
        self.json("/tools").await
    }

    /// `GET /history`: failure counters.
    pub async fn history(&self) -> Result<Value, CallOutcome> {
        self.json("/history").await
    }

    /// `GET /tools?serverName=S` as it came (for the tool-list report, which reads any
    /// shape); status 0 and no body when there was no answer.
    pub async fn service_tools_raw(&self, service: &str) -> HttpResponse {
        let path = format!("/tools?serverName={}", encode(service));
        self.send(Method::Get, &path, None, QUICK_TIMEOUT_MS)
            .await
            .unwrap_or_default()
    }

    /// `POST /reset-history` for all counters or one `server:tool`.
    pub async fn reset_history(
        &self,
        server: Option<&str>,
        tool: Option<&str>,
    ) -> Result<Value, CallOutcome> {
        let body = body(requests::ResetHistory {
            server_name: server,
            tool_name: tool,
        });
        let r = self
            .send(Method::Post, "/reset-history", body, QUICK_TIMEOUT_MS)
            .await?;
        json_or_outcome(r)
    }

    /// `POST /views`: the one-time address the `ui://` view `uri` of `server` is served from
    /// (`url`), or what went wrong.
    pub async fn keep_view(&self, server: &str, uri: &str) -> Result<Value, CallOutcome> {
        let uri = Value::from(uri);
        let body = body(requests::ReadResource {
            server_name: Some(server),
            uri: &uri,
        });
        let r = self
            .send(Method::Post, "/views", body, UNPOLLED_TIMEOUT_MS)
            .await?;
        json_or_outcome(r)
    }

    /// `GET /tools?serverName=S`: one server's tools, or what went wrong.
    pub async fn service_tools(&self, service: &str) -> Result<Value, CallOutcome> {
        self.json(&format!("/tools?serverName={}", encode(service)))
            .await
    }

    /// One server-management route (`/servers…`): its JSON answer, or what went wrong (a
    /// refusal keeps the bridge's `detail`, with the field it names).
    pub async fn manage(&self, call: ServerCall<'_>) -> Result<Value, CallOutcome> {
        let one = |name: &str| format!("/servers/{}", encode(name));
        let (method, path, body) = match call {
            ServerCall::List { reveal: None } => (Method::Get, "/servers".to_string(), None),
            ServerCall::List { reveal: Some(name) } => {
                let path = format!("/servers?reveal={}", encode(name));
                (Method::Get, path, None)
            }
            ServerCall::Restart { name } => (Method::Post, one(name) + "/restart", None),
            ServerCall::Enable { name, on } => (
                Method::Patch,
                one(name),
                body(requests::SetEnabled { enabled: on }),
            ),
            ServerCall::Put { name, entry, keep } => {
                let path = one(name) + if keep { "?keep_builtin=true" } else { "" };
                (Method::Put, path, Some(entry))
            }
            ServerCall::Delete { name } => (Method::Delete, one(name), None),
            ServerCall::SignIn { name } => (Method::Post, one(name) + "/sign-in", None),
            ServerCall::SignOut { name } => (Method::Post, one(name) + "/sign-out", None),
            ServerCall::Import { names } => {
                let body = body(requests::Import { from: None, names });
                (Method::Post, "/servers/import".to_string(), body)
            }
        };
        json_or_outcome(self.send(method, &path, body, ADMIN_TIMEOUT_MS).await?)
    }

    /// `POST /execute`. With `wait`, the bridge answers `202 pending` after that many
    /// seconds and the caller polls with [`BridgeApiClient::poll`].
    pub async fn execute(
        &self,
        tool: &str,
        arguments: &Value,
        server: Option<&str>,
        wait: Option<u32>,
    ) -> CallOutcome {
        self.execute_as(tool, arguments, server, wait, false).await
    }

    /// [`Self::execute`]; with `unmasked`, the bridge passes the result as the tool gave it
    /// (the user's choice for this tool).
    pub async fn execute_as(
        &self,
        tool: &str,
        arguments: &Value,
        server: Option<&str>,
        wait: Option<u32>,
        unmasked: bool,
    ) -> CallOutcome {
        let body = body(requests::Execute {
            name: tool,
            arguments,
            server_name: server,
            wait,
            unmasked,
        });
        let timeout_ms = wait.map_or(UNPOLLED_TIMEOUT_MS, |w| w * 1000 + POLL_SLACK_MS);
        self.outcome(Method::Post, "/execute", body, timeout_ms)
            .await
    }

    /// `POST /resources/read` for the `read_resource` pseudo-tool, answered as a tool result.
    pub async fn read_resource(&self, server: Option<&str>, uri: Value) -> CallOutcome {
        let body = body(requests::ReadResource {
            server_name: server,
            uri: &uri,
        });
        let path = "/resources/read";
        match self
            .send(Method::Post, path, body, UNPOLLED_TIMEOUT_MS)
            .await
        {
            Ok(r) => {
                let body = crate::domain::read_resource::as_tool_answer(&r.body);
                outcome::from_http(r.status, r.trace_id.as_deref(), &body)
            }
            Err(o) => o,
        }
    }

    /// A route of what the servers offer besides tools (`/prompts`, `/resources`,
    /// `/complete` …): its JSON when it succeeded; else the bridge's reason in its words, or
    /// the outcome that kept the request from the bridge.
    pub async fn offered(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, OfferRefused> {
        let r = self
            .send(method, path, body, UNPOLLED_TIMEOUT_MS)
            .await
            .map_err(|o| OfferRefused::NoAnswer(Box::new(o)))?;
        let json = outcome::json_body(&r.body);
        match json {
            Some(json) if (200..300).contains(&r.status) => Ok(json),
            _ if matches!(r.status, 401 | 403) => Err(OfferRefused::NoAnswer(Box::new(
                outcome::from_http(r.status, r.trace_id.as_deref(), &r.body),
            ))),
            _ => Err(OfferRefused::Said(
                crate::domain::call_activity::refusal(&r.body)
                    .unwrap_or_else(|| format!("HTTP {}", r.status)),
            )),
        }
    }

    /// `POST /calls/{id}/elicitation`: the user's answer to the server's question; `Err` with
    /// the bridge's reason when it refused it.
    pub async fn answer(
        &self,
        call_id: &str,
        answer: requests::ElicitationAnswer<'_>,
    ) -> Result<(), String> {
        let path = format!("/calls/{}/elicitation", encode(call_id));
        match self
            .send(Method::Post, &path, body(answer), QUICK_TIMEOUT_MS)
            .await
        {
            Ok(r) if (200..300).contains(&r.status) => Ok(()),
            Ok(r) => Err(crate::domain::call_activity::refusal(&r.body)
                .unwrap_or_else(|| format!("HTTP {}", r.status))),
            Err(_) => Err("the bridge did not answer".to_owned()),
        }
    }

    /// `GET /calls/{id}?wait=S`: the final answer, or `Pending` again. `seen`: the id of the
    /// server's question the float shows, so a different one ends the wait at once.
    pub async fn poll(&self, call_id: &str, wait: u32, seen: Option<&str>) -> CallOutcome {
        let mut path = format!("/calls/{}?wait={wait}", encode(call_id));
        if let Some(seen) = seen {
            path.push_str("&seen=");
            path.push_str(&encode(seen));
        }
        self.outcome(Method::Get, &path, None, wait * 1000 + POLL_SLACK_MS)
            .await
    }

    /// `DELETE /calls/{id}`; best effort (the call may have finished meanwhile).
    pub async fn cancel(&self, call_id: &str) {
        let path = format!("/calls/{}", encode(call_id));
        let _ = self
            .send(Method::Delete, &path, None, QUICK_TIMEOUT_MS)
            .await;
    }
}

/// Why a route of [`BridgeApiClient::offered`] gave nothing.
#[derive(Debug, Clone)]
pub enum OfferRefused {
    /// The bridge (or the server behind it) said why, in its words.
    Said(String),
    /// The request did not reach the bridge, or the bridge refused the extension or its token.
    NoAnswer(Box<CallOutcome>),
}

/// The bridge's routes that manage its MCP servers.
pub enum ServerCall<'a> {
    /// `GET /servers` (`?reveal=NAME`: that server's secrets unmasked).
    List { reveal: Option<&'a str> },
    /// `POST /servers/{name}/restart`.
    Restart { name: &'a str },
    /// `PATCH /servers/{name}` `{"enabled": …}`.
    Enable { name: &'a str, on: bool },
    /// `PUT /servers/{name}` with one `mcpServers` entry (added, or replacing the old one);
    /// with `keep`, the built-in demo server is written into the file too (`?keep_builtin`).
    Put {
        name: &'a str,
        entry: Value,
        keep: bool,
    },
    /// `DELETE /servers/{name}`.
    Delete { name: &'a str },
    /// `POST /servers/import`: without `names`, what would be imported; with them, those.
    Import { names: Option<&'a [String]> },
    /// `POST /servers/{name}/sign-in`.
    SignIn { name: &'a str },
    /// `POST /servers/{name}/sign-out`.
    SignOut { name: &'a str },
}

impl<'a> ServerCall<'a> {
    /// The server the call is about (empty for the list and the import).
    pub fn server(&self) -> &'a str {
        match self {
            ServerCall::List { reveal } => reveal.unwrap_or_default(),
            ServerCall::Restart { name }
            | ServerCall::Enable { name, .. }
            | ServerCall::Put { name, .. }
            | ServerCall::Delete { name }
            | ServerCall::SignIn { name }
            | ServerCall::SignOut { name } => name,
            ServerCall::Import { .. } => "",
        }
    }
}

/// Whether `given` proves that the server at `base` holds `token`, for `nonce`.
async fn proof_holds<H: Host>(host: &H, base: &str, token: &str, nonce: &str, given: &str) -> bool {
    let Some(port) = proof::port_of(base) else {
        return false;
    };
    match host.hmac_sha256(token, &proof::message(port, nonce)).await {
        Ok(expected) => proof::same(&expected, given),
        Err(why) => {
            host.log(
                super::host::Level::Error,
                &format!("cannot check the bridge's proof: {why}"),
            );
            false
        }
    }
}

/// The answer when the server at the address could not prove it holds the token: a refusal
/// of the token, as the bridge words one (the token was not sent).
fn unproved() -> CallOutcome {
    /// The two keys of the bridge's error object this refusal has.
    #[derive(serde::Serialize)]
    struct Refusal {
        error: &'static str,
        #[serde(rename = "type")]
        error_type: &'static str,
    }
    let body = ErrorAnswer {
        detail: Refusal {
            error: "The server at this address did not prove that it holds this token, so the token was not sent to it: another program listens there, or the bridge was started with another token.",
            error_type: ErrorType::Unauthorized.as_str(),
        },
    };
    let body = serde_json::to_vec(&body).unwrap_or_default();
    outcome::from_http(401, None, &body)
}

/// A request's body as JSON (the host sends a `Value`).
pub fn body(request: impl serde::Serialize) -> Option<Value> {
    serde_json::to_value(request).ok()
}

fn json_or_outcome(r: HttpResponse) -> Result<Value, CallOutcome> {
    outcome::json_answer(r.status, r.trace_id.as_deref(), &r.body)
}

/// Percent-encodes a query or path component as `encodeURIComponent` does.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn encodes_like_encode_uri_component() {
        assert_eq!(encode("time"), "time");
        assert_eq!(encode("a b/c?d&e=f"), "a%20b%2Fc%3Fd%26e%3Df");
        assert_eq!(encode("时间"), "%E6%97%B6%E9%97%B4");
        assert_eq!(encode("-_.!~*'()"), "-_.!~*'()");
    }
}
