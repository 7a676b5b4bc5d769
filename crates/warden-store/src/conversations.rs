//! Conversation history, so `warden chat --session ID` resumes where it
//! stopped. Messages are stored as the JSON the caller gives (the model
//! seam's message type); the store does not interpret them. Session truth
//! (FSM, ResolvedContext) is deliberately not stored: a resumed session
//! starts discovering again.

use rusqlite::{OptionalExtension, params};

use crate::{Store, StoreResult, sql_i64};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSummary {
    pub id: String,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
    /// The first user message, clipped.
    pub title: String,
    pub messages: u64,
}

impl Store {
    /// Create the session if it does not exist yet.
    pub fn ensure_session(&self, id: &str, now_ms: u64) -> StoreResult<()> {
        self.conn()?.execute(
            "INSERT INTO sessions (id, created_at_ms, updated_at_ms) VALUES (?1, ?2, ?2)
             ON CONFLICT(id) DO NOTHING",
            params![id, sql_i64(now_ms)],
        )?;
        Ok(())
    }

    pub fn session_exists(&self, id: &str) -> StoreResult<bool> {
        Ok(self
            .conn()?
            .query_row("SELECT 1 FROM sessions WHERE id = ?1", params![id], |_| {
                Ok(())
            })
            .optional()?
            .is_some())
    }

    /// Append messages (JSON) after the session's last one, in one
    /// transaction: a crash leaves either all of them or none.
    pub fn append_messages(
        &self,
        session_id: &str,
        messages: &[String],
        title: Option<&str>,
        now_ms: u64,
    ) -> StoreResult<()> {
        let mut conn = self.conn()?;
        // IMMEDIATE: take the write lock first, so concurrent writers wait
        // (busy timeout) instead of failing on a stale read.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO sessions (id, created_at_ms, updated_at_ms) VALUES (?1, ?2, ?2)
             ON CONFLICT(id) DO UPDATE SET updated_at_ms = ?2",
            params![session_id, sql_i64(now_ms)],
        )?;
        if let Some(title) = title {
            let title: String = title.chars().take(80).collect();
            tx.execute(
                "UPDATE sessions SET title = ?2 WHERE id = ?1 AND title = ''",
                params![session_id, title],
            )?;
        }
        let next: i64 = tx.query_row(
            "SELECT COALESCE(MAX(seq), -1) + 1 FROM messages WHERE session_id = ?1",
            params![session_id],
            |row| row.get(0),
        )?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO messages (session_id, seq, at_ms, message) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (offset, message) in messages.iter().enumerate() {
                let seq = next + i64::try_from(offset).unwrap_or(i64::MAX);
                insert.execute(params![session_id, seq, sql_i64(now_ms), message])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every message of a session, in order.
    pub fn messages(&self, session_id: &str) -> StoreResult<Vec<String>> {
        let conn = self.conn()?;
        let mut statement =
            conn.prepare("SELECT message FROM messages WHERE session_id = ?1 ORDER BY seq")?;
        let rows = statement.query_map(params![session_id], |row| row.get::<_, String>(0))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The most recently used sessions first.
    pub fn sessions(&self, limit: usize) -> StoreResult<Vec<SessionSummary>> {
        let conn = self.conn()?;
        let mut statement = conn.prepare(
            "SELECT s.id, s.created_at_ms, s.updated_at_ms, s.title,
                    (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)
             FROM sessions s ORDER BY s.updated_at_ms DESC, s.id LIMIT ?1",
        )?;
        let rows =
            statement.query_map(params![i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
                Ok(SessionSummary {
                    id: row.get(0)?,
                    created_at_ms: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    updated_at_ms: u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0),
                    title: row.get(3)?,
                    messages: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                })
            })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_append_in_order_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        {
            let store = Store::open(&path).unwrap();
            store
                .append_messages(
                    "s1",
                    &["{\"a\":1}".into(), "{\"b\":2}".into()],
                    Some("disk usage"),
                    10,
                )
                .unwrap();
            store
                .append_messages("s1", &["{\"c\":3}".into()], Some("ignored"), 20)
                .unwrap();
            store
                .append_messages("s2", &["{}".into()], None, 15)
                .unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(
            store.messages("s1").unwrap(),
            ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]
        );
        assert!(store.session_exists("s2").unwrap());
        assert!(!store.session_exists("nope").unwrap());
        let sessions = store.sessions(10).unwrap();
        assert_eq!(sessions[0].id, "s1");
        assert_eq!(sessions[0].title, "disk usage");
        assert_eq!(sessions[0].messages, 3);
        assert_eq!(sessions[1].id, "s2");
    }
}
