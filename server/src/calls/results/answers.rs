//! What `/execute` and `read_result` answer: a result as it is, or one page of it with where
//! the next one starts, masked before it is cut.

use std::sync::Arc;
use std::time::Instant;

use mcp_bridge_protocol::answers::{ResultPage, ToolAnswer, ToolResult};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use super::paging::{Document, count_chars};
use super::store::{Missing, ResultStore};
use super::{CHECKPOINT, MAX_PAGE_CHARS};
use crate::calls::masking;
use crate::error::BridgeError;

impl ResultStore {
    /// `/execute`'s answer for `result`: as it is, or its first page (the text is indexed and
    /// kept first, off the async threads, when it is over the threshold). With `masking`
    /// (`None`: masked already), secrets are masked first — before a large text is cut into
    /// pages, so no secret is split across two — and `"masked"` says how many were.
    pub(crate) async fn answer(
        self: &Arc<Self>,
        mut result: CallToolResult,
        masking: Option<masking::Masking>,
    ) -> Result<ToolAnswer, BridgeError> {
        if !self.is_large(&result) {
            let masked = masking.map_or(0, |m| masking::mask_result(&mut result, &m));
            return Ok(with_masked(plain(&result), masked));
        }
        let store = self.clone();
        let started = Instant::now();
        let work = move || {
            let masked = masking.map_or(0, |m| masking::mask_result(&mut result, &m));
            let mask_ms = started.elapsed().as_secs_f64() * 1e3;
            (with_masked(store.first_page(result), masked), mask_ms)
        };
        match tokio::task::spawn_blocking(work).await {
            Ok((answer, mask_ms)) => {
                tracing::info!(
                    total_chars = answer.page.as_ref().map_or(0, |page| page.total_chars),
                    masked = answer.masked.unwrap_or(0),
                    mask_ms,
                    page_ms = started.elapsed().as_secs_f64() * 1e3,
                    "large result kept, first page answered"
                );
                Ok(answer)
            }
            Err(err) => Err(BridgeError::Internal(format!(
                "the bridge could not page a large result: {err}"
            ))),
        }
    }

    /// Whether a result is over the threshold (by its bytes first, which is cheap).
    pub(super) fn is_large(&self, result: &CallToolResult) -> bool {
        let threshold = self.limits.threshold;
        let texts = || result.content.iter().filter_map(text_of);
        if texts().next().is_none() {
            return result
                .structured_content
                .as_ref()
                .is_some_and(|value| json_size(value) > threshold);
        }
        let bytes: usize = texts().map(str::len).sum();
        if bytes <= threshold {
            return false;
        }
        // Characters counted only until there are enough: a text of many megabytes is not
        // walked here, on an async thread (indexing it walks it once, off them).
        let mut chars = 0;
        for text in texts() {
            for chunk in text.as_bytes().chunks(CHECKPOINT) {
                chars += count_chars(chunk);
                if chars > threshold {
                    return true;
                }
            }
        }
        false
    }

    /// The answer for a result over the threshold: keep its text, answer its first page.
    pub(crate) fn first_page(&self, mut result: CallToolResult) -> ToolAnswer {
        let threshold = self.limits.threshold;
        let is_error = result.is_error.unwrap_or(false);
        let mut structured_note = None;
        let mut texts: Vec<String> = Vec::new();
        let mut content: Vec<Value> = Vec::new();
        let mut text_slot = None;
        for block in std::mem::take(&mut result.content) {
            match block {
                ContentBlock::Text(mut text) => {
                    texts.push(std::mem::take(&mut text.text));
                    if text_slot.is_none() {
                        text_slot = Some(content.len());
                        content.push(
                            serde_json::to_value(ContentBlock::Text(text)).unwrap_or_default(),
                        );
                    }
                }
                other => content.push(serde_json::to_value(other).unwrap_or_default()),
            }
        }
        let mut structured = result.structured_content.take();
        let document = if texts.is_empty() {
            let value = structured.take().unwrap_or(Value::Null);
            structured_note = Some("paged");
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            drop(value);
            Document::with_kind(text, true, is_error)
        } else {
            if structured
                .as_ref()
                .is_some_and(|v| json_size(v) > threshold)
            {
                structured = None;
                structured_note = Some("omitted");
            }
            Document::new(join(texts), is_error)
        };
        if text_slot.is_none() {
            text_slot = Some(0);
            content.insert(
                0,
                serde_json::to_value(ContentBlock::text(String::new())).unwrap_or_default(),
            );
        }
        let document = Arc::new(document);
        let id = self.insert_at(document.clone(), Instant::now());
        let mut answer = page_answer(&document, id.as_deref(), 0, self.limits.page_chars)
            .unwrap_or_else(|| plain(&CallToolResult::success(Vec::new())));
        let page_text = answer
            .result
            .content
            .first_mut()
            .map(|first| first["text"].take())
            .unwrap_or_default();
        if let Some(slot) = text_slot {
            content[slot]["text"] = page_text;
        }
        answer.result.content = content;
        answer.result.structured_content = structured;
        // A large result always has a first page.
        let Some(page) = answer.page.as_mut() else {
            return answer;
        };
        page.structured_content = structured_note;
        if id.is_none() {
            page.next_offset = None;
            page.note = Some(format!(
                "This result has {} characters, more than the bridge may keep ({} MiB, --result-store-size), \
                 so only this first page could be returned and the rest is lost. Ask for less at a time \
                 (a narrower query, a smaller file), or have the user raise --result-store-size.",
                document.total_chars(),
                self.limits.memory / (1024 * 1024)
            ));
        }
        answer
    }

