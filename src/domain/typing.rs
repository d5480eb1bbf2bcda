//! How text gets into a chat input: which kind of editor an element is, told by the marks
//! editor libraries put on their root, and the ways to type into each kind, best first. The
//! content script gets this table with a site's config and only carries it out.

use crate::domain::sites::EditorKind;
use serde::Serialize;

/// One way of putting text into a chat input. The content script tries its editor's ways in
/// order until the text reads back from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TypingWay {
    /// The native value setter and an `input` event: React keeps its own copy of the value
    /// and only takes it this way (https://github.com/facebook/react/issues/10135); Vue's
    /// `v-model` listens to the same event.
    Value,
    /// `execCommand('insertText')`.
    Insert,
    /// `execCommand('insertText')` a line at a time with `insertLineBreak` between: Chromium
    /// turns each line break of one insert into a block, which a plain contenteditable
    /// reads back with doubled blank lines.
    InsertLines,
    /// A synthetic paste of the plain text (the user's clipboard is never touched).
    Paste,
    /// A paste of the text as HTML, one paragraph a line: ProseMirror splits pasted plain
    /// text on runs of line breaks, so blank lines would vanish.
    PasteParagraphs,
    /// A synthetic `beforeinput` of type `insertFromPaste` carrying the text in a
    /// `DataTransfer`: editors that model every edit from `beforeinput` (Slate) take it as
    /// a paste, a line a block. Chromium fires no `beforeinput` for `execCommand`, so such
    /// an editor never sees an insert: the DOM changes and its model keeps the old text.
    BeforeInputPaste,
    /// A synthetic `beforeinput` of type `insertText` with the text as its `data`.
    BeforeInputText,
    /// Setting the element's text directly: the last resort.
    Dom,
}

/// What an input element is, as far as typing is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Editor {
    /// A `<textarea>` or `<input>`, whatever framework owns its value.
    Field,
    /// ProseMirror, and TipTap which is built on it.
    Prosemirror,
    Lexical,
    Slate,
    Quill,
    DraftJs,
    Codemirror,
    /// A contenteditable no library marks, where the config says so.
    Contenteditable,
    /// A contenteditable no library marks, where the config names no rich editor.
    Unknown,
}

impl Editor {
    /// The ways to type into this kind of editor, best first. Ways that change only the DOM
    /// are left out for an editor that keeps a model of its own and does not read the DOM
    /// back: the text would read back from the page while the site sends the old one.
    pub fn ways(self) -> &'static [TypingWay] {
        use TypingWay::*;
        match self {
            Editor::Field => &[Value, Insert],
            // Lexical's `insertText` in Chromium drops line breaks and lines that are only
            // `{` or `}`, so it is pasted into.
            Editor::Prosemirror => &[PasteParagraphs, Insert, Dom],
            Editor::Lexical => &[Paste, Insert, Dom],
            Editor::Slate => &[BeforeInputPaste, Paste, BeforeInputText],
            Editor::Quill => &[Insert, Paste, Dom],
            // Draft.js reads inserts through React's `onBeforeInput`, which no synthetic
            // event reaches; its paste handler splits the text into blocks. In Firefox a
            // paste from the content script leaves it empty, while inserts a line at a
            // time are read back into its model.
            Editor::DraftJs => &[Paste, InsertLines],
            // CodeMirror reads DOM changes back into its state, so an insert works too.
            Editor::Codemirror => &[Paste, Insert],
            Editor::Contenteditable => &[InsertLines, Paste, Dom],
            // Nothing known: the ways an editor with a model of its own takes first, those
            // that change the DOM last.
            Editor::Unknown => &[BeforeInputPaste, Paste, Insert, Dom],
        }
    }
}

/// The marks that tell a kind of editor: a CSS selector the input element matches itself or
/// through an ancestor (the libraries mark the root that is contenteditable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Marker {
    pub kind: Editor,
    pub selector: &'static str,
    pub ways: &'static [TypingWay],
}

/// Checked in order, the first that matches wins: the fields first, then the libraries.
const MARKERS: &[(Editor, &str)] = &[
    (Editor::Field, "textarea, input"),
    (Editor::Lexical, "[data-lexical-editor]"),
    (Editor::Slate, "[data-slate-editor]"),
    (Editor::Prosemirror, ".ProseMirror, .tiptap"),
    (Editor::Quill, ".ql-editor"),
    (
        Editor::DraftJs,
        ".public-DraftEditor-content, .DraftEditor-root",
    ),
    (Editor::Codemirror, ".cm-content, .cm-editor"),
];

/// The whole decision as the content script gets it with a site's config (`page-setup`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Typing {
    pub markers: Vec<Marker>,
    /// The kind of an element no marker matches, from the site's config.
    pub unmarked: Editor,
    pub unmarked_ways: &'static [TypingWay],
    /// How the typed message is sent.
    pub submit: Submit,
    /// A synthetic paste of a result's files that the page neither cancels nor answers by
    /// changing its DOM within this long (its attachment chip) is followed by a drop; a page
    /// need not cancel a paste it took, since a synthetic one has no default action.
    pub files_wait_ms: u32,
}

/// How a typed message is sent: the send control is clicked once it is enabled (sites enable
/// it once their model holds the text), looked at every `poll_ms` for up to `wait_ms`; with
/// none usable by then, Enter is pressed in the input when `enter_fallback`. The message
/// has left once the input no longer holds it, within `wait_ms` again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Submit {
    pub wait_ms: u32,
    pub poll_ms: u32,
    pub enter_fallback: bool,
}

