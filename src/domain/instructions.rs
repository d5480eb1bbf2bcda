//! The text that teaches the AI how to call tools: the `<tool_code>` format, the services
//! with each tool's one-line description and required parameters while that stays under
//! [`LISTED_CHARS`] (else the services alone, core ones described, and two-step discovery
//! through `list_tools_in_service`), what each server says about itself (its MCP
//! `instructions`), and the `read_resource` pseudo-tool when a service offers resources. Short
//! and neutral — no fake `<system>` tags, which chat sites flag as prompt injection.

pub use crate::domain::bridge_api::Service;
use crate::domain::bridge_api::{Tool, params};
use crate::domain::i18n::{Lang, fill};

/// The longest instructions that list every tool: above it, the AI discovers a service's
/// tools with `list_tools_in_service` (one more round trip, but a chat input and the AI's
/// attention both have limits).
pub const LISTED_CHARS: usize = 6000;

/// The most characters of a tool's description line in the list.
const TOOL_LINE_CHARS: usize = 120;

/// The file the instructions go in where they are attached rather than typed: plain text,
/// which every chat site that takes files accepts.
pub const FILE_NAME: &str = "mcp-bridge-instructions.txt";
pub const FILE_TYPE: &str = "text/plain";

/// The line typed into the input beside the attached instructions.
pub fn attached_line(lang: Lang) -> String {
    fill(lang.says().instructions_attached, &[("file", FILE_NAME)])
}

/// The instructions for `services`, in `lang`. `tools[i]` is the tool list of `services[i]`
/// (`None` when it could not be read: a server not running); the tools listed are those the
/// AI may call (the caller leaves out denied ones).
pub fn build(services: &[Service], tools: &[Option<Vec<Tool>>], lang: Lang) -> String {
    let says = lang.says();
    let tail = tail(services, lang);
    let listed = if services.is_empty() {
        None
    } else {
        let mut out = format!(
            "{}\n\n{}\n",
            says.instructions_intro, says.instructions_listed
        );
        for (i, s) in services.iter().enumerate() {
            out.push_str(&service_line(s));
            match tools.get(i).and_then(Option::as_ref) {
                Some(list) => list.iter().for_each(|t| out.push_str(&tool_line(t))),
                None => {
                    out.push_str("  ");
                    out.push_str(says.instructions_tools_unknown);
                    out.push('\n');
                }
            }
        }
        out.push_str(&tail);
        Some(out).filter(|text| text.chars().count() <= LISTED_CHARS)
    };
    let text = listed.unwrap_or_else(|| discovery(services, lang) + &tail);
    crate::domain::redact::redact_owned(&text)
}

/// `- name: first line of its description`.
fn service_line(s: &Service) -> String {
    let desc = s.description.lines().next().unwrap_or("").trim();
    if desc.is_empty() {
        format!("- {}\n", s.name)
    } else {
        format!("- {}: {}\n", s.name, cut(desc, TOOL_LINE_CHARS))
    }
}

/// `  - tool(required: type, …): first line of its description`.
fn tool_line(t: &Tool) -> String {
    let required: Vec<String> = params(&t.schema)
        .into_iter()
        .filter(|p| p.required)
        .map(|p| format!("{}: {}", p.name, p.kind))
        .collect();
    let desc = t.description.lines().find(|l| !l.trim().is_empty());
    let desc = desc.map(|d| cut(d.trim(), TOOL_LINE_CHARS));
    match desc {
        Some(d) => format!("  - {}({}): {d}\n", t.name, required.join(", ")),
        None => format!("  - {}({})\n", t.name, required.join(", ")),
    }
}

/// The services alone (core ones with their description) and the two-step discovery.
fn discovery(services: &[Service], lang: Lang) -> String {
    let says = lang.says();
    let mut core = Vec::new();
    let mut others = Vec::new();
    for s in services {
        if s.is_core {
            core.push(service_line(s));
        } else {
            others.push(s.name.as_str());
        }
    }
    let mut out = format!(
        "{}\n\n{}\n",
        says.instructions_intro, says.instructions_discover
    );
    if core.is_empty() && others.is_empty() {
        out.push_str(says.instructions_no_services);
        out.push('\n');
    }
    core.iter().for_each(|line| out.push_str(line));
    if !others.is_empty() {
        let others = others.join(", ");
        out.push_str(&fill(says.instructions_others, &[("services", &others)]));
        out.push('\n');
    }
    out
}

