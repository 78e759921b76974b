//! The store's tests.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use redb::ReadableDatabase;
use serde::Serialize;

use super::db::sync_path;
use super::schema::{self, ARCHIVE_NEXT_KEY, SCHEMA_KEY, table, uid_key};
use super::*;
use chrono::TimeZone;

/// A fresh directory under the system temp dir, removed on drop.
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    pub(super) fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let p = std::env::temp_dir().join(format!(
            "fernzug-store-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn t(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, h, m, 0).unwrap()
}

fn outbox(id: &str, created: DateTime<Utc>, next: DateTime<Utc>) -> OutboxEntry {
    OutboxEntry {
        id: OutboxEntry::make_id(id, "a@x.test"),
        message_id: id.to_string(),
        envelope_from: "relay@x.test".to_string(),
        recipient: "a@x.test".to_string(),
        raw: format!("Message-ID: {id}\r\n\r\nbody\r\n").into_bytes(),
        kind: "move".to_string(),
        game: Some("T-1/1".to_string()),
        created,
        attempts: 0,
        next_attempt: next,
        last_error: None,
        seq: 0,
        full_since: None,
    }
}

fn archive(games: &[&str], mid: &str) -> ArchiveEntry {
    ArchiveEntry {
        direction: Direction::In,
        at: t(10, 0),
        games: games.iter().map(|g| g.to_string()).collect(),
        message_id: mid.to_string(),
        raw: b"raw \xff bytes".to_vec(),
    }
}

/// Serializing this always fails.
struct Unserializable;

impl Serialize for Unserializable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("refuses to serialize"))
    }
}

#[test]
fn new_db_gets_schema_version_and_reopen_keeps_everything() {
    let dir = TempDir::new("reopen");
    {
        let s = Store::open(&dir.0).unwrap();
        assert_eq!(
            s.db.get::<u32>(Tree::Meta, SCHEMA_KEY).unwrap(),
            Some(SCHEMA_VERSION)
        );
        let mut b = Batch::new();
        b.put(Tree::ByGame, "T-1/1", &"game one")
            .append_event("T-1/1", 1, &"e1")
            .processed("<a@x>", t(9, 0))
            .uid_done(7, 42)
            .enqueue(&outbox("<m1@x>", t(9, 0), t(9, 0)))
            .archive(&archive(&["T-1/1"], "<a@x>"));
        s.commit(b).unwrap();
    }
    let s = open_again(&dir.0).unwrap();
    assert_eq!(
        s.db.get::<String>(Tree::ByGame, "T-1/1")
            .unwrap()
            .as_deref(),
        Some("game one")
    );
    assert_eq!(
        s.events::<String>("T-1/1").unwrap(),
        vec![(1, "e1".to_string())]
    );
    assert!(s.is_processed("<a@x>").unwrap());
    assert!(!s.is_processed("<b@x>").unwrap());
    assert!(s.is_uid_done(7, 42).unwrap());
    assert!(!s.is_uid_done(8, 42).unwrap());
    assert!(!s.is_uid_done(7, 43).unwrap());
    assert_eq!(s.outbox().all().unwrap().len(), 1);
    assert_eq!(
        s.archive().for_game("T-1/1").unwrap(),
        vec![archive(&["T-1/1"], "<a@x>")]
    );
}

