//! The one message contract between the JavaScript glue (content scripts, options page) and
//! the Rust core in the background. Both sides speak these tagged enums; anything else is
//! rejected as untrusted input.
//!
//! Two vocabularies, split by who may speak them: [`TabRequest`] is all a content script in
//! a chat tab can ever say (report what it sees, ask to run what the core detected), and
//! [`PageRequest`] is only accepted from the extension's own pages.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub mod options;
pub use options::PageRequest;

/// Upper bound on the size of any message a content script may send (the newest assistant
/// message text dominates it). Larger messages are refused, never truncated silently.
pub const MAX_MESSAGE_BYTES: usize = 2 * 1024 * 1024;

/// Where a message came from, as the browser (not the sender) tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// A content script in a chat tab: untrusted, may only report and ask to run detected calls.
    ContentScript,
    /// An extension page (options): trusted, may change settings.
    ExtensionPage,
}

/// What a content script reports or asks: `{"type": "page-ready", "url": …}` on the wire
/// (read by [`parse_incoming`], see [`from_tagged`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    rename_all = "kebab-case",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum TabRequest {
    /// Liveness check; answered with the core's version.
    Ping,
    /// The content script started on a page; answered with [`Response::PageSetup`].
    PageReady { url: String },
    /// The page shows a new, empty chat (no messages, empty input): where instructions may
    /// be inserted by themselves, if the user asked for that.
    EmptyChat { url: String },
    /// The newest assistant message as the page shows it now.
    MessageUpdated {
        url: String,
        /// Position of the message among the assistant messages (its identity in the chat).
        index: u32,
        text: String,
        /// The site's "still generating" indicator is present.
        generating: bool,
        /// Already on the page when the content script started: never run automatically.
        #[serde(default)]
        baseline: bool,
        /// When the page last changed (ms since epoch), as the content script saw it: the
        /// settle window counts from there, not from when this report arrived.
        #[serde(default)]
        changed_at: Option<f64>,
    },
    /// The user sent a message themselves (resets the automatic-round counter).
    UserMessage,
    /// A button in the float.
    UserAction { action: UserAction },
    /// The site config found no usable input, send control or answers: what the page shows
    /// around its editable elements, for the core to choose from
    /// ([`crate::domain::detect`]); answered with [`Response::Detected`].
    Detect {
        scene: Box<crate::domain::detect::Scene>,
    },
    /// What an MCP App view asks of the host, relayed by the extension page that frames it
    /// (`view/host.js`): `view` is the view's id, which the worker knows for this tab only.
    View { view: String, ask: ViewAsk },
}

/// `{"ask": "call", "name": …}` on the wire, inside a `view` message: a view's request as
/// the host page relays it (the view's own JSON-RPC names are the host page's).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    rename_all = "kebab-case",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum ViewAsk {
    /// The frame opens: its address, the tool's input and result, the host context.
    Open,
    /// `tools/call`: a tool of the view's own server.
    Call {
        name: String,
        #[serde(default)]
        arguments: Option<Value>,
    },
    /// `ui/message`: content for the chat input.
    Message { content: Value },
    /// `ui/open-link`: whether the float may offer it.
    Link { url: String },
    /// The view threw, or never opened the conversation.
    Failed { why: String },
}

