//! The courier: hands outbox entries to SMTP beside the pass that decides them.
//!
//! A pass gives the courier every entry as soon as the store holds it durably — the outbox's
//! due entries first, then the new ones after each group commit of a drain, then what the
//! deadlines and the rest of the pass queued. The courier runs as its own task, so the first
//! forwards of a burst leave while the later mails are still being read and decided; the pass
//! applies what it reports (delete, retry, give up, report a refusal) between its own steps.
//!
//! The courier holds ids, and the mails themselves only up to [`HELD_BYTES`]: the mails a pass
//! has just written come with the entry (`Store::take_enqueued`) and go as they are; any other
//! it reads from the store when it sends it (`Outbox::to_send`), so that a pass starting a
//! large tournament does not hold every start mail at once.
//!
//! A mail the server accepted is marked sent at once: the courier hands it to its marker, which
//! marks it durably (`Store::outbox_sent`: the ledger of sent mails, one `fdatasync` for the
//! accepted mails that came back together) and only then reports it to the pass. A crash can so
//! send again only a mail whose 250 had come and whose mark had not yet been written — the mails
//! in flight at that moment — never one the server accepted while the pass was busy with other
//! things.
//!
//! What follows from a refusal is the core's verdict (`core::unreachable::verdict`): a refusal
//! of the relay itself (the connection, the login, the sender, a quota) stops the courier after
//! that one try — every mail waits, nobody is blamed — and a recipient's own refusal or deferral
//! concerns his line alone.
//!
//! Order (Fax 2.3): oldest first, and a later mail to a recipient never overtakes an earlier
//! one that is still waiting: at most one mail per recipient is in flight, a recipient whose
//! mail failed for the moment (or who has a mail waiting for its retry, [`Courier::hold`]) gets
//! nothing more this pass. Up to [`PARALLEL_SENDS`] mails are in flight at once — one until the
//! server accepted a first mail, so that a pass makes one attempt, not several, while the server
//! is away; when it cannot be reached at all, nothing more is tried this pass.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Utc};
use futures::StreamExt;
use tokio::sync::mpsc;

use super::seam::Outgoing;
use crate::core::unreachable::limits;
use crate::core::unreachable::verdict::{self, Verdict};
use crate::crash;
use crate::smtp::SendError;
use crate::store::{OutboxEntry, Store};

/// What the pass tells the courier, in order.
enum Order {
    /// Send outbox entry `id` to `recipient` (after his earlier ones); `ready`: the entry with
    /// its mail, when the pass handed it over so (else it is read from the store).
    Send {
        id: String,
        recipient: String,
        ready: Option<Box<OutboxEntry>>,
    },
    /// This recipient has a mail waiting for a later retry: nothing for him this pass.
    Hold(String),
}

/// One delivery attempt, as the courier reports it.
pub(crate) struct Attempt {
    pub entry: OutboxEntry,
    pub sent: Result<(), SendError>,
    /// For a refusal: whom it concerns (`core::unreachable::verdict`), judged once, when it came
    /// back; a full mailbox that has been full for three days is [`Verdict::Unreachable`].
    pub verdict: Option<Verdict>,
    /// For an accepted mail: whether its outbox entry was removed durably (marked sent). `false`
    /// when the store refused the mark: the pass removes it itself and reports the store's error.
    pub marked: bool,
}

/// What a courier is started with ([`Courier::start`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Terms {
    /// The pass's instant: what is due, what is too old.
    pub now: DateTime<Utc>,
    /// A mail whose deferral comes when it is older than this is given up by the pass, and the
    /// recipient's next mail may go (so the courier needs to know).
    pub max_age: chrono::Duration,
    /// The relay's sending is held (the server refused the relay itself,
    /// [`Verdict::Hold`], and the pause before the next try is not over): nothing is sent.
    pub held: bool,
    /// How many mails `[smtp] max_per_hour` and `max_per_day` let go this pass, and how many of
    /// them may be other than urgent (`core::unreachable::limits::Budget`; `None`: no limit);
    /// the operator's alerts do not count. Those sent are counted in the store.
    pub left: Option<(u32, u32)>,
}