    /// `read_result`: the page of a kept result at `offset`.
    pub(crate) fn read(&self, arguments: &Map<String, Value>) -> Result<ToolAnswer, BridgeError> {
        let request = ReadRequest::from_arguments(arguments)?;
        let document = self
            .get_at(&request.result_id, Instant::now())
            .map_err(|why| self.missing(&request.result_id, why))?;
        let max_chars = request.max_chars.unwrap_or(self.limits.page_chars);
        page_answer(&document, Some(&request.result_id), request.offset, max_chars).ok_or_else(
            || {
                let total = document.total_chars();
                BridgeError::OffsetOutOfRange {
                    result_id: request.result_id.clone(),
                    offset: request.offset as u64,
                    total_chars: total as u64,
                    message: format!(
                        "Offset {} is past the end of result `{}`, which has {total} characters (offsets 0 to {}). \
                         The page that ended at {total} was the last one: there is nothing more to read. \
                         To read a page again, use the offset it started at.",
                        request.offset,
                        request.result_id,
                        total.saturating_sub(1)
                    ),
                }
            },
        )
    }

    pub(super) fn missing(&self, result_id: &str, why: Missing) -> BridgeError {
        let message = match why {
            Missing::Unknown => format!(
                "There is no kept result `{result_id}`: the id is mistyped, or the bridge restarted since \
                 (kept results live in its memory only). Run the tool again to get the result anew."
            ),
            Missing::Expired => format!(
                "Result `{result_id}` has expired: the bridge keeps a large result for {} s after it was last read \
                 (--result-ttl). Run the tool again, and read its pages without a long pause.",
                self.limits.ttl.as_secs()
            ),
            Missing::Evicted => format!(
                "Result `{result_id}` was dropped to make room for newer large results: the bridge keeps at most \
                 {} MiB of them (--result-store-size), dropping the least recently read first. \
                 Run the tool again, and read its pages before running other tools with large results.",
                self.limits.memory / (1024 * 1024)
            ),
        };
        let (reason, limit) = match why {
            Missing::Unknown => (why, 0),
            Missing::Expired => (why, self.limits.ttl.as_secs()),
            Missing::Evicted => (why, (self.limits.memory / (1024 * 1024)) as u64),
        };
        BridgeError::ResultNotFound {
            result_id: result_id.to_owned(),
            gone: why != Missing::Unknown,
            reason,
            limit,
            message,
        }
    }
}

/// The arguments of `read_result`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadRequest {
    pub(crate) result_id: String,
    pub(crate) offset: usize,
    pub(crate) max_chars: Option<usize>,
}