#[test]
fn schema_mismatch_is_refused() {
    let dir = TempDir::new("schema");
    {
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.put(Tree::Meta, SCHEMA_KEY, &(SCHEMA_VERSION + 1));
        s.commit(b).unwrap();
    }
    let err = reopen_refused(&dir.0);
    match &err {
        StoreError::Schema {
            found,
            expected,
            path,
        } => {
            assert_eq!(*found, SCHEMA_VERSION + 1);
            assert_eq!(*expected, SCHEMA_VERSION);
            assert_eq!(path, &dir.0);
        }
        other => panic!("expected a schema error, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains(&dir.0.display().to_string()), "{msg}");
    let found = format!("schema version {}", SCHEMA_VERSION + 1);
    assert!(msg.contains(&found), "{msg}");
}

#[test]
fn data_without_schema_is_refused() {
    let dir = TempDir::new("noschema");
    {
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.put(Tree::ByGame, "g", &1).delete(Tree::Meta, SCHEMA_KEY);
        s.commit(b).unwrap();
    }
    assert!(matches!(
        reopen_refused(&dir.0),
        StoreError::NoSchema { .. }
    ));
}

/// Opens the store in `dir` again, waiting while another handle still holds the file lock.
fn open_again(dir: &std::path::Path) -> Result<Store, StoreError> {
    let started = std::time::Instant::now();
    loop {
        match Store::open(dir) {
            Err(e) if e.is_locked() && started.elapsed().as_secs() < 10 => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            opened => break opened,
        }
    }
}

/// Opens a store that must be refused ([`open_again`]).
fn reopen_refused(dir: &std::path::Path) -> StoreError {
    match open_again(dir) {
        Err(e) => e,
        Ok(_) => panic!("the store was opened"),
    }
}

#[test]
fn commit_with_failing_serialize_writes_nothing() {
    let dir = TempDir::new("atomic-ser");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    b.put(Tree::ByGame, "g1", &"one")
        .processed("<x@y>", t(1, 0))
        .put(Tree::ByGame, "g2", &Unserializable)
        .put(Tree::ByGame, "g3", &"three");
    let err = s.commit(b).unwrap_err();
    assert!(
        matches!(
            err,
            StoreError::Serialize {
                tree: Tree::ByGame,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("by_game/g2"), "{err}");
    assert!(s.db.scan::<String>(Tree::ByGame).unwrap().is_empty());
    assert!(!s.is_processed("<x@y>").unwrap());
}

#[test]
fn commit_aborted_midway_writes_nothing() {
    let dir = TempDir::new("atomic-abort");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    b.put(Tree::ByGame, "g1", &"one")
        .enqueue(&outbox("<m@x>", t(1, 0), t(1, 0)))
        .archive(&archive(&["T-1/1"], "<a@x>"))
        .uid_done(1, 1)
        .fail_here()
        .put(Tree::ByGame, "g2", &"two");
    let err = s.commit(b).unwrap_err();
    assert!(matches!(err, StoreError::Aborted { .. }), "{err:?}");
    assert!(s.db.scan::<String>(Tree::ByGame).unwrap().is_empty());
    assert!(s.outbox().all().unwrap().is_empty());
    assert!(s.archive().for_game("T-1/1").unwrap().is_empty());
    assert!(!s.is_uid_done(1, 1).unwrap());
    assert_eq!(
        s.db.get::<String>(Tree::Meta, ARCHIVE_NEXT_KEY).unwrap(),
        None
    );
    // The archive counter did not move: the next archive gets id 0.
    let mut b = Batch::new();
    b.archive(&archive(&["T-1/1"], "<a@x>"));
    s.commit(b).unwrap();
    assert!(
        s.db.get::<ArchiveEntry>(Tree::Archive, 0u64.to_be_bytes())
            .unwrap()
            .is_some()
    );
}

#[test]
fn invalid_game_name_refuses_the_whole_batch() {
    let dir = TempDir::new("badgame");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    b.put(Tree::ByGame, "g1", &"one")
        .append_event("a\0b", 1, &"e");
    assert!(matches!(
        s.commit(b),
        Err(StoreError::InvalidKey {
            tree: Tree::ByGame,
            ..
        })
    ));
    assert!(s.db.scan::<String>(Tree::ByGame).unwrap().is_empty());
}

#[test]
fn applied_batches_are_read_at_once_and_kept_by_closing_the_store() {
    let dir = TempDir::new("apply");
    let s = Store::open(&dir.0).unwrap();
    assert!(dir.0.join(FILE).is_file());
    let mut b = Batch::new();
    b.put(Tree::ByGame, "g", &"x");
    s.apply(b).unwrap();
    assert_eq!(
        s.db.get::<String>(Tree::ByGame, "g").unwrap().as_deref(),
        Some("x")
    );
    let mut b = Batch::new();
    b.enqueue(&outbox("<m@x>", t(9, 0), t(9, 0)));
    s.commit(b).unwrap();
    let id = s.outbox().all().unwrap()[0].id.clone();
    // Deleting sent outbox entries changes nothing a closed process keeps: no transaction.
    let generation = s.generation();
    s.outbox().sent(&[id.as_str(), "none"]).unwrap();
    assert_eq!(s.generation(), generation);
    assert!(s.outbox().all().unwrap().is_empty());
    drop(s);
    // Closing made both the applied batch and the deletion durable.
    let s = open_again(&dir.0).unwrap();
    assert_eq!(
        s.db.get::<String>(Tree::ByGame, "g").unwrap().as_deref(),
        Some("x")
    );
    assert!(s.outbox().all().unwrap().is_empty());
    assert_eq!(s.generation(), generation);
    let err = sync_path(&dir.0.join("no-such-dir")).unwrap_err();
    assert!(matches!(err, StoreError::Sync { .. }));
}

#[test]
fn event_keys_are_ordered_numerically_per_game() {
    let dir = TempDir::new("events");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    for seq in [10u64, 2, 1, 256] {
        b.append_event("T-1/1", seq, &format!("e{seq}"));
    }
    b.append_event("T-1/10", 3, &"other game".to_string());
    b.append_event("T-1", 5, &"prefix game".to_string());
    s.commit(b).unwrap();
    let seqs: Vec<u64> = s
        .events::<String>("T-1/1")
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(seqs, vec![1, 2, 10, 256]);
    assert_eq!(
        s.events::<String>("T-1/10").unwrap(),
        vec![(3, "other game".to_string())]
    );
    assert_eq!(
        s.events::<String>("T-1").unwrap(),
        vec![(5, "prefix game".to_string())]
    );
    assert!(s.events::<String>("T-2/1").unwrap().is_empty());
}

/// The outbox entries due at `now`, oldest first (what `daemon` sends in a pass).
fn due_at(s: &Store, now: DateTime<Utc>) -> Result<Vec<OutboxEntry>, StoreError> {
    let mut due = s.outbox().all()?;
    due.retain(|e| e.next_attempt <= now);
    Ok(due)
}

/// The earliest `next_attempt` in the outbox.
fn next_attempt(s: &Store) -> Option<DateTime<Utc>> {
    s.outbox()
        .all()
        .unwrap()
        .iter()
        .map(|e| e.next_attempt)
        .min()
}

/// Deletes entry `id` without sending it.
fn remove(s: &Store, id: &str) -> Result<(), StoreError> {
    let mut batch = Batch::new();
    batch.delete(Tree::Outbox, id.as_bytes());
    s.commit(batch)
}

#[test]
fn outbox_due_is_oldest_first_and_retry_reschedules() {
    let dir = TempDir::new("outbox");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    b.enqueue(&outbox("<c@x>", t(9, 30), t(9, 30)))
        .enqueue(&outbox("<a@x>", t(9, 10), t(9, 10)))
        .enqueue(&outbox("<b@x>", t(9, 20), t(11, 0)));
    s.commit(b).unwrap();
    let due: Vec<String> = due_at(&s, t(10, 0))
        .unwrap()
        .into_iter()
        .map(|e| e.message_id)
        .collect();
    assert_eq!(due, vec!["<a@x>", "<c@x>"]);
    assert_eq!(next_attempt(&s), Some(t(9, 10)));

    let id_a = OutboxEntry::make_id("<a@x>", "a@x.test");
    s.outbox().retry(&id_a, t(12, 0), "421 try later").unwrap();
    let a =
        s.db.get::<OutboxEntry>(Tree::Outbox, id_a.as_bytes())
            .unwrap()
            .unwrap();
    assert_eq!(a.attempts, 1);
    assert_eq!(a.next_attempt, t(12, 0));
    assert_eq!(a.last_error.as_deref(), Some("421 try later"));
    let due: Vec<String> = due_at(&s, t(10, 0))
        .unwrap()
        .into_iter()
        .map(|e| e.message_id)
        .collect();
    assert_eq!(due, vec!["<c@x>"]);
    assert_eq!(next_attempt(&s), Some(t(9, 30)));

    s.outbox()
        .sent(&[OutboxEntry::make_id("<c@x>", "a@x.test")])
        .unwrap();
    remove(&s, &OutboxEntry::make_id("<b@x>", "a@x.test")).unwrap();
    let all: Vec<String> = s
        .outbox()
        .all()
        .unwrap()
        .into_iter()
        .map(|e| e.message_id)
        .collect();
    assert_eq!(all, vec!["<a@x>"]);
    assert_eq!(next_attempt(&s), Some(t(12, 0)));
    // An entry gone meanwhile (its tournament withdrawn) is not brought back by a retry.
    let before = s.outbox().all().unwrap();
    s.outbox().retry("nope", t(12, 0), "x").unwrap();
    assert_eq!(s.outbox().all().unwrap(), before);
    s.outbox().sent(&[&id_a]).unwrap();
    assert_eq!(next_attempt(&s), None);
}

#[test]
fn archive_is_indexed_per_game_in_order() {
    let dir = TempDir::new("archive");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    b.archive(&archive(&["T-1/1", "T-1/2"], "<1@x>"))
        .archive(&archive(&["T-1/2"], "<2@x>"));
    s.commit(b).unwrap();
    let mut b = Batch::new();
    b.archive(&archive(&["T-1/1"], "<3@x>"))
        .archive(&archive(&[], "<4@x>"));
    s.commit(b).unwrap();
    let ids = |g: &str| -> Vec<String> {
        s.archive()
            .for_game(g)
            .unwrap()
            .into_iter()
            .map(|e| e.message_id)
            .collect()
    };
    assert_eq!(ids("T-1/1"), vec!["<1@x>", "<3@x>"]);
    assert_eq!(ids("T-1/2"), vec!["<1@x>", "<2@x>"]);
    assert!(ids("T-1/3").is_empty());
    let keys: Vec<Vec<u8>> =
        s.db.scan::<ArchiveEntry>(Tree::Archive)
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
    let want: Vec<Vec<u8>> = (0u64..4).map(|n| n.to_be_bytes().to_vec()).collect();
    assert_eq!(keys, want);
}

#[test]
fn fax_2_8_rotation_removes_only_mails_all_of_whose_games_go() {
    let dir = TempDir::new("rotate");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    b.archive(&archive(&["A-1/1"], "<1@x>"))
        .archive(&archive(&["A-1/2"], "<2@x>"))
        .archive(&archive(&["A-1/1", "B-1/1"], "<3@x>"))
        .archive(&archive(&["B-1/1"], "<4@x>"))
        .archive(&archive(&[], "<5@x>"));
    s.commit(b).unwrap();
    let games: std::collections::BTreeSet<String> =
        ["A-1/1".to_string(), "A-1/2".to_string()].into();
    assert_eq!(s.archive().rotate(&games).unwrap(), 2);
    assert!(s.archive().for_game("A-1/2").unwrap().is_empty());
    let left: Vec<String> =
        s.db.scan::<ArchiveEntry>(Tree::Archive)
            .unwrap()
            .into_iter()
            .map(|(_, e)| e.message_id)
            .collect();
    assert_eq!(left, vec!["<3@x>", "<4@x>", "<5@x>"]);
    // The mail that also belongs to B-1/1 stays, reachable from both games.
    assert_eq!(s.archive().for_game("A-1/1").unwrap().len(), 1);
    assert_eq!(s.archive().for_game("B-1/1").unwrap().len(), 2);
    assert_eq!(s.archive().rotate(&games).unwrap(), 0);
}

#[test]
fn outbox_keeps_the_order_of_enqueueing_within_one_instant() {
    let dir = TempDir::new("outbox-seq");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    for id in ["<9@x>", "<10@x>", "<11@x>"] {
        b.enqueue(&outbox(id, t(9, 0), t(9, 0)));
    }
    s.commit(b).unwrap();
    let mut b = Batch::new();
    b.enqueue(&outbox("<1@x>", t(9, 0), t(9, 0)));
    s.commit(b).unwrap();
    let order = |s: &Store| -> Vec<String> {
        s.outbox()
            .all()
            .unwrap()
            .into_iter()
            .map(|e| e.message_id)
            .collect()
    };
    assert_eq!(order(&s), vec!["<9@x>", "<10@x>", "<11@x>", "<1@x>"]);
    // A retry keeps the place.
    s.outbox()
        .retry(&OutboxEntry::make_id("<9@x>", "a@x.test"), t(9, 5), "421")
        .unwrap();
    assert_eq!(order(&s), vec!["<9@x>", "<10@x>", "<11@x>", "<1@x>"]);
    assert_eq!(s.outbox().next_head_attempt().unwrap(), Some(t(9, 5)));
    assert_eq!(next_attempt(&s), Some(t(9, 0)));
}

#[test]
fn watched_enqueues_are_named_once_and_only_from_transactions_that_held() {
    let dir = TempDir::new("outbox-watch");
    let s = Store::open(&dir.0).unwrap();
    let id = |m: &str| OutboxEntry::make_id(m, "a@x.test");
    let mut b = Batch::new();
    b.enqueue(&outbox("<0@x>", t(9, 0), t(9, 0)));
    s.commit(b).unwrap();
    assert!(
        s.outbox().take_enqueued().is_empty(),
        "not watched: nothing noted"
    );
    s.outbox().watch_enqueued(true);
    assert!(s.outbox().watching_enqueued());
    // One entry with its mail beside it, one naming the mail archived before it.
    let mut b = Batch::new();
    b.enqueue(&outbox("<1@x>", t(9, 0), t(9, 0)));
    let mut archived = archive(&["T-1/1"], "<2@x>");
    archived.direction = Direction::Out;
    archived.raw = outbox("<2@x>", t(9, 0), t(9, 0)).raw;
    b.archive(&archived)
        .enqueue_archived(&outbox("<2@x>", t(9, 0), t(9, 0)));
    s.apply(b).unwrap();
    let mut b = Batch::new();
    b.enqueue(&outbox("<3@x>", t(9, 0), t(9, 0))).fail_here();
    assert!(s.commit(b).is_err());
    // A retry rewrites an entry: not a new one.
    s.outbox().retry(&id("<0@x>"), t(9, 5), "421").unwrap();
    let fresh = s.outbox().take_enqueued();
    assert_eq!(
        fresh.iter().map(|e| e.id.clone()).collect::<Vec<_>>(),
        vec![id("<1@x>"), id("<2@x>")]
    );
    // Each as the courier would read it back: the head as stored; the mail too where it was
    // archived beside it (one with a body of its own is read back when wanted).
    for (e, with_mail) in fresh.iter().zip([false, true]) {
        let (head, raw) = s.outbox().to_send(&e.id).unwrap().unwrap();
        assert!(!raw.is_empty());
        assert_eq!(e.raw.is_empty(), !with_mail, "{}", e.id);
        if with_mail {
            assert_eq!(e.raw, raw, "{}: the mail", e.id);
        }
        assert_eq!(
            OutboxEntry {
                raw: e.raw.clone(),
                ..head
            },
            *e,
            "{}: the entry",
            e.id
        );
    }
    assert!(s.outbox().take_enqueued().is_empty(), "each named once");
    assert_eq!(
        s.outbox().entry(&id("<2@x>")).unwrap().map(|e| e.seq),
        Some(3),
        "read back with the order the store gave it"
    );
    s.outbox()
        .sent(&[id("<1@x>"), id("<2@x>"), id("<absent@x>")])
        .unwrap();
    assert_eq!(s.outbox().all().unwrap().len(), 1);
    s.outbox().watch_enqueued(false);
    assert!(!s.outbox().watching_enqueued());
    let mut b = Batch::new();
    b.enqueue(&outbox("<4@x>", t(9, 0), t(9, 0)));
    s.commit(b).unwrap();
    assert!(s.outbox().take_enqueued().is_empty());
}

#[test]
fn quarantine_and_raw_bytes_round_trip() {
    let dir = TempDir::new("quarantine");
    let s = Store::open(&dir.0).unwrap();
    let q = QuarantineEntry {
        at: t(8, 0),
        uidvalidity: 3,
        uid: 9,
        message_id: None,
        reason: "no game reference".to_string(),
        raw: vec![0, 159, 146, 150, b'a'],
    };
    let mut b = Batch::new();
    b.quarantine(&q);
    s.commit(b).unwrap();
    let all = s.db.scan::<QuarantineEntry>(Tree::Quarantine).unwrap();
    assert_eq!(all, vec![(uid_key(3, 9).to_vec(), q)]);
    // UTF-8 mails are stored as a JSON string, not as a number array.
    let e = outbox("<u@x>", t(1, 0), t(1, 0));
    let json = serde_json::to_string(&e).unwrap();
    assert!(
        json.contains(r#""raw":"Message-ID: <u@x>\r\n\r\nbody\r\n""#),
        "{json}"
    );
}

#[test]
fn corrupt_value_names_tree_and_key() {
    let dir = TempDir::new("corrupt");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    b.put(Tree::ByGame, "g", &"text");
    s.commit(b).unwrap();
    let err = s.db.get::<u64>(Tree::ByGame, "g").unwrap_err();
    assert!(err.to_string().contains("by_game/g"), "{err}");
}

#[test]
fn s11_the_archive_is_never_deleted() {
    let dir = std::env::temp_dir().join(format!(
        "fernzug-archive-{}-{}",
        std::process::id(),
        Utc::now().timestamp_nanos_opt().unwrap_or(0)
    ));
    let store = Store::open(&dir).unwrap();
    let mut b = Batch::default();
    b.archive(&ArchiveEntry {
        direction: Direction::In,
        at: Utc::now(),
        games: vec!["T-1/1".to_string()],
        message_id: "<kept@x>".to_string(),
        raw: b"Subject: kept\r\n\r\nx\r\n".to_vec(),
    });
    store.commit(b).unwrap();
    let index = schema::part_key("T-1/1", schema::Part::Archived, 0);
    for (tree, key) in [
        (Tree::Archive, 0u64.to_be_bytes().to_vec()),
        (Tree::ByGame, index),
    ] {
        let mut b = Batch::default();
        b.delete(tree, &key);
        assert!(store.commit(b).is_err(), "{tree} delete refused");
        let mut b = Batch::default();
        b.put(tree, &key, &1);
        assert!(store.commit(b).is_err(), "{tree} overwrite refused");
    }
    let kept = store.archive().for_game("T-1/1").unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].raw, b"Subject: kept\r\n\r\nx\r\n".to_vec());
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every key and value of every tree, in order.
fn dump(s: &Store) -> Vec<(Tree, Vec<u8>, Vec<u8>)> {
    use redb::{ReadableDatabase, ReadableTable};
    let tx = s.db.db.begin_read().unwrap();
    let mut all = Vec::new();
    for tree in Tree::ALL {
        let table = tx.open_table(schema::table(tree)).unwrap();
        for item in table.iter().unwrap() {
            let (k, v) = item.unwrap();
            all.push((tree, k.value().to_vec(), v.value().to_vec()));
        }
    }
    all
}

#[test]
fn a_backup_is_the_store_at_one_instant_while_it_is_written() {
    let dir = TempDir::new("backup-source");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    for i in 0..200 {
        b.archive(&archive(&["T-1/1"], &format!("m{i}@x")));
    }
    b.enqueue(&outbox("o1", t(9, 0), t(9, 0)));
    s.commit(b).unwrap();
    let before = dump(&s);
    let target = TempDir::new("backup-target");
    let copy_dir = target.0.join("copy");
    // A writer beside the backup: what it commits after the snapshot is not in the copy (or
    // all of a batch is: never a part of one).
    let writer = {
        let s = s.clone();
        std::thread::spawn(move || {
            for i in 0..50 {
                let mut b = Batch::new();
                b.archive(&archive(&["T-1/2"], &format!("late{i}@x")));
                b.archive(&archive(&["T-1/3"], &format!("late{i}b@x")));
                s.commit(b).unwrap();
            }
        })
    };
    let done = s.backup(&copy_dir).unwrap();
    writer.join().unwrap();
    assert!(!copy_dir.join(super::backup::PARTIAL).exists());
    let copy = Store::open(&copy_dir.join("store")).unwrap();
    let copied = dump(&copy);
    assert!(done.mails >= 200, "{done:?}");
    // Everything that was there before is in the copy, unchanged.
    for entry in &before {
        if entry.0 != Tree::Meta {
            assert!(copied.contains(entry), "{:?} {:?}", entry.0, entry.1);
        }
    }
    // The late batches are in it whole or not at all.
    let late = |g: &str| {
        copy.archive()
            .for_game(g)
            .unwrap()
            .into_iter()
            .map(|e| e.message_id.replace("b@x", "@x"))
            .collect::<Vec<_>>()
    };
    assert_eq!(late("T-1/2"), late("T-1/3"));
    let mails = copied.iter().filter(|e| e.0 == Tree::Archive).count();
    assert_eq!(done.mails, mails as u64);
    // The source is unchanged by it and goes on.
    assert_eq!(s.archive().for_game("T-1/2").unwrap().len(), 50);
}

#[test]
fn a_backup_goes_only_into_an_empty_folder() {
    let dir = TempDir::new("backup-full");
    let s = Store::open(&dir.0.join("store")).unwrap();
    let target = TempDir::new("backup-busy");
    std::fs::write(target.0.join("something"), b"x").unwrap();
    let e = s.backup(&target.0).unwrap_err();
    assert!(e.to_string().contains("is not empty"), "{e}");
    assert_eq!(
        std::fs::read_dir(&target.0).unwrap().count(),
        1,
        "nothing written"
    );
    let file = target.0.join("something");
    let e = s.backup(&file).unwrap_err();
    assert!(e.to_string().contains("is not a folder"), "{e}");
}

#[test]
fn a_mail_is_stored_once_compressed_and_comes_back_byte_for_byte() {
    let dir = TempDir::new("packed");
    let s = Store::open(&dir.0).unwrap();
    let mail = "<td bgcolor=\"#f0d9b5\">&#9820;</td>\r\n".repeat(200);
    let mut entry = archive(&["T-1/1"], "<m@x>");
    entry.direction = Direction::Out;
    entry.raw = mail.clone().into_bytes();
    let mut b = Batch::new();
    b.archive(&entry);
    // Two recipients of the same mail: neither keeps a copy.
    let mut to_anna = outbox("<m@x>", t(9, 0), t(9, 0));
    to_anna.raw = Vec::new();
    let mut to_tl = to_anna.clone();
    to_tl.recipient = "tl@x.test".into();
    to_tl.id = OutboxEntry::make_id("<m@x>", "tl@x.test");
    b.enqueue_archived(&to_anna).enqueue_archived(&to_tl);
    // A mail of its own (the one with the XFCC password) beside it.
    b.enqueue(&outbox("<other@x>", t(9, 0), t(9, 0)));
    s.commit(b).unwrap();
    let stored: usize = dump(&s)
        .iter()
        .filter(|(t, _, _)| matches!(t, Tree::Archive | Tree::Outbox))
        .map(|(_, _, v)| v.len())
        .sum();
    assert!(
        stored < mail.len() / 5,
        "{stored} bytes for a mail of {}",
        mail.len()
    );
    assert_eq!(
        s.archive().for_game("T-1/1").unwrap()[0].raw,
        mail.as_bytes()
    );
    assert_eq!(
        s.outbox().raw(&to_anna.id).unwrap().unwrap(),
        mail.as_bytes()
    );
    assert_eq!(s.outbox().raw(&to_tl.id).unwrap().unwrap(), mail.as_bytes());
    let own = OutboxEntry::make_id("<other@x>", "a@x.test");
    assert_eq!(
        s.outbox().raw(&own).unwrap().unwrap(),
        outbox("<other@x>", t(9, 0), t(9, 0)).raw
    );
    // The heads come without their mails; every entry with its own through outbox_all.
    assert!(s.outbox().heads().unwrap().iter().all(|e| e.raw.is_empty()));
    assert!(s.outbox().all().unwrap().iter().all(|e| !e.raw.is_empty()));
    // A retry changes the head, never the mail.
    s.outbox().retry(&to_tl.id, t(10, 0), "451 later").unwrap();
    assert_eq!(s.outbox().raw(&to_tl.id).unwrap().unwrap(), mail.as_bytes());
    assert_eq!(s.outbox().entry(&to_tl.id).unwrap().unwrap().attempts, 1);
    assert_eq!(s.outbox().due_now(t(9, 30)).unwrap(), 1);
    assert_eq!(s.outbox().raw(&to_tl.id).unwrap().unwrap(), mail.as_bytes());
    // An outbox entry naming no archived mail before it is refused, nothing written.
    let mut b = Batch::new();
    b.enqueue_archived(&outbox("<lone@x>", t(9, 0), t(9, 0)));
    assert!(s.commit(b).is_err());
    assert_eq!(s.outbox().heads().unwrap().len(), 3);
}

#[test]
fn an_earlier_versions_mails_in_json_are_read_as_they_are() {
    let dir = TempDir::new("legacy-json");
    let s = Store::open(&dir.0).unwrap();
    let old = outbox("<old@x>", t(9, 0), t(9, 0));
    let mut b = Batch::new();
    // As versions before issue 33 wrote them: the whole entry as JSON, the mail inside.
    b.put(Tree::Outbox, old.id.as_bytes(), &old);
    b.forge_archived(7, &archive(&["T-1/1"], "<a@x>"));
    s.commit(b).unwrap();
    assert_eq!(s.outbox().raw(&old.id).unwrap().unwrap(), old.raw);
    assert_eq!(s.outbox().all().unwrap()[0].raw, old.raw);
    assert_eq!(s.archived().unwrap()[0].1.raw, b"raw \xff bytes".to_vec());
    // Retried, it is packed and still the same mail.
    s.outbox().retry(&old.id, t(10, 0), "451 later").unwrap();
    assert_eq!(s.outbox().raw(&old.id).unwrap().unwrap(), old.raw);
}

#[test]
fn many_sent_entries_leave_in_one_transaction() {
    let dir = TempDir::new("many-sent");
    let s = Store::open(&dir.0).unwrap();
    let mut ids = Vec::new();
    for n in 0..200 {
        let mut b = Batch::new();
        let mid = format!("<m{n}@x>");
        let mut entry = archive(&["T-1/1"], &mid);
        entry.raw = format!("mail {n}\r\n").repeat(50).into_bytes();
        b.archive(&entry);
        let mut e = outbox(&mid, t(9, 0), t(9, 0));
        e.raw = Vec::new();
        ids.push(e.id.clone());
        b.enqueue_archived(&e);
        s.apply(b).unwrap();
    }
    s.sync().unwrap();
    // While a pass applies more (not yet durable) and a courier reads what it sends.
    let more: Vec<String> = (200..600).map(|n| format!("<m{n}@x>")).collect();
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| {
            for mid in &more {
                let mut b = Batch::new();
                let mut entry = archive(&["T-1/1"], mid);
                entry.raw = format!("mail {mid}\r\n").repeat(50).into_bytes();
                b.archive(&entry);
                let mut e = outbox(mid, t(9, 0), t(9, 0));
                e.raw = Vec::new();
                b.enqueue_archived(&e);
                s.apply(b).unwrap();
            }
            s.sync().unwrap();
        });
        let reader = scope.spawn(|| {
            for _ in 0..3 {
                for id in ids.iter().rev() {
                    // As the courier reads: behind the gate, never beside a write (redb's
                    // own checks find a page freed under a reader beside a durable commit
                    // that follows non-durable ones).
                    let _ = s.outbox().to_send(id).unwrap();
                }
            }
        });
        for part in ids.chunks(8) {
            s.outbox().sent(part).unwrap();
        }
        reader.join().unwrap();
        writer.join().unwrap();
    });
    assert_eq!(s.outbox().heads().unwrap().len(), more.len());
}

#[test]
fn the_index_of_deadlines_is_read_in_time_order() {
    let dir = TempDir::new("due-order");
    let s = Store::open(&dir.0).unwrap();
    let g = |n| DueEntry::Game(crate::game_ref::GameRef::new("T-1", n));
    let mut b = Batch::new();
    b.put_due(&g(1), Some(t(12, 0)))
        .put_due(&g(2), Some(t(9, 0)))
        .put_due(&DueEntry::Rotation("T-1".into()), Some(t(8, 0)))
        .put_due(&DueEntry::Digest("T-1".into()), Some(t(10, 0)));
    s.commit(b).unwrap();
    assert_eq!(s.due().first(b'g').unwrap(), Some(t(9, 0)));
    assert_eq!(s.due().first(b'r').unwrap(), Some(t(8, 0)));
    assert_eq!(s.due().first(b'd').unwrap(), Some(t(10, 0)));
    let until = |now| -> Vec<DueEntry> {
        s.due()
            .until(b'g', now)
            .unwrap()
            .into_iter()
            .map(|(e, _)| e)
            .collect()
    };
    assert_eq!(until(t(10, 0)), vec![g(2)]);
    assert_eq!(until(t(12, 0)), vec![g(2), g(1)]);
    // An entry moved is read at its new instant only; one removed is gone.
    let mut b = Batch::new();
    b.put_due(&g(2), Some(t(13, 0))).put_due(&g(1), None);
    s.commit(b).unwrap();
    assert_eq!(s.due().first(b'g').unwrap(), Some(t(13, 0)));
    assert!(until(t(12, 30)).is_empty(), "{:?}", until(t(12, 30)));
    assert_eq!(s.due().of_kind("g/").unwrap(), vec![(g(2), t(13, 0))]);
    // A game's instant is kept among its records, a tournament's in `Due`.
    assert_eq!(s.db.count(Tree::Due).unwrap(), 2);
    // A store from before the order (layout version 1): every entry in `Due` alone, a game's
    // too; ordered at the next opening, and the game's moved among its records.
    let mut b = Batch::new();
    for key in s.db.keys_with_prefix(Tree::DueOrder, &[]).unwrap() {
        b.delete(Tree::DueOrder, key);
    }
    for key in s.db.keys_with_prefix(Tree::ByGame, &[]).unwrap() {
        b.delete(Tree::ByGame, key);
    }
    b.put(Tree::Due, "g/T-1/2", &t(13, 0))
        .put(Tree::Meta, SCHEMA_KEY, &1u32);
    s.commit(b).unwrap();
    assert_eq!(s.due().first(b'g').unwrap(), None);
    drop(s);
    let s = open_again(&dir.0).unwrap();
    assert_eq!(s.due().first(b'g').unwrap(), Some(t(13, 0)));
    assert_eq!(s.db.count(Tree::DueOrder).unwrap(), 3);
    assert_eq!(s.db.count(Tree::Due).unwrap(), 2);
    assert_eq!(s.due().of_kind("g/").unwrap(), vec![(g(2), t(13, 0))]);
    // Moved again, its old place in the order goes.
    let mut b = Batch::new();
    b.put_due(&g(2), Some(t(14, 0)));
    s.commit(b).unwrap();
    assert_eq!(s.due().first(b'g').unwrap(), Some(t(14, 0)));
    assert_eq!(s.db.count(Tree::DueOrder).unwrap(), 3);
    let mut all = Vec::new();
    s.due().for_each(|e, at| all.push((e, at))).unwrap();
    assert_eq!(
        all,
        vec![
            (DueEntry::Digest("T-1".into()), t(10, 0)),
            (g(2), t(14, 0)),
            (DueEntry::Rotation("T-1".into()), t(8, 0)),
        ]
    );
    // Emptied whole (an index written anew): the game's entry too.
    let mut b = Batch::new();
    s.due().clear(&mut b).unwrap();
    s.commit(b).unwrap();
    assert_eq!(s.db.count(Tree::DueOrder).unwrap(), 0);
    assert_eq!(s.db.count(Tree::Due).unwrap(), 0);
    assert_eq!(s.db.count(Tree::ByGame).unwrap(), 0);
}

#[test]
fn fax_2_8_rotation_keeps_a_mail_the_outbox_still_names() {
    let dir = TempDir::new("rotation-outbox");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    let mut sent = archive(&["T-1/1"], "<sent@x>");
    sent.raw = b"sent\r\n".to_vec();
    b.archive(&sent);
    let mut waiting = archive(&["T-1/1"], "<waiting@x>");
    waiting.raw = b"waiting\r\n".to_vec();
    b.archive(&waiting);
    let mut e = outbox("<waiting@x>", t(9, 0), t(9, 0));
    e.raw = Vec::new();
    b.enqueue_archived(&e);
    s.commit(b).unwrap();
    let games = std::collections::BTreeSet::from(["T-1/1".to_string()]);
    assert_eq!(s.archive().rotate(&games).unwrap(), 1);
    assert_eq!(
        s.outbox().raw(&e.id).unwrap().unwrap(),
        b"waiting\r\n".to_vec()
    );
    // Once sent, the next rotation takes it.
    s.outbox().sent(&[e.id.as_str()]).unwrap();
    assert_eq!(s.archive().rotate(&games).unwrap(), 1);
    assert!(s.archive().for_game("T-1/1").unwrap().is_empty());
}

/// Issue 33: a rotated tournament is written with its entries in the indexes of the rotated
/// tournaments and of their people (its director, each player and each of a player's other
/// addresses); a running one is not. The relay at work reads every tournament but the rotated
/// ones, and learns from the index which rotated ones an address appears in.
#[test]
fn a_rotated_tournament_is_indexed_by_its_people() {
    use crate::core::testkit::{ANNA, BERT, TL, duel, registered};
    let dir = TempDir::new("rotated-people");
    let s = Store::open(&dir.0).unwrap();
    let mut st = registered(&duel(crate::rules::RuleSet::Post));
    let mut rotated = st.tournaments["T-1"].clone();
    rotated.rotated = true;
    rotated.players[0].also.push("anna@home.test".into());
    let mut other = st.tournaments.remove("T-1").unwrap();
    other.id = "T-2".into();
    let mut b = Batch::default();
    b.put_tournament(&rotated).put_tournament(&other);
    s.commit(b).unwrap();

    let mut read = Vec::new();
    let away = s
        .for_each_tournament_but_rotated(|t| read.push(t.id))
        .unwrap();
    assert_eq!(read, ["T-2"], "every tournament but the rotated one");
    assert_eq!(away, std::collections::BTreeSet::from(["T-1".to_string()]));
    for a in [ANNA, BERT, TL, "anna@home.test"] {
        assert_eq!(s.rotated_tournaments_of(a).unwrap(), ["T-1"], "{a}");
    }
    // A prefix of an address is not the address.
    assert!(
        s.rotated_tournaments_of("anna@home.tes")
            .unwrap()
            .is_empty()
    );
    assert!(
        s.rotated_tournaments_of("carl@example.org")
            .unwrap()
            .is_empty()
    );
    let mut all = Vec::new();
    s.for_each_tournament(|t| all.push(t.id)).unwrap();
    assert_eq!(
        all,
        ["T-1", "T-2"],
        "the records themselves stay where they were"
    );
    // `/metrics` counts the rotated tournament's game as finished without reading its record.
    assert_eq!(
        s.games_by_state().unwrap(),
        std::collections::BTreeMap::from([("finished".to_string(), 1)])
    );
}

/// A tournament withdrawn before its first move (`crate::core::register`) leaves the store in one
/// transaction with everything that is its own — its record, its games with their logs, reply
/// keys and deadlines, its digest, its mails waiting and archived, the note of its start mails —
/// and nothing else: not tournament T-10 (whose id begins like it), not a mail that names a game
/// of both, not a mail of no game. A mail of it enqueued but not yet handed to the courier is
/// not handed over.
#[test]
fn a_withdrawn_tournament_leaves_the_store_with_everything_of_its_own_and_nothing_else() {
    use crate::core::testkit::{CARL, DORA, duel, register, tournament};
    use crate::game_ref::GameRef;
    use crate::rules::RuleSet;
    let dir = TempDir::new("withdrawn");
    let s = Store::open(&dir.0).unwrap();
    let mut st = crate::core::State::default();
    register(&mut st, &duel(RuleSet::Post));
    let ten = tournament(
        "T-10",
        "Zehn",
        RuleSet::Post,
        &[("Carl", CARL, None), ("Dora", DORA, None)],
        &[(0, 1)],
    );
    register(&mut st, &ten);
    let mut b = Batch::new();
    for t in st.tournaments.values() {
        b.put_tournament(t);
    }
    for g in st.games.values() {
        let name = g.id.to_string();
        b.put_game(g, false)
            .append_event(&name, 1, &"started")
            .put_due(&DueEntry::Game(g.id.clone()), Some(t(12, 0)));
    }
    for (k, binding) in st.keys.iter() {
        b.bind_key(k, &binding.game.to_string(), binding);
    }
    b.put_due(&DueEntry::Digest("T-1".into()), Some(t(13, 0)))
        .put_due(&DueEntry::Digest("T-10".into()), Some(t(13, 0)))
        .pending_starts(
            "T-1",
            Some(&PendingStarts {
                at: t(9, 0),
                next: 1,
            }),
        );
    // T-1's start mail, archived and waiting; a mail naming a game of each; T-10's; one of no game.
    b.archive(&archive(&["T-1/1"], "<start@x>"));
    let mut start = outbox("<start@x>", t(9, 0), t(9, 0));
    start.raw = Vec::new();
    b.enqueue_archived(&start);
    b.archive(&archive(&["T-1/1", "T-10/1"], "<both@x>"));
    b.archive(&archive(&["T-10/1"], "<ten@x>"));
    let mut of_ten = outbox("<ten@x>", t(9, 0), t(9, 0));
    of_ten.game = Some("T-10/1".into());
    b.enqueue(&of_ten);
    let mut of_none = outbox("<none@x>", t(9, 0), t(9, 0));
    of_none.game = None;
    b.enqueue(&of_none);
    s.commit(b).unwrap();
    // One more of T-1, enqueued while the courier watches, not yet taken.
    s.outbox().watch_enqueued(true);
    let mut late = outbox("<late@x>", t(9, 30), t(9, 30));
    late.game = Some("T-1/1".into());
    let mut b = Batch::new();
    b.enqueue(&late);
    s.apply(b).unwrap();
    let before = dump(&s);
    let start_id = s
        .archived()
        .unwrap()
        .into_iter()
        .find(|(_, e)| e.message_id == "<start@x>")
        .map(|(id, _)| id)
        .unwrap();
    let keys_of_t1: Vec<Vec<u8>> = st
        .keys
        .iter()
        .filter(|(_, b)| b.game.tournament == "T-1")
        .map(|(k, _)| k.as_bytes().to_vec())
        .collect();

    let mut b = Batch::new();
    s.remove_tournament("T-1", &mut b).unwrap();
    s.commit(b).unwrap();

    let of_t1 = |tree: Tree, k: &[u8]| -> bool {
        let text = String::from_utf8_lossy(k);
        match tree {
            Tree::Tournaments => k == b"T-1",
            Tree::ByGame => k.starts_with(b"T-1/"),
            Tree::Keys => keys_of_t1.iter().any(|key| key == k),
            Tree::Archive => k == start_id.to_be_bytes(),
            Tree::Outbox => k == start.id.as_bytes() || k == late.id.as_bytes(),
            Tree::Due => k == b"d/T-1",
            Tree::DueOrder => text.ends_with("/T-1") || text.contains("g/T-1/"),
            _ => false,
        }
    };
    let after = dump(&s);
    let mut gone = 0;
    for entry in &before {
        let (tree, k, _) = entry;
        if *tree == Tree::Meta {
            continue;
        }
        if of_t1(*tree, k) {
            gone += 1;
            assert!(
                !after.iter().any(|(t, key, _)| t == tree && key == k),
                "{tree}/{} stayed",
                schema::show_key(k)
            );
        } else {
            assert!(after.contains(entry), "{tree}/{} went", schema::show_key(k));
        }
    }
    assert!(gone > 20, "{gone} entries of T-1");
    assert!(
        after
            .iter()
            .all(|(t, k, _)| *t == Tree::Meta || !of_t1(*t, k))
    );
    assert!(s.pending_starts().unwrap().is_empty());
    assert!(s.tournament("T-1").unwrap().is_none());
    assert!(s.game(&GameRef::new("T-1", 1)).unwrap().is_none());
    assert_eq!(
        s.archive().for_game("T-10/1").unwrap().len(),
        2,
        "the mail of both stays"
    );
    // The watcher is not handed the mail of T-1 enqueued before: it is gone.
    assert!(
        s.outbox()
            .take_enqueued()
            .iter()
            .all(|e| e.game.as_deref() != Some("T-1/1"))
    );
    drop(s);
    let s = open_again(&dir.0).unwrap();
    assert!(s.tournament("T-1").unwrap().is_none(), "durable");
    assert_eq!(s.due().first(b'g').unwrap(), Some(t(12, 0)), "T-10/1's");
}

/// The files of a store as a process killed now would leave them (the page cache: what was
/// written, durable or not), copied into a fresh directory.
fn as_left_by_a_crash(dir: &Path, name: &str, with_ledger: bool) -> TempDir {
    let copy = TempDir::new(name);
    std::fs::copy(dir.join(FILE), copy.0.join(FILE)).unwrap();
    if with_ledger && dir.join(sent::FILE).exists() {
        std::fs::copy(dir.join(sent::FILE), copy.0.join(sent::FILE)).unwrap();
    }
    copy
}

#[test]
fn a_mail_marked_sent_stays_sent_after_a_crash_by_the_ledger() {
    let dir = TempDir::new("ledger-crash");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    b.enqueue(&outbox("<a@x>", t(9, 0), t(9, 0)));
    b.enqueue(&outbox("<b@x>", t(9, 0), t(9, 0)));
    s.commit(b).unwrap();
    let id_a = OutboxEntry::make_id("<a@x>", "a@x.test");
    s.outbox().sent(&[id_a.as_str()]).unwrap();
    assert_eq!(s.outbox().all().unwrap().len(), 1);
    // The removal waited for no disk: a crash now keeps the entry in the database…
    let without = as_left_by_a_crash(&dir.0, "ledger-crash-without", false);
    assert_eq!(
        Store::open(&without.0)
            .unwrap()
            .outbox()
            .all()
            .unwrap()
            .len(),
        2,
        "the removal alone is not durable (else this test proves nothing)"
    );
    // …and the ledger, made durable before `outbox_sent` returned, removes it at the opening.
    let with = as_left_by_a_crash(&dir.0, "ledger-crash-with", true);
    let opened = Store::open(&with.0).unwrap();
    let left: Vec<String> = opened
        .outbox()
        .all()
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(left, [OutboxEntry::make_id("<b@x>", "a@x.test")]);
    drop(opened);
    assert!(Store::open(&with.0).unwrap().outbox().all().unwrap().len() == 1);
    // A durable commit takes the removal along and empties the ledger.
    s.sync().unwrap();
    assert_eq!(std::fs::metadata(dir.0.join(sent::FILE)).unwrap().len(), 0);
    let after = as_left_by_a_crash(&dir.0, "ledger-crash-after", false);
    assert_eq!(
        Store::open(&after.0).unwrap().outbox().all().unwrap().len(),
        1
    );
}

/// Writes `entries` into the table `name` as layout version 1 kept it, and marks the store
/// version 1.
fn write_version_1(s: &Store, name: &str, entries: &[(Vec<u8>, Vec<u8>)]) {
    let tx = s.db.db.begin_write().unwrap();
    {
        let mut t = tx.open_table(schema::table_named(name)).unwrap();
        for (k, v) in entries {
            t.insert(k.as_slice(), v.as_slice()).unwrap();
        }
        let mut meta = tx.open_table(table(Tree::Meta)).unwrap();
        meta.insert(SCHEMA_KEY, &b"1"[..]).unwrap();
    }
    tx.commit().unwrap();
}

fn old_key(game: &str, rest: &[u8]) -> Vec<u8> {
    let mut k = super::schema::part_prefix_before(game);
    k.extend_from_slice(rest);
    k
}

#[test]
fn a_version_1_store_has_its_games_parts_moved_into_by_game_at_opening() {
    let dir = TempDir::new("gather");
    {
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.archive(&archive(&["T-1/1"], "<old@x>"));
        b.put(Tree::Keys, "kkk", &"binding of kkk");
        s.commit(b).unwrap();
        // What version 1 wrote: the same parts in three trees, `game 0 rest`; the archive's
        // index entry (id 0) moved aside by hand into its old tree, as version 1 kept it.
        let index = schema::part_key("T-1/1", schema::Part::Archived, 0);
        let mut b = Batch::new();
        b.delete_unguarded(Tree::ByGame, &index);
        s.commit(b).unwrap();
        let events: Vec<_> = (1..=3u64)
            .map(|n| {
                (
                    old_key("T-1/1", &n.to_be_bytes()),
                    format!("\"event {n}\"").into_bytes(),
                )
            })
            .chain([(old_key("T-1/2", &1u64.to_be_bytes()), b"\"other\"".to_vec())])
            .collect();
        write_version_1(&s, "events", &events);
        write_version_1(&s, "games", &[(b"T-1/1".to_vec(), b"\"a game\"".to_vec())]);
        write_version_1(
            &s,
            "archive_by_game",
            &[(old_key("T-1/1", &0u64.to_be_bytes()), b"0".to_vec())],
        );
        write_version_1(
            &s,
            "keys_by_game",
            &[
                (old_key("T-1/1", b"kkk"), Vec::new()),
                // An earlier version's entry with the binding in it.
                (old_key("T-1/2", b"jjj"), b"\"binding of jjj\"".to_vec()),
            ],
        );
        // And its deadline in `Due`, with its place in the order.
        let mut b = Batch::new();
        b.put_due(&DueEntry::Game("T-1/1".parse().unwrap()), Some(t(12, 0)));
        s.commit(b).unwrap();
        let place = schema::due_place("g/T-1/1").1;
        let mut b = Batch::new();
        b.delete(Tree::ByGame, &place)
            .put(Tree::Due, "g/T-1/1", &t(12, 0));
        s.commit(b).unwrap();
        assert!(s.events::<String>("T-1/1").unwrap().is_empty());
    }
    let s = Store::open(&dir.0).unwrap();
    assert_eq!(
        s.db.get::<u32>(Tree::Meta, SCHEMA_KEY).unwrap(),
        Some(LAYOUT_VERSION)
    );
    assert_eq!(
        s.events::<String>("T-1/1").unwrap(),
        vec![
            (1, "event 1".to_string()),
            (2, "event 2".to_string()),
            (3, "event 3".to_string())
        ]
    );
    assert_eq!(
        s.events::<String>("T-1/2").unwrap(),
        vec![(1, "other".to_string())]
    );
    let mails = s.archive().for_game("T-1/1").unwrap();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].message_id, "<old@x>");
    assert_eq!(
        s.keys_of_game::<String>("T-1/1").unwrap(),
        vec![("kkk".to_string(), "binding of kkk".to_string())]
    );
    assert_eq!(
        s.keys_of_game::<String>("T-1/2").unwrap(),
        vec![("jjj".to_string(), "binding of jjj".to_string())]
    );
    assert_eq!(
        s.db.get::<String>(Tree::ByGame, "T-1/1")
            .unwrap()
            .as_deref(),
        Some("a game")
    );
    assert_eq!(s.db.count(Tree::Due).unwrap(), 0);
    assert_eq!(
        s.db.get::<DateTime<Utc>>(Tree::ByGame, schema::due_place("g/T-1/1").1)
            .unwrap(),
        Some(t(12, 0))
    );
    let mut b = Batch::new();
    b.put_due(&DueEntry::Game("T-1/1".parse().unwrap()), Some(t(13, 0)));
    s.commit(b).unwrap();
    assert_eq!(
        s.due().of_kind("g/").unwrap(),
        vec![(DueEntry::Game("T-1/1".parse().unwrap()), t(13, 0))]
    );
    // The old trees are gone; the archive's index is guarded as before.
    let tx = s.db.db.begin_read().unwrap();
    for name in schema::PARTS_BEFORE
        .iter()
        .map(|(name, _)| *name)
        .chain([schema::GAMES_BEFORE])
    {
        assert!(matches!(
            tx.open_table(schema::table_named(name)),
            Err(redb::TableError::TableDoesNotExist(_))
        ));
    }
    drop(tx);
    let mut b = Batch::new();
    b.delete(
        Tree::ByGame,
        schema::part_key("T-1/1", schema::Part::Archived, 0),
    );
    assert!(s.commit(b).is_err());
    // A newer layout than this program's is refused, not read.
    let mut b = Batch::new();
    b.put(Tree::Meta, SCHEMA_KEY, &(SCHEMA_VERSION + 1));
    s.commit(b).unwrap();
    drop(s);
    assert!(matches!(
        Store::open(&dir.0),
        Err(StoreError::Schema { found, .. }) if found == SCHEMA_VERSION + 1
    ));
}

