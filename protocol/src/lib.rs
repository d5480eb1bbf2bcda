//! The contract between the extension's core and the bridge, written once: both crates depend
//! on this one, so a word on the wire cannot mean one thing on one side and another on the
//! other. No wasm and no server dependencies; no internally tagged enums (serde's buffering of
//! those is the largest thing it can add to the wasm).

pub mod answers;
pub mod errors;
pub mod health;
pub mod pairing;
pub mod requests;
pub mod rpc;
pub mod secrets;
pub mod server_def;

/// The port the bridge listens on unless told otherwise, the one the extension tries first.
pub const DEFAULT_PORT: u16 = 3849;

/// The bridge's own tool that reads a large result page by page.
pub const READ_RESULT: &str = "read_result";
