//! The values known to be secret (a server's configured secrets, the bridge's token, the
//! sign-in tokens the bridge holds for a server) masked in a whole message of any type: every
//! string of it, object keys included, whatever field it sits in, so that a server cannot slip
//! one past the bridge in a field nobody thought of (a tool's name, a schema's property, a
//! resource link, `_meta`).
//!
//! A message is looked through once, serialized into a searching writer that keeps nothing;
//! only one that holds a known value is taken apart, masked and put back together.

use memchr::memmem::Finder;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::MASK;
use mcp_bridge_protocol::secrets::{self, MIN_KNOWN_LEN};

/// Whole strings that are words of the protocols themselves (a content block's `type`, a
/// message's `role`, a JSON Schema type, a log level): never masked, since masking one would
/// break the message, and a configured value that equals one hides nothing by being masked.
const PROTOCOL_WORDS: &[&str] = &[
    "text",
    "image",
    "audio",
    "resource",
    "resource_link",
    "user",
    "assistant",
    "object",
    "string",
    "number",
    "integer",
    "boolean",
    "array",
    "null",
    "form",
    "url",
    "accept",
    "decline",
    "cancel",
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
    "email",
    "uri",
    "date",
    "date-time",
    "ref/prompt",
    "ref/resource",
    "complete",
    "input_required",
];

/// Keys whose value is protocol, not content: a JSON-RPC envelope's and the MCP version.
const PROTOCOL_KEYS: &[&str] = &["jsonrpc", "method", "id", "protocolVersion"];

/// The values of `known` worth masking (long enough, not the mask itself).
fn usable<'a>(known: &[&'a str]) -> Vec<&'a str> {
    known
        .iter()
        .copied()
        .filter(|value| value.len() >= MIN_KNOWN_LEN && *value != MASK)
        .collect()
}

/// Whether `message`, serialized, holds any of `known` in one of its strings. JSON escapes only
/// `"`, `\` and control characters, one character at a time, so a string holding a value holds
/// the value's own escaped form, which is what is searched for.
fn holds_any<T: Serialize>(message: &T, known: &[&str]) -> bool {
    let needles: Vec<String> = known
        .iter()
        .filter_map(|value| serde_json::to_string(value).ok())
        .map(|quoted| quoted[1..quoted.len() - 1].to_owned())
        .collect();
    let mut seeker = Seeker {
        finders: needles.iter().map(|n| Finder::new(n.as_bytes())).collect(),
        longest: needles.iter().map(String::len).max().unwrap_or(0),
        tail: Vec::new(),
        found: false,
    };
    // serde_json writes a piece at a time (a quote, a colon, a word): gathered into larger
    // writes, each looked through once.
    let written = {
        let mut buffered = std::io::BufWriter::with_capacity(SEEK_BUFFER, &mut seeker);
        serde_json::to_writer(&mut buffered, message).is_ok()
            && std::io::Write::flush(&mut buffered).is_ok()
    };
    // A message that cannot be serialized is taken apart to be safe.
    !written || seeker.found
}

/// The bytes gathered before a search.
const SEEK_BUFFER: usize = 64 * 1024;

/// A writer that only looks for its needles, across the pieces it is written in.
struct Seeker<'a> {
    finders: Vec<Finder<'a>>,
    longest: usize,
    /// The last `longest - 1` bytes written, for a needle split between two writes.
    tail: Vec<u8>,
    found: bool,
}

impl std::io::Write for Seeker<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.found || self.longest == 0 {
            return Ok(buf.len());
        }
        let keep = self.longest - 1;
        let mut joint = std::mem::take(&mut self.tail);
        joint.extend_from_slice(&buf[..buf.len().min(keep)]);
        self.found = self
            .finders
            .iter()
            .any(|f| f.find(&joint).is_some() || f.find(buf).is_some());
        if buf.len() >= keep {
            joint.clear();
            joint.extend_from_slice(&buf[buf.len() - keep..]);
        } else {
            let from = joint.len().saturating_sub(keep);
            joint.drain(..from);
        }
        self.tail = joint;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Mask `known` in every string of `message`; how many were masked.
///
/// A message that no longer holds together once masked (a known value was the whole of a
/// field whose type wants one of a few fixed words, `"status": "failed"`) is masked again
/// leaving such whole words as they are; `Err` when even that does not hold together, and the
/// caller then must not pass it on.
pub(crate) fn mask_known_in<T: Serialize + DeserializeOwned>(
    message: &mut T,
    known: &[&str],
) -> Result<usize, serde_json::Error> {
    let known = usable(known);
    if known.is_empty() || !holds_any(message, &known) {
        return Ok(0);
    }
    let mut value = serde_json::to_value(&*message)?;
    let count = mask_value(&mut value, &known, true, Words::Listed);
    if count == 0 {
        return Ok(0);
    }
    if let Ok(masked) = serde_json::from_value(value) {
        *message = masked;
        return Ok(count);
    }
    let mut value = serde_json::to_value(&*message)?;
    let count = mask_value(&mut value, &known, true, Words::Any);
    *message = serde_json::from_value(value)?;
    Ok(count)
}

