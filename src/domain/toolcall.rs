//! Finds the tool call an AI wrote at the end of its answer (docs/ARCHITECTURE.md, "A tool call").
//!
//! Chat sites render `<tool_code>{…}</tool_code>` in many ways: literally, HTML-escaped,
//! with the tags stripped by the markdown renderer (bare `tool_code` words stay around
//! the JSON), or as a fenced code block whose language label and "Copy code" button text
//! end up in the message text. [`find_last_call`] handles all of them, takes the last
//! call, tells a call still being streamed (`None`) from a complete but malformed one.

use crate::domain::hash::{BASIS, fnv1a};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A complete, well-formed tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub tool_name: String,
    /// Always a JSON object.
    pub arguments: Value,
    pub server_name: Option<String>,
}

/// A complete call block whose content is not a valid call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MalformedCall {
    /// What is wrong, e.g. `expected `,` or `}` at line 1 column 40`.
    pub error: String,
    /// The block's text as the AI wrote it (cut to 2000 characters).
    pub raw: String,
}

impl ToolCall {
    /// A stable identity of the call (server, tool, arguments with sorted keys), used to
    /// execute a call at most once. Same call ⇒ same string, on every platform and build.
    pub fn fingerprint(&self) -> String {
        let canon = format!(
            "{}\u{1}{}\u{1}{}",
            self.server_name.as_deref().unwrap_or(""),
            self.tool_name,
            canonical_json(&self.arguments)
        );
        let a = fnv1a(canon.as_bytes(), BASIS);
        let b = fnv1a(canon.as_bytes(), 0x6c62_272e_07bb_0142);
        format!("{}:{a:016x}{b:016x}", self.tool_name)
    }
}

/// JSON with object keys sorted (serde_json's map keeps them in order: the core is built
/// without its `preserve_order`).
fn canonical_json(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical_json(v)))
                .collect();
            format!("{{{}}}", items.join(","))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(canonical_json).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The last tool call in an assistant message.
///
/// - `None`: no call, or the last call is still incomplete (an opening tag without its
///   closing tag, or JSON whose braces are not closed yet — the site is still streaming).
///   An earlier complete call is *not* returned while a later one is incomplete: the
///   message is not finished.
/// - `Some(Ok(call))`: the last complete call.
/// - `Some(Err(m))`: the last complete block is not a valid call; report it to the AI.
pub fn find_last_call(text: &str) -> Option<Result<ToolCall, MalformedCall>> {
    let norm = normalize(text);
    let block = last_block(&norm)?;
    match block {
        Block::Incomplete => None,
        Block::Complete(content) => Some(parse_call(content)),
    }
}

