//! The HTTP edge to the bridge (gloo-net; runs in the background service worker, where
//! there is no `window` — gloo-net ≥ 0.6 uses the global `fetch`). Every answer, or its
//! absence, becomes one [`Outcome`]; nothing here interprets bodies beyond that.

use crate::outcome::{self, Outcome};
use gloo_net::http::{Request, RequestBuilder};
use serde_json::{Value, json};

/// Time allowed for quick routes (health, tools, history).
const QUICK_TIMEOUT_MS: u32 = 10_000;
/// Slack on top of a long-poll's `wait` before the client gives up on the request.
const POLL_SLACK_MS: u32 = 8_000;

pub struct BridgeClient {
    base: String,
    token: String,
}

/// A raw answer: status (0 when there was none), the `X-Trace-Id` header, the body.
pub struct Raw {
    pub status: u16,
    pub trace_id: Option<String>,
    pub body: Vec<u8>,
}

impl BridgeClient {
    pub fn new(base_url: &str, token: &str) -> BridgeClient {
        BridgeClient {
            base: base_url.trim_end_matches('/').to_string(),
            token: token.to_string(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn auth(&self, req: RequestBuilder) -> RequestBuilder {
        if self.token.is_empty() {
            req
        } else {
            req.header("Authorization", &format!("Bearer {}", self.token))
        }
    }

    /// Sends a request with a time limit and turns transport failures into outcomes.
    async fn send(
        &self,
        req: Result<Request, gloo_net::Error>,
        timeout_ms: u32,
    ) -> Result<Raw, Outcome> {
        let req = req.map_err(|e| Outcome::unreachable(e.to_string()))?;
        let resp = req
            .send()
            .await
            .map_err(|e| transport_failure(&e, timeout_ms))?;
        let status = resp.status();
        let trace_id = resp.headers().get("x-trace-id");
        let body = resp.binary().await.unwrap_or_default();
        Ok(Raw {
            status,
            trace_id,
            body,
        })
    }

    async fn get(&self, path: &str, timeout_ms: u32) -> Result<Raw, Outcome> {
        let req = self
            .auth(Request::get(&self.url(path)))
            .abort_signal(Some(&timeout_signal(timeout_ms)))
            .build();
        self.send(req, timeout_ms).await
    }

    async fn post(&self, path: &str, body: &Value, timeout_ms: u32) -> Result<Raw, Outcome> {
        let req = self
            .auth(Request::post(&self.url(path)))
            .abort_signal(Some(&timeout_signal(timeout_ms)))
            .json(body);
        self.send(req, timeout_ms).await
    }

    /// `GET /health` as an outcome (`Unreachable` when the bridge is not running).
    pub async fn health_outcome(&self) -> Outcome {
        match self.get("/health", QUICK_TIMEOUT_MS).await {
            Ok(raw) => outcome::from_http(raw.status, raw.trace_id.as_deref(), &raw.body),
            Err(o) => o,
        }
    }

    /// `GET /health`'s JSON, or what went wrong.
    pub async fn health(&self) -> Result<Value, Outcome> {
        self.json("/health").await
    }

    /// `GET /tools`: the service list.
    pub async fn services(&self) -> Result<Value, Outcome> {
        self.json("/tools").await
    }

    /// `GET /history`: failure counters.
    pub async fn history(&self) -> Result<Value, Outcome> {
        self.json("/history").await
    }

    /// `GET /tools?serverName=S` as it came (for the tool-list report, which reads any shape).
    pub async fn service_tools_raw(&self, service: &str) -> (u16, Option<String>, Vec<u8>) {
        let path = format!("/tools?serverName={}", encode(service));
        match self.get(&path, QUICK_TIMEOUT_MS).await {
            Ok(raw) => (raw.status, raw.trace_id, raw.body),
            Err(_) => (0, None, Vec::new()),
        }
    }

    /// `POST /reset-history` for all counters or one `server:tool`.
    pub async fn reset_history(
        &self,
        server: Option<&str>,
        tool: Option<&str>,
    ) -> Result<Value, Outcome> {
        let mut body = json!({});
        if let Some(s) = server {
            body["serverName"] = json!(s);
        }
        if let Some(t) = tool {
            body["toolName"] = json!(t);
        }
        let raw = self.post("/reset-history", &body, QUICK_TIMEOUT_MS).await?;
        json_or_outcome(raw)
    }

    /// `POST /execute`. With `wait`, the bridge answers `202 pending` after that many
    /// seconds and the caller polls with [`BridgeClient::poll`].
    pub async fn execute(
        &self,
        tool: &str,
        arguments: &Value,
        server: Option<&str>,
        wait: Option<u32>,
    ) -> Outcome {
        let mut body = json!({ "name": tool, "arguments": arguments });
        if let Some(s) = server {
            body["serverName"] = json!(s);
        }
        let timeout_ms = match wait {
            Some(w) => {
                body["wait"] = json!(w);
                w * 1000 + POLL_SLACK_MS
            }
            // Without long-polling the bridge's own call timeout (120 s) governs.
            None => 130_000,
        };
        match self.post("/execute", &body, timeout_ms).await {
            Ok(raw) => outcome::from_http(raw.status, raw.trace_id.as_deref(), &raw.body),
            Err(o) => o,
        }
    }

    /// `GET /calls/{id}?wait=S`: the final answer, or `Pending` again.
    pub async fn poll(&self, call_id: &str, wait: u32) -> Outcome {
        let path = format!("/calls/{}?wait={wait}", encode(call_id));
        match self.get(&path, wait * 1000 + POLL_SLACK_MS).await {
            Ok(raw) => outcome::from_http(raw.status, raw.trace_id.as_deref(), &raw.body),
            Err(o) => o,
        }
    }

    /// `DELETE /calls/{id}`; best effort (the call may have finished meanwhile).
    pub async fn cancel(&self, call_id: &str) {
        let req = self
            .auth(Request::delete(
                &self.url(&format!("/calls/{}", encode(call_id))),
            ))
            .abort_signal(Some(&timeout_signal(QUICK_TIMEOUT_MS)))
            .build();
        let _ = self.send(req, QUICK_TIMEOUT_MS).await;
    }

    async fn json(&self, path: &str) -> Result<Value, Outcome> {
        let raw = self.get(path, QUICK_TIMEOUT_MS).await?;
        json_or_outcome(raw)
    }
}

/// A 2xx JSON body as JSON; anything else as the outcome that describes it.
fn json_or_outcome(raw: Raw) -> Result<Value, Outcome> {
    if (200..300).contains(&raw.status)
        && let Some(v) = outcome::json_body(&raw.body)
    {
        return Ok(v);
    }
    Err(outcome::from_http(
        raw.status,
        raw.trace_id.as_deref(),
        &raw.body,
    ))
}

fn timeout_signal(ms: u32) -> web_sys::AbortSignal {
    web_sys::AbortSignal::timeout_with_u32(ms)
}

/// `fetch` rejects with a `TimeoutError` when our signal fired (Chromium) — or with an
/// `AbortError` (Firefox 153 ESR, found by `tests/web_client.rs`); a `TypeError` when there
/// was no connection (bridge not running, wrong port). The only signal attached here is the
/// timeout signal, so both abort names mean "timed out"; a user's stop is a `DELETE
/// /calls/{id}` by the chat loop, not an aborted fetch.
fn transport_failure(e: &gloo_net::Error, timeout_ms: u32) -> Outcome {
    match e {
        gloo_net::Error::JsError(js) if js.name == "TimeoutError" || js.name == "AbortError" => {
            Outcome::timeout(u64::from(timeout_ms))
        }
        other => Outcome::unreachable(other.to_string()),
    }
}

/// Percent-encodes a query or path component.
fn encode(s: &str) -> String {
    String::from(js_sys::encode_uri_component(s))
}
