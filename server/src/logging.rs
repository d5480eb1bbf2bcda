//! Log output: human-readable lines or one JSON object per line (`--log-format json`), on
//! stderr or in a log file (`--log-file`, what the native host starts the bridge with),
//! filtered by `RUST_LOG` (default `info`), with credential-shaped text masked and
//! control characters escaped: a field carries text others wrote (a tool's error, a server's
//! name or stderr), and a line break in it must not forge a log line, nor an escape sequence
//! reach the terminal.
//!
//! Writing a log line never fails, never blocks and never stops anything: lines go through a
//! bounded queue to one writer thread, so a stream whose reader has gone (a closed terminal,
//! `mcp-bridge | tee` after `tee` exited) loses the line, and a stream nobody reads (a full
//! pipe) stalls only that thread — once [`QUEUE_LINES`] lines wait, new ones are dropped and
//! counted, and the count is written when the stream moves again. [`finish`] gives the queued
//! lines a bounded time to be written before the process ends.
//! The log file is private (0600 on Unix) and rotated: at [`LOG_FILE_CAP`] bytes it becomes
//! `<name>.1` (the older ones move up to `<name>.<LOG_FILES_KEPT>`, the oldest is dropped).

use std::fs::File;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use std::borrow::Cow;
use std::fmt::Write as _;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::field::MakeExt as _;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;

use crate::options::LogFormat;

/// The size at which the log file is rotated.
pub(crate) const LOG_FILE_CAP: u64 = 1024 * 1024;
/// How many rotated files are kept beside the current one.
pub(crate) const LOG_FILES_KEPT: u32 = 3;

static FILE: OnceLock<Mutex<Rotating>> = OnceLock::new();

/// How many lines may wait for the writer thread before new ones are dropped.
pub(crate) const QUEUE_LINES: usize = 4096;

/// Lines dropped since the writer last wrote.
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// One writer per stream (a stalled stderr must not hold up stdout); with a log file, only the
/// first, so the file's lines keep their order.
static WRITERS: [OnceLock<SyncSender<Job>>; 2] = [OnceLock::new(), OnceLock::new()];

/// Where a line goes when there is no log file.
#[derive(Debug, Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

enum Job {
    Write(Stream, Vec<u8>),
    /// Answered once everything queued before it is written.
    Flush(SyncSender<()>),
}

/// The queue to the writer thread of `stream`, started on first use.
fn writer(stream: Stream) -> &'static SyncSender<Job> {
    let at = match stream {
        _ if FILE.get().is_some() => 0,
        Stream::Stdout => 0,
        Stream::Stderr => 1,
    };
    WRITERS[at].get_or_init(|| {
        let (sender, jobs) = sync_channel(QUEUE_LINES);
        let spawned = std::thread::Builder::new()
            .name("mcp-bridge-log".into())
            .spawn(move || write_jobs(jobs));
        // Without a thread the queue fills and every line is dropped: nothing blocks.
        drop(spawned);
        sender
    })
}

fn write_jobs(jobs: Receiver<Job>) {
    for job in jobs {
        match job {
            Job::Write(stream, bytes) => {
                let dropped = DROPPED.swap(0, Ordering::Relaxed);
                if dropped > 0 {
                    let note = format!(
                        "mcp-bridge: {dropped} log lines were dropped: the output was not read fast enough\n"
                    );
                    emit(stream, note.as_bytes());
                }
                emit(stream, &bytes);
            }
            Job::Flush(done) => {
                let _ = done.try_send(());
            }
        }
    }
}

/// Write `bytes` where they belong (may block: only the writer thread calls it).
fn emit(stream: Stream, bytes: &[u8]) {
    if let Some(file) = FILE.get() {
        lock(file).write_bytes(bytes);
        return;
    }
    match stream {
        Stream::Stdout => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(bytes);
            let _ = stdout.flush();
        }
        Stream::Stderr => {
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(bytes);
            let _ = stderr.flush();
        }
    }
}