#[test]
fn the_move_into_by_game_takes_many_transactions_and_loses_nothing() {
    let dir = TempDir::new("gather-many");
    let n = migrate::GATHER_CHUNK as u64 * 2 + 7;
    {
        let s = Store::open(&dir.0).unwrap();
        let events: Vec<_> = (1..=n)
            .map(|i| (old_key("T-1/1", &i.to_be_bytes()), b"1".to_vec()))
            .collect();
        write_version_1(&s, "events", &events);
    }
    let s = Store::open(&dir.0).unwrap();
    let got: Vec<u64> = s
        .events::<u8>("T-1/1")
        .unwrap()
        .into_iter()
        .map(|(seq, _)| seq)
        .collect();
    assert_eq!(got, (1..=n).collect::<Vec<_>>());
}

#[test]
fn the_move_into_by_game_takes_large_records_a_few_megabytes_at_a_time() {
    let dir = TempDir::new("gather-large");
    // Games late in their lives, 64 KiB each with two events: two transactions' worth and a few
    // more.
    let per = migrate::GATHER_BYTES / (64 << 10);
    let n = per as u64 * 2 + 3;
    let record = |i: u64| format!("\"{}\"", "x".repeat((64 << 10) + (i as usize % 7))).into_bytes();
    let s = Store::open(&dir.0).unwrap();
    let games: Vec<_> = (1..=n)
        .map(|i| (format!("T-1/{i}").into_bytes(), record(i)))
        .collect();
    let events: Vec<_> = (1..=n)
        .flat_map(|i| {
            [1u64, 2].map(|seq| {
                (
                    old_key(&format!("T-1/{i}"), &seq.to_be_bytes()),
                    b"\"e\"".to_vec(),
                )
            })
        })
        .collect();
    write_version_1(&s, "games", &games);
    write_version_1(&s, "events", &events);
    let (moved, transactions) = migrate::move_games_in_order(&s).unwrap();
    assert_eq!((moved, transactions), (3 * n as usize, 3));
    assert_eq!(
        s.db.keys_with_prefix(Tree::ByGame, &[]).unwrap().len(),
        3 * n as usize
    );
    let mut got = 0;
    s.each_game_raw(b"T-1/", |k, v| {
        let name = std::str::from_utf8(k).unwrap();
        let i: u64 = name[4..].parse().unwrap();
        assert_eq!(v, record(i).as_slice());
        let seqs: Vec<u64> = s
            .events::<String>(name)
            .unwrap()
            .into_iter()
            .map(|(seq, _)| seq)
            .collect();
        assert_eq!(seqs, [1, 2]);
        got += 1;
        Ok(true)
    })
    .unwrap();
    assert_eq!(got, n);
}

