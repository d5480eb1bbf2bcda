//! The store of kept results: bounded by memory (least recently read dropped first) and by a
//! time-to-live after the last read; it remembers why a dropped id is gone.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::paging::Document;
use super::{Limits, REMEMBERED_GONE};

/// Why a result id is not in the store (the word the bridge sends in `facts.reason`).
pub(crate) use mcp_bridge_protocol::errors::ResultGone as Missing;

pub(super) struct Entry {
    document: Arc<Document>,
    size: usize,
    /// Higher is more recent.
    last_used: u64,
    touched: Instant,
}

#[derive(Default)]
pub(super) struct Inner {
    entries: HashMap<String, Entry>,
    used: usize,
    clock: u64,
    gone: HashMap<String, Missing>,
    gone_order: VecDeque<String>,
}

impl Inner {
    pub(super) fn forget(&mut self, id: &str, why: Missing) {
        if let Some(entry) = self.entries.remove(id) {
            self.used -= entry.size;
            self.gone.insert(id.to_owned(), why);
            self.gone_order.push_back(id.to_owned());
            while self.gone_order.len() > REMEMBERED_GONE {
                if let Some(old) = self.gone_order.pop_front() {
                    self.gone.remove(&old);
                }
            }
        }
    }

    pub(super) fn sweep(&mut self, now: Instant, ttl: Duration) {
        let expired: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, entry)| now.saturating_duration_since(entry.touched) > ttl)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            self.forget(&id, Missing::Expired);
        }
    }
}

/// The kept large results.
pub(crate) struct ResultStore {
    pub(super) limits: Limits,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for ResultStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultStore")
            .field("limits", &self.limits)
            .field("kept", &self.len())
            .field("used", &self.used())
            .finish()
    }
}

impl ResultStore {
    pub(crate) fn new(limits: Limits) -> Self {
        ResultStore {
            limits,
            inner: Mutex::new(Inner::default()),
        }
    }

    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    pub(super) fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How many results are kept.
    pub(crate) fn len(&self) -> usize {
        self.inner().entries.len()
    }

    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the kept results take.
    pub(crate) fn used(&self) -> usize {
        self.inner().used
    }

    /// Keep `document`; its id, or `None` when it is larger than the whole store. Expired
    /// results go first, then the least recently read ones until it fits.
    pub(crate) fn insert_at(&self, document: Arc<Document>, now: Instant) -> Option<String> {
        let size = document.size();
        if size > self.limits.memory {
            return None;
        }
        let mut inner = self.inner();
        inner.sweep(now, self.limits.ttl);
        while inner.used + size > self.limits.memory {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, entry)| entry.last_used)
                .map(|(id, _)| id.clone())
            else {
                break;
            };
            inner.forget(&oldest, Missing::Evicted);
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        inner.clock += 1;
        let last_used = inner.clock;
        inner.used += size;
        inner.entries.insert(
            id.clone(),
            Entry {
                document,
                size,
                last_used,
                touched: now,
            },
        );
        Some(id)
    }

    /// The result `id`, marked as just read.
    pub(crate) fn get_at(&self, id: &str, now: Instant) -> Result<Arc<Document>, Missing> {
        let mut inner = self.inner();
        inner.sweep(now, self.limits.ttl);
        inner.clock += 1;
        let clock = inner.clock;
        if let Some(entry) = inner.entries.get_mut(id) {
            entry.last_used = clock;
            entry.touched = now;
            return Ok(entry.document.clone());
        }
        Err(inner.gone.get(id).copied().unwrap_or(Missing::Unknown))
    }

    /// Drop the results not read within the time-to-live.
    pub(crate) fn sweep_at(&self, now: Instant) {
        self.inner().sweep(now, self.limits.ttl);
    }

    /// Sweep every `period`, for ever (spawned by the server).
    pub(crate) async fn sweep_every(self: Arc<Self>, period: Duration) {
        let mut ticks = tokio::time::interval(period);
        loop {
            ticks.tick().await;
            self.sweep_at(Instant::now());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(threshold: usize, page_chars: usize, memory: usize, ttl: Duration) -> Limits {
        Limits {
            threshold,
            page_chars,
            memory,
            ttl,
        }
    }

    fn document(chars: usize) -> Arc<Document> {
        Arc::new(Document::new("x".repeat(chars), false))
    }

    #[test]
    fn the_store_keeps_within_its_cap_dropping_the_least_recently_read() {
        let size = document(10_000).size();
        let store = ResultStore::new(limits(100, 100, size * 3, Duration::from_secs(60)));
        let now = Instant::now();
        let a = store.insert_at(document(10_000), now).unwrap();
        let b = store.insert_at(document(10_000), now).unwrap();
        let c = store.insert_at(document(10_000), now).unwrap();
        assert_eq!(store.len(), 3);
        assert!(store.used() <= size * 3);
        // Reading `a` makes `b` the least recently read.
        store.get_at(&a, now).unwrap();
        let d = store.insert_at(document(10_000), now).unwrap();
        assert_eq!(store.len(), 3);
        assert!(store.used() <= size * 3);
        assert_eq!(store.get_at(&b, now).unwrap_err(), Missing::Evicted);
        for id in [&a, &c, &d] {
            assert!(store.get_at(id, now).is_ok());
        }
        assert_eq!(store.get_at("nope", now).unwrap_err(), Missing::Unknown);
        // One larger than the whole store is not kept, and drops nothing.
        assert!(store.insert_at(document(40_000), now).is_none());
        assert_eq!(store.len(), 3);
    }

    #[test]
    fn results_expire_after_their_last_read() {
        let store = ResultStore::new(limits(100, 100, 1 << 30, Duration::from_secs(60)));
        let start = Instant::now();
        let id = store.insert_at(document(1000), start).unwrap();
        let other = store.insert_at(document(1000), start).unwrap();
        // A read within the TTL keeps it for another TTL from then.
        assert!(store.get_at(&id, start + Duration::from_secs(50)).is_ok());
        assert!(store.get_at(&id, start + Duration::from_secs(100)).is_ok());
        assert_eq!(
            store
                .get_at(&other, start + Duration::from_secs(100))
                .unwrap_err(),
            Missing::Expired
        );
        store.sweep_at(start + Duration::from_secs(200));
        assert!(store.is_empty());
        assert_eq!(store.used(), 0);
        assert_eq!(
            store
                .get_at(&id, start + Duration::from_secs(201))
                .unwrap_err(),
            Missing::Expired
        );
    }
}
