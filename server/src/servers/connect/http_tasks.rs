//! The tools a remote server runs as tasks (2025-11-25's `execution.taskSupport`), read from
//! its raw `tools/list` answers: rmcp's `Tool` has no `execution`, so by the time rmcp hands a
//! message over the field is gone. This wraps the HTTP client of a streamable HTTP connection
//! (plain, signed in, or signed in by the bridge alone) and shows [`TaskTools::note`] every
//! SSE event's data before rmcp parses it, as `ChildTransport` does with every stdio line.
//!
//! A server that answers a POST with one JSON body instead of an SSE stream is parsed by rmcp's
//! reqwest client before any wrapper sees its text: such a server's task tools are not noted
//! from its listing, and become tasks once one answers a plain call with a task
//! ([`TaskTools::mark`]).

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue};
use futures::StreamExt as _;
use futures::stream::BoxStream;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use crate::servers::tasks::TaskTools;

type Events = BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

/// `inner`, with the events of its SSE streams shown to `tasks`.
#[derive(Clone)]
pub(crate) struct TaskNoting<C> {
    inner: C,
    tasks: TaskTools,
}

impl<C> TaskNoting<C> {
    pub(crate) fn new(inner: C, tasks: TaskTools) -> Self {
        TaskNoting { inner, tasks }
    }
}

/// `events`, each event's data shown to `tasks` as it passes.
fn noted(events: Events, tasks: &TaskTools) -> Events {
    let tasks = tasks.clone();
    events
        .inspect(move |event| {
            if let Ok(sse_stream::Sse {
                data: Some(data), ..
            }) = event
            {
                tasks.note(data.as_bytes());
            }
        })
        .boxed()
}

impl<C> TaskNoting<C> {
    fn response(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        match response {
            StreamableHttpPostResponse::Sse(events, session) => {
                StreamableHttpPostResponse::Sse(noted(events, &self.tasks), session)
            }
            other => other,
        }
    }
}

impl<C> StreamableHttpClient for TaskNoting<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await
            .map(|response| self.response(response))
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
            .map(|response| self.response(response))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<Events, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
            .map(|events| noted(events, &self.tasks))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<Events, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
            .map(|events| noted(events, &self.tasks))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: serde_json::Value) -> Result<sse_stream::Sse, sse_stream::Error> {
        Ok(sse_stream::Sse {
            event: Some("message".to_owned()),
            data: Some(data.to_string()),
            id: None,
            retry: None,
        })
    }

    #[tokio::test]
    async fn the_task_tools_of_a_listing_in_an_sse_stream_are_noted_and_the_events_pass() {
        let tasks = TaskTools::default();
        let events: Events = futures::stream::iter(vec![
            event(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message",
                                     "params": {"level": "info", "data": "listing"}})),
            event(serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [
                {"name": "research", "inputSchema": {}, "execution": {"taskSupport": "required"}},
                {"name": "plain", "inputSchema": {}}
            ]}})),
        ])
        .boxed();
        let passed: Vec<_> = noted(events, &tasks).collect().await;
        assert_eq!(passed.len(), 2);
        assert!(tasks.runs_as_task("research"));
        assert!(!tasks.runs_as_task("plain"));
    }
}
