//! The one masking step everything a server sends passes through: the connection's transport
//! masks the values known to be secret for that server (its configured secrets, the bridge's
//! token, the sign-in tokens the bridge holds for it) in every message it receives — the
//! handshake's answer (instructions), its lists (tool names, descriptions, schemas, prompts,
//! resources, templates), answers to `prompts/get`, `resources/read` and
//! `completion/complete`, progress, its questions (message, URL), errors, `_meta` — before the
//! bridge reads any of it. A server cannot send a known secret on a channel the bridge forgot.
//!
//! A tool's result is the exception: it is masked where it is answered
//! (`calls::masking`), with the same values and the credential shapes, and counted there,
//! without holding a large result twice here.

use std::sync::Arc;

use rmcp::model::{ErrorData, JsonRpcError, JsonRpcMessage, JsonRpcVersion2_0, ServerResult};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::auth::CredentialStore as _;

use super::spec::{ServerSpec, Transport as Kind};
use crate::oauth::SignIns;

/// The values known to be secret for one server; its sign-in tokens are read when needed,
/// since a refresh replaces them while it runs.
#[derive(Clone)]
pub(crate) struct Known {
    fixed: Arc<[String]>,
    /// The sign-ins, the server's name and URL (a remote server only).
    sign_in: Option<(Arc<SignIns>, String, String)>,
}

impl Known {
    /// `fixed`: its configured secrets and the bridge's token.
    pub(crate) fn new(spec: &ServerSpec, fixed: Arc<[String]>, sign_ins: &Arc<SignIns>) -> Self {
        let sign_in = match &spec.transport {
            Kind::StreamableHttp { url, .. } | Kind::Sse { url, .. } => {
                Some((sign_ins.clone(), spec.name.clone(), url.clone()))
            }
            Kind::Stdio { .. } => None,
        };
        Known { fixed, sign_in }
    }

    /// The configured secrets and the bridge's token.
    pub(crate) fn fixed(&self) -> &Arc<[String]> {
        &self.fixed
    }

    /// Every value known now: [`Known::fixed`] and the access and refresh tokens held for the
    /// server.
    pub(crate) async fn values(&self) -> Arc<[String]> {
        let Some((sign_ins, name, url)) = &self.sign_in else {
            return self.fixed.clone();
        };
        let Ok(Some(stored)) = sign_ins.tokens_for(name, url).load().await else {
            return self.fixed.clone();
        };
        let Some(response) = stored
            .token_response
            .and_then(|response| serde_json::to_value(response).ok())
        else {
            return self.fixed.clone();
        };
        let tokens = ["access_token", "refresh_token"]
            .iter()
            .filter_map(|field| response.get(field).and_then(|v| v.as_str()))
            .filter(|token| !token.is_empty())
            .map(str::to_owned);
        self.fixed.iter().cloned().chain(tokens).collect()
    }
}

/// A server's transport, with the known values masked in what it receives.
pub(crate) struct MaskingTransport<T> {
    inner: T,
    known: Known,
    name: String,
}

impl<T> MaskingTransport<T> {
    pub(crate) fn new(inner: T, known: Known, name: &str) -> Self {
        MaskingTransport {
            inner,
            known,
            name: name.to_owned(),
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for MaskingTransport<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let mut message = self.inner.receive().await?;
            if matches!(&message, JsonRpcMessage::Response(response)
                if matches!(response.result, ServerResult::CallToolResult(_)))
            {
                return Some(message);
            }
            let known = self.known.values().await;
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            match crate::redact::mask_known_in(&mut message, &known) {
                Ok(0) => return Some(message),
                Ok(count) => {
                    tracing::info!(server = %self.name, masked = count, "the server sent values the bridge keeps secret; masked");
                    return Some(message);
                }
                Err(err) => {
                    tracing::warn!(server = %self.name, error = %err, "the server sent values the bridge keeps secret where masking them breaks the message; dropped");
                    // An answer becomes an error, so its request does not wait for ever; a
                    // request or notification of the server's is left out.
                    let id = match message {
                        JsonRpcMessage::Response(response) => Some(response.id),
                        JsonRpcMessage::Error(error) => error.id,
                        _ => continue,
                    };
                    return Some(JsonRpcMessage::Error(JsonRpcError {
                        jsonrpc: JsonRpcVersion2_0,
                        id,
                        error: ErrorData::internal_error(
                            "the server's answer carried a value the bridge keeps secret, in a place \
                             where masking it breaks the answer",
                            None,
                        ),
                    }));
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
