//! What left this machine: every call the chat loop sent to the bridge, per conversation,
//! with its masked arguments, the site and what let it run, so the user can see what the AI
//! sent out and why it was allowed.

use crate::domain::i18n::Lang;
use crate::domain::redact;
use crate::domain::toolcall::ToolCall;
use serde::{Deserialize, Serialize};

/// How many calls are kept; the oldest go first.
pub const CAP: usize = 500;

/// The longest arguments text kept for one call (characters); the rest is cut with `…`.
pub const ARGUMENTS_CHARS: usize = 2000;

/// What let a call run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AllowedBy {
    /// The user's go for this call: *Allow once* or *Always allow* in the float, a call the
    /// user pasted, or one they asked to run again.
    User,
    /// The user's saved *Allow* for the tool.
    Policy,
    /// Nothing was set: the tool says it only reads, on a server the user trusts.
    Default,
    /// The conversation read untrusted content, and the user let this tool run anyway.
    Exempted,
    /// Not a call: a message the tool's view typed into the chat input (its text as the
    /// arguments).
    ViewMessage,
    /// Not a call: a link the tool's view offered, opened only on the user's click (its
    /// address as the arguments).
    ViewLink,
}

/// One call that left for the bridge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoggedCall {
    pub id: u64,
    pub time_ms: f64,
    /// The conversation: the chat page's address without its fragment.
    pub conversation: String,
    /// The chat site's host.
    pub site: String,
    /// The server it was sent to, when the call or the tool lists named one.
    pub server: Option<String>,
    pub tool: String,
    /// The arguments as JSON text, masked and cut to [`ARGUMENTS_CHARS`].
    pub arguments: String,
    pub allowed_by: AllowedBy,
}

impl LoggedCall {
    /// The record of a call, its arguments masked here, so nothing unmasked is ever stored.
    /// `id` is the caller's, unique within the log.
    pub fn new(
        id: u64,
        time_ms: f64,
        conversation: &str,
        site: &str,
        call: &ToolCall,
        allowed_by: AllowedBy,
    ) -> LoggedCall {
        let text = redact::redact_owned(&call.arguments.to_string());
        let arguments = match text.char_indices().nth(ARGUMENTS_CHARS) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text,
        };
        LoggedCall {
            id,
            time_ms,
            conversation: conversation.to_string(),
            site: site.to_string(),
            server: call.server_name.clone(),
            tool: call.tool_name.clone(),
            arguments,
            allowed_by,
        }
    }
}

/// The stored log, newest last.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallLog {
    #[serde(default)]
    pub entries: Vec<LoggedCall>,
}

impl CallLog {
    /// Adds a call; past [`CAP`] the oldest entries go.
    pub fn push(&mut self, entry: LoggedCall) {
        self.entries.push(entry);
        let excess = self.entries.len().saturating_sub(CAP);
        self.entries.drain(..excess);
    }

    /// Takes back a call that never reached the bridge (it was held: the bridge was away or
    /// refused the token); when it runs later it is logged again.
    pub fn remove(&mut self, id: u64) {
        self.entries.retain(|e| e.id != id);
    }

    /// The conversations, the most recent first, each with its calls, newest first.
    pub fn by_conversation(&self) -> Vec<Conversation> {
        let mut out: Vec<Conversation> = Vec::new();
        for e in self.entries.iter().rev() {
            match out.iter_mut().find(|c| c.conversation == e.conversation) {
                Some(c) => c.calls.push(e.clone()),
                None => out.push(Conversation {
                    conversation: e.conversation.clone(),
                    site: e.site.clone(),
                    calls: vec![e.clone()],
                }),
            }
        }
        out
    }
}

/// One conversation's calls, as the options page lists them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub conversation: String,
    pub site: String,
    pub calls: Vec<LoggedCall>,
}

/// The options page's view of the log: the conversations, and what each verdict says in the
/// page's language (`allowedBy` of a call → its words).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct View {
    pub conversations: Vec<Conversation>,
    pub verdicts: std::collections::BTreeMap<&'static str, &'static str>,
}