impl ReadRequest {
    pub(crate) fn from_arguments(arguments: &Map<String, Value>) -> Result<Self, BridgeError> {
        let loc = |field: &'static str| ["body", "arguments", field];
        let mut errors = Vec::new();
        let result_id = match arguments.get("result_id") {
            Some(Value::String(id)) if !id.trim().is_empty() => Some(id.trim().to_owned()),
            Some(other) => {
                errors.push(crate::error::field_error(
                    "string_type",
                    loc("result_id"),
                    "Input should be the result_id of a paged result (a non-empty string)",
                    other.clone(),
                ));
                None
            }
            None => {
                errors.push(crate::error::field_error(
                    "missing",
                    loc("result_id"),
                    "Field required: the result_id from the `page` of the answer that returned the result",
                    Value::Object(arguments.clone()),
                ));
                None
            }
        };
        let mut whole = |field: &'static str, low: u64, high: u64| -> Option<u64> {
            let value = arguments.get(field)?;
            let number = match value {
                Value::Number(n) => n.as_u64().or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                        .map(|f| f as u64)
                }),
                Value::Null => return None,
                _ => None,
            };
            match number {
                Some(n) if (low..=high).contains(&n) => Some(n),
                _ => {
                    /// The bounds a number broke.
                    #[derive(serde::Serialize)]
                    struct Bounds {
                        ge: u64,
                        le: u64,
                    }
                    let item = crate::error::field_error(
                        "int_range",
                        loc(field),
                        &format!("Input should be a whole number from {low} to {high}"),
                        value.clone(),
                    );
                    errors
                        .push(item.with_ctx(crate::error::to_value(Bounds { ge: low, le: high })));
                    None
                }
            }
        };
        let offset = whole("offset", 0, u64::from(u32::MAX) * 16).unwrap_or(0) as usize;
        let max_chars = whole("max_chars", 1, MAX_PAGE_CHARS as u64).map(|n| n as usize);
        if !errors.is_empty() {
            return Err(BridgeError::InvalidRequest(errors));
        }
        Ok(ReadRequest {
            result_id: result_id.unwrap_or_default(),
            offset,
            max_chars,
        })
    }
}

/// The answer for one page: `{success, result: {content: [text], …}, page: {…}}`.
pub(super) fn page_answer(
    document: &Document,
    result_id: Option<&str>,
    offset: usize,
    max_chars: usize,
) -> Option<ToolAnswer> {
    let page = document.page(offset, max_chars)?;
    let next = offset + page.chars;
    let next_offset = (next < document.total_chars()).then_some(next);
    let page_of = ResultPage {
        result_id: result_id.map(str::to_owned),
        offset,
        returned_chars: page.chars,
        total_chars: document.total_chars(),
        next_offset,
        structured_content: None,
        note: None,
    };
    let text = ContentBlock::text(document.slice(page).to_owned());
    Some(ToolAnswer {
        success: true,
        result: ToolResult {
            content: vec![serde_json::to_value(text).unwrap_or_default()],
            structured_content: None,
            is_error: document.is_error,
        },
        page: Some(page_of),
        masked: None,
    })
}

/// `answer` with `"masked": count` when secrets were masked in it.
pub(super) fn with_masked(mut answer: ToolAnswer, count: usize) -> ToolAnswer {
    if count > 0 {
        answer.masked = Some(count);
    }
    answer
}

/// `/execute`'s answer for a result that is not paged.
pub(crate) fn plain(result: &CallToolResult) -> ToolAnswer {
    ToolAnswer {
        success: true,
        result: result_json(result),
        page: None,
        masked: None,
    }
}

pub(super) fn text_of(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::Text(text) => Some(&text.text),
        _ => None,
    }
}

/// The texts as one, a line break between two (unless the first ends with one).
/// The first text is extended in place (no copy of it) and each other one freed once it is
/// appended, so the texts are never all held twice.
pub(super) fn join(texts: Vec<String>) -> String {
    let capacity: usize = texts.iter().map(|t| t.len() + 1).sum();
    let mut texts = texts.into_iter();
    let Some(mut joined) = texts.next() else {
        return String::new();
    };
    if !texts.as_slice().is_empty() {
        joined.reserve_exact(capacity - joined.len());
    }
    for text in texts {
        if !joined.is_empty() && !joined.ends_with('\n') {
            joined.push('\n');
        }
        joined.push_str(&text);
    }
    joined
}

