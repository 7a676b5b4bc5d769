//! Durable notes from `knowledge remember`.

use rusqlite::params;

use crate::{Store, StoreResult, sql_i64};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredNote {
    pub target: Option<String>,
    pub text: String,
    pub at_ms: u64,
}

/// Notes kept at most; the oldest go first.
const MAX_NOTES: i64 = 10_000;

impl Store {
    pub fn add_note(&self, note: &StoredNote) -> StoreResult<()> {
        let mut conn = self.conn()?;
        // IMMEDIATE: take the write lock first, so concurrent writers wait
        // (busy timeout) instead of failing on a stale read.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO notes (target, note, at_ms) VALUES (?1, ?2, ?3)",
            params![note.target, note.text, sql_i64(note.at_ms)],
        )?;
        tx.execute(
            "DELETE FROM notes WHERE id NOT IN (SELECT id FROM notes ORDER BY id DESC LIMIT ?1)",
            params![MAX_NOTES],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Newest first.
    pub fn notes(&self) -> StoreResult<Vec<StoredNote>> {
        let conn = self.conn()?;
        let mut statement =
            conn.prepare("SELECT target, note, at_ms FROM notes ORDER BY id DESC")?;
        let rows = statement.query_map([], |row| {
            Ok(StoredNote {
                target: row.get(0)?,
                text: row.get(1)?,
                at_ms: u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0),
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_newest_first() {
        let store = Store::open_in_memory().unwrap();
        for (i, text) in ["a", "b"].iter().enumerate() {
            store
                .add_note(&StoredNote {
                    target: None,
                    text: text.to_string(),
                    at_ms: i as u64,
                })
                .unwrap();
        }
        let notes = store.notes().unwrap();
        assert_eq!(notes[0].text, "b");
        assert_eq!(notes[1].text, "a");
    }
}
