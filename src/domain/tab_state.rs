//! Per-tab state of the chat loop and the decision taken on every report from a tab:
//! wait for the answer to settle, ignore it, ask first, or run its call — at most once.
//!
//! Pure logic: [`crate::domain::tab_events::step`] feeds it the reports and the clock and
//! turns the decision into effects; the background persists the state in
//! `chrome.storage.session` (so it survives a service-worker restart).

use crate::domain::call_log::AllowedBy;
use crate::domain::hash::{BASIS, Fnv1a};
use crate::domain::outcome::{CallOutcome, ErrorDetail, ErrorFields};
use crate::domain::settings::{Settings, SiteScope};
use crate::domain::toolcall::{MalformedCall, ToolCall, find_last_call};
use mcp_bridge_protocol::errors::ErrorType;
use serde::{Deserialize, Serialize};

/// The bridge's error type for a remote server that needs the user to sign in (again).
pub const SIGN_IN_REQUIRED: &str = ErrorType::SignInRequired.as_str();

/// What the tab is doing (docs/ARCHITECTURE.md, "A tool call": idle → detected → executing → injecting → done/error).
/// Stored externally tagged (`"idle"`, `{"executing": {…}}`): serde reads that shape without
/// its buffering `Content` machinery, which internal tagging needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum Phase {
    #[default]
    Idle,
    /// A call waits for the user's go.
    Detected {
        key: String,
        call: ToolCall,
    },
    Executing {
        key: String,
        tool: String,
        started_ms: f64,
        /// The bridge's id of a long call, to resume polling after a worker restart.
        call_id: Option<String>,
        /// The user pressed *Cancel*: whatever the call answers, it is reported as cancelled.
        #[serde(default)]
        cancelled: bool,
    },
    Injecting {
        key: String,
    },
    /// The call could not reach the bridge for a reason of the user's setup (not running, no
    /// or a wrong token): it did not run, and waits to run once the bridge answers, or for
    /// the user to tell the AI or skip it.
    Held {
        key: String,
        call: ToolCall,
        /// What kept it from the bridge, for "Tell the AI".
        problem: SetupProblem,
        /// The user's policy already let it run; otherwise it is judged once the bridge
        /// answers (its tools' annotations were out of reach).
        #[serde(default)]
        judged: bool,
        /// What let it run, when it was judged (for the call log once it runs).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        allowed: Option<AllowedBy>,
    },
    Done,
    Error,
}

impl Phase {
    /// Whether no call of the tab needs the float: nothing detected, held, asked about or
    /// running. Only then may the float show something else, such as the connection's status.
    pub fn at_rest(&self) -> bool {
        matches!(self, Phase::Idle | Phase::Done | Phase::Error)
    }
}

/// What kept a held call from the bridge, as it is stored. (Not the `CallOutcome` itself: its
/// internally tagged form would bring serde's buffering deserializer into the wasm.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum SetupProblem {
    /// No answer at all (no bridge at the address).
    Unreachable { message: String },
    /// The bridge refused the request itself (a token, the extension's origin, or a remote
    /// server that needs the user to sign in).
    Refused {
        status: u16,
        error_type: Option<String>,
        message: String,
        /// The MCP server the refusal is about (the one to sign in to).
        #[serde(default)]
        server: Option<String>,
    },
}

impl SetupProblem {
    /// The server a held call waits for the user to sign in to, when that is the problem.
    pub fn sign_in_server(&self) -> Option<&str> {
        match self {
            SetupProblem::Refused {
                error_type: Some(error_type),
                server,
                ..
            } if error_type == SIGN_IN_REQUIRED => Some(server.as_deref().unwrap_or_default()),
            _ => None,
        }
    }

