//! A 2026-07-28 server tells of a changed list only on a stream the client opens for it
//! (`subscriptions/listen`); a server of an older revision sends its `list_changed`
//! notifications unasked (`client.rs`). This opens that stream for the lists the server says
//! may change, and reloads a list each time the stream announces it, as those notifications
//! do.

use rmcp::Peer;
use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::RoleClient;

use super::client::{BridgeClient, ListKind};

/// Follow the list changes of the server behind `peer`, when it speaks 2026-07-28 and says a
/// list of it may change; the task ends with the connection (or when the server ends the
/// stream, or refuses it: logged).
pub(crate) fn follow(client: &BridgeClient, peer: &Peer<RoleClient>, server: &str) {
    let Some(info) = peer.peer_info() else {
        return;
    };
    if info.protocol_version.has_initialize() {
        return;
    }
    let Some(filter) = filter(&info.capabilities) else {
        return;
    };
    let (client, peer, server) = (client.clone(), peer.clone(), server.to_owned());
    tokio::spawn(async move {
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(err) => {
                tracing::warn!(server = %server, error = %err, "the server refused to tell of its list changes (subscriptions/listen); its lists are read again only when it restarts");
                return;
            }
        };
        loop {
            let kind = match subscription.next().await {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => ListKind::Tools,
                Ok(Some(ServerNotification::PromptListChangedNotification(_))) => ListKind::Prompts,
                Ok(Some(ServerNotification::ResourceListChangedNotification(_))) => {
                    ListKind::Resources
                }
                Ok(Some(_)) => continue,
                Ok(None) => return,
                Err(err) => {
                    tracing::warn!(server = %server, error = %err, "the stream of the server's list changes failed; its lists are read again only when it restarts");
                    return;
                }
            };
            client.reload_on_change(peer.clone(), kind);
        }
    });
}

/// The list changes to ask for: those of the lists the server says may change; `None` when
/// it says none may.
fn filter(capabilities: &rmcp::model::ServerCapabilities) -> Option<SubscriptionFilter> {
    let tools = capabilities
        .tools
        .as_ref()
        .is_some_and(|c| c.list_changed == Some(true));
    let prompts = capabilities
        .prompts
        .as_ref()
        .is_some_and(|c| c.list_changed == Some(true));
    let resources = capabilities
        .resources
        .as_ref()
        .is_some_and(|c| c.list_changed == Some(true));
    if !(tools || prompts || resources) {
        return None;
    }
    let mut filter = SubscriptionFilter::builder();
    if tools {
        filter = filter.tools_list_changed();
    }
    if prompts {
        filter = filter.prompts_list_changed();
    }
    if resources {
        filter = filter.resources_list_changed();
    }
    Some(filter.build())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{PromptsCapability, ServerCapabilities, ToolsCapability};

    #[test]
    fn only_the_lists_said_to_change_are_asked_for() {
        let mut capabilities = ServerCapabilities::default();
        assert_eq!(filter(&capabilities), None);
        capabilities.tools = Some(ToolsCapability::default());
        assert_eq!(filter(&capabilities), None);
        let mut tools = ToolsCapability::default();
        tools.list_changed = Some(true);
        capabilities.tools = Some(tools);
        let mut prompts = PromptsCapability::default();
        prompts.list_changed = Some(false);
        capabilities.prompts = Some(prompts);
        let asked = filter(&capabilities).unwrap();
        assert_eq!(asked.tools_list_changed, Some(true));
        assert_eq!(asked.prompts_list_changed, None);
        assert_eq!(asked.resources_list_changed, None);
    }
}
