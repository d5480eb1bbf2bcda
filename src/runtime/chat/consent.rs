//! Asking the user about a call, and keeping what they chose for the tool or its server.

use super::ChatLoop;
use crate::domain::float::{self, ConfirmReason};
use crate::domain::i18n::fill;
use crate::domain::settings::{Settings, SiteScope, ToolPolicy};
use crate::domain::sites::host_of;
use crate::domain::toolcall::ToolCall;
use crate::runtime::host::{Host, Level};

impl<H: Host> ChatLoop<H> {
    /// Saves the user's choice for a tool, on the server the call runs on (`*` when that
    /// could not be known).
    pub(super) async fn remember(
        &self,
        call: &ToolCall,
        policy: ToolPolicy,
        site: Option<&SiteScope>,
        everywhere: bool,
    ) {
        let server = call.server_name.as_deref().unwrap_or("*");
        let key = format!("{server}:{}", call.tool_name);
        self.change_settings(|s| s.remember(&key, policy, site, everywhere))
            .await;
    }

    /// Saves that the user trusts `server` (from the consent question).
    pub(super) async fn trust(&self, server: &str) {
        self.change_settings(|s| {
            s.trusted_servers.insert(server.to_string());
        })
        .await;
    }

    /// Saves one change of the user's to the stored settings.
    pub(super) async fn change_settings(&self, change: impl FnOnce(&mut Settings)) {
        match self.store.settings().await {
            Ok(mut settings) if settings.unreadable.is_none() => {
                change(&mut settings);
                if let Err(e) = self.store.save_settings(&settings).await {
                    self.host.log(Level::Warn, &format!("[MCP Bridge] {e}"));
                }
            }
            // Settings that cannot be read are not overwritten with a half-known copy.
            _ => self.host.log(
                Level::Warn,
                "[MCP Bridge] choice not saved: settings unreadable",
            ),
        }
    }

    /// Shows the prompt for a call (the tab's state already says it waits for the user).
    pub(super) async fn ask(
        &self,
        tab: i32,
        url: &str,
        call: &ToolCall,
        reason: ConfirmReason,
        settings: &Settings,
    ) {
        let f = self.consent(url, call, reason, settings, None).await;
        self.show(tab, f).await;
    }

    /// The float's question about a call; `by_view`: the tool whose view makes the call,
    /// said first.
    pub(super) async fn consent(
        &self,
        url: &str,
        call: &ToolCall,
        reason: ConfirmReason,
        settings: &Settings,
        by_view: Option<&str>,
    ) -> float::FloatState {
        let ui = self.ui();
        let remember = matches!(
            reason,
            ConfirmReason::FirstUse | ConfirmReason::NotTrusted(_)
        );
        let reason_kept = reason.clone();
        let mut why = float::confirm_reason(ui, reason, settings.max_auto_rounds);
        if let Some(tool) = by_view {
            let asks = fill(ui.says().view_asks_you, &[("tool", &float::code(tool))]);
            why = format!("{asks} {why}");
        }
        let site = match self.site_for(url).await {
            Some(site) => site.name,
            None => host_of(url),
        };
        let mut f = float::confirm(ui, &site, call, &why, remember);
        f.icon = self.icons.of_call(call);
        if let (ConfirmReason::NotTrusted(server), true) = (&reason_kept, remember) {
            float::offer_trust(&mut f, ui, server);
        }
        f
    }
}
