//! The text that teaches the AI how to call tools: the available services (core ones with
//! descriptions, the rest by name), the `<tool_code>` format, and two-stage discovery with
//! `list_tools_in_service`. Short and neutral — no fake `<system>` tags, which chat sites
//! flag as prompt injection.

pub use crate::domain::bridge_api::Service;
use crate::domain::report::Lang;

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
    let example = r#"<tool_code>
{"tool_name": "TOOL", "arguments": {"ARG": "VALUE"}, "server_name": "SERVICE"}
</tool_code>"#;
    let discover = r#"<tool_code>
{"tool_name": "list_tools_in_service", "arguments": {"service_name": "SERVICE"}}
</tool_code>"#;
    let mut out = String::new();
    match lang {
        Lang::Zh => {
            out.push_str("你可以使用我电脑上的工具。需要时，在回答的最后单独写一个工具调用，然后停下等待结果：\n\n");
            out.push_str(example);
            out.push_str("\n\n规则：每次回答最多一个调用；JSON 必须合法；`server_name` 可省略。结果会以 <tool_result> … </tool_result> 发回给你。调用失败时你会收到错误类型、信息和建议，请据此修正后再试，或告诉我无法完成。\n\n");
            out.push_str("先查看某个服务有哪些工具及参数：\n\n");
            out.push_str(discover);
            out.push_str("\n\n可用服务：\n");
        }
        Lang::En => {
            out.push_str("You can use tools on my computer. When you need one, end your answer with a single tool call and stop to wait for the result:\n\n");
            out.push_str(example);
            out.push_str("\n\nRules: at most one call per answer; the JSON must be valid; `server_name` is optional. The result comes back as <tool_result> … </tool_result>. When a call fails you get the error type, message and advice: correct the call and try again, or tell me it cannot be done.\n\n");
            out.push_str("To see a service's tools and their parameters first:\n\n");
            out.push_str(discover);
            out.push_str("\n\nAvailable services:\n");
        }
    }
    if core.is_empty() && others.is_empty() {
        out.push_str(match lang {
            Lang::Zh => "（桥接服务目前没有可用的服务）\n",
            Lang::En => "(the bridge has no services right now)\n",
        });
    }
    for line in core {
        out.push_str(&line);
        out.push('\n');
    }
    if !others.is_empty() {
        out.push_str(match lang {
            Lang::Zh => "- 其他：",
            Lang::En => "- Others: ",
        });
        out.push_str(&others.join(", "));
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
