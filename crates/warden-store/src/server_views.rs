//! Reads the HTTP API needs beyond the CLI's (audit pages, approvals by
//! state, messages with their times), and who asked for and decided each
//! approval (a side table, so the approvals table stays the core's).

use rusqlite::{OptionalExtension, params};

use crate::{SessionSummary, Store, StoreResult, sql_i64};

/// One stored message (the caller's JSON) and when it was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMessage {
    pub at_ms: u64,
    pub json: String,
}

/// Who asked for an approval (the user whose message started the turn),
/// who decided it and when, and when it was marked expired.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApprovalPeople {
    pub requested_by: Option<String>,
    pub decided_by: Option<String>,
    pub decided_at_ms: Option<u64>,
    pub expired_at_ms: Option<u64>,
}

fn opt_ms(value: Option<i64>) -> Option<u64> {
    value.map(|v| u64::try_from(v).unwrap_or(0))
}

/// Which approvals to list. `Expired` are those marked expired, and
/// pending ones past their expiry that no sweep has marked yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalFilter {
    All,
    /// Pending and not yet expired.
    Pending,
    /// Pending past the expiry.
    Expired,
    Approved,
    Denied,
    Consumed,
}

impl Store {
    /// Ids of the approvals matching `filter`, newest first, at most `limit`.
    pub fn approval_ids(
        &self,
        filter: ApprovalFilter,
        now_ms: u64,
        limit: usize,
    ) -> StoreResult<Vec<String>> {
        let condition = match filter {
            ApprovalFilter::All => "1 = 1",
            ApprovalFilter::Pending => "state = 'pending' AND expires_at_ms > ?1",
            ApprovalFilter::Expired => {
                "(state = 'expired' OR (state = 'pending' AND expires_at_ms <= ?1))"
            }
            ApprovalFilter::Approved => "state = 'approved'",
            ApprovalFilter::Denied => "state = 'denied'",
            ApprovalFilter::Consumed => "state = 'consumed'",
        };
        let conn = self.conn()?;
        let mut statement = conn.prepare(&format!(
            "SELECT id FROM approvals WHERE {condition} AND ?1 = ?1
             ORDER BY created_at_ms DESC, id LIMIT ?2"
        ))?;
        let rows = statement.query_map(
            params![sql_i64(now_ms), i64::try_from(limit).unwrap_or(i64::MAX)],
            |r| r.get::<_, String>(0),
        )?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Pending, unexpired approvals (a gauge).
    pub fn pending_approval_count(&self, now_ms: u64) -> StoreResult<u64> {
        let n: i64 = self.conn()?.query_row(
            "SELECT COUNT(*) FROM approvals WHERE state = 'pending' AND expires_at_ms > ?1",
            params![sql_i64(now_ms)],
            |r| r.get(0),
        )?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    pub fn record_approval_requester(&self, approval_id: &str, username: &str) -> StoreResult<()> {
        self.conn()?.execute(
            "INSERT INTO approval_people (approval_id, requested_by) VALUES (?1, ?2)
             ON CONFLICT(approval_id) DO UPDATE SET requested_by = ?2",
            params![approval_id, username],
        )?;
        Ok(())
    }

    pub fn approval_people(&self, approval_id: &str) -> StoreResult<ApprovalPeople> {
        Ok(self
            .conn()?
            .query_row(
                "SELECT requested_by, decided_by, decided_at_ms, expired_at_ms
                 FROM approval_people WHERE approval_id = ?1",
                params![approval_id],
                |r| {
                    Ok(ApprovalPeople {
                        requested_by: r.get(0)?,
                        decided_by: r.get(1)?,
                        decided_at_ms: opt_ms(r.get(2)?),
                        expired_at_ms: opt_ms(r.get(3)?),
                    })
                },
            )
            .optional()?
            .unwrap_or_default())
    }

    /// Every message of a session with the time it was stored, in order.
    pub fn messages_with_times(&self, session_id: &str) -> StoreResult<Vec<StoredMessage>> {
        let conn = self.conn()?;
        let mut statement =
            conn.prepare("SELECT at_ms, message FROM messages WHERE session_id = ?1 ORDER BY seq")?;
        let rows = statement.query_map(params![session_id], |row| {
            Ok(StoredMessage {
                at_ms: u64::try_from(row.get::<_, i64>(0)?).unwrap_or(0),
                json: row.get(1)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// One stored session.
    pub fn session_summary(&self, id: &str) -> StoreResult<Option<SessionSummary>> {
        Ok(self
            .conn()?
            .query_row(
                "SELECT s.id, s.created_at_ms, s.updated_at_ms, s.title,
                        (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)
                 FROM sessions s WHERE s.id = ?1",
                params![id],
                |row| {
                    Ok(SessionSummary {
                        id: row.get(0)?,
                        created_at_ms: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                        updated_at_ms: u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0),
                        title: row.get(3)?,
                        messages: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                    })
                },
            )
            .optional()?)
    }

    /// Create a session row with a title (the API's `POST /api/sessions`).
    pub fn create_session(&self, id: &str, title: &str, now_ms: u64) -> StoreResult<()> {
        self.conn()?.execute(
            "INSERT INTO sessions (id, created_at_ms, updated_at_ms, title) VALUES (?1, ?2, ?2, ?3)
             ON CONFLICT(id) DO NOTHING",
            params![id, sql_i64(now_ms), title],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_protocol::{Approval, ApprovalState};

    fn approval(id: &str, created: u64, state: ApprovalState) -> Approval {
        Approval {
            id: id.into(),
            session_id: "s".into(),
            tool: "control".into(),
            target: "host:web1".into(),
            arguments_hash: "h".into(),
            arguments: serde_json::json!({}),
            command: "systemctl restart nginx".into(),
            risk: "medium".into(),
            description: "restart nginx".into(),
            created_at_ms: created,
            expires_at_ms: created + 100,
            state,
            reason: None,
            decided_by: None,
            decided_at_ms: None,
            snapshot: None,
            file_before: None,
        }
    }

    #[test]
    fn approvals_filter_by_state_with_expiry_derived() {
        let store = Store::open_in_memory().unwrap();
        store
            .insert_approval(&approval("old", 0, ApprovalState::Pending))
            .unwrap();
        store
            .insert_approval(&approval("new", 500, ApprovalState::Pending))
            .unwrap();
        store
            .insert_approval(&approval("ok", 400, ApprovalState::Approved))
            .unwrap();
        let at = 550;
        assert_eq!(
            store.approval_ids(ApprovalFilter::Pending, at, 10).unwrap(),
            ["new"]
        );
        assert_eq!(
            store.approval_ids(ApprovalFilter::Expired, at, 10).unwrap(),
            ["old"]
        );
        assert_eq!(
            store
                .approval_ids(ApprovalFilter::Approved, at, 10)
                .unwrap(),
            ["ok"]
        );
        assert!(
            store
                .approval_ids(ApprovalFilter::Denied, at, 10)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            store.approval_ids(ApprovalFilter::All, at, 10).unwrap(),
            ["new", "ok", "old"]
        );
        assert_eq!(
            store
                .approval_ids(ApprovalFilter::All, at, 2)
                .unwrap()
                .len(),
            2
        );
        assert_eq!(store.pending_approval_count(at).unwrap(), 1);
    }

    #[test]
    fn requesters_are_recorded_per_approval() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(
            store.approval_people("a").unwrap(),
            ApprovalPeople::default()
        );
        store.record_approval_requester("a", "olga").unwrap();
        assert_eq!(
            store.approval_people("a").unwrap().requested_by.as_deref(),
            Some("olga")
        );
    }

    #[test]
    fn sessions_get_a_title_and_messages_their_times() {
        let store = Store::open_in_memory().unwrap();
        store.create_session("s1", "my title", 5).unwrap();
        store
            .append_messages("s1", &["{}".into()], Some("first message"), 8)
            .unwrap();
        let summary = store.session_summary("s1").unwrap().unwrap();
        assert_eq!(summary.title, "my title");
        assert_eq!(summary.created_at_ms, 5);
        assert_eq!(
            store.messages_with_times("s1").unwrap(),
            [StoredMessage {
                at_ms: 8,
                json: "{}".into()
            }]
        );
        assert_eq!(store.session_summary("nope").unwrap(), None);
    }
}