/// The handle the pass keeps: orders in, attempts out. Dropping it stops the courier (mails in
/// flight are abandoned; they stay in the outbox and go again).
pub(crate) struct Courier {
    orders: Option<mpsc::UnboundedSender<Order>>,
    attempts: mpsc::UnboundedReceiver<Attempt>,
    task: tokio::task::JoinHandle<()>,
    /// The marker's task (marks accepted mails sent).
    marker: tokio::task::JoinHandle<()>,
    /// A fingerprint of each id handed over this pass: none is handed twice (a tournament's
    /// start mails queued again are among the outbox's entries the pass began with). Eight bytes
    /// an entry, not the id (a drain of 10,000 moves hands 20,000 ids of a hundred characters);
    /// should two ids ever share one, the second waits in the outbox for the next pass.
    handed: HashSet<u64>,
    /// The bytes of the mails handed over with their entry and not yet taken by the courier.
    held: Arc<AtomicUsize>,
    /// The pass's instant: what is due, what is too old.
    now: DateTime<Utc>,
    /// Due mails handed only after the pass's own ([`Courier::later`]): under a sending limit,
    /// what is not urgent waits behind the moves of this pass — also a move to the same player,
    /// which may so overtake his waiting start mail (the CONTRACT's order of need: moves,
    /// receipts and queries first; the move mail shows the game and the position).
    later: Vec<OutboxEntry>,
}

impl Courier {
    /// Starts a courier sending through `sender` on the `terms` of the pass. An accepted mail is
    /// marked sent in `store`.
    pub(crate) fn start<S>(sender: &S, store: Store, terms: Terms) -> Courier
    where
        S: Outgoing + Clone + Send + Sync + 'static,
    {
        let (orders, inbox) = mpsc::unbounded_channel();
        let (report, attempts) = mpsc::unbounded_channel();
        let (accepted, to_mark) = mpsc::unbounded_channel();
        let in_the_air = Arc::new(AtomicUsize::new(0));
        let counted = terms.left.is_some().then_some(terms.now);
        let marker = tokio::spawn(mark(
            (store.clone(), counted),
            (to_mark, in_the_air.clone()),
            report.clone(),
        ));
        let held = Arc::new(AtomicUsize::new(0));
        let task = tokio::spawn(work(
            sender.clone(),
            (store, held.clone(), in_the_air),
            inbox,
            report,
            accepted,
            terms,
        ));
        Courier {
            orders: Some(orders),
            attempts,
            task,
            marker,
            handed: HashSet::new(),
            held,
            now: terms.now,
            later: Vec::new(),
        }
    }

    /// Keeps `entry` to be handed with [`Courier::send_later`].
    pub(crate) fn later(&mut self, entry: OutboxEntry) {
        self.later.push(entry);
    }

    /// Hands what was kept for later ([`Courier::later`]).
    pub(crate) fn send_later(&mut self) {
        for entry in std::mem::take(&mut self.later) {
            self.send(entry);
        }
    }

    /// The instant the courier was started for.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.now
    }

    /// Hands `entry` over (once per pass; again is ignored). With its mail in `raw`, the entry
    /// goes as it is while the courier holds less than [`HELD_BYTES`] of such mails; otherwise
    /// the courier reads it from the store when its turn comes.
    pub(crate) fn send(&mut self, entry: OutboxEntry) {
        if !self.handed.insert(fingerprint(&entry.id)) {
            return;
        }
        let Some(o) = &self.orders else {
            return;
        };
        let size = entry.raw.len();
        let (id, recipient) = (entry.id.clone(), entry.recipient.clone());
        let ready =
            (size > 0 && self.held.load(Ordering::Relaxed) + size <= HELD_BYTES).then(|| {
                self.held.fetch_add(size, Ordering::Relaxed);
                Box::new(entry)
            });
        let order = Order::Send {
            id,
            recipient,
            ready,
        };
        // The courier ends only after the orders end: it is there to take it.
        let _ = o.send(order);
    }

    /// Nothing for `recipient` this pass: a mail of his waits for its retry.
    pub(crate) fn hold(&mut self, recipient: &str) {
        if let Some(o) = &self.orders {
            let _ = o.send(Order::Hold(recipient.to_string()));
        }
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
        self.marker.abort();
    }
}

/// How many mails are handed to the SMTP server at the same time, each over its own connection.
pub const PARALLEL_SENDS: usize = 4;

/// The fingerprint of an outbox entry's id: 64 bits of SipHash.
fn fingerprint(id: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(id)
}

/// The most bytes of mails the courier holds in memory (handed over with their entries); the
/// others it reads from the store when it sends them. Some hundreds of mails: a burst's groups
/// go without reading back, a start pass's 20,000 mails are not held.
const HELD_BYTES: usize = 4 << 20;

