//! The receive side of a stdio MCP connection: lines read from the child's stdout and decoded
//! into rmcp messages without the copies rmcp's own decoder makes of a large tool result.
//!
//! rmcp decodes a line through two untagged enums (the JSON-RPC message, then the server
//! result), and serde buffers untagged input into a tree of its own, once per layer, so a 50 MB
//! text is held four to six times over while it is decoded. Here the answer to a `tools/call`
//! is read as a borrowed envelope first; its large text blocks are left out of what serde sees
//! (blanked to `""`), the rest goes through rmcp's own `CallToolResult` decoding, and each large
//! text is then unescaped by hand — the largest one in place, inside the line's own buffer,
//! which becomes the text's `String`. Every other message, and anything the fast path does not
//! fully understand, goes through rmcp's own decoder, unchanged.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolResult, ClientJsonRpcMessage, ClientNotification, ClientRequest, ContentBlock,
    ErrorData, JsonRpcMessage, RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::transport::async_rw::{JsonRpcMessageCodec, JsonRpcMessageCodecError};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufRead, AsyncBufReadExt as _};
use tokio_util::bytes::{Bytes, BytesMut};
use tokio_util::codec::Decoder as _;

/// Text blocks at least this long (as JSON, in bytes) are unescaped by hand; shorter ones go
/// through serde with the rest of the result.
pub(crate) const LARGE_TEXT: usize = 64 * 1024;

/// The UTF-8 byte order mark, which JSON parsers may skip (rmcp does).
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The ids of the `tools/call` requests sent and not answered yet: their answers are decoded
/// as `CallToolResult`s directly. A task's `tasks/result` (`servers/tasks.rs`), which rmcp
/// knows only as a custom request, is answered with the tool's result too.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolCalls(Arc<Mutex<HashSet<RequestId>>>);

impl ToolCalls {
    fn ids(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Note what an outgoing message means for the calls in flight.
    pub(crate) fn sent(&self, message: &ClientJsonRpcMessage) {
        match message {
            JsonRpcMessage::Request(request)
                if match &request.request {
                    ClientRequest::CallToolRequest(_) => true,
                    ClientRequest::CustomRequest(custom) => custom.method == "tasks/result",
                    _ => false,
                } =>
            {
                self.ids().insert(request.id.clone());
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.ids().remove(id);
                }
            }
            _ => {}
        }
    }

    /// Whether `id` is a call in flight; it is not any more after this.
    fn answered(&self, id: &RequestId) -> bool {
        self.ids().remove(id)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.ids().len()
    }
}

/// One line read from the child.
#[derive(Debug)]
pub(crate) enum LineRead {
    /// A whole line, its `\n` removed; the buffer is the caller's now.
    Line(Vec<u8>),
    /// A line over the limit: dropped (the bytes read of it are freed), the rest of it is
    /// skipped.
    Oversized,
    /// The child closed its stdout.
    Eof,
    Io(std::io::Error),
}

/// Lines from the child's stdout, each at most `max` bytes with its line break, read so that a
/// cancelled read (the receive future is polled in a `select!`) resumes where it stopped.
pub(crate) struct LineReader<R> {
    read: R,
    line: Vec<u8>,
    max: usize,
    /// Skipping the rest of an over-long line until its line break.
    discarding: bool,
    /// When the current line's first byte arrived.
    started: Option<std::time::Instant>,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub(crate) fn new(read: R, max: usize) -> Self {
        LineReader {
            read,
            line: Vec::new(),
            max,
            discarding: false,
            started: None,
        }
    }

    /// The longest line accepted, its line break included.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// The next line, and when its first byte arrived. The copy into the line and the matching
    /// `consume` have no await between them, so a dropped call loses nothing.
    pub(crate) async fn next_line(&mut self) -> (LineRead, Option<std::time::Instant>) {
        loop {
            let (consumed, done) = {
                let available = match self.read.fill_buf().await {
                    Ok(available) => available,
                    Err(err) => return (LineRead::Io(err), None),
                };
                if available.is_empty() {
                    return (LineRead::Eof, None);
                }
                let newline = memchr::memchr(b'\n', available);
                let take = newline.map_or(available.len(), |at| at + 1);
                if self.discarding {
                    if newline.is_some() {
                        self.discarding = false;
                    }
                    (take, None)
                } else if self.line.len().saturating_add(take) > self.max {
                    self.line = Vec::new();
                    self.started = None;
                    self.discarding = newline.is_none();
                    (take, Some(LineRead::Oversized))
                } else {
                    if self.started.is_none() {
                        self.started = Some(std::time::Instant::now());
                    }
                    match newline {
                        Some(at) => {
                            self.line.extend_from_slice(&available[..at]);
                            (take, Some(LineRead::Line(std::mem::take(&mut self.line))))
                        }
                        None => {
                            self.line.extend_from_slice(available);
                            (take, None)
                        }
                    }
                }
            };
            self.read.consume(consumed);
            if let Some(done) = done {
                return (done, self.started.take());
            }
        }
    }
}

