//! The worker's occasional work, beside the chat loop: the float's *Prompts* menu, the
//! choice among the parts a page gathered, the picker's result and the daily check of the
//! subscribed site list. None of it shares memory with the chat loop: storage, the bridge
//! and the tab are all it touches.

use super::bridge_client::BridgeApiClient;
use super::chat::{show_float, tab_command};
use super::host::Host;
use super::store::Store;
use crate::domain::float::{self, FloatState};
use crate::domain::i18n::{Lang, fill};
use crate::domain::messages::{Command, CommandResult, Response, TabRequest, UserAction};
use crate::domain::settings::Settings;
use crate::domain::sites::{SiteConfig, host_of};
use crate::domain::{custom_sites, picker};
use std::rc::Rc;

mod menu;

/// What the errands answer a request that is the chat loop's (the dispatcher never sends one).
const NOT_AN_ERRAND: &str = "not one of the worker's errands";

/// The name of the worker's alarm that checks the subscribed site list (the core decides,
/// each time it goes off, whether a check is due).
pub const SITE_LIST_ALARM: &str = "site-list";

/// An alarm the worker keeps, as `chrome.alarms.create` takes it: `background.js` creates
/// each one of [`ALARMS`] that is missing and hands the core every one that goes off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alarm {
    pub name: &'static str,
    pub delay_in_minutes: u32,
    pub period_in_minutes: u32,
}

/// The worker's alarms: the site list's, every three hours (a check is due once a day).
pub const ALARMS: [Alarm; 1] = [Alarm {
    name: SITE_LIST_ALARM,
    delay_in_minutes: 1,
    period_in_minutes: 180,
}];

/// The errands of one worker, over the chat loop's store.
pub struct Errands<H: Host> {
    host: H,
    store: Rc<Store<H>>,
}

impl<H: Host> Errands<H> {
    pub fn new(host: H, store: Rc<Store<H>>) -> Self {
        Errands { host, store }
    }

    /// The report language: the text that goes into the chat for the AI.
    fn lang(&self, settings: &Settings) -> Lang {
        crate::domain::settings::lang_of(settings, &self.host.ui_language())
    }

    /// The interface language: what the float says to the user.
    fn ui(&self) -> Lang {
        Lang::of_ui(&self.host.ui_language())
    }

    fn client<'a>(&'a self, settings: &Settings) -> BridgeApiClient<'a, H> {
        BridgeApiClient::new(&self.host, settings.base_url(), &settings.token)
    }

    async fn command(&self, tab: i32, cmd: &Command) -> CommandResult {
        tab_command(&self.host, tab, cmd).await
    }

    async fn show(&self, tab: i32, float: FloatState) {
        show_float(&self.host, tab, float).await;
    }

    /// Answers one errand ([`TabRequest::is_errand`]) from chat tab `tab`.
    pub async fn handle(&self, tab: i32, req: TabRequest) -> Response {
        let action = match req {
            TabRequest::Detect { scene } => {
                return Response::Detected {
                    choice: crate::domain::detect::choose(&scene),
                };
            }
            TabRequest::UserAction { action } => action,
            _ => return Response::error(NOT_AN_ERRAND),
        };
        let settings = self.store.chat_settings().await;
        match action {
            UserAction::Menu => self.menu(&settings).await,
            UserAction::Complete {
                server,
                kind,
                name,
                argument,
                value,
                context,
            } => {
                let what = (server, kind, name);
                self.complete(&settings, what, (argument, value, context))
                    .await
            }
            UserAction::UseItem {
                server,
                kind,
                name,
                values,
            } => {
                let item = menu::Use {
                    server,
                    kind,
                    name,
                    values,
                };
                self.use_item(tab, &settings, item).await
            }
            UserAction::PickStart => Response::PickPlan {
                steps: picker::plan(),
            },
            UserAction::PickCandidates { element } => Response::PickCandidates {
                selectors: picker::candidates(&element),
            },
            UserAction::Picked {
                url,
                input,
                send,
                answer,
            } => {
                let choose = |part, chosen: Option<Box<picker::Chosen>>| {
                    chosen.and_then(|c| picker::choose(part, &c))
                };
                let picked = custom_sites::Picked {
                    input: choose(picker::Part::Input, input),
                    send: choose(picker::Part::Send, send),
                    answer: choose(picker::Part::Answer, answer),
                };
                self.picked(&url, &picked).await
            }
            _ => Response::error(NOT_AN_ERRAND),
        }
    }

    /// One of the worker's alarms went off.
    pub async fn alarm(&self, name: &str) {
        if name == SITE_LIST_ALARM {
            super::site_list::check_if_due(&self.host, &self.store).await;
        }
    }

    /// The picker's result, saved as the page's site config; answered with the config the
    /// content script goes on with.
    async fn picked(&self, url: &str, picked: &custom_sites::Picked) -> Response {
        // Everything said here is for the user: the interface language.
        let lang = self.ui();
        match self.save_picked(url, picked, lang).await {
            Ok(site) => {
                let mut f = float::ready(lang, &site.name);
                f.detail = Some(crate::domain::redact::Masked::new(&fill(
                    lang.says().picked_saved,
                    &[("id", &site.name)],
                )));
                Response::page_setup(Some(site), None, f, lang)
            }
            // The page goes on without a new site; the float says what was not saved and why.
            Err(why) => {
                let refused = float::picked_refused(lang, &why);
                Response::page_setup(None, Some(why), refused, lang)
            }
        }
    }

    /// Writes what the picker found as the user's config for the page's site: the config in
    /// force with the picked selectors first, under the user's own id for the site when they
    /// have one, so it replaces theirs instead of clashing with it. It applies to the page's
    /// host only. The picker runs only where the content script does — a shipped site, or
    /// one of the user's (registered from the options page) — so nothing is registered here;
    /// a page whose site was removed meanwhile is refused.
    async fn save_picked(
        &self,
        url: &str,
        picked: &custom_sites::Picked,
        lang: Lang,
    ) -> Result<SiteConfig, String> {
        let host = host_of(url);
        let mut sites = self.store.custom_sites().await;
        let builtin = self.store.builtin_sites().await;
        let list = self.store.site_list().await;
        let base =
            crate::domain::site_list::config_for(&host, &sites.0, &list.sites, &builtin).cloned();
        let mut cfg = custom_sites::with_picked(base, url, picked)
            .ok_or_else(|| fill(lang.says().site_no_address, &[("url", url)]))?;
        let own = crate::domain::sites::for_host(&sites.0, &host).cloned();
        if let Some(own) = &own {
            cfg.id.clone_from(&own.id);
            cfg.name.clone_from(&own.name);
            cfg.hosts.clone_from(&own.hosts);
        } else if let Some(b) = crate::domain::sites::for_host(&builtin, &host) {
            // The shipped site's id makes it an override, on the shipped hosts.
            cfg.id.clone_from(&b.id);
            cfg.hosts.clone_from(&b.hosts);
        }
        let (cfg, _) = sites.check_config(cfg, &builtin).map_err(|e| e.say(lang))?;
        if own.is_none() && !custom_sites::is_override(&cfg, &builtin) {
            return Err(lang.says().page_no_site.into());
        }
        sites.upsert(cfg.clone());
        self.store.save_custom_sites(&sites).await?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alarms_read_as_chrome_alarms_create_takes_them() {
        assert_eq!(
            serde_json::to_string(&ALARMS).unwrap(),
            r#"[{"name":"site-list","delayInMinutes":1,"periodInMinutes":180}]"#
        );
    }
}
