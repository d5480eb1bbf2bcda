//! The failure counter of the original bridge: after 3 failures in a row of the same
//! `server:tool`, further calls are refused until a success, a reset or a restart — so a model
//! stuck in a retry loop is stopped.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// Failures in a row after which calls are refused.
pub(crate) const DEFAULT_LIMIT: u32 = 3;

#[derive(Debug, Default, Clone, Copy)]
struct Entry {
    failures: u32,
    refused: u32,
}

/// One row of `GET /history`.
pub(crate) use mcp_bridge_protocol::answers::Counter as CounterRow;

/// Per `server:tool` failure counts.
#[derive(Debug)]
pub(crate) struct FailureCounter {
    limit: u32,
    entries: Mutex<BTreeMap<(String, String), Entry>>,
}

impl Default for FailureCounter {
    fn default() -> Self {
        Self::new(DEFAULT_LIMIT)
    }
}

impl FailureCounter {
    pub(crate) fn new(limit: u32) -> Self {
        FailureCounter {
            limit,
            entries: Mutex::new(BTreeMap::new()),
        }
    }

    pub(crate) fn limit(&self) -> u32 {
        self.limit
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, BTreeMap<(String, String), Entry>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `Err(failures)` when the call must be refused (the refusal is counted).
    pub(crate) fn check(&self, server: &str, tool: &str) -> Result<(), u32> {
        let mut entries = self.entries();
        match entries.get_mut(&(server.to_owned(), tool.to_owned())) {
            Some(entry) if entry.failures >= self.limit => {
                entry.refused += 1;
                Err(entry.failures)
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn record_success(&self, server: &str, tool: &str) {
        if let Some(entry) = self
            .entries()
            .get_mut(&(server.to_owned(), tool.to_owned()))
        {
            entry.failures = 0;
        }
    }

    /// Count a failure; the new count comes back.
    pub(crate) fn record_failure(&self, server: &str, tool: &str) -> u32 {
        let mut entries = self.entries();
        let entry = entries
            .entry((server.to_owned(), tool.to_owned()))
            .or_default();
        entry.failures += 1;
        entry.failures
    }

    /// Clear the counters that match: `None` matches everything. Returns how many were cleared.
    pub(crate) fn reset(&self, server: Option<&str>, tool: Option<&str>) -> usize {
        let mut entries = self.entries();
        let before = entries.len();
        entries.retain(|(s, t), _| {
            !(server.is_none_or(|server| server == s) && tool.is_none_or(|tool| tool == t))
        });
        before - entries.len()
    }

    pub(crate) fn snapshot(&self) -> Vec<CounterRow> {
        self.entries()
            .iter()
            .map(|((server, tool), entry)| CounterRow {
                server: server.clone(),
                tool: tool.clone(),
                failures: entry.failures,
                refused: entry.refused,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_failures_refuse_until_success() {
        let counter = FailureCounter::default();
        for n in 1..=3 {
            assert!(counter.check("s", "t").is_ok());
            assert_eq!(counter.record_failure("s", "t"), n);
        }
        assert_eq!(counter.check("s", "t"), Err(3));
        assert_eq!(counter.check("s", "t"), Err(3));
        assert!(
            counter.check("s", "other").is_ok(),
            "other tools are not affected"
        );
        assert!(
            counter.check("other", "t").is_ok(),
            "other servers are not affected"
        );
        counter.record_success("s", "t");
        assert!(counter.check("s", "t").is_ok());
        let rows = counter.snapshot();
        assert_eq!(
            rows,
            vec![CounterRow {
                server: "s".into(),
                tool: "t".into(),
                failures: 0,
                refused: 2
            }]
        );
    }

    #[test]
    fn a_success_breaks_the_run() {
        let counter = FailureCounter::default();
        counter.record_failure("s", "t");
        counter.record_failure("s", "t");
        counter.record_success("s", "t");
        counter.record_failure("s", "t");
        assert!(counter.check("s", "t").is_ok());
    }

    #[test]
    fn reset_all_or_one() {
        let counter = FailureCounter::default();
        for tool in ["a", "b"] {
            for _ in 0..3 {
                counter.record_failure("s", tool);
            }
        }
        assert_eq!(counter.reset(Some("s"), Some("a")), 1);
        assert!(counter.check("s", "a").is_ok());
        assert!(counter.check("s", "b").is_err());
        assert_eq!(counter.reset(None, None), 1);
        assert!(counter.check("s", "b").is_ok());
        assert!(counter.snapshot().is_empty());
    }
}
