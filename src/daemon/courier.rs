//! The courier: hands outbox entries to SMTP beside the pass that decides them.
//!
//! A pass gives the courier every entry as soon as the store holds it durably — the outbox's
//! due entries first, then the new ones after each group commit of a drain, then what the
//! deadlines and the rest of the pass queued. The courier runs as its own task, so the first
//! forwards of a burst leave while the later mails are still being read and decided; the pass
//! applies what it reports (delete, retry, give up, report a refusal) between its own steps.
//!
//! Order (Fax 2.3): oldest first, and a later mail to a recipient never overtakes an earlier
//! one that is still waiting: at most one mail per recipient is in flight, a recipient whose
//! mail failed for the moment (or who has a mail waiting for its retry, [`Courier::hold`]) gets
//! nothing more this pass. Up to [`PARALLEL_SENDS`] mails are in flight at once — one until the
//! server accepted a first mail, so that a pass makes one attempt, not several, while the server
//! is away; when it cannot be reached at all, nothing more is tried this pass.

use std::collections::{HashMap, HashSet, VecDeque};

use chrono::{DateTime, Utc};
use futures::StreamExt;
use tokio::sync::mpsc;

use super::{Outgoing, PARALLEL_SENDS};
use crate::smtp::SendError;
use crate::store::OutboxEntry;

/// What the pass tells the courier, in order.
enum Order {
    /// Send this entry (after the recipient's earlier ones).
    Send(Box<OutboxEntry>),
    /// This recipient has a mail waiting for a later retry: nothing for him this pass.
    Hold(String),
}

/// One delivery attempt, as the courier reports it.
pub(crate) struct Attempt {
    pub entry: OutboxEntry,
    pub sent: Result<(), SendError>,
}

/// The handle the pass keeps: orders in, attempts out. Dropping it stops the courier (mails in
/// flight are abandoned; they stay in the outbox and go again).
pub(crate) struct Courier {
    orders: Option<mpsc::UnboundedSender<Order>>,
    attempts: mpsc::UnboundedReceiver<Attempt>,
    task: tokio::task::JoinHandle<()>,
    /// Ids handed over this pass: none is handed twice.
    handed: HashSet<String>,
    /// The pass's instant: what is due, what is too old.
    now: DateTime<Utc>,
}

impl Courier {
    /// Starts a courier sending through `sender`. A mail whose temporary failure comes when it is
    /// older than `max_age` at `now` is given up by the pass, and the recipient's next mail may
    /// go (so the courier needs to know).
    pub(crate) fn start<S>(sender: &S, now: DateTime<Utc>, max_age: chrono::Duration) -> Courier
    where
        S: Outgoing + Clone + Send + Sync + 'static,
    {
        let (orders, inbox) = mpsc::unbounded_channel();
        let (report, attempts) = mpsc::unbounded_channel();
        let task = tokio::spawn(work(sender.clone(), inbox, report, now, max_age));
        Courier {
            orders: Some(orders),
            attempts,
            task,
            handed: HashSet::new(),
            now,
        }
    }

    /// The instant the courier was started for.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.now
    }

    /// Hands `entry` over (once per pass; again is ignored).
    pub(crate) fn send(&mut self, entry: OutboxEntry) {
        if !self.handed.insert(entry.id.clone()) {
            return;
        }
        if let Some(o) = &self.orders {
            // The courier ends only after the orders end: it is there to take it.
            let _ = o.send(Order::Send(Box::new(entry)));
        }
    }

    /// Nothing for `recipient` this pass: a mail of his waits for its retry.
    pub(crate) fn hold(&mut self, recipient: &str) {
        if let Some(o) = &self.orders {
            let _ = o.send(Order::Hold(recipient.to_string()));
        }
    }

    /// Whether `id` was handed over this pass.
    pub(crate) fn handed(&self, id: &str) -> bool {
        self.handed.contains(id)
    }

    /// The attempts finished so far, without waiting.
    pub(crate) fn finished(&mut self) -> Vec<Attempt> {
        let mut done = Vec::new();
        while let Ok(a) = self.attempts.try_recv() {
            done.push(a);
        }
        done
    }

    /// Waits for the next finished attempt; `None` once every order is done (after
    /// [`Courier::close`]).
    pub(crate) async fn next(&mut self) -> Option<Attempt> {
        self.attempts.recv().await
    }

    /// No more orders: the courier finishes what it has and ends.
    pub(crate) fn close(&mut self) {
        self.orders = None;
    }
}