    /// The parts of `outcome` a held call keeps; `None` for an outcome that is not one.
    pub fn of(outcome: &CallOutcome) -> Option<SetupProblem> {
        match outcome {
            CallOutcome::Unreachable { message } => Some(SetupProblem::Unreachable {
                message: message.clone(),
            }),
            CallOutcome::HttpError {
                status,
                detail: ErrorDetail::Object { error },
                ..
            } => Some(SetupProblem::Refused {
                status: *status,
                error_type: error.error_type.clone(),
                message: error.message.clone(),
                server: error.server.clone(),
            }),
            CallOutcome::HttpError { status, .. } => Some(SetupProblem::Refused {
                status: *status,
                error_type: None,
                message: String::new(),
                server: None,
            }),
            _ => None,
        }
    }

    /// The outcome again, for the report the AI gets.
    pub fn outcome(&self) -> CallOutcome {
        match self {
            SetupProblem::Unreachable { message } => CallOutcome::unreachable(message.clone()),
            SetupProblem::Refused {
                status,
                error_type,
                message,
                server,
            } => CallOutcome::HttpError {
                status: *status,
                detail: ErrorDetail::Object {
                    error: ErrorFields {
                        message: message.clone(),
                        error_type: error_type.clone(),
                        server: server.clone(),
                        ..ErrorFields::default()
                    },
                },
                trace_id: None,
            },
        }
    }
}

/// Whether `GET /tools` (`services`) lists server `server` as running; an unnamed server
/// counts as running (there is nothing to wait for by name).
pub fn server_running(services: &serde_json::Value, server: &str) -> bool {
    server.is_empty()
        || services["services"].as_array().is_some_and(|list| {
            list.iter()
                .any(|s| s["name"] == server && s["status"] == "running")
        })
}

/// Everything the core remembers about one tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct TabState {
    pub url: String,
    /// The newest assistant message seen: its index and normalised-text hash.
    pub index: Option<u32>,
    pub text_hash: u64,
    /// When that text last changed (ms since epoch).
    pub changed_ms: f64,
    /// The message that was newest when the page loaded (index, [`answer_id`]): never run
    /// by itself.
    pub baseline: Option<(u32, u64)>,
    pub phase: Phase,
    /// Automatic rounds since the user last wrote a message.
    pub auto_rounds: u32,
    /// The answer (its index) the page said it was generating: once the page says it stopped,
    /// its end is known and the settle window is not needed.
    pub streamed: Option<u32>,
    /// The tool whose untrusted content this tab's conversation read, if it did: from then
    /// on, tools that can change things ask (`policy::verdict`). Kept per conversation in
    /// storage too, so a reload or another tab on the same conversation keeps it.
    pub untrusted: Option<String>,
    /// What the running call returns can be taken as the user's own content (a trusted
    /// server's closed-world tool); otherwise its result marks the conversation.
    pub result_trusted: bool,
    /// The chat site of the page, whose choices about tools hold in this tab.
    pub site: Option<SiteScope>,
}

/// How long an answer must not have changed once the page says it stopped generating: one
/// frame, so that a last chunk rendered with the stop control's removal is in.
pub const ENDED_QUIET_MS: u32 = 20;

/// How often a report is asked for while the page says it is generating: the stop control
/// may sit outside the observed message area, so its going away is seen by this recheck.
pub const GENERATING_RECHECK_MS: u32 = 100;

/// One report from the content script.
#[derive(Debug, Clone, PartialEq)]
pub struct Update<'a> {
    pub url: &'a str,
    pub index: u32,
    pub text: &'a str,
    pub generating: bool,
    pub baseline: bool,
    /// When the page last changed, if the content script knows (never later than now).
    pub changed_at: Option<f64>,
}

/// What the background should do now.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Not finished yet: report again after this many ms.
    Wait { recheck_ms: u32 },
    /// Nothing to do (no call, already handled, a call from before the page loaded, busy).
    Nothing,
    /// A call to judge against the user's policies ([`crate::domain::policy`]) once the
    /// server that would run it is known; `by_user` when the user asked for it (re-detect).
    /// The key must be recorded as executed *before* the bridge is called.
    Call {
        key: String,
        call: ToolCall,
        by_user: bool,
    },
    /// A complete call block that is not a valid call: tell the AI.
    Malformed {
        key: String,
        malformed: MalformedCall,
    },
    /// Too many automatic rounds without a human message: stop and tell the user.
    RoundCap { key: String, call: ToolCall },
}

