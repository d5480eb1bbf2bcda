//! The chat loop's decisions for one tab as a step function: the tab's state and one event
//! give the new state and what to do about it ([`Effect`]). Pure: the runtime
//! (`runtime::chat`) takes a tab's events one at a time, reads the state once per event,
//! carries the effects out and writes the state once.

use crate::domain::call_log::AllowedBy;
use crate::domain::float::{ConfirmReason, Setup};
use crate::domain::outcome::CallOutcome;
use crate::domain::policy::{self, Target, Verdict};
use crate::domain::settings::{Settings, SiteScope, ToolPolicy};
use crate::domain::tab_state::{Decision, Phase, SetupProblem, TabState, Update, conversation};
use crate::domain::toolcall::{MalformedCall, ToolCall};

/// One thing that happened to a tab: a request of its content script, the user's action in
/// the float, or the end of a wait the runtime carried out of the tab's queue.
#[derive(Debug)]
pub enum Event<'a> {
    /// The page loaded (or reloaded) at `url`, on `site` (whose choices about tools hold
    /// in this tab from now on).
    PageReady {
        url: &'a str,
        site: Option<SiteScope>,
    },
    /// The content script reported the newest answer; `stable_ms` is the site's settle window.
    Update { update: Update<'a>, stable_ms: u32 },
    /// The user wrote a message.
    UserMessage,
    /// The user asked to look at the newest answer again (*Re-detect*).
    Redetect { index: u32, text: &'a str },
    /// The user pasted a call; `target` is where it would run.
    Manual { call: ToolCall, target: Target },
    /// Where a found call would run, or what of the user's setup kept the bridge from
    /// saying (the outcome, and the words for the user).
    Judged {
        key: String,
        call: ToolCall,
        by_user: bool,
        target: Result<Target, (CallOutcome, Setup)>,
    },
    /// The user's answer to the prompt: run or not, and whether to remember it (on this
    /// site, or on every site).
    Confirm {
        run: bool,
        always: bool,
        trust: bool,
        everywhere: bool,
    },
    /// The user's answer about a held call: *Tell the AI* or *Skip*.
    Held { tell_ai: bool },
    /// The user pressed *Cancel*.
    Cancel,
    /// The bridge answers again (the held call's watch found it).
    BridgeBack,
    /// The bridge said a call is still running, under this id.
    Pending { call_id: String },
    /// A call's answer came: `outcome` (`None` for the built-in tool list, which asks the
    /// bridge nothing), and `setup` when the user's setup kept it from the bridge. A call
    /// the user cancelled is reported as cancelled, whatever it answered.
    CallEnded {
        key: String,
        call: ToolCall,
        outcome: Option<CallOutcome>,
        setup: Option<Setup>,
        /// What let it run, if known (not for a call taken up again after a restart).
        allowed: Option<AllowedBy>,
    },
    /// A report reached the chat (or the float offers it for copying); `failed` when the
    /// call failed.
    Delivered { failed: bool },
}

impl Event<'_> {
    /// Whether deciding this event may start a call, and so needs the executed keys (a
    /// report of an answer still streaming never does).
    pub fn may_start_a_call(&self) -> bool {
        match self {
            Event::Update { update, .. } => !update.generating,
            Event::Redetect { .. } | Event::Judged { .. } | Event::Confirm { .. } => true,
            _ => false,
        }
    }
}

/// What a decision needs besides the tab's state.
pub struct Context<'a> {
    pub settings: &'a Settings,
    pub now_ms: f64,
    /// Keys of calls that already ran (the persistent set); read only for the events that
    /// may start a call ([`Event::may_start_a_call`]), empty otherwise.
    pub executed: &'a [String],
    /// The tool whose untrusted content the conversation at the event's page address read,
    /// as storage keeps it; read only for a page that loads or an address the tab did not
    /// show before.
    pub marked: Option<&'a str>,
}