#[test]
fn a_scan_of_games_passes_over_their_parts_few_or_many() {
    let dir = TempDir::new("games-scan");
    let s = Store::open(&dir.0).unwrap();
    let mut b = Batch::new();
    for (game, events) in [("T-1/1", 40u64), ("T-1/10", 3), ("T-1/2", 16), ("T-2/1", 0)] {
        b.put(Tree::ByGame, game, &format!("record of {game}"));
        for seq in 1..=events {
            b.append_event(game, seq, &"an event");
        }
        b.bind_key(&format!("key-{game}"), game, &"binding");
    }
    b.put_due(&DueEntry::Game("T-1/1".parse().unwrap()), Some(t(9, 0)));
    b.archive(&archive(&["T-1/1", "T-1/2"], "<a@x>"));
    s.commit(b).unwrap();
    let names = |prefix: &str, stop_at: Option<&str>| {
        let mut seen = Vec::new();
        s.each_game_raw(prefix.as_bytes(), |k, v| {
            let name = String::from_utf8_lossy(k).into_owned();
            assert_eq!(
                serde_json::from_slice::<String>(v).unwrap(),
                format!("record of {name}")
            );
            let go_on = stop_at != Some(name.as_str());
            seen.push(name);
            Ok(go_on)
        })
        .unwrap();
        seen
    };
    assert_eq!(names("", None), ["T-1/1", "T-1/10", "T-1/2", "T-2/1"]);
    assert_eq!(names("T-1/", None), ["T-1/1", "T-1/10", "T-1/2"]);
    assert_eq!(names("T-1/", Some("T-1/10")), ["T-1/1", "T-1/10"]);
    assert_eq!(names("T-2/", None), ["T-2/1"]);
    assert!(names("T-3/", None).is_empty());
    // A game's parts without its record (never written so) are passed over too.
    let mut b = Batch::new();
    b.delete(Tree::ByGame, "T-1/10");
    s.commit(b).unwrap();
    assert_eq!(names("T-1/", None), ["T-1/1", "T-1/2"]);
}

