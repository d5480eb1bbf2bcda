//! The text that teaches the AI how to call tools: the available services (core ones with
//! descriptions, the rest by name), the `<tool_code>` format, and two-stage discovery with
//! `list_tools_in_service`. Short and neutral — no fake `<system>` tags, which chat sites
//! flag as prompt injection.

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
    crate::domain::redact::redact_owned(&out)
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
