//! The watch of a held call: the bridge checked with a growing pause until it can take the
//! call, and the float kept saying what still keeps it out.

use super::ChatLoop;
use crate::domain::float;
use crate::domain::setup::setup_problem;
use crate::domain::tab_events::Event;
use crate::domain::tab_state::{Phase, server_running as running};
use crate::runtime::host::Host;
use std::rc::Rc;

/// The first wait between two checks of the bridge for a held call, and the longest.
const HELD_FIRST_WAIT_MS: u32 = 250;
const HELD_MAX_WAIT_MS: u32 = 2000;

impl<H: Host> ChatLoop<H> {
    /// Checks the bridge — an authenticated route, so a wrong token counts as not ready —
    /// with a growing pause of at most [`HELD_MAX_WAIT_MS`], and once it answers hands
    /// [`Event::BridgeBack`] to the tab's queue, which runs (or judges) the held call if it
    /// is still held. Stops when the user told the AI or skipped the call. Each check reads
    /// the tab's stored state, which also keeps the browser from ending an idle worker.
    pub(super) async fn watch_held(self: Rc<Self>, tab: i32) {
        if !self.watching.insert(tab) {
            return;
        }
        let mut wait = HELD_FIRST_WAIT_MS;
        let mut told: Option<float::Setup> = None;
        let mut asked_host = false;
        loop {
            self.host.sleep(wait).await;
            wait = (wait * 2).min(HELD_MAX_WAIT_MS);
            let Phase::Held { call, problem, .. } = self.store.tab(tab).await.phase else {
                break;
            };
            let settings = self.store.chat_settings().await;
            let outcome = match self.client(&settings).services().await {
                // A sign-in is awaited: the bridge answers all along, so the call waits
                // until the server runs (the callback restarts it with the tokens).
                Ok(services)
                    if problem
                        .sign_in_server()
                        .is_some_and(|server| !running(&services, server)) =>
                {
                    continue;
                }
                Ok(_) => {
                    self.watching.remove(tab);
                    self.event(tab, &settings, Event::BridgeBack).await;
                    return;
                }
                Err(outcome) => outcome,
            };
            // No token, a refused one or no bridge: the native host may know the token and
            // start the bridge. Asked once per watch; the next check finds out.
            let why = setup_problem(&outcome, &settings);
            if why.is_some() && !asked_host {
                asked_host = true;
                if crate::runtime::pairing::pair(&self.host, &self.store)
                    .await
                    .is_ok()
                {
                    wait = HELD_FIRST_WAIT_MS;
                    continue;
                }
            }
            // The problem may change while the user fixes it (the bridge starts, but the
            // token is still wrong): the float says the current one.
            if why.is_some() && why != told {
                if let Some(problem) = &why {
                    let f = float::held(self.ui(), &call.tool_name, problem);
                    self.show(tab, f).await;
                }
                told = why;
            }
        }
        self.watching.remove(tab);
    }
}
