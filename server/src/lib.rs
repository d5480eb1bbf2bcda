//! MCP Bridge's local HTTP service: runs the user's MCP servers and executes their tools for
//! the browser extension, with the API of the original Python bridge (see docs/ARCHITECTURE.md, "Bridge API").

pub mod calls;
pub mod cli;
pub mod config;
pub mod error;
pub mod execute;
pub mod logging;
pub mod options;
pub mod pairing;
pub mod proof;
pub mod redact;
pub mod routes;
pub mod security;
pub mod serve;
pub mod servers;
pub mod state;
pub mod token;
pub mod trace;
pub mod validation;

pub use error::BridgeError;
pub use state::AppState;

use axum::Router;

/// The whole HTTP application, ready for `axum::serve` or for `tower::ServiceExt::oneshot`.
pub fn app(state: AppState) -> Router {
    routes::router(state)
}

/// The version reported by `/health` and `--version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