/// How long the marker waits at most for more accepted mails before it marks a batch sent.
const MARK_LINGER: std::time::Duration = std::time::Duration::from_millis(20);

/// The most accepted mails marked sent in one durable write.
const MARK_BATCH: usize = 64;

/// The marker's task: takes the accepted mails as they come back, marks each batch sent durably
/// (one `fdatasync`), then reports them to the pass. A batch is the mails accepted while the
/// one before was written, and those that come back while others are still in flight, for up
/// to [`MARK_LINGER`] after the first: in a burst one `fdatasync` for a handful of mails instead
/// of one each; a lone mail is marked at once.
/// `counted`: the pass's instant, when the mails sent are counted for `[smtp] max_per_hour` and
/// `max_per_day`.
async fn mark(
    (store, counted): (Store, Option<DateTime<Utc>>),
    (mut accepted, in_the_air): (mpsc::UnboundedReceiver<Attempt>, Arc<AtomicUsize>),
    report: mpsc::UnboundedSender<Attempt>,
) {
    let (mut mails, mut commits, mut writing) = (0usize, 0usize, std::time::Duration::ZERO);
    while let Some(first) = accepted.recv().await {
        let mut batch = vec![first];
        // A crash in between sends again only these.
        let until = tokio::time::Instant::now() + MARK_LINGER;
        while batch.len() < MARK_BATCH {
            if let Ok(a) = accepted.try_recv() {
                batch.push(a);
                continue;
            }
            // Nothing more on its way: no reason to wait.
            if in_the_air.load(Ordering::SeqCst) == 0 {
                break;
            }
            match tokio::time::timeout_at(until, accepted.recv()).await {
                Ok(Some(a)) => batch.push(a),
                Ok(None) | Err(_) => break,
            }
        }
        let ids: Vec<String> = batch.iter().map(|a| a.entry.id.clone()).collect();
        let urgent = batch
            .iter()
            .filter(|a| limits::urgent(&a.entry.kind))
            .count() as u32;
        (mails, commits) = (mails + ids.len(), commits + 1);
        let store = store.clone();
        let started = std::time::Instant::now();
        let marked = tokio::task::spawn_blocking(move || {
            crash::point(crash::BEFORE_OUTBOX_DELETE);
            store.outbox().sent(&ids)?;
            match counted {
                Some(at) => store.outbox().count_sent(at, ids.len() as u32, urgent),
                None => Ok(()),
            }
        })
        .await;
        writing += started.elapsed();
        let marked = match marked
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
        {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!("could not mark {} sent mails: {e}", batch.len());
                false
            }
        };
        for mut a in batch {
            a.marked = marked;
            if report.send(a).is_err() {
                return;
            }
        }
    }
    if mails > 0 {
        tracing::debug!(
            "marker: marked {mails} sent mails in {commits} durable writes ({} ms writing)",
            writing.as_millis()
        );
    }
}

/// Per recipient, his mails in order: the id, and the entry with its mail where it was handed
/// over so.
type Queued = (String, Option<Box<OutboxEntry>>);

/// The courier takes (sends or drops) a mail that was handed over with its entry: it is held no
/// more.
fn unhold(held: &AtomicUsize, entry: &OutboxEntry) {
    held.fetch_sub(entry.raw.len(), Ordering::Relaxed);
}

/// A recipient's line given up for this pass: the mails held with it are held no more.
fn release(held: &AtomicUsize, queue: Option<VecDeque<Queued>>) {
    for (_, ready) in queue.into_iter().flatten() {
        if let Some(e) = ready {
            unhold(held, &e);
        }
    }
}

/// The courier's lines: per recipient his mails in order, whose turn it is, and what the
/// answers of the server so far allow.
struct Lines {
    /// Per recipient, his mails in order.
    queues: HashMap<String, VecDeque<Queued>>,
    /// The recipients whose turn may come, in the order of their oldest mail.
    ready: VecDeque<String>,
    /// The recipients who get nothing more this pass.
    on_hold: HashSet<String>,
    /// The recipients with a mail in flight (at most one each).
    flying: HashSet<String>,
    /// The server accepted a mail this pass: up to [`PARALLEL_SENDS`] may be in flight, not one.
    accepted: bool,
    /// Nothing more is tried this pass: the server refused the relay itself (or is not there),
    /// or the relay's sending is held.
    stopped: bool,
    /// Where a mail handed over by its id alone is read when its turn comes.
    store: Store,
    /// The bytes of the mails handed over with their entries and not yet taken (the handle's).
    held: Arc<AtomicUsize>,
    /// The pass's instant: a mail older than `max_age` then is given up when it fails.
    now: DateTime<Utc>,
    max_age: chrono::Duration,
    /// How many more mails a sending limit lets go this pass, and how many of them may be other
    /// than urgent (`None`: no limit); an alert does not count.
    left: Option<(u32, u32)>,
}

