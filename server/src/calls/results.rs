//! Large results, read page by page. A tool result whose text is longer than the threshold
//! (`--large-result-threshold`) is kept in a bounded store — a memory cap
//! (`--result-store-size`, least recently read dropped first) and a time-to-live after the
//! last read (`--result-ttl`) — and `/execute` answers with its first page plus
//! `"page": {result_id, offset, returned_chars, total_chars, next_offset}`. The built-in tool
//! `read_result` (`{"result_id", "offset", "max_chars"?}`) answers the following pages in the
//! same shape.
//!
//! What is paged, and how:
//! - The paged text is the result's `text` content blocks, joined by a line break. Offsets and
//!   counts are in characters (Unicode scalar values), never bytes, so no page starts or ends
//!   inside a UTF-8 character.
//! - A page ends after the last line break in its second half; else, for JSON text (starting
//!   with `{` or `[`), after the last `,` between two elements (outside strings); else after
//!   the last space or tab; else at the character limit.
//! - Images, audio, embedded resources and resource links are never dropped: the first page's
//!   `content` holds every one of them, in their order, with the page's text in place of the
//!   first text block. Later pages hold only text.
//! - `structuredContent` up to the threshold stays in the first page. A larger one is left out
//!   (`"structured_content": "omitted"` in `page`): MCP asks tools to send the same JSON as
//!   text, which is paged. A result with structured content but no text pages its
//!   pretty-printed JSON instead (`"structured_content": "paged"`).
//! - A result larger than the whole store cannot be kept: its first page comes with
//!   `result_id: null`, `next_offset: null` and a `note` that says so.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_bridge_protocol::answers::{Page as PageInfo, ToolAnswer, ToolResult};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use crate::calls::masking;
use crate::error::BridgeError;

/// The name of the built-in tool that reads the next page of a kept result.
pub(crate) use mcp_bridge_protocol::READ_RESULT;
/// Results whose text has more characters than this are paged.
pub(crate) const DEFAULT_THRESHOLD: usize = 16 * 1024;
/// The characters of a page, at most.
pub(crate) const DEFAULT_PAGE_CHARS: usize = 8 * 1024;
/// The memory the kept results may take, in MiB.
pub(crate) const DEFAULT_STORE_MIB: usize = 256;
/// How long a kept result stays after it was last read.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(30 * 60);
/// The most characters one `read_result` may ask for with `max_chars`.
pub(crate) const MAX_PAGE_CHARS: usize = 1024 * 1024;
/// The smallest MCP message limit (rmcp's own default), whatever the store's size.
const MIN_MESSAGE: usize = 16 * 1024 * 1024;
/// Bytes between two checkpoints of a document's index.
const CHECKPOINT: usize = 64 * 1024;
/// How many dropped result ids are remembered, to say "expired" rather than "unknown".
const REMEMBERED_GONE: usize = 4096;

/// The store's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Results whose text has more characters than this are paged.
    pub threshold: usize,
    /// The characters of a page, at most.
    pub page_chars: usize,
    /// The bytes the kept results may take together.
    pub memory: usize,
    /// How long a result is kept after it was last read.
    pub ttl: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            threshold: DEFAULT_THRESHOLD,
            page_chars: DEFAULT_PAGE_CHARS,
            memory: DEFAULT_STORE_MIB * 1024 * 1024,
            ttl: DEFAULT_TTL,
        }
    }
}

impl Limits {
    /// The largest message the bridge accepts from an MCP server: twice the store (JSON
    /// escapes make a text longer on the wire), and never less than 16 MiB.
    pub(crate) fn max_message(&self) -> usize {
        self.memory.saturating_mul(2).max(MIN_MESSAGE)
    }
}

/// JSON string state at one point of a text: inside a string, and just after a backslash.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct JsonState {
    in_string: bool,
    escaped: bool,
}

