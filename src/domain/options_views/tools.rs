//! The Tools section: each service's tools with the policy in force and why, the menu of
//! choices, the choices kept for single chat sites, the tool's hints and parameters.

use super::{Lang, Problem, ServiceView};
use crate::domain::bridge_api;
use crate::domain::i18n::fill;
use crate::domain::policy::{self, Source};
use crate::domain::read_resource::READ_RESOURCE;
use crate::domain::settings::{DEFAULT_CHOICE, Settings, ToolPolicy};
use serde::Serialize;
use serde_json::Value;

/// One choice of a tool's policy menu.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyChoice {
    /// `default` (the tool's own default), `allow`, `ask` or `deny`.
    pub value: &'static str,
    pub label: String,
}

/// A choice about a tool kept for one chat site (made in the float there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteChoice {
    /// The site's id.
    pub site: String,
    /// The policy's key there (`server:tool`, or `*:tool`).
    pub key: String,
    /// "On `deepseek`: Always allow", in the page's language.
    pub line: String,
}

/// One tool of the Tools section, with everything its row shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolView {
    /// `server:tool`, the key of its policy.
    pub key: String,
    pub name: String,
    pub description: String,
    /// The policy in force.
    pub policy: ToolPolicy,
    pub policy_source: Source,
    /// What the menu shows: `default`, or the policy the user chose.
    pub choice: &'static str,
    pub choices: Vec<PolicyChoice>,
    /// Why this policy is in force, in one sentence.
    pub policy_why: String,
    /// The user lets this tool's results through with secrets unmasked.
    pub unmasked: bool,
    /// The user lets this tool run as its policy says even after untrusted content.
    pub exempt: bool,
    /// Choices kept for single chat sites, which come before the policy there.
    pub on_sites: Vec<SiteChoice>,
    /// What the tool says about itself (its MCP annotations), in words.
    pub hints: Vec<String>,
    pub params: Vec<bridge_api::Param>,
    /// The parameters in one line, wrapped in the language's parentheses: `` (`name`*:
    /// `type`, …) `` (`*`: required; names and types between backticks, as code).
    pub params_text: String,
    /// Its icon, a checked `data:image/` URL (`bridge_api::icon`), drawn beside its name.
    pub icon: Option<String>,
}

/// One service of the Tools section: its tools, or why they could not be listed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceToolsView {
    pub service: ServiceView,
    /// The user trusts the server: its tools' own read-only claims are believed.
    pub trusted: bool,
    pub tools: Vec<ToolView>,
    pub problem: Option<String>,
}

/// The answer to the Tools section's request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolsAnswer {
    pub services: Vec<ServiceToolsView>,
}

fn policy_word(lang: Lang, p: ToolPolicy) -> &'static str {
    let says = lang.says();
    match p {
        ToolPolicy::Allow => says.policy_word_allow,
        ToolPolicy::Ask => says.policy_word_ask,
        ToolPolicy::Deny => says.policy_word_deny,
    }
}

fn policy_value(p: ToolPolicy) -> &'static str {
    match p {
        ToolPolicy::Allow => "allow",
        ToolPolicy::Ask => "ask",
        ToolPolicy::Deny => "deny",
    }
}

