//! Trace ids: every request gets one, carried in the `X-Trace-Id` header, in every error body
//! and in the log lines of that request, so a report in the chat can be found in the log. The
//! same middleware logs each answered request: at `debug` when it succeeded, at `info` when not
//! (a refusal, an error), so that a busy bridge does not format and write a line per call.

use std::future::Future;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

/// The response header that carries the trace id.
pub(crate) const HEADER: &str = "x-trace-id";

tokio::task_local! {
    static TRACE_ID: String;
}

/// The trace id of one request, also available as a request extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TraceId(pub String);

/// A new trace id: 16 hex digits, unique in this process and unlike another run's. Ids name
/// log lines, they guard nothing: a counter scrambled under a key drawn once at start-up
/// spares a call to the OS random source on every request.
pub(crate) fn new_id() -> String {
    static KEY: OnceLock<u64> = OnceLock::new();
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let key = *KEY.get_or_init(|| {
        let mut bytes = [0u8; 8];
        // Without the OS source the ids stay unique in this process, which is what they need.
        let _ = getrandom::fill(&mut bytes);
        u64::from_le_bytes(bytes)
    });
    format!("{:016x}", mix(NEXT.fetch_add(1, Ordering::Relaxed) ^ key))
}

/// splitmix64's finalizer: a bijection on `u64`, so distinct counters give distinct ids.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The trace id of the request being handled, if any.
pub(crate) fn current() -> Option<String> {
    TRACE_ID.try_with(Clone::clone).ok()
}

/// Run `future` with `id` as the current trace id (for work spawned off a request).
pub(crate) fn scope<F: Future>(id: String, future: F) -> impl Future<Output = F::Output> {
    TRACE_ID.scope(id, future)
}

/// Middleware: assign the trace id, make it current for the handler, echo it in the header,
/// and log the answer (see the module's comment).
pub(crate) async fn assign(mut request: Request, next: Next) -> Response {
    let id = new_id();
    let started = Instant::now();
    let method = request.method().clone();
    let uri = request.uri().clone();
    request.extensions_mut().insert(TraceId(id.clone()));
    let mut response = scope(id.clone(), next.run(request)).await;
    let status = response.status();
    let level_info = !status.is_success() && !status.is_informational();
    if level_info || tracing::enabled!(tracing::Level::DEBUG) {
        let latency_us = started.elapsed().as_micros() as u64;
        let status = status.as_u16();
        let path = uri.path();
        if level_info {
            tracing::info!(trace_id = %id, %method, path, status, latency_us, "request answered");
        } else {
            tracing::debug!(trace_id = %id, %method, path, status, latency_us, "request answered");
        }
    }
    // An error rendered for a long-poll call keeps the trace id of the call it belongs to.
    if !response.headers().contains_key(HEADER)
        && let Ok(value) = HeaderValue::from_str(&id)
    {
        response.headers_mut().insert(HEADER, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_hex_and_unique() {
        let a = new_id();
        assert_eq!(a.len(), 16);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, new_id());
    }

    #[test]
    fn ids_do_not_repeat_over_many_requests() {
        let ids: std::collections::HashSet<String> = (0..100_000).map(|_| new_id()).collect();
        assert_eq!(ids.len(), 100_000);
    }

    #[tokio::test]
    async fn scope_sets_current() {
        assert_eq!(current(), None);
        let seen = scope("abc".to_owned(), async { current() }).await;
        assert_eq!(seen.as_deref(), Some("abc"));
    }
}