/// `{"action": "confirm", "run": true}` on the wire, inside a `user-action` message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    rename_all = "kebab-case",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum UserAction {
    InsertInstructions,
    /// Parse the newest message again and run its call, even if it was on the page before
    /// it loaded (a call that already ran still never runs twice).
    Redetect {
        index: u32,
        text: String,
    },
    /// The user pasted a `<tool_code>` block.
    ManualInput {
        text: String,
    },
    Cancel,
    /// Answer to a prompt: run the call or not; `always` also keeps the choice for the tool
    /// (Always allow, Deny).
    Confirm {
        run: bool,
        #[serde(default)]
        always: bool,
        /// Also trust the call's server (*Trust `server`*).
        #[serde(default)]
        trust: bool,
        /// Keep the choice on every site, not only on this one.
        #[serde(default)]
        everywhere: bool,
    },
    /// About a call held for the user's setup: send its failure report to the AI after all
    /// (`tellAi`), or drop it.
    Held {
        tell_ai: bool,
    },
    OpenDetails,
    /// *Reset* on a tool the bridge blocks after repeated failures: clears its failure
    /// counter (on `server` when the call named one, else on every server).
    ResetTool {
        tool: String,
        #[serde(default)]
        server: Option<String>,
    },
    /// *Ask me next time* after a refusal by a saved *Deny*: the tool asks again.
    AskNextTime {
        tool: String,
        #[serde(default)]
        server: Option<String>,
    },
    /// The user's answer to the question a running call's server asks: `accept` (with the
    /// form's `content` as the user gave it, read by the question's schema in
    /// [`crate::domain::call_activity::answer_body`]), `decline` or `cancel`.
    Answer {
        question_id: String,
        answer: String,
        #[serde(default)]
        content: Option<serde_json::Value>,
    },
    /// The float's *Prompts* menu: every server's prompts, resources and resource templates
    /// ([`crate::domain::prompts_menu`]); answered with [`Response::Menu`].
    Menu,
    /// Suggestions for one field of the menu's form (the server's `completion/complete`):
    /// `kind` is `prompt` or `template`, `name` the prompt's name or the URI template, `context`
    /// the other fields filled so far; answered with [`Response::Completions`].
    Complete {
        server: String,
        kind: String,
        name: String,
        argument: String,
        #[serde(default)]
        value: String,
        #[serde(default)]
        context: Option<serde_json::Value>,
    },
    /// Put a menu entry into the chat input after what the user wrote there, unsent: a prompt
    /// rendered with `values`, a resource read (a template's URI filled with `values`; a
    /// `resource_link` of a result is a `resource` too). A refusal names the field.
    UseItem {
        server: String,
        kind: String,
        name: String,
        #[serde(default)]
        values: Option<serde_json::Value>,
    },
    /// The picker starts: answered with its steps ([`Response::PickPlan`]).
    PickStart,
    /// The user chose `element` for a part: answered with the selectors to count on the page
    /// ([`Response::PickCandidates`]).
    PickCandidates {
        element: Box<crate::domain::picker::Element>,
    },
    /// What the picker found for the page's parts (each element and what its candidates
    /// found; a skipped part is absent): the core chooses each selector, writes them as the
    /// user's override for this page's site (its host only) and answers with the new config.
    Picked {
        url: String,
        #[serde(default)]
        input: Option<Box<crate::domain::picker::Chosen>>,
        #[serde(default)]
        send: Option<Box<crate::domain::picker::Chosen>>,
        #[serde(default)]
        answer: Option<Box<crate::domain::picker::Chosen>>,
    },
}

impl TabRequest {
    /// The worker's occasional work, answered beside the chat loop
    /// ([`crate::runtime::errands`]): the float's *Prompts* menu, the choice among a page's
    /// gathered parts and the picker's result. Each reads and writes only storage, the
    /// bridge and the tab, never the chat loop's memory.
    pub fn is_errand(&self) -> bool {
        match self {
            TabRequest::Detect { .. } => true,
            TabRequest::UserAction { action } => matches!(
                action,
                UserAction::Menu
                    | UserAction::Complete { .. }
                    | UserAction::UseItem { .. }
                    | UserAction::PickStart
                    | UserAction::PickCandidates { .. }
                    | UserAction::Picked { .. }
            ),
            _ => false,
        }
    }
}

/// Any incoming message, after the origin check.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Tab(TabRequest),
    Page(PageRequest),
}

/// What the core answers (to either side).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Response {
    Pong {
        version: String,
    },
    /// Answer to `page-ready`: the site's config (or why the extension is off here).
    PageSetup {
        #[serde(skip_serializing_if = "Option::is_none")]
        site: Option<crate::domain::sites::SiteConfig>,
        /// With a site: the ways to type into each kind of editor, so the content script
        /// carries out the core's choice instead of making it.
        #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
        typing: Option<Box<crate::domain::typing::Typing>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
        float: Box<crate::domain::float::FloatState>,
        /// The words of the float's controls and the picker, in the interface language.
        #[serde(skip_deserializing)]
        labels: Option<&'static std::collections::BTreeMap<String, String>>,
    },
    /// Message received; `recheck_ms` asks the content script to report again after that
    /// long even if nothing changes (so the core can see the text has settled).
    Ack {
        #[serde(skip_serializing_if = "Option::is_none")]
        recheck_ms: Option<u32>,
    },
    /// Answer to `detect`: the parts chosen among the candidates.
    Detected {
        choice: crate::domain::detect::Choice,
    },
    /// Answer to the float's `menu`.
    Menu {
        menu: crate::domain::prompts_menu::Menu,
    },
    /// Answer to `pick-start`: the picker's steps.
    PickPlan {
        #[serde(skip_deserializing)]
        steps: Vec<crate::domain::picker::Step>,
    },
    /// Answer to `pick-candidates`: the selectors to count, best first.
    PickCandidates {
        selectors: Vec<String>,
    },
    /// Answer to `complete`: the server's suggestions, at most 100.
    Completions {
        values: Vec<String>,
    },
    /// Options-page answers carry arbitrary JSON shaped by [`options::PageRequest`].
    Data {
        data: serde_json::Value,
    },
    /// The request was refused or could not be understood.
    Error {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        field: Option<String>,
    },
}

