//! The chat input: the visible editable element in the page's main column, the focused one
//! first, else the one nearest the bottom.

use super::Candidate;

/// The index of the chat input among `inputs`, or `None` when none can take text.
pub fn choose(inputs: &[&Candidate], viewport: (f64, f64)) -> Option<usize> {
    let (width, _) = viewport;
    inputs
        .iter()
        .enumerate()
        .filter(|(_, c)| usable(c))
        .max_by(|(_, a), (_, b)| score(a, width).total_cmp(&score(b, width)))
        .map(|(i, _)| i)
}

/// Visible, with a box, and taking text: what a user could type into.
pub fn usable(c: &Candidate) -> bool {
    c.visible && c.editable && !c.disabled && !c.rect.is_empty()
}

fn score(c: &Candidate, width: f64) -> f64 {
    let mut s = 0.0;
    if c.focused {
        s += 1000.0;
    }
    // The main column: an input that covers the middle of the page rather than a sidebar's
    // search box.
    if width > 0.0 && c.rect.x() < width / 2.0 && c.rect.right() > width / 2.0 {
        s += 200.0;
    }
    if matches!(c.tag.as_str(), "textarea") || c.role.as_deref() == Some("textbox") {
        s += 20.0;
    }
    // Nearest the bottom, then the wider.
    s + c.rect.bottom() / 10.0 + c.rect.w() / 100.0
}

#[cfg(test)]
mod tests {
    use super::super::Rect;
    use super::*;

    fn editable(tag: &str, rect: Rect) -> Candidate {
        Candidate {
            tag: tag.into(),
            rect,
            visible: true,
            editable: true,
            ..Candidate::default()
        }
    }

    #[test]
    fn the_main_column_input_nearest_the_bottom_wins() {
        let search = editable("textarea", Rect(10.0, 10.0, 200.0, 30.0));
        let chat = editable("div", Rect(300.0, 800.0, 700.0, 40.0));
        let note = editable("textarea", Rect(300.0, 300.0, 700.0, 40.0));
        assert_eq!(choose(&[&search, &note, &chat], (1280.0, 900.0)), Some(2));
    }

    #[test]
    fn hidden_zero_size_and_disabled_inputs_are_never_chosen() {
        let mut hidden = editable("textarea", Rect(300.0, 800.0, 700.0, 40.0));
        hidden.visible = false;
        let flat = editable("textarea", Rect(300.0, 800.0, 0.0, 0.0));
        let mut off = editable("textarea", Rect(300.0, 800.0, 700.0, 40.0));
        off.disabled = true;
        let mut text = editable("div", Rect(300.0, 800.0, 700.0, 40.0));
        text.editable = false;
        assert_eq!(
            choose(&[&hidden, &flat, &off, &text], (1280.0, 900.0)),
            None
        );
    }

    #[test]
    fn the_focused_input_wins() {
        let chat = editable("div", Rect(300.0, 800.0, 700.0, 40.0));
        let mut edit = editable("textarea", Rect(300.0, 200.0, 700.0, 40.0));
        edit.focused = true;
        assert_eq!(choose(&[&chat, &edit], (1280.0, 900.0)), Some(1));
    }
}