enum Block<'a> {
    Complete(&'a str),
    Incomplete,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum MarkerKind {
    /// `<tool_code>`; content starts at `end`.
    Open,
    /// `</tool_code>`.
    Close,
    /// The word `tool_code` with the tags stripped, or a code block's language label.
    Bare,
}

#[derive(Debug, Clone, Copy)]
struct Marker {
    kind: MarkerKind,
    start: usize,
    end: usize,
}

const WORD: &str = "tool_code";

fn markers(s: &str) -> Vec<Marker> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = s[from..].find(WORD) {
        let p = from + p;
        from = p + WORD.len();
        let before = if p == 0 { 0 } else { b[p - 1] };
        let after = b.get(from).copied().unwrap_or(0);
        if is_ident(before) || is_ident(after) {
            continue;
        }
        // Spaces inside a tag are tolerated: `< tool_code >`, `</ tool_code>`.
        let mut l = p;
        while l > 0 && b[l - 1] == b' ' {
            l -= 1;
        }
        let mut r = from;
        while r < b.len() && b[r] == b' ' {
            r += 1;
        }
        let closes_tag = b.get(r) == Some(&b'>');
        if l >= 2 && &b[l - 2..l] == b"</" && closes_tag {
            out.push(Marker {
                kind: MarkerKind::Close,
                start: l - 2,
                end: r + 1,
            });
        } else if l >= 1 && b[l - 1] == b'<' && closes_tag {
            out.push(Marker {
                kind: MarkerKind::Open,
                start: l - 1,
                end: r + 1,
            });
        } else if l >= 1 && b[l - 1] == b'/' && closes_tag {
            // `<tool_code/>` style typo of a closing tag, or `/tool_code>`.
            let start = if l >= 2 && b[l - 2] == b'<' {
                l - 2
            } else {
                l - 1
            };
            out.push(Marker {
                kind: MarkerKind::Close,
                start,
                end: r + 1,
            });
        } else {
            out.push(Marker {
                kind: MarkerKind::Bare,
                start: p,
                end: from,
            });
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Walks the markers and returns the last call block.
fn last_block(s: &str) -> Option<Block<'_>> {
    let ms = markers(s);
    if ms.is_empty() {
        return unmarked_block(s);
    }
    let mut last: Option<Block<'_>> = None;
    let mut i = 0;
    while i < ms.len() {
        let m = ms[i];
        match m.kind {
            MarkerKind::Close => {
                i += 1;
            }
            MarkerKind::Open => {
                match ms[i + 1..].iter().position(|x| x.kind == MarkerKind::Close) {
                    Some(off) => {
                        let close = ms[i + 1 + off];
                        last = Some(Block::Complete(&s[m.end..close.start]));
                        i += off + 2;
                    }
                    None => {
                        // Still streaming; a JSON object may already be complete but the
                        // closing tag is what says the AI is done with this call.
                        return Some(Block::Incomplete);
                    }
                }
            }
            MarkerKind::Bare => {
                let Some(obj_start) = json_start_after(s, m.end) else {
                    i += 1;
                    continue;
                };
                match match_braces(s, obj_start) {
                    Some(end) => {
                        last = Some(Block::Complete(&s[obj_start..end]));
                        // Skip markers inside the object and a closing one right after.
                        let mut j = i + 1;
                        while j < ms.len() && ms[j].start < end {
                            j += 1;
                        }
                        if j < ms.len()
                            && ms[j].kind != MarkerKind::Open
                            && only_junk(&s[end..ms[j].start])
                        {
                            j += 1;
                        }
                        i = j;
                    }
                    None => return Some(Block::Incomplete),
                }
            }
        }
    }
    last
}

/// A renderer that drops unknown HTML tags *and* their names leaves only the JSON. Such a
/// call is accepted when it is the very end of the message (calls end the answer; an
/// example in the middle of an explanation is not run): an object that starts with a
/// `tool_name` key, followed by nothing but rendering junk.
fn unmarked_block(s: &str) -> Option<Block<'_>> {
    let key = s
        .rfind("\"tool_name\"")
        .or_else(|| s.rfind("“tool_name”"))?;
    let open = s[..key].trim_end().strip_suffix('{').map(str::len)?;
    match match_braces(s, open) {
        Some(end) if only_junk(&s[end..]) => Some(Block::Complete(&s[open..end])),
        Some(_) => None,
        // Braces not closed yet and nothing after: still streaming.
        None => Some(Block::Incomplete),
    }
}

/// After a bare `tool_code`, the position of the `{` that starts the call, if only
/// rendering junk (spaces, fences, a language label, "Copy code") lies in between.
fn json_start_after(s: &str, from: usize) -> Option<usize> {
    let rest = &s[from..];
    // Only a short gap can be rendering junk; never scan the whole message here.
    let brace = rest[..rest.floor_char_boundary(256)].find('{')?;
    if only_junk(&rest[..brace]) {
        Some(from + brace)
    } else {
        None
    }
}

/// Words a chat site puts around a code block, and fence/punctuation noise.
const JUNK_WORDS: &[&str] = &[
    "copy code",
    "copy",
    "copied!",
    "copied",
    "复制代码",
    "复制",
    "已复制",
    "代码",
    "json",
    "jsonc",
    "json5",
    "tool_code",
    "javascript",
    "js",
    "python",
    "text",
    "plaintext",
    "plain",
    "code",
    "xml",
    "html",
    "markdown",
    "md",
    "bash",
    "shell",
    "sh",
    "yaml",
    "运行",
    "run",
    "下载",
    "download",
    "编辑",
    "edit",
    "wrap",
    "收起",
    "展开",
];

fn only_junk(gap: &str) -> bool {
    if gap.len() > 200 {
        return false;
    }
    let mut rest = gap.trim_matches(|c: char| {
        c.is_whitespace() || "`:：~<>/\u{200b}\u{200c}\u{200d}\u{feff}\u{a0}".contains(c)
    });
    while !rest.is_empty() {
        let lower = rest.to_ascii_lowercase();
        let Some(w) = JUNK_WORDS.iter().find(|w| lower.starts_with(*w)) else {
            return false;
        };
        // Lower-casing keeps byte lengths for these ASCII/CJK words.
        rest = rest[w.len()..].trim_start_matches(|c: char| {
            c.is_whitespace() || "`:：~<>/\u{200b}\u{200c}\u{200d}\u{feff}\u{a0}".contains(c)
        });
    }
    true
}

/// From the `{` at `start`, the end (exclusive) of the balanced object, respecting
/// strings delimited by `"` or smart quotes. `None` when the braces never close.
fn match_braces(s: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    for (off, c) in s[start..].char_indices() {
        if let Some(open) = in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' || (open != '"' && (c == '”' || c == '“')) {
                in_str = None;
            }
            continue;
        }
        match c {
            '"' | '“' | '”' => in_str = Some(c),
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(start + off + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Decodes the HTML escapes a site may show, only when the call itself is escaped
/// (`&lt;tool_code&gt;`, `&quot;tool_name&quot;`): otherwise an `&amp;` the AI wrote
/// inside an argument is kept as written. Smart quotes and odd spaces are repaired only
/// when parsing fails.
fn normalize(text: &str) -> std::borrow::Cow<'_, str> {
    if !(text.contains("&lt;tool_code")
        || text.contains("&lt;/tool_code")
        || text.contains("&quot;tool_name"))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(decode_entities(text))
}

fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        const ENTITIES: &[(&str, char)] = &[
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&amp;", '&'),
            ("&quot;", '"'),
            ("&#34;", '"'),
            ("&#39;", '\''),
            ("&#x27;", '\''),
            ("&apos;", '\''),
            ("&nbsp;", ' '),
            ("&#60;", '<'),
            ("&#62;", '>'),
            ("&#x3C;", '<'),
            ("&#x3c;", '<'),
            ("&#x3E;", '>'),
            ("&#x3e;", '>'),
        ];
        match ENTITIES.iter().find(|(e, _)| rest.starts_with(e)) {
            Some((e, ch)) => {
                out.push(*ch);
                rest = &rest[e.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parses one block's content into a call.
fn parse_call(content: &str) -> Result<ToolCall, MalformedCall> {
    let malformed = |error: String| MalformedCall {
        error,
        raw: content.trim().chars().take(2000).collect(),
    };
    let Some(open) = content.find('{') else {
        return Err(malformed(
            "no JSON object between the tool_code tags".into(),
        ));
    };
    let json = match match_braces(content, open) {
        Some(end) => &content[open..end],
        None => content[open..].trim_end(),
    };
    let value: Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(first) => match serde_json::from_str(&repair(json)) {
            Ok(v) => v,
            Err(_) => return Err(malformed(format!("invalid JSON: {first}"))),
        },
    };
    let Value::Object(mut obj) = value else {
        return Err(malformed("the call is not a JSON object".into()));
    };
    let tool_name = match take(&mut obj, "tool_name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(Value::String(_)) => return Err(malformed("`tool_name` is empty".into())),
        Some(other) => {
            return Err(malformed(format!(
                "`tool_name` must be a string, got {}",
                json_kind(&other)
            )));
        }
        None => return Err(malformed("missing `tool_name`".into())),
    };
    let arguments = match take(&mut obj, "arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v,
        // Some models double-encode the arguments as a JSON string.
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                return Err(malformed(
                    "`arguments` must be a JSON object, got a string".into(),
                ));
            }
        },
        Some(other) => {
            return Err(malformed(format!(
                "`arguments` must be a JSON object, got {}",
                json_kind(&other)
            )));
        }
    };
    let server_name = match take(&mut obj, "server_name") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => None,
    };
    Ok(ToolCall {
        tool_name,
        arguments,
        server_name,
    })
}

/// Moves a field out of the call object. (`Map::remove` would bring BTreeMap's removal
/// code into the wasm for this alone.)
fn take(obj: &mut Map<String, Value>, key: &str) -> Option<Value> {
    obj.get_mut(key).map(Value::take)
}

/// Smart quotes used as JSON quotes, and trailing commas.
fn repair(json: &str) -> String {
    let swapped: String = json
        .chars()
        .map(|c| match c {
            '“' | '”' | '„' | '＂' => '"',
            c => c,
        })
        .collect();
    // Remove commas directly before `}` or `]` (outside strings).
    let mut out = String::with_capacity(swapped.len());
    let mut in_str = false;
    let mut escaped = false;
    let chars: Vec<char> = swapped.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            out.push(c);
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        if matches!(
            c,
            '\u{a0}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{feff}' | '\u{3000}'
        ) {
            out.push(' ');
            continue;
        }
        if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(text: &str) -> ToolCall {
        match find_last_call(text) {
            Some(Ok(c)) => c,
            other => panic!("expected a call in {text:?}, got {other:?}"),
        }
    }

    #[test]
    fn literal_tags() {
        let c = ok(
            "Let me check.\n<tool_code>\n{\"tool_name\": \"get_current_time\", \"arguments\": {\"timezone\": \"Asia/Shanghai\"}, \"server_name\": \"time\"}\n</tool_code>",
        );
        assert_eq!(c.tool_name, "get_current_time");
        assert_eq!(c.arguments, json!({"timezone": "Asia/Shanghai"}));
        assert_eq!(c.server_name.as_deref(), Some("time"));
    }

    #[test]
    fn html_escaped() {
        let c = ok(
            "&lt;tool_code&gt;{&quot;tool_name&quot;: &quot;echo&quot;, &quot;arguments&quot;: {&quot;text&quot;: &quot;a &amp; b&quot;}}&lt;/tool_code&gt;",
        );
        assert_eq!(c.arguments, json!({"text": "a & b"}));
    }

    #[test]
    fn stripped_tags_bare_words() {
        let c = ok(
            "I will call it.\ntool_code\n{\"tool_name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}}\ntool_code",
        );
        assert_eq!(c.tool_name, "add");
        // Stripped tags with nothing left at all after the JSON.
        let c = ok("tool_code {\"tool_name\": \"add\", \"arguments\": {}}");
        assert_eq!(c.arguments, json!({}));
    }

    #[test]
    fn fenced_blocks() {
        let c = ok(
            "<tool_code>\njson\nCopy code\n{\"tool_name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}\n</tool_code>",
        );
        assert_eq!(c.tool_name, "echo");
        let c =
            ok("tool_code\n复制\n{\"tool_name\": \"echo\", \"arguments\": {\"text\": \"}{\"}}\n");
        assert_eq!(c.arguments, json!({"text": "}{"}));
        let c = ok("```tool_code\n{\"tool_name\": \"echo\", \"arguments\": {}}\n```");
        assert_eq!(c.tool_name, "echo");
        let c = ok(
            "<tool_code>\n```json\n{\"tool_name\": \"echo\", \"arguments\": {}}\n```\n</tool_code>",
        );
        assert_eq!(c.tool_name, "echo");
    }

    #[test]
    fn smart_quotes_and_trailing_comma() {
        let c = ok("<tool_code>{“tool_name”: “echo”, “arguments”: {“text”: “hi”},}</tool_code>");
        assert_eq!(c.arguments, json!({"text": "hi"}));
    }

    #[test]
    fn last_call_wins() {
        let t = "<tool_code>{\"tool_name\": \"a\", \"arguments\": {}}</tool_code> then tool_code {\"tool_name\": \"b\", \"arguments\": {}} tool_code";
        assert_eq!(ok(t).tool_name, "b");
    }

    #[test]
    fn streaming_is_none() {
        assert_eq!(
            find_last_call("<tool_code>\n{\"tool_name\": \"a\", \"argu"),
            None
        );
        assert_eq!(
            find_last_call("<tool_code>\n{\"tool_name\": \"a\", \"arguments\": {}}"),
            None
        );
        assert_eq!(
            find_last_call("tool_code\n{\"tool_name\": \"a\", \"arguments\": {"),
            None
        );
        let t = "<tool_code>{\"tool_name\": \"a\", \"arguments\": {}}</tool_code> and <tool_code>{";
        assert_eq!(find_last_call(t), None);
        assert_eq!(find_last_call("no call here, just tool_code talk"), None);
    }

    #[test]
    fn tags_and_names_stripped() {
        let c =
            ok("Checking the time.\n{\"tool_name\": \"get_time\", \"arguments\": {}}\nCopy code");
        assert_eq!(c.tool_name, "get_time");
        // An example in the middle of an explanation is not a call.
        let t = "Write {\"tool_name\": \"x\", \"arguments\": {}} to call a tool. Anything else?";
        assert_eq!(find_last_call(t), None);
        assert_eq!(find_last_call("{\"tool_name\": \"get_time\", \"argu"), None);
    }

    #[test]
    fn malformed() {
        let m = find_last_call(
            "<tool_code>{\"tool_name\": \"a\", \"arguments\": {\"x\": }}</tool_code>",
        )
        .unwrap()
        .unwrap_err();
        assert!(m.error.starts_with("invalid JSON"), "{}", m.error);
        let m = find_last_call("<tool_code>{\"arguments\": {}}</tool_code>")
            .unwrap()
            .unwrap_err();
        assert_eq!(m.error, "missing `tool_name`");
        let m = find_last_call("<tool_code>{\"tool_name\": \"a\", \"arguments\": [1]}</tool_code>")
            .unwrap()
            .unwrap_err();
        assert!(m.error.contains("an array"));
        let m = find_last_call("<tool_code>get_time()</tool_code>")
            .unwrap()
            .unwrap_err();
        assert!(m.error.contains("no JSON object"));
    }

    #[test]
    fn double_encoded_arguments_and_missing() {
        let c =
            ok("<tool_code>{\"tool_name\": \"a\", \"arguments\": \"{\\\"x\\\": 1}\"}</tool_code>");
        assert_eq!(c.arguments, json!({"x": 1}));
        let c = ok("<tool_code>{\"tool_name\": \"a\"}</tool_code>");
        assert_eq!(c.arguments, json!({}));
    }

    #[test]
    fn fingerprint_is_stable_and_order_independent() {
        let a = ok(
            "<tool_code>{\"tool_name\": \"a\", \"arguments\": {\"x\": 1, \"y\": [2, {\"b\":1,\"a\":2}]}}</tool_code>",
        );
        let b = ToolCall {
            tool_name: "a".into(),
            arguments: json!({"y": [2, {"a": 2, "b": 1}], "x": 1}),
            server_name: None,
        };
        assert_eq!(a.fingerprint(), b.fingerprint());
        let mut c = b.clone();
        c.server_name = Some("s".into());
        assert_ne!(b.fingerprint(), c.fingerprint());
        assert!(b.fingerprint().starts_with("a:"));
        assert_eq!(b.fingerprint().len(), 2 + 32);
    }
}
