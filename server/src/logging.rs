//! Log output: human-readable lines or one JSON object per line (`--log-format json`), on
//! stderr, filtered by `RUST_LOG` (default `info`), with credential-shaped text masked and
//! control characters escaped: a field carries text others wrote (a tool's error, a server's
//! name or stderr), and a line break in it must not forge a log line, nor an escape sequence
//! reach the terminal.

use std::io::IsTerminal as _;

use std::borrow::Cow;
use std::fmt::Write as _;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::field::MakeExt as _;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;

use crate::cli::LogFormat;

/// Install the global subscriber (once; later calls are ignored).
pub fn init(format: LogFormat) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(crate::redact::MaskingStderr)
        .fmt_fields(text_fields())
        // Colour codes only for a terminal, never in a log file or a pipe.
        .with_ansi(std::io::stderr().is_terminal())
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
}

/// Whether `c` is written escaped: C0 and C1 controls and DEL (line breaks, ESC, …), and the
/// bidirectional overrides that make a terminal show text in another order than it was written.
fn escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every control character written as an escape (`\n`, `\r`, `\t`, `\u{1b}`), so
/// that it stays on one line and never drives the terminal. JSON logs need no such step: JSON
/// strings escape them already.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
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
pub fn text_fields() -> impl for<'w> FormatFields<'w> + Send + Sync + 'static {
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
mod tests {
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