/// Queue `bytes` for the writer; dropped (and counted) when the queue is full.
fn send(stream: Stream, bytes: Vec<u8>) {
    match writer(stream).try_send(Job::Write(stream, bytes)) {
        Ok(()) => {}
        Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
            DROPPED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Wait at most `limit` for the lines queued so far to be written: before the process ends,
/// so its last words are not lost, without letting a stalled stream hold up the exit.
pub(crate) fn finish(limit: Duration) {
    let deadline = Instant::now() + limit;
    let (done, written) = sync_channel(WRITERS.len());
    let mut asked = 0;
    for writer in WRITERS.iter().filter_map(OnceLock::get) {
        let mut job = Job::Flush(done.clone());
        loop {
            match writer.try_send(job) {
                Ok(()) => {
                    asked += 1;
                    break;
                }
                Err(TrySendError::Full(back)) if Instant::now() < deadline => {
                    job = back;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => break,
            }
        }
    }
    for _ in 0..asked {
        let left = deadline.saturating_duration_since(Instant::now());
        if written.recv_timeout(left).is_err() {
            return;
        }
    }
}

/// Install the global subscriber (once; later calls are ignored), writing to `file` when
/// given (created private, or made private), else to stderr. Err: the file cannot be opened.
pub(crate) fn init(format: LogFormat, file: Option<&Path>) -> std::io::Result<()> {
    if let Some(path) = file {
        let rotating = Rotating::open(path.to_owned(), LOG_FILE_CAP, LOG_FILES_KEPT)?;
        let _ = FILE.set(Mutex::new(rotating));
    }
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| Output)
        .fmt_fields(text_fields())
        // Colour codes only for a terminal, never in a log file or a pipe.
        .with_ansi(file.is_none() && std::io::stderr().is_terminal())
        // A line that cannot be written is lost; reporting that on stderr (which is what
        // failed) would panic in `eprintln!` and end the task that logged.
        .log_internal_errors(false)
        .with_target(false);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
    };
    Ok(())
}

/// Whether output goes to a log file (then the token is never written: see [`say`]).
pub(crate) fn to_file() -> bool {
    FILE.get().is_some()
}

/// A line for the user: on stdout, or in the log file. Never fails, never blocks.
pub(crate) fn say(line: &str) {
    send(Stream::Stdout, format!("{line}\n").into_bytes());
}

/// An error line for the user: on stderr, or in the log file. Never fails, never blocks.
pub(crate) fn complain(line: &str) {
    send(Stream::Stderr, format!("{line}\n").into_bytes());
}

fn lock(file: &Mutex<Rotating>) -> std::sync::MutexGuard<'_, Rotating> {
    file.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Where tracing writes: the log file or stderr (through the writer thread), masked; never
/// blocks, errors are swallowed.
struct Output;

impl std::io::Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = crate::redact::mask_patterns(&String::from_utf8_lossy(buf));
        send(Stream::Stderr, text.into_bytes());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An append-only file that moves aside when it reaches its cap.
struct Rotating {
    path: PathBuf,
    file: Option<File>,
    size: u64,
    cap: u64,
    keep: u32,
}

impl Rotating {
    fn open(path: PathBuf, cap: u64, keep: u32) -> std::io::Result<Rotating> {
        let file = open_private(&path)?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok(Rotating {
            path,
            file: Some(file),
            size,
            cap,
            keep,
        })
    }

    #[cfg(test)]
    fn write_line(&mut self, line: &str) {
        self.write_bytes(format!("{line}\n").as_bytes());
    }

    fn write_bytes(&mut self, bytes: &[u8]) {
        if self.size > 0 && self.size + bytes.len() as u64 > self.cap {
            self.rotate();
        }
        if let Some(file) = self.file.as_mut()
            && file.write_all(bytes).is_ok()
        {
            self.size += bytes.len() as u64;
        }
    }

    /// `name.(keep-1)` → `name.keep` … `name` → `name.1`, then a new empty `name`.
    fn rotate(&mut self) {
        self.file = None;
        let numbered = |n: u32| {
            let mut name = self.path.as_os_str().to_owned();
            name.push(format!(".{n}"));
            PathBuf::from(name)
        };
        for n in (1..self.keep).rev() {
            let _ = std::fs::rename(numbered(n), numbered(n + 1));
        }
        if self.keep > 0 {
            let _ = std::fs::rename(&self.path, numbered(1));
        } else {
            let _ = std::fs::remove_file(&self.path);
        }
        self.file = open_private(&self.path).ok();
        self.size = 0;
    }
}

/// Open `path` for appending, created with mode 0600 on Unix; an existing file that others
/// could read is made private first.
fn open_private(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
        options.mode(0o600);
        let file = options.open(path)?;
        let mode = file.metadata()?.permissions().mode() & 0o777;
        if mode != 0o600 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_rotates_at_its_cap_and_keeps_a_few() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bridge.log");
        let mut log = Rotating::open(path.clone(), 100, 2).unwrap();
        for n in 0..40 {
            log.write_line(&format!("line {n:02} ........"));
        }
        let names: Vec<String> = {
            let mut names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        assert_eq!(names, ["bridge.log", "bridge.log.1", "bridge.log.2"]);
        for name in &names {
            let size = std::fs::metadata(dir.path().join(name)).unwrap().len();
            assert!(size <= 100, "{name}: {size} bytes");
        }
        let current = std::fs::read_to_string(&path).unwrap();
        assert!(current.ends_with("line 39 ........\n"), "{current}");
        let older = std::fs::read_to_string(dir.path().join("bridge.log.1")).unwrap();
        assert!(!older.contains("line 39"), "{older}");
        // Oldest lines are gone: three files of at most 100 bytes hold 15 lines at most.
        let all: String = names
            .iter()
            .map(|name| std::fs::read_to_string(dir.path().join(name)).unwrap())
            .collect();
        assert!(!all.contains("line 00"), "{all}");
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_private_even_when_it_was_not() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bridge.log");
        std::fs::write(&path, "old\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut log = Rotating::open(path.clone(), 30, 1).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        log.write_line("a line long enough to rotate the file");
        log.write_line("and another one");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("bridge.log.1")), 0o600);
    }
}