/// FNV-1a over the text with runs of white space folded, so a re-render that only changes
/// spacing keeps the same identity. Cut to 53 bits: the state is stored as JSON in
/// `chrome.storage`, where larger integers are not exact.
pub fn text_hash(text: &str) -> u64 {
    let mut h = Fnv1a::with_seed(BASIS);
    let mut in_space = true;
    for b in text.bytes() {
        let b = if b.is_ascii_whitespace() {
            if in_space {
                continue;
            }
            in_space = true;
            b' '
        } else {
            in_space = false;
            b
        };
        h.byte(b);
    }
    h.finish() & ((1 << 53) - 1)
}

/// The identity of "this call in this message of this conversation": the same call in the
/// same message is never run twice, even when the conversation is open in two tabs; the
/// same call in a later message, or in another conversation, is a new call. The
/// conversation is the page's address without its fragment. Nothing in it depends on how
/// the message was found (a site config's selector or the page's structure,
/// [`crate::domain::detect`]): not the message's whole text, which the element found may
/// frame with a few words of its own ("Copy code", a speaker's name), only its position
/// among the answers and the call itself.
pub fn execution_key(url: &str, index: u32, call_fingerprint: &str) -> String {
    format!("{}|{index}:{call_fingerprint}", conversation(url))
}

/// The conversation a page shows: its address without the fragment.
pub fn conversation(url: &str) -> &str {
    url.split('#').next().unwrap_or_default()
}

/// What a message is for the baseline (messages on the page when it loaded): its call's
/// fingerprint when it holds one, so the same answer found through another element still
/// counts as already there; its folded text otherwise.
pub fn answer_id(text: &str) -> u64 {
    match find_last_call(text) {
        Some(Ok(call)) => text_hash(&call.fingerprint()),
        Some(Err(_)) => text_hash("malformed"),
        None => text_hash(text),
    }
}

impl TabState {
    /// Takes in a report and decides. `executed` tells whether a key has run before (the
    /// persistent set); `now_ms` is the clock; `stable_ms` the site's settle window.
    pub fn on_update(
        &mut self,
        u: &Update<'_>,
        settings: &Settings,
        stable_ms: u32,
        now_ms: f64,
        executed: impl Fn(&str) -> bool,
    ) -> Decision {
        let hash = text_hash(u.text);
        let same_message = self.index == Some(u.index) && self.text_hash == hash;
        if u.url != self.url {
            // A new page in a single-page app. An answer that is still streaming, or the one
            // we were already following (a new chat getting its URL), is live; anything
            // else is history and never runs by itself.
            let live = u.generating || same_message;
            self.url = u.url.to_string();
            if !live {
                self.baseline = Some((u.index, answer_id(u.text)));
                // Another conversation: its own mark (the runtime reads it for the new
                // address) replaces this one's; a new chat getting its address keeps it.
                self.untrusted = None;
            }
        }
        if u.baseline {
            self.baseline = Some((u.index, answer_id(u.text)));
        }
        if !same_message {
            self.index = Some(u.index);
            self.text_hash = hash;
            self.changed_ms = u.changed_at.map_or(now_ms, |t| t.min(now_ms));
        }
        if u.generating {
            self.streamed = Some(u.index);
            return Decision::Wait {
                recheck_ms: stable_ms.min(GENERATING_RECHECK_MS),
            };
        }
        // Where the page showed the answer streaming and now shows it stopped, that is its
        // end; elsewhere only the site's settle window tells it.
        let settle = if self.streamed == Some(u.index) {
            stable_ms.min(ENDED_QUIET_MS)
        } else {
            stable_ms
        };
        let quiet_for = now_ms - self.changed_ms;
        if quiet_for < f64::from(settle) {
            let left = (f64::from(settle) - quiet_for).ceil() as u32;
            return Decision::Wait {
                recheck_ms: left.max(1),
            };
        }
        if self.baseline == Some((u.index, answer_id(u.text))) {
            return Decision::Nothing;
        }
        if matches!(
            self.phase,
            Phase::Executing { .. }
                | Phase::Injecting { .. }
                | Phase::Detected { .. }
                | Phase::Held { .. }
        ) {
            return Decision::Nothing;
        }
        self.decide(u.text, u.index, settings, &executed, false)
    }

