//! The picker's decisions: what a click means for each part of the page, which selectors are
//! worth trying for the element the user chose, and which one is saved. The page only
//! describes the element and counts what each selector finds (`extension/picker.js`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A part of the chat page the user points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Input,
    Send,
    Answer,
}

/// One step of the picker, in the order the user takes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub part: Part,
    /// The label (a key of the float's labels) that tells the user what to click.
    pub label: &'static str,
    /// A click inside an element matching this means that element (a click on the text of
    /// a button means the button); none: the element clicked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub widen: Option<&'static str>,
}

/// The picker's steps: the input, the send control, one answer.
pub fn plan() -> Vec<Step> {
    vec![
        Step {
            part: Part::Input,
            label: "pickerInput",
            widen: Some(
                r#"textarea,input,[contenteditable="true"],[contenteditable=""],[role="textbox"]"#,
            ),
        },
        Step {
            part: Part::Send,
            label: "pickerSend",
            widen: Some(r#"button,[role="button"],input[type="submit"]"#),
        },
        Step {
            part: Part::Answer,
            label: "pickerAnswer",
            widen: None,
        },
    ]
}

/// What the page says about the element the user chose.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Element {
    /// `localName`.
    pub tag: String,
    pub id: String,
    pub attributes: BTreeMap<String, String>,
    pub classes: Vec<String>,
    /// The element and its ancestors up to (not including) `<body>`, the element first.
    pub path: Vec<PathStep>,
}

/// One element on the way from the chosen element up to `<body>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PathStep {
    pub tag: String,
    pub id: String,
    /// Its position among its parent's children of the same tag, from 1.
    pub nth: u32,
    /// How many children of that tag its parent has.
    pub of: u32,
}

/// What one candidate selector finds on the page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Found {
    pub selector: String,
    /// Elements it matches.
    pub count: u32,
    /// The chosen element is one of them.
    pub includes: bool,
    /// None of them contains another.
    pub disjoint: bool,
}

/// A picked part as the page sends it at the end: the element and what each candidate found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Chosen {
    pub element: Element,
    pub found: Vec<Found>,
}

/// Attributes that name what an element is, most stable first.
const NAMING: [&str; 9] = [
    "data-testid",
    "data-test-id",
    "aria-label",
    "name",
    "placeholder",
    "role",
    "data-role",
    "data-message-author-role",
    "type",
];

/// A value longer than this is content (a prompt, a message), not a name.
const LONGEST_NAME: usize = 80;
/// Candidates per element, the path included.
const MAX_CANDIDATES: usize = 24;
/// Steps of a path from the element up, at most.
const MAX_PATH: usize = 40;

/// Whether a class name or id looks made by a build (hashes, CSS-in-JS prefixes): such names
/// change with every release of the site, so a selector on them would stop matching.
pub fn looks_generated(name: &str) -> bool {
    let run = |pred: fn(char) -> bool, n: usize| {
        let mut len = 0;
        name.chars().any(|c| {
            len = if pred(c) { len + 1 } else { 0 };
            len >= n
        })
    };
    name.starts_with("css-")
        || name.starts_with("sc-")
        || name.starts_with('_')
        || run(|c| c.is_ascii_digit(), 3)
        || run(|c| c.is_ascii_uppercase() || c.is_ascii_digit(), 5)
}

