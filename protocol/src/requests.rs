//! The bodies the extension sends to the bridge's routes, one type per route. The core
//! serializes these; the bridge reads a body into the same type field by field
//! (`server/src/validation.rs`), so that a wrong body gets a 422 list naming every wrong field
//! (which the AI reads and corrects), and tolerates what the original extension sends (a
//! `null` for an absent field, a string for a number). Borrowed fields: the core builds a body
//! from what it already holds, and the bridge's body borrows from the JSON it parsed.

use serde::Serialize;
use serde_json::{Map, Value};

/// `POST /execute`: run one tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Execute<'a> {
    pub name: &'a str,
    /// Always an object: the core refuses any other call before sending it.
    pub arguments: &'a Value,
    /// Which server's tool; without it the bridge finds the only server that has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_name: Option<&'a str>,
    /// Long-poll: answer `202 pending` after this many seconds if the call still runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait: Option<u32>,
    /// Pass credential shapes in the result unmasked (the user's choice for this tool); the
    /// bridge's token and configured secrets are masked anyway.
    #[serde(skip_serializing_if = "is_false")]
    pub unmasked: bool,
}

/// `POST /reset-history`: every failure counter, one server's, or one tool's.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResetHistory<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<&'a str>,
}

/// `POST /resources/read`. Both as the AI or the user gave them: the bridge names a missing
/// server or a URI that is not a string.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResource<'a> {
    pub server_name: Option<&'a str>,
    pub uri: &'a Value,
}

/// `PATCH /servers/{name}`: turn a server on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SetEnabled {
    pub enabled: bool,
}

/// `PUT /servers/{name}`: the server's definition, one `mcpServers` entry as the config file
/// holds it (`{"command": "uvx", "args": ["mcp-server-time"]}`, or `{"url": …}`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(transparent)]
pub struct PutServer<'a>(pub &'a Map<String, Value>);

/// `POST /servers/import`: without `names`, what the other apps' files hold; with them,
/// add those servers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Import<'a> {
    /// Another app's config file; without it the known places are looked in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'a str>,
    pub names: Option<&'a [String]>,
}

/// `POST /prompts/get`: a prompt filled with its arguments (strings).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPrompt<'a> {
    pub server_name: &'a str,
    pub name: &'a str,
    pub arguments: Map<String, Value>,
}

/// `POST /complete`: suggestions for one argument of a prompt or a resource template.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Complete<'a> {
    pub server_name: &'a str,
    #[serde(flatten)]
    pub of: Completed<'a>,
    pub argument: &'a str,
    pub value: &'a str,
    /// The other arguments filled in so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
}

/// What a completion is for: exactly one of the two keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Completed<'a> {
    /// A prompt's name.
    #[serde(rename = "prompt")]
    Prompt(&'a str),
    /// A resource template's URI template.
    #[serde(rename = "uriTemplate")]
    Template(&'a str),
}

/// `POST /calls/{id}/elicitation`: the user's answer to the server's question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ElicitationAnswer<'a> {
    /// `accept`, `decline` or `cancel`.
    pub action: &'a str,
    /// The question answered: an answer to an older one is refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_id: Option<&'a str>,
    /// The form's fields, when accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_are_written_as_the_bridge_reads_them() {
        let arguments = json!({"timezone": "UTC"});
        let call = Execute {
            name: "get_current_time",
            arguments: &arguments,
            server_name: Some("time"),
            wait: Some(25),
            unmasked: false,
        };
        assert_eq!(
            serde_json::to_value(call).unwrap(),
            json!({"name": "get_current_time", "arguments": {"timezone": "UTC"},
                   "serverName": "time", "wait": 25})
        );
        let of = Completed::Template("file:///{path}");
        let complete = Complete {
            server_name: "fs",
            of,
            argument: "path",
            value: "do",
            context: None,
        };
        assert_eq!(
            serde_json::to_value(complete).unwrap(),
            json!({"serverName": "fs", "uriTemplate": "file:///{path}", "argument": "path",
                   "value": "do"})
        );
        assert_eq!(
            serde_json::to_value(ResetHistory::default()).unwrap(),
            json!({})
        );
        let uri = json!("file:///a");
        let read = ReadResource {
            server_name: None,
            uri: &uri,
        };
        assert_eq!(
            serde_json::to_value(read).unwrap(),
            json!({"serverName": null, "uri": "file:///a"})
        );
    }
}
