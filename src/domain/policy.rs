//! Whether a detected call runs, asks first, or is refused. A policy is kept per
//! `server:tool`, so it is applied to the server the bridge will really run, resolved
//! before the verdict: a call that leaves out `server_name` gets the policy of the one
//! server offering the tool, and cannot slip past an Ask or a Deny by saying less. Where the
//! user set nothing, the tool's own annotations decide, but only on a server the user
//! trusts: there a read-only tool runs by itself; any other tool, and every tool of a server
//! the user does not trust, asks the first time (per MCP, a tool that is not read-only may
//! be destructive, and a server's hints are its own word). A destructive hint only raises.
//!
//! Once a conversation read untrusted content (a result of a server the user does not
//! trust, or of a trusted server's tool that may reach the open world), the AI may be
//! steered by it: from then on, in that conversation, every tool that is not read-only on a
//! trusted server asks, whatever its policy, unless the user exempted it.

use crate::domain::bridge_api::Annotations;
use crate::domain::call_log::AllowedBy;
use crate::domain::field_error::FieldError;
use crate::domain::settings::{Settings, ToolPolicy};

/// What the call will run on, as far as the core could find out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// These servers offer the tool, with what it declares on each (in the bridge's order:
    /// it runs the first). The call's own server alone when it names one.
    OfferedBy(Vec<(String, Annotations)>),
    /// The tool lists were read and no server (or not the one the call names) offers the
    /// tool: the bridge will refuse the call, nothing runs.
    NotOffered(Option<String>),
    /// The tool lists could not be read; the server the call names, if it names one.
    Unknown(Option<String>),
}

/// Why a policy is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The user set it.
    User,
    /// Nothing set; the tool says it only reads.
    ReadOnly,
    /// Nothing set; the tool does not say it only reads, so it may change things.
    MayChange,
    /// Nothing set; the tool says it only reads, but its server is not one the user
    /// trusts, so the claim is not believed.
    NotTrusted,
    /// Nothing set, and nothing runs (no server offers the tool).
    NotOffered,
    /// Nothing set, and the tool lists could not be read.
    Unknown,
}

/// Why a call waits for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskReason {
    /// The tool's policy is Ask.
    Policy,
    /// The user set nothing and the tool may change things: asked the first time, with the
    /// choice to always allow or deny it.
    FirstUse,
    /// The user set nothing; the tool claims to only read, on this server the user does not
    /// trust: asked the first time, with the choice to trust the server.
    NotTrusted(String),
    /// The conversation read untrusted content (from the named tool): asked every time.
    Untrusted(String),
    /// Automatic execution is off.
    Manual,
    /// The stored settings could not be used, and why.
    Unreadable(FieldError),
    /// Several servers offer the tool and the call does not say which; it would run on the
    /// first of them.
    Ambiguous(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Run,
    Ask(AskReason),
    Deny,
}

/// The policy in force for `tool` on one server, and why.
pub fn on_server(
    settings: &Settings,
    server: &str,
    tool: &str,
    annotations: &Annotations,
) -> (ToolPolicy, Source) {
    match settings.explicit_policy(Some(server), tool) {
        Some(p) => (p, Source::User),
        None if !reads_only(annotations) => (ToolPolicy::Ask, Source::MayChange),
        None if settings.trusts(server) => (ToolPolicy::Allow, Source::ReadOnly),
        None => (ToolPolicy::Ask, Source::NotTrusted),
    }
}

/// The tool claims to only read and does not also claim to be destructive (that hint can
/// only raise a default).
fn reads_only(annotations: &Annotations) -> bool {
    annotations.read_only() && annotations.destructive != Some(true)
}

/// Whether a tool may still run as its policy says in a conversation that read untrusted
/// content: read-only on a server the user trusts, or exempted by the user.
fn free_after_untrusted(settings: &Settings, server: &str, tool: &str, a: &Annotations) -> bool {
    (settings.trusts(server) && reads_only(a)) || settings.exempts_after_untrusted(server, tool)
}