impl JsonState {
    /// The state after `bytes`; `comma` is told the index of every `,` outside strings.
    fn feed(mut self, bytes: &[u8], mut comma: impl FnMut(usize)) -> Self {
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
struct Checkpoint {
    byte: usize,
    char: usize,
    state: JsonState,
}

/// A text to page, with an index from characters to bytes (and JSON state) every 64 KiB.
#[derive(Debug)]
pub(crate) struct Document {
    text: String,
    json: bool,
    is_error: bool,
    total_chars: usize,
    checkpoints: Vec<Checkpoint>,
}

/// The characters in `bytes` (UTF-8): the bytes that are not continuation bytes.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// Whether a text looks like JSON (an object or an array), so pages end between elements.
fn looks_like_json(text: &str) -> bool {
    let trimmed = text.trim();
    (trimmed.starts_with('{') && trimmed.ends_with('}'))
        || (trimmed.starts_with('[') && trimmed.ends_with(']'))
}

/// One page: where it starts and ends (bytes), and its characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Page {
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

    fn with_kind(text: String, json: bool, is_error: bool) -> Self {
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
    fn byte_of(&self, offset: usize) -> usize {
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
    fn state_at(&self, byte: usize) -> JsonState {
        let index = self.checkpoints.partition_point(|c| c.byte <= byte) - 1;
        let checkpoint = self.checkpoints[index];
        checkpoint
            .state
            .feed(&self.text.as_bytes()[checkpoint.byte..byte], |_| {})
    }

    /// The page starting at character `offset` with at most `max_chars` characters (at least
    /// one); `None` when `offset` is at or past the end.
    pub(crate) fn page(&self, offset: usize, max_chars: usize) -> Option<Page> {
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
            return Some(Page {
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
        Some(Page { start, end, chars })
    }

    /// The text of `page`.
    pub(crate) fn slice(&self, page: Page) -> &str {
        &self.text[page.start..page.end]
    }
}

/// Why a result id is not in the store (the word the bridge sends in `facts.reason`).
pub(crate) use mcp_bridge_protocol::errors::ResultGone as Missing;

struct Entry {
    document: Arc<Document>,
    size: usize,
    /// Higher is more recent.
    last_used: u64,
    touched: Instant,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    used: usize,
    clock: u64,
    gone: HashMap<String, Missing>,
    gone_order: VecDeque<String>,
}

impl Inner {
    fn forget(&mut self, id: &str, why: Missing) {
        if let Some(entry) = self.entries.remove(id) {
            self.used -= entry.size;
            self.gone.insert(id.to_owned(), why);
            self.gone_order.push_back(id.to_owned());
            while self.gone_order.len() > REMEMBERED_GONE {
                if let Some(old) = self.gone_order.pop_front() {
                    self.gone.remove(&old);
                }
            }
        }
    }

    fn sweep(&mut self, now: Instant, ttl: Duration) {
        let expired: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, entry)| now.saturating_duration_since(entry.touched) > ttl)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            self.forget(&id, Missing::Expired);
        }
    }
}

/// The kept large results.
pub(crate) struct ResultStore {
    limits: Limits,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for ResultStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultStore")
            .field("limits", &self.limits)
            .field("kept", &self.len())
            .field("used", &self.used())
            .finish()
    }
}

impl ResultStore {
    pub(crate) fn new(limits: Limits) -> Self {
        ResultStore {
            limits,
            inner: Mutex::new(Inner::default()),
        }
    }

    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How many results are kept.
    pub(crate) fn len(&self) -> usize {
        self.inner().entries.len()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the kept results take.
    pub(crate) fn used(&self) -> usize {
        self.inner().used
    }

    /// Keep `document`; its id, or `None` when it is larger than the whole store. Expired
    /// results go first, then the least recently read ones until it fits.
    pub(crate) fn insert_at(&self, document: Arc<Document>, now: Instant) -> Option<String> {
        let size = document.size();
        if size > self.limits.memory {
            return None;
        }
        let mut inner = self.inner();
        inner.sweep(now, self.limits.ttl);
        while inner.used + size > self.limits.memory {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, entry)| entry.last_used)
                .map(|(id, _)| id.clone())
            else {
                break;
            };
            inner.forget(&oldest, Missing::Evicted);
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        inner.clock += 1;
        let last_used = inner.clock;
        inner.used += size;
        inner.entries.insert(
            id.clone(),
            Entry {
                document,
                size,
                last_used,
                touched: now,
            },
        );
        Some(id)
    }