/// One tool's row: the policy in force and why, the menu (with what *Default* means for this
/// tool), the annotations in words and the parameter summary.
pub fn tool_view(server: &str, tool: &bridge_api::Tool, s: &Settings, lang: Lang) -> ToolView {
    let says = lang.says();
    let (policy, source) = policy::on_server(s, server, &tool.name, &tool.annotations);
    // What *Default* means for this user: with the servers they trust, without their choices.
    let defaults = Settings {
        tool_policies: Default::default(),
        site_tool_policies: Default::default(),
        ..s.clone()
    };
    let (default, _) = policy::on_server(&defaults, server, &tool.name, &tool.annotations);
    let default_word = policy_word(lang, default);
    let policy_why = match source {
        Source::User => fill(
            says.policy_set_by_you,
            &[
                ("policy", policy_word(lang, policy)),
                ("default", default_word),
            ],
        ),
        Source::ReadOnly => says.policy_read_only.to_string(),
        Source::NotTrusted => says.policy_not_trusted.to_string(),
        _ => says.policy_may_change.to_string(),
    };
    let mut choices = vec![PolicyChoice {
        value: DEFAULT_CHOICE,
        label: fill(says.policy_default_choice, &[("policy", default_word)]),
    }];
    for p in [ToolPolicy::Allow, ToolPolicy::Ask, ToolPolicy::Deny] {
        let label = policy_word(lang, p).to_string();
        choices.push(PolicyChoice {
            value: policy_value(p),
            label,
        });
    }
    let a = &tool.annotations;
    let hints = [
        (a.read_only, says.ann_read_only),
        (a.destructive, says.ann_destructive),
        (a.idempotent, says.ann_idempotent),
        (a.open_world, says.ann_open_world),
    ]
    .into_iter()
    .filter(|(on, _)| *on == Some(true))
    .map(|(_, word)| word.to_string())
    .collect();
    let params = bridge_api::params(&tool.schema);
    let items = params
        .iter()
        .map(|p| {
            let required = if p.required { "*" } else { "" };
            let item = [("name", p.name.as_str()), ("required", required)];
            fill(
                says.param_item,
                &[item[0], item[1], ("kind", p.kind.as_str())],
            )
        })
        .collect::<Vec<_>>();
    let params_text = if items.is_empty() {
        String::new()
    } else {
        fill(says.params_wrap, &[("params", &items.join(says.list_sep))])
    };
    let key = format!("{server}:{}", tool.name);
    ToolView {
        on_sites: site_choices(s, server, &tool.name, lang),
        unmasked: s.unmasked_results.contains(&key),
        exempt: s.exempt_after_untrusted.contains(&key),
        key,
        name: tool.name.clone(),
        description: tool.description.clone(),
        policy,
        policy_source: source,
        choice: if source == Source::User {
            policy_value(policy)
        } else {
            DEFAULT_CHOICE
        },
        choices,
        policy_why,
        hints,
        params,
        params_text,
        icon: tool.icon.clone(),
    }
}

/// The `read_resource` pseudo-tool as a row of the Tools section: no annotations, so by
/// default it asks, as the chat loop judges it.
pub fn read_resource_tool(lang: Lang) -> bridge_api::Tool {
    bridge_api::Tool {
        name: READ_RESOURCE.to_string(),
        description: lang.says().read_resources_row.to_string(),
        schema: serde_json::from_str(
            r#"{"type": "object", "required": ["uri"], "properties": {"uri": {"type": "string"}}}"#,
        )
        .unwrap_or_default(),
        annotations: bridge_api::Annotations::default(),
        for_model: true,
        icon: None,
        view: None,
    }
}

/// One service of the Tools section: its tools with parameters and policies, or why its
/// tools could not be listed.
pub fn service_tools(
    service: &ServiceView,
    reply: Result<Value, Problem>,
    s: &Settings,
    lang: Lang,
) -> ServiceToolsView {
    let body = match reply {
        Ok(b) => b,
        Err(p) => {
            return ServiceToolsView {
                trusted: s.trusts(&service.name),
                service: service.clone(),
                tools: Vec::new(),
                problem: Some(p.message),
            };
        }
    };
    let mut listed = bridge_api::tools(&body).unwrap_or_default();
    // A server that offers resources is read through the `read_resource` pseudo-tool, whose
    // policy is kept like a tool's (`server:read_resource`); a tool of its own by that name
    // is that tool instead.
    let reads = service.resource_count.is_some_and(|n| n > 0);
    if reads && !listed.iter().any(|t| t.name == READ_RESOURCE) {
        listed.push(read_resource_tool(lang));
    }
    let tools = listed
        .iter()
        .map(|t| tool_view(&service.name, t, s, lang))
        .collect();
    ServiceToolsView {
        trusted: s.trusts(&service.name),
        service: service.clone(),
        tools,
        problem: None,
    }
}

