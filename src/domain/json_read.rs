//! How the core reads JSON into its types, and how a refusal names its field.
//!
//! Two ways, chosen for wasm size: [`read`]/[`from_value`] go through a
//! `Value`, the default; [`from_str`] reads the text directly only where a refusal must name
//! the field (`selectors.input`, `hosts[0]`), which it finds from the error's line and
//! column. The core used serde_path_to_error for that, which wraps every deserializer a
//! second time (about 28 KB of wasm before wasm-opt); reading the position back needs one
//! small scanner instead.

/// Parses `text` as `T`; on failure returns the path of the field the error is about
/// (empty for the top level) and serde_json's message without its position.
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, (String, String)> {
    serde_json::from_str(text)
        .map_err(|e| (path_at(text, e.line(), e.column()), without_position(&e)))
}

/// Reads an already parsed value as `T`. Together with [`read`], this is how the core reads
/// JSON whenever no field path is needed: serde_json's `Value` deserializer, instantiated for
/// each type, is smaller in wasm than its text reader (by about 4.3 KB gzip for the
/// messages, stored state and the page's answers), and a message
/// that arrived as a value is not printed and parsed again.
pub fn from_value<T: serde::de::DeserializeOwned>(
    value: &serde_json::Value,
) -> Result<T, serde_json::Error> {
    T::deserialize(value)
}

/// Parses `text` into a `Value` (the one text reader every type shares), then reads it as `T`.
pub fn read<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    from_value(&serde_json::from_str::<serde_json::Value>(text)?)
}

/// An object's members ordered by key as JavaScript sorts strings (by UTF-16 code units),
/// whatever order the map keeps: serde_json keeps insertion order when another crate of the
/// build turns on its `preserve_order` feature. An insertion sort: objects here have a
/// handful of keys, and std's sort routines add about 7 KB to the worker's wasm.
pub fn sorted_members(
    map: &serde_json::Map<String, serde_json::Value>,
) -> Vec<(&String, &serde_json::Value)> {
    let mut members: Vec<(&String, &serde_json::Value)> = Vec::with_capacity(map.len());
    for (key, value) in map {
        let at = members
            .iter()
            .position(|(k, _)| key.encode_utf16().lt(k.encode_utf16()))
            .unwrap_or(members.len());
        members.insert(at, (key, value));
    }
    members
}

/// serde_json's message without the " at line L column C" it appends (for a text the user
/// never saw, or where the field path says it better).
fn without_position(e: &serde_json::Error) -> String {
    let message = e.to_string();
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message,
    }
}

/// One level of nesting on the way to the error.
enum Frame {
    /// Inside an object: the key of the member being read, once its key has been read.
    Object(Option<String>),
    /// Inside an array: the index of the element being read.
    Array(usize),
}

/// The path of the value at `line`/`column` (1-based line, byte column as serde_json counts
/// them). serde_json reports an error just after the value, key or token it is about; a
/// missing field just after the `}` of the object that lacks it, so the path is that
/// object's.
pub fn path_at(text: &str, line: usize, column: usize) -> String {
    let bytes = text.as_bytes();
    let end = offset_of(bytes, line, column).min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'{' => stack.push(Frame::Object(None)),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object(key)) => *key = None,
                Some(Frame::Array(index)) => *index += 1,
                None => {}
            },
            b'"' => {
                let (text, next) = string_at(bytes, i + 1, end);
                // A string read where an object expects a key is the key.
                if let Some(Frame::Object(key @ None)) = stack.last_mut() {
                    *key = Some(text);
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object(None) => {}
            Frame::Array(index) => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
        }
    }
    path
}

/// Byte offset of a serde_json position (line 1-based, column = bytes since the line start).
fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(n) => start += n + 1,
            None => return bytes.len(),
        }
    }
    start + column
}

/// The text of the string starting after its opening quote at `from` (simple escapes
/// decoded; `\u` escapes kept as written), and where scanning continues.
fn string_at(bytes: &[u8], from: usize, end: usize) -> (String, usize) {
    let mut out = Vec::new();
    let mut i = from;
    while i < end {
        match bytes[i] {
            b'"' => return (String::from_utf8_lossy(&out).into_owned(), i + 1),
            b'\\' if i + 1 < end => {
                let c = bytes[i + 1];
                match c {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'r' => out.push(b'\r'),
                    b'b' | b'f' => {}
                    b'u' => out.extend_from_slice(b"\\u"),
                    other => out.push(other),
                }
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        name: String,
        #[serde(default)]
        inner: Option<Inner>,
        #[serde(default)]
        list: Vec<u32>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        flag: bool,
        #[serde(default)]
        levels: std::collections::BTreeMap<String, u8>,
    }

    fn err(text: &str) -> (String, String) {
        from_str::<Outer>(text).unwrap_err()
    }

    #[test]
    fn wrong_types_name_their_field() {
        assert_eq!(err(r#"{"name": 5}"#).0, "name");
        assert_eq!(
            err(r#"{"name": "a", "inner": {"flag": "yes"}}"#).0,
            "inner.flag"
        );
        assert_eq!(err(r#"{"name": "a", "list": [1, 2, "x"]}"#).0, "list[2]");
        assert_eq!(
            err(r#"{"name":"a","inner":{"flag":true,"levels":{"a:b":300}}}"#).0,
            "inner.levels.a:b"
        );
        let (path, message) = err("{\n  \"name\": \"a\",\n  \"inner\": {\"flag\": 1}\n}");
        assert_eq!(path, "inner.flag");
        assert!(
            message.starts_with("invalid type: integer `1`"),
            "{message}"
        );
        assert!(!message.contains("line"), "{message}");
    }

    #[test]
    fn unknown_fields_are_named_by_themselves() {
        assert_eq!(err(r#"{"name": "a", "colour": 1}"#).0, "colour");
        assert_eq!(
            err(r#"{"name": "a", "inner": {"flag": true, "x": 1}}"#).0,
            "inner.x"
        );
    }

    #[test]
    fn a_missing_field_names_the_object_that_lacks_it() {
        let (path, message) = err(r#"{"name": "a", "inner": {"levels": {}}}"#);
        assert_eq!(path, "inner");
        assert!(message.contains("missing field `flag`"), "{message}");
        assert_eq!(err(r#"{"list": [1]}"#).0, "");
        assert_eq!(err(r#"{}"#).0, "");
    }

    #[test]
    fn members_are_sorted_by_utf16_code_units() {
        // U+FF21 sorts after U+1F600 in UTF-8 but before it in UTF-16 (a surrogate pair).
        let map = serde_json::json!({"b": 1, "\u{1F600}": 2, "a": 3, "\u{FF21}": 4, "B": 5});
        let keys: Vec<&str> = sorted_members(map.as_object().unwrap())
            .into_iter()
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(keys, ["B", "a", "b", "\u{1F600}", "\u{FF21}"]);
    }

    #[test]
    fn syntax_errors_point_where_parsing_stopped() {
        assert_eq!(err("{not json").0, "");
        assert_eq!(err(r#"{"name": "a", "list": [1,"#).0, "list[1]");
        assert_eq!(err(r#"[1]"#).0, "[0]");
    }

    #[test]
    fn escaped_keys_and_commas_inside_strings_do_not_confuse_it() {
        assert_eq!(
            err(r#"{"name": "a, \"b\" [c]", "inner": {"flag": true, "levels": {"q\"k": "x"}}}"#).0,
            "inner.levels.q\"k"
        );
    }
}