/// What follows the services either way: each server's notes, and how to read resources.
fn tail(services: &[Service], lang: Lang) -> String {
    let says = lang.says();
    let mut out = String::new();
    for s in services {
        let text = s.instructions.trim();
        if text.is_empty() {
            continue;
        }
        let text = cut(text, NOTES_CHARS);
        out.push('\n');
        out.push_str(&fill(
            says.instructions_notes,
            &[("service", &s.name), ("text", &text)],
        ));
        out.push('\n');
    }
    let with_resources = crate::domain::read_resource::offering(services);
    if !with_resources.is_empty() {
        out.push('\n');
        out.push_str(&fill(
            says.instructions_resources,
            &[("services", &with_resources.join(", "))],
        ));
        out.push('\n');
    }
    out
}

/// What the AI is told of each service's tools, in a few bytes: `name=hash` per service,
/// one a line (the hash over the tools' lines as [`build`] lists them).
pub fn fingerprint(services: &[Service], tools: &[Option<Vec<Tool>>]) -> String {
    let mut out = String::new();
    for (i, s) in services.iter().enumerate() {
        let lines: String = match tools.get(i).and_then(Option::as_ref) {
            Some(list) => list.iter().map(tool_line).collect(),
            None => "?".into(),
        };
        let hash = crate::domain::hash::fnv1a(lines.as_bytes(), crate::domain::hash::BASIS);
        out.push_str(&format!("{}={hash:x}\n", s.name));
    }
    out
}

/// The services whose tools differ between two fingerprints: changed, added or removed. A
/// service whose tools could not be read in either is not counted (it did not start yet).
pub fn changed(before: &str, now: &str) -> Vec<String> {
    let unread = crate::domain::hash::fnv1a(b"?", crate::domain::hash::BASIS);
    let unread = format!("{unread:x}");
    let entries = |text: &str| -> Vec<(String, String)> {
        text.lines()
            .filter_map(|l| l.rsplit_once('='))
            .map(|(n, h)| (n.to_string(), h.to_string()))
            .collect()
    };
    let (before, now) = (entries(before), entries(now));
    let mut out = Vec::new();
    for (name, hash) in &now {
        match before.iter().find(|(n, _)| n == name) {
            Some((_, old)) if old == hash || *old == unread || *hash == unread => {}
            _ => out.push(name.clone()),
        }
    }
    for (name, _) in &before {
        if !now.iter().any(|(n, _)| n == name) {
            out.push(name.clone());
        }
    }
    out
}

