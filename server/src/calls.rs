//! Long-polling: browsers kill an extension worker whose fetch takes more than ~30 s, so a call
//! can run in the background — `POST /execute` with `wait` answers `202 {pending, call_id}`,
//! `GET /calls/{id}?wait=S` fetches the result, `DELETE /calls/{id}` cancels.

pub(crate) mod activity;
pub(crate) mod counter;
pub(crate) mod masking;
pub(crate) mod results;
pub(crate) mod schema;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::AbortHandle;
use tokio::time::Instant;

/// How long a finished call's result stays available to `GET /calls/{id}`.
pub(crate) const RETAIN_FINISHED: Duration = Duration::from_secs(600);

/// The final answer of a call, rendered exactly as `/execute` would have answered.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FinalAnswer {
    pub(crate) status: StatusCode,
    pub(crate) body: Value,
    pub(crate) trace_id: String,
}

impl IntoResponse for FinalAnswer {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body)).into_response();
        if let Ok(value) = HeaderValue::from_str(&self.trace_id) {
            response.headers_mut().insert(crate::trace::HEADER, value);
        }
        response
    }
}

/// One call running (or finished) in the background.
#[derive(Debug)]
pub(crate) struct PendingCall {
    pub(crate) id: String,
    pub(crate) server: Option<String>,
    pub(crate) tool: String,
    pub(crate) trace_id: String,
    outcome: watch::Sender<Option<FinalAnswer>>,
    /// Its progress and the question it asks the user, while it runs.
    pub activity: Arc<activity::CallActivity>,
    task: Mutex<Option<AbortHandle>>,
    finished_at: Mutex<Option<Instant>>,
}

impl PendingCall {
    /// Set the outcome unless there already is one; whether it was set.
    fn finish(&self, outcome: FinalAnswer) -> bool {
        let set = self.outcome.send_if_modified(|slot| {
            if slot.is_some() {
                return false;
            }
            *slot = Some(outcome);
            true
        });
        if set {
            *self
                .finished_at
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Instant::now());
        }
        set
    }

    pub(crate) fn outcome(&self) -> Option<FinalAnswer> {
        self.outcome.borrow().clone()
    }

    /// Whether the call has ended (without copying its outcome).
    pub(crate) fn finished(&self) -> bool {
        self.outcome.borrow().is_some()
    }

    /// Wait up to `wait` for the outcome.
    #[cfg(test)]
    pub(crate) async fn wait(&self, wait: Duration) -> Option<FinalAnswer> {
        let mut receiver = self.outcome.subscribe();
        match tokio::time::timeout(wait, receiver.wait_for(Option::is_some)).await {
            Ok(Ok(outcome)) => outcome.clone(),
            _ => self.outcome(),
        }
    }

    /// Wait up to `wait` for the outcome, returning early (with `None`) when the call's
    /// progress or question changes — or at once when a question waits that the client has not
    /// seen: `seen` is the id of the question it already shows (a question asked between two
    /// polls would otherwise wait for the next change).
    pub(crate) async fn wait_or_activity(
        &self,
        wait: Duration,
        seen: Option<&str>,
    ) -> Option<FinalAnswer> {
        let mut receiver = self.outcome.subscribe();
        let mut activity = self.activity.subscribe();
        let unseen = activity
            .borrow_and_update()
            .elicitation
            .as_ref()
            .is_some_and(|q| Some(q.asked.id.as_str()) != seen);
        if unseen {
            return self.outcome();
        }
        let finished = receiver.wait_for(Option::is_some);
        let _ = tokio::time::timeout(wait, async {
            tokio::select! {
                _ = finished => {}
                _ = activity.changed() => {}
            }
        })
        .await;
        self.outcome()
    }

    fn expired(&self, now: Instant) -> bool {
        self.finished_at
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .is_some_and(|at| now.duration_since(at) > RETAIN_FINISHED)
    }
}

/// The calls started with `wait`.
#[derive(Debug, Default)]
pub(crate) struct CallRegistry {
    calls: Mutex<HashMap<String, Arc<PendingCall>>>,
}

