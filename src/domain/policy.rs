//! Whether a detected call runs, asks first, or is refused. A policy is kept per
//! `server:tool`, so it is applied to the server the bridge will really run, resolved
//! before the verdict: a call that leaves out `server_name` gets the policy of the one
//! server offering the tool, and cannot slip past an Ask or a Deny by saying less.

use crate::domain::field_error::FieldError;
use crate::domain::settings::{Settings, ToolPolicy};

/// What the call will run on, as far as the core could find out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The call names its server.
    Named(String),
    /// The call names none; these servers offer the tool (in the bridge's order: it runs
    /// the first).
    OfferedBy(Vec<String>),
    /// The call names none and the bridge's tool lists could not be read.
    Unknown,
}

/// Why a call waits for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskReason {
    /// The tool's policy is Ask.
    Policy,
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

/// The policy in force for `tool` on `target`. With several servers or none known, the
/// strictest policy any of them (or any server at all, when none is known) has for the
/// tool: what the user set for one server holds whichever the bridge picks.
pub fn policy_for(settings: &Settings, tool: &str, target: &Target) -> ToolPolicy {
    match target {
        Target::Named(server) => settings.policy_for(Some(server), tool),
        Target::OfferedBy(servers) if !servers.is_empty() => servers
            .iter()
            .map(|s| settings.policy_for(Some(s), tool))
            .max()
            .unwrap_or_default(),
        _ => {
            let suffix = format!(":{tool}");
            settings
                .tool_policies
                .iter()
                .filter(|(key, _)| key.ends_with(&suffix))
                .map(|(_, p)| *p)
                .max()
                .unwrap_or_default()
        }
    }
}

/// The verdict on a detected call. `by_user`: the user asked for this call (re-detect),
/// which stands in for automatic execution but never for an Ask or a Deny.
pub fn verdict(settings: &Settings, tool: &str, target: &Target, by_user: bool) -> Verdict {
    let policy = policy_for(settings, tool, target);
    if policy == ToolPolicy::Deny {
        return Verdict::Deny;
    }
    if let Target::OfferedBy(servers) = target
        && servers.len() > 1
    {
        return Verdict::Ask(AskReason::Ambiguous(servers.clone()));
    }
    let waits = policy == ToolPolicy::Ask || (!settings.auto_execute && !by_user);
    if !waits {
        return Verdict::Run;
    }
    Verdict::Ask(match (&settings.unreadable, policy) {
        (Some(why), _) => AskReason::Unreadable(why.clone()),
        (None, ToolPolicy::Ask) => AskReason::Policy,
        (None, _) => AskReason::Manual,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(policies: &[(&str, ToolPolicy)]) -> Settings {
        let mut s = Settings::default();
        for (k, p) in policies {
            s.tool_policies.insert(k.to_string(), *p);
        }
        s
    }

    fn named(s: &str) -> Target {
        Target::Named(s.into())
    }

    fn offered(servers: &[&str]) -> Target {
        Target::OfferedBy(servers.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn a_server_policy_holds_whether_or_not_the_call_names_the_server() {
        let s = with(&[
            ("demo:echo", ToolPolicy::Ask),
            ("demo:crash", ToolPolicy::Deny),
        ]);
        for target in [named("demo"), offered(&["demo"])] {
            assert_eq!(
                verdict(&s, "echo", &target, false),
                Verdict::Ask(AskReason::Policy)
            );
            assert_eq!(verdict(&s, "crash", &target, false), Verdict::Deny);
        }
        assert_eq!(verdict(&s, "echo", &named("other"), false), Verdict::Run);
    }

    #[test]
    fn a_tool_offered_by_several_servers_asks_naming_them() {
        let s = Settings::default();
        assert_eq!(
            verdict(&s, "echo", &offered(&["demo", "demo2"]), false),
            Verdict::Ask(AskReason::Ambiguous(vec!["demo".into(), "demo2".into()]))
        );
        // …unless one of them is denied everywhere it could run.
        let s = with(&[
            ("demo:echo", ToolPolicy::Deny),
            ("demo2:echo", ToolPolicy::Deny),
        ]);
        assert_eq!(
            verdict(&s, "echo", &offered(&["demo", "demo2"]), false),
            Verdict::Deny
        );
        let s = with(&[("demo2:echo", ToolPolicy::Deny)]);
        assert_eq!(
            verdict(&s, "echo", &offered(&["demo", "demo2"]), true),
            Verdict::Deny,
            "the strictest holds"
        );
    }

    #[test]
    fn an_unknown_server_gets_the_strictest_policy_set_for_the_tool() {
        let s = with(&[
            ("demo:crash", ToolPolicy::Deny),
            ("x:echo", ToolPolicy::Ask),
        ]);
        assert_eq!(verdict(&s, "crash", &Target::Unknown, false), Verdict::Deny);
        assert_eq!(
            verdict(&s, "echo", &offered(&[]), false),
            Verdict::Ask(AskReason::Policy)
        );
        assert_eq!(verdict(&s, "other", &Target::Unknown, false), Verdict::Run);
        // `*:` is a key like any other.
        let s = with(&[("*:crash", ToolPolicy::Deny)]);
        assert_eq!(verdict(&s, "crash", &named("demo"), false), Verdict::Deny);
    }

    #[test]
    fn automatic_execution_off_asks_unless_the_user_asked() {
        let mut s = Settings {
            auto_execute: false,
            ..Settings::default()
        };
        let t = named("time");
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
        assert_eq!(
            verdict(&s, "now", &named("time"), false),
            Verdict::Ask(AskReason::Unreadable(FieldError::new(
                "",
                crate::domain::field_error::Invalid::Quoted("storage refused".into())
            )))
        );
    }
}
