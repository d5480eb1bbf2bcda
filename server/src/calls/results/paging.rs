//! A text cut into pages: an index from characters to bytes, and where a page may end (a
//! line break, else between two JSON elements, else a space) without splitting a character.

use super::CHECKPOINT;

/// JSON string state at one point of a text: inside a string, and just after a backslash.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct JsonState {
    in_string: bool,
    escaped: bool,
}

impl JsonState {
    /// The state after `bytes`; `comma` is told the index of every `,` outside strings.
    pub(super) fn feed(mut self, bytes: &[u8], mut comma: impl FnMut(usize)) -> Self {
        let mut at = 0;
        while at < bytes.len() {
            if self.escaped {
                self.escaped = false;
                at += 1;
                continue;
            }
            if self.in_string {
                match memchr::memchr2(b'"', b'\\', &bytes[at..]) {
                    Some(found) => {
                        at += found;
                        if bytes[at] == b'\\' {
                            self.escaped = true;
                        } else {
                            self.in_string = false;
                        }
                        at += 1;
                    }
                    None => return self,
                }
            } else {
                match memchr::memchr2(b'"', b',', &bytes[at..]) {
                    Some(found) => {
                        at += found;
                        if bytes[at] == b'"' {
                            self.in_string = true;
                        } else {
                            comma(at);
                        }
                        at += 1;
                    }
                    None => return self,
                }
            }
        }
        self
    }
}

/// A point of a document's index: a byte offset on a character boundary, the characters
/// before it, and the JSON state there.
#[derive(Debug, Clone, Copy)]
pub(super) struct Checkpoint {
    byte: usize,
    char: usize,
    state: JsonState,
}

/// A text to page, with an index from characters to bytes (and JSON state) every 64 KiB.
#[derive(Debug)]
pub(crate) struct Document {
    text: String,
    json: bool,
    pub(super) is_error: bool,
    total_chars: usize,
    checkpoints: Vec<Checkpoint>,
}

/// The characters in `bytes` (UTF-8): the bytes that are not continuation bytes.
pub(super) fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// Whether a text looks like JSON (an object or an array), so pages end between elements.
pub(super) fn looks_like_json(text: &str) -> bool {
    let trimmed = text.trim();
    (trimmed.starts_with('{') && trimmed.ends_with('}'))
        || (trimmed.starts_with('[') && trimmed.ends_with(']'))
}

/// One page: where it starts and ends (bytes), and its characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageSpan {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) chars: usize,
}

impl Document {
    /// Index `text` (one pass over it).
    pub(crate) fn new(text: String, is_error: bool) -> Self {
        let json = looks_like_json(&text);
        Self::with_kind(text, json, is_error)
    }

