//! What the status float in the chat page shows: the one view of the float, built here for
//! pages, calls and their outcomes. The core decides every word, the tone and the buttons;
//! the content script only draws them (as text, never HTML). The float speaks to the user in
//! the interface language; the report for the AI (in the report language) rides along for
//! *Show report* and *Copy report*. Text that quotes a tool, the page or the bridge is
//! [`Masked`]; names and commands are marked `like this` (drawn as code).

use serde::{Deserialize, Serialize};

use crate::domain::call_activity::Activity;
pub use crate::domain::call_activity::{FloatProgress, FloatQuestion};
use crate::domain::field_error::FieldError;
pub use crate::domain::i18n::Lang;
use crate::domain::i18n::fill;
use crate::domain::policy::AskReason;
use crate::domain::redact::Masked;
use crate::domain::status::{PairingNote, Status};
use crate::domain::toolcall::ToolCall;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FloatStatus {
    #[default]
    Ready,
    /// A detected call waits for the user's go (policy "ask" or auto-execute off).
    Confirm,
    Executing,
    Success,
    Error,
    /// The bridge is not reachable.
    Unreachable,
    /// A call waits for the user's setup (bridge not running, token missing or wrong).
    Held,
    /// The extension is off on this site, or the site config is broken.
    Disabled,
    /// The user declined the call: nothing failed.
    Denied,
}

/// How the float looks: the colour of its dot and ring. Chosen here with the state, so the
/// content script keeps no colour per status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Tone {
    /// Idle, or a choice the user made.
    #[default]
    Neutral,
    /// Something waits for the user (a question, the bridge).
    Attention,
    Busy,
    Good,
    Bad,
    /// The extension is off here.
    Off,
}

/// What a float button does; the content script maps each to its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionId {
    AllowOnce,
    /// Run, and keep "allow" for this tool.
    AlwaysAllow,
    /// Run, and trust the call's server (its tools' read-only claims are believed).
    TrustServer,
    /// Do not run, and keep "deny" for this tool.
    Deny,
    /// Do not run this call (nothing kept).
    Skip,
    Cancel,
    /// A held call: tell the AI it cannot run now.
    TellAi,
    /// A held call: drop it.
    Drop,
    OpenSettings,
    InsertInstructions,
    CopyReport,
    /// Clear the bridge's failure counter of a blocked tool (the float's `tool`, on its
    /// `server` when known).
    ResetTool,
    /// Undo a saved *Deny*: the tool asks again next time.
    AskNextTime,
}

/// One button of the float: at most one per state is `primary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FloatAction {
    pub id: ActionId,
    pub label: String,
    #[serde(default)]
    pub primary: bool,
}

/// The consent prompt: the question first, why it is asked, and the call's arguments as a
/// list (masked; a long value also comes shortened, for the folded view).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct Consent {
    pub question: Masked,
    pub why: Masked,
    pub args: Vec<ConsentArg>,
    /// Said when the call has no arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_args: Option<String>,
    /// Where the choice can be kept (*Always allow*, *Deny*): the label of the box that
    /// keeps it on every site rather than on this one only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub everywhere: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct ConsentArg {
    pub name: Masked,
    pub value: Masked,
    /// The first line of a long value, shown until the user unfolds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short: Option<Masked>,
}