impl Response {
    /// The answer to a ping, from a tab or an extension page.
    /// The answer to `page-ready` (and to a picked site): the site's config with the ways to
    /// type into its input, or why the extension is off here.
    pub fn page_setup(
        site: Option<crate::domain::sites::SiteConfig>,
        problem: Option<String>,
        float: crate::domain::float::FloatState,
        lang: crate::domain::i18n::Lang,
    ) -> Response {
        Response::PageSetup {
            labels: Some(&crate::domain::i18n::labels::Labels::of(lang).float),
            typing: site
                .as_ref()
                .map(|s| Box::new(crate::domain::typing::Typing::for_site(s.editor))),
            site,
            problem,
            float: Box::new(float),
        }
    }

    pub fn pong() -> Response {
        Response::Pong {
            version: crate::VERSION.into(),
        }
    }

    pub fn error(message: impl Into<String>) -> Response {
        Response::Error {
            message: message.into(),
            field: None,
        }
    }
}

/// Commands the core sends to a tab's content script (`chrome.tabs.sendMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Command {
    /// Put `text` into the chat input (replacing what is there) and read it back.
    TypeText { text: String },
    /// Put `text` into the chat input after what it holds (a blank line between), and read
    /// it back: the Prompts menu adds to what the user is writing instead of replacing it.
    AppendText { text: String },
    /// Press the send button (or Enter) and confirm the message left.
    Submit,
    /// Attach `text` to the chat input as a file named `name`, the way a user pastes one;
    /// `ok` when the page took it.
    AttachFile {
        name: String,
        mime_type: String,
        text: String,
    },
    /// Redraw the float.
    FloatState {
        float: Box<crate::domain::float::FloatState>,
    },
    /// Show the MCP App view `view` (the bridge's one-time id) of `tool` in the float, in a
    /// frame of the extension's `view/host.html`.
    ShowView { view: String, tool: String },
}

/// The content script's answer to a [`Command`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct CommandResult {
    pub ok: bool,
    /// Why it failed, in words for the float.
    pub reason: Option<String>,
}

/// What the background worker answers an extension page's request.
pub const PAGE_REQUEST_IN_WORKER: &str =
    "an extension page's requests are answered by its own core";

/// Parses a message from the glue, refusing anything that is not part of the contract or
/// not allowed from `origin`.
pub fn parse_incoming(json: &str, origin: Origin) -> Result<Incoming, String> {
    if json.len() > MAX_MESSAGE_BYTES {
        return Err(format!(
            "message of {} bytes exceeds the limit of {MAX_MESSAGE_BYTES}",
            json.len()
        ));
    }
    let value: Result<Value, String> = serde_json::from_str(json).map_err(|e| e.to_string());
    match origin {
        Origin::ContentScript => value
            .and_then(tab_request)
            .map(Incoming::Tab)
            .map_err(|e| format!("not a message a chat page may send: {e}")),
        Origin::ExtensionPage => {
            let value = value.map_err(|e| format!("not a valid MCP Bridge message: {e}"))?;
            if value.get("type").and_then(Value::as_str) == Some("ping")
                && let Ok(TabRequest::Ping) = tab_request(value.clone())
            {
                return Ok(Incoming::Tab(TabRequest::Ping));
            }
            // The page that frames a view in a chat tab relays the view's requests to the
            // worker, which answers them for that tab.
            if value.get("type").and_then(Value::as_str) == Some("view") {
                return tab_request(value)
                    .map(Incoming::Tab)
                    .map_err(|e| format!("not a valid MCP Bridge message: {e}"));
            }
            from_tagged::<PageRequest>(value, "type")
                .map(Incoming::Page)
                .map_err(|e| format!("not a valid MCP Bridge message: {e}"))
        }
    }
}

fn tab_request(mut value: Value) -> Result<TabRequest, String> {
    if value.get("type").and_then(Value::as_str) == Some("user-action")
        && let Some(action) = value.get_mut("action")
    {
        // Every `UserAction` with fields has a required one, so a bare tag is a unit variant.
        *action = untag(action.take(), "action")?;
    }
    if value.get("type").and_then(Value::as_str) == Some("view")
        && let Some(ask) = value.get_mut("ask")
    {
        *ask = untag(ask.take(), "ask")?;
    }
    from_tagged(value, "type")
}

