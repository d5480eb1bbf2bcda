//! The send control: among the controls next to the chat input, the one whose label says
//! send (in any language of [`super::words`]), else a `type=submit` one, else the one in the
//! send control's usual place (right of or below the input, nearest its bottom right corner).
//! A control that says stop, attach, voice or the like is never it. When nothing fits the
//! content script presses Enter, and the health record says the control was not found.

use super::words::{Says, says};
use super::{Candidate, Rect, label_of};

/// The index of the send control among `buttons`. `empty`: the input holds no text, so a
/// send control that is disabled now is expected (it turns on once text is in).
pub fn choose(input: &Candidate, empty: bool, buttons: &[Candidate]) -> Option<usize> {
    buttons
        .iter()
        .enumerate()
        .filter_map(|(i, b)| score(&input.rect, empty, b).map(|s| (i, s)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// How likely `b` is the send control; `None` when it cannot be.
fn score(input: &Rect, empty: bool, b: &Candidate) -> Option<f64> {
    if !b.visible || b.rect.is_empty() {
        return None;
    }
    let said = says(&label_of(b));
    let mut s = match said {
        Says::Stop | Says::Other => return None,
        Says::Send => 100.0,
        Says::Nothing => 0.0,
    };
    if b.kind.as_deref() == Some("submit") {
        s += 40.0;
    }
    // Disabled while the input is empty is how send controls behave; a control disabled
    // with text in the input is not going to send it.
    match (b.disabled, empty) {
        (true, true) => s += 10.0,
        (true, false) => s -= 30.0,
        _ => {}
    }
    // Its place: right of the input's middle, or below it, and close to the bottom-right
    // corner; a control far away is a toolbar's.
    let (cx, cy) = (b.rect.center_x(), b.rect.y() + b.rect.h() / 2.0);
    let beside = cx >= input.center_x() || b.rect.y() >= input.bottom() - 4.0;
    if !beside && said != Says::Send {
        return None;
    }
    let dist = (input.right() - cx).abs() + (input.bottom() - cy).abs();
    if dist > 400.0 && said != Says::Send {
        return None;
    }
    Some(s + 20.0 - dist / 20.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> Candidate {
        Candidate {
            tag: "div".into(),
            rect: Rect(300.0, 800.0, 600.0, 40.0),
            visible: true,
            editable: true,
            ..Candidate::default()
        }
    }

    fn button(label: &str, rect: Rect) -> Candidate {
        Candidate {
            tag: "button".into(),
            label: label.into(),
            rect,
            visible: true,
            ..Candidate::default()
        }
    }

    #[test]
    fn the_control_that_says_send_wins_in_any_language() {
        for word in [
            "Send prompt",
            "发送",
            "送信",
            "보내기",
            "Envoyer",
            "Senden",
            "Enviar",
        ] {
            let buttons = [
                button("Attach files", Rect(300.0, 850.0, 32.0, 32.0)),
                button(word, Rect(700.0, 850.0, 32.0, 32.0)),
                button("", Rect(868.0, 850.0, 32.0, 32.0)),
            ];
            assert_eq!(choose(&input(), true, &buttons), Some(1), "{word}");
        }
    }

    #[test]
    fn without_words_the_place_decides_and_stop_or_attach_never_do() {
        let buttons = [
            button("Upload image", Rect(300.0, 850.0, 32.0, 32.0)),
            button("", Rect(500.0, 850.0, 32.0, 32.0)),
            button("", Rect(868.0, 850.0, 32.0, 32.0)),
            button("Stop generating", Rect(910.0, 804.0, 32.0, 32.0)),
        ];
        assert_eq!(choose(&input(), true, &buttons), Some(2));
        // Far from the input, a control without a word is some toolbar's.
        let far = [button("", Rect(1200.0, 10.0, 32.0, 32.0))];
        assert_eq!(choose(&input(), true, &far), None);
        let only_other = [button("Voice input", Rect(868.0, 850.0, 32.0, 32.0))];
        assert_eq!(choose(&input(), true, &only_other), None);
    }

    #[test]
    fn a_submit_button_beats_an_unlabelled_one_and_hidden_ones_never_count() {
        let mut submit = button("", Rect(700.0, 850.0, 32.0, 32.0));
        submit.kind = Some("submit".into());
        let mut hidden = button("Send", Rect(868.0, 850.0, 32.0, 32.0));
        hidden.visible = false;
        let buttons = [button("", Rect(868.0, 850.0, 32.0, 32.0)), submit, hidden];
        assert_eq!(choose(&input(), true, &buttons), Some(1));
    }
}
