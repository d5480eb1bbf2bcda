//! The HTTP client of a server signed in to without a person: each request carries the token
//! [`Machine`] holds (a new one got before the old expires), and a request the server refuses
//! with 401 is sent once more with a new token.

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue};
use futures::stream::BoxStream;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use super::Machine;

/// `inner` with `machine`'s tokens.
#[derive(Clone)]
pub(crate) struct MachineClient<C> {
    inner: C,
    machine: Arc<Machine>,
}

impl<C> MachineClient<C> {
    pub(crate) fn new(inner: C, machine: Arc<Machine>) -> Self {
        MachineClient { inner, machine }
    }
}

fn failed<E: std::error::Error + Send + Sync + 'static>(reason: String) -> StreamableHttpError<E> {
    StreamableHttpError::Auth(AuthError::AuthorizationFailed(reason))
}

impl<C> MachineClient<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    /// `call` with the held token; after a 401, once more with a new one.
    async fn with_token<T, F, Fut>(&self, call: F) -> Result<T, StreamableHttpError<C::Error>>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, StreamableHttpError<C::Error>>>,
    {
        let token = self.machine.token().await.map_err(failed)?;
        match call(Some(token.clone())).await {
            Err(StreamableHttpError::AuthRequired(challenge)) => {
                tracing::info!(server = %self.machine.server, "the server refused its token; getting a new one");
                let fresh = self.machine.renew(&token).await.map_err(failed)?;
                if fresh == token {
                    return Err(StreamableHttpError::AuthRequired(challenge));
                }
                call(Some(fresh)).await
            }
            other => other,
        }
    }
}

impl<C> StreamableHttpClient for MachineClient<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.with_token(|token| {
            self.inner.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.with_token(|token| {
            self.inner.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.with_token(|token| {
            self.inner.delete_session(
                uri.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
        StreamableHttpError<Self::Error>,
    > {
        self.with_token(|token| {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
        StreamableHttpError<Self::Error>,
    > {
        self.with_token(|token| {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