/// The error part of the float ("错误详情" in the original MCP Bridge).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatError {
    pub error_type: Masked,
    pub message: Masked,
    /// [`crate::domain::classify::Category`] as its wire name.
    pub category: String,
    /// The last N stack lines.
    pub stack: Vec<Masked>,
    pub trace_id: Option<Masked>,
    pub retryable: bool,
    /// The advice the report gives the AI, for the user too.
    pub recommendations: Vec<Masked>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatState {
    pub status: FloatStatus,
    pub tone: Tone,
    /// This state needs the user: a minimised float opens when it comes.
    pub opens: bool,
    /// The one plain sentence for the user, e.g. "`get_time` finished; the result is in the chat."
    pub title: Masked,
    /// A second line, when needed (why a site is off, what the bridge refused …).
    pub detail: Option<Masked>,
    /// A command for the user to run on this machine, with a copy button.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The buttons, in order; at most one is primary.
    pub actions: Vec<FloatAction>,
    /// While asking: the prompt, and nothing else.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consent: Option<Consent>,
    pub tool: Option<String>,
    /// The icon of the tool the float names (else of its server): a `data:image/` URL that
    /// `bridge_api::icon` passed, drawn beside the title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// The tool's server, when the call named it (for *Reset* and *Ask me next time*).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// `Date.now()` when execution started, for the elapsed-time display.
    pub started_at_ms: Option<f64>,
    pub error: Option<FloatError>,
    /// The last report typed (or to be typed) into the chat, for *Show report* and "copy";
    /// in the report language, written for the AI.
    pub report: Option<Masked>,
    /// The interface language the float speaks: "zh" or "en".
    pub lang: String,
    /// How many secret-looking values were masked in the result shown (by the bridge and the
    /// core together).
    #[serde(skip_serializing_if = "is_zero")]
    pub masked: u32,
    /// The line that tells the user so, in the interface language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub masked_note: Option<Masked>,
    /// The images and sounds the tool returned, for the float to show, save and attach.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<FloatMedia>,
    /// A running call's progress, as its server reports it (drawn, never read back).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub progress: Option<FloatProgress>,
    /// The `resource_link`s of the result, each offered for attaching to the chat.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<FloatLink>,
    /// The servers' tools changed since this tab's AI got its instructions (with the button
    /// that inserts them again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools_changed: Option<Masked>,
    /// The question the running call's server asks the user (never shown to the AI; drawn,
    /// never read back).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub question: Option<FloatQuestion>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// An image or a sound from a tool's result, as the bridge sent it (base64). Not text: it
/// never reaches the chat as text and is not masked; it lives only in the float command
/// (floats are never stored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatMedia {
    pub mime_type: String,
    pub data: String,
}

/// A `resource_link` of a tool's result, for the float to offer: *Attach* reads it from the
/// server that returned it, as the Prompts menu's resources are
/// ([`crate::domain::prompts_menu::links`] finds them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct FloatLink {
    pub server: String,
    pub uri: String,
    pub label: Masked,
}

/// At most this much base64 over all of a float's media: a tab message stays small, and
/// what does not fit is still named in the report (and so in "copy").
const MEDIA_CAP: usize = 8 << 20;

/// The media the float may show: raster images and audio whose type is a plain
/// `type/subtype` and whose data is base64, in order, within [`MEDIA_CAP`]. SVG is left out
/// (a document that can hold scripts), as is anything else a page could misread.
pub fn media<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<FloatMedia> {
    let mut left = MEDIA_CAP;
    let mut out = Vec::new();
    for (mime, data) in items {
        let mime = mime.trim().to_ascii_lowercase();
        let plain = |part: &str| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
        };
        let typed = match mime.split_once('/') {
            Some((kind, sub)) => ["image", "audio"].contains(&kind) && plain(sub),
            None => false,
        };
        let base64 = !data.is_empty()
            && data
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
        if typed && base64 && mime != "image/svg+xml" && data.len() <= left {
            left -= data.len();
            out.push(FloatMedia {
                mime_type: mime,
                data: data.to_string(),
            });
        }
    }
    out
}