/// What a line decodes to.
#[derive(Debug)]
pub(crate) enum Decoded {
    Message(Box<ServerJsonRpcMessage>),
    /// Nothing to deliver: an empty line, or a notification rmcp ignores for compatibility.
    Skip,
    /// Not JSON: ignored, as every MCP SDK does (answering could start an error storm).
    Unparsable(serde_json::Error),
    /// JSON that is no MCP message: answered with an Invalid Request error.
    Invalid(serde_json::Error),
}

/// A key whose presence (with any value, `null` too) is all that matters.
#[derive(Debug, Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(Present(true))
    }
}

/// A JSON-RPC message with its parts left as JSON.
#[derive(Deserialize)]
struct Envelope<'a> {
    jsonrpc: rmcp::model::JsonRpcVersion2_0,
    id: Option<RequestId>,
    #[serde(default)]
    method: Present,
    #[serde(default)]
    error: Present,
    #[serde(borrow)]
    result: Option<ResultShape<'a>>,
}

/// The same line with its large texts blank: the result, to decode as rmcp does.
#[derive(Deserialize)]
struct BlankEnvelope<'a> {
    #[serde(borrow)]
    result: &'a RawValue,
}

/// The parts of a result that say where its text blocks are (any other field is skipped).
#[derive(Deserialize)]
struct ResultShape<'a> {
    #[serde(borrow, default)]
    content: Option<Vec<BlockShape<'a>>>,
    /// A task the server started although the call did not ask for one.
    #[serde(default)]
    task: Present,
}

#[derive(Deserialize)]
struct BlockShape<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
}

/// Decode one line (without its `\n`); `calls` says which answers are tool results.
pub(crate) fn decode(line: Vec<u8>, calls: &ToolCalls) -> Decoded {
    decode_with(line, calls, LARGE_TEXT)
}

fn decode_with(line: Vec<u8>, calls: &ToolCalls, large: usize) -> Decoded {
    let line = match tool_result(line, calls, large) {
        Ok(message) => return Decoded::Message(Box::new(message)),
        Err(line) => line,
    };
    if deeper_than(&line, MAX_DEPTH)
        && let Some(failure) = deep_answer(&line)
    {
        calls.answered(&failure.id);
        return Decoded::Message(Box::new(failure.message));
    }
    let decoded = rmcp_decode(line);
    if let Decoded::Message(message) = &decoded {
        match message.as_ref() {
            JsonRpcMessage::Response(response) => {
                calls.answered(&response.id);
            }
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    calls.answered(id);
                }
            }
            _ => {}
        }
    }
    decoded
}

/// rmcp's own decoding of a line, with its compatibility rules (a BOM, a `\r`, notifications
/// it does not know).
fn rmcp_decode(line: Vec<u8>) -> Decoded {
    let mut buffer = BytesMut::from(Bytes::from(line));
    match JsonRpcMessageCodec::<ServerJsonRpcMessage>::new().decode_eof(&mut buffer) {
        Ok(Some(message)) => Decoded::Message(Box::new(message)),
        Ok(None) => Decoded::Skip,
        Err(JsonRpcMessageCodecError::Serde(err)) => match err.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                Decoded::Unparsable(err)
            }
            serde_json::error::Category::Data | serde_json::error::Category::Io => {
                Decoded::Invalid(err)
            }
        },
        // Neither happens on a whole line in memory; say so as unparsable input.
        Err(other) => Decoded::Unparsable(serde_json::Error::io(std::io::Error::other(
            other.to_string(),
        ))),
    }
}

/// The deepest nesting serde_json reads (its recursion limit, the message's own object
/// counted): a line nested deeper is dropped by rmcp's decoder.
const MAX_DEPTH: usize = 127;