impl Lines {
    /// No mail yet.
    fn new(store: Store, held: Arc<AtomicUsize>, terms: Terms) -> Lines {
        Lines {
            queues: HashMap::new(),
            ready: VecDeque::new(),
            on_hold: HashSet::new(),
            flying: HashSet::new(),
            accepted: false,
            stopped: terms.held,
            store,
            held,
            now: terms.now,
            max_age: terms.max_age,
            left: terms.left,
        }
    }

    /// How many mails may be in flight at once: one until the server accepted a first mail,
    /// none once stopped.
    fn width(&self) -> usize {
        match (self.stopped, self.accepted) {
            (true, _) => 0,
            (false, true) => PARALLEL_SENDS,
            (false, false) => 1,
        }
    }

    /// The next mail whose turn it is, with its mail (read from the store now, not when it was
    /// handed over: the courier holds ids alone beyond [`HELD_BYTES`], and a start pass hands it
    /// 20,000 at once); `None` while no recipient may be sent to.
    fn next(&mut self) -> Option<(OutboxEntry, Vec<u8>)> {
        loop {
            let recipient = self.ready.pop_front()?;
            if self.flying.contains(&recipient) {
                continue;
            }
            let Some((id, with_mail)) = self
                .queues
                .get_mut(&recipient)
                .and_then(VecDeque::pop_front)
            else {
                continue;
            };
            let read = match with_mail {
                Some(mut entry) => {
                    unhold(&self.held, &entry);
                    let raw = std::mem::take(&mut entry.raw);
                    Ok(Some((*entry, raw)))
                }
                None => self.store.outbox().to_send(&id),
            };
            match read {
                // The limit is reached: his mails wait for the next pass.
                Ok(Some((entry, _))) if !self.may_go(&entry.kind) => {
                    self.close(recipient);
                }
                Ok(Some(both)) => {
                    if both.0.kind != "alert"
                        && let Some((left, bulk)) = &mut self.left
                    {
                        *left -= 1;
                        *bulk = bulk.saturating_sub(1);
                    }
                    self.flying.insert(recipient);
                    return Some(both);
                }
                // Gone (sent by a pass before this one): nothing to send.
                Ok(None) => {
                    if self.queues.get(&recipient).is_some_and(|q| !q.is_empty()) {
                        self.ready.push_front(recipient);
                    }
                }
                // It stays in the outbox for the next pass; the recipient's later mails wait.
                Err(e) => {
                    tracing::warn!("cannot read outbox entry {id}: {e}");
                    self.close(recipient);
                }
            }
        }
    }

    /// Whether a mail of `kind` may go under the sending limits: an alert always, an urgent mail
    /// while any may, another while the part not kept for the urgent ones allows.
    fn may_go(&self, kind: &str) -> bool {
        match self.left {
            None => true,
            Some(_) if kind == "alert" => true,
            Some((left, _)) if limits::urgent(kind) => left > 0,
            Some((left, bulk)) => left > 0 && bulk > 0,
        }
    }

    /// Takes an order of the pass.
    fn take(&mut self, order: Order) {
        match order {
            // His mails handed over before stay in line (they are older than the one
            // waiting); later ones wait for the next pass.
            Order::Hold(r) => {
                self.on_hold.insert(r);
            }
            Order::Send {
                id,
                recipient,
                ready: with_mail,
            } => {
                if self.stopped || self.on_hold.contains(&recipient) {
                    if let Some(e) = with_mail {
                        unhold(&self.held, &e);
                    }
                    return;
                }
                let queue = self.queues.entry(recipient.clone()).or_default();
                // A recipient with a mail in flight is put back in line when it comes back.
                if queue.is_empty() && !self.flying.contains(&recipient) {
                    self.ready.push_back(recipient);
                }
                queue.push_back((id, with_mail));
            }
        }
    }

