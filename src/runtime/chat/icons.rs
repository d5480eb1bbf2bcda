//! The icons of the tools and servers whose lists the chat loop read to find a call's server,
//! so that the float can show one beside the tool it names. Only what `bridge_api::icon`
//! passed (a `data:image/` URL) is kept, and only a handful: a worker restart forgets them,
//! and a float without an icon is drawn as before.

use crate::domain::toolcall::ToolCall;
use std::cell::RefCell;
use std::collections::HashMap;

/// The most icons kept; past it the oldest reading is dropped whole (an icon is up to 90 KiB).
const MAX_ICONS: usize = 64;

/// Icons by `server` and by `server` + `tool`.
#[derive(Default)]
pub(super) struct Icons(RefCell<HashMap<(String, Option<String>), String>>);

impl Icons {
    fn keep(&self, key: (String, Option<String>), icon: Option<&String>) {
        let mut icons = self.0.borrow_mut();
        match icon {
            Some(icon) => {
                if icons.len() >= MAX_ICONS && !icons.contains_key(&key) {
                    icons.clear();
                }
                icons.insert(key, icon.clone());
            }
            None => {
                icons.remove(&key);
            }
        }
    }

    /// Keep (or forget) the icon of server `server`.
    pub(super) fn keep_server(&self, server: &str, icon: Option<&String>) {
        self.keep((server.to_owned(), None), icon);
    }

    /// Keep (or forget) the icon shown for tool `tool` of server `server`.
    pub(super) fn keep_tool(&self, server: &str, tool: &str, icon: Option<&String>) {
        self.keep((server.to_owned(), Some(tool.to_owned())), icon);
    }

    /// The icon the float shows for `call`: the one kept for its tool on the server it names,
    /// else that server's; for a call that names no server, the one kept for the tool when a
    /// single server's tool of that name has one.
    pub(super) fn of_call(&self, call: &ToolCall) -> Option<String> {
        let icons = self.0.borrow();
        let tool = Some(call.tool_name.clone());
        if let Some(server) = &call.server_name {
            return icons
                .get(&(server.clone(), tool))
                .or_else(|| icons.get(&(server.clone(), None)))
                .cloned();
        }
        let mut found = icons.iter().filter(|((_, t), _)| *t == tool);
        match (found.next(), found.next()) {
            (Some((_, icon)), None) => Some(icon.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &str, server: Option<&str>) -> ToolCall {
        ToolCall {
            tool_name: tool.into(),
            arguments: serde_json::json!({}),
            server_name: server.map(str::to_owned),
        }
    }

    #[test]
    fn a_calls_icon_is_its_tools_else_its_servers() {
        let icons = Icons::default();
        let (a, b) = (
            "data:image/png;base64,QQ==".to_owned(),
            "data:image/png;base64,Qg==".to_owned(),
        );
        icons.keep_server("time", Some(&a));
        icons.keep_tool("time", "now", Some(&b));
        assert_eq!(icons.of_call(&call("now", Some("time"))), Some(b.clone()));
        assert_eq!(icons.of_call(&call("zone", Some("time"))), Some(a.clone()));
        assert_eq!(icons.of_call(&call("now", None)), Some(b.clone()));
        assert_eq!(icons.of_call(&call("now", Some("other"))), None);
        // Two servers' tools of the name: which one runs is not known here.
        icons.keep_tool("clock", "now", Some(&a));
        assert_eq!(icons.of_call(&call("now", None)), None);
        // A list read again without the icon forgets it.
        icons.keep_tool("time", "now", None);
        assert_eq!(icons.of_call(&call("now", Some("time"))), Some(a));
    }
}