/// The same for every site: no site is known to need another.
const SUBMIT: Submit = Submit {
    wait_ms: 5000,
    poll_ms: 100,
    enter_fallback: true,
};

impl Typing {
    /// The table for a site whose config says its input is `editor`. The element found may
    /// be of another kind than the config says (a site's editor changes before its config
    /// does), so the marks decide; the config's kind counts only for an element none matches.
    pub fn for_site(editor: EditorKind) -> Typing {
        let unmarked = match editor {
            EditorKind::Textarea => Editor::Unknown,
            EditorKind::Prosemirror => Editor::Prosemirror,
            EditorKind::Lexical => Editor::Lexical,
            EditorKind::Quill => Editor::Quill,
            EditorKind::Contenteditable => Editor::Contenteditable,
        };
        Typing {
            markers: MARKERS
                .iter()
                .map(|&(kind, selector)| Marker {
                    kind,
                    selector,
                    ways: kind.ways(),
                })
                .collect(),
            unmarked,
            unmarked_ways: unmarked.ways(),
            submit: SUBMIT,
            files_wait_ms: 300,
        }
    }

    /// The kind of an element, given which markers it matches (`matches(selector)`): what
    /// the content script does with this table, here for the tests.
    pub fn kind_of(&self, matches: impl Fn(&str) -> bool) -> Editor {
        self.markers
            .iter()
            .find(|m| matches(m.selector))
            .map_or(self.unmarked, |m| m.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TypingWay::*;

    /// A tiny stand-in for `Element.closest`: the classes and attributes on the element
    /// and its ancestors, against a selector list of `.class`, `[attr]` and tag names.
    fn has<'a>(marks: &'a [&'a str]) -> impl Fn(&str) -> bool + 'a {
        move |selector: &str| {
            selector
                .split(',')
                .map(str::trim)
                .any(|s| marks.contains(&s))
        }
    }

    #[test]
    fn the_element_decides_the_kind_not_the_config() {
        for editor in [
            EditorKind::Textarea,
            EditorKind::Contenteditable,
            EditorKind::Prosemirror,
        ] {
            let t = Typing::for_site(editor);
            assert_eq!(t.kind_of(has(&["[data-slate-editor]"])), Editor::Slate);
            assert_eq!(t.kind_of(has(&[".tiptap"])), Editor::Prosemirror);
            assert_eq!(t.kind_of(has(&[".ProseMirror"])), Editor::Prosemirror);
            assert_eq!(t.kind_of(has(&["[data-lexical-editor]"])), Editor::Lexical);
            assert_eq!(t.kind_of(has(&[".ql-editor"])), Editor::Quill);
            assert_eq!(
                t.kind_of(has(&[".public-DraftEditor-content"])),
                Editor::DraftJs
            );
            assert_eq!(t.kind_of(has(&[".cm-content"])), Editor::Codemirror);
            assert_eq!(t.kind_of(has(&["textarea"])), Editor::Field);
            assert_eq!(t.kind_of(has(&["input"])), Editor::Field);
        }
    }

    #[test]
    fn an_unmarked_element_is_what_the_config_says_or_unknown() {
        let none = has(&[]);
        assert_eq!(
            Typing::for_site(EditorKind::Contenteditable).kind_of(&none),
            Editor::Contenteditable
        );
        assert_eq!(
            Typing::for_site(EditorKind::Quill).kind_of(&none),
            Editor::Quill
        );
        let t = Typing::for_site(EditorKind::Textarea);
        assert_eq!(t.kind_of(&none), Editor::Unknown);
        assert_eq!(t.unmarked_ways, &[BeforeInputPaste, Paste, Insert, Dom]);
    }

    #[test]
    fn editors_with_their_own_model_never_get_a_dom_only_way_first_or_at_all() {
        // Slate keeps its own model and never reads the DOM back: a DOM-only way would read
        // back from the page while the site sends the old text.
        let slate = Editor::Slate.ways();
        assert!(
            !slate
                .iter()
                .any(|w| matches!(w, Insert | InsertLines | Dom))
        );
        assert_eq!(slate[0], BeforeInputPaste);
        // Draft.js: a paste first, never a DOM edit.
        assert_eq!(Editor::DraftJs.ways()[0], Paste);
        assert!(!Editor::DraftJs.ways().contains(&Dom));
        // Every kind has a way, and ends on the way most likely to land.
        for (kind, _) in MARKERS {
            assert!(!kind.ways().is_empty());
        }
    }

    #[test]
    fn a_table_travels_as_data() {
        let t = serde_json::to_value(Typing::for_site(EditorKind::Textarea)).unwrap();
        let slate = t["markers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["kind"] == "slate")
            .unwrap();
        assert_eq!(slate["selector"], "[data-slate-editor]");
        assert_eq!(
            slate["ways"],
            serde_json::json!(["before-input-paste", "paste", "before-input-text"])
        );
        assert_eq!(t["markers"][0]["kind"], "field");
        assert_eq!(t["unmarked"], "unknown");
        assert_eq!(t["unmarkedWays"][0], "before-input-paste");
    }

    #[test]
    fn the_content_script_gets_how_to_send_and_how_long_to_wait_for_files() {
        let table = serde_json::to_value(Typing::for_site(EditorKind::Textarea)).unwrap();
        assert_eq!(
            table["submit"],
            serde_json::json!({ "waitMs": 5000, "pollMs": 100, "enterFallback": true })
        );
        assert_eq!(table["filesWaitMs"], 300);
    }
}