/// The selectors worth trying for `element`, best first, ending with its path from the
/// nearest ancestor with a stable id (or from `<body>`), which finds it whatever else fails.
pub fn candidates(element: &Element) -> Vec<String> {
    let tag = ident(&element.tag);
    let mut out: Vec<String> = Vec::new();
    let mut add = |s: String| {
        if !out.contains(&s) && out.len() < MAX_CANDIDATES - 1 {
            out.push(s);
        }
    };
    if !element.id.is_empty() && !looks_generated(&element.id) {
        add(format!("#{}", ident(&element.id)));
    }
    for name in NAMING {
        if let Some(v) = element.attributes.get(name)
            && !v.is_empty()
            && v.chars().count() < LONGEST_NAME
        {
            add(format!("{tag}[{name}={}]", string(v)));
        }
    }
    let classes: Vec<&String> = element
        .classes
        .iter()
        .filter(|c| !c.is_empty() && !looks_generated(c))
        .collect();
    for c in &classes {
        add(format!("{tag}.{}", ident(c)));
    }
    if classes.len() > 1 {
        let joined: String = classes
            .iter()
            .take(3)
            .map(|c| format!(".{}", ident(c)))
            .collect();
        add(format!("{tag}{joined}"));
    }
    let path = path(element);
    if !out.contains(&path) {
        out.push(path);
    }
    out
}

/// `tag:nth-of-type(n)` steps from the nearest ancestor with a stable id, or from `<body>`.
fn path(element: &Element) -> String {
    let mut parts: Vec<String> = Vec::new();
    for step in element.path.iter().take(MAX_PATH) {
        if !step.id.is_empty() && !looks_generated(&step.id) {
            parts.push(format!("#{}", ident(&step.id)));
            break;
        }
        let tag = ident(&step.tag);
        parts.push(if step.of > 1 {
            format!("{tag}:nth-of-type({})", step.nth.max(1))
        } else {
            tag
        });
    }
    if parts.is_empty() {
        return ident(&element.tag);
    }
    parts.reverse();
    parts.join(" > ")
}

/// The selector saved for `part`: for the input and the send control the first candidate
/// that finds the element alone; for an answer the one that finds it and the most other
/// elements, none inside another (every answer of the chat, not only this one). Only the
/// core's own candidates for the element count, whatever else the page sends; when none
/// qualifies, the path.
pub fn choose(part: Part, chosen: &Chosen) -> Option<String> {
    if chosen.element.tag.is_empty() {
        return None;
    }
    let cands = candidates(&chosen.element);
    let measured = |sel: &String| chosen.found.iter().find(|f| &f.selector == sel);
    let usable: Vec<&Found> = cands
        .iter()
        .filter_map(measured)
        .filter(|f| f.includes)
        .collect();
    let best = match part {
        Part::Input | Part::Send => usable.iter().find(|f| f.count == 1).copied(),
        Part::Answer => usable
            .iter()
            .filter(|f| f.disjoint)
            .fold(None::<&Found>, |best, f| match best {
                Some(b) if b.count >= f.count => Some(b),
                _ => Some(f),
            }),
    };
    best.map(|f| f.selector.clone())
        .or_else(|| Some(path(&chosen.element)))
}

/// CSS.escape: `s` as a CSS identifier (CSSOM "serialize an identifier").
fn ident(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        let hex = |out: &mut String| out.push_str(&format!("\\{:x} ", c as u32));
        match c {
            '\0' => out.push('\u{FFFD}'),
            '\u{1}'..='\u{1f}' | '\u{7f}' => hex(&mut out),
            '0'..='9' if i == 0 || (i == 1 && chars[0] == '-') => hex(&mut out),
            '-' if i == 0 && chars.len() == 1 => out.push_str("\\-"),
            c if c as u32 >= 0x80 || c == '-' || c == '_' || c.is_ascii_alphanumeric() => {
                out.push(c)
            }
            c => {
                out.push('\\');
                out.push(c);
            }
        }
    }
    out
}

