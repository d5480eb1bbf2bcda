//! The tail of an MCP server's stderr: kept so that a crash or a failed start can be reported
//! with the server's own last words (usually the real traceback), with secrets masked.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt as _, AsyncRead, BufReader};

use tokio::sync::watch;

use crate::redact::redact;

/// Lines kept per server process (the issue asks for the last 50 in crash reports).
pub(crate) const TAIL_LINES: usize = 50;
/// Longer lines are cut, so one runaway line cannot eat the memory.
const MAX_LINE_BYTES: usize = 4096;

/// The last lines one server process wrote to stderr.
#[derive(Debug)]
pub(crate) struct StderrTail {
    server: String,
    secrets: Vec<String>,
    lines: Mutex<VecDeque<(u64, String)>>,
    written: AtomicU64,
    closed: watch::Sender<bool>,
}

impl StderrTail {
    pub(crate) fn new(server: &str, secrets: Vec<String>) -> Self {
        StderrTail {
            server: server.to_owned(),
            secrets,
            lines: Mutex::new(VecDeque::with_capacity(TAIL_LINES)),
            written: AtomicU64::new(0),
            closed: watch::channel(false).0,
        }
    }

    fn lines(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, String)>> {
        self.lines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Record one line (masked before it is stored or logged).
    pub(crate) fn push(&self, line: &str) {
        let line = redact(line.trim_end_matches(['\r', '\n']), &self.secrets);
        tracing::debug!(server = %self.server, stderr = %line, "MCP server stderr");
        let seq = self.written.fetch_add(1, Ordering::SeqCst);
        let mut lines = self.lines();
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back((seq, line));
    }

    /// How many lines were written so far (a mark for [`Self::since`]).
    pub(crate) fn mark(&self) -> u64 {
        self.written.load(Ordering::SeqCst)
    }

    /// The kept lines written at or after `mark`.
    pub(crate) fn since(&self, mark: u64) -> String {
        self.lines()
            .iter()
            .filter(|(seq, _)| *seq >= mark)
            .map(|(_, line)| line.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// All kept lines.
    pub(crate) fn tail(&self) -> String {
        self.since(0)
    }

    pub(crate) fn close(&self) {
        self.closed.send_replace(true);
    }

    pub(crate) fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    /// Wait until the stream ended (the process exited), at most `limit`.
    pub(crate) async fn wait_closed(&self, limit: Duration) {
        let mut receiver = self.closed.subscribe();
        let _ = tokio::time::timeout(limit, receiver.wait_for(|closed| *closed)).await;
    }

    /// Read `stream` line by line into this tail until it ends. At most [`MAX_LINE_BYTES`] of a
    /// line are kept and the rest is skipped as it arrives, so a server that writes without
    /// newlines costs no more memory than one long line.
    pub(crate) async fn collect(&self, stream: impl AsyncRead + Unpin) {
        let mut reader = BufReader::new(stream);
        let mut line: Vec<u8> = Vec::with_capacity(256);
        let mut cut = false;
        loop {
            let chunk = match reader.fill_buf().await {
                Ok([]) | Err(_) => break,
                Ok(chunk) => chunk,
            };
            let (part, ends) = match chunk.iter().position(|byte| *byte == b'\n') {
                Some(end) => (&chunk[..end], true),
                None => (chunk, false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
            cut |= part.len() > room;
            let used = part.len() + usize::from(ends);
            reader.consume(used);
            if ends {
                self.push_line(&line, cut);
                line.clear();
                cut = false;
            }
        }
        if !line.is_empty() {
            self.push_line(&line, cut);
        }
        self.close();
    }

    fn push_line(&self, line: &[u8], cut: bool) {
        let mut text = String::from_utf8_lossy(line).into_owned();
        if cut {
            text.push_str(" … (line cut)");
        }
        self.push(&text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_masked() {
        let tail = StderrTail::new("s", vec!["secret-value".to_owned()]);
        for n in 0..(TAIL_LINES + 5) {
            tail.push(&format!("line {n} secret-value\n"));
        }
        let text = tail.tail();
        assert_eq!(text.lines().count(), TAIL_LINES);
        assert!(text.starts_with("line 5 ***"));
        assert!(!text.contains("secret-value"));
    }

    #[test]
    fn since_a_mark() {
        let tail = StderrTail::new("s", vec![]);
        tail.push("before");
        let mark = tail.mark();
        tail.push("after 1");
        tail.push("after 2");
        assert_eq!(tail.since(mark), "after 1\nafter 2");
    }

    #[tokio::test]
    async fn collects_a_stream_until_it_ends() {
        let tail = StderrTail::new("s", vec![]);
        let input: &[u8] = b"one\ntwo\r\nthree";
        tail.collect(input).await;
        assert!(tail.is_closed());
        assert_eq!(tail.tail(), "one\ntwo\nthree");
        tail.wait_closed(Duration::from_millis(1)).await;
    }

    #[tokio::test]
    async fn a_line_without_end_is_cut() {
        let tail = StderrTail::new("s", vec![]);
        let mut input = vec![b'x'; MAX_LINE_BYTES * 50];
        input.extend_from_slice(b"\nnext\n");
        tail.collect(input.as_slice()).await;
        let text = tail.tail();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].len() < MAX_LINE_BYTES + 32);
        assert!(lines[0].ends_with("(line cut)"));
        assert_eq!(lines[1], "next");
    }
}