/// The length of `value` as compact JSON, without building the string.
pub(super) fn json_size(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// `result` of a successful `/execute`: the MCP `CallToolResult` in camelCase.
pub(crate) fn result_json(result: &CallToolResult) -> ToolResult {
    ToolResult {
        content: result
            .content
            .iter()
            .map(|block| serde_json::to_value(block).unwrap_or_default())
            .collect(),
        structured_content: result.structured_content.clone(),
        is_error: result.is_error.unwrap_or(false),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::calls::results::Limits;
    use serde_json::json;

    fn limits(threshold: usize, page_chars: usize, memory: usize, ttl: Duration) -> Limits {
        Limits {
            threshold,
            page_chars,
            memory,
            ttl,
        }
    }

    #[test]
    fn first_page_keeps_images_and_reads_on() {
        let store = ResultStore::new(limits(100, 64, 1 << 20, Duration::from_secs(60)));
        let text: String = (0..50).map(|n| format!("row {n}\n")).collect();
        let result = CallToolResult::success(vec![
            ContentBlock::text("header"),
            ContentBlock::image("aGVsbG8=", "image/png"),
            ContentBlock::text(text.clone()),
        ]);
        assert!(store.is_large(&result));
        let answer = crate::error::to_value(store.first_page(result));
        let content = answer["result"]["content"].as_array().unwrap();
        assert_eq!(content.len(), 2, "{answer}");
        assert_eq!(content[1]["type"], "image");
        assert_eq!(content[1]["data"], "aGVsbG8=");
        let page = &answer["page"];
        let id = page["result_id"].as_str().unwrap().to_owned();
        let mut all = content[0]["text"].as_str().unwrap().to_owned();
        let mut next = page["next_offset"].clone();
        assert_eq!(page["total_chars"], text.len() + 7);
        while let Some(offset) = next.as_u64() {
            let arguments = json!({"result_id": id, "offset": offset});
            let answer =
                crate::error::to_value(store.read(arguments.as_object().unwrap()).unwrap());
            assert_eq!(answer["result"]["content"].as_array().unwrap().len(), 1);
            all.push_str(answer["result"]["content"][0]["text"].as_str().unwrap());
            next = answer["page"]["next_offset"].clone();
        }
        assert_eq!(all, format!("header\n{text}"));
        let past = json!({"result_id": id, "offset": text.len() + 7});
        assert!(matches!(
            store.read(past.as_object().unwrap()),
            Err(BridgeError::OffsetOutOfRange { .. })
        ));
    }

    #[test]
    fn the_threshold_counts_characters_not_bytes() {
        let store = ResultStore::new(limits(100, 64, 1 << 20, Duration::from_secs(60)));
        let text = |s: String| CallToolResult::success(vec![ContentBlock::text(s)]);
        // 160 bytes but 80 characters: not large.
        assert!(!store.is_large(&text("é".repeat(80))));
        assert!(!store.is_large(&text("é".repeat(100))));
        assert!(store.is_large(&text("é".repeat(101))));
        // Over several blocks, and over a checkpoint's worth of bytes.
        let two = CallToolResult::success(vec![
            ContentBlock::text("€".repeat(60)),
            ContentBlock::text("€".repeat(41)),
        ]);
        assert!(store.is_large(&two));
        assert!(store.is_large(&text("😀".repeat(CHECKPOINT))));
    }

    #[test]
    fn large_structured_content_is_paged_or_omitted() {
        let store = ResultStore::new(limits(100, 64, 1 << 20, Duration::from_secs(60)));
        let value = json!({"rows": (0..40).collect::<Vec<_>>()});
        let only = CallToolResult::structured(value.clone());
        let mut only = only;
        only.content.clear();
        let answer = crate::error::to_value(store.first_page(only));
        assert_eq!(answer["page"]["structured_content"], "paged");
        assert_eq!(answer["result"]["structuredContent"], Value::Null);
        let both = CallToolResult::structured(value);
        assert!(store.is_large(&both));
        let answer = crate::error::to_value(store.first_page(both));
        assert_eq!(answer["page"]["structured_content"], "omitted");
    }

    #[test]
    fn read_arguments_are_checked() {
        let ok = ReadRequest::from_arguments(
            json!({"result_id": "abc", "offset": 10, "max_chars": 5})
                .as_object()
                .unwrap(),
        )
        .unwrap();
        assert_eq!((ok.offset, ok.max_chars), (10, Some(5)));
        for bad in [
            json!({}),
            json!({"result_id": 5}),
            json!({"result_id": "a", "offset": -1}),
            json!({"result_id": "a", "offset": 1.5}),
            json!({"result_id": "a", "offset": "3"}),
            json!({"result_id": "a", "max_chars": 0}),
        ] {
            assert!(
                matches!(
                    ReadRequest::from_arguments(bad.as_object().unwrap()),
                    Err(BridgeError::InvalidRequest(_))
                ),
                "{bad}"
            );
        }
        let start =
            ReadRequest::from_arguments(json!({"result_id": "a"}).as_object().unwrap()).unwrap();
        assert_eq!(start.offset, 0);
    }
}