/// A float with a status and a title (masked here) in `lang`, in the status's usual tone.
pub fn new(status: FloatStatus, title: &str, lang: Lang) -> FloatState {
    FloatState {
        status,
        tone: tone_of(status),
        opens: needs_user(status),
        title: Masked::new(title),
        lang: match lang {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
        .into(),
        ..Default::default()
    }
}

/// The tone each status shows.
fn tone_of(status: FloatStatus) -> Tone {
    match status {
        FloatStatus::Ready | FloatStatus::Denied => Tone::Neutral,
        FloatStatus::Confirm | FloatStatus::Held | FloatStatus::Unreachable => Tone::Attention,
        FloatStatus::Executing => Tone::Busy,
        FloatStatus::Success => Tone::Good,
        FloatStatus::Error => Tone::Bad,
        FloatStatus::Disabled => Tone::Off,
    }
}

/// The states that need the user: a call to allow, a failure, a call held for the setup,
/// the bridge out of reach.
fn needs_user(status: FloatStatus) -> bool {
    matches!(
        status,
        FloatStatus::Confirm | FloatStatus::Error | FloatStatus::Held | FloatStatus::Unreachable
    )
}

fn base(status: FloatStatus, title: String, lang: Lang) -> FloatState {
    new(status, &title, lang)
}

/// `name` marked as code for the float (a backtick in a name cannot end the mark early).
pub fn code(name: &str) -> String {
    format!("`{}`", name.replace('`', "'"))
}

pub(crate) fn action(lang: Lang, id: ActionId, primary: bool) -> FloatAction {
    let says = lang.says();
    let label = match id {
        ActionId::AllowOnce => says.ui_allow_once,
        ActionId::AlwaysAllow => says.ui_always_allow,
        ActionId::TrustServer => says.ui_trust_server,
        ActionId::Deny => says.ui_deny,
        ActionId::Skip => says.ui_skip,
        ActionId::Cancel => says.ui_cancel,
        ActionId::TellAi => says.ui_tell_ai,
        ActionId::Drop => says.ui_drop,
        ActionId::OpenSettings => says.ui_open_settings,
        ActionId::InsertInstructions => says.ui_insert_instructions,
        ActionId::CopyReport => says.ui_copy_report,
        ActionId::ResetTool => says.ui_reset_tool,
        ActionId::AskNextTime => says.ui_ask_next_time,
    };
    FloatAction {
        id,
        label: label.into(),
        primary,
    }
}

/// What keeps the extension from the bridge, as the float tells the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Setup {
    /// Nothing answers at the address (`host:port`).
    NotRunning {
        address: String,
    },
    /// Something else answers there.
    WrongAddress {
        address: String,
    },
    TokenMissing,
    TokenRejected,
    /// The bridge refused the extension's request (its origin or host check).
    Refused {
        address: String,
    },
    /// The native host answered but could not hand out the bridge.
    HelperFailed {
        reason: String,
        command: String,
    },
    /// The remote MCP server `server` needs the user to sign in (again) in the options page.
    SignIn {
        server: String,
    },
}

impl Setup {
    /// The float's setup problem for a connection verdict that is not "connected".
    pub fn of_status(status: &Status, address: &str, note: &PairingNote) -> Option<Setup> {
        if let (PairingNote::Failed { reason, command }, true) = (note, status.wants_pairing()) {
            return Some(Setup::HelperFailed {
                reason: reason.clone(),
                command: command.clone(),
            });
        }
        let address = address.to_string();
        Some(match status {
            Status::NotRunning => Setup::NotRunning { address },
            Status::WrongAddress { .. } => Setup::WrongAddress { address },
            Status::TokenMissing => Setup::TokenMissing,
            Status::TokenRejected => Setup::TokenRejected,
            Status::Connected { .. } => return None,
        })
    }

    /// The sentence and the command to run, in `lang`.
    pub fn say(&self, lang: Lang) -> (String, Option<String>) {
        let says = lang.says();
        match self {
            Setup::NotRunning { address } => {
                (says.ui_not_running.into(), Some(start_command(address)))
            }
            Setup::WrongAddress { address } => (
                fill(says.ui_wrong_address, &[("address", &code(address))]),
                None,
            ),
            Setup::TokenMissing => (says.ui_token_missing.into(), Some(PAIR_COMMAND.into())),
            Setup::TokenRejected => (says.ui_token_rejected.into(), Some(PAIR_COMMAND.into())),
            Setup::Refused { address } => {
                (fill(says.ui_refused, &[("address", &code(address))]), None)
            }
            Setup::HelperFailed { reason, command } => (
                fill(says.ui_helper_failed, &[("reason", &code(reason))]),
                Some(command.clone()),
            ),
            Setup::SignIn { server } => (fill(says.ui_sign_in, &[("server", &code(server))]), None),
        }
    }
}

/// Pairs the extension with the bridge once (it then starts the bridge by itself).
const PAIR_COMMAND: &str = "mcp-bridge install";

/// The command that starts the bridge at `address` (`host:port`): the bridge's defaults
/// are left out.
pub fn start_command(address: &str) -> String {
    let (host, port) = address.rsplit_once(':').unwrap_or((address, ""));
    let mut cmd = String::from("mcp-bridge");
    let host = host.trim_matches(['[', ']']);
    if !host.is_empty() && !["127.0.0.1", "localhost", "::1"].contains(&host) {
        cmd.push_str(" --host ");
        cmd.push_str(host);
    }
    if !port.is_empty() && port != mcp_bridge_protocol::DEFAULT_PORT.to_string() {
        cmd.push_str(" --port ");
        cmd.push_str(port);
    }
    cmd
}

