//! What the float adds after a call that did not run or did not work, so the person learns
//! what the report tells the AI: one short line of why a call failed (in the person's
//! language for our own and the bridge's errors, else the tool's own words, masked and cut
//! short), a tool the bridge blocks after repeated failures (with *Reset*), and a refusal
//! that comes from the person's saved *Deny* (with *Ask me next time*).

use crate::domain::classify::{self, Category, Said};
use crate::domain::float::{self, ActionId, FloatState, FloatStatus};
use crate::domain::i18n::{Lang, fill};
use crate::domain::outcome::{CallOutcome, cut_chars};
use crate::domain::redact::Masked;
use crate::domain::report::text::{self, Address};

/// A reason line is at most this many characters (the float is a few lines tall).
const LINE_CHARS: usize = 160;
/// A tool's own words are cut to this many characters, inside the line.
const WORDS_CHARS: usize = 120;

/// Adds to the float of a finished call (`f`, from [`float::finished`]) what the person
/// needs to know about `outcome`: why it failed, that the tool is blocked, or that their
/// saved choice refused it. A float of a setup problem or a success is left as it is.
/// `server`: the server the call named, if any; `bridge`: the bridge's address, for the
/// situations that name it.
pub fn explain(
    f: &mut FloatState,
    lang: Lang,
    tool: &str,
    server: Option<&str>,
    outcome: &CallOutcome,
    bridge: Address<'_>,
) {
    let says = lang.says();
    match f.status {
        FloatStatus::Denied => {
            // A call refused without a question is refused by the saved *Deny*: say that
            // it stays so, and offer to undo it.
            if f.detail.is_none() {
                f.detail = Some(Masked::new(says.ui_denied_kept));
            }
            f.server = server.map(str::to_string);
            f.actions
                .push(float::action(lang, ActionId::AskNextTime, false));
        }
        FloatStatus::Error => {
            let Some(d) = classify::diagnose(tool, outcome) else {
                return;
            };
            if d.category == Category::Limit {
                f.title = Masked::new(&fill(says.ui_blocked, &[("tool", &float::code(tool))]));
                f.server = server.map(str::to_string);
                f.actions
                    .push(float::action(lang, ActionId::ResetTool, false));
                return;
            }
            if f.detail.is_none() {
                let why = cut_chars(&reason(lang, &d, bridge), LINE_CHARS);
                f.detail = Some(Masked::new(&fill(says.ui_why, &[("why", &why)])));
            }
        }
        _ => {}
    }
}