/// Reads the glue's internally tagged shape, `{"type": "page-ready", "url": …}`, as the
/// externally tagged enum serde derives without buffering: `{"page-ready": {"url": …}}`, or
/// `"ping"` for a variant without fields. serde's own `#[serde(tag = …)]` derive first copies
/// every message into its private `Content` tree, and that machinery was the largest single
/// item in the wasm (about 65 KB before wasm-opt). The retagged value
/// is read as it is ([`crate::domain::json_read::from_value`]); `./build.sh bench` prints what that
/// costs next to one plain parse of the message.
pub fn from_tagged<T: DeserializeOwned>(value: Value, tag: &str) -> Result<T, String> {
    let read = |v: Value| crate::domain::json_read::from_value::<T>(&v).map_err(|e| e.to_string());
    let bare = untag(value, tag)?;
    let Value::String(name) = bare else {
        return read(bare);
    };
    // Nothing but the tag: a variant without fields, or one whose fields are all optional
    // (`{"reset-history": {}}`); the second error is the one that names what is missing.
    read(Value::String(name.clone())).or_else(|_| {
        let mut outer = Map::new();
        outer.insert(name, Value::Object(Map::new()));
        read(Value::Object(outer))
    })
}

/// `{tag: name, …rest}` → `{name: {…rest}}`, or the bare `"name"` when there is no rest.
fn untag(value: Value, tag: &str) -> Result<Value, String> {
    let Value::Object(mut fields) = value else {
        return Err(format!("expected an object with a `{tag}` field"));
    };
    let name = match fields.remove(tag) {
        Some(Value::String(name)) => name,
        Some(_) => return Err(format!("`{tag}` must be a string")),
        None => return Err(format!("missing field `{tag}`")),
    };
    if fields.is_empty() {
        return Ok(Value::String(name));
    }
    let mut outer = Map::new();
    outer.insert(name, Value::Object(fields));
    Ok(Value::Object(outer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_menus_choice_is_read_as_sent() {
        use crate::domain::settings::{DEFAULT_CHOICE, ToolPolicy};
        let policy = |choice: Value| {
            let mut request = serde_json::json!({"type": "set-tool-policy", "key": "demo:echo"});
            if !choice.is_null() {
                request["policy"] = choice;
            }
            match from_tagged::<PageRequest>(request, "type")? {
                PageRequest::SetToolPolicy { policy, .. } => Ok(policy),
                other => Err(format!("{other:?}")),
            }
        };
        assert_eq!(policy(DEFAULT_CHOICE.into()), Ok(None));
        assert_eq!(policy(Value::Null), Ok(None));
        assert_eq!(policy("ask".into()), Ok(Some(ToolPolicy::Ask)));
        assert_eq!(policy("deny".into()), Ok(Some(ToolPolicy::Deny)));
        assert!(policy("sometimes".into()).is_err());
    }

    #[test]
    fn ping_round_trips_as_tagged_json() {
        let req = parse_incoming(r#"{"type":"ping"}"#, Origin::ContentScript).unwrap();
        assert_eq!(req, Incoming::Tab(TabRequest::Ping));
        let pong = Response::Pong {
            version: "1.2.3".into(),
        };
        assert_eq!(
            serde_json::to_string(&pong).unwrap(),
            r#"{"type":"pong","version":"1.2.3"}"#
        );
    }

    #[test]
    fn message_updates_parse_with_camel_case_fields() {
        let req = parse_incoming(
            r#"{"type":"message-updated","url":"https://chat.deepseek.com/a/1","index":3,"text":"hi","generating":false}"#,
            Origin::ContentScript,
        )
        .unwrap();
        assert!(matches!(
            req,
            Incoming::Tab(TabRequest::MessageUpdated {
                index: 3,
                baseline: false,
                ..
            })
        ));
        let req = parse_incoming(
            r#"{"type":"user-action","action":{"action":"confirm","run":true}}"#,
            Origin::ContentScript,
        )
        .unwrap();
        assert_eq!(
            req,
            Incoming::Tab(TabRequest::UserAction {
                action: UserAction::Confirm {
                    run: true,
                    always: false,
                    trust: false,
                    everywhere: false
                }
            })
        );
    }

    #[test]
    fn unknown_and_malformed_messages_are_refused() {
        assert!(parse_incoming(r#"{"type":"rm-rf"}"#, Origin::ContentScript).is_err());
        assert!(parse_incoming("not json", Origin::ExtensionPage).is_err());
        assert!(parse_incoming(r#"{"kind":"ping"}"#, Origin::ExtensionPage).is_err());
        // Extra fields are not silently ignored either.
        assert!(
            parse_incoming(
                r#"{"type":"page-ready","url":"u","x":1}"#,
                Origin::ContentScript
            )
            .is_err()
        );
    }

    #[test]
    fn content_scripts_cannot_reach_extension_page_requests() {
        let err = parse_incoming(r#"{"type":"reset-history"}"#, Origin::ContentScript).unwrap_err();
        assert!(err.contains("not a message a chat page may send"), "{err}");
        assert!(matches!(
            parse_incoming(r#"{"type":"reset-history"}"#, Origin::ExtensionPage),
            Ok(Incoming::Page(_))
        ));
    }

    #[test]
    fn tagged_shapes_read_without_buffering() {
        let tab = |json: &str| parse_incoming(json, Origin::ContentScript);
        let page = |json: &str| parse_incoming(json, Origin::ExtensionPage);
        assert_eq!(
            tab(r#"{"type":"user-action","action":{"action":"cancel"}}"#).unwrap(),
            Incoming::Tab(TabRequest::UserAction {
                action: UserAction::Cancel
            })
        );
        // All fields optional and none sent: the variant still reads.
        assert_eq!(
            page(r#"{"type":"get-error-log"}"#).unwrap(),
            Incoming::Page(PageRequest::GetErrorLog {
                filter: Default::default()
            })
        );
        assert_eq!(
            page(r#"{"type":"ping"}"#).unwrap(),
            Incoming::Tab(TabRequest::Ping)
        );
        for bad in [
            r#"{"type":"ping","x":1}"#,
            r#"{"type":5}"#,
            r#"["ping"]"#,
            r#""ping""#,
            r#"{"ping":null}"#,
            r#"{"type":"user-action","action":"cancel"}"#,
            r#"{"type":"user-action","action":{"action":"cancel","x":1}}"#,
            r#"{"type":"user-action","action":{"action":"confirm"}}"#,
        ] {
            assert!(tab(bad).is_err(), "{bad}");
        }
        let err = tab(r#"{"url":"u"}"#).unwrap_err();
        assert!(err.contains("missing field `type`"), "{err}");
        let err = tab(r#"{"type":"page-ready"}"#).unwrap_err();
        assert!(err.contains("missing field `url`"), "{err}");
    }

    #[test]
    fn oversized_messages_are_refused() {
        let big = format!(
            r#"{{"type":"message-updated","url":"u","index":0,"generating":false,"text":"{}"}}"#,
            "x".repeat(MAX_MESSAGE_BYTES)
        );
        assert!(
            parse_incoming(&big, Origin::ContentScript)
                .unwrap_err()
                .contains("exceeds")
        );
    }

    #[test]
    fn commands_serialise_for_the_content_script() {
        let cmd = Command::TypeText { text: "x".into() };
        assert_eq!(
            serde_json::to_string(&cmd).unwrap(),
            r#"{"type":"type-text","text":"x"}"#
        );
    }

    #[test]
    fn a_page_gets_its_site_with_the_ways_to_type_into_each_editor() {
        let site = crate::domain::sites::SiteConfig::parse(
            r#"{"id":"demo","name":"Demo","hosts":["chat.example.com"],"editor":"quill"}"#,
        )
        .unwrap();
        let setup = Response::page_setup(
            Some(site),
            None,
            Default::default(),
            crate::domain::i18n::Lang::En,
        );
        let shown = serde_json::to_value(&setup).unwrap();
        assert_eq!(shown["site"]["editor"], "quill");
        let typing = &shown["typing"];
        // The kinds are told by the element's marks; the config's kind is the one for an
        // element no library marks.
        let kinds: Vec<&str> = typing["markers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "field",
                "lexical",
                "slate",
                "prosemirror",
                "quill",
                "draft-js",
                "codemirror"
            ]
        );
        assert_eq!(typing["unmarked"], "quill");
        // The float's words come with it, in the language asked for.
        assert_eq!(shown["labels"]["pickerCancel"], "Cancel");
        assert_eq!(
            typing["unmarkedWays"],
            serde_json::json!(["insert", "paste", "dom"])
        );
        // No site: nothing to type into, and no `site` key.
        let off = Response::page_setup(
            None,
            Some("off".into()),
            Default::default(),
            crate::domain::i18n::Lang::En,
        );
        let off = serde_json::to_value(&off).unwrap();
        assert!(
            off.get("site").is_none() && off.get("typing").is_none(),
            "{off}"
        );
    }
}