/// The connection is not ready (`domain::status`): what is wrong, and the command that
/// fixes it on this machine.
pub fn status(lang: Lang, problem: &Setup) -> FloatState {
    let (title, command) = problem.say(lang);
    let mut s = base(FloatStatus::Unreachable, title, lang);
    s.command = command;
    s.actions = vec![action(lang, ActionId::OpenSettings, false)];
    s
}

/// The float of a page where the extension is active and idle.
pub fn ready(lang: Lang, site_name: &str) -> FloatState {
    let mut s = base(
        FloatStatus::Ready,
        fill(lang.says().ui_ready, &[("site", &code(site_name))]),
        lang,
    );
    s.actions = vec![action(lang, ActionId::InsertInstructions, true)];
    s
}

/// A settled float that says what a float button just did (`title`), with nothing to press.
pub fn said(lang: Lang, title: &str) -> FloatState {
    new(FloatStatus::Ready, title, lang)
}

/// The picker's result was refused (a selector that does not parse, a page with no site to
/// save it for): what it found is not saved, and why.
pub fn picked_refused(lang: Lang, why: &str) -> FloatState {
    let mut s = base(
        FloatStatus::Error,
        lang.says().picked_not_saved.to_string(),
        lang,
    );
    s.detail = Some(Masked::new(why));
    s
}

/// The extension is off here: the user turned it off, or the site config is broken.
pub fn disabled(lang: Lang, why: &str) -> FloatState {
    let mut s = base(FloatStatus::Disabled, lang.says().ui_off.to_string(), lang);
    s.detail = Some(Masked::new(why));
    s
}

pub fn executing(lang: Lang, tool: &str, started_at_ms: f64) -> FloatState {
    let mut s = base(
        FloatStatus::Executing,
        fill(lang.says().ui_running, &[("tool", &code(tool))]),
        lang,
    );
    s.tool = Some(tool.to_string());
    s.started_at_ms = Some(started_at_ms);
    s.actions = vec![action(lang, ActionId::Cancel, false)];
    s
}

/// A running call with its server's progress and question, if any.
pub fn running(
    lang: Lang,
    tool: &str,
    started_at_ms: f64,
    activity: Option<&Activity>,
) -> FloatState {
    let mut s = executing(lang, tool, started_at_ms);
    if let Some(activity) = activity {
        s.progress = activity
            .progress
            .as_ref()
            .map(|p| crate::domain::call_activity::float_progress(p, lang));
        s.question = activity
            .question
            .as_ref()
            .map(|q| crate::domain::call_activity::float_question(q, lang));
    }
    s
}

/// All of a prompt's arguments together: at most this many characters.
const PROMPT_ARGS_CHARS: usize = 2000;
/// A value longer than this (or with a line break) is folded to its start.
const FOLD_CHARS: usize = 80;
/// At most this many arguments are listed.
const PROMPT_ARGS: usize = 20;

/// A detected call waits for the user: "Let `DeepSeek` run `write_file` on `filesystem`?",
/// `why` it was not run by itself, and its arguments as a list (masked; secret-named ones
/// hidden; long values folded). `remember`: the choice can be kept (Allow once, Always
/// allow, Deny) rather than made for this call only (Allow once, Skip).
pub fn confirm(lang: Lang, site: &str, call: &ToolCall, why: &str, remember: bool) -> FloatState {
    let says = lang.says();
    let tool = call.tool_name.as_str();
    let everywhere = remember.then(|| fill(says.ui_everywhere, &[("site", site)]));
    let (site, tool_c) = (code(site), code(tool));
    let question = match &call.server_name {
        Some(server) => fill(
            says.ui_ask_on,
            &[
                ("site", &site),
                ("tool", &tool_c),
                ("server", &code(server)),
            ],
        ),
        None => fill(says.ui_ask, &[("site", &site), ("tool", &tool_c)]),
    };
    let mut s = base(FloatStatus::Confirm, question.clone(), lang);
    s.tool = Some(tool.to_string());
    let args = arg_list(&call.arguments);
    s.consent = Some(Consent {
        question: Masked::new(&question),
        why: Masked::new(why),
        no_args: args.is_empty().then(|| says.ui_no_args.to_string()),
        args,
        everywhere,
    });
    s.actions = if remember {
        vec![
            action(lang, ActionId::AllowOnce, true),
            action(lang, ActionId::AlwaysAllow, false),
            action(lang, ActionId::Deny, false),
        ]
    } else {
        vec![
            action(lang, ActionId::AllowOnce, true),
            action(lang, ActionId::Skip, false),
        ]
    };
    s
}