/// The choices kept for `server`'s `tool` on single chat sites (the float's), one line each
/// in the page's language.
fn site_choices(s: &Settings, server: &str, tool: &str, lang: Lang) -> Vec<SiteChoice> {
    let keys = [format!("{server}:{tool}"), format!("*:{tool}")];
    let mut out = Vec::new();
    for (site, mine) in &s.site_tool_policies {
        for key in &keys {
            if let Some(p) = mine.get(key) {
                let args = [("site", site.as_str()), ("policy", policy_word(lang, *p))];
                out.push(SiteChoice {
                    site: site.clone(),
                    key: key.clone(),
                    line: fill(lang.says().policy_on_site, &args),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::options_views::set_policy;
    use serde_json::json;

    const EN: Lang = Lang::En;

    #[test]
    fn tools_carry_parameters_and_policies() {
        let settings =
            Settings::from_json(&json!({"toolPolicies":{"demo:crash":"deny","*:echo":"ask"}}))
                .unwrap();
        let svc = ServiceView {
            status_text: "running".into(),
            name: "demo".into(),
            description: String::new(),
            status: "running".into(),
            tool_count: Some(2),
            resource_count: None,
            is_core: false,
            icon: Some("data:image/png;base64,iVBORw0K".into()),
        };
        let body = json!({"success":true,"tools":{"service_name":"demo","tools":[
            {"name":"echo","description":"Echo","parameters":{"type":"object",
              "properties":{"text":{"type":"string","description":"what"},"n":{"type":["integer","null"]},
                            "mode":{"enum":["a","b"]}},"required":["text"]},
             "icon":"data:image/png;base64,iVBORw0K"},
            {"name":"crash","description":"","parameters":{},"icon":"data:text/html;base64,PGI+"}
        ]}});
        let v = json!(service_tools(&svc, Ok(body), &settings, EN));
        // The icons go to the page as checked data:image/ URLs; anything else does not.
        assert_eq!(v["service"]["icon"], "data:image/png;base64,iVBORw0K");
        assert_eq!(v["tools"][0]["icon"], "data:image/png;base64,iVBORw0K");
        assert_eq!(v["tools"][1]["icon"], Value::Null);
        assert_eq!(v["tools"][0]["policy"], "ask");
        assert_eq!(v["tools"][0]["key"], "demo:echo");
        assert_eq!(v["tools"][1]["policy"], "deny");
        let p = &v["tools"][0]["params"];
        let text = p
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "text")
            .unwrap();
        assert_eq!(text["required"], true);
        assert_eq!(text["type"], "string");
        let n = p
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "n")
            .unwrap();
        // One summary for the page and the AI: `null` is what "optional" already says.
        assert_eq!(n["type"], "integer");
        let mode = p.as_array().unwrap().iter().find(|p| p["name"] == "mode");
        assert_eq!(mode.unwrap()["type"], "\"a\"|\"b\"");
        let v = json!(service_tools(
            &svc,
            Err(Problem::new("bad-answer", None, "server down".into())),
            &settings,
            EN,
        ));
        assert_eq!(v["problem"], "server down");
    }

    #[test]
    fn a_server_with_resources_has_a_read_resources_row_with_its_policy() {
        let body = json!({"success":true,"tools":{"service_name":"docs","tools":[
            {"name":"echo","description":"Echo","parameters":{}}]}});
        let svc = |resources| ServiceView {
            status_text: "running".into(),
            name: "docs".into(),
            description: String::new(),
            status: "running".into(),
            tool_count: Some(1),
            resource_count: resources,
            is_core: false,
            icon: None,
        };
        let keys = |v: &Value| -> Vec<String> {
            v["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["key"].as_str().unwrap().to_owned())
                .collect()
        };
        let none = json!(service_tools(
            &svc(Some(0)),
            Ok(body.clone()),
            &Settings::default(),
            EN
        ));
        assert_eq!(keys(&none), ["docs:echo"]);
        let unknown = json!(service_tools(
            &svc(None),
            Ok(body.clone()),
            &Settings::default(),
            EN
        ));
        assert_eq!(keys(&unknown), ["docs:echo"]);

        // Nothing chosen: it asks, as the chat loop does for a tool without hints.
        let v = json!(service_tools(
            &svc(Some(3)),
            Ok(body.clone()),
            &Settings::default(),
            EN
        ));
        assert_eq!(keys(&v), ["docs:echo", "docs:read_resource"]);
        let row = &v["tools"][1];
        assert_eq!(
            (row["policy"].as_str(), row["choice"].as_str()),
            (Some("ask"), Some("default"))
        );
        assert!(
            row["description"].as_str().unwrap().contains("resources"),
            "{row}"
        );
        assert!(row["paramsText"].as_str().unwrap().contains("uri"), "{row}");

        // A choice made in the float shows here, and one made here is what the float uses.
        let chosen = set_policy(
            &Settings::default(),
            "docs:read_resource",
            Some(ToolPolicy::Allow),
            None,
            EN,
        )
        .unwrap();
        assert_eq!(
            policy::on_server(
                &chosen,
                "docs",
                READ_RESOURCE,
                &bridge_api::Annotations::default()
            )
            .0,
            ToolPolicy::Allow
        );
        let v = json!(service_tools(&svc(Some(3)), Ok(body), &chosen, Lang::Zh));
        assert_eq!(
            (
                v["tools"][1]["policy"].as_str(),
                v["tools"][1]["choice"].as_str()
            ),
            (Some("allow"), Some("allow"))
        );
        assert!(
            v["tools"][1]["description"]
                .as_str()
                .unwrap()
                .contains("资源")
        );

        // A server's own tool of that name is that tool: one row, its own.
        let own = json!({"success":true,"tools":{"service_name":"docs","tools":[
            {"name":"read_resource","description":"Its own","parameters":{}}]}});
        let v = json!(service_tools(
            &svc(Some(3)),
            Ok(own),
            &Settings::default(),
            EN
        ));
        assert_eq!(keys(&v), ["docs:read_resource"]);
        assert_eq!(v["tools"][0]["description"], "Its own");
    }

    #[test]
    fn a_tools_row_lists_the_choices_kept_for_single_sites_and_each_can_be_forgotten() {
        let mut s = Settings::default();
        s.remember(
            "time:now",
            ToolPolicy::Allow,
            Some(&scope("deepseek")),
            false,
        );
        s.remember("*:now", ToolPolicy::Deny, Some(&scope("kimi")), false);
        let tool = bridge_api::Tool {
            name: "now".into(),
            description: String::new(),
            schema: serde_json::Value::Null,
            annotations: bridge_api::Annotations::default(),
            for_model: true,
            icon: None,
            view: None,
        };
        let row = tool_view("time", &tool, &s, EN);
        let lines: Vec<&str> = row.on_sites.iter().map(|c| c.line.as_str()).collect();
        assert_eq!(
            lines,
            [
                "On `deepseek` only: Allow (chosen there in the float)",
                "On `kimi` only: Deny (chosen there in the float)"
            ]
        );
        assert_eq!(
            row.choice, DEFAULT_CHOICE,
            "the every-site menu is untouched"
        );
        let kimi = &row.on_sites[1];
        let forgot = set_policy(&s, &kimi.key, None, Some(&kimi.site), EN).unwrap();
        assert_eq!(tool_view("time", &tool, &forgot, EN).on_sites.len(), 1);
        assert!(!forgot.site_tool_policies.contains_key("kimi"));
    }

    fn scope(id: &str) -> crate::domain::settings::SiteScope {
        crate::domain::settings::SiteScope {
            id: id.into(),
            name: id.into(),
            own: false,
        }
    }
}