/// Why, in one line: a situation of our own in the person's words; the tool's own words
/// where they are the reason (its first line, as code); else what the bridge's error means, by its
/// category, in the person's words (the bridge writes English for the AI).
fn reason(lang: Lang, d: &classify::Diagnosis, bridge: Address<'_>) -> String {
    let says = lang.says();
    match &d.message {
        Said::Note(_) => text::said(&d.message, lang, bridge),
        Said::Quoted(words)
            if d.error_type == "ToolError"
                || matches!(d.category, Category::Runtime | Category::Logical) =>
        {
            // Marked as code: data in whatever language the tool wrote, shown as it is.
            let first = words.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let cut = cut_chars(first.trim(), WORDS_CHARS);
            fill(says.ui_reason_said, &[("said", &float::code(&cut))])
        }
        Said::Quoted(_) => match d.category {
            Category::Validation => says.ui_reason_validation.into(),
            Category::Aborted => says.ui_reason_aborted.into(),
            Category::Unavailable => says.ui_reason_unavailable.into(),
            _ => says.ui_reason_exception.into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::float::Finished;
    use crate::domain::outcome::from_http;

    const BRIDGE: Address<'static> = Address {
        url: "http://127.0.0.1:3849",
    };

    fn failed(lang: Lang, status: FloatStatus) -> FloatState {
        let how = Finished {
            tool: Some("read_text_file"),
            setup: None,
            delivery_problem: None,
        };
        let outcome = float::new(status, "x", lang);
        float::finished(lang, outcome, &Masked::new("report"), how)
    }

    fn tool_error(text: &str) -> CallOutcome {
        let body = serde_json::json!({
            "success": true,
            "result": {"content": [{"type": "text", "text": text}], "isError": true},
        });
        from_http(200, None, body.to_string().as_bytes())
    }

    fn explained(lang: Lang, status: FloatStatus, outcome: &CallOutcome) -> FloatState {
        let mut f = failed(lang, status);
        explain(&mut f, lang, "read_text_file", Some("fs"), outcome, BRIDGE);
        f
    }

    fn ids(f: &FloatState) -> Vec<ActionId> {
        f.actions.iter().map(|a| a.id).collect()
    }

    #[test]
    fn a_tool_failure_says_the_tools_own_first_line_masked_and_cut_short() {
        let words = "Error: Access denied - path outside allowed directories: /etc/passwd not in /tmp/x\n  at stack line";
        let f = explained(Lang::Zh, FloatStatus::Error, &tool_error(words));
        let detail = f.detail.unwrap();
        assert_eq!(
            detail.as_str(),
            "原因：工具的说明：`Error: Access denied - path outside allowed directories: /etc/passwd not in /tmp/x`"
        );
        let secret = format!(
            "failed with key sk-ant-api03-{} {}",
            "A".repeat(40),
            "x".repeat(400)
        );
        let f = explained(Lang::En, FloatStatus::Error, &tool_error(&secret));
        let detail = f.detail.unwrap();
        assert!(!detail.as_str().contains("AAAAAAAAAAAAAAAA"), "{detail:?}");
        assert!(
            detail.as_str().chars().count() <= LINE_CHARS + 10,
            "{detail:?}"
        );
        assert!(detail.as_str().ends_with("…`"), "{detail:?}");
    }

    #[test]
    fn the_bridges_and_our_own_errors_are_said_in_the_persons_language() {
        // The bridge's English words for the AI become a sentence of the person's.
        let body = r#"{"success":false,"error":"Invalid arguments: date must be YYYY-MM-DD","errorType":"ValidationError"}"#;
        let outcome = from_http(400, None, body.as_bytes());
        let f = explained(Lang::Zh, FloatStatus::Error, &outcome);
        assert_eq!(
            f.detail.unwrap().as_str(),
            "原因：助手给出的参数不符合工具的要求。"
        );
        // A situation of ours (no words of its own) is worded in the person's language.
        let f = explained(Lang::Zh, FloatStatus::Error, &tool_error(""));
        let detail = f.detail.unwrap();
        assert!(detail.as_str().starts_with("原因："), "{detail:?}");
        assert!(
            !detail.as_str().chars().any(|c| c.is_ascii_alphabetic()),
            "{detail:?}"
        );
        let f = explained(
            Lang::En,
            FloatStatus::Error,
            &CallOutcome::Timeout { after_ms: 1000 },
        );
        assert!(f.detail.unwrap().as_str().starts_with("Why: "));
    }

    #[test]
    fn a_blocked_tool_says_so_and_offers_reset() {
        let body = r#"{"success":false,"error":"Tool read_text_file on server fs failed 3 times in a row (call limit 3); reset with POST /reset-history"}"#;
        let outcome = from_http(429, None, body.as_bytes());
        for lang in [Lang::En, Lang::Zh] {
            let f = explained(lang, FloatStatus::Error, &outcome);
            assert!(f.title.as_str().contains("`read_text_file`"));
            assert_eq!(ids(&f), [ActionId::ResetTool]);
            assert_eq!(f.server.as_deref(), Some("fs"));
        }
        let en = explained(Lang::En, FloatStatus::Error, &outcome);
        assert!(en.title.as_str().contains("is blocked"), "{:?}", en.title);
        let zh = explained(Lang::Zh, FloatStatus::Error, &outcome);
        assert!(zh.title.as_str().contains("已被阻止"), "{:?}", zh.title);
    }

    #[test]
    fn a_refusal_by_a_kept_deny_says_it_is_kept_and_offers_to_ask_again() {
        let f = explained(Lang::En, FloatStatus::Denied, &CallOutcome::Denied);
        assert_eq!(
            f.detail.as_ref().unwrap().as_str(),
            "Your choice is kept: the AI's calls of this tool are refused until you change it."
        );
        assert_eq!(ids(&f), [ActionId::AskNextTime]);
        let label = &f.actions[0].label;
        assert_eq!(label, "Ask me next time");
        assert!(!f.actions[0].primary);
    }

    #[test]
    fn a_success_or_a_setup_problem_is_left_alone() {
        let f0 = failed(Lang::En, FloatStatus::Success);
        let mut f = f0.clone();
        explain(&mut f, Lang::En, "t", None, &CallOutcome::Aborted, BRIDGE);
        assert_eq!(f, f0);
    }
}
