//! Which server a call would run on and what its tool declares there, read from the
//! bridge's tool lists.

use super::{ChatLoop, LIST_TOOLS};
use crate::domain::bridge_api;
use crate::domain::float;
use crate::domain::outcome::CallOutcome;
use crate::domain::policy::Target;
use crate::domain::read_resource::{self, READ_RESOURCE};
use crate::domain::settings::{Settings, ToolPolicy};
use crate::domain::setup::setup_problem;
use crate::domain::toolcall::ToolCall;
use crate::runtime::bridge_client::BridgeApiClient;
use crate::runtime::host::Host;

impl<H: Host> ChatLoop<H> {
    /// Which server a call would run on, and what its tool declares there: the server it
    /// names, or the ones whose tool lists (`GET /tools?serverName=`) hold the tool.
    /// `Err` when the user's setup keeps the bridge out of reach: the outcome, and what to
    /// tell the user.
    pub(super) async fn target_of(
        &self,
        call: &ToolCall,
        settings: &Settings,
    ) -> Result<Target, (CallOutcome, float::Setup)> {
        if call.tool_name == LIST_TOOLS {
            // Answered by the core from the tool lists: nothing runs.
            return Ok(Target::NotOffered(None));
        }
        let client = self.client(settings);
        let named = call.server_name.clone();
        let listed = match client.services().await {
            Ok(body) => bridge_api::services(&body).ok(),
            Err(outcome) => match setup_problem(&outcome, settings) {
                Some(why) => return Err((outcome, why)),
                None => None,
            },
        };
        let mut server_icons = std::collections::HashMap::new();
        for service in listed.iter().flatten() {
            self.icons.keep_server(&service.name, service.icon.as_ref());
            server_icons.insert(service.name.clone(), service.icon.clone());
        }
        let services: Vec<String> = match (&named, listed) {
            (Some(server), _) => vec![server.clone()],
            (None, Some(services)) => services.into_iter().map(|s| s.name).collect(),
            (None, None) => return Ok(Target::Unknown(None)),
        };
        let (mut offering, mut unread, mut views) = (Vec::new(), false, Vec::new());
        for service in services {
            let answer = client.service_tools_raw(&service).await;
            let tools = crate::domain::outcome::json_body(&answer.body)
                .filter(|_| (200..300).contains(&answer.status))
                .and_then(|b| bridge_api::tools(&b));
            match tools {
                Some(tools) => {
                    if let Some(t) = tools.iter().find(|t| t.name == call.tool_name) {
                        // The tool's icon, else its server's.
                        let icon = t
                            .icon
                            .as_ref()
                            .or_else(|| server_icons.get(&service)?.as_ref());
                        self.icons.keep_tool(&service, &t.name, icon);
                        views.push(t.view.clone().map(|uri| (service.clone(), uri)));
                        offering.push((service, t.annotations));
                    }
                }
                // A server still starting, or failed: it may offer the tool too.
                None => unread = true,
            }
        }
        // What the call's report will need to show its view, from this listing: a view
        // only when one server offers the tool, as the call then runs there.
        if !unread && let [view] = views.as_slice() {
            self.listed_views.note(call, view.clone());
        }
        if offering.is_empty() && call.tool_name == READ_RESOURCE {
            // The pseudo-tool, judged as a tool of that name on the reading server.
            let readers = match &named {
                Some(server) => vec![server.clone()],
                None => match client.services().await {
                    Ok(body) => bridge_api::services(&body)
                        .map(|s| read_resource::offering(&s))
                        .unwrap_or_default(),
                    Err(_) => Vec::new(),
                },
            };
            if !readers.is_empty() {
                let no_hints = bridge_api::Annotations::default();
                return Ok(Target::OfferedBy(
                    readers.into_iter().map(|s| (s, no_hints)).collect(),
                ));
            }
        }
        Ok(match (offering.is_empty(), unread) {
            (false, _) => Target::OfferedBy(offering),
            (true, true) => Target::Unknown(named),
            (true, false) => Target::NotOffered(named),
        })
    }

    /// Whether a call is the `read_resource` pseudo-tool: so named, on a server (the one it
    /// names) that has no tool of its own by that name.
    pub(super) async fn reads_resource(
        &self,
        client: &BridgeApiClient<'_, H>,
        call: &ToolCall,
    ) -> bool {
        if call.tool_name != READ_RESOURCE {
            return false;
        }
        let Some(server) = call.server_name.as_deref() else {
            return true;
        };
        let answer = client.service_tools_raw(server).await;
        let tools = crate::domain::outcome::json_body(&answer.body)
            .filter(|_| (200..300).contains(&answer.status))
            .and_then(|b| bridge_api::tools(&b));
        !tools.is_some_and(|tools| tools.iter().any(|t| t.name == READ_RESOURCE))
    }

    /// Each service's tools the AI may call (denied ones and those only a view may call left
    /// out), in the services' order;
    /// `None` for a service whose list cannot be read (not running).
    pub(super) async fn tool_lists(
        &self,
        client: &BridgeApiClient<'_, H>,
        services: &[bridge_api::Service],
        settings: &Settings,
    ) -> Vec<Option<Vec<bridge_api::Tool>>> {
        let mut out = Vec::with_capacity(services.len());
        for s in services {
            let answer = client.service_tools_raw(&s.name).await;
            let tools = crate::domain::outcome::json_body(&answer.body)
                .filter(|_| (200..300).contains(&answer.status))
                .and_then(|b| bridge_api::tools(&b))
                .map(|mut tools| {
                    tools.retain(|t| {
                        t.for_model
                            && settings.policy_for(Some(&s.name), &t.name) != ToolPolicy::Deny
                    });
                    tools
                });
            out.push(tools);
        }
        out
    }
}