/// What the runtime does for a decision, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Record the call's key as executed. Always before the request leaves, so a reload or
    /// a worker restart can lose a result but never run a call twice.
    MarkExecuted(String),
    /// Tell the content script to report again after this many ms.
    Recheck(u32),
    /// Find where the call would run (the bridge's tool lists), then decide again with
    /// [`Event::Judged`].
    Judge {
        key: String,
        call: ToolCall,
        by_user: bool,
    },
    /// Show the prompt for the call.
    Ask {
        call: ToolCall,
        reason: ConfirmReason,
    },
    /// Send the call to the bridge, or poll for it again under `resume`; its answer comes
    /// back as [`Event::Pending`] and [`Event::CallEnded`].
    Run {
        key: String,
        call: ToolCall,
        resume: Option<String>,
        /// What let it run, for the call log; `None` when polling again after a restart.
        allowed: Option<AllowedBy>,
    },
    /// Type the report of `outcome` into the chat (`None`: the tool list) and submit it; then
    /// [`Event::Delivered`].
    Deliver {
        call: ToolCall,
        outcome: Option<CallOutcome>,
    },
    /// Say in the float why the call is held, and watch the bridge ([`Event::BridgeBack`]).
    Hold { tool: String, why: Setup },
    /// Tell the AI its call block is not a valid call.
    ReportMalformed(MalformedCall),
    /// Show the float at rest.
    ShowReady,
    /// Save the user's choice for the call's tool, made on `site` (for that site only
    /// unless `everywhere`; [`Settings::remember`]).
    Remember {
        call: ToolCall,
        policy: ToolPolicy,
        site: Option<SiteScope>,
        everywhere: bool,
    },
    /// Save that the user trusts this server.
    Trust { server: String },
    /// Stop the running call at the bridge (the tab's state says it is cancelled, so its
    /// answer is not reported as its result).
    CancelAtBridge { call_id: String },
}

