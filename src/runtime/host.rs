//! The host seam: everything the runtime needs from the browser, as one trait. The wasm
//! build implements it over `chrome.*` and `fetch` (`crate::web::WebHost`); native tests
//! implement it in memory, so the chat loop's every decision runs under `cargo test`.

use crate::domain::messages::{Command, CommandResult};
use serde_json::Value;
use std::future::Future;

/// Which storage area: `Local` survives browser restarts; `Session` survives only
/// service-worker restarts (and is never written to disk).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Area {
    Local,
    Session,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

/// One request to the bridge. The host adds nothing: the bearer header, the JSON body and
/// the time limit are all here.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    /// Sent as `Authorization: Bearer …` when present.
    pub bearer: Option<String>,
    /// Sent as `application/json` when present.
    pub json: Option<Value>,
    /// The host gives up on the request after this long.
    pub timeout_ms: u32,
}

/// An answer, whatever its status.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HttpResponse {
    pub status: u16,
    /// The bridge's `X-Trace-Id` header.
    pub trace_id: Option<String>,
    pub body: Vec<u8>,
}

/// Why a request got no answer at all.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpFailure {
    /// The time limit ran out.
    TimedOut,
    /// No connection (bridge not running, wrong port) or a refused request, in words.
    Unreachable(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Warn,
    Error,
}

/// What the runtime needs from the browser. One instance per worker; cloning is cheap and
/// every clone reaches the same browser (or the same in-memory world in tests).
// The runtime is single-threaded (a service worker, or a local executor in tests), so the
// futures need not be `Send`: the lint about `async fn` in public traits does not apply.
#[allow(async_fn_in_trait)]
pub trait Host: Clone + 'static {
    /// One key's stored value; `Ok(None)` when unset.
    async fn storage_get(&self, area: Area, key: &str) -> Result<Option<Value>, String>;
    /// Stores `json`, the JSON text of a value (text, so that the wasm build serializes each
    /// stored type once, straight to text, and the browser parses it).
    async fn storage_set(&self, area: Area, key: &str, json: String) -> Result<(), String>;

    /// Sends a command to a tab's content script; its answer, or why there was none.
    async fn tab_command(&self, tab: i32, command: &Command) -> Result<CommandResult, String>;

    /// One HTTP request to the bridge.
    async fn http(&self, request: HttpRequest) -> Result<HttpResponse, HttpFailure>;

    /// The text of one of the extension's own files (`sites/index.json` …).
    async fn own_file(&self, path: &str) -> Option<String>;

    async fn open_options_page(&self) -> Result<(), String>;

    /// Whether the user granted the extension these host origins.
    async fn origins_granted(&self, origins: &[String]) -> bool;
    /// Registers the content script (`sites::CONTENT_SCRIPTS`) on `origins` under `id`, kept
    /// across browser restarts.
    async fn register_content_script(&self, id: &str, origins: &[String]) -> Result<(), String>;
    /// Removes a registered script; a missing id is not an error.
    async fn unregister_content_script(&self, id: &str);

    /// Checks an Ed25519 `signature` (base64) of `signed` against `public_key` (base64 of
    /// the 32 raw bytes): `Ok(false)` for a signature that does not match (or is not even
    /// base64), `Err` with the browser's words when it cannot check Ed25519 at all.
    async fn verify_signature(
        &self,
        public_key: &str,
        signed: &[u8],
        signature: &str,
    ) -> Result<bool, String>;

    /// Asks our native messaging host (`mcp-bridge install` registers it) for the bridge's
    /// address and token: its JSON answer, or why there was none (no host registered, the
    /// permission missing, the host crashed).
    async fn native_pair(&self) -> Result<Value, String>;

    /// HMAC-SHA256 of `message` under `key`, in lowercase hex (WebCrypto in the browser):
    /// checks the bridge's proof that it holds the token (`domain::proof`).
    async fn hmac_sha256(&self, key: &str, message: &str) -> Result<String, String>;
    /// A fresh nonce: 16 bytes from the browser's cryptographic random source, in hex.
    fn random_nonce(&self) -> String;

    /// Resolves after `ms` milliseconds.
    async fn sleep(&self, ms: u32);

    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// The browser's UI language (`zh-CN`, `en-US` …).
    fn ui_language(&self) -> String;
    /// Runs a task in the background of this worker.
    fn spawn(&self, task: impl Future<Output = ()> + 'static);
    /// The developer console.
    fn log(&self, level: Level, message: &str);
}