/// The most characters of one server's instructions the AI is given (some servers write pages).
const NOTES_CHARS: usize = 2000;

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn services(body: serde_json::Value) -> Vec<Service> {
        crate::domain::bridge_api::services(&body).unwrap()
    }

    fn tools(list: serde_json::Value) -> Option<Vec<Tool>> {
        crate::domain::bridge_api::tools(&json!({ "tools": list }))
    }

    #[test]
    fn tools_are_listed_with_their_required_parameters() {
        let s = services(json!({"success": true, "services": [
            {"name": "time", "description": "Current time\nmore", "is_core": true},
            {"name": "files", "description": "Files", "is_core": false},
            {"name": "db", "is_core": false}
        ]}));
        let lists = [
            tools(json!([
                {"name": "now", "description": "\nThe time now\nin detail", "parameters": {
                    "properties": {"tz": {"type": "string"}, "fmt": {"type": "string"}},
                    "required": ["tz"]}},
                {"name": "ping"}
            ])),
            tools(json!([{"name": "read", "description": "x".repeat(300),
                "inputSchema": {"properties": {"path": {"type": "string"}, "n": {"type": "integer"}},
                                "required": ["path", "n"]}}])),
            None,
        ];
        let text = build(&s, &lists, Lang::En);
        assert!(
            text.contains("- time: Current time\n  - now(tz: string): The time now\n  - ping()\n"),
            "{text}"
        );
        assert!(
            !text.contains("in detail") && !text.contains("fmt"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "  - read(path: string, n: integer): {}…\n",
                "x".repeat(120)
            )),
            "{text}"
        );
        assert!(
            text.contains("- db\n  (its tools cannot be listed right now)\n"),
            "{text}"
        );
        assert!(
            !text.contains("Others"),
            "every service is listed with its tools: {text}"
        );
        assert!(!text.to_lowercase().contains("<system"));
        // The other parameters are still one call away, and the call shown is valid.
        let call = crate::domain::toolcall::find_last_call(&text)
            .unwrap()
            .unwrap();
        assert_eq!(call.tool_name, "TOOL");
        assert!(text.contains("list_tools_in_service"));
        let zh = build(&s, &lists, Lang::Zh);
        assert!(
            zh.contains("括号内为必填参数") && zh.contains("  - now(tz: string)"),
            "{zh}"
        );
    }

    #[test]
    fn above_the_limit_the_services_alone_and_two_step_discovery() {
        let s = services(json!({"success": true, "services": [
            {"name": "time", "description": "Current time\nmore", "is_core": true},
            {"name": "files", "description": "Files", "is_core": false},
            {"name": "db", "is_core": false}
        ]}));
        let many: Vec<serde_json::Value> = (0..150)
            .map(|i| json!({"name": format!("tool_{i}"), "description": "Does one thing to one record of the table"}))
            .collect();
        let lists = [tools(json!(many)), None, None];
        let text = build(&s, &lists, Lang::En);
        assert!(text.chars().count() < LISTED_CHARS, "{}", text.len());
        assert!(text.contains("- time: Current time\n"), "{text}");
        assert!(!text.contains("tool_1") && !text.contains("more"), "{text}");
        assert!(text.contains("- Others: files, db"));
        // The example call in the text is itself a valid call.
        let call = crate::domain::toolcall::find_last_call(&text)
            .unwrap()
            .unwrap();
        assert_eq!(call.tool_name, "list_tools_in_service");
        // Just under the limit, the tools are listed.
        let fits: Vec<serde_json::Value> = many[..20].to_vec();
        let text = build(&s, &[tools(json!(fits)), None, None], Lang::En);
        assert!(text.contains("  - tool_19(): Does one thing"), "{text}");
    }

    #[test]
    fn server_instructions_and_resources_are_described() {
        let s = services(json!({"success": true, "services": [
            {"name": "files", "is_core": true, "instructions": "Paths are relative to the project.",
             "resource_count": 3},
            {"name": "time", "is_core": false, "instructions": "", "resource_count": 0},
            {"name": "long", "is_core": false, "instructions": "x".repeat(5000)}
        ]}));
        for lists in [vec![Some(Vec::new()), None, None], Vec::new()] {
            let text = build(&s, &lists, Lang::En);
            assert!(
                text.contains("Notes from service files:\nPaths are relative to the project."),
                "{text}"
            );
            assert!(!text.contains("Notes from service time"), "{text}");
            assert!(text.contains(&format!("{}…", "x".repeat(2000))), "cut");
            assert!(!text.contains(&"x".repeat(2001)), "cut");
            assert!(text.contains("Services with resources: files\n"), "{text}");
            // The example of read_resource is itself a valid call.
            let last = crate::domain::toolcall::find_last_call(&text)
                .unwrap()
                .unwrap();
            assert_eq!(last.tool_name, "read_resource");
            assert_eq!(last.arguments["uri"], "URI");
        }
        // Without resources, no read_resource.
        let none = build(&s[1..2], &[Some(Vec::new())], Lang::Zh);
        assert!(!none.contains("read_resource"), "{none}");
    }

    #[test]
    fn a_change_of_tools_is_named_by_service() {
        let s = services(json!({"services": [{"name": "a"}, {"name": "b"}]}));
        let one = tools(json!([{"name": "x"}]));
        let two = tools(json!([{"name": "x"}, {"name": "y"}]));
        let before = fingerprint(&s, &[one.clone(), one.clone()]);
        assert!(changed(&before, &before).is_empty());
        assert_eq!(
            changed(&before, &fingerprint(&s, &[one.clone(), two.clone()])),
            ["b"]
        );
        // A server still starting is no change; one added or removed is.
        assert!(changed(&before, &fingerprint(&s, &[one.clone(), None])).is_empty());
        assert_eq!(
            changed(&before, &fingerprint(&s[..1], std::slice::from_ref(&one))),
            ["b"]
        );
        let more = services(json!({"services": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}));
        let three = fingerprint(&more, &[one.clone(), one.clone(), two]);
        assert_eq!(changed(&before, &three), ["c"]);
    }

    #[test]
    fn chinese_and_empty_lists_and_bad_bodies() {
        let text = build(&[], &[], Lang::Zh);
        assert!(text.contains("没有可用的服务"));
        assert!(crate::domain::bridge_api::services(&json!({"detail": "Not Found"})).is_err());
        assert!(
            crate::domain::bridge_api::services(&json!({"services": [{"description": 1}]}))
                .unwrap()
                .is_empty()
        );
    }
}
