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

mod answers;
mod paging;
mod store;

use std::time::Duration;

#[cfg(test)]
pub(crate) use answers::result_json;
pub(crate) use store::ResultStore;

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
