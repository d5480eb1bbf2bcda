//! The text that teaches the AI how to call tools: the available services (core ones with
//! descriptions, the rest by name), the `<tool_code>` format, two-stage discovery with
//! `list_tools_in_service`, what each server says about itself (its MCP `instructions`), and
//! the `read_resource` pseudo-tool when a service offers resources. Short and neutral — no
//! fake `<system>` tags, which chat sites flag as prompt injection.

pub use crate::domain::bridge_api::Service;
use crate::domain::i18n::{Lang, fill};

/// The instructions for `services`, in `lang`.
pub fn build(services: &[Service], lang: Lang) -> String {
    let mut core = Vec::new();
    let mut others = Vec::new();
    for s in services {
        if s.is_core {
            let desc = s.description.lines().next().unwrap_or("").trim();
            core.push(if desc.is_empty() {
                format!("- {}", s.name)
            } else {
                format!("- {}: {desc}", s.name)
            });
        } else {
            others.push(s.name.as_str());
        }
    }
    let says = lang.says();
    let mut out = says.instructions_intro.to_string();
    out.push('\n');
    if core.is_empty() && others.is_empty() {
        out.push_str(says.instructions_no_services);
        out.push('\n');
    }
    for line in core {
        out.push_str(&line);
        out.push('\n');
    }
    if !others.is_empty() {
        let others = others.join(", ");
        out.push_str(&fill(says.instructions_others, &[("services", &others)]));
        out.push('\n');
    }
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
    let with_resources: Vec<&str> = services
        .iter()
        .filter(|s| s.resource_count.is_some_and(|n| n > 0))
        .map(|s| s.name.as_str())
        .collect();
    if !with_resources.is_empty() {
        out.push('\n');
        out.push_str(&fill(
            says.instructions_resources,
            &[("services", &with_resources.join(", "))],
        ));
        out.push('\n');
    }
    crate::domain::redact::redact_owned(&out)
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

    #[test]
    fn core_services_get_descriptions_the_rest_names() {
        let body = json!({"success": true, "services": [
            {"name": "time", "description": "Current time\nmore", "is_core": true},
            {"name": "files", "description": "Files", "is_core": false},
            {"name": "db", "is_core": false}
        ]});
        let text = build(
            &crate::domain::bridge_api::services(&body).unwrap(),
            Lang::En,
        );
        assert!(text.contains("- time: Current time\n"), "{text}");
        assert!(!text.contains("more"));
        assert!(text.contains("- Others: files, db"));
        assert!(text.contains("list_tools_in_service"));
        assert!(!text.to_lowercase().contains("<system"));
        // The example call in the text is itself a valid call.
        let call = crate::domain::toolcall::find_last_call(&text)
            .unwrap()
            .unwrap();
        assert_eq!(call.tool_name, "list_tools_in_service");
    }

    #[test]
    fn server_instructions_and_resources_are_described() {
        let body = json!({"success": true, "services": [
            {"name": "files", "is_core": true, "instructions": "Paths are relative to the project.",
             "resource_count": 3},
            {"name": "time", "is_core": false, "instructions": "", "resource_count": 0},
            {"name": "long", "is_core": false, "instructions": "x".repeat(5000)}
        ]});
        let services = crate::domain::bridge_api::services(&body).unwrap();
        let text = build(&services, Lang::En);
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
        // Without resources, no read_resource.
        let none = build(&services[1..2], Lang::Zh);
        assert!(!none.contains("read_resource"), "{none}");
    }

    #[test]
    fn chinese_and_empty_lists_and_bad_bodies() {
        let text = build(&[], Lang::Zh);
        assert!(text.contains("没有可用的服务"));
        assert!(crate::domain::bridge_api::services(&json!({"detail": "Not Found"})).is_err());
        assert!(
            crate::domain::bridge_api::services(&json!({"services": [{"description": 1}]}))
                .unwrap()
                .is_empty()
        );
    }
}
