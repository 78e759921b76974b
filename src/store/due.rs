//! The index of deadlines (`store.due()`): each running game's earliest deadline (among the
//! game's records, `by_game`), each tournament's next digest and rotation (`due`), and all of
//! them in time order (`due_order`), written with their instants in the transaction's own step
//! (`Batch::put_due`). The shell keeps it (`crate::app::due`); a start reads what is due without
//! looking at every game.

use chrono::{DateTime, Utc};

use super::batch::{Batch, Op};
use super::db::Db;
use super::error::StoreError;
use super::handle::Store;
use super::schema::{self, DueEntry, Tree, due_key, due_place, parse_due_key, parse_due_order_key};

/// The index of deadlines of a [`Store`] (`store.due()`).
pub struct Due<'a> {
    db: &'a Db,
}

impl Store {
    /// The index of deadlines.
    pub fn due(&self) -> Due<'_> {
        Due { db: &self.db }
    }
}

impl Due<'_> {
    /// Hands every entry of the index of deadlines to `each`, by kind in time order (entries
    /// of a layout this version does not know are passed over).
    pub fn for_each(
        &self,
        mut each: impl FnMut(DueEntry, DateTime<Utc>),
    ) -> Result<(), StoreError> {
        self.db.each_raw(Tree::DueOrder, &[], |k, _| {
            if let Some((at, key)) = parse_due_order_key(k)
                && let Some(e) = parse_due_key(key)
            {
                each(e, at);
            }
            Ok(())
        })
    }

    /// Empties the index of deadlines in `batch` (it is written anew): `Due`, `DueOrder` and
    /// the games' entries the latter names.
    pub fn clear(&self, batch: &mut Batch) -> Result<(), StoreError> {
        for key in self.db.keys_with_prefix(Tree::DueOrder, &[])? {
            if let Some((_, entry)) = parse_due_order_key(&key) {
                let (tree, place) = due_place(entry);
                if tree == Tree::ByGame {
                    batch.delete(tree, place);
                }
            }
            batch.delete(Tree::DueOrder, key);
        }
        for key in self.db.keys_with_prefix(Tree::Due, &[])? {
            batch.delete(Tree::Due, key);
        }
        Ok(())
    }

    /// The entries of the index of deadlines of one kind (`g/`, `d/`, `r/`: [`DueEntry`]'s
    /// key layout), with their instants, in time order.
    pub fn of_kind(&self, prefix: &str) -> Result<Vec<(DueEntry, DateTime<Utc>)>, StoreError> {
        let mut out = Vec::new();
        let kind = prefix.as_bytes().first().copied().unwrap_or_default();
        self.db.each_raw(Tree::DueOrder, &[kind], |k, _| {
            if let Some((at, key)) = parse_due_order_key(k)
                && key.starts_with(prefix)
                && let Some(e) = parse_due_key(key)
            {
                out.push((e, at));
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The earliest instant in the index of deadlines among the entries of one kind (`b'g'`,
    /// `b'd'`, `b'r'`: [`DueEntry`]'s key layout) — one read, the index ordered by kind and time.
    pub fn first(&self, kind: u8) -> Result<Option<DateTime<Utc>>, StoreError> {
        let scanning = || self.db.db_err(format!("scanning {}", Tree::DueOrder));
        let t = self.db.read(Tree::DueOrder)?;
        let start = [kind];
        let end = [kind.saturating_add(1)];
        let mut range = t.range::<&[u8]>(&start[..]..&end[..]).map_err(scanning())?;
        match range.next() {
            Some(item) => {
                let (k, _) = item.map_err(scanning())?;
                Ok(parse_due_order_key(k.value()).map(|(at, _)| at))
            }
            None => Ok(None),
        }
    }

    /// Every entry of one kind (see [`Due::first`]) of the index of deadlines due by
    /// `now`, earliest first.
    pub fn until(
        &self,
        kind: u8,
        now: DateTime<Utc>,
    ) -> Result<Vec<(DueEntry, DateTime<Utc>)>, StoreError> {
        let scanning = || self.db.db_err(format!("scanning {}", Tree::DueOrder));
        let t = self.db.read(Tree::DueOrder)?;
        let start = [kind];
        let mut end = vec![kind];
        end.extend_from_slice(&schema::instant_bytes(
            now + chrono::Duration::microseconds(1),
        ));
        let mut out = Vec::new();
        for item in t
            .range::<&[u8]>(&start[..]..end.as_slice())
            .map_err(scanning())?
        {
            let (k, _) = item.map_err(scanning())?;
            if let Some((at, key)) = parse_due_order_key(k.value())
                && let Some(e) = parse_due_key(key)
            {
                out.push((e, at));
            }
        }
        Ok(out)
    }
}

impl Batch {
    /// Writes entry `e` of the index of deadlines (`None`: removes it).
    pub fn put_due(&mut self, e: &DueEntry, at: Option<DateTime<Utc>>) -> &mut Batch {
        self.ops.push(Op::Due {
            key: due_key(e),
            at,
        });
        self
    }
}
