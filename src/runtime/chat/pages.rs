//! A page's own reports: the page opening (its site config, the float it starts with, the
//! connection check beside it) and its newest answer changing.

use super::ChatLoop;
use crate::domain::float;
use crate::domain::i18n::fill;
use crate::domain::messages::Response;
use crate::domain::report::Lang;
use crate::domain::report::text::Address;
use crate::domain::settings::{Settings, SiteScope};
use crate::domain::sites::{SiteConfig, host_of};
use crate::domain::status::Status;
use crate::domain::tab_events::Event;
use crate::domain::tab_state::{Phase, Update};
use crate::runtime::host::Host;
use std::rc::Rc;

impl<H: Host> ChatLoop<H> {
    /// The config for a page: the user's own, the subscribed list's, or the shipped one.
    pub(super) async fn site_for(&self, url: &str) -> Option<SiteConfig> {
        // Boxed as `dyn`: one copy of the three storage reads, not one inlined into every
        // caller's state machine (about 3 KB of the worker's wasm).
        let host = host_of(url);
        let find: std::pin::Pin<Box<dyn std::future::Future<Output = Option<SiteConfig>> + '_>> =
            Box::pin(self.store.site_for_host(&host));
        find.await
    }

    /// The site as far as its policies go: one the user turned on themselves (a custom site
    /// that overrides no shipped one) is [`SiteScope::own`].
    async fn scope_of(&self, site: &SiteConfig) -> SiteScope {
        let custom = self.store.custom_sites().await;
        let builtin = self.store.builtin_sites().await;
        let own = custom
            .0
            .iter()
            .any(|c| c.id == site.id && !crate::domain::custom_sites::is_override(c, &builtin));
        SiteScope {
            id: site.id.clone(),
            name: site.name.clone(),
            own,
        }
    }

    /// When a shipped config claims this page's host but does not validate, says which file
    /// and field, so the float can tell the user instead of the page silently doing nothing.
    async fn broken_config_for(&self, url: &str, lang: Lang) -> Option<String> {
        let host = host_of(url);
        self.store
            .builtin_site_files()
            .await
            .into_iter()
            .find_map(|(file, raw)| {
                let e = crate::domain::sites::problem_for_host(&raw, &host)?.to_string();
                let args = [("file", file.as_str()), ("problem", e.as_str())];
                Some(fill(lang.says().page_broken_config, &args))
            })
    }

    pub(super) async fn page_ready(self: &Rc<Self>, tab: i32, url: &str) -> Response {
        let settings = self.store.chat_settings().await;
        // Everything here is said to the user: the interface language.
        let lang = self.ui();
        let Some(site) = self.site_for(url).await else {
            let problem = self
                .broken_config_for(url, lang)
                .await
                .unwrap_or_else(|| lang.says().page_no_site.into());
            let off = float::disabled(lang, &problem);
            return Response::page_setup(None, Some(problem), off, lang);
        };
        if settings.site(&site.id).disabled {
            let off = float::disabled(lang, &float::code(&site.name));
            return Response::page_setup(None, Some("turned off in the options".into()), off, lang);
        }
        let scope = self.scope_of(&site).await;
        let ready_event = Event::PageReady {
            url,
            site: Some(scope),
        };
        let state = self.event(tab, &settings, ready_event).await.state;
        let ready = match &state.phase {
            // The page was reloaded while a call ran: keep showing it; the result still comes.
            Phase::Executing {
                tool, started_ms, ..
            } => float::executing(lang, tool, *started_ms),
            _ => float::ready(lang, &site.name),
        };
        let this = Rc::clone(self);
        let name = site.name.clone();
        self.host
            .spawn(async move { this.check_bridge(tab, settings, &name).await });
        Response::page_setup(Some(site), None, ready, lang)
    }

    /// Checks the connection as soon as a page opens, not only after a call: with no token,
    /// a refused one or no bridge, the core pairs through the native host first; what is
    /// still wrong shows in the float, with the two ways to connect.
    async fn check_bridge(&self, tab: i32, settings: Settings, site_name: &str) {
        let (status, after, note) =
            crate::runtime::pairing::status_paired(&self.host, &self.store).await;
        let _ = settings;
        let float = if matches!(status, Status::Connected { .. }) {
            // Tools that changed while the page was closed are said at once.
            let Some(notice) = self.tools_changed(tab, &after).await else {
                return;
            };
            let mut f = float::ready(self.ui(), site_name);
            f.tools_changed = Some(notice);
            f
        } else {
            let address = Address {
                url: after.base_url(),
            }
            .host();
            let Some(problem) = float::Setup::of_status(&status, address, &note) else {
                return;
            };
            float::status(self.ui(), &problem)
        };
        // The check runs beside the chat loop and may answer late: a call held, asked about
        // or running meanwhile owns the float (a held call says the same problem, with what
        // to do about the call). Decided in the tab's turn, so a call cannot slip in between.
        let _turn = self.queues.enter(tab).await;
        if self.store.tab(tab).await.phase.at_rest() {
            self.show(tab, float).await;
        }
    }

    pub(super) async fn message_updated(self: &Rc<Self>, tab: i32, update: Update<'_>) -> Response {
        let settings = self.store.chat_settings().await;
        let Some(site) = self.site_for(update.url).await else {
            return Response::error("this page has no site config");
        };
        let stable_ms = site.stable_ms;
        let turned = self
            .event(tab, &settings, Event::Update { update, stable_ms })
            .await;
        self.resume_if_orphaned(tab, &turned.state, &settings);
        Response::Ack {
            recheck_ms: turned.recheck,
        }
    }
}
