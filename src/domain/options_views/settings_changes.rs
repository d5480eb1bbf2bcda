//! The settings as the page shows them, and each change it makes to them: the form laid
//! over the stored settings, a tool's policy, unmasked results, the exemption after
//! untrusted content, a trusted server — each checked before it is kept.

use super::connection::check_token;
use super::{Lang, Problem};
use crate::domain::i18n::fill;
use crate::domain::settings::{Settings, ToolPolicy};
use serde::Serialize;
use serde_json::Value;

/// The settings as the options page shows them (their stored shape), and why the stored
/// ones could not be used, if they could not (the page then shows what the chat loop uses
/// instead).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingsAnswer {
    #[serde(flatten)]
    pub settings: Settings,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

/// The settings as the options page shows them; `unreadable` says why the stored ones could
/// not be used.
pub fn settings_answer(settings: &Settings, lang: Lang) -> SettingsAnswer {
    SettingsAnswer {
        settings: settings.clone(),
        unreadable: settings.unreadable.as_ref().map(|why| why.say(lang)),
    }
}

/// The settings after the form's values are laid over the stored ones. Keys the form does
/// not send (tool policies, per-site switches it did not show) keep their stored values;
/// any bad field refuses the whole change.
pub fn merge_settings(
    current: &Settings,
    submitted: &Value,
    lang: Lang,
) -> Result<Settings, Problem> {
    let says = lang.says();
    let Value::Object(fields) = submitted else {
        let message = says.settings_not_object.into();
        return Err(Problem::new("invalid", Some("settings"), message));
    };
    let mut merged =
        serde_json::to_value(current).unwrap_or_else(|_| Value::Object(serde_json::Map::new()));
    for (k, v) in fields {
        if merged.get(k).is_none() {
            let message = fill(says.not_a_setting, &[("key", k)]);
            return Err(Problem::new("invalid", Some(k), message));
        }
        if k == "sites"
            && let (Some(cur), Some(new)) = (merged[k].as_object_mut(), v.as_object())
        {
            for (site, switches) in new {
                cur.insert(site.clone(), switches.clone());
            }
            continue;
        }
        merged[k] = v.clone();
    }
    // A token of blanks is refused when the form sends one; an empty one is allowed (the
    // bridge decides, and the status explains its 401).
    if let Some(t) = fields.get("token").and_then(Value::as_str) {
        merged["token"] = Value::String(check_token(lang, t)?);
    }
    if let Some(u) = merged.get("bridgeUrl").and_then(Value::as_str) {
        merged["bridgeUrl"] = Value::String(u.trim().to_string());
    }
    Settings::from_json(&merged).map_err(|e| Problem::invalid(e, lang))
}

/// Sets one tool's policy; `key` is `server:tool` (`*:tool` for any server), on every site
/// or, with `site`, on that chat site only. `None` removes the user's choice, so the tool's
/// own default (or the every-site choice, on a site) applies again.
pub fn set_policy(
    current: &Settings,
    key: &str,
    policy: Option<ToolPolicy>,
    site: Option<&str>,
    lang: Lang,
) -> Result<Settings, Problem> {
    check_tool_key(key, lang)?;
    let mut s = current.clone();
    let policies = match site {
        Some(site) => s.site_tool_policies.entry(site.to_string()).or_default(),
        None => &mut s.tool_policies,
    };
    match policy {
        Some(p) => policies.insert(key.to_string(), p),
        None => policies.remove(key),
    };
    s.site_tool_policies.retain(|_, mine| !mine.is_empty());
    Ok(s)
}

/// The settings with the results of `key` (`server:tool`) let through unmasked, or not.
pub fn set_unmasked(
    current: &Settings,
    key: &str,
    unmasked: bool,
    lang: Lang,
) -> Result<Settings, Problem> {
    check_tool_key(key, lang)?;
    let mut s = current.clone();
    if unmasked {
        s.unmasked_results.insert(key.to_string());
    } else {
        s.unmasked_results.remove(key);
    }
    Ok(s)
}

