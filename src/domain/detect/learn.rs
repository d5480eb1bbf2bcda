//! What the user's own exchanges teach about a page, kept per site as the detection's memory:
//! the control whose press made the user's text leave the input is the send control, and a
//! control that appeared among the input's while the answer grew and went away when it
//! stopped is the stop control. The content script reports what it saw and keeps the memory
//! the core hands back; every judgement is here. No message of our own is ever sent to learn.

use super::answers::Signature;
use super::words::{Says, says};
use super::{Candidate, label_of};
use serde::{Deserialize, Serialize};

/// What was learnt on a site: how to find its send and stop controls again.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Memory {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send: Option<Signature>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<Signature>,
}

/// Words in a token that follow a control's state rather than say what it is: a send control
/// disabled while the input is empty, one being hovered, one that spins while it sends.
const STATE_WORDS: &[&str] = &[
    "disabled", "active", "hover", "focus", "loading", "hidden", "pressed", "checked", "expanded",
    "selected", "busy", "pending",
];

/// Whether a token stays while the control changes state. Attribute values that are labels
/// or states (`@aria-label=…`, `@data-state=…`) change with it; bare attribute names stay.
fn lasting(token: &str) -> bool {
    let t = token.to_ascii_lowercase();
    if STATE_WORDS.iter().any(|w| t.contains(w)) {
        return false;
    }
    match t.strip_prefix('@') {
        Some(attr) => {
            !attr.starts_with("aria-") && !attr.starts_with("tabindex") && !attr.contains("state")
        }
        None => true,
    }
}

/// How to find a control again: its tag, its role and its tokens that do not follow its state.
pub fn signature_of(c: &Candidate) -> Signature {
    Signature {
        tag: c.tag.clone(),
        role: c.role.clone(),
        has: c.tokens.iter().filter(|t| lasting(t)).cloned().collect(),
        not: Vec::new(),
        unsent: false,
    }
}

/// Whether `c`, whose press made the user's text leave the input, can be the send control:
/// shown, not the input, and not saying it does something else.
pub fn can_send(c: &Candidate) -> bool {
    c.visible
        && !c.editable
        && !c.rect.is_empty()
        && matches!(says(&label_of(c)), Says::Send | Says::Nothing)
}

/// Whether `c`, which appeared among the input's controls while the answer grew and went away
/// when it stopped, can be the stop control: a shown control that is not the send control.
pub fn can_stop(c: &Candidate, send: Option<&Signature>) -> bool {
    c.visible
        && !c.editable
        && !c.rect.is_empty()
        && !matches!(says(&label_of(c)), Says::Send | Says::Other)
        && send.is_none_or(|s| *s != signature_of(c))
}

/// The memory after what the content script just saw: `pressed` sent the user's text,
/// `appeared` came and went with an answer's growth. What cannot be either is not learnt.
pub fn learn(memory: &Memory, pressed: Option<&Candidate>, appeared: Option<&Candidate>) -> Memory {
    let mut next = memory.clone();
    if let Some(p) = pressed.filter(|p| can_send(p)) {
        next.send = Some(signature_of(p));
    }
    if let Some(a) = appeared.filter(|a| can_stop(a, next.send.as_ref())) {
        next.stop = Some(signature_of(a));
    }
    next
}

/// The send control among `buttons` by the memory: the first one its signature matches, shown
/// ones first (some sites hide their send control while an answer streams).
pub fn find(sig: &Signature, buttons: &[Candidate]) -> Option<usize> {
    let matching = |shown: bool| {
        buttons
            .iter()
            .position(|b| b.visible == shown && sig.matches(b))
    };
    matching(true).or_else(|| matching(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::detect::Rect;

    fn control(tag: &str, tokens: &[&str], label: &str) -> Candidate {
        Candidate {
            tag: tag.into(),
            tokens: tokens.iter().map(|t| t.to_string()).collect(),
            label: label.into(),
            rect: Rect(800.0, 850.0, 32.0, 32.0),
            visible: true,
            ..Candidate::default()
        }
    }

    #[test]
    fn the_pressed_control_is_found_again_whatever_its_state() {
        // Pressed while enabled; found again while disabled (a class and aria-disabled added).
        let pressed = control(
            "div",
            &[".k9x", ".k9x--primary", "@aria-disabled=false"],
            "",
        );
        let memory = learn(&Memory::default(), Some(&pressed), None);
        let sig = memory.send.clone().expect("learnt");
        assert_eq!(sig.has, vec![".k9x", ".k9x--primary"]);
        let disabled = control(
            "div",
            &[
                ".k9x",
                ".k9x--primary",
                ".k9x--disabled",
                "@aria-disabled=true",
            ],
            "",
        );
        let attach = control("div", &[".k9x"], "");
        assert_eq!(find(&sig, &[attach, disabled]), Some(1));
    }

    #[test]
    fn a_press_on_what_says_stop_or_attach_or_on_the_input_teaches_nothing() {
        for c in [
            control("button", &[".b"], "stop generating"),
            control("button", &[".b"], "attach files"),
            Candidate {
                editable: true,
                ..control("div", &[".ed"], "")
            },
            Candidate {
                visible: false,
                ..control("button", &[".b"], "")
            },
        ] {
            assert_eq!(
                learn(&Memory::default(), Some(&c), None),
                Memory::default(),
                "{c:?}"
            );
        }
    }

    #[test]
    fn what_came_and_went_with_the_answer_is_the_stop_control_unless_it_is_the_send_control() {
        let send = control("button", &[".round"], "");
        let stop = control("button", &[".round", ".square"], "");
        let memory = learn(&Memory::default(), Some(&send), Some(&stop));
        assert_eq!(memory.stop.unwrap().has, vec![".round", ".square"]);
        // One control that turns from send into stop and back is not learnt as a stop control.
        let memory = learn(&Memory::default(), Some(&send), Some(&send));
        assert!(memory.send.is_some() && memory.stop.is_none());
        // A control saying send never is the stop control.
        let memory = learn(
            &Memory::default(),
            None,
            Some(&control("button", &[".s"], "send")),
        );
        assert_eq!(memory, Memory::default());
    }

    #[test]
    fn the_memory_reads_back_what_it_wrote() {
        let memory = learn(
            &Memory::default(),
            Some(&control("button", &[".go", "@data-x"], "")),
            None,
        );
        let json = serde_json::to_value(&memory).unwrap();
        assert_eq!(json["send"]["has"], serde_json::json!([".go", "@data-x"]));
        assert!(json.get("stop").is_none());
        assert_eq!(serde_json::from_value::<Memory>(json).unwrap(), memory);
        // Anything else stored under the key reads as nothing learnt.
        assert_eq!(
            serde_json::from_value::<Memory>(serde_json::json!({})).unwrap(),
            Memory::default()
        );
    }
}
