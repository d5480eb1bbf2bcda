//! Secrets in a successful tool result: a tool can echo what it was given or read (an `echo` of
//! the bridge's token, a file holding a private key), and its result goes to a chat page. The
//! values known to be secret (the bridge's token, the server's configured secrets) and the
//! shapes that are credentials on their own (private keys, provider keys, JWTs, bearer values,
//! credentials in URLs) are masked in its text and structured content. Key names alone
//! (`password: …`) are not enough here: a result may rightly hold a value the user asked for.
//! The user may let one tool's results through unmasked: that turns off the shapes only; the
//! values known to be secret are masked whatever a request says, in every part of the result
//! (embedded resources, resource links, annotations, `_meta` too).

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::Value;

use crate::redact;

/// What is masked in one successful result.
#[derive(Debug, Clone)]
pub(crate) struct Masking {
    /// The values known to be secret (the bridge's token, the server's configured secrets):
    /// always masked.
    pub known: Arc<[String]>,
    /// The credential shapes too; off only for a tool the user lets through unmasked.
    pub shapes: bool,
}

/// Mask `result` in place; returns how many secrets were masked.
pub(crate) fn mask_result(result: &mut CallToolResult, masking: &Masking) -> usize {
    let known: Vec<&str> = masking.known.iter().map(String::as_str).collect();
    let shapes = masking.shapes;
    let mut count = 0;
    for block in &mut result.content {
        count += match block {
            // A text may be large: masked in place, and its other fields apart.
            ContentBlock::Text(text) => {
                mask_text(&mut text.text, &known, shapes)
                    + known_in(&mut text.meta, &known)
                    + known_in(&mut text.annotations, &known)
            }
            ContentBlock::Resource(embedded) => {
                let text = match &mut embedded.resource {
                    ResourceContents::TextResourceContents { text, .. } => {
                        mask_text(text, &known, shapes)
                    }
                    _ => 0,
                };
                text + known_in(embedded, &known)
            }
            other => known_in(other, &known),
        };
    }
    if let Some(value) = result.structured_content.as_mut() {
        count += mask_value(value, &known, shapes);
    }
    count + known_in(&mut result.meta, &known)
}

/// [`redact::mask_known_in`] on one part of a result; a part that no longer holds together
/// once masked is left out (`Option` parts become `None`, a content block becomes a note).
fn known_in<T: serde::Serialize + serde::de::DeserializeOwned + Broken>(
    part: &mut T,
    known: &[&str],
) -> usize {
    match redact::mask_known_in(part, known) {
        Ok(count) => count,
        Err(_) => {
            *part = T::broken();
            1
        }
    }
}

/// What a part of a result becomes when masking a known secret in it breaks it.
trait Broken {
    fn broken() -> Self;
}

impl<T> Broken for Option<T> {
    fn broken() -> Self {
        None
    }
}

impl Broken for ContentBlock {
    fn broken() -> Self {
        ContentBlock::text(BROKEN_BLOCK)
    }
}

impl Broken for rmcp::model::EmbeddedResource {
    fn broken() -> Self {
        rmcp::model::EmbeddedResource::new(ResourceContents::text(BROKEN_BLOCK, "about:blank"))
    }
}

/// The text in place of a content block that held a known secret where masking it broke it.
const BROKEN_BLOCK: &str =
    "[a content block that held a value the bridge keeps secret was left out]";

/// Mask the text contents of a resource that was read, as a tool's result is; returns how many
/// secrets were masked.
pub(crate) fn mask_resource(contents: &mut [ResourceContents], known: &[String]) -> usize {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    contents
        .iter_mut()
        .map(|contents| match contents {
            ResourceContents::TextResourceContents { text, .. } => mask_text(text, &known, true),
            _ => 0,
        })
        .sum()
}

fn mask_text(text: &mut String, known: &[&str], shapes: bool) -> usize {
    let masked = if shapes {
        redact::mask_result(text, known)
    } else {
        redact::mask_known(text, known)
    };
    let count = masked.count;
    if let std::borrow::Cow::Owned(new) = masked.text {
        *text = new;
    }
    count
}

fn mask_value(value: &mut Value, known: &[&str], shapes: bool) -> usize {
    match value {
        Value::String(text) => mask_text(text, known, shapes),
        Value::Array(items) => items
            .iter_mut()
            .map(|item| mask_value(item, known, shapes))
            .sum(),
        Value::Object(map) => map
            .values_mut()
            .map(|item| mask_value(item, known, shapes))
            .sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_and_structured_content_are_masked_and_counted() {
        let token = "f".repeat(8) + &"0123456789abcdef".repeat(3) + "01234567";
        let mut result = CallToolResult::success(vec![
            ContentBlock::text(format!("echo: {token}")),
            ContentBlock::text("key AKIAIOSFODNN7EXAMPLE, user password: kept"),
        ]);
        result.structured_content = Some(
            json!({"jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl", "n": 1}),
        );
        let masking = Masking {
            known: vec![token.clone()].into(),
            shapes: true,
        };
        assert_eq!(mask_result(&mut result, &masking), 3);
        let text = serde_json::to_string(&result).unwrap();
        assert!(
            !text.contains(&token) && !text.contains("AKIA") && !text.contains("eyJ"),
            "{text}"
        );
        assert!(
            text.contains("echo: ***") && text.contains("password: kept"),
            "{text}"
        );
        let mut clean = CallToolResult::success(vec![ContentBlock::text("nothing secret")]);
        assert_eq!(mask_result(&mut clean, &masking), 0);
        // Let through unmasked: the shapes pass, the known value does not.
        let mut through = CallToolResult::success(vec![ContentBlock::text(format!(
            "{token} AKIAIOSFODNN7EXAMPLE"
        ))]);
        let unmasked = Masking {
            shapes: false,
            ..masking
        };
        assert_eq!(mask_result(&mut through, &unmasked), 1);
        let text = serde_json::to_string(&through).unwrap();
        assert!(text.contains("*** AKIAIOSFODNN7EXAMPLE"), "{text}");
    }

    #[test]
    fn known_values_are_masked_in_every_part_of_a_result_even_unmasked() {
        let known = "known-secret-value-42";
        let leak = |what: &str| format!("{what} {known}");
        let mut result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": leak("text"), "_meta": {"m": leak("text-meta")}},
                {"type": "resource", "resource": {"uri": leak("file:///embedded"), "text": leak("embedded")}},
                {"type": "resource_link", "uri": leak("x://link"), "name": leak("link"), "description": leak("about")},
                {"type": "image", "data": known, "mimeType": "image/png"},
            ],
            "_meta": {leak("key"): leak("meta")},
        }))
        .unwrap();
        let masking = Masking {
            known: vec![known.to_owned()].into(),
            shapes: false,
        };
        assert_eq!(mask_result(&mut result, &masking), 10);
        let text = serde_json::to_string(&result).unwrap();
        assert!(!text.contains(known), "{text}");
        assert!(
            text.contains("link ***") && text.contains("\"key ***\":\"meta ***\""),
            "{text}"
        );
    }
}
