//! Who answers a message: in the background worker, [`Background`] (the chat loop and its
//! occasional work, [`super::errands`], for chat tabs); in an extension page (options,
//! popup), [`Pages`], the page's own backend. Both are the same wasm build of the core;
//! each parses the message against the contract for the origin the browser vouches for.

use super::chat::ChatLoop;
use super::errands::Errands;
use super::host::Host;
use super::options::OptionsBackend;
use super::store::Store;
use crate::domain::messages::{Incoming, Origin, Response, TabRequest, parse_incoming};
use std::cell::Cell;
use std::rc::Rc;

/// What the background worker runs: the chat loop and the errands over one store.
pub struct Background<H: Host> {
    opening: Opening<H>,
    chat: Rc<ChatLoop<H>>,
    errands: Errands<H>,
}

impl<H: Host> Background<H> {
    pub fn new(host: H) -> Self {
        let store = Rc::new(Store::new(host.clone()));
        Background {
            chat: ChatLoop::new(host.clone(), Rc::clone(&store)),
            errands: Errands::new(host, Rc::clone(&store)),
            opening: Opening::new(store),
        }
    }

    /// Answers one message. `origin` and `tab` come from the browser, never the message.
    pub async fn handle(&self, message: &str, origin: Origin, tab: Option<i32>) -> Response {
        let Some(incoming) = self.opening.open(message, origin).await else {
            return Response::pong();
        };
        match incoming {
            Ok(Incoming::Tab(req)) => match tab {
                Some(tab) if req.is_errand() => self.errands.handle(tab, req).await,
                Some(tab) => self.chat.handle(tab, req).await,
                None => Response::error("chat messages must come from a tab"),
            },
            Ok(Incoming::Page(_)) => {
                Response::error(crate::domain::messages::PAGE_REQUEST_IN_WORKER)
            }
            Err(message) => Response::error(message),
        }
    }

    /// One of the worker's alarms went off.
    pub async fn alarm(&self, name: &str) {
        self.errands.alarm(name).await;
    }
}

/// What an extension page (options, popup) runs in its own instance of the core: the
/// options backend over the same storage the worker uses.
pub struct Pages<H: Host> {
    opening: Opening<H>,
    options: OptionsBackend<H>,
}

impl<H: Host> Pages<H> {
    pub fn new(host: H) -> Self {
        let store = Rc::new(Store::new(host.clone()));
        Pages {
            options: OptionsBackend::new(host, Rc::clone(&store)),
            opening: Opening::new(store),
        }
    }

    /// Answers one request of the page that loaded this core.
    pub async fn handle(&self, message: &str) -> Response {
        let Some(incoming) = self.opening.open(message, Origin::ExtensionPage).await else {
            return Response::pong();
        };
        match incoming {
            Ok(Incoming::Page(req)) => self.options.handle(req).await,
            Ok(Incoming::Tab(_)) => Response::error("not a request an extension page makes"),
            Err(message) => Response::error(message),
        }
    }
}

/// What both answerers do first with a message.
struct Opening<H: Host> {
    store: Rc<Store<H>>,
    migrated: Cell<bool>,
}

impl<H: Host> Opening<H> {
    fn new(store: Rc<Store<H>>) -> Self {
        Opening {
            store,
            migrated: Cell::new(false),
        }
    }

    /// Parses `message` against the contract for `origin`; `None` for a ping. Before any
    /// other message, brings storage up to this build's schema, once per instance (it is
    /// idempotent, so the worker and a page may both run it). A ping reads nothing, so it
    /// does not wait for the migration: it is what a woken worker answers first.
    async fn open(&self, message: &str, origin: Origin) -> Option<Result<Incoming, String>> {
        let incoming = parse_incoming(message, origin);
        if let Ok(Incoming::Tab(TabRequest::Ping)) = incoming {
            return None;
        }
        if !self.migrated.replace(true) {
            self.store.migrate().await;
        }
        Some(incoming)
    }
}
