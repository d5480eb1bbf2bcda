//! What every request handler shares: the servers, the failure counter, the long-poll calls,
//! the access rules and the call timeout.

use std::sync::Arc;
use std::time::Duration;

use crate::calls::CallRegistry;
use crate::counter::FailureCounter;
use crate::security::Security;
use crate::servers::Registry;

/// The application state, cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub servers: Arc<Registry>,
    pub counter: Arc<FailureCounter>,
    pub calls: Arc<CallRegistry>,
    pub security: Arc<Security>,
    /// The default per-call timeout (`--call-timeout`).
    pub call_timeout: Duration,
}

impl AppState {
    pub fn new(servers: Arc<Registry>, security: Security, call_timeout: Duration) -> Self {
        AppState {
            servers,
            counter: Arc::new(FailureCounter::default()),
            calls: Arc::new(CallRegistry::default()),
            security: Arc::new(security),
            call_timeout,
        }
    }
}
