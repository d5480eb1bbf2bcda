//! Finding a chat page's parts by what they are when its site config finds nothing usable:
//! the chat input, the send control, the answers and the stop control. The content script
//! gathers candidates (tag, role, label, attributes, geometry, text length, order) and acts;
//! the choice is made here, a function of the candidates alone, tested over recorded lists
//! (docs/DETECTION.md).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub mod answers;
pub mod input;
pub mod learn;
pub mod send;
pub mod words;

pub use answers::{AnswerPath, Signature};
pub use learn::Memory;

/// An element's box in CSS pixels of the viewport: `[x, y, width, height]`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect(pub f64, pub f64, pub f64, pub f64);

impl Rect {
    pub fn x(&self) -> f64 {
        self.0
    }
    pub fn y(&self) -> f64 {
        self.1
    }
    pub fn w(&self) -> f64 {
        self.2
    }
    pub fn h(&self) -> f64 {
        self.3
    }
    pub fn right(&self) -> f64 {
        self.0 + self.2
    }
    pub fn bottom(&self) -> f64 {
        self.1 + self.3
    }
    pub fn center_x(&self) -> f64 {
        self.0 + self.2 / 2.0
    }
    pub fn is_empty(&self) -> bool {
        self.2 <= 0.0 || self.3 <= 0.0
    }
    /// The horizontal overlap of two boxes, in pixels (0 when they do not overlap).
    pub fn overlap_x(&self, other: &Rect) -> f64 {
        (self.right().min(other.right()) - self.x().max(other.x())).max(0.0)
    }
}

/// One element as the content script saw it. Every field is optional on the wire: a
/// candidate says what it has; a field of the wrong type reads as absent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Candidate {
    /// Lower-case tag name.
    pub tag: String,
    pub role: Option<String>,
    /// `aria-label`, else `title`, else a short piece of the visible text, lower-cased by
    /// the content script (the browser knows every script's case rules).
    pub label: String,
    /// The `type` attribute of a button or input.
    pub kind: Option<String>,
    /// Its classes and attributes as tokens: `.class` for each class, `@name=value` for an
    /// attribute (other than `id`, `class`, `style`) whose value is a short word without
    /// digits or spaces, `@name` for any other (an id per message). The content script makes
    /// them, and finds an answer again by the same tokens.
    pub tokens: Vec<String>,
    pub rect: Rect,
    /// Rendered: not `display: none`, `visibility: hidden` or without a box.
    pub visible: bool,
    /// A `textarea`, a `contenteditable` element or a `role=textbox` that takes text.
    pub editable: bool,
    /// `disabled`, `aria-disabled="true"` or inside a disabled container.
    pub disabled: bool,
    /// Holds the keyboard focus.
    pub focused: bool,
    /// Length of its text content.
    pub text_len: u32,
    /// How many rich-text blocks it holds (paragraphs, lists, code, tables, headings).
    pub blocks: u32,
    /// Holds the text the user sent last.
    pub has_sent: bool,
    /// Its position in document order among the candidates of its kind.
    pub order: u32,
    /// Its element children, for a list's entries (empty elsewhere).
    pub kids: Vec<Candidate>,
}

/// Everything gathered around one editable element.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Composer {
    pub input: Candidate,
    /// The input holds no text now (a send control is then often disabled).
    pub empty: bool,
    /// The controls near the input (its nearest ancestors holding any), in document order.
    pub buttons: Vec<Candidate>,
    /// Blocks above the input that may hold the conversation, each with its last entries
    /// as `kids`.
    pub lists: Vec<Candidate>,
}

/// What the content script gathered on a page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scene {
    /// The viewport's width and height.
    pub viewport: (f64, f64),
    pub composers: Vec<Composer>,
    /// What was learnt on this site before, as the core handed it back ([`Choice::remember`]).
    pub memory: Memory,
    /// The control whose press just made the user's text leave the input (it is also among
    /// its composer's `buttons`).
    pub pressed: Option<Candidate>,
    /// A control that appeared among the input's while the answer grew and went away when it
    /// stopped.
    pub appeared: Option<Candidate>,
    /// How long ago the user (or the core) last sent a message from this page; `None`: not
    /// since it loaded.
    pub since_sent_ms: Option<f64>,
}

/// How long the answer to a message just sent may take to show before answers that nothing
/// finds count as missing; the content script looks for them again once it is over.
pub const ANSWER_WAIT_MS: u32 = 10_000;