    /// The user pressed "re-detect": look at the newest message again even if it is from
    /// before the page loaded; a call already executed is still not run twice.
    pub fn redetect(
        &mut self,
        text: &str,
        index: u32,
        settings: &Settings,
        executed: impl Fn(&str) -> bool,
    ) -> Decision {
        self.index = Some(index);
        self.text_hash = text_hash(text);
        self.decide(text, index, settings, &executed, true)
    }

    fn decide(
        &mut self,
        text: &str,
        index: u32,
        settings: &Settings,
        executed: &dyn Fn(&str) -> bool,
        by_user: bool,
    ) -> Decision {
        let call = match find_last_call(text) {
            None => return Decision::Nothing,
            Some(Err(malformed)) => {
                let key = execution_key(&self.url, index, "malformed");
                if executed(&key) {
                    return Decision::Nothing;
                }
                return Decision::Malformed { key, malformed };
            }
            Some(Ok(call)) => call,
        };
        let key = execution_key(&self.url, index, &call.fingerprint());
        if executed(&key) {
            return Decision::Nothing;
        }
        if !by_user && self.auto_rounds >= settings.max_auto_rounds {
            return Decision::RoundCap { key, call };
        }
        Decision::Call { key, call, by_user }
    }

    /// The user wrote a message themselves: automatic rounds start counting again.
    pub fn on_user_message(&mut self) {
        self.auto_rounds = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashSet;

    const CALL: &str = "Let me check.\n<tool_code>\n{\"tool_name\": \"get_time\", \"arguments\": {\"timezone\": \"Asia/Shanghai\"}}\n</tool_code>";

    struct Harness {
        state: TabState,
        settings: Settings,
        executed: RefCell<HashSet<String>>,
        now: f64,
    }

    impl Harness {
        fn new() -> Self {
            Harness {
                state: TabState::default(),
                settings: Settings::default(),
                executed: RefCell::new(HashSet::new()),
                now: 1_000_000.0,
            }
        }
        fn report(&mut self, index: u32, text: &str, generating: bool) -> Decision {
            self.report_full(
                "https://chat.example.com/c/1",
                index,
                text,
                generating,
                false,
            )
        }
        fn report_full(
            &mut self,
            url: &str,
            index: u32,
            text: &str,
            generating: bool,
            baseline: bool,
        ) -> Decision {
            let u = Update {
                url,
                index,
                text,
                generating,
                baseline,
                changed_at: None,
            };
            let executed = self.executed.borrow().clone();
            let d = self
                .state
                .on_update(&u, &self.settings, 500, self.now, |k| executed.contains(k));
            if let Decision::Call { key, .. } = &d {
                self.executed.borrow_mut().insert(key.clone());
            }
            d
        }
        /// A report of a finished text that last changed at `changed_at`.
        fn report_changed(&mut self, index: u32, text: &str, changed_at: f64) -> Decision {
            let u = Update {
                url: "https://chat.example.com/c/1",
                index,
                text,
                generating: false,
                baseline: false,
                changed_at: Some(changed_at),
            };
            let executed = self.executed.borrow().clone();
            self.state
                .on_update(&u, &self.settings, 500, self.now, |k| executed.contains(k))
        }
        fn settle(&mut self, index: u32, text: &str) -> Decision {
            self.settle_at("https://chat.example.com/c/1", index, text)
        }
        fn settle_at(&mut self, url: &str, index: u32, text: &str) -> Decision {
            self.report_full(url, index, text, false, false);
            self.now += 600.0;
            self.report_full(url, index, text, false, false)
        }
    }

    #[test]
    fn waits_while_generating_then_runs_once_the_page_says_it_stopped() {
        let mut h = Harness::new();
        // The first report of a fresh page is history, so start with a message of our own.
        h.report(0, "hello", false);
        assert_eq!(
            h.report(1, &CALL[..30], true),
            Decision::Wait {
                recheck_ms: GENERATING_RECHECK_MS
            }
        );
        h.now += 100.0;
        assert!(matches!(h.report(1, CALL, true), Decision::Wait { .. }));
        // The stop control is gone: the end is told, and one frame without a change is
        // enough, not the whole window.
        h.now += 5.0;
        assert_eq!(
            h.report_changed(1, CALL, h.now - 5.0),
            Decision::Wait { recheck_ms: 15 }
        );
        h.now += 15.0;
        assert!(matches!(h.report(1, CALL, false), Decision::Call { .. }));
    }

    #[test]
    fn where_nothing_tells_the_end_the_text_must_be_still_for_the_window() {
        let mut h = Harness::new();
        h.report(0, "hello", false);
        // An answer never shown as generating (no stop control on this page).
        assert_eq!(
            h.report(1, &CALL[..30], false),
            Decision::Wait { recheck_ms: 500 }
        );
        h.now += 100.0;
        assert_eq!(h.report(1, CALL, false), Decision::Wait { recheck_ms: 500 });
        h.now += 400.0;
        assert_eq!(h.report(1, CALL, false), Decision::Wait { recheck_ms: 100 });
        h.now += 100.0;
        assert!(matches!(h.report(1, CALL, false), Decision::Call { .. }));
        // The streaming mark is for that answer only: the next one waits its window again.
        assert!(matches!(h.report(2, "", true), Decision::Wait { .. }));
        h.now += 50.0;
        assert!(matches!(
            h.report(3, CALL, false),
            Decision::Wait { recheck_ms: 500 }
        ));
    }

    #[test]
    fn the_window_counts_from_when_the_page_changed() {
        let mut h = Harness::new();
        h.report(0, "hi", false);
        // The final text arrives 150 ms after the last change (the content script's throttle).
        let u = Update {
            url: "https://chat.example.com/c/1",
            index: 1,
            text: CALL,
            generating: false,
            baseline: false,
            changed_at: Some(h.now - 150.0),
        };
        let d = h.state.on_update(&u, &h.settings, 500, h.now, |_| false);
        assert_eq!(d, Decision::Wait { recheck_ms: 350 });
        // A clock ahead of ours never makes the wait longer than the window.
        let u = Update {
            changed_at: Some(h.now + 10_000.0),
            text: "other",
            ..u
        };
        assert_eq!(
            h.state.on_update(&u, &h.settings, 500, h.now, |_| false),
            Decision::Wait { recheck_ms: 500 }
        );
    }

    #[test]
    fn a_call_runs_once_across_rerenders_and_state_loss() {
        let mut h = Harness::new();
        h.report(0, "hi", false);
        assert!(matches!(h.settle(1, CALL), Decision::Call { .. }));
        h.state.phase = Phase::Done;
        // Re-render with different white space: same message.
        let rerendered = CALL.replace('\n', "\n\n  ");
        assert_eq!(h.settle(1, &rerendered), Decision::Nothing);
        // Worker restart lost the tab state; the executed set (persistent) still knows.
        h.state = TabState {
            url: "https://chat.example.com/c/1".into(),
            ..Default::default()
        };
        assert_eq!(h.settle(1, CALL), Decision::Nothing);
    }

    #[test]
    fn the_same_call_in_a_later_message_runs_again() {
        let mut h = Harness::new();
        h.report(0, "hi", false);
        assert!(matches!(h.settle(1, CALL), Decision::Call { .. }));
        h.state.phase = Phase::Done;
        assert!(matches!(h.settle(2, CALL), Decision::Call { .. }));
    }

    #[test]
    fn messages_present_at_load_never_run_by_themselves() {
        let mut h = Harness::new();
        let url = "https://chat.example.com/c/1";
        h.report_full(url, 4, CALL, false, true);
        h.now += 1000.0;
        assert_eq!(h.report_full(url, 4, CALL, false, false), Decision::Nothing);
        // …but the user can ask for it.
        let executed = h.executed.borrow().clone();
        let d = h
            .state
            .redetect(CALL, 4, &h.settings, |k| executed.contains(k));
        assert!(matches!(d, Decision::Call { .. }));
    }

    #[test]
    fn switching_conversations_does_not_run_old_calls_but_a_new_chat_does() {
        let mut h = Harness::new();
        h.report_full("https://x/c/1", 0, "hi", false, true);
        // SPA navigation to an old chat whose last message has a call.
        h.report_full("https://x/c/2", 7, CALL, false, false);
        h.now += 1000.0;
        assert_eq!(
            h.report_full("https://x/c/2", 7, CALL, false, false),
            Decision::Nothing
        );
        // A new chat gets its URL while the first answer streams.
        h.report_full("https://x/", 0, "<tool_code>", true, false);
        h.report_full("https://x/c/3", 0, CALL, true, false);
        h.now += 100.0;
        // The page says it stopped: the call runs.
        assert!(matches!(
            h.report_full("https://x/c/3", 0, CALL, false, false),
            Decision::Call { .. }
        ));
    }

    #[test]
    fn malformed_calls_are_reported_once() {
        let mut h = Harness::new();
        h.report(0, "hi", false);
        let bad = "<tool_code>\n{\"tool_name\": \"x\", \"arguments\": {oops}}\n</tool_code>";
        let d = h.settle(1, bad);
        let Decision::Malformed { key, .. } = d else {
            panic!("{d:?}")
        };
        h.executed.borrow_mut().insert(key);
        h.now += 1000.0;
        assert_eq!(h.report(1, bad, false), Decision::Nothing);
    }

    #[test]
    fn the_round_cap_stops_a_loop_until_the_user_writes() {
        let mut h = Harness::new();
        h.settings.max_auto_rounds = 2;
        h.state.auto_rounds = 2;
        h.report(0, "hi", false);
        assert!(matches!(h.settle(1, CALL), Decision::RoundCap { .. }));
        h.state.on_user_message();
        h.now += 1000.0;
        assert!(matches!(h.report(1, CALL, false), Decision::Call { .. }));
    }

    #[test]
    fn a_busy_tab_does_not_start_a_second_call() {
        let mut h = Harness::new();
        h.report(0, "hi", false);
        h.state.phase = Phase::Executing {
            key: "k".into(),
            tool: "slow".into(),
            started_ms: 0.0,
            call_id: None,
            cancelled: false,
        };
        assert_eq!(h.settle(1, CALL), Decision::Nothing);
    }

    #[test]
    fn state_survives_a_json_round_trip_exactly() {
        let mut h = Harness::new();
        h.report(0, "a message whose hash is large", false);
        let json = serde_json::to_value(&h.state).unwrap();
        let hash = json["textHash"].as_u64().unwrap();
        assert!(hash < (1 << 53), "not exact as a JS number");
        assert_eq!(serde_json::from_value::<TabState>(json).unwrap(), h.state);
    }

    #[test]
    fn one_message_is_one_call_per_conversation_not_per_tab() {
        let mut a = Harness::new();
        a.report(0, "hi", false);
        let Decision::Call { key: first, .. } = a.settle(1, CALL) else {
            panic!()
        };
        // The same conversation in a second tab: the same key, so it never runs twice.
        let mut b = Harness::new();
        b.executed = a.executed.clone();
        b.report(0, "hi", false);
        assert_eq!(b.settle(1, CALL), Decision::Nothing);
        // Another conversation whose answer reads the same is another call.
        let mut c = Harness::new();
        c.executed = a.executed.clone();
        c.report_full("https://chat.example.com/c/2", 0, "hi", false, false);
        c.now += 600.0;
        let Decision::Call { key: other, .. } =
            c.settle_at("https://chat.example.com/c/2", 1, CALL)
        else {
            panic!()
        };
        assert_ne!(first, other);
    }

    #[test]
    fn text_hash_folds_white_space_only() {
        assert_eq!(text_hash("a  b\n c"), text_hash("a b c"));
        assert_ne!(text_hash("ab"), text_hash("a b"));
    }
}
