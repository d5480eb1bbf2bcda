//! What a running call is doing besides waiting: the server's latest progress and the question
//! it asks the user (elicitation). `GET /calls/{id}` shows both and its long poll returns as soon
//! as either changes; `POST /calls/{id}/elicitation` answers the question.

use std::sync::{Arc, Mutex};
use std::time::Instant;

pub(crate) use mcp_bridge_protocol::answers::Progress;
use mcp_bridge_protocol::answers::{Elicitation, ElicitationMode};
use rmcp::model::{ElicitResult, ElicitationAction};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{oneshot, watch};

tokio::task_local! {
    static CURRENT: Arc<CallActivity>;
}

/// Run `work` with `activity` as the activity of the call it makes.
pub(crate) async fn scope<F: Future>(activity: Arc<CallActivity>, work: F) -> F::Output {
    CURRENT.scope(activity, work).await
}

/// The activity of the call being made in this task, if it runs in the background.
pub(crate) fn current() -> Option<Arc<CallActivity>> {
    CURRENT.try_with(Arc::clone).ok()
}

/// A question a server asks the user during a call: what the user is shown, and where the
/// answer goes.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub(crate) struct PendingQuestion {
    pub asked: Elicitation,
    #[serde(skip)]
    pending: Arc<PendingAnswer>,
}

/// Where the user's answer goes; shared by every call a question is shown on.
#[derive(Debug, Default)]
pub(crate) struct PendingAnswer(Mutex<Option<oneshot::Sender<ElicitResult>>>);

impl PendingAnswer {
    /// Deliver `answer`; `false` when the question was already answered or given up.
    pub(crate) fn answer(&self, answer: ElicitResult) -> bool {
        let sender = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        sender.is_some_and(|sender| sender.send(answer).is_ok())
    }
}

impl PendingQuestion {
    /// A question and the receiver its answer arrives on.
    pub(crate) fn new(
        server: &str,
        mode: ElicitationMode,
        message: String,
        requested_schema: Option<Value>,
        url: Option<String>,
        answer_timeout_seconds: f64,
    ) -> (Self, oneshot::Receiver<ElicitResult>) {
        let (sender, receiver) = oneshot::channel();
        let question = PendingQuestion {
            asked: Elicitation {
                id: uuid::Uuid::new_v4().simple().to_string(),
                server: server.to_owned(),
                mode,
                message,
                requested_schema,
                url,
                answer_timeout_seconds,
            },
            pending: Arc::new(PendingAnswer(Mutex::new(Some(sender)))),
        };
        (question, receiver)
    }

    pub(crate) fn pending(&self) -> &PendingAnswer {
        &self.pending
    }
}

/// What `GET /calls/{id}` shows of a running call.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Snapshot {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<PendingQuestion>,
}

/// The live state of one call.
#[derive(Debug)]
pub(crate) struct CallActivity {
    snapshot: watch::Sender<Snapshot>,
    started: Instant,
    /// Whether a client can see it: a background call's activity is shown by `GET /calls/{id}`,
    /// a blocking `POST /execute`'s by nothing, so no question may wait on it.
    visible: bool,
}

impl Default for CallActivity {
    fn default() -> Self {
        CallActivity {
            snapshot: watch::channel(Snapshot::default()).0,
            started: Instant::now(),
            visible: true,
        }
    }
}

impl CallActivity {
    /// The activity of a blocking call: its progress still resets its timeout, but nobody
    /// sees it, so a question asked during it is declined at once.
    pub(crate) fn unseen() -> Self {
        CallActivity {
            visible: false,
            ..CallActivity::default()
        }
    }

    /// Whether a client can see this call's progress and question.
    pub(crate) fn visible(&self) -> bool {
        self.visible
    }

    pub(crate) fn snapshot(&self) -> Snapshot {
        self.snapshot.borrow().clone()
    }

    /// Seconds since the call started.
    pub(crate) fn elapsed_seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// A receiver that sees every change.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Snapshot> {
        self.snapshot.subscribe()
    }

    /// Record a progress notification.
    pub(crate) fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.snapshot.send_modify(|snapshot| {
            let updates = snapshot.progress.as_ref().map_or(0, |p| p.updates) + 1;
            snapshot.progress = Some(Progress {
                progress,
                total,
                message,
                updates,
            });
        });
    }

    /// Show `question` on this call.
    pub(crate) fn ask(&self, question: PendingQuestion) {
        self.snapshot
            .send_modify(|snapshot| snapshot.elicitation = Some(question));
    }

    /// Take question `id` off this call (answered, or given up).
    pub(crate) fn settle(&self, id: &str) {
        self.snapshot.send_if_modified(|snapshot| {
            if snapshot
                .elicitation
                .as_ref()
                .is_some_and(|q| q.asked.id == id)
            {
                snapshot.elicitation = None;
                return true;
            }
            false
        });
    }
}

/// The answer that declines a question (no answer in time, or no one to ask).
pub(crate) fn decline() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Decline)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a question is waiting for the user.
    fn asking(activity: &CallActivity) -> bool {
        activity.snapshot.borrow().elicitation.is_some()
    }

    #[test]
    fn progress_counts_updates_and_keeps_the_latest() {
        let activity = CallActivity::default();
        activity.progress(1.0, Some(5.0), Some("one".into()));
        activity.progress(2.0, Some(5.0), None);
        let progress = activity.snapshot().progress.unwrap();
        assert_eq!((progress.progress, progress.updates), (2.0, 2));
        assert_eq!(progress.message, None);
    }

    #[tokio::test]
    async fn a_question_is_answered_once() {
        let activity = CallActivity::default();
        let (question, receiver) =
            PendingQuestion::new("s", ElicitationMode::Form, "Name?".into(), None, None, 60.0);
        let id = question.asked.id.clone();
        activity.ask(question.clone());
        assert!(asking(&activity));
        assert!(question.pending().answer(decline()));
        assert!(!question.pending().answer(decline()));
        assert_eq!(receiver.await.unwrap().action, ElicitationAction::Decline);
        activity.settle("other");
        assert!(asking(&activity));
        activity.settle(&id);
        assert!(!asking(&activity));
    }
}
