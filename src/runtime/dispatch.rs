//! Who answers a message: the background's [`Background`] (the chat loop, for chat tabs)
//! or the pages' core, [`Pages`]: an extension page's own backend (the options page), and
//! in the worker, started on first use, the worker's occasional work
//! ([`super::errands`]). Each parses the message against the contract for the origin the
//! browser vouches for. The two never run in the same wasm build (docs/ARCHITECTURE.md,
//! "Two builds of the core"), so a woken worker loads and compiles only the chat loop.

use super::chat::ChatLoop;
use super::errands::Errands;
use super::host::Host;
use super::options::OptionsBackend;
use super::store::Store;
use crate::domain::messages::{Incoming, Origin, Response, TabRequest, parse_incoming};
use std::cell::Cell;
use std::rc::Rc;

/// What the background worker runs: the chat loop over the store.
pub struct Background<H: Host> {
    opening: Opening<H>,
    chat: Rc<ChatLoop<H>>,
}

/// How the worker answers a message. Returned once per message and taken apart at once, so
/// the answer is not boxed.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Reply {
    /// With this answer.
    Answer(Response),
    /// Not itself: the message is an errand ([`TabRequest::is_errand`]) from chat tab `tab`,
    /// checked against the contract; the pages' core answers it ([`Pages::errand`]).
    HandOver { tab: i32 },
}

impl<H: Host> Background<H> {
    pub fn new(host: H) -> Self {
        let store = Rc::new(Store::new(host.clone()));
        Background {
            chat: ChatLoop::new(host, Rc::clone(&store)),
            opening: Opening::new(store),
        }
    }

    /// Answers one message, or says the pages' core does. `origin` and `tab` come from the
    /// browser, never the message.
    pub async fn handle(&self, message: &str, origin: Origin, tab: Option<i32>) -> Reply {
        let Some(incoming) = self.opening.open(message, origin).await else {
            return Reply::Answer(Response::pong());
        };
        Reply::Answer(match incoming {
            Ok(Incoming::Tab(req)) => match tab {
                Some(tab) if req.is_errand() => return Reply::HandOver { tab },
                Some(tab) => self.chat.handle(tab, req).await,
                None => Response::error("chat messages must come from a tab"),
            },
            Ok(Incoming::Page(_)) => {
                Response::error(crate::domain::messages::PAGE_REQUEST_IN_WORKER)
            }
            Err(message) => Response::error(message),
        })
    }
}

/// What an extension page (options, popup) runs in its own copy of the core: the options
/// backend over the same storage the worker uses. The worker runs one too, for its errands
/// and alarms.
pub struct Pages<H: Host> {
    opening: Opening<H>,
    options: OptionsBackend<H>,
    errands: Errands<H>,
}

impl<H: Host> Pages<H> {
    pub fn new(host: H) -> Self {
        let store = Rc::new(Store::new(host.clone()));
        Pages {
            options: OptionsBackend::new(host.clone(), Rc::clone(&store)),
            errands: Errands::new(host, Rc::clone(&store)),
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

    /// Answers an errand the worker handed over ([`Reply::HandOver`]): `message` as the
    /// content script of chat tab `tab` sent it, read again against the same contract.
    pub async fn errand(&self, message: &str, tab: i32) -> Response {
        let incoming = self.opening.open(message, Origin::ContentScript).await;
        match incoming {
            Some(Ok(Incoming::Tab(req))) if req.is_errand() => self.errands.handle(tab, req).await,
            Some(Err(message)) => Response::error(message),
            _ => Response::error("not a request the pages' core answers"),
        }
    }

    /// One of the worker's alarms went off (the worker hands them to its pages' core).
    pub async fn alarm(&self, name: &str) {
        self.errands.alarm(name).await;
    }

    /// Writes a failed call's report and keeps its record in the error log: `failed` is what
    /// the worker's chat loop handed over ([`super::host::Host::report_failure`]).
    pub async fn report_failure(&self, failed: &str) -> Result<String, String> {
        self.errands.report_failure(failed).await
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