    /// An attempt came back: the recipient's next mail may go, or nothing more goes to him this
    /// pass (and a refusal of the relay itself stops the courier).
    fn came_back(&mut self, attempt: &Attempt) {
        let recipient = attempt.entry.recipient.clone();
        self.flying.remove(&recipient);
        // Only what the host took counts against its limit.
        if attempt.sent.is_err()
            && attempt.entry.kind != "alert"
            && let Some((left, bulk)) = &mut self.left
        {
            *left += 1;
            if !limits::urgent(&attempt.entry.kind) {
                *bulk += 1;
            }
        }
        let go_on = match attempt.verdict {
            None => {
                self.accepted = true;
                true
            }
            // The relay's own sending is refused (or the server is not there): one try, not one
            // per mail; the others wait for the end of the hold.
            Some(Verdict::Hold(_)) => {
                self.stopped = true;
                false
            }
            // Fax 2.2: reported; the next mail may go.
            Some(Verdict::Unreachable) => true,
            Some(Verdict::MailboxFull) => false,
            // Given up (too old): the recipient's next mail may go.
            Some(Verdict::Retry) => self.now - attempt.entry.created >= self.max_age,
        };
        if go_on && !self.stopped {
            if self.queues.get(&recipient).is_some_and(|q| !q.is_empty()) {
                self.ready.push_front(recipient);
            }
        } else {
            self.close(recipient);
        }
    }

    /// Nothing more for `recipient` this pass: the mails held in his line are held no more.
    fn close(&mut self, recipient: String) {
        release(&self.held, self.queues.remove(&recipient));
        self.on_hold.insert(recipient);
    }
}

/// The courier's task: takes the pass's orders into its [`Lines`], keeps up to their width of
/// mails in flight, and reports each attempt as it comes back — an accepted one through the
/// marker (`accepted_mails`), which marks it sent first.
async fn work<S: Outgoing>(
    sender: S,
    (store, held, in_the_air): (Store, Arc<AtomicUsize>, Arc<AtomicUsize>),
    mut orders: mpsc::UnboundedReceiver<Order>,
    report: mpsc::UnboundedSender<Attempt>,
    accepted_mails: mpsc::UnboundedSender<Attempt>,
    terms: Terms,
) {
    let mut lines = Lines::new(store, held, terms);
    let mut in_flight = futures::stream::FuturesUnordered::new();
    let mut open = true;
    loop {
        while in_flight.len() < lines.width() {
            let Some((entry, raw)) = lines.next() else {
                break;
            };
            in_the_air.fetch_add(1, Ordering::SeqCst);
            in_flight.push(attempt(&sender, entry, raw));
        }
        if !open && in_flight.is_empty() {
            return;
        }
        tokio::select! {
            order = orders.recv(), if open => match order {
                None => open = false,
                Some(order) => lines.take(order),
            },
            Some(mut attempt) = in_flight.next(), if !in_flight.is_empty() => {
                in_the_air.fetch_sub(1, Ordering::SeqCst);
                attempt.verdict = judged(&attempt, lines.now);
                lines.came_back(&attempt);
                // An accepted mail goes to the marker, which reports it once marked sent.
                let to = if attempt.sent.is_ok() {
                    crash::point(crash::AFTER_SMTP_ACCEPT);
                    &accepted_mails
                } else {
                    &report
                };
                if to.send(attempt).is_err() {
                    return;
                }
            }
        }
    }
}

/// One attempt to hand `entry` with its mail `raw` to the server.
async fn attempt<S: Outgoing>(sender: &S, entry: OutboxEntry, raw: Vec<u8>) -> Attempt {
    let sent = sender
        .send(&entry.envelope_from, &entry.recipient, &raw)
        .await;
    Attempt {
        entry,
        sent,
        verdict: None,
        marked: false,
    }
}

/// Whom the refusal of `attempt` concerns at `now` (`None` when it was accepted): the core's
/// verdict, and a mailbox full since three days or more is unreachable (Fax 2.3).
fn judged(attempt: &Attempt, now: DateTime<Utc>) -> Option<Verdict> {
    let refusal = attempt.sent.as_ref().err()?.refusal();
    Some(match verdict::judge(&refusal) {
        Verdict::MailboxFull => verdict::full_mailbox(attempt.entry.full_since.unwrap_or(now), now),
        v => v,
    })
}
