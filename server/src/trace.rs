//! Trace ids: every request gets one, carried in the `X-Trace-Id` header, in every error body
//! and in the log lines of that request, so a report in the chat can be found in the log.

use std::future::Future;

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

/// A new trace id: 16 hex digits.
pub(crate) fn new_id() -> String {
    let mut id = uuid::Uuid::new_v4().simple().to_string();
    id.truncate(16);
    id
}

/// The trace id of the request being handled, if any.
pub(crate) fn current() -> Option<String> {
    TRACE_ID.try_with(Clone::clone).ok()
}

/// Run `future` with `id` as the current trace id (for work spawned off a request).
pub(crate) fn scope<F: Future>(id: String, future: F) -> impl Future<Output = F::Output> {
    TRACE_ID.scope(id, future)
}

/// Middleware: assign the trace id, make it current for the handler, echo it in the header.
pub(crate) async fn assign(mut request: Request, next: Next) -> Response {
    let id = new_id();
    request.extensions_mut().insert(TraceId(id.clone()));
    let mut response = scope(id.clone(), next.run(request)).await;
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

    #[tokio::test]
    async fn scope_sets_current() {
        assert_eq!(current(), None);
        let seen = scope("abc".to_owned(), async { current() }).await;
        assert_eq!(seen.as_deref(), Some("abc"));
    }
}