/// The log as the options page shows it, in `lang`.
pub fn view(log: &CallLog, lang: Lang) -> View {
    let says = lang.says();
    let verdicts = [
        ("user", says.call_by_user),
        ("policy", says.call_by_policy),
        ("default", says.call_by_default),
        ("exempted", says.call_by_exemption),
        ("view-message", says.call_by_view_message),
        ("view-link", says.call_by_view_link),
    ];
    View {
        conversations: log.by_conversation(),
        verdicts: verdicts.into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(tool: &str, arguments: serde_json::Value) -> ToolCall {
        ToolCall {
            tool_name: tool.into(),
            arguments,
            server_name: Some("files".into()),
        }
    }

    #[test]
    fn arguments_are_masked_and_cut_before_they_are_kept() {
        let mut log = CallLog::default();
        let secret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let c = "https://a.test/c/1";
        let send = call("send", json!({"key": secret}));
        log.push(LoggedCall::new(0, 1.0, c, "a.test", &send, AllowedBy::User));
        let write = call("write", json!({"text": "x".repeat(5000)}));
        log.push(LoggedCall::new(
            1,
            2.0,
            c,
            "a.test",
            &write,
            AllowedBy::Policy,
        ));
        assert!(
            !log.entries[0].arguments.contains(secret),
            "{}",
            log.entries[0].arguments
        );
        assert!(log.entries[0].arguments.contains("key"));
        assert_eq!(
            log.entries[1].arguments.chars().count(),
            ARGUMENTS_CHARS + 1
        );
        assert!(log.entries[1].arguments.ends_with('…'));
    }

    #[test]
    fn the_log_keeps_the_newest_calls_grouped_by_conversation() {
        let mut log = CallLog::default();
        for i in 0..CAP + 3 {
            let conversation = format!("https://a.test/c/{}", i % 2);
            let t = call("t", json!({"i": i}));
            let id = i as u64;
            log.push(LoggedCall::new(
                id,
                i as f64,
                &conversation,
                "a.test",
                &t,
                AllowedBy::Default,
            ));
        }
        assert_eq!(log.entries.len(), CAP);
        assert_eq!(log.entries[0].id, 3, "the oldest went first");
        let groups = log.by_conversation();
        assert_eq!(groups.len(), 2);
        // The most recent conversation first, its newest call first.
        assert_eq!(
            groups[0].conversation,
            format!("https://a.test/c/{}", (CAP + 2) % 2)
        );
        assert_eq!(groups[0].calls[0].id, (CAP + 2) as u64);
        assert!(groups[0].calls.windows(2).all(|w| w[0].id > w[1].id));
        let id = log.entries[10].id;
        log.remove(id);
        assert!(log.entries.iter().all(|e| e.id != id));
    }

    #[test]
    fn every_verdict_has_words_in_both_languages() {
        for lang in [Lang::En, Lang::Zh] {
            let v = view(&CallLog::default(), lang);
            for allowed in [
                AllowedBy::User,
                AllowedBy::Policy,
                AllowedBy::Default,
                AllowedBy::Exempted,
            ] {
                let name = serde_json::to_value(allowed).unwrap();
                let words = v.verdicts.get(name.as_str().unwrap());
                assert!(words.is_some_and(|w| !w.is_empty()), "{lang:?} {name}");
            }
        }
    }

    #[test]
    fn the_stored_shape_reads_back_and_an_empty_value_is_an_empty_log() {
        let mut log = CallLog::default();
        let t = call("t", json!({}));
        log.push(LoggedCall::new(
            7,
            5.0,
            "https://a.test/",
            "a.test",
            &t,
            AllowedBy::Exempted,
        ));
        let text = serde_json::to_string(&log).unwrap();
        assert!(text.contains(r#""allowedBy":"exempted""#), "{text}");
        assert_eq!(serde_json::from_str::<CallLog>(&text).unwrap(), log);
        assert_eq!(
            serde_json::from_str::<CallLog>("{}").unwrap(),
            CallLog::default()
        );
    }
}
