//! The extension's runtime over the host seam: the chat loop, the options backend and the
//! worker's errands, siblings over one store, and the bridge's HTTP API. Nothing here touches the browser;
//! it compiles natively and its every decision is tested with an in-memory host.

pub mod bridge_client;
pub mod chat;
pub mod dispatch;
pub mod errands;
pub mod host;
pub mod options;
pub mod pairing;
pub mod site_list;
pub mod store;
