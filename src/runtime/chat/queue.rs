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