/// Whether what a call on `target` returns can be taken as the user's own content: only
/// from a server the user trusts, by a tool that says it does not reach the open world (per
/// MCP, a tool that says nothing may).
pub fn result_trusted(settings: &Settings, target: &Target) -> bool {
    match target {
        Target::OfferedBy(servers) => servers
            .first()
            .is_some_and(|(server, a)| settings.trusts(server) && a.open_world == Some(false)),
        // Nothing runs: the bridge's refusal is its own words.
        Target::NotOffered(_) => true,
        Target::Unknown(_) => false,
    }
}

/// The policy in force for `tool` on `target`, and why. With several servers, the
/// strictest of theirs; with none known, the strictest the user set for the tool on any
/// server.
pub fn in_force(settings: &Settings, tool: &str, target: &Target) -> (ToolPolicy, Source) {
    let strictest_set = |server: Option<&str>| match server {
        Some(s) => settings.explicit_policy(Some(s), tool),
        None => {
            let suffix = format!(":{tool}");
            let set = settings.tool_policies.iter();
            let mine = set.filter(|(key, _)| key.ends_with(&suffix));
            mine.map(|(_, p)| *p).max()
        }
    };
    match target {
        Target::OfferedBy(servers) => servers
            .iter()
            .map(|(s, a)| on_server(settings, s, tool, a))
            .max_by_key(|(p, _)| *p)
            .unwrap_or((ToolPolicy::Allow, Source::NotOffered)),
        Target::NotOffered(server) => match strictest_set(server.as_deref()) {
            Some(p) => (p, Source::User),
            None => (ToolPolicy::Allow, Source::NotOffered),
        },
        Target::Unknown(server) => match strictest_set(server.as_deref()) {
            Some(p) => (p, Source::User),
            None => (ToolPolicy::Ask, Source::Unknown),
        },
    }
}

/// What lets a call run that [`verdict`] runs, for the call log: an exemption after untrusted
/// content, the user's own go where automatic execution is off and they asked for the call,
/// the user's saved *Allow*, or else the tool's read-only claim on a trusted server.
pub fn allowed_by(
    settings: &Settings,
    tool: &str,
    target: &Target,
    by_user: bool,
    marked: Option<&str>,
) -> AllowedBy {
    let exempted = marked.is_some()
        && matches!(target, Target::OfferedBy(servers) if servers.iter().any(|(s, a)| {
            !(settings.trusts(s) && reads_only(a)) && settings.exempts_after_untrusted(s, tool)
        }));
    if exempted {
        AllowedBy::Exempted
    } else if by_user && !settings.auto_execute {
        AllowedBy::User
    } else if in_force(settings, tool, target).1 == Source::User {
        AllowedBy::Policy
    } else {
        AllowedBy::Default
    }
}

/// The verdict on a detected call. `by_user`: the user asked for this call (re-detect),
/// which stands in for automatic execution but never for an Ask or a Deny. `marked`: the
/// tool whose untrusted content the conversation read, if it did.
pub fn verdict(
    settings: &Settings,
    tool: &str,
    target: &Target,
    by_user: bool,
    marked: Option<&str>,
) -> Verdict {
    let (policy, source) = in_force(settings, tool, target);
    if policy == ToolPolicy::Deny {
        return Verdict::Deny;
    }
    if let Target::OfferedBy(servers) = target
        && servers.len() > 1
    {
        let names = servers.iter().map(|(s, _)| s.clone()).collect();
        return Verdict::Ask(AskReason::Ambiguous(names));
    }
    let free = match target {
        Target::OfferedBy(servers) => servers
            .iter()
            .all(|(s, a)| free_after_untrusted(settings, s, tool, a)),
        Target::NotOffered(_) => true,
        Target::Unknown(_) => false,
    };
    if let (Some(from), None, false) = (marked, &settings.unreadable, free) {
        return Verdict::Ask(AskReason::Untrusted(from.to_string()));
    }
    let waits = policy == ToolPolicy::Ask || (!settings.auto_execute && !by_user);
    if !waits {
        return Verdict::Run;
    }
    Verdict::Ask(match (&settings.unreadable, policy, source) {
        (Some(why), _, _) => AskReason::Unreadable(why.clone()),
        (None, ToolPolicy::Ask, Source::User) => AskReason::Policy,
        (None, ToolPolicy::Ask, Source::NotTrusted) => match target {
            Target::OfferedBy(servers) if !servers.is_empty() => {
                AskReason::NotTrusted(servers[0].0.clone())
            }
            _ => AskReason::FirstUse,
        },
        (None, ToolPolicy::Ask, _) => AskReason::FirstUse,
        (None, _, _) => AskReason::Manual,
    })
}