/// Takes in one event: changes `state` and says what to do.
pub fn step(state: &mut TabState, event: Event<'_>, cx: &Context<'_>) -> Vec<Effect> {
    let executed = |key: &str| cx.executed.iter().any(|k| k == key);
    match event {
        Event::PageReady { url, site } => {
            // A fresh page: forget the previous page's message, keep the round counter and
            // a call still running (its result still comes).
            let phase = match &state.phase {
                running @ Phase::Executing { .. } => running.clone(),
                _ => Phase::Idle,
            };
            // The conversation's mark stays with it: a reload keeps the tab's own.
            let same = conversation(url) == conversation(&state.url);
            let untrusted = match (cx.marked, same) {
                (Some(tool), _) => Some(tool.to_string()),
                (None, true) => state.untrusted.take(),
                (None, false) => None,
            };
            *state = TabState {
                url: url.to_string(),
                auto_rounds: state.auto_rounds,
                phase,
                untrusted,
                result_trusted: state.result_trusted,
                site,
                ..TabState::default()
            };
            Vec::new()
        }
        Event::Update { update, stable_ms } => {
            let decision = state.on_update(&update, cx.settings, stable_ms, cx.now_ms, executed);
            if state.untrusted.is_none() {
                state.untrusted = cx.marked.map(str::to_string);
            }
            decided(state, decision)
        }
        Event::UserMessage => {
            state.on_user_message();
            Vec::new()
        }
        Event::Redetect { index, text } => match state.redetect(text, index, cx.settings, executed)
        {
            Decision::Nothing => vec![Effect::ShowReady],
            decision => decided(state, decision),
        },
        Event::Manual { call, target } => {
            // An explicit request of the user: its own key, so pasting again runs again.
            // Pasting is the user's go, so only a Deny holds it back.
            let key = format!("manual:{}:{}", cx.now_ms, call.fingerprint());
            if !busy(&state.phase) {
                state.result_trusted = policy::result_trusted(cx.settings, &target);
            }
            match policy::in_force(cx.settings, &call.tool_name, &target).0 {
                ToolPolicy::Deny => deny(state, key, call),
                _ => start(state, key, call, cx, true, AllowedBy::User),
            }
        }
        Event::Judged {
            key,
            mut call,
            by_user,
            target,
        } => {
            let target = match target {
                Ok(target) => target,
                // The bridge is out of reach: hold the call; it is judged when it answers.
                Err((outcome, why)) => return hold(state, key, call, &outcome, why, (false, None)),
            };
            // What the prompt names is what runs, and what a remembered choice is kept for:
            // the one server offering the tool, or the bridge's own pick of several, the first.
            if let Target::OfferedBy(servers) = &target {
                call.server_name = servers.first().map(|(s, _)| s.clone());
            }
            if !busy(&state.phase) {
                state.result_trusted = policy::result_trusted(cx.settings, &target);
            }
            let marked = state.untrusted.as_deref();
            match policy::verdict(cx.settings, &call.tool_name, &target, by_user, marked) {
                Verdict::Run => {
                    let allowed =
                        policy::allowed_by(cx.settings, &call.tool_name, &target, by_user, marked);
                    start(state, key, call, cx, true, allowed)
                }
                Verdict::Deny => deny(state, key, call),
                Verdict::Ask(reason) => ask(state, key, call, reason.into()),
            }
        }
        Event::Confirm {
            run,
            always,
            trust,
            everywhere,
        } => {
            if !matches!(state.phase, Phase::Detected { .. }) {
                return Vec::new();
            }
            let Phase::Detected { key, call } = std::mem::take(&mut state.phase) else {
                return Vec::new();
            };
            let mut effects = Vec::new();
            if let (true, true, Some(server)) = (run, trust, &call.server_name) {
                let server = server.clone();
                effects.push(Effect::Trust { server });
            }
            if always {
                let policy = if run {
                    ToolPolicy::Allow
                } else {
                    ToolPolicy::Deny
                };
                effects.push(Effect::Remember {
                    call: call.clone(),
                    policy,
                    site: state.site.clone(),
                    everywhere,
                });
            }
            if run {
                // The user's go also starts a fresh count of automatic rounds.
                state.on_user_message();
                effects.extend(start(state, key, call, cx, true, AllowedBy::User));
            } else if always {
                // A tool the user denies for good: the AI is told, as for any Deny.
                effects.extend(deny(state, key, call));
            } else {
                effects.extend([Effect::MarkExecuted(key), Effect::ShowReady]);
            }
            effects
        }
        Event::Held { tell_ai } => {
            if !matches!(state.phase, Phase::Held { .. }) {
                return Vec::new();
            }
            let Phase::Held {
                key, call, problem, ..
            } = std::mem::take(&mut state.phase)
            else {
                return Vec::new();
            };
            // Leaving the held phase also ends the watch; the call is answered for.
            if tell_ai {
                state.phase = Phase::Injecting { key: key.clone() };
                let outcome = Some(problem.outcome());
                vec![Effect::MarkExecuted(key), Effect::Deliver { call, outcome }]
            } else {
                vec![Effect::MarkExecuted(key), Effect::ShowReady]
            }
        }
        Event::Cancel => match &mut state.phase {
            Phase::Executing {
                call_id, cancelled, ..
            } => {
                *cancelled = true;
                // Without an id yet (the call is being sent), the first "still running"
                // stops it ([`cancelled`]).
                let call_id = call_id.clone();
                call_id.map_or_else(Vec::new, |call_id| vec![Effect::CancelAtBridge { call_id }])
            }
            _ => Vec::new(),
        },
        Event::BridgeBack => {
            if !matches!(state.phase, Phase::Held { .. }) {
                return Vec::new();
            }
            let Phase::Held {
                key,
                call,
                judged,
                allowed,
                ..
            } = std::mem::take(&mut state.phase)
            else {
                return Vec::new();
            };
            if judged {
                // The user's policy let it run and it never reached the bridge: it runs now.
                let allowed = allowed.unwrap_or(AllowedBy::Policy);
                start(state, key, call, cx, false, allowed)
            } else {
                // Now the tool's annotations can be read: the user's policy decides.
                let by_user = false;
                vec![Effect::Judge { key, call, by_user }]
            }
        }
        Event::Pending { call_id } => {
            if let Phase::Executing { call_id: id, .. } = &mut state.phase {
                *id = Some(call_id);
            }
            Vec::new()
        }
        Event::CallEnded {
            key,
            call,
            outcome,
            setup,
            allowed,
        } => match (outcome, setup) {
            (Some(_), _) if cancelled(state) => {
                state.phase = Phase::Injecting { key };
                let outcome = Some(CallOutcome::aborted());
                vec![Effect::Deliver { call, outcome }]
            }
            (Some(outcome), Some(why)) => hold(state, key, call, &outcome, why, (true, allowed)),
            (outcome, _) => {
                // Whatever a tool returned is in the conversation now.
                if outcome.is_some() && !state.result_trusted && state.untrusted.is_none() {
                    state.untrusted = Some(call.tool_name.clone());
                }
                state.phase = Phase::Injecting { key };
                vec![Effect::Deliver { call, outcome }]
            }
        },
        Event::Delivered { failed } => {
            state.phase = if failed { Phase::Error } else { Phase::Done };
            Vec::new()
        }
    }
}

/// Whether the user cancelled the call the tab runs: the call is stopped at the bridge at
/// its next "still running", and whatever it answers is reported as cancelled.
pub fn cancelled(state: &TabState) -> bool {
    matches!(
        state.phase,
        Phase::Executing {
            cancelled: true,
            ..
        }
    )
}

