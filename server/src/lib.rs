//! MCP Bridge's local HTTP service: runs the user's MCP servers and executes their tools for
//! the browser extension, with the API of the original Python bridge (see docs/BRIDGE.md, "Bridge API").

mod calls;
pub mod cli;
pub mod config;
mod error;
mod execute;
mod http_client;
mod logging;
mod names;
mod oauth;
mod options;
pub mod pairing;
pub mod proof;
pub mod redact;
mod routes;
pub mod security;
mod serve;
pub mod servers;
mod state;
mod token;
mod trace;
mod validation;
mod views;

pub use calls::results::Limits as ResultLimits;
pub use state::AppState;

use axum::Router;

/// The whole HTTP application, ready for `axum::serve` or for `tower::ServiceExt::oneshot`.
pub fn app(state: AppState) -> Router {
    routes::router(state)
}

/// The version reported by `/health` and `--version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