    /// The result `id`, marked as just read.
    pub(crate) fn get_at(&self, id: &str, now: Instant) -> Result<Arc<Document>, Missing> {
        let mut inner = self.inner();
        inner.sweep(now, self.limits.ttl);
        inner.clock += 1;
        let clock = inner.clock;
        if let Some(entry) = inner.entries.get_mut(id) {
            entry.last_used = clock;
            entry.touched = now;
            return Ok(entry.document.clone());
        }
        Err(inner.gone.get(id).copied().unwrap_or(Missing::Unknown))
    }

    /// Drop the results not read within the time-to-live.
    pub(crate) fn sweep_at(&self, now: Instant) {
        self.inner().sweep(now, self.limits.ttl);
    }

    /// Sweep every `period`, for ever (spawned by the server).
    pub(crate) async fn sweep_every(self: Arc<Self>, period: Duration) {
        let mut ticks = tokio::time::interval(period);
        loop {
            ticks.tick().await;
            self.sweep_at(Instant::now());
        }
    }

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
    fn is_large(&self, result: &CallToolResult) -> bool {
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

    fn missing(&self, result_id: &str, why: Missing) -> BridgeError {
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
fn page_answer(
    document: &Document,
    result_id: Option<&str>,
    offset: usize,
    max_chars: usize,
) -> Option<ToolAnswer> {
    let page = document.page(offset, max_chars)?;
    let next = offset + page.chars;
    let next_offset = (next < document.total_chars()).then_some(next);
    let page_of = PageInfo {
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
fn with_masked(mut answer: ToolAnswer, count: usize) -> ToolAnswer {
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

fn text_of(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::Text(text) => Some(&text.text),
        _ => None,
    }
}

/// The texts as one, a line break between two (unless the first ends with one).
/// The first text is extended in place (no copy of it) and each other one freed once it is
/// appended, so the texts are never all held twice.
fn join(texts: Vec<String>) -> String {
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
fn json_size(value: &Value) -> usize {
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
    use super::*;
    use serde_json::json;

    fn limits(threshold: usize, page_chars: usize, memory: usize, ttl: Duration) -> Limits {
        Limits {
            threshold,
            page_chars,
            memory,
            ttl,
        }
    }

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

    fn document(chars: usize) -> Arc<Document> {
        Arc::new(Document::new("x".repeat(chars), false))
    }

    #[test]
    fn the_store_keeps_within_its_cap_dropping_the_least_recently_read() {
        let size = document(10_000).size();
        let store = ResultStore::new(limits(100, 100, size * 3, Duration::from_secs(60)));
        let now = Instant::now();
        let a = store.insert_at(document(10_000), now).unwrap();
        let b = store.insert_at(document(10_000), now).unwrap();
        let c = store.insert_at(document(10_000), now).unwrap();
        assert_eq!(store.len(), 3);
        assert!(store.used() <= size * 3);
        // Reading `a` makes `b` the least recently read.
        store.get_at(&a, now).unwrap();
        let d = store.insert_at(document(10_000), now).unwrap();
        assert_eq!(store.len(), 3);
        assert!(store.used() <= size * 3);
        assert_eq!(store.get_at(&b, now).unwrap_err(), Missing::Evicted);
        for id in [&a, &c, &d] {
            assert!(store.get_at(id, now).is_ok());
        }
        assert_eq!(store.get_at("nope", now).unwrap_err(), Missing::Unknown);
        // One larger than the whole store is not kept, and drops nothing.
        assert!(store.insert_at(document(40_000), now).is_none());
        assert_eq!(store.len(), 3);
    }

    #[test]
    fn results_expire_after_their_last_read() {
        let store = ResultStore::new(limits(100, 100, 1 << 30, Duration::from_secs(60)));
        let start = Instant::now();
        let id = store.insert_at(document(1000), start).unwrap();
        let other = store.insert_at(document(1000), start).unwrap();
        // A read within the TTL keeps it for another TTL from then.
        assert!(store.get_at(&id, start + Duration::from_secs(50)).is_ok());
        assert!(store.get_at(&id, start + Duration::from_secs(100)).is_ok());
        assert_eq!(
            store
                .get_at(&other, start + Duration::from_secs(100))
                .unwrap_err(),
            Missing::Expired
        );
        store.sweep_at(start + Duration::from_secs(200));
        assert!(store.is_empty());
        assert_eq!(store.used(), 0);
        assert_eq!(
            store
                .get_at(&id, start + Duration::from_secs(201))
                .unwrap_err(),
            Missing::Expired
        );
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