#[test]
fn the_step_record_names_the_message_a_process_died_in_until_it_is_cleared() {
    let dir = TempDir::new("step-record");
    let s = Store::open(&dir.0).unwrap();
    assert_eq!(s.step().interrupted().unwrap(), None);
    s.step().begins(7, 42).unwrap();
    // Another handle (the next process) reads what this one wrote, without a sync.
    drop(s);
    let s = Store::open(&dir.0).unwrap();
    assert_eq!(s.step().interrupted().unwrap(), Some((7, 42)));
    s.step().ends().unwrap();
    assert_eq!(s.step().interrupted().unwrap(), None);
    // The count of deaths is durable and ends with the message's own step.
    let mut b = Batch::new();
    b.begin_uid(7, 42, 2);
    s.commit(b).unwrap();
    assert_eq!(s.begun(7, 42).unwrap(), 2);
    let mut b = Batch::new();
    b.uid_done(7, 42);
    s.commit(b).unwrap();
    assert_eq!(s.begun(7, 42).unwrap(), 0);
}

/// Writes the marks `marks` (and no other) of a version that counted the steps after layout 2 by
/// marks, and version 2, as that version left a store.
fn write_marks(s: &Store, marks: &[schema::Mark]) {
    use schema::Mark::{DueIndex, EndsMigrated, KeysByGame, RotatedIndex, Shelf};
    let mut b = Batch::new();
    for m in [EndsMigrated, Shelf, DueIndex, KeysByGame, RotatedIndex] {
        b.delete(Tree::Meta, m.key());
    }
    b.put(Tree::Meta, SCHEMA_KEY, &LAYOUT_VERSION);
    for m in marks {
        b.put(Tree::Meta, m.key(), &true);
    }
    s.commit(b).unwrap();
}