// Read by hand from a `Value` rather than derived: serde's derived readers for these
// nested shapes cost the wasm several KB; `Value` is read everywhere already.
impl<'de> Deserialize<'de> for Scene {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scene, D::Error> {
        Ok(Scene::from_value(&Value::deserialize(d)?))
    }
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn list<T>(v: &Value, read: impl Fn(&Value) -> T) -> Vec<T> {
    v.as_array()
        .map(|a| a.iter().map(read).collect())
        .unwrap_or_default()
}

impl Scene {
    pub fn from_value(v: &Value) -> Scene {
        Scene {
            viewport: (num(&v["viewport"][0]), num(&v["viewport"][1])),
            composers: list(&v["composers"], |c| Composer {
                input: Candidate::from_value(&c["input"]),
                empty: c["empty"].as_bool().unwrap_or(false),
                buttons: list(&c["buttons"], Candidate::from_value),
                lists: list(&c["lists"], Candidate::from_value),
            }),
            memory: serde_json::from_value(v["memory"].clone()).unwrap_or_default(),
            pressed: v
                .get("pressed")
                .filter(|p| p.is_object())
                .map(Candidate::from_value),
            appeared: v
                .get("appeared")
                .filter(|p| p.is_object())
                .map(Candidate::from_value),
            since_sent_ms: v["sinceSentMs"].as_f64(),
        }
    }
}

impl Candidate {
    pub fn from_value(v: &Value) -> Candidate {
        let flag = |k: &str| v[k].as_bool().unwrap_or(false);
        let count = |k: &str| v[k].as_u64().unwrap_or(0).min(u64::from(u32::MAX)) as u32;
        let r = &v["rect"];
        Candidate {
            tag: text(&v["tag"]),
            role: v["role"].as_str().map(String::from),
            label: text(&v["label"]),
            kind: v["type"].as_str().map(String::from),
            tokens: list(&v["tokens"], text),
            rect: Rect(num(&r[0]), num(&r[1]), num(&r[2]), num(&r[3])),
            visible: flag("visible"),
            editable: flag("editable"),
            disabled: flag("disabled"),
            focused: flag("focused"),
            text_len: count("textLen"),
            blocks: count("blocks"),
            has_sent: flag("hasSent"),
            order: count("order"),
            kids: list(&v["kids"], Candidate::from_value),
        }
    }
}

/// The parts chosen, as indexes into the [`Scene`]: the composer whose input is the chat
/// input, the send control among its buttons, the list holding the conversation and how to
/// find an answer in it. `None` where nothing fits.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Choice {
    pub input: Option<u32>,
    pub send: Option<u32>,
    pub list: Option<u32>,
    pub answers: Option<AnswerPath>,
    /// What a stop control says, in every language: the content script looks for one among
    /// the composer's controls while an answer may be streaming.
    pub stop_words: Vec<String>,
    /// The send control was found by what the user's press taught ([`learn`]).
    pub send_learned: bool,
    /// The stop control as learnt: the content script counts one shown among the composer's
    /// elements as generating.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<Signature>,
    /// The site's memory when it changed: the content script keeps it for the site and sends
    /// it with every scene.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remember: Option<Memory>,
    /// Answers should be on the page and were not found: the float says so
    /// ([`answers_missing`]).
    #[serde(default)]
    pub answers_missing: bool,
    /// A send control should be there and none was found: the input holds text (many sites
    /// show their send control only then).
    #[serde(default)]
    pub send_missing: bool,
    /// [`ANSWER_WAIT_MS`], for the content script's looking again.
    #[serde(default)]
    pub answer_wait_ms: u32,
}

/// Chooses every part from what was gathered, and what the site's memory becomes: a press
/// that sent the user's text teaches the send control, a control that came and went with an
/// answer the stop control; a learnt send control that no longer matches is forgotten, to be
/// learnt again at the next press.
pub fn choose(scene: &Scene) -> Choice {
    let mut choice = choose_parts(scene);
    choice.answers_missing = answers_missing(scene, &choice);
    choice.send_missing = send_missing(scene, &choice);
    choice.answer_wait_ms = ANSWER_WAIT_MS;
    choice
}