/// `s` as a quoted CSS string (CSSOM "serialize a string").
fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '\u{1}'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\{:x} ", c as u32)),
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(tag: &str, id: &str, attrs: &[(&str, &str)], classes: &[&str]) -> Element {
        Element {
            tag: tag.into(),
            id: id.into(),
            attributes: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            classes: classes.iter().map(|c| c.to_string()).collect(),
            path: vec![
                PathStep {
                    tag: tag.into(),
                    id: id.into(),
                    nth: 2,
                    of: 3,
                },
                PathStep {
                    tag: "main".into(),
                    id: "chat".into(),
                    nth: 1,
                    of: 1,
                },
            ],
        }
    }

    fn found(selector: &str, count: u32, includes: bool, disjoint: bool) -> Found {
        Found {
            selector: selector.into(),
            count,
            includes,
            disjoint,
        }
    }

    #[test]
    fn names_made_by_a_build_are_told_from_names_people_gave() {
        for generated in [
            "css-1x2y",
            "sc-bdVaJa",
            "_3kQ9z",
            "msg-12345",
            "xAB12Cz",
            "a9F3K2",
        ] {
            assert!(looks_generated(generated), "{generated}");
        }
        for given in [
            "chat-input",
            "ds-button--primary",
            "markdown",
            "msg-12",
            "Send",
        ] {
            assert!(!looks_generated(given), "{given}");
        }
    }

    #[test]
    fn candidates_go_from_a_stable_id_over_naming_attributes_and_classes_to_the_path() {
        let e = element(
            "textarea",
            "",
            &[
                ("placeholder", "Message"),
                ("style", "x"),
                ("aria-label", "Chat"),
            ],
            &["box", "css-9z9z9z", "wide"],
        );
        assert_eq!(
            candidates(&e),
            [
                r#"textarea[aria-label="Chat"]"#,
                r#"textarea[placeholder="Message"]"#,
                "textarea.box",
                "textarea.wide",
                "textarea.box.wide",
                "#chat > textarea:nth-of-type(2)",
            ]
        );
        let with_id = element("textarea", "chat-input", &[], &[]);
        assert_eq!(candidates(&with_id), ["#chat-input"]);
        let generated = element("div", "x1234", &[], &[]);
        assert_eq!(candidates(&generated), ["#chat > div:nth-of-type(2)"]);
    }

    #[test]
    fn names_that_are_content_or_odd_characters_are_left_out_or_escaped() {
        let long = "a".repeat(LONGEST_NAME);
        let e = element(
            "div",
            "1st",
            &[("aria-label", &long), ("data-testid", "say \"hi\"\\")],
            &["a:b", "-9"],
        );
        assert_eq!(
            candidates(&e),
            [
                "#\\31 st",
                r#"div[data-testid="say \"hi\"\\"]"#,
                "div.a\\:b",
                "div.-\\39 ",
                "div.a\\:b.-\\39 ",
            ]
        );
    }

    #[test]
    fn the_input_and_send_get_a_selector_that_finds_them_alone() {
        let e = element("button", "", &[("type", "submit")], &["primary", "send"]);
        let chosen = Chosen {
            found: vec![
                found(r#"button[type="submit"]"#, 3, true, true),
                found("button.primary", 2, true, true),
                found("button.send", 1, true, true),
                found("button.primary.send", 1, true, true),
            ],
            element: e,
        };
        assert_eq!(choose(Part::Send, &chosen).as_deref(), Some("button.send"));
    }

    #[test]
    fn an_answer_gets_the_selector_that_finds_every_answer_none_inside_another() {
        let e = element("div", "", &[], &["message", "markdown"]);
        let chosen = Chosen {
            found: vec![
                found("div.message", 6, true, false),
                found("div.markdown", 4, true, true),
                found("div.message.markdown", 4, true, true),
            ],
            element: e,
        };
        assert_eq!(
            choose(Part::Answer, &chosen).as_deref(),
            Some("div.markdown")
        );
    }

    #[test]
    fn only_the_cores_own_candidates_count_and_the_path_is_the_fallback() {
        let e = element("div", "", &[], &["reply"]);
        let chosen = Chosen {
            found: vec![
                found("body *", 1, true, true),
                found("div.reply", 5, false, true),
            ],
            element: e,
        };
        assert_eq!(
            choose(Part::Input, &chosen).as_deref(),
            Some("#chat > div:nth-of-type(2)")
        );
    }
}
