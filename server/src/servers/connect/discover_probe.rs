//! The bridge opens every connection with `server/discover`, and rmcp takes only an error in
//! answer as the sign of a server of a revision before 2026-07-28, which then gets an
//! `initialize`. Some such servers answer a method they do not know with an empty result
//! instead of an error; this transport turns any answer to `server/discover` that is no
//! `DiscoverResult` into the error such a server means, so that it gets its `initialize` too.

use rmcp::model::{
    ClientRequest, ErrorCode, ErrorData, JsonRpcError, JsonRpcMessage, JsonRpcVersion2_0,
    RequestId, ServerResult,
};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// A transport that watches the answer to the `server/discover` it carries.
pub(crate) struct DiscoverProbe<T> {
    inner: T,
    /// The id of the `server/discover` sent and not answered yet.
    asked: Option<RequestId>,
}

impl<T> DiscoverProbe<T> {
    pub(crate) fn new(inner: T) -> Self {
        DiscoverProbe { inner, asked: None }
    }

    /// `message`, or the error it stands for when it answers the `server/discover` with
    /// something other than a `DiscoverResult`.
    fn check(&mut self, message: RxJsonRpcMessage<RoleClient>) -> RxJsonRpcMessage<RoleClient> {
        let Some(asked) = &self.asked else {
            return message;
        };
        let answers = match &message {
            JsonRpcMessage::Response(response) => &response.id == asked,
            JsonRpcMessage::Error(error) => error.id.as_ref() == Some(asked),
            _ => false,
        };
        if !answers {
            return message;
        }
        let id = self.asked.take();
        match message {
            JsonRpcMessage::Response(response)
                if !matches!(response.result, ServerResult::DiscoverResult(_)) =>
            {
                JsonRpcMessage::Error(JsonRpcError {
                    jsonrpc: JsonRpcVersion2_0,
                    id,
                    error: ErrorData::new(
                        ErrorCode::METHOD_NOT_FOUND,
                        "the server answered server/discover with something other than a DiscoverResult",
                        None,
                    ),
                })
            }
            message => message,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for DiscoverProbe<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &item
            && matches!(request.request, ClientRequest::DiscoverRequest(_))
        {
            self.asked = Some(request.id.clone());
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        Some(self.check(message))
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{DiscoverResult, EmptyResult, JsonRpcResponse, ServerCapabilities};

    /// A probe whose `server/discover` went out with id `id`.
    fn probe_asked(id: i64) -> DiscoverProbe<()> {
        let mut probe = DiscoverProbe::new(());
        probe.asked = Some(RequestId::Number(id));
        probe
    }

    fn answer(id: i64, result: ServerResult) -> RxJsonRpcMessage<RoleClient> {
        JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id: RequestId::Number(id),
            result,
        })
    }

    #[test]
    fn an_answer_to_discover_that_is_no_discover_result_becomes_an_error() {
        let mut probe = probe_asked(1);
        // Another request's answer passes as it is.
        let other = probe.check(answer(2, ServerResult::EmptyResult(EmptyResult {})));
        assert!(matches!(other, JsonRpcMessage::Response(_)));
        match probe.check(answer(1, ServerResult::EmptyResult(EmptyResult {}))) {
            JsonRpcMessage::Error(error) => {
                assert_eq!(error.id, Some(RequestId::Number(1)));
                assert_eq!(error.error.code, ErrorCode::METHOD_NOT_FOUND);
            }
            other => panic!("{other:?}"),
        }
        assert!(probe.asked.is_none());
    }

    #[test]
    fn a_discover_result_passes() {
        let mut probe = probe_asked(1);
        let result = DiscoverResult::new(Vec::new(), ServerCapabilities::default());
        let passed = probe.check(answer(1, ServerResult::DiscoverResult(result)));
        assert!(matches!(
            passed,
            JsonRpcMessage::Response(JsonRpcResponse {
                result: ServerResult::DiscoverResult(_),
                ..
            })
        ));
        assert!(probe.asked.is_none());
    }
}