/// What [`TabState::on_update`] or [`TabState::redetect`] decided, as effects.
fn decided(state: &mut TabState, decision: Decision) -> Vec<Effect> {
    match decision {
        Decision::Wait { recheck_ms } => vec![Effect::Recheck(recheck_ms)],
        Decision::Nothing => Vec::new(),
        Decision::Call { key, call, by_user } => vec![Effect::Judge { key, call, by_user }],
        Decision::RoundCap { key, call } => ask(state, key, call, ConfirmReason::RoundCap),
        Decision::Malformed { key, malformed } => {
            vec![
                Effect::MarkExecuted(key),
                Effect::ReportMalformed(malformed),
            ]
        }
    }
}

/// Whether a call of this tab is under way (running, or its report being typed).
fn busy(phase: &Phase) -> bool {
    matches!(phase, Phase::Executing { .. } | Phase::Injecting { .. })
}

/// Starts a call: a `fresh` one only if its key never ran, and it counts as an automatic
/// round; a held one (not fresh) already had its key recorded. One call at a time per tab.
fn start(
    state: &mut TabState,
    key: String,
    call: ToolCall,
    cx: &Context<'_>,
    fresh: bool,
    allowed: AllowedBy,
) -> Vec<Effect> {
    if busy(&state.phase) || (fresh && cx.executed.contains(&key)) {
        return Vec::new();
    }
    if fresh {
        state.auto_rounds += 1;
    }
    state.phase = Phase::Executing {
        key: key.clone(),
        tool: call.tool_name.clone(),
        started_ms: cx.now_ms,
        call_id: None,
        cancelled: false,
    };
    let (resume, allowed) = (None, Some(allowed));
    vec![
        Effect::MarkExecuted(key.clone()),
        Effect::Run {
            key,
            call,
            resume,
            allowed,
        },
    ]
}

/// The user does not allow the call: the AI is told so, nothing reaches the bridge.
fn deny(state: &mut TabState, key: String, call: ToolCall) -> Vec<Effect> {
    if !busy(&state.phase) {
        state.phase = Phase::Injecting { key: key.clone() };
    }
    let outcome = Some(CallOutcome::denied());
    vec![Effect::MarkExecuted(key), Effect::Deliver { call, outcome }]
}

fn ask(state: &mut TabState, key: String, call: ToolCall, reason: ConfirmReason) -> Vec<Effect> {
    state.phase = Phase::Detected {
        key,
        call: call.clone(),
    };
    vec![Effect::Ask { call, reason }]
}