/// What the AI is told about a service's tools: denied ones left out, and those only an MCP
/// App view may call ([`crate::domain::bridge_api::for_model`]).
pub fn without_denied_tools(service: &str, body: Vec<u8>, settings: &Settings) -> Vec<u8> {
    let Some(mut json) = crate::domain::outcome::json_body(&body) else {
        return body;
    };
    let Some(tools) = json
        .pointer_mut("/tools/tools")
        .and_then(|t| t.as_array_mut())
    else {
        return body;
    };
    tools.retain(|t| {
        let name = t.get("name").and_then(|n| n.as_str()).unwrap_or_default();
        crate::domain::bridge_api::for_model(t)
            && settings.policy_for(Some(service), name) != ToolPolicy::Deny
    });
    serde_json::to_vec(&json).unwrap_or(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::field_error::Invalid;

    fn with(policies: &[(&str, ToolPolicy)]) -> Settings {
        let mut s = Settings::default();
        for (k, p) in policies {
            s.tool_policies.insert(k.to_string(), *p);
        }
        s
    }

    const READS: Annotations = Annotations {
        read_only: Some(true),
        destructive: None,
        idempotent: None,
        open_world: None,
    };
    const NOTHING: Annotations = Annotations {
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
    };

    fn on(servers: &[(&str, Annotations)]) -> Target {
        Target::OfferedBy(servers.iter().map(|(s, a)| (s.to_string(), *a)).collect())
    }

    #[test]
    fn with_nothing_set_read_only_tools_of_trusted_servers_run_and_others_ask_the_first_time() {
        let s = Settings::default();
        assert_eq!(
            verdict(&s, "now", &on(&[("demo", READS)]), false, None),
            Verdict::Run
        );
        assert_eq!(
            verdict(&s, "now", &on(&[("time", READS)]), false, None),
            Verdict::Ask(AskReason::NotTrusted("time".into())),
            "a server's own claim is not believed until the user trusts it"
        );
        let mut trusting = Settings::default();
        trusting.trusted_servers.insert("time".into());
        assert_eq!(
            verdict(&trusting, "now", &on(&[("time", READS)]), false, None),
            Verdict::Run
        );
        let both = Annotations {
            destructive: Some(true),
            ..READS
        };
        assert_eq!(
            in_force(&s, "wipe", &on(&[("demo", both)])),
            (ToolPolicy::Ask, Source::MayChange),
            "a destructive hint only raises"
        );
        assert_eq!(
            verdict(&s, "rm", &on(&[("files", NOTHING)]), false, None),
            Verdict::Ask(AskReason::FirstUse)
        );
        let destructive = Annotations {
            read_only: Some(false),
            destructive: Some(true),
            ..NOTHING
        };
        assert_eq!(
            in_force(&s, "rm", &on(&[("files", destructive)])),
            (ToolPolicy::Ask, Source::MayChange)
        );
    }

    #[test]
    fn what_the_user_set_wins_over_the_annotations() {
        let s = with(&[
            ("time:now", ToolPolicy::Deny),
            ("files:rm", ToolPolicy::Allow),
        ]);
        assert_eq!(
            verdict(&s, "now", &on(&[("time", READS)]), false, None),
            Verdict::Deny
        );
        assert_eq!(
            verdict(&s, "rm", &on(&[("files", NOTHING)]), false, None),
            Verdict::Run
        );
        let s = with(&[("files:rm", ToolPolicy::Ask)]);
        assert_eq!(
            verdict(&s, "rm", &on(&[("files", NOTHING)]), false, None),
            Verdict::Ask(AskReason::Policy)
        );
    }

    #[test]
    fn a_server_policy_holds_whether_or_not_the_call_names_the_server() {
        let s = with(&[
            ("demo:echo", ToolPolicy::Ask),
            ("demo:crash", ToolPolicy::Deny),
        ]);
        let demo = on(&[("demo", READS)]);
        assert_eq!(
            verdict(&s, "echo", &demo, false, None),
            Verdict::Ask(AskReason::Policy)
        );
        assert_eq!(verdict(&s, "crash", &demo, false, None), Verdict::Deny);
        assert_eq!(
            verdict(&s, "echo", &on(&[("other", READS)]), false, None),
            Verdict::Ask(AskReason::NotTrusted("other".into()))
        );
    }

    #[test]
    fn a_tool_offered_by_several_servers_asks_naming_them() {
        let s = Settings::default();
        let both = on(&[("demo", READS), ("demo2", READS)]);
        assert_eq!(
            verdict(&s, "echo", &both, false, None),
            Verdict::Ask(AskReason::Ambiguous(vec!["demo".into(), "demo2".into()]))
        );
        let s = with(&[("demo2:echo", ToolPolicy::Deny)]);
        assert_eq!(
            verdict(&s, "echo", &both, true, None),
            Verdict::Deny,
            "the strictest holds"
        );
    }

    #[test]
    fn unknown_lists_mean_the_strictest_set_policy_or_asking() {
        let s = with(&[
            ("demo:crash", ToolPolicy::Deny),
            ("x:echo", ToolPolicy::Ask),
        ]);
        assert_eq!(
            verdict(&s, "crash", &Target::Unknown(None), false, None),
            Verdict::Deny
        );
        assert_eq!(
            verdict(&s, "echo", &Target::Unknown(None), false, None),
            Verdict::Ask(AskReason::Policy)
        );
        assert_eq!(
            verdict(&s, "other", &Target::Unknown(None), false, None),
            Verdict::Ask(AskReason::FirstUse)
        );
        let s = with(&[("*:crash", ToolPolicy::Deny)]);
        assert_eq!(
            verdict(
                &s,
                "crash",
                &Target::Unknown(Some("demo".into())),
                false,
                None
            ),
            Verdict::Deny
        );
    }

    #[test]
    fn a_tool_no_server_offers_is_left_to_the_bridge_to_refuse() {
        let s = Settings::default();
        assert_eq!(
            verdict(&s, "nope", &Target::NotOffered(None), false, None),
            Verdict::Run
        );
        let s = with(&[("*:nope", ToolPolicy::Deny)]);
        assert_eq!(
            verdict(&s, "nope", &Target::NotOffered(None), false, None),
            Verdict::Deny
        );
    }

    #[test]
    fn automatic_execution_off_asks_unless_the_user_asked() {
        let mut s = Settings {
            auto_execute: false,
            ..Settings::default()
        };
        let t = on(&[("demo", READS)]);
        assert_eq!(
            verdict(&s, "now", &t, false, None),
            Verdict::Ask(AskReason::Manual)
        );
        assert_eq!(verdict(&s, "now", &t, true, None), Verdict::Run);
        s.tool_policies.insert("demo:now".into(), ToolPolicy::Ask);
        assert_eq!(
            verdict(&s, "now", &t, true, None),
            Verdict::Ask(AskReason::Policy),
            "a re-detect does not skip an Ask"
        );
    }

    #[test]
    fn after_untrusted_content_only_trusted_read_only_and_exempted_tools_keep_their_policy() {
        let mut s = with(&[
            ("files:rm", ToolPolicy::Allow),
            ("web:get", ToolPolicy::Allow),
        ]);
        let marked = Some("fetch");
        let asks = Verdict::Ask(AskReason::Untrusted("fetch".into()));
        let rm = on(&[("files", NOTHING)]);
        assert_eq!(verdict(&s, "rm", &rm, false, None), Verdict::Run);
        assert_eq!(verdict(&s, "rm", &rm, false, marked), asks);
        assert_eq!(
            verdict(&s, "rm", &rm, true, marked),
            asks,
            "a re-detect too"
        );
        assert_eq!(
            verdict(&s, "get", &on(&[("web", READS)]), false, marked),
            asks,
            "a read-only claim of an untrusted server"
        );
        assert_eq!(
            verdict(&s, "now", &on(&[("demo", READS)]), false, marked),
            Verdict::Run
        );
        assert_eq!(
            verdict(&s, "x", &Target::Unknown(None), false, marked),
            asks
        );
        s.tool_policies.insert("files:rm".into(), ToolPolicy::Deny);
        assert_eq!(verdict(&s, "rm", &rm, false, marked), Verdict::Deny);
        s.tool_policies.insert("files:rm".into(), ToolPolicy::Allow);
        s.exempt_after_untrusted.insert("files:rm".into());
        assert_eq!(verdict(&s, "rm", &rm, false, marked), Verdict::Run);
    }

    #[test]
    fn only_a_trusted_servers_closed_world_tool_returns_trusted_content() {
        let s = Settings::default();
        let closed = Annotations {
            open_world: Some(false),
            ..READS
        };
        assert!(result_trusted(&s, &on(&[("demo", closed)])));
        assert!(
            !result_trusted(&s, &on(&[("demo", READS)])),
            "open world by default"
        );
        assert!(!result_trusted(&s, &on(&[("web", closed)])));
        assert!(!result_trusted(&s, &Target::Unknown(Some("demo".into()))));
    }

    #[test]
    fn unusable_settings_say_so_when_a_call_waits() {
        let s = Settings::from_stored(Err("storage refused".into()));
        let why = FieldError::new("", Invalid::Quoted("storage refused".into()));
        assert_eq!(
            verdict(&s, "now", &on(&[("time", READS)]), false, None),
            Verdict::Ask(AskReason::Unreadable(why))
        );
    }

    #[test]
    fn denied_tools_are_left_out_of_a_services_tool_list() {
        let s = with(&[
            ("time:shutdown", ToolPolicy::Deny),
            ("other:now", ToolPolicy::Deny),
        ]);
        let body = br#"{"success":true,"tools":{"service_name":"time","tools":[{"name":"now"},{"name":"shutdown"}]}}"#;
        let out: serde_json::Value =
            serde_json::from_slice(&without_denied_tools("time", body.to_vec(), &s)).unwrap();
        let names: Vec<&str> = out["tools"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["now"]);
        // What is not a tool list is passed on as it came.
        let other = b"not json".to_vec();
        assert_eq!(without_denied_tools("time", other.clone(), &s), other);
        let no_list = br#"{"detail":"x"}"#.to_vec();
        assert_eq!(without_denied_tools("time", no_list.clone(), &s), no_list);
    }

    #[test]
    fn tools_only_a_view_may_call_are_left_out_of_a_services_tool_list() {
        let body = serde_json::json!({"tools": {"tools": [
            {"name": "show", "ui": {"visibility": ["model", "app"]}},
            {"name": "tick", "ui": {"visibility": ["app"]}}]}});
        let out =
            without_denied_tools("clock", body.to_string().into_bytes(), &Settings::default());
        let out: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let names: Vec<&str> = out["tools"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, ["show"]);
    }
}
