//! The contract between the extension's core and the bridge, written once: both crates depend
//! on this one, so a word on the wire cannot mean one thing on one side and another on the
//! other. No wasm and no server dependencies; no internally tagged enums (serde's buffering of
//! those is the largest thing it can add to the wasm).

pub mod errors;
pub mod health;
pub mod rpc;
pub mod secrets;
pub mod server_def;
