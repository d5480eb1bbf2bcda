//! A 2026-07-28 server asks for what it needs in the result of a request (an
//! `InputRequiredResult`) instead of sending a request of its own: each question there is
//! asked the user the way any server's question is, `roots/list` gets the configured roots,
//! and the request is sent again carrying the answers and the server's request state.
// Roots are deprecated in newer MCP revisions, which servers still use.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    ClientRequest, ErrorCode, ErrorData, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, ListRootsResult,
};

use super::client::Shared;
use crate::calls::activity::{CallActivity, decline};

/// The most rounds of questions one request may take; a server still asking after them is
/// given up on (one that answers every retry with another round would otherwise hold the
/// call until its deadline).
pub(crate) const MAX_ROUNDS: usize = 10;

/// What the retry of a request carries: the answers by the server's keys, and the state it
/// asked to get back.
pub(crate) struct Retry {
    pub responses: Option<InputResponses>,
    pub state: Option<String>,
}

/// Answer what `asked` asks for. A question is shown through `call` (the call whose request
/// got it) and waits for the user's answer; without a call a client can see (a prompt or a
/// resource read), nobody could answer it, so it is declined. Sampling the bridge never
/// offers: a server asking for it gets an error, as it would for `sampling/createMessage`.
pub(crate) async fn answer(
    shared: &Shared,
    call: Option<&Arc<CallActivity>>,
    asked: InputRequiredResult,
) -> Result<Retry, ErrorData> {
    let requests = asked.input_requests.unwrap_or_default();
    if requests.is_empty() && asked.request_state.is_none() {
        // A retry could carry nothing the first request did not.
        return Err(ErrorData::internal_error(
            "the server asked for more input but named nothing to give it",
            None,
        ));
    }
    let responses = answer_requests(shared, call, requests).await?;
    Ok(Retry {
        responses: (!responses.is_empty()).then_some(responses),
        state: asked.request_state,
    })
}

/// Answer each of `requests` as [`answer`] says, one at a time (a call shows one question at a
/// time); the answers by the server's keys.
pub(crate) async fn answer_requests(
    shared: &Shared,
    call: Option<&Arc<CallActivity>>,
    requests: InputRequests,
) -> Result<InputResponses, ErrorData> {
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let response = match request {
            InputRequest::Elicitation(request) => {
                let answer = match call {
                    Some(call) => shared.ask_for_call(call, request.params).await,
                    None => {
                        tracing::info!(server = %shared.name(), "a question came in the result of a request no client can show it for; declined");
                        decline()
                    }
                };
                serde_json::to_value(answer)
            }
            InputRequest::ListRoots(_) => {
                serde_json::to_value(ListRootsResult::new(shared.roots().to_vec()))
            }
            InputRequest::CreateMessage(_) => {
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    "the server asked for sampling (sampling/createMessage), which MCP Bridge does not \
                     support: the AI it serves runs in a web chat, which the bridge cannot send requests to",
                    None,
                ));
            }
            _ => {
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    "the server asked for input of a kind MCP Bridge does not know",
                    None,
                ));
            }
        };
        let response =
            response.map_err(|err| ErrorData::internal_error(format!("an answer: {err}"), None))?;
        responses.insert(key, response);
    }
    Ok(responses)
}

/// Put `retry` into `request`, when it is a request a server may answer with an
/// `InputRequiredResult`; `false` for any other.
pub(crate) fn carry(request: &mut ClientRequest, retry: Retry) -> bool {
    match request {
        ClientRequest::CallToolRequest(request) => {
            request.params.input_responses = retry.responses;
            request.params.request_state = retry.state;
        }
        ClientRequest::GetPromptRequest(request) => {
            request.params.input_responses = retry.responses;
            request.params.request_state = retry.state;
        }
        ClientRequest::ReadResourceRequest(request) => {
            request.params.input_responses = retry.responses;
            request.params.request_state = retry.state;
        }
        _ => return false,
    }
    true
}

/// Before the retry of a round that asked nothing (only its request state came back: the
/// server is not done yet), a pause growing with each such round in a row — 50, 100, 200, then
/// 250 ms — so that a server working on its answer is not asked again at once.
pub(crate) async fn pause(rounds_without_questions: u32) {
    let millis = (50u64 << rounds_without_questions.min(3)).min(250);
    tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
}

/// The error for a server still asking after [`MAX_ROUNDS`].
pub(crate) fn too_many_rounds() -> ErrorData {
    ErrorData::internal_error(
        format!(
            "the server asked for more input {MAX_ROUNDS} times in a row without answering; the bridge gave up"
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::spec::ServerSpec;
    use rmcp::model::{
        CallToolRequest, CallToolRequestParams, InputRequests, ListRootsRequest, PingRequest,
    };

    fn shared() -> Shared {
        Shared::new(&ServerSpec::demo(
            std::path::Path::new("x"),
            std::path::Path::new("y"),
        ))
    }

    fn asked(requests: InputRequests, state: Option<&str>) -> InputRequiredResult {
        serde_json::from_value(serde_json::json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": state,
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn roots_are_answered_and_the_state_goes_back_as_given() {
        let mut requests = InputRequests::new();
        requests.insert(
            "roots".to_owned(),
            InputRequest::ListRoots(ListRootsRequest::default()),
        );
        let retry = answer(&shared(), None, asked(requests, Some("s-1")))
            .await
            .unwrap();
        assert_eq!(retry.state.as_deref(), Some("s-1"));
        let responses = retry.responses.unwrap();
        assert_eq!(responses["roots"], serde_json::json!({"roots": []}));
    }

    #[tokio::test]
    async fn a_result_asking_nothing_and_keeping_no_state_is_an_error() {
        let failed = answer(&shared(), None, asked(InputRequests::new(), None)).await;
        assert!(failed.is_err());
        // Only a state: a retry carries it, and no answers.
        let retry = answer(&shared(), None, asked(InputRequests::new(), Some("s")))
            .await
            .unwrap();
        assert!(retry.responses.is_none());
    }

    #[test]
    fn only_requests_that_may_be_answered_so_carry_a_retry() {
        let retry = || Retry {
            responses: None,
            state: Some("s".to_owned()),
        };
        let mut call =
            ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new("t")));
        assert!(carry(&mut call, retry()));
        let ClientRequest::CallToolRequest(call) = call else {
            unreachable!()
        };
        assert_eq!(call.params.request_state.as_deref(), Some("s"));
        let mut ping = ClientRequest::PingRequest(PingRequest::default());
        assert!(!carry(&mut ping, retry()));
    }
}