/// Offers, beside *Allow once*, to trust `server` for good (its read-only tools then run
/// without asking).
pub fn offer_trust(float: &mut FloatState, lang: Lang, server: &str) {
    let mut trust = action(lang, ActionId::TrustServer, false);
    trust.label = fill(&trust.label, &[("server", &code(server))]);
    float.actions.insert(1.min(float.actions.len()), trust);
}

/// The arguments of a call as name and value lines: strings as they are, anything else as
/// compact JSON; a value under a secret-looking name is hidden whole.
fn arg_list(arguments: &serde_json::Value) -> Vec<ConsentArg> {
    let pairs: Vec<(String, &serde_json::Value)> = match arguments {
        // By name, whatever order the JSON map keeps (`preserve_order` may be on in a native
        // build): the same call shows the same list everywhere.
        serde_json::Value::Object(map) => crate::domain::json_read::sorted_members(map)
            .into_iter()
            .map(|(k, v)| (k.clone(), v))
            .collect(),
        serde_json::Value::Null => Vec::new(),
        other => vec![(String::new(), other)],
    };
    let mut left = PROMPT_ARGS_CHARS;
    let mut out = Vec::new();
    for (name, value) in pairs.into_iter().take(PROMPT_ARGS) {
        let text = match value {
            serde_json::Value::String(s) => s.clone(),
            v => serde_json::to_string(v).unwrap_or_default(),
        };
        let text = crate::domain::outcome::cut_chars(&text, left.max(FOLD_CHARS));
        left = left.saturating_sub(text.chars().count());
        let value = if mcp_bridge_protocol::secrets::is_secret_key(&name) {
            Masked::new("[REDACTED:secret]")
        } else {
            Masked::new(&text)
        };
        let first = value.as_str().lines().next().unwrap_or_default();
        let short = (value.as_str().chars().count() > FOLD_CHARS
            || first.len() < value.as_str().len())
        .then(|| {
            let cut: String = first.chars().take(FOLD_CHARS).collect();
            Masked::new(&format!("{cut}…"))
        });
        out.push(ConsentArg {
            name: Masked::new(&name),
            value,
            short,
        });
    }
    out
}

/// A call that waits for the bridge: which tool waits, and what to do on this machine.
pub fn held(lang: Lang, tool: &str, problem: &Setup) -> FloatState {
    let (why, command) = problem.say(lang);
    let mut s = base(
        FloatStatus::Held,
        fill(lang.says().ui_held, &[("tool", &code(tool)), ("why", &why)]),
        lang,
    );
    s.tool = Some(tool.to_string());
    s.command = command;
    s.actions = vec![
        action(lang, ActionId::TellAi, false),
        action(lang, ActionId::Drop, false),
        action(lang, ActionId::OpenSettings, false),
    ];
    s
}