/// Whether `line`'s JSON nests arrays and objects deeper than `limit`, counted without
/// decoding it (brackets inside strings skipped).
fn deeper_than(line: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while at < line.len() {
        match line[at] {
            b'"' => {
                // To the closing quote, over escapes.
                at += 1;
                loop {
                    let rest = line.get(at..).unwrap_or_default();
                    match memchr::memchr2(b'"', b'\\', rest) {
                        Some(found) if line[at + found] == b'\\' => at += found + 2,
                        Some(found) => {
                            at += found;
                            break;
                        }
                        None => return false,
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    false
}

/// What a message too deeply nested to decode says at its top: its id, and whether it is a
/// request (skipping the rest is iterative in serde_json, so no depth stops it).
#[derive(Deserialize)]
struct Head {
    id: Option<RequestId>,
    #[serde(default)]
    method: Present,
}

/// An error answer made for the request a server answered with something unreadable.
struct Failure {
    id: RequestId,
    message: ServerJsonRpcMessage,
}

/// An answer nested too deep to decode, turned into an error answer to its request, so that
/// the request fails at once with the reason instead of waiting for its timeout; `None` when
/// `line` is no answer.
fn deep_answer(line: &[u8]) -> Option<Failure> {
    let line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
    let head: Head = serde_json::from_slice(line).ok()?;
    if head.method.0 {
        return None;
    }
    let id = head.id?;
    tracing::warn!(%id, "an answer from the MCP server is nested deeper than {MAX_DEPTH} levels; its request fails");
    let message = ServerJsonRpcMessage::error(
        ErrorData::internal_error(
            format!(
                "the MCP server's answer is nested deeper than the {MAX_DEPTH} levels the bridge \
                 reads, so it was not read"
            ),
            None,
        ),
        Some(id.clone()),
    );
    Some(Failure { id, message })
}

/// The answer to a `tools/call` in flight, decoded without copies of its large texts; the line
/// back, untouched, when it is anything else or anything here does not fit.
fn tool_result(
    line: Vec<u8>,
    calls: &ToolCalls,
    large: usize,
) -> Result<ServerJsonRpcMessage, Vec<u8>> {
    let (id, result, texts) = match read_parts(&line, calls, large) {
        Some(Parts::Result(id, result, texts)) => (id, result, texts),
        Some(Parts::Task(id, result)) => {
            calls.answered(&id);
            return Ok(ServerJsonRpcMessage::response(
                ServerResult::CustomResult(rmcp::model::CustomResult(result)),
                id,
            ));
        }
        None => return Err(line),
    };
    let mut result = result;
    let mut line = line;
    // The largest text is unescaped in place last; the others are copied out first, while the
    // line is still whole.
    let largest = (0..texts.len()).max_by_key(|&n| texts[n].1.len());
    for (n, (block, range)) in texts.iter().enumerate() {
        if Some(n) == largest {
            continue;
        }
        let mut copy = line[range.clone()].to_vec();
        let whole = 0..copy.len();
        let len = unescape_in_place(&mut copy, whole);
        copy.truncate(len);
        set_text(&mut result, *block, copy);
    }
    if let Some(largest) = largest {
        let (block, range) = texts[largest].clone();
        let len = unescape_in_place(&mut line, range);
        line.truncate(len);
        line.shrink_to_fit();
        set_text(&mut result, block, line);
    }
    calls.answered(&id);
    Ok(ServerJsonRpcMessage::response(
        ServerResult::CallToolResult(result),
        id,
    ))
}

/// What a line answering a tool call holds.
enum Parts {
    /// The id, the result with its large texts blank, and where those texts are in the line
    /// (the string bodies, without quotes).
    Result(
        RequestId,
        CallToolResult,
        Vec<(usize, std::ops::Range<usize>)>,
    ),
    /// A task the server started instead of answering (its JSON SDKs add an empty `content`,
    /// which would read as an empty result): kept whole, so the call says what happened.
    Task(RequestId, serde_json::Value),
}

/// The parts of `line` when it answers a tool call and all of it checks out. The whole line
/// is scanned once; the second parse is of the line without its large texts.
fn read_parts(line: &[u8], calls: &ToolCalls, large: usize) -> Option<Parts> {
    let mut body = line.strip_suffix(b"\r").unwrap_or(line);
    body = body.strip_prefix(UTF8_BOM).unwrap_or(body);
    let envelope: Envelope = serde_json::from_slice(body).ok()?;
    let _ = envelope.jsonrpc;
    let id = envelope.id?;
    let shape = envelope.result?;
    if envelope.method.0 || envelope.error.0 || !calls.ids().contains(&id) {
        return None;
    }
    if shape.task.0 {
        let blank: BlankEnvelope = serde_json::from_slice(body).ok()?;
        return Some(Parts::Task(
            id,
            serde_json::from_str(blank.result.get()).ok()?,
        ));
    }
    let base = line.as_ptr() as usize;
    let mut texts = Vec::new();
    for (block, shape) in shape.content.iter().flatten().enumerate() {
        let Some(text) = shape.text else { continue };
        let raw = text.get();
        if shape.kind.as_deref() == Some("text")
            && raw.len() >= large
            && raw.starts_with('"')
            && raw.ends_with('"')
        {
            let start = raw.as_ptr() as usize - base;
            let body = start + 1..start + raw.len() - 1;
            if !escapes_are_valid(&line[body.clone()]) {
                return None;
            }
            texts.push((block, body));
        }
    }
    // The line with every large text blank (the line itself when it has none), for rmcp's own
    // decoding of the rest of the result.
    let blanked;
    let rest = if texts.is_empty() {
        body
    } else {
        let mut without =
            Vec::with_capacity(body.len() - texts.iter().map(|t| t.1.len()).sum::<usize>());
        let mut at = body.as_ptr() as usize - base;
        let end = at + body.len();
        for (_, text) in &texts {
            without.extend_from_slice(&line[at..text.start]);
            at = text.end;
        }
        without.extend_from_slice(&line[at..end]);
        blanked = without;
        &blanked[..]
    };
    let blank: BlankEnvelope = serde_json::from_slice(rest).ok()?;
    let result: CallToolResult = serde_json::from_str(blank.result.get()).ok()?;
    for (block, _) in &texts {
        match result.content.get(*block) {
            Some(ContentBlock::Text(text)) if text.text.is_empty() => {}
            _ => return None,
        }
    }
    Some(Parts::Result(id, result, texts))
}

/// Put `text`, a string body decoded by [`unescape_in_place`], in the text block `block`.
fn set_text(result: &mut CallToolResult, block: usize, text: Vec<u8>) {
    debug_assert!(std::str::from_utf8(&text).is_ok());
    // SAFETY: `text` was a JSON string body inside a `&str` (a `RawValue`, which serde_json
    // checks as UTF-8), decoded by `unescape_in_place`: it copies the runs between escapes whole
    // (each starts and ends at an ASCII byte — a quote, a backslash, the end of an escape) and
    // writes each escape as one whole character, so the bytes stay UTF-8. Checking them again
    // would be a third pass over a text of up to hundreds of megabytes.
    let text = unsafe { String::from_utf8_unchecked(text) };
    if let Some(ContentBlock::Text(block)) = result.content.get_mut(block) {
        block.text = text;
    }
}

/// The four hex digits at the start of `digits`, as a number.
fn hex4(digits: &[u8]) -> Option<u32> {
    let digits = digits.get(..4)?;
    let mut value = 0;
    for &digit in digits {
        value = value * 16 + (digit as char).to_digit(16)?;
    }
    Some(value)
}

/// Whether every escape of a JSON string body is one serde_json would accept, surrogates in
/// pairs included (serde_json only checks them when it decodes the string).
fn escapes_are_valid(body: &[u8]) -> bool {
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &body[at..]) {
        at += found + 1;
        match body.get(at) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 1,
            Some(b'u') => {
                let Some(unit) = hex4(&body[at + 1..]) else {
                    return false;
                };
                at += 5;
                match unit {
                    0xD800..=0xDBFF => {
                        if body.get(at..at + 2) != Some(b"\\u") {
                            return false;
                        }
                        match hex4(&body[at + 2..]) {
                            Some(0xDC00..=0xDFFF) => at += 6,
                            _ => return false,
                        }
                    }
                    0xDC00..=0xDFFF => return false,
                    _ => {}
                }
            }
            _ => return false,
        }
    }
    true
}

/// Decode the JSON string body `buffer[range]` (escapes checked by [`escapes_are_valid`]) into
/// the start of `buffer`; the decoded length. Nothing decodes longer than its escape, so the
/// write never overtakes the read.
fn unescape_in_place(buffer: &mut [u8], range: std::ops::Range<usize>) -> usize {
    let (mut read, end) = (range.start, range.end);
    let mut write = 0;
    loop {
        let run = memchr::memchr(b'\\', &buffer[read..end]).unwrap_or(end - read);
        buffer.copy_within(read..read + run, write);
        write += run;
        read += run;
        if read >= end {
            return write;
        }
        let escape = buffer[read + 1];
        read += 2;
        let simple = match escape {
            b'b' => Some(0x08),
            b'f' => Some(0x0C),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            other => Some(other),
        };
        if let Some(byte) = simple {
            buffer[write] = byte;
            write += 1;
            continue;
        }
        let mut code = hex4(&buffer[read..]).unwrap_or(0xFFFD);
        read += 4;
        if (0xD800..=0xDBFF).contains(&code) {
            let low = hex4(&buffer[read + 2..]).unwrap_or(0xDC00);
            read += 6;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        let ch = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
        let mut utf8 = [0; 4];
        let encoded = ch.encode_utf8(&mut utf8).as_bytes();
        buffer[write..write + encoded.len()].copy_from_slice(encoded);
        write += encoded.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolRequestParams, ErrorCode, ServerRequest};
    use serde_json::json;

    /// A `ToolCalls` with a `tools/call` of id `id` in flight.
    fn calling(id: i64) -> ToolCalls {
        let calls = ToolCalls::default();
        let request = ClientRequest::CallToolRequest(rmcp::model::Request::new(
            CallToolRequestParams::new("read"),
        ));
        calls.sent(&ClientJsonRpcMessage::request(
            request,
            RequestId::Number(id),
        ));
        calls
    }

    fn message(decoded: Decoded) -> ServerJsonRpcMessage {
        match decoded {
            Decoded::Message(message) => *message,
            other => panic!("not a message: {other:?}"),
        }
    }

    fn as_json(message: &ServerJsonRpcMessage) -> serde_json::Value {
        serde_json::to_value(message).unwrap()
    }

    fn line(value: &serde_json::Value) -> Vec<u8> {
        serde_json::to_vec(value).unwrap()
    }

    /// A text with escapes, multi-byte characters, an emoji and its surrogate-pair form.
    fn awkward_text(len: usize) -> String {
        let mut text = String::new();
        let mut n = 0;
        while text.len() < len {
            text.push_str(&format!(
                "{n:06} \"quoted\" back\\slash\ttab ünïcødé € 😀 \u{1}\r\n"
            ));
            n += 1;
        }
        text
    }

    fn texts_of(result: &CallToolResult) -> Vec<String> {
        result
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => text.text.clone(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_tool_result_decodes_as_rmcp_would_with_its_large_texts_whole() {
        let big = awkward_text(300_000);
        let other = awkward_text(100_000);
        let value = json!({"jsonrpc": "2.0", "id": 7, "result": {
            "content": [
                {"type": "text", "text": "short"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "text", "text": other, "annotations": {"priority": 0.5}},
                {"type": "text", "text": big, "_meta": {"k": "v"}},
            ],
            "structuredContent": {"n": 1},
            "isError": false,
        }});
        // The emoji written as a surrogate pair must come out the same.
        let mut bytes = line(&value);
        let wire = String::from_utf8(bytes.clone())
            .unwrap()
            .replacen('😀', "\\ud83d\\ude00", 3);
        bytes = wire.into_bytes();
        let expected: ServerJsonRpcMessage = serde_json::from_slice(&bytes).unwrap();
        let calls = calling(7);
        let decoded = message(decode_with(bytes, &calls, 1000));
        assert_eq!(as_json(&decoded), as_json(&expected));
        let (ServerResult::CallToolResult(result), id) = decoded.into_response().unwrap() else {
            panic!("not a tool result");
        };
        assert_eq!(id, RequestId::Number(7));
        assert_eq!(texts_of(&result)[3], big);
        assert_eq!(texts_of(&result)[2], other);
        assert_eq!(calls.len(), 0, "the call is answered");
    }

    #[test]
    fn the_largest_text_becomes_the_lines_own_buffer() {
        let big = "x".repeat(200_000);
        let bytes = line(&json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": big}]}}));
        let decoded = message(decode_with(bytes, &calling(1), 1000));
        let (ServerResult::CallToolResult(result), _) = decoded.into_response().unwrap() else {
            panic!("not a tool result");
        };
        let ContentBlock::Text(text) = &result.content[0] else {
            panic!("not text");
        };
        assert_eq!(text.text, big);
        // The line's buffer, shrunk to the text: no spare capacity is kept.
        assert_eq!(text.text.capacity(), big.len());
    }

    #[test]
    fn a_small_tool_result_decodes_as_rmcp_would() {
        let value = json!({"jsonrpc": "2.0", "id": 8, "result": {
            "content": [{"type": "text", "text": "a \"small\" one\n"}],
            "structuredContent": null, "isError": true, "_meta": {"m": 1}}});
        let expected: ServerJsonRpcMessage = serde_json::from_value(value.clone()).unwrap();
        let calls = calling(8);
        let decoded = message(decode_with(line(&value), &calls, LARGE_TEXT));
        assert_eq!(as_json(&decoded), as_json(&expected));
        assert!(matches!(
            decoded.into_response(),
            Some((ServerResult::CallToolResult(_), _))
        ));
        assert_eq!(calls.len(), 0);
    }

    #[test]
    fn answers_to_other_requests_go_through_rmcp() {
        // Id 3 is not a tool call: a tools/list answer.
        let value = json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": []}});
        let decoded = message(decode_with(line(&value), &calling(1), 10));
        assert_eq!(as_json(&decoded), value);
        // A tool call answered with a task (not "complete") is rmcp's too.
        let value = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "task", "task": {"taskId": "t", "status": "working", "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": null}}});
        let expected = serde_json::from_value::<ServerJsonRpcMessage>(value.clone());
        let decoded = decode_with(line(&value), &calling(1), 10);
        match expected {
            Ok(expected) => assert_eq!(as_json(&message(decoded)), as_json(&expected)),
            Err(_) => assert!(!matches!(decoded, Decoded::Message(_))),
        }
    }

    #[test]
    fn a_tool_call_answered_with_a_task_it_did_not_ask_for_is_no_empty_result() {
        // The 2025-11-25 revision's shape: a task, no content.
        for task in [
            json!({"taskId": "t", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
                   "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000}),
            json!({"taskId": "t", "status": "working", "statusMessage": "working...", "ttl": 3000,
                   "pollInterval": 100, "createdAt": "2026-01-01T00:00:00Z",
                   "lastUpdatedAt": "2026-01-01T00:00:00Z"}),
        ] {
            for result in [json!({"task": task}), json!({"content": [], "task": task})] {
                let value = json!({"jsonrpc": "2.0", "id": 1, "result": result});
                let calls = calling(1);
                let decoded = message(decode_with(line(&value), &calls, 10));
                let Some((ServerResult::CustomResult(custom), _)) = decoded.into_response() else {
                    panic!("not kept as a task: {value}");
                };
                assert_eq!(custom.0, result);
                assert_eq!(calls.len(), 0);
            }
        }
    }

    #[test]
    fn a_tasks_result_is_read_as_a_tool_result() {
        let calls = ToolCalls::default();
        let asked = ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(
            "tasks/result",
            Some(json!({"taskId": "t"})),
        ));
        calls.sent(&ClientJsonRpcMessage::request(asked, RequestId::Number(3)));
        assert_eq!(calls.len(), 1);
        let big = awkward_text(300);
        let value = json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": big}],
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}}}});
        let decoded = message(decode_with(line(&value), &calls, 10));
        let Some((ServerResult::CallToolResult(result), _)) = decoded.into_response() else {
            panic!("not a tool result");
        };
        assert_eq!(texts_of(&result), vec![big]);
        assert_eq!(calls.len(), 0);
    }

    #[test]
    fn a_tool_call_answered_with_input_required_is_rmcps() {
        // A 2026-07-28 server's questions in the result of a call: no `CallToolResult`.
        let value = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
            "inputRequests": {"name": {"method": "elicitation/create", "params": {"mode": "form",
                "message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}},
            "requestState": "s"}});
        let calls = calling(1);
        let decoded = message(decode_with(line(&value), &calls, 10));
        assert!(matches!(
            decoded.into_response(),
            Some((ServerResult::InputRequiredResult(_), _))
        ));
        assert_eq!(calls.len(), 0);
    }

    #[test]
    fn a_notification_decodes() {
        let value = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 1, "progress": 5}});
        let decoded = message(decode_with(line(&value), &calling(1), 10));
        assert!(
            matches!(decoded, JsonRpcMessage::Notification(_)),
            "{decoded:?}"
        );
        // One rmcp does not know is its custom notification, as rmcp decodes it.
        let unknown =
            json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"a": 1}});
        let decoded = message(decode_with(line(&unknown), &calling(1), 10));
        assert_eq!(as_json(&decoded), unknown);
    }

    #[test]
    fn an_error_answer_to_a_tool_call_decodes_and_ends_the_call() {
        let value = json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "no such tool"}});
        let calls = calling(4);
        let decoded = message(decode_with(line(&value), &calls, 10));
        let (error, id) = decoded.into_error().unwrap();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(id, Some(RequestId::Number(4)));
        assert_eq!(calls.len(), 0, "the call is answered");
        // A result with an error beside it is no valid answer: rmcp says so.
        let both = json!({"jsonrpc": "2.0", "id": 4, "result": {"content": []}, "error": {"code": 1, "message": "x"}});
        assert!(matches!(
            decode_with(line(&both), &calling(4), 10),
            Decoded::Invalid(_)
        ));
    }

    #[test]
    fn requests_from_the_server_decode() {
        let ping = json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"});
        let decoded = message(decode_with(line(&ping), &calling(1), 10));
        let (request, id) = decoded.into_request().unwrap();
        assert!(matches!(request, ServerRequest::PingRequest(_)));
        assert_eq!(id, RequestId::String("p1".into()));
        let roots = json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"});
        let (request, _) = message(decode_with(line(&roots), &calling(9), 10))
            .into_request()
            .unwrap();
        assert!(matches!(request, ServerRequest::ListRootsRequest(_)));
        let sampling = json!({"jsonrpc": "2.0", "id": 10, "method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}});
        let (request, _) = message(decode_with(line(&sampling), &calling(10), 10))
            .into_request()
            .unwrap();
        assert!(matches!(request, ServerRequest::CreateMessageRequest(_)));
    }

    #[test]
    fn invalid_input_is_told_apart_from_a_wrong_message() {
        assert!(matches!(
            decode_with(b"{not json".to_vec(), &calling(1), 10),
            Decoded::Unparsable(_)
        ));
        assert!(matches!(
            decode_with(br#"{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "abc"#.to_vec(), &calling(1), 1),
            Decoded::Unparsable(_)
        ));
        assert!(matches!(
            decode_with(br#"{"hello": "world"}"#.to_vec(), &calling(1), 10),
            Decoded::Invalid(_)
        ));
        assert!(matches!(
            decode_with(Vec::new(), &calling(1), 10),
            Decoded::Skip
        ));
        // A lone surrogate in a large text: serde_json refuses it, so the line is rmcp's.
        let lone = format!(
            r#"{{"jsonrpc": "2.0", "id": 1, "result": {{"content": [{{"type": "text", "text": "{}\ud800 x"}}]}}}}"#,
            "a".repeat(100)
        );
        assert!(!matches!(
            decode_with(lone.into_bytes(), &calling(1), 10),
            Decoded::Message(_)
        ));
    }

    #[test]
    fn an_answer_nested_too_deep_becomes_an_error_answer_to_its_request() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let answer = format!(
            r#"{{"jsonrpc": "2.0", "result": {{"content": [], "structuredContent": {{"a": {deep}}}}}, "id": 6}}"#
        );
        let calls = calling(6);
        let (error, id) = message(decode_with(answer.into_bytes(), &calls, 10))
            .into_error()
            .unwrap();
        assert_eq!(id, Some(RequestId::Number(6)));
        assert!(error.message.contains("nested deeper"), "{}", error.message);
        assert_eq!(calls.len(), 0, "the call is answered");
        // As deep as serde_json reads still decodes; one level more is too deep.
        let nested = |levels: usize| {
            format!(
                r#"{{"jsonrpc": "2.0", "id": 2, "result": {{"tools": [], "_meta": {{"a": {}1{}}}}}}}"#,
                "[".repeat(levels - 3),
                "]".repeat(levels - 3)
            )
        };
        assert!(!deeper_than(nested(MAX_DEPTH).as_bytes(), MAX_DEPTH));
        assert!(matches!(
            decode_with(nested(MAX_DEPTH).into_bytes(), &calling(1), 10),
            Decoded::Message(_)
        ));
        assert!(deeper_than(nested(MAX_DEPTH + 1).as_bytes(), MAX_DEPTH));
        assert!(matches!(
            rmcp_decode(nested(MAX_DEPTH + 1).into_bytes()),
            Decoded::Unparsable(_)
        ));
        // Brackets and escaped quotes inside strings are no nesting.
        assert!(!deeper_than(br#"{"a": "[[[\"[[[", "b": ["]]"]}"#, 2));
        assert!(!deeper_than(br#"{"a": "\"#, 2));
        // A request nested too deep is no answer: ignored as before.
        let request = format!(r#"{{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {deep}}}"#);
        assert!(matches!(
            decode_with(request.into_bytes(), &calling(1), 10),
            Decoded::Unparsable(_)
        ));
    }

    #[test]
    fn a_crlf_line_and_a_bom_decode() {
        let big = awkward_text(5000);
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend(line(&json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": big}]}})));
        bytes.push(b'\r');
        let (ServerResult::CallToolResult(result), _) =
            message(decode_with(bytes, &calling(2), 100))
                .into_response()
                .unwrap()
        else {
            panic!("not a tool result");
        };
        assert_eq!(texts_of(&result), vec![big]);
        let mut ping = line(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
        ping.push(b'\r');
        assert!(matches!(
            message(decode_with(ping, &calling(1), 10)),
            JsonRpcMessage::Request(_)
        ));
    }

    #[test]
    fn a_cancelled_call_is_forgotten() {
        let calls = calling(5);
        calls.sent(&ClientJsonRpcMessage::notification(
            ClientNotification::CancelledNotification(rmcp::model::Notification::new(
                serde_json::from_value(json!({"requestId": 5})).unwrap(),
            )),
        ));
        assert_eq!(calls.len(), 0);
    }

    /// A reader that hands out its bytes in the given pieces, one per read.
    struct Pieces(std::collections::VecDeque<Vec<u8>>);

    impl tokio::io::AsyncRead for Pieces {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            if let Some(piece) = self.0.pop_front() {
                let n = piece.len().min(buf.remaining());
                buf.put_slice(&piece[..n]);
                if n < piece.len() {
                    self.0.push_front(piece[n..].to_vec());
                }
            }
            std::task::Poll::Ready(Ok(()))
        }
    }

    fn reader(pieces: Vec<&[u8]>, max: usize) -> LineReader<tokio::io::BufReader<Pieces>> {
        LineReader::new(
            tokio::io::BufReader::new(Pieces(pieces.into_iter().map(<[u8]>::to_vec).collect())),
            max,
        )
    }

    #[tokio::test]
    async fn a_character_split_across_reads_arrives_whole() {
        let value = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "é€😀".repeat(50)}]}});
        let mut bytes = line(&value);
        bytes.push(b'\n');
        // Cut every few bytes, so some cuts fall inside a character.
        let pieces: Vec<&[u8]> = bytes.chunks(3).collect();
        let mut lines = reader(pieces, 1 << 20);
        let (LineRead::Line(got), started) = lines.next_line().await else {
            panic!("no line");
        };
        assert!(started.is_some());
        let (ServerResult::CallToolResult(result), _) = message(decode_with(got, &calling(1), 10))
            .into_response()
            .unwrap()
        else {
            panic!("not a tool result");
        };
        assert_eq!(texts_of(&result), vec!["é€😀".repeat(50)]);
        assert!(matches!(lines.next_line().await.0, LineRead::Eof));
    }

    #[tokio::test]
    async fn an_over_long_line_is_dropped_and_the_next_one_read() {
        let long = format!("{}\n", "y".repeat(300));
        let next = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n";
        // In pieces, so the limit is crossed before the line break is seen.
        let mut lines = reader(
            vec![
                &long.as_bytes()[..100],
                &long.as_bytes()[100..],
                next.as_bytes(),
            ],
            100,
        );
        assert!(matches!(lines.next_line().await.0, LineRead::Oversized));
        let (LineRead::Line(got), _) = lines.next_line().await else {
            panic!("the next line is lost");
        };
        assert_eq!(got, next.trim_end_matches('\n').as_bytes());
        assert!(matches!(
            message(decode_with(got, &calling(1), 10)),
            JsonRpcMessage::Request(_)
        ));
        // One over the limit with its line break in the same read, then EOF.
        let exactly = format!("{}\n", "z".repeat(100));
        let mut lines = reader(vec![exactly.as_bytes(), b"ok\n"], 100);
        assert!(matches!(lines.next_line().await.0, LineRead::Oversized));
        assert!(matches!(lines.next_line().await.0, LineRead::Line(l) if l == b"ok"));
        assert!(matches!(lines.next_line().await.0, LineRead::Eof));
        // A line of exactly the limit (its line break counted) is kept.
        let fits = format!("{}\n", "w".repeat(99));
        let mut lines = reader(vec![fits.as_bytes()], 100);
        assert!(matches!(lines.next_line().await.0, LineRead::Line(l) if l.len() == 99));
    }

    /// `text` as a JSON string body, with every non-ASCII character written as a `\u` escape
    /// (a surrogate pair above U+FFFF) when `ascii`.
    fn escaped(text: &str, ascii: bool) -> String {
        let json = serde_json::to_string(text).unwrap();
        let body = &json[1..json.len() - 1];
        if !ascii {
            return body.to_owned();
        }
        let mut out = String::new();
        for ch in body.chars() {
            if ch.is_ascii() {
                out.push(ch);
            } else {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
        }
        out
    }

    #[test]
    fn unescaping_random_text_gives_it_back_as_utf8() {
        let alphabet: Vec<char> =
            "ab \"\\/\u{0}\u{8}\u{c}\n\r\t\u{1f}\u{7f}é€😀\u{10FFFF}\u{FFFF}ü"
                .chars()
                .collect();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..500 {
            let len = round % 97;
            let text: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            for ascii in [false, true] {
                let mut body = escaped(&text, ascii).into_bytes();
                assert!(escapes_are_valid(&body));
                let whole = 0..body.len();
                let n = unescape_in_place(&mut body, whole);
                assert_eq!(std::str::from_utf8(&body[..n]), Ok(text.as_str()));
            }
        }
    }

    #[test]
    fn unescaping_matches_serde_json() {
        for text in [
            String::new(),
            "plain".to_owned(),
            awkward_text(2000),
            "\u{0}\u{1f}\"\\/".to_owned(),
        ] {
            let json = serde_json::to_string(&text).unwrap();
            let mut body = json.as_bytes()[1..json.len() - 1].to_vec();
            assert!(escapes_are_valid(&body));
            let len = body.len();
            let n = unescape_in_place(&mut body, 0..len);
            assert_eq!(std::str::from_utf8(&body[..n]).unwrap(), text);
        }
        let mut pair = br"a\ud83d\ude00\/\u00e9b".to_vec();
        assert!(escapes_are_valid(&pair));
        let len = pair.len();
        let n = unescape_in_place(&mut pair, 0..len);
        assert_eq!(std::str::from_utf8(&pair[..n]).unwrap(), "a😀/éb");
        for bad in [
            &br"\ud83d"[..],
            br"\ude00",
            br"\x",
            br"\u12",
            br"\ud83d\u0041",
        ] {
            assert!(!escapes_are_valid(bad), "{}", String::from_utf8_lossy(bad));
        }
    }
}