/// The settings with `key` (`server:tool`) exempted from asking after untrusted content,
/// or not.
pub fn set_exempt(
    current: &Settings,
    key: &str,
    exempt: bool,
    lang: Lang,
) -> Result<Settings, Problem> {
    check_tool_key(key, lang)?;
    let mut s = current.clone();
    if exempt {
        s.exempt_after_untrusted.insert(key.to_string());
    } else {
        s.exempt_after_untrusted.remove(key);
    }
    Ok(s)
}

/// The settings with `server` trusted, or not (the built-in demo server is always trusted).
pub fn set_trusted(current: &Settings, server: &str, trusted: bool) -> Settings {
    let mut s = current.clone();
    if trusted {
        s.trusted_servers.insert(server.to_string());
    } else {
        s.trusted_servers.remove(server);
    }
    s
}

/// `key` is one tool on one server: `server:tool`.
fn check_tool_key(key: &str, lang: Lang) -> Result<(), Problem> {
    match key.split_once(':') {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() && !tool.contains(':') => {
            Ok(())
        }
        _ => {
            let message = fill(lang.says().not_server_tool, &[("key", key)]);
            Err(Problem::new("invalid", Some("key"), message))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::options_views::{read_resource_tool, tool_view};
    use crate::domain::policy::Source;
    use serde_json::json;

    const EN: Lang = Lang::En;

    #[test]
    fn a_tools_results_are_let_through_unmasked_only_by_its_key() {
        let s = set_unmasked(&Settings::default(), "demo:echo", true, Lang::En).unwrap();
        assert!(s.passes_unmasked(Some("demo"), "echo"));
        assert!(
            !s.passes_unmasked(None, "echo"),
            "a call naming no server stays masked"
        );
        assert!(!s.passes_unmasked(Some("other"), "echo"));
        let stored = serde_json::to_value(&s).unwrap();
        assert_eq!(stored["unmaskedResults"], serde_json::json!(["demo:echo"]));
        assert_eq!(Settings::from_json(&stored).unwrap(), s);
        let s = set_unmasked(&s, "demo:echo", false, Lang::En).unwrap();
        assert!(!s.passes_unmasked(Some("demo"), "echo"));
        assert!(set_unmasked(&s, "echo", true, Lang::En).is_err());
    }

    #[test]
    fn trusting_a_server_believes_its_read_only_claims_and_an_exemption_is_kept_per_tool() {
        let mut tool = read_resource_tool(Lang::En);
        tool.name = "now".into();
        tool.annotations.read_only = Some(true);
        let row = tool_view("time", &tool, &Settings::default(), Lang::En);
        assert_eq!(
            (row.policy, row.policy_source),
            (ToolPolicy::Ask, Source::NotTrusted)
        );
        assert!(
            row.policy_why.contains("not marked its server trusted"),
            "{}",
            row.policy_why
        );
        assert!(!row.exempt, "off by default");
        let s = set_trusted(&Settings::default(), "time", true);
        let row = tool_view("time", &tool, &s, Lang::En);
        assert_eq!(
            (row.policy, row.policy_source),
            (ToolPolicy::Allow, Source::ReadOnly)
        );
        let s = set_exempt(&s, "time:now", true, Lang::En).unwrap();
        assert!(tool_view("time", &tool, &s, Lang::En).exempt);
        let stored = serde_json::to_value(&s).unwrap();
        assert_eq!(stored["trustedServers"], serde_json::json!(["time"]));
        assert_eq!(
            stored["exemptAfterUntrusted"],
            serde_json::json!(["time:now"])
        );
        assert_eq!(Settings::from_json(&stored).unwrap(), s);
        assert!(set_exempt(&s, "now", true, Lang::En).is_err());
        // Settings stored before the flags existed read as before: nothing trusted but demo.
        let old = Settings::from_json(&serde_json::json!({"toolPolicies": {"time:now": "allow"}}))
            .unwrap();
        assert!(old.trusts("demo") && !old.trusts("time"));
        assert_eq!(
            old.explicit_policy(Some("time"), "now"),
            Some(ToolPolicy::Allow)
        );
    }

    #[test]
    fn merged_settings_keep_what_the_form_did_not_send() {
        let current = Settings::from_json(&json!({"token":"t0","toolPolicies":{"a:b":"deny"},
            "sites":{"deepseek":{"disabled":true}}}))
        .unwrap();
        let s = merge_settings(
            &current,
            &json!({"bridgeUrl":" http://localhost:4000 ","autoSend":false,
                    "sites":{"kimi":{"autoInsertInstructions":true}}}),
            EN,
        )
        .unwrap();
        assert_eq!(s.bridge_url, "http://localhost:4000");
        assert!(!s.auto_send);
        assert_eq!(s.token, "t0");
        assert_eq!(s.policy_for(Some("a"), "b"), ToolPolicy::Deny);
        assert!(s.site("deepseek").disabled);
        assert!(s.site("kimi").auto_insert_instructions);
    }

    #[test]
    fn bad_settings_name_the_field_and_change_nothing() {
        let current = Settings::from_json(&json!({"token":"t0"})).unwrap();
        for (submitted, field) in [
            (json!({"bridgeUrl":"http://evil.example:3849"}), "bridgeUrl"),
            (json!({"token":"  "}), "token"),
            (json!({"stackLines":0}), "stackLines"),
            (json!({"stackLines":"ten"}), "stackLines"),
            (json!({"maxAutoRounds":1000}), "maxAutoRounds"),
            (json!({"language":"fr"}), "language"),
            (json!({"colour":"red"}), "colour"),
            (
                json!({"sites":{"kimi":{"disabled":"yes"}}}),
                "sites.kimi.disabled",
            ),
        ] {
            let e = merge_settings(&current, &submitted, EN).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{submitted}: {e:?}");
        }
        assert!(merge_settings(&current, &json!([1]), EN).is_err());
        // Behaviour can be saved before there is a token at all.
        let fresh = merge_settings(&Settings::default(), &json!({"stackLines": 5}), EN).unwrap();
        assert_eq!(fresh.stack_lines, 5);
        // No token is the user's choice (a `--no-auth` bridge needs none); blanks are a typo.
        assert!(merge_settings(&Settings::default(), &json!({"token": ""}), EN).is_ok());
        assert!(merge_settings(&Settings::default(), &json!({"token": " "}), EN).is_err());
    }

    #[test]
    fn unusable_stored_settings_are_named_and_a_save_replaces_them() {
        let stored = json!({"token": "t0", "maxAutoRounds": 0});
        let shown = Settings::from_stored(Ok(Some(stored)));
        let answer = json!(settings_answer(&shown, EN));
        assert_eq!(answer["token"], "t0");
        assert_eq!(answer["autoExecute"], false);
        assert_eq!(
            answer["unreadable"],
            "maxAutoRounds: must be between 1 and 100, got 0"
        );
        // The reason is never a setting: a save stores settings that validate, without it.
        assert!(merge_settings(&shown, &json!({"unreadable": "x"}), EN).is_err());
        let saved = merge_settings(&shown, &json!({"autoExecute": true}), EN).unwrap();
        assert_eq!(saved.unreadable, None);
        assert!(
            json!(settings_answer(&saved, EN))
                .get("unreadable")
                .is_none()
        );
        assert!(Settings::from_json(&json!(saved)).is_ok());
    }

    #[test]
    fn policies_need_a_server_and_tool_key() {
        let s = set_policy(
            &Settings::default(),
            "demo:crash",
            Some(ToolPolicy::Deny),
            None,
            EN,
        )
        .unwrap();
        assert_eq!(s.policy_for(Some("demo"), "crash"), ToolPolicy::Deny);
        // Back to the tool's own default: the user's choice is gone.
        let back = set_policy(&s, "demo:crash", None, None, EN).unwrap();
        assert_eq!(back.explicit_policy(Some("demo"), "crash"), None);
        assert!(
            set_policy(
                &Settings::default(),
                "*:echo",
                Some(ToolPolicy::Ask),
                None,
                EN
            )
            .is_ok()
        );
        for bad in ["crash", ":crash", "demo:", "a:b:c"] {
            let e =
                set_policy(&Settings::default(), bad, Some(ToolPolicy::Ask), None, EN).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("key"));
        }
    }
}
