//! Whether a detected call runs, asks first, or is refused. A policy is kept per
//! `server:tool`, so it is applied to the server the bridge will really run, resolved
//! before the verdict: a call that leaves out `server_name` gets the policy of the one
//! server offering the tool, and cannot slip past an Ask or a Deny by saying less. Where the
//! user set nothing, the tool's own annotations decide: a read-only tool runs by itself,
//! any other asks the first time (per MCP, a tool that is not read-only may be destructive).

use crate::domain::bridge_api::Annotations;
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
        None if annotations.read_only() => (ToolPolicy::Allow, Source::ReadOnly),
        None => (ToolPolicy::Ask, Source::MayChange),
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

/// The verdict on a detected call. `by_user`: the user asked for this call (re-detect),
/// which stands in for automatic execution but never for an Ask or a Deny.
pub fn verdict(settings: &Settings, tool: &str, target: &Target, by_user: bool) -> Verdict {
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
    let waits = policy == ToolPolicy::Ask || (!settings.auto_execute && !by_user);
    if !waits {
        return Verdict::Run;
    }
    Verdict::Ask(match (&settings.unreadable, policy, source) {
        (Some(why), _, _) => AskReason::Unreadable(why.clone()),
        (None, ToolPolicy::Ask, Source::User) => AskReason::Policy,
        (None, ToolPolicy::Ask, _) => AskReason::FirstUse,
        (None, _, _) => AskReason::Manual,
    })
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
    fn with_nothing_set_read_only_tools_run_and_others_ask_the_first_time() {
        let s = Settings::default();
        assert_eq!(
            verdict(&s, "now", &on(&[("time", READS)]), false),
            Verdict::Run
        );
        assert_eq!(
            verdict(&s, "rm", &on(&[("files", NOTHING)]), false),
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
            verdict(&s, "now", &on(&[("time", READS)]), false),
            Verdict::Deny
        );
        assert_eq!(
            verdict(&s, "rm", &on(&[("files", NOTHING)]), false),
            Verdict::Run
        );
        let s = with(&[("files:rm", ToolPolicy::Ask)]);
        assert_eq!(
            verdict(&s, "rm", &on(&[("files", NOTHING)]), false),
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
            verdict(&s, "echo", &demo, false),
            Verdict::Ask(AskReason::Policy)
        );
        assert_eq!(verdict(&s, "crash", &demo, false), Verdict::Deny);
        assert_eq!(
            verdict(&s, "echo", &on(&[("other", READS)]), false),
            Verdict::Run
        );
    }

    #[test]
    fn a_tool_offered_by_several_servers_asks_naming_them() {
        let s = Settings::default();
        let both = on(&[("demo", READS), ("demo2", READS)]);
        assert_eq!(
            verdict(&s, "echo", &both, false),
            Verdict::Ask(AskReason::Ambiguous(vec!["demo".into(), "demo2".into()]))
        );
        let s = with(&[("demo2:echo", ToolPolicy::Deny)]);
        assert_eq!(
            verdict(&s, "echo", &both, true),
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
            verdict(&s, "crash", &Target::Unknown(None), false),
            Verdict::Deny
        );
        assert_eq!(
            verdict(&s, "echo", &Target::Unknown(None), false),
            Verdict::Ask(AskReason::Policy)
        );
        assert_eq!(
            verdict(&s, "other", &Target::Unknown(None), false),
            Verdict::Ask(AskReason::FirstUse)
        );
        let s = with(&[("*:crash", ToolPolicy::Deny)]);
        assert_eq!(
            verdict(&s, "crash", &Target::Unknown(Some("demo".into())), false),
            Verdict::Deny
        );
    }

    #[test]
    fn a_tool_no_server_offers_is_left_to_the_bridge_to_refuse() {
        let s = Settings::default();
        assert_eq!(
            verdict(&s, "nope", &Target::NotOffered(None), false),
            Verdict::Run
        );
        let s = with(&[("*:nope", ToolPolicy::Deny)]);
        assert_eq!(
            verdict(&s, "nope", &Target::NotOffered(None), false),
            Verdict::Deny
        );
    }

    #[test]
    fn automatic_execution_off_asks_unless_the_user_asked() {
        let mut s = Settings {
            auto_execute: false,
            ..Settings::default()
        };
        let t = on(&[("time", READS)]);
        assert_eq!(
            verdict(&s, "now", &t, false),
            Verdict::Ask(AskReason::Manual)
        );
        assert_eq!(verdict(&s, "now", &t, true), Verdict::Run);
        s.tool_policies.insert("time:now".into(), ToolPolicy::Ask);
        assert_eq!(
            verdict(&s, "now", &t, true),
            Verdict::Ask(AskReason::Policy),
            "a re-detect does not skip an Ask"
        );
    }

    #[test]
    fn unusable_settings_say_so_when_a_call_waits() {
        let s = Settings::from_stored(Err("storage refused".into()));
        let why = FieldError::new("", Invalid::Quoted("storage refused".into()));
        assert_eq!(
            verdict(&s, "now", &on(&[("time", READS)]), false),
            Verdict::Ask(AskReason::Unreadable(why))
        );
    }
}