/// Why a call waits: the user's "ask" policy, auto-execute off, the round cap, or settings
/// that could not be read.
pub fn confirm_reason(lang: Lang, reason: ConfirmReason, cap: u32) -> String {
    let says = lang.says();
    match reason {
        ConfirmReason::Policy => says.confirm_policy.into(),
        ConfirmReason::Manual => says.confirm_manual.into(),
        ConfirmReason::FirstUse => says.confirm_first_use.into(),
        ConfirmReason::Untrusted(tool) => fill(says.confirm_untrusted, &[("tool", &code(&tool))]),
        ConfirmReason::NotTrusted(server) => {
            fill(says.confirm_not_trusted, &[("server", &code(&server))])
        }
        ConfirmReason::RoundCap => fill(says.confirm_round_cap, &[("cap", &cap.to_string())]),
        ConfirmReason::Ambiguous(servers) => {
            let first = servers.first().map(|s| code(s)).unwrap_or_default();
            let all: Vec<String> = servers.iter().map(|s| code(s)).collect();
            fill(
                says.confirm_ambiguous,
                &[("servers", &all.join(says.list_sep)), ("first", &first)],
            )
        }
        ConfirmReason::Unreadable(why) => {
            fill(says.confirm_unreadable, &[("why", &code(&why.say(lang)))])
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmReason {
    Policy,
    /// Nothing set for a tool that may change things.
    FirstUse,
    /// The conversation read untrusted content, from this tool: only *Allow once*.
    Untrusted(String),
    /// Nothing set for a tool claiming to only read, on this server the user does not trust.
    NotTrusted(String),
    Manual,
    RoundCap,
    /// Why the stored settings could not be used ([`crate::domain::settings::Settings::unreadable`]).
    Unreadable(FieldError),
    /// The servers that offer the tool; the call runs on the first.
    Ambiguous(Vec<String>),
}

impl From<AskReason> for ConfirmReason {
    fn from(r: AskReason) -> Self {
        match r {
            AskReason::Policy => ConfirmReason::Policy,
            AskReason::FirstUse => ConfirmReason::FirstUse,
            AskReason::Untrusted(tool) => ConfirmReason::Untrusted(tool),
            AskReason::NotTrusted(server) => ConfirmReason::NotTrusted(server),
            AskReason::Manual => ConfirmReason::Manual,
            AskReason::Unreadable(why) => ConfirmReason::Unreadable(why),
            AskReason::Ambiguous(servers) => ConfirmReason::Ambiguous(servers),
        }
    }
}

/// What became of a call, for [`finished`].
#[derive(Debug, Clone, Copy)]
pub struct Finished<'a> {
    /// The tool that was called (`None` for a call that could not be read).
    pub tool: Option<&'a str>,
    /// The bridge could not be reached: the float is the setup problem instead.
    pub setup: Option<&'a Setup>,
    /// Why the report could not be typed or sent, when it could not.
    pub delivery_problem: Option<&'a str>,
}

/// The float after a call, in the interface language `lang`: one sentence for the user
/// built from the report's own view (`outcome`: its status, the masked count and media),
/// the report itself behind *Show report*, and what happened to it. A report that did not
/// reach the chat makes *Copy report* the primary button, so a result is never lost.
pub fn finished(lang: Lang, outcome: FloatState, report: &Masked, how: Finished<'_>) -> FloatState {
    let says = lang.says();
    let tool = how.tool.map(code).unwrap_or_default();
    let mut s = match (how.setup, outcome.status, how.tool) {
        (Some(problem), _, _) => status(lang, problem),
        (None, FloatStatus::Success, _) => base(
            FloatStatus::Success,
            fill(says.ui_done, &[("tool", &tool)]),
            lang,
        ),
        (None, FloatStatus::Denied, _) => base(
            FloatStatus::Denied,
            fill(says.ui_denied, &[("tool", &tool)]),
            lang,
        ),
        (None, _, Some(_)) => base(
            FloatStatus::Error,
            fill(says.ui_failed, &[("tool", &tool)]),
            lang,
        ),
        (None, _, None) => base(FloatStatus::Error, says.ui_malformed.into(), lang),
    };
    s.tool = how.tool.map(str::to_string);
    s.masked = outcome.masked;
    if outcome.masked > 0 {
        let count = outcome.masked.to_string();
        s.masked_note = Some(Masked::new(&fill(says.float_masked, &[("count", &count)])));
    }
    s.media = outcome.media;
    if how.setup.is_none() && s.status == FloatStatus::Success {
        // How far a large result was read, how many tools a list holds.
        s.detail = outcome.detail;
    }
    if let Some(p) = how.delivery_problem {
        let why = crate::domain::redact::redact_owned(p);
        s.detail = Some(Masked::new(&fill(
            says.ui_not_delivered,
            &[("why", &code(&why))],
        )));
        s.actions
            .insert(0, action(lang, ActionId::CopyReport, true));
    }
    s.report = Some(report.clone());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_float_gets_raster_images_and_audio_in_base64_only() {
        let got = media(
            [
                ("image/png", "iVBORw0KGgo="),
                ("Image/JPEG", "/9j/4AAQ"),
                ("audio/wav", "UklGRg=="),
                ("image/svg+xml", "PHN2Zz4="),
                ("text/html", "PGI+"),
                ("image/png\"><script>", "AAAA"),
                ("image/png", "not base64!"),
                ("image/gif", ""),
            ]
            .into_iter(),
        );
        let kept: Vec<&str> = got.iter().map(|m| m.mime_type.as_str()).collect();
        assert_eq!(kept, ["image/png", "image/jpeg", "audio/wav"]);
        assert_eq!(got[0].data, "iVBORw0KGgo=");
        let big = "A".repeat(MEDIA_CAP - 4);
        let got = media(
            [
                ("image/png", big.as_str()),
                ("image/png", "AAAAAAAA"),
                ("image/png", "AAAA"),
            ]
            .into_iter(),
        );
        assert_eq!(got.len(), 2, "the second is over the cap, the third fits");
    }

    #[test]
    fn a_call_held_back_by_unusable_settings_says_why_masked() {
        let why =
            "token: contains sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".to_string();
        for lang in [Lang::En, Lang::Zh] {
            let text = confirm_reason(
                lang,
                ConfirmReason::Unreadable(FieldError::new(
                    "token",
                    crate::domain::field_error::Invalid::Quoted(why.clone()),
                )),
                10,
            );
            assert!(text.contains("token: contains sk-ant-"), "{text}");
            let call = ToolCall {
                tool_name: "echo".into(),
                arguments: json!({"text": "hi"}),
                server_name: None,
            };
            let f = confirm(lang, "DeepSeek", &call, &text, false);
            let consent = f.consent.unwrap();
            let why = consent.why.as_str();
            assert!(!why.contains("AAAAAAAAAAAAAAAA"), "{why}");
            assert_eq!(consent.args.len(), 1);
            assert_eq!(consent.args[0].name.as_str(), "text");
            assert_eq!(consent.args[0].value.as_str(), "hi");
        }
        let en = confirm_reason(
            Lang::En,
            ConfirmReason::Unreadable(FieldError::new(
                "token",
                crate::domain::field_error::Invalid::Quoted(why),
            )),
            10,
        );
        assert!(en.contains("options page"), "{en}");
    }

    fn ids(f: &FloatState) -> Vec<(ActionId, bool)> {
        f.actions.iter().map(|a| (a.id, a.primary)).collect()
    }

    #[test]
    fn the_consent_prompt_asks_one_question_with_allow_once_first() {
        let call = ToolCall {
            tool_name: "write_file".into(),
            arguments: json!({
                "path": "/tmp/a.txt",
                "content": "line one\nline two",
                "api_key": "plain-looking-value",
                "big": "x".repeat(300),
            }),
            server_name: Some("filesystem".into()),
        };
        let f = confirm(Lang::En, "DeepSeek", &call, "why", true);
        let consent = f.consent.as_ref().unwrap();
        assert_eq!(
            consent.question.as_str(),
            "Let `DeepSeek` run `write_file` on `filesystem`?"
        );
        assert_eq!(f.tone, Tone::Attention);
        assert_eq!(
            ids(&f),
            [
                (ActionId::AllowOnce, true),
                (ActionId::AlwaysAllow, false),
                (ActionId::Deny, false)
            ]
        );
        let arg = |name: &str| {
            consent
                .args
                .iter()
                .find(|a| a.name.as_str() == name)
                .unwrap()
        };
        assert_eq!(arg("path").value.as_str(), "/tmp/a.txt");
        assert!(arg("path").short.is_none());
        assert!(!arg("api_key").value.as_str().contains("plain-looking"));
        assert_eq!(arg("content").short.as_ref().unwrap().as_str(), "line one…");
        let big = arg("big");
        assert_eq!(big.value.as_str().len(), 300);
        assert_eq!(
            big.short.as_ref().unwrap().as_str().chars().count(),
            FOLD_CHARS + 1
        );
        let zh = confirm(Lang::Zh, "DeepSeek", &call, "why", false);
        assert_eq!(
            zh.consent.as_ref().unwrap().question.as_str(),
            "允许 `DeepSeek` 在 `filesystem` 上运行 `write_file` 吗？"
        );
        assert_eq!(
            ids(&zh),
            [(ActionId::AllowOnce, true), (ActionId::Skip, false)]
        );
    }

    #[test]
    fn every_state_has_at_most_one_primary_action() {
        let call = ToolCall {
            tool_name: "t".into(),
            arguments: json!({}),
            server_name: None,
        };
        let report = Masked::new("report for the AI");
        let problem = Setup::NotRunning {
            address: "127.0.0.1:3849".into(),
        };
        let outcome = new(FloatStatus::Success, "x", Lang::En);
        let undelivered = Finished {
            tool: Some("t"),
            setup: None,
            delivery_problem: Some("input-not-found"),
        };
        for lang in [Lang::En, Lang::Zh] {
            let states = [
                ready(lang, "DeepSeek"),
                disabled(lang, "off"),
                executing(lang, "t", 0.0),
                confirm(lang, "DeepSeek", &call, "why", true),
                confirm(lang, "DeepSeek", &call, "why", false),
                held(lang, "t", &problem),
                status(lang, &problem),
                finished(lang, outcome.clone(), &report, undelivered),
            ];
            for s in &states {
                let primaries = s.actions.iter().filter(|a| a.primary).count();
                assert!(primaries <= 1, "{:?}: {:?}", s.status, s.actions);
                assert!(!s.title.as_str().is_empty());
            }
            let last = states.last().unwrap();
            assert_eq!(ids(last)[0], (ActionId::CopyReport, true));
            assert_eq!(last.report.as_ref(), Some(&report));
        }
    }

    #[test]
    fn a_declined_call_is_neutral_and_a_failure_says_so_in_the_interface_language() {
        let report = Masked::new("# 用户拒绝了这次工具调用");
        let how = Finished {
            tool: Some("write_file"),
            setup: None,
            delivery_problem: None,
        };
        let denied = finished(
            Lang::En,
            new(FloatStatus::Denied, "拒绝", Lang::Zh),
            &report,
            how,
        );
        assert_eq!(
            (denied.status, denied.tone),
            (FloatStatus::Denied, Tone::Neutral)
        );
        assert_eq!(
            denied.title.as_str(),
            "`write_file` did not run, as you chose; the AI has been told."
        );
        assert_eq!(
            denied.report.as_ref(),
            Some(&report),
            "the report keeps its language"
        );
        let failed = finished(
            Lang::Zh,
            new(FloatStatus::Error, "failed", Lang::En),
            &report,
            how,
        );
        assert_eq!(
            (failed.status, failed.tone),
            (FloatStatus::Error, Tone::Bad)
        );
        assert_eq!(
            failed.title.as_str(),
            "`write_file` 没有成功，已把原因告诉助手。"
        );
        assert_eq!(failed.lang, "zh");
    }

    #[test]
    fn a_setup_problem_gives_the_command_for_the_configured_address() {
        let at = |address: &str| Setup::NotRunning {
            address: address.into(),
        };
        assert_eq!(
            status(Lang::En, &at("127.0.0.1:3849")).command.as_deref(),
            Some("mcp-bridge")
        );
        assert_eq!(
            status(Lang::En, &at("127.0.0.1:4000")).command.as_deref(),
            Some("mcp-bridge --port 4000")
        );
        assert_eq!(
            status(Lang::En, &at("localhost:4000")).command.as_deref(),
            Some("mcp-bridge --port 4000")
        );
        assert_eq!(
            status(Lang::En, &at("10.0.0.2:3849")).command.as_deref(),
            Some("mcp-bridge --host 10.0.0.2")
        );
        let held_float = held(Lang::Zh, "get_time", &Setup::TokenRejected);
        assert_eq!(held_float.command.as_deref(), Some("mcp-bridge install"));
        assert!(held_float.title.as_str().starts_with("`get_time` 正在等待"));
        for s in [held_float, status(Lang::En, &at("127.0.0.1:3849"))] {
            let title = s.title.as_str();
            assert!(
                !title.contains("build.sh") && !title.contains("HTTP"),
                "{title}"
            );
        }
        let note = PairingNote::Failed {
            reason: "no host".into(),
            command: "mcp-bridge install --extension-id abc".into(),
        };
        let s = Setup::of_status(&Status::NotRunning, "127.0.0.1:3849", &note).unwrap();
        assert_eq!(
            status(Lang::En, &s).command.as_deref(),
            Some("mcp-bridge install --extension-id abc")
        );
    }

    #[test]
    fn a_state_that_needs_the_user_opens_the_float() {
        use FloatStatus::*;
        let opens = |s| serde_json::to_value(new(s, "t", Lang::En)).unwrap()["opens"].clone();
        for s in [Confirm, Error, Held, Unreachable] {
            assert_eq!(opens(s), true, "{s:?}");
        }
        for s in [Ready, Executing, Success, Disabled, Denied] {
            assert_eq!(opens(s), false, "{s:?}");
        }
    }
}