/// Answers are missing only once they should be there: a message was sent from this page,
/// the wait for its answer is over, and nothing holds the answers. What a page shows above
/// its input before anything is sent (a welcome, suggestions, a chat the site draws its own
/// way) is no sign that answers should be found among it: a fresh chat has none.
fn answers_missing(scene: &Scene, choice: &Choice) -> bool {
    let found = choice.input.is_some() && choice.list.is_some() && choice.answers.is_some();
    let waited = scene
        .since_sent_ms
        .is_some_and(|ms| ms > f64::from(ANSWER_WAIT_MS));
    !found && waited
}

/// A send control is missing only when the chosen input holds text: many sites show theirs
/// only once something is typed.
fn send_missing(scene: &Scene, choice: &Choice) -> bool {
    let typed = choice
        .input
        .and_then(|i| scene.composers.get(i as usize))
        .is_some_and(|c| !c.empty);
    choice.send.is_none() && typed
}

fn choose_parts(scene: &Scene) -> Choice {
    let stop_words = words::stop_words().into_iter().map(String::from).collect();
    let mut memory = learn::learn(
        &scene.memory,
        scene.pressed.as_ref(),
        scene.appeared.as_ref(),
    );
    let inputs: Vec<&Candidate> = scene.composers.iter().map(|c| &c.input).collect();
    let Some(at) = input::choose(&inputs, scene.viewport) else {
        return Choice {
            stop_words,
            stop: memory.stop.clone(),
            remember: (memory != scene.memory).then_some(memory),
            ..Choice::default()
        };
    };
    let composer = &scene.composers[at];
    // A stop control just seen going away that still matches a shown control (the send
    // control, whose tokens it shares when nothing else tells them apart) is not one.
    if scene.appeared.is_some()
        && memory.stop.as_ref().is_some_and(|stop| {
            composer
                .buttons
                .iter()
                .any(|b| b.visible && stop.matches(b))
        })
    {
        memory.stop = scene.memory.stop.clone();
    }
    let learned = memory
        .send
        .as_ref()
        .and_then(|sig| learn::find(sig, &composer.buttons));
    if learned.is_none() {
        memory.send = None;
    }
    let send = learned.or_else(|| send::choose(&composer.input, composer.empty, &composer.buttons));
    let list = answers::choose_list(&composer.input.rect, &composer.lists);
    let answers = list.and_then(|l| answers::choose_path(&composer.lists[l].kids));
    Choice {
        input: Some(at as u32),
        send: send.map(|i| i as u32),
        list: list.map(|i| i as u32),
        answers,
        stop_words,
        send_learned: learned.is_some(),
        stop: memory.stop.clone(),
        remember: (memory != scene.memory).then_some(memory),
        ..Choice::default()
    }
}

