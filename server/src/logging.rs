//! Log output: human-readable lines or one JSON object per line (`--log-format json`), on
//! stderr, filtered by `RUST_LOG` (default `info`), with credential-shaped text masked.

use std::io::IsTerminal as _;

use tracing_subscriber::EnvFilter;

use crate::options::LogFormat;

/// Install the global subscriber (once; later calls are ignored).
pub(crate) fn init(format: LogFormat) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(crate::redact::MaskingStderr)
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
