//! One queue per tab: a tab's events are carried out one at a time, in the order they came,
//! so no event reads the tab's state while another is between its read and its write.
//! Different tabs never wait for each other.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// The tabs with an event under way or waiting. A handful at most, so a plain list.
#[derive(Default)]
pub(super) struct TabQueues(RefCell<Vec<Lane>>);

/// One tab's queue as tickets: `serving` is the ticket whose turn it is, `next` the one the
/// next event draws. A lane with nothing under way is dropped.
struct Lane {
    tab: i32,
    next: u32,
    serving: u32,
    waiting: Vec<Waker>,
}

impl TabQueues {
    /// Waits for tab `tab`'s turn: every event that came before has been carried out. The
    /// turn lasts as long as the [`Turn`] it gives. (The worker runs every message to its end,
    /// so a waiting event is never dropped before its turn.)
    pub(super) fn enter(&self, tab: i32) -> Enter<'_> {
        let mut lanes = self.0.borrow_mut();
        let ticket = match lanes.iter_mut().find(|l| l.tab == tab) {
            Some(lane) => {
                let ticket = lane.next;
                lane.next = lane.next.wrapping_add(1);
                ticket
            }
            None => {
                lanes.push(Lane {
                    tab,
                    next: 1,
                    serving: 0,
                    waiting: Vec::new(),
                });
                0
            }
        };
        Enter {
            queues: self,
            tab,
            ticket,
        }
    }
}

/// An event waiting for its tab's turn.
pub(super) struct Enter<'a> {
    queues: &'a TabQueues,
    tab: i32,
    ticket: u32,
}

impl<'a> Future for Enter<'a> {
    type Output = Turn<'a>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Turn<'a>> {
        let mut lanes = self.queues.0.borrow_mut();
        let Some(lane) = lanes.iter_mut().find(|l| l.tab == self.tab) else {
            // Unreachable: a lane lives while a ticket of it is unserved.
            return Poll::Pending;
        };
        if lane.serving == self.ticket {
            Poll::Ready(Turn {
                queues: self.queues,
                tab: self.tab,
            })
        } else {
            lane.waiting.push(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// A tab's turn; the next event's begins when it is dropped.
pub(super) struct Turn<'a> {
    queues: &'a TabQueues,
    tab: i32,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut lanes = self.queues.0.borrow_mut();
        let Some(i) = lanes.iter().position(|l| l.tab == self.tab) else {
            return;
        };
        let lane = &mut lanes[i];
        lane.serving = lane.serving.wrapping_add(1);
        if lane.serving == lane.next {
            lanes.swap_remove(i);
            return;
        }
        let waiting = std::mem::take(&mut lane.waiting);
        drop(lanes);
        for waker in waiting {
            waker.wake();
        }
    }
}

// Native only: the executor comes from the native dev-dependencies.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use std::rc::Rc;

    /// Spawns an event of `tab` that enters its turn, notes `name`, and ends its turn when
    /// `done` is sent.
    fn event(
        pool: &LocalPool,
        queues: &Rc<TabQueues>,
        log: &Rc<RefCell<Vec<&'static str>>>,
        tab: i32,
        name: &'static str,
    ) -> futures::channel::oneshot::Sender<()> {
        let (done, finished) = futures::channel::oneshot::channel::<()>();
        let (queues, log) = (Rc::clone(queues), Rc::clone(log));
        let enter = async move {
            let _turn = queues.enter(tab).await;
            log.borrow_mut().push(name);
            let _ = finished.await;
        };
        pool.spawner().spawn_local(enter).unwrap();
        done
    }

    #[test]
    fn a_tabs_events_take_turns_in_order_and_other_tabs_do_not_wait() {
        let mut pool = LocalPool::new();
        let queues = Rc::new(TabQueues::default());
        let log = Rc::new(RefCell::new(Vec::new()));
        let first = event(&pool, &queues, &log, 1, "1a");
        let second = event(&pool, &queues, &log, 1, "1b");
        let third = event(&pool, &queues, &log, 1, "1c");
        let other = event(&pool, &queues, &log, 2, "2a");
        pool.run_until_stalled();
        assert_eq!(
            *log.borrow(),
            ["1a", "2a"],
            "1b waits for 1a; tab 2 does not"
        );
        first.send(()).unwrap();
        pool.run_until_stalled();
        assert_eq!(*log.borrow(), ["1a", "2a", "1b"]);
        second.send(()).unwrap();
        other.send(()).unwrap();
        third.send(()).unwrap();
        pool.run_until_stalled();
        assert_eq!(*log.borrow(), ["1a", "2a", "1b", "1c"]);
        assert!(
            queues.0.borrow().is_empty(),
            "no lane is kept for idle tabs"
        );
        // A tab that was idle gets its turn at once.
        let again = event(&pool, &queues, &log, 1, "1d");
        pool.run_until_stalled();
        assert_eq!(log.borrow().last(), Some(&"1d"));
        drop(again);
    }
}