/// The label of a candidate for the word lists (the content script lower-cased it; ASCII
/// again here for a label that did not come from it).
pub(crate) fn label_of(c: &Candidate) -> String {
    c.label.trim().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(tag: &str, tokens: &[&str], rect: Rect) -> Candidate {
        Candidate {
            tag: tag.into(),
            tokens: tokens.iter().map(|t| t.to_string()).collect(),
            rect,
            visible: true,
            ..Candidate::default()
        }
    }

    /// A composer whose send control is a bare `div` far left of the input, where no rule of
    /// place or word would take it, beside an unlabelled button in the usual place.
    fn scene(memory: Memory, pressed: bool) -> Scene {
        let input = Candidate {
            editable: true,
            ..el("div", &[".ed"], Rect(300.0, 800.0, 600.0, 40.0))
        };
        let bare = el("div", &[".zq1", ".zq1-on"], Rect(100.0, 850.0, 32.0, 32.0));
        let other = el("button", &[".tool"], Rect(868.0, 850.0, 32.0, 32.0));
        Scene {
            viewport: (1200.0, 900.0),
            composers: vec![Composer {
                input,
                empty: false,
                buttons: vec![other, bare.clone()],
                lists: vec![],
            }],
            memory,
            pressed: pressed.then_some(bare),
            appeared: None,
            since_sent_ms: None,
        }
    }

    #[test]
    fn a_stop_control_that_would_match_a_shown_control_is_not_learnt() {
        // The stop control shares every lasting token with the send control (a test id with
        // digits reads as a bare attribute): watching it would mean generating forever.
        let mut s = scene(Memory::default(), false);
        s.composers[0].buttons[0].tokens =
            vec!["@type=button".into(), "@data-t".into(), ".btn".into()];
        let mut stop = s.composers[0].buttons[0].clone();
        stop.tokens.push("@aria-label=stop".into());
        s.appeared = Some(stop.clone());
        assert_eq!(choose(&s).stop, None);
        // One with a token of its own is learnt.
        stop.tokens.push(".square".into());
        s.appeared = Some(stop);
        assert!(
            choose(&s)
                .stop
                .is_some_and(|sig| sig.has.contains(&".square".to_string()))
        );
    }

    #[test]
    fn the_press_that_sent_teaches_the_send_control_and_the_memory_finds_it_again() {
        // By place alone the unlabelled button would be taken.
        assert_eq!(choose(&scene(Memory::default(), false)).send, Some(0));
        let taught = choose(&scene(Memory::default(), true));
        assert_eq!((taught.send, taught.send_learned), (Some(1), true));
        let memory = taught.remember.expect("the memory changed");
        // On the next page, no press yet: the memory finds it, and nothing changes.
        let again = choose(&scene(memory.clone(), false));
        assert_eq!(
            (again.send, again.send_learned, again.remember),
            (Some(1), true, None)
        );
        // A redesign removed it: forgotten, the structure decides, the next press teaches.
        let mut gone = scene(memory, false);
        gone.composers[0].buttons.truncate(1);
        let after = choose(&gone);
        assert_eq!((after.send, after.send_learned), (Some(0), false));
        assert_eq!(after.remember, Some(Memory::default()));
    }

    #[test]
    fn answers_count_as_missing_only_after_a_message_sent_and_the_wait_is_over() {
        let input = Candidate {
            editable: true,
            visible: true,
            tag: "textarea".into(),
            rect: Rect(300.0, 800.0, 600.0, 40.0),
            ..Candidate::default()
        };
        // A list above the input whose one entry nothing tells apart as an answer.
        let list = |kids: Vec<Candidate>| Candidate {
            tag: "div".into(),
            visible: true,
            rect: Rect(300.0, 100.0, 600.0, 600.0),
            kids,
            ..Candidate::default()
        };
        let entry = Candidate {
            tag: "div".into(),
            visible: true,
            text_len: 40,
            ..Candidate::default()
        };
        let at = |lists: Vec<Candidate>, since_sent_ms: Option<f64>| Scene {
            viewport: (1200.0, 900.0),
            composers: vec![Composer {
                input: input.clone(),
                empty: true,
                buttons: vec![],
                lists,
            }],
            memory: Memory::default(),
            pressed: None,
            appeared: None,
            since_sent_ms,
        };
        let talk = || vec![list(vec![entry.clone()])];
        let missing = |scene: &Scene| {
            let choice = choose(scene);
            assert_eq!(choice.answer_wait_ms, ANSWER_WAIT_MS);
            assert!(choice.answers.is_none(), "{choice:?}");
            choice.answers_missing
        };
        assert!(
            !missing(&at(talk(), None)),
            "nothing sent since the page loaded: a welcome is no conversation"
        );
        assert!(missing(&at(talk(), Some(10_001.0))));
        assert!(
            missing(&at(vec![], Some(10_001.0))),
            "sent, waited, and nothing came where answers go"
        );
        assert!(
            !missing(&at(talk(), Some(2_000.0))),
            "the answer may be on its way"
        );
        assert!(
            !missing(&at(vec![], None)),
            "a new chat has no answers to find"
        );
        assert!(
            !missing(&at(vec![list(vec![])], None)),
            "an empty list is no conversation"
        );
    }

    #[test]
    fn a_send_control_is_missing_only_once_text_is_typed() {
        let input = Candidate {
            editable: true,
            visible: true,
            tag: "div".into(),
            rect: Rect(300.0, 800.0, 600.0, 40.0),
            ..Candidate::default()
        };
        // No control beside the input, as on a site that shows its send control only once
        // there is text to send.
        let at = |empty: bool| Scene {
            viewport: (1200.0, 900.0),
            composers: vec![Composer {
                input: input.clone(),
                empty,
                buttons: vec![],
                lists: vec![],
            }],
            memory: Memory::default(),
            pressed: None,
            appeared: None,
            since_sent_ms: None,
        };
        let fresh = choose(&at(true));
        assert_eq!((fresh.input, fresh.send), (Some(0), None));
        assert!(!fresh.send_missing, "nothing typed: no send control is due");
        assert!(choose(&at(false)).send_missing);
    }
}