#[test]
fn a_store_of_version_2_stands_where_its_marks_say_in_order_and_no_step_is_done_twice() {
    use schema::Mark::{DueIndex, EndsMigrated, KeysByGame, RotatedIndex, Shelf};
    let dir = TempDir::new("marks");
    let s = Store::open(&dir.0.join("store")).unwrap();
    let cases: &[(&[schema::Mark], u32)] = &[
        (&[], 2),
        (&[EndsMigrated], 3),
        (&[EndsMigrated, Shelf], 4),
        (&[EndsMigrated, Shelf, DueIndex, KeysByGame], 4),
        (
            &[EndsMigrated, Shelf, DueIndex, KeysByGame, RotatedIndex],
            5,
        ),
        // A step missing before a mark: the version stops there.
        (&[Shelf], 2),
        (&[DueIndex, KeysByGame, RotatedIndex], 2),
        (&[EndsMigrated, DueIndex, KeysByGame, RotatedIndex], 3),
    ];
    for (marks, version) in cases {
        write_marks(&s, marks);
        assert_eq!(migrate::version(&s).unwrap(), Some(*version), "{marks:?}");
        assert_eq!(s.upgrade().done().unwrap(), *version == SCHEMA_VERSION);
    }
    // The shelf marked done, the ends not: step 3 is done, step 4 only recorded — the games of a
    // rotated tournament stay where they are, as the earlier versions left them.
    write_marks(&s, &[Shelf]);
    let mut state =
        crate::core::testkit::registered(&crate::core::testkit::duel(crate::rules::RuleSet::Fax));
    for t in state.tournaments.values_mut() {
        t.rotated = true;
    }
    let before = state.clone();
    s.upgrade().ends(&mut state).unwrap();
    assert_eq!(migrate::version(&s).unwrap(), Some(3));
    let rows =
        |_: &crate::core::model::Tournament, _: &[crate::core::model::Game]| Vec::<u8>::new();
    s.upgrade().shelf(&mut state, &rows).unwrap();
    assert_eq!(migrate::version(&s).unwrap(), Some(4));
    assert_eq!(state.games, before.games, "nothing shelved");
    assert!(!dir.0.join("shelf").exists());
    // Step 5 is due, and only it; one asked out of order is refused.
    assert!(!s.upgrade().done().unwrap());
    write_marks(&s, &[Shelf]);
    assert!(s.upgrade().indexes(&state, |_| {}).is_err());
    let mut b = Batch::new();
    b.put(Tree::Meta, SCHEMA_KEY, &(SCHEMA_VERSION - 1));
    s.commit(b).unwrap();
    s.upgrade().indexes(&state, |_| {}).unwrap();
    assert!(s.upgrade().done().unwrap());
}