impl Drop for Courier {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The courier's task.
async fn work<S: Outgoing>(
    sender: S,
    mut orders: mpsc::UnboundedReceiver<Order>,
    report: mpsc::UnboundedSender<Attempt>,
    now: DateTime<Utc>,
    max_age: chrono::Duration,
) {
    // Per recipient, his mails in order; the recipients in the order of their oldest mail.
    let mut queues: HashMap<String, VecDeque<OutboxEntry>> = HashMap::new();
    let mut ready: VecDeque<String> = VecDeque::new();
    let mut held: HashSet<String> = HashSet::new();
    // The recipients with a mail in flight (at most one each).
    let mut flying: HashSet<String> = HashSet::new();
    let mut in_flight = futures::stream::FuturesUnordered::new();
    let mut open = true;
    let mut accepted = false;
    let mut stopped = false;
    loop {
        let width = if accepted { PARALLEL_SENDS } else { 1 };
        while !stopped && in_flight.len() < width {
            let Some(recipient) = ready.pop_front() else {
                break;
            };
            if flying.contains(&recipient) {
                continue;
            }
            let Some(entry) = queues.get_mut(&recipient).and_then(VecDeque::pop_front) else {
                continue;
            };
            flying.insert(recipient);
            let sender = &sender;
            in_flight.push(async move {
                let sent = sender
                    .send(&entry.envelope_from, &entry.recipient, &entry.raw)
                    .await;
                Attempt { entry, sent }
            });
        }
        if !open && in_flight.is_empty() {
            return;
        }
        tokio::select! {
            order = orders.recv(), if open => match order {
                None => open = false,
                // His mails handed over before stay in line (they are older than the one
                // waiting); later ones wait for the next pass.
                Some(Order::Hold(r)) => {
                    held.insert(r);
                }
                Some(Order::Send(entry)) => {
                    if stopped || held.contains(&entry.recipient) {
                        continue;
                    }
                    let queue = queues.entry(entry.recipient.clone()).or_default();
                    // A recipient with a mail in flight is put back in line when it comes back.
                    if queue.is_empty() && !flying.contains(&entry.recipient) {
                        ready.push_back(entry.recipient.clone());
                    }
                    queue.push_back(*entry);
                }
            },
            Some(attempt) = in_flight.next(), if !in_flight.is_empty() => {
                let recipient = attempt.entry.recipient.clone();
                flying.remove(&recipient);
                let go_on = match &attempt.sent {
                    Ok(()) => {
                        accepted = true;
                        true
                    }
                    // The relay stops: nothing more is tried.
                    Err(e) if e.needs_operator() => {
                        stopped = true;
                        false
                    }
                    // Fax 2.2: refused for good, reported; the next mail may go.
                    Err(e) if e.is_permanent() => true,
                    Err(e) => {
                        if e.code().is_none() {
                            // The server itself is not there: the others wait for the next pass.
                            stopped = true;
                        }
                        // Given up (too old): the recipient's next mail may go.
                        now - attempt.entry.created >= max_age
                    }
                };
                if go_on && !stopped {
                    if queues.get(&recipient).is_some_and(|q| !q.is_empty()) {
                        ready.push_front(recipient);
                    }
                } else {
                    queues.remove(&recipient);
                    held.insert(recipient);
                }
                if report.send(attempt).is_err() {
                    return;
                }
            }
        }
    }
}
