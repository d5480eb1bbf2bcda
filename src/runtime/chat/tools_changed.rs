//! The check that tells the user when the servers' tools changed since the AI got its
//! instructions.

use super::ChatLoop;
use crate::domain::i18n::fill;
use crate::domain::redact::Masked;
use crate::domain::settings::Settings;
use crate::runtime::host::Host;

impl<H: Host> ChatLoop<H> {
    /// The fingerprint of the tools the AI may call now, or `None` when the bridge cannot be
    /// asked.
    pub(super) async fn tools_now(&self, settings: &Settings) -> Option<String> {
        let client = self.client(settings);
        let body = client.services().await.ok()?;
        let services = crate::domain::bridge_api::services(&body).ok()?;
        let tools = self.tool_lists(&client, &services, settings).await;
        Some(crate::domain::instructions::fingerprint(&services, &tools))
    }

    /// When the tools changed since this tab's AI got its instructions, the servers whose
    /// tools did, in words for the float (`None`: no instructions given here, or no change).
    pub(super) async fn tools_changed(&self, tab: i32, settings: &Settings) -> Option<Masked> {
        let told = self.store.told_tools(tab).await?;
        let now = self.tools_now(settings).await?;
        let changed = crate::domain::instructions::changed(&told, &now);
        if changed.is_empty() {
            return None;
        }
        let says = self.lang(settings).says();
        let text = fill(says.tools_changed, &[("servers", &changed.join(", "))]);
        Some(Masked::new(&text))
    }
}
