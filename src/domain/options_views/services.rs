//! The MCP servers of a `GET /tools` body as the page lists them, each status in the page's
//! language.

use super::{Lang, Problem};
use crate::domain::bridge_api::{self, ServerStatus};
use mcp_bridge_protocol::answers::not_running;
use serde::Serialize;
use serde_json::Value;

/// One MCP server as the page lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceView {
    pub name: String,
    /// What it is, for a person ([`for_people`]).
    pub description: String,
    /// `running`, `failed`, … as the bridge says; `unknown` for bridges that do not say.
    pub status: String,
    /// The status in the page's language.
    pub status_text: String,
    pub tool_count: Option<u64>,
    /// How many resources it offers, when the bridge says.
    pub resource_count: Option<u64>,
    pub is_core: bool,
    /// Its icon, a checked `data:image/` URL (`bridge_api::icon`), drawn beside its name.
    pub icon: Option<String>,
}

/// A server's status as the page shows it; a status this build does not know, as it came.
pub fn status_text(status: Option<&str>, lang: Lang) -> String {
    let says = lang.says();
    let Some(word) = status else {
        return says.status_unknown.to_string();
    };
    match ServerStatus::from_word(word) {
        Some(ServerStatus::Running) => says.status_running,
        Some(ServerStatus::Starting) => says.status_starting,
        Some(ServerStatus::Crashed) => says.status_crashed,
        Some(ServerStatus::Unavailable) => says.status_unavailable,
        Some(ServerStatus::Stopped) => says.status_stopped,
        None => match word {
            // An older bridge's word.
            "failed" => says.status_unavailable,
            not_running::DISABLED => says.status_disabled,
            not_running::NOT_LOADED => says.status_not_loaded,
            other => return other.to_string(),
        },
    }
    .to_string()
}

/// The most a server's description shown to a person runs to, in characters.
const DESCRIPTION_CHARS: usize = 200;

/// A server's description for a person. The bridge describes a server by its config entry's
/// `description`, else by the server's own instructions, which are written for the AI (an
/// audience, rules, tool by tool): of those, only the first sentence, and no more than
/// [`DESCRIPTION_CHARS`].
pub fn for_people(description: &str, instructions: &str) -> String {
    let description = description.trim();
    let from_instructions =
        !description.is_empty() && instructions.trim_start().starts_with(description);
    if !from_instructions {
        return description.to_string();
    }
    let first_line = description
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .trim();
    let mut end = first_line.len();
    for stop in [". ", "。", "! ", "? ", "！", "？"] {
        if let Some(at) = first_line.find(stop) {
            end = end.min(at + stop.trim_end().len());
        }
    }
    let sentence = &first_line[..end];
    if sentence.chars().count() <= DESCRIPTION_CHARS {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(DESCRIPTION_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

/// The services of a `GET /tools` body, as the page lists them.
pub fn services(body: &Value, lang: Lang) -> Result<Vec<ServiceView>, Problem> {
    let list = bridge_api::services(body).map_err(|m| Problem::new("bad-answer", None, m))?;
    Ok(list
        .into_iter()
        .map(|s| ServiceView {
            status_text: status_text(s.status.as_deref(), lang),
            description: for_people(&s.description, &s.instructions),
            name: s.name,
            status: s.status.unwrap_or_else(|| "unknown".into()),
            tool_count: s.tool_count,
            resource_count: s.resource_count,
            is_core: s.is_core,
            icon: s.icon,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::options_views::connection_report;
    use serde_json::json;

    const EN: Lang = Lang::En;

    const BASE: &str = "http://127.0.0.1:3849";

    #[test]
    fn services_and_the_connection_report() {
        let body = json!({"success":true,"services":[
            {"name":"demo","description":"Demo","is_core":true,"status":"running","tool_count":9},
            {"name":"broken","description":"","status":{"failed":"exit 1"}},
            {"name":"old"}
        ]});
        let s = services(&body, EN).unwrap();
        assert_eq!(s[0].tool_count, Some(9));
        assert_eq!(s[0].icon, None);
        assert!(s[0].is_core);
        assert_eq!(s[2].status, "unknown");
        assert!(s[1].status.contains("failed"));
        let r = json!(connection_report(EN, "0.1.0", BASE, s));
        assert_eq!(r["running"], 1);
        assert_eq!(r["services"][0]["toolCount"], 9);
        assert_eq!(r["services"][0]["toolCountText"], "9 tools");
        assert_eq!(
            r["summary"],
            "Connected to bridge 0.1.0: 3 servers, 1 running."
        );
        let one = services(
            &json!({"services":[{"name":"a","status":"running","tool_count":1}]}),
            EN,
        )
        .unwrap();
        let r = connection_report(EN, "0.1.0", BASE, one);
        assert_eq!(r.summary, "Connected to bridge 0.1.0: 1 server, 1 running.");
        assert_eq!(r.services[0].tool_count_text.as_deref(), Some("1 tool"));
        assert!(services(&json!({"success":true}), EN).is_err());
    }

    #[test]
    fn a_description_taken_from_instructions_for_the_ai_is_cut_to_its_first_sentence() {
        let rules = "Audience: an AI model. Use search first, then fetch.\nNever guess ids.";
        assert_eq!(for_people(rules, rules), "Audience: an AI model.");
        assert_eq!(
            for_people("Tickets of 12306", "Tickets of 12306. Ask for dates."),
            "Tickets of 12306"
        );
        // The config entry's own description is the user's, shown whole.
        assert_eq!(
            for_people("My files. All of them.", "Audience: an AI."),
            "My files. All of them."
        );
        assert_eq!(for_people("", "Audience: an AI."), "");
        assert_eq!(
            for_people("查询火车票。请先问日期。", "查询火车票。请先问日期。"),
            "查询火车票。"
        );
        let long = "word ".repeat(100);
        let shown = for_people(&long, &long);
        assert!(
            shown.chars().count() <= DESCRIPTION_CHARS && shown.ends_with('…'),
            "{shown}"
        );
    }
}