/// Which whole strings are left as they are.
#[derive(Clone, Copy)]
enum Words {
    /// [`PROTOCOL_WORDS`].
    Listed,
    /// Those, and any string that is one known value alone and reads as a word of a protocol
    /// (lower-case letters, digits, `_` and `-`, at most 32).
    Any,
}

/// Mask `known` in every string (and key) of `value`; how many were masked. `top`: the value
/// is a whole message, whose envelope keys are protocol.
fn mask_value(value: &mut Value, known: &[&str], top: bool, words: Words) -> usize {
    match value {
        Value::String(text) => mask_string(text, known, words),
        Value::Array(items) => items
            .iter_mut()
            .map(|item| mask_value(item, known, false, words))
            .sum(),
        Value::Object(map) => {
            let mut count = 0;
            let keys_hold = map
                .keys()
                .any(|key| known.iter().any(|secret| key.contains(secret)));
            if keys_hold {
                let old = std::mem::take(map);
                for (mut key, item) in old {
                    count += mask_string(&mut key, known, Words::Listed);
                    map.insert(key, item);
                }
            }
            for (key, item) in map.iter_mut() {
                let protocol = PROTOCOL_KEYS.contains(&key.as_str())
                    && (top || key == "protocolVersion")
                    && item.is_string();
                if !protocol {
                    count += mask_value(item, known, false, words);
                }
            }
            count
        }
        _ => 0,
    }
}

fn mask_string(text: &mut String, known: &[&str], words: Words) -> usize {
    if PROTOCOL_WORDS.contains(&text.as_str()) {
        return 0;
    }
    if matches!(words, Words::Any) && known.contains(&text.as_str()) && is_word(text) {
        return 0;
    }
    let masked = secrets::mask_known(text, known, MASK);
    let count = masked.count;
    if let std::borrow::Cow::Owned(new) = masked.text {
        *text = new;
    }
    count
}

/// Lower-case letters, digits, `_` and `-`, at most 32: how the fixed words of a protocol read.
fn is_word(text: &str) -> bool {
    text.len() <= 32
        && text
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_string_and_key_is_masked_but_protocol_words() {
        let mut message = json!({
            "jsonrpc": "2.0", "id": 7, "method": "notifications/progress",
            "params": {
                "name": "tool-s3cret-value",
                "s3cret-value": {"type": "string", "enum": ["a s3cret-value b"]},
                "content": {"type": "text", "text": "s3cret-value"},
                "n": 5,
            }
        });
        let count = mask_known_in(&mut message, &["s3cret-value", "text", "x"]).unwrap();
        assert_eq!(count, 4);
        assert_eq!(
            message,
            json!({
                "jsonrpc": "2.0", "id": 7, "method": "notifications/progress",
                "params": {
                    "name": "tool-***",
                    "***": {"type": "string", "enum": ["a *** b"]},
                    "content": {"type": "text", "text": "***"},
                    "n": 5,
                }
            })
        );
    }

    #[test]
    fn a_value_is_found_across_writes_and_behind_escapes() {
        // A long string is written in one piece, a string with escapes in several.
        let long = format!("{}abcd\"efgh{}", "x".repeat(100_000), "y".repeat(10));
        for text in [long.as_str(), "ab\ncd abcd\"efgh", "abcd\"efgh"] {
            assert!(holds_any(&json!({"k": text}), &["abcd\"efgh"]), "{text}");
        }
        assert!(!holds_any(
            &json!({"k": "abcd efgh", "n": 1}),
            &["abcd\"efgh"]
        ));
        for cut in 1..12 {
            let mut seeker = Seeker {
                finders: vec![Finder::new(b"secret-value")],
                longest: 12,
                tail: Vec::new(),
                found: false,
            };
            let text = b"some secret-value here";
            let at = 5 + cut;
            std::io::Write::write_all(&mut seeker, &text[..at]).unwrap();
            for byte in &text[at..] {
                std::io::Write::write_all(&mut seeker, std::slice::from_ref(byte)).unwrap();
            }
            assert!(seeker.found, "{cut}");
        }
    }

    #[test]
    fn a_known_value_that_is_a_fixed_word_is_left_only_where_masking_it_breaks_the_message() {
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        enum Status {
            #[serde(rename = "failed")]
            Failed,
        }
        #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
        struct Task {
            status: Status,
            note: String,
            name: String,
        }
        let mut task = Task {
            status: Status::Failed,
            note: "it failed".to_owned(),
            name: "failed".to_owned(),
        };
        assert_eq!(mask_known_in(&mut task, &["failed"]).unwrap(), 1);
        assert_eq!(task.note, "it ***");
        assert_eq!(task.name, "failed");
        // Where nothing breaks, the whole word is masked too.
        let mut free = json!({"status": "failed", "name": "failed"});
        assert_eq!(mask_known_in(&mut free, &["failed"]).unwrap(), 2);
        assert_eq!(free, json!({"status": "***", "name": "***"}));
    }

    #[test]
    fn nothing_known_nothing_touched() {
        let mut message = json!({"a": "b"});
        assert_eq!(mask_known_in(&mut message, &[]).unwrap(), 0);
        assert_eq!(mask_known_in(&mut message, &["zzzz"]).unwrap(), 0);
        assert_eq!(message, json!({"a": "b"}));
    }
}
