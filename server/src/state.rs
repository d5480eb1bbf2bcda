//! What every request handler shares: the servers, the failure counter, the long-poll calls,
//! the kept large results, the access rules, the call timeout and the config file's manager.

use std::sync::Arc;
use std::time::Duration;

use crate::calls::CallRegistry;
use crate::calls::counter::FailureCounter;
use crate::calls::results::{Limits, ResultStore};
use crate::config::manage::Manager;
use crate::security::Security;
use crate::servers::Registry;
use crate::views::Views;

/// The application state, cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub(crate) servers: Arc<Registry>,
    pub(crate) counter: Arc<FailureCounter>,
    pub(crate) calls: Arc<CallRegistry>,
    /// Large results, kept to be read page by page.
    pub(crate) results: Arc<ResultStore>,
    pub(crate) security: Arc<Security>,
    /// The default per-call timeout (`--call-timeout`).
    pub(crate) call_timeout: Duration,
    /// The config file, for the routes that manage servers (none: they are unavailable).
    pub(crate) manager: Option<Arc<Manager>>,
    /// MCP App views waiting for their frames.
    pub(crate) views: Arc<Views>,
}

impl AppState {
    pub fn new(servers: Arc<Registry>, security: Security, call_timeout: Duration) -> Self {
        AppState {
            servers,
            counter: Arc::new(FailureCounter::default()),
            calls: Arc::new(CallRegistry::default()),
            results: Arc::new(ResultStore::new(Limits::default())),
            security: Arc::new(security),
            call_timeout,
            manager: None,
            views: Arc::new(Views::default()),
        }
    }

    /// The same state managing the config file through `manager`.
    pub fn with_manager(mut self, manager: Arc<Manager>) -> Self {
        self.manager = Some(manager);
        self
    }

    /// The same state with a result store of these limits.
    pub fn with_result_limits(mut self, limits: Limits) -> Self {
        self.results = Arc::new(ResultStore::new(limits));
        self
    }
}
