//! The chat loop in the background: what happens when a tab reports a page or a message.

use crate::float::FloatState;
use crate::messages::{Response, TabRequest};

pub async fn handle(_tab: i32, req: TabRequest) -> Response {
    match req {
        TabRequest::PageReady { .. } => Response::PageSetup {
            site: None,
            problem: None,
            float: FloatState::default(),
        },
        _ => Response::Ack { recheck_ms: None },
    }
}