/// Whether `c` is written escaped: C0 and C1 controls and DEL (line breaks, ESC, …), and the
/// bidirectional overrides that make a terminal show text in another order than it was written.
fn escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every control character written as an escape (`\n`, `\r`, `\t`, `\u{1b}`), so
/// that it stays on one line and never drives the terminal. JSON logs need no such step: JSON
/// strings escape them already.
pub(crate) fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if escaped(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The text format's fields: `name=value`, the message bare, each value with its control
/// characters escaped.
pub(crate) fn text_fields() -> impl for<'w> FormatFields<'w> + Send + Sync + 'static {
    tracing_subscriber::fmt::format::debug_fn(
        |writer: &mut Writer<'_>, field: &tracing::field::Field, value: &dyn std::fmt::Debug| {
            let text = format!("{value:?}");
            let text = escape_controls(&text);
            if field.name() == "message" {
                writer.write_str(&text)
            } else {
                write!(writer, "{}={text}", field.name())
            }
        },
    )
    .delimited(" ")
}

#[cfg(test)]
mod escape_tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("plain ü 中"), "plain ü 中");
        assert_eq!(
            escape_controls("a\nb\r\tc\u{1b}[2J\u{7f}\u{202e}"),
            "a\\nb\\r\\tc\\u{1b}[2J\\u{7f}\\u{202e}"
        );
    }

    /// Every kind of field (`%` Display, `?` Debug, a plain string, the message) written by the
    /// text format stays on one line without an escape byte.
    #[test]
    fn a_logged_field_cannot_forge_a_line_or_reach_the_terminal() {
        let out = Arc::new(Mutex::new(Vec::<u8>::new()));
        let sink = out.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || SharedBuffer(sink.clone()))
            .with_ansi(false)
            .fmt_fields(text_fields())
            .finish();
        let forged = "boom\n2026-01-01T00:00:00Z  INFO forged line\u{1b}[2J\r";
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(server = %forged, tool = forged, detail = ?forged, "failed: {forged}");
        });
        let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        assert!(text.ends_with('\n'));
        assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
        assert!(text.contains("server=boom\\n2026"), "{text}");
        assert!(text.contains("failed: boom\\n"), "{text}");
    }

    struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for SharedBuffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