impl CallRegistry {
    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<PendingCall>>> {
        self.calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Run `work` in the background under `trace_id`.
    pub(crate) fn spawn<F>(
        &self,
        server: Option<String>,
        tool: String,
        trace_id: String,
        work: F,
    ) -> Arc<PendingCall>
    where
        F: Future<Output = FinalAnswer> + Send + 'static,
    {
        let call = Arc::new(PendingCall {
            id: uuid::Uuid::new_v4().simple().to_string(),
            server,
            tool,
            trace_id: trace_id.clone(),
            outcome: watch::channel(None).0,
            activity: Arc::default(),
            task: Mutex::new(None),
            finished_at: Mutex::new(None),
        });
        {
            let mut calls = self.calls();
            let now = Instant::now();
            calls.retain(|_, call| !call.expired(now));
            calls.insert(call.id.clone(), call.clone());
        }
        let runner = call.clone();
        let activity = call.activity.clone();
        let handle = tokio::spawn(crate::trace::scope(trace_id, async move {
            let outcome = activity::scope(activity, work).await;
            runner.finish(outcome);
        }));
        *call
            .task
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(handle.abort_handle());
        call
    }

    /// The call `id`, unless it finished more than [`RETAIN_FINISHED`] ago.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<PendingCall>> {
        self.calls()
            .get(id)
            .filter(|call| !call.expired(Instant::now()))
            .cloned()
    }

    /// Drop a call whose result was delivered directly.
    pub(crate) fn forget(&self, id: &str) {
        self.calls().remove(id);
    }

    /// Cancel a running call: its task is dropped, which cancels the MCP request. Returns
    /// whether it was still running (`false`: it had already finished), `None` if unknown.
    pub(crate) fn cancel(
        &self,
        id: &str,
        cancelled: impl FnOnce(&PendingCall) -> FinalAnswer,
    ) -> Option<bool> {
        let call = self.get(id)?;
        let outcome = cancelled(&call);
        let was_running = call.finish(outcome);
        // Its question goes with it: the server hears the user cancelled, nobody answers later.
        if let Some(question) = call.activity.snapshot().elicitation {
            let cancel = rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Cancel);
            question.pending().answer(cancel);
            call.activity.settle(&question.asked.id);
        }
        if was_running
            && let Some(task) = call
                .task
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take()
        {
            task.abort();
        }
        Some(was_running)
    }

    /// How many calls are still running.
    #[cfg(test)]
    fn running(&self) -> usize {
        self.calls()
            .values()
            .filter(|call| call.outcome().is_none())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(body: Value) -> FinalAnswer {
        FinalAnswer {
            status: StatusCode::OK,
            body,
            trace_id: "t".into(),
        }
    }

    #[tokio::test]
    async fn finished_calls_are_kept() {
        let registry = CallRegistry::default();
        let call = registry.spawn(None, "echo".into(), "t".into(), async { outcome(json!(1)) });
        let got = call.wait(Duration::from_secs(10)).await.unwrap();
        assert_eq!(got.body, json!(1));
        assert_eq!(
            registry.get(&call.id).unwrap().outcome().unwrap().body,
            json!(1)
        );
        assert_eq!(
            registry.cancel(&call.id, |_| outcome(json!("x"))),
            Some(false)
        );
        assert_eq!(
            registry.get(&call.id).unwrap().outcome().unwrap().body,
            json!(1)
        );
        registry.forget(&call.id);
        assert!(registry.get(&call.id).is_none());
    }

    #[tokio::test]
    async fn pending_then_cancelled() {
        let registry = CallRegistry::default();
        let call = registry.spawn(None, "slow".into(), "t".into(), async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            outcome(json!("late"))
        });
        assert!(call.wait(Duration::from_millis(10)).await.is_none());
        assert_eq!(registry.running(), 1);
        assert_eq!(
            registry.cancel(&call.id, |_| outcome(json!("cancelled"))),
            Some(true)
        );
        assert_eq!(call.outcome().unwrap().body, json!("cancelled"));
        assert_eq!(registry.running(), 0);
        assert_eq!(registry.cancel("nope", |_| outcome(json!(0))), None);
    }
}