/// Keeps a call that did not reach the bridge; `judged`: the user's policy already let it
/// run (otherwise it is judged when the bridge answers), and what let it, if known.
fn hold(
    state: &mut TabState,
    key: String,
    call: ToolCall,
    outcome: &CallOutcome,
    why: Setup,
    (judged, allowed): (bool, Option<AllowedBy>),
) -> Vec<Effect> {
    let problem = SetupProblem::of(outcome).unwrap_or(SetupProblem::Unreachable {
        message: String::new(),
    });
    let tool = call.tool_name.clone();
    state.phase = Phase::Held {
        key,
        call,
        problem,
        judged,
        allowed,
    };
    vec![Effect::Hold { tool, why }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::bridge_api::Annotations;
    use serde_json::json;

    const URL: &str = "https://chat.example.com/c/1";

    fn call(tool: &str) -> ToolCall {
        ToolCall {
            tool_name: tool.into(),
            arguments: json!({}),
            server_name: None,
        }
    }

    fn cx<'a>(settings: &'a Settings, executed: &'a [String]) -> Context<'a> {
        Context {
            settings,
            now_ms: 1000.0,
            executed,
            marked: None,
        }
    }

    fn offered(annotations: Annotations) -> Target {
        Target::OfferedBy(vec![("demo".into(), annotations)])
    }

    fn read_only() -> Annotations {
        Annotations {
            read_only: Some(true),
            ..Annotations::default()
        }
    }

    fn judged(key: &str, tool: &str, target: Target) -> Event<'static> {
        Event::Judged {
            key: key.into(),
            call: call(tool),
            by_user: false,
            target: Ok(target),
        }
    }

    #[test]
    fn a_settled_call_is_judged_then_runs_with_its_key_recorded_first() {
        let settings = Settings::default();
        let mut state = TabState {
            url: URL.into(),
            ..TabState::default()
        };
        let text = "<tool_code>{\"tool_name\": \"echo\", \"arguments\": {}}</tool_code>";
        let update = Update {
            url: URL,
            index: 1,
            text,
            generating: false,
            baseline: false,
            changed_at: Some(0.0),
        };
        let fx = step(
            &mut state,
            Event::Update {
                update,
                stable_ms: 500,
            },
            &cx(&settings, &[]),
        );
        let [Effect::Judge { key, call, by_user }] = fx.as_slice() else {
            panic!("{fx:?}")
        };
        assert!(!by_user);
        assert_eq!(state.phase, Phase::Idle, "nothing runs before the judgment");
        let event = Event::Judged {
            key: key.clone(),
            call: call.clone(),
            by_user: false,
            target: Ok(offered(read_only())),
        };
        let fx = step(&mut state, event, &cx(&settings, &[]));
        assert_eq!(fx[0], Effect::MarkExecuted(key.clone()));
        let Effect::Run { call, resume, .. } = &fx[1] else {
            panic!("{fx:?}")
        };
        assert_eq!(
            call.server_name.as_deref(),
            Some("demo"),
            "the server it runs on"
        );
        assert_eq!(*resume, None);
        assert!(matches!(state.phase, Phase::Executing { ref key, .. } if key.contains("|1:")));
        assert_eq!(state.auto_rounds, 1);
    }

    #[test]
    fn a_key_that_ran_meanwhile_never_runs_again() {
        let settings = Settings::default();
        let mut state = TabState::default();
        let ran = ["k".to_string()];
        let fx = step(
            &mut state,
            judged("k", "echo", offered(read_only())),
            &cx(&settings, &ran),
        );
        assert!(fx.is_empty(), "{fx:?}");
        assert_eq!(state.phase, Phase::Idle);
    }

    #[test]
    fn a_tool_that_may_change_things_asks_first_and_the_answer_decides() {
        let settings = Settings::default();
        let mut state = TabState::default();
        let fx = step(
            &mut state,
            judged("k", "write_note", offered(Annotations::default())),
            &cx(&settings, &[]),
        );
        assert!(matches!(fx.as_slice(), [Effect::Ask { .. }]), "{fx:?}");
        assert!(matches!(state.phase, Phase::Detected { .. }));
        // Deny once: the key is answered for, the float rests, nothing reaches the AI.
        let mut once = state.clone();
        let deny = Event::Confirm {
            run: false,
            always: false,
            trust: false,
            everywhere: false,
        };
        let fx = step(&mut once, deny, &cx(&settings, &[]));
        assert_eq!(fx, [Effect::MarkExecuted("k".into()), Effect::ShowReady]);
        assert_eq!(once.phase, Phase::Idle);
        // Always allow: the choice is saved and the call runs.
        let allow = Event::Confirm {
            run: true,
            always: true,
            trust: false,
            everywhere: false,
        };
        let fx = step(&mut state, allow, &cx(&settings, &[]));
        assert!(matches!(
            fx.as_slice(),
            [
                Effect::Remember {
                    policy: ToolPolicy::Allow,
                    ..
                },
                Effect::MarkExecuted(_),
                Effect::Run { .. }
            ]
        ));
        // A second answer to the same prompt does nothing.
        let again = Event::Confirm {
            run: true,
            always: false,
            trust: false,
            everywhere: false,
        };
        assert!(step(&mut state, again, &cx(&settings, &[])).is_empty());
    }

    #[test]
    fn a_denied_tool_tells_the_ai_without_running() {
        let mut settings = Settings::default();
        settings
            .tool_policies
            .insert("demo:echo".into(), ToolPolicy::Deny);
        let mut state = TabState::default();
        let fx = step(
            &mut state,
            judged("k", "echo", offered(read_only())),
            &cx(&settings, &[]),
        );
        assert_eq!(fx[0], Effect::MarkExecuted("k".into()));
        assert!(matches!(
            &fx[1],
            Effect::Deliver {
                outcome: Some(CallOutcome::Denied),
                ..
            }
        ));
        assert_eq!(state.phase, Phase::Injecting { key: "k".into() });
    }

    #[test]
    fn cancel_stops_only_a_running_call() {
        let settings = Settings::default();
        let mut state = TabState::default();
        assert!(step(&mut state, Event::Cancel, &cx(&settings, &[])).is_empty());
        state.phase = Phase::Executing {
            key: "k".into(),
            tool: "slow".into(),
            started_ms: 0.0,
            call_id: None,
            cancelled: false,
        };
        // Still being sent: nothing to stop at the bridge yet, but the call is cancelled.
        let mut sending = state.clone();
        assert!(step(&mut sending, Event::Cancel, &cx(&settings, &[])).is_empty());
        assert!(cancelled(&sending));
        let pending = Event::Pending {
            call_id: "c-1".into(),
        };
        step(&mut state, pending, &cx(&settings, &[]));
        let fx = step(&mut state, Event::Cancel, &cx(&settings, &[]));
        let call_id = "c-1".to_string();
        assert_eq!(fx, [Effect::CancelAtBridge { call_id }]);
        // Whatever it answers then is reported as cancelled.
        let ended = Event::CallEnded {
            key: "k".into(),
            call: call("slow"),
            outcome: Some(CallOutcome::unreachable("gone")),
            setup: Some(Setup::TokenMissing),
            allowed: None,
        };
        let fx = step(&mut state, ended, &cx(&settings, &[]));
        let outcome = Some(CallOutcome::aborted());
        assert_eq!(
            fx,
            [Effect::Deliver {
                call: call("slow"),
                outcome
            }]
        );
    }

    #[test]
    fn a_held_call_waits_for_the_bridge_or_the_user() {
        let settings = Settings::default();
        let mut state = TabState::default();
        let outcome = CallOutcome::unreachable("refused");
        let why = Setup::TokenMissing;
        let ended = Event::CallEnded {
            key: "k".into(),
            call: call("echo"),
            outcome: Some(outcome),
            setup: Some(why.clone()),
            allowed: Some(AllowedBy::Policy),
        };
        let fx = step(&mut state, ended, &cx(&settings, &[]));
        let tool = "echo".to_string();
        assert_eq!(fx, [Effect::Hold { tool, why }]);
        let held = state.clone();
        // The bridge answers: the call runs, without counting a second round.
        let fx = step(&mut state, Event::BridgeBack, &cx(&settings, &["k".into()]));
        assert!(matches!(
            fx.as_slice(),
            [Effect::MarkExecuted(_), Effect::Run { .. }]
        ));
        assert_eq!(state.auto_rounds, 0);
        // Skipped first: the bridge coming back afterwards runs nothing.
        let mut skipped = held.clone();
        let skip = Event::Held { tell_ai: false };
        let fx = step(&mut skipped, skip, &cx(&settings, &[]));
        assert_eq!(fx, [Effect::MarkExecuted("k".into()), Effect::ShowReady]);
        assert!(step(&mut skipped, Event::BridgeBack, &cx(&settings, &[])).is_empty());
        // Told to the AI: the failure is delivered.
        let mut told = held;
        let tell = Event::Held { tell_ai: true };
        let fx = step(&mut told, tell, &cx(&settings, &[]));
        assert!(matches!(
            fx.as_slice(),
            [
                Effect::MarkExecuted(_),
                Effect::Deliver {
                    outcome: Some(CallOutcome::Unreachable { .. }),
                    ..
                }
            ]
        ));
    }

    #[test]
    fn a_reloaded_page_keeps_a_running_call_and_the_round_count() {
        let settings = Settings::default();
        let running = Phase::Executing {
            key: "k".into(),
            tool: "slow".into(),
            started_ms: 0.0,
            call_id: Some("c".into()),
            cancelled: false,
        };
        let mut state = TabState {
            url: URL.into(),
            index: Some(3),
            auto_rounds: 2,
            phase: running.clone(),
            ..TabState::default()
        };
        step(
            &mut state,
            Event::PageReady {
                url: URL,
                site: None,
            },
            &cx(&settings, &[]),
        );
        assert_eq!(state.phase, running);
        assert_eq!((state.index, state.auto_rounds), (None, 2));
        state.phase = Phase::Done;
        step(
            &mut state,
            Event::PageReady {
                url: URL,
                site: None,
            },
            &cx(&settings, &[]),
        );
        assert_eq!(state.phase, Phase::Idle);
    }

    #[test]
    fn a_call_ends_in_its_report_and_the_tab_rests() {
        let settings = Settings::default();
        let mut state = TabState::default();
        let ended = Event::CallEnded {
            key: "k".into(),
            call: call("echo"),
            outcome: Some(CallOutcome::aborted()),
            setup: None,
            allowed: None,
        };
        let fx = step(&mut state, ended, &cx(&settings, &[]));
        assert!(matches!(fx.as_slice(), [Effect::Deliver { .. }]));
        assert_eq!(state.phase, Phase::Injecting { key: "k".into() });
        step(
            &mut state,
            Event::Delivered { failed: true },
            &cx(&settings, &[]),
        );
        assert_eq!(state.phase, Phase::Error);
    }
}
