//! The background's message dispatcher: parses a message against the contract for the
//! origin the browser vouches for, and hands it to the chat loop (tabs) or the options
//! backend (extension pages).

use super::chat::ChatLoop;
use super::host::Host;
use super::options::OptionsBackend;
use super::store::Store;
use crate::domain::messages::{Incoming, Origin, Response, TabRequest, parse_incoming};
use std::cell::Cell;
use std::rc::Rc;

/// Everything one worker runs: the chat loop and the options backend over one store.
pub struct Background<H: Host> {
    store: Rc<Store<H>>,
    chat: Rc<ChatLoop<H>>,
    options: OptionsBackend<H>,
    migrated: Cell<bool>,
}

impl<H: Host> Background<H> {
    pub fn new(host: H) -> Self {
        let store = Rc::new(Store::new(host.clone()));
        Background {
            chat: ChatLoop::new(host.clone(), Rc::clone(&store)),
            options: OptionsBackend::new(host, Rc::clone(&store)),
            store,
            migrated: Cell::new(false),
        }
    }

    /// Answers one message. `origin` and `tab` come from the browser, never the message.
    pub async fn handle(&self, message: &str, origin: Origin, tab: Option<i32>) -> Response {
        let incoming = parse_incoming(message, origin);
        // A ping reads nothing, so it does not wait for the migration: it is what a woken
        // worker answers first.
        if let Ok(Incoming::Tab(TabRequest::Ping)) = incoming {
            return Response::pong();
        }
        if !self.migrated.replace(true) {
            self.store.migrate().await;
        }
        match incoming {
            Ok(Incoming::Tab(req)) => match tab {
                Some(tab) => self.chat.handle(tab, req).await,
                None => Response::error("chat messages must come from a tab"),
            },
            Ok(Incoming::Page(req)) => self.options.handle(req).await,
            Err(message) => Response::error(message),
        }
    }
}