    pub(super) fn with_kind(text: String, json: bool, is_error: bool) -> Self {
        let bytes = text.as_bytes();
        let mut checkpoints = vec![Checkpoint {
            byte: 0,
            char: 0,
            state: JsonState::default(),
        }];
        let (mut byte, mut chars, mut state) = (0, 0, JsonState::default());
        while byte < bytes.len() {
            let mut end = (byte + CHECKPOINT).min(bytes.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            chars += count_chars(&bytes[byte..end]);
            if json {
                state = state.feed(&bytes[byte..end], |_| {});
            }
            byte = end;
            checkpoints.push(Checkpoint {
                byte,
                char: chars,
                state,
            });
        }
        Document {
            text,
            json,
            is_error,
            total_chars: chars,
            checkpoints,
        }
    }

    pub(crate) fn total_chars(&self) -> usize {
        self.total_chars
    }

    /// The memory this document takes, roughly.
    pub(crate) fn size(&self) -> usize {
        self.text.capacity()
            + self.checkpoints.capacity() * std::mem::size_of::<Checkpoint>()
            + std::mem::size_of::<Self>()
    }

    /// The byte offset of character `offset` (at most the end).
    pub(super) fn byte_of(&self, offset: usize) -> usize {
        if offset >= self.total_chars {
            return self.text.len();
        }
        let index = self.checkpoints.partition_point(|c| c.char <= offset) - 1;
        let checkpoint = self.checkpoints[index];
        self.text[checkpoint.byte..]
            .char_indices()
            .nth(offset - checkpoint.char)
            .map_or(self.text.len(), |(at, _)| checkpoint.byte + at)
    }

    /// The JSON state at byte `byte`.
    pub(super) fn state_at(&self, byte: usize) -> JsonState {
        let index = self.checkpoints.partition_point(|c| c.byte <= byte) - 1;
        let checkpoint = self.checkpoints[index];
        checkpoint
            .state
            .feed(&self.text.as_bytes()[checkpoint.byte..byte], |_| {})
    }

    /// The page starting at character `offset` with at most `max_chars` characters (at least
    /// one); `None` when `offset` is at or past the end.
    pub(crate) fn page(&self, offset: usize, max_chars: usize) -> Option<PageSpan> {
        if offset >= self.total_chars {
            return None;
        }
        let max_chars = max_chars.max(1);
        let start = self.byte_of(offset);
        let limit = self.text[start..]
            .char_indices()
            .nth(max_chars)
            .map_or(self.text.len(), |(at, _)| start + at);
        if limit == self.text.len() {
            return Some(PageSpan {
                start,
                end: limit,
                chars: (self.total_chars - offset).min(max_chars),
            });
        }
        let window = &self.text.as_bytes()[start..limit];
        // A cut must keep at least half of the window, or pages get needlessly short.
        let half = window.len() / 2;
        let after = |index: usize| (index + 1 > half).then_some(index + 1);
        let mut cut = memchr::memrchr(b'\n', window).and_then(after);
        if cut.is_none() && self.json {
            let mut last_comma = None;
            self.state_at(start)
                .feed(window, |at| last_comma = Some(at));
            cut = last_comma.and_then(after);
        }
        if cut.is_none() && !self.json {
            cut = memchr::memrchr2(b' ', b'\t', window).and_then(after);
        }
        let end = start + cut.unwrap_or(window.len());
        let chars = if end == limit {
            max_chars
        } else {
            count_chars(&self.text.as_bytes()[start..end])
        };
        Some(PageSpan { start, end, chars })
    }

    /// The text of `page`.
    pub(crate) fn slice(&self, page: PageSpan) -> &str {
        &self.text[page.start..page.end]
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Every page of `document` with `max_chars`, following `next_offset`.
    fn pages(document: &Document, max_chars: usize) -> Vec<String> {
        let mut offset = 0;
        let mut out = Vec::new();
        while let Some(page) = document.page(offset, max_chars) {
            assert!(page.chars >= 1 && page.chars <= max_chars, "{page:?}");
            let text = document.slice(page);
            assert_eq!(text.chars().count(), page.chars);
            out.push(text.to_owned());
            offset += page.chars;
            assert!(out.len() < 100_000, "paging does not advance");
        }
        assert_eq!(offset, document.total_chars());
        out
    }

    #[test]
    fn pages_end_at_line_breaks_and_cover_everything() {
        let text: String = (0..500)
            .map(|n| format!("line {n} of the file\n"))
            .collect();
        let document = Document::new(text.clone(), false);
        let pages = pages(&document, 1000);
        assert_eq!(pages.concat(), text);
        for page in &pages {
            assert!(page.ends_with('\n'), "{page:?}");
            assert!(page.chars().count() > 500, "at least half a page");
        }
    }

    #[test]
    fn a_line_break_early_in_the_window_is_not_used() {
        let text = format!("short\n{}", "x".repeat(5000));
        let document = Document::new(text.clone(), false);
        let first = document.page(0, 1000).unwrap();
        assert_eq!(first.chars, 1000, "cut at the limit, not after `short`");
        assert_eq!(pages(&document, 1000).concat(), text);
    }

    #[test]
    fn words_are_kept_whole_when_there_is_no_line_break() {
        let text = "word ".repeat(1000);
        let document = Document::new(text.clone(), false);
        let pages = pages(&document, 333);
        assert!(pages.iter().all(|p| p.ends_with(' ')));
        assert_eq!(pages.concat(), text);
    }

    #[test]
    fn pages_never_split_a_utf8_character() {
        // 1-, 2-, 3- and 4-byte characters, no line breaks or spaces.
        let text = "aé€😀".repeat(3000);
        let document = Document::new(text.clone(), false);
        assert_eq!(document.total_chars(), 12_000);
        for max in [1, 2, 3, 7, 100, 4096] {
            let pages = pages(&document, max);
            assert_eq!(pages.concat(), text, "max {max}");
        }
        // Offsets are characters: offset 3 is the emoji.
        let page = document.page(3, 1).unwrap();
        assert_eq!(document.slice(page), "😀");
        // Across a checkpoint (64 KiB) too.
        let long = "é".repeat(100_000);
        let document = Document::new(long.clone(), false);
        let page = document.page(70_000, 10).unwrap();
        assert_eq!(document.slice(page), "é".repeat(10));
        assert_eq!(pages(&document, 30_001).concat(), long);
    }

    #[test]
    fn minified_json_is_cut_between_elements_not_inside_strings() {
        let items: Vec<Value> = (0..2000)
            .map(|n| json!({"id": n, "name": format!("item, number {n}"), "tags": ["a,b", "c"]}))
            .collect();
        let text = serde_json::to_string(&items).unwrap();
        let document = Document::new(text.clone(), false);
        let pages = pages(&document, 1000);
        assert_eq!(pages.concat(), text);
        for page in &pages[..pages.len() - 1] {
            assert!(page.ends_with(','), "{}", &page[page.len() - 20..]);
            // The comma ends an element: what follows starts one, outside any string.
            let before = &page[..page.len() - 1];
            assert!(
                before.ends_with('}')
                    || before.ends_with(']')
                    || before.ends_with('"')
                    || before.ends_with(char::is_numeric),
                "{before}"
            );
        }
        // Every cut is outside a string: the state at each page end is outside.
        let mut offset = 0;
        while let Some(page) = document.page(offset, 1000) {
            assert!(!document.state_at(page.end).in_string);
            offset += page.chars;
        }
    }

    #[test]
    fn pretty_json_is_cut_at_lines() {
        let value =
            json!({"rows": (0..500).map(|n| json!({"n": n, "text": "x,y"})).collect::<Vec<_>>()});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let document = Document::new(text.clone(), false);
        let pages = pages(&document, 2000);
        assert_eq!(pages.concat(), text);
        assert!(pages[..pages.len() - 1].iter().all(|p| p.ends_with('\n')));
    }

    #[test]
    fn escaped_quotes_do_not_confuse_the_json_state() {
        let items: Vec<Value> = (0..3000)
            .map(|n| json!(format!("say \"hi\", {n} \\")))
            .collect();
        let text = serde_json::to_string(&items).unwrap();
        let document = Document::new(text.clone(), false);
        let mut offset = 0;
        while let Some(page) = document.page(offset, 500) {
            assert!(!document.state_at(page.end).in_string);
            offset += page.chars;
        }
        assert_eq!(pages(&document, 500).concat(), text);
    }
}
