//! Durable approvals. The conditional updates here are the atomic part of
//! the rules (single use, expiry); why a transition was refused is decided
//! by the core from the stored row.

use rusqlite::{OptionalExtension, Row, params};
use warden_protocol::{Approval, ApprovalState};

use crate::{Store, StoreError, StoreResult, sql_i64};

fn state_str(state: ApprovalState) -> &'static str {
    match state {
        ApprovalState::Pending => "pending",
        ApprovalState::Approved => "approved",
        ApprovalState::Denied => "denied",
        ApprovalState::Consumed => "consumed",
    }
}

fn parse_state(text: &str) -> StoreResult<ApprovalState> {
    Ok(match text {
        "pending" => ApprovalState::Pending,
        "approved" => ApprovalState::Approved,
        "denied" => ApprovalState::Denied,
        "consumed" => ApprovalState::Consumed,
        other => return Err(StoreError::Corrupt(format!("approval state `{other}`"))),
    })
}

const COLUMNS: &str = "id, session_id, tool, target, arguments_hash, arguments, command, risk, description, created_at_ms, expires_at_ms, state, reason";

fn from_row(row: &Row<'_>) -> rusqlite::Result<(Approval, String, String)> {
    let arguments: String = row.get(5)?;
    let state: String = row.get(11)?;
    let created: i64 = row.get(9)?;
    let expires: i64 = row.get(10)?;
    Ok((
        Approval {
            id: row.get(0)?,
            session_id: row.get(1)?,
            tool: row.get(2)?,
            target: row.get(3)?,
            arguments_hash: row.get(4)?,
            arguments: serde_json::Value::Null,
            command: row.get(6)?,
            risk: row.get(7)?,
            description: row.get(8)?,
            created_at_ms: u64::try_from(created).unwrap_or(0),
            expires_at_ms: u64::try_from(expires).unwrap_or(0),
            state: ApprovalState::Pending,
            reason: row.get(12)?,
        },
        arguments,
        state,
    ))
}

fn finish((mut approval, arguments, state): (Approval, String, String)) -> StoreResult<Approval> {
    approval.arguments = serde_json::from_str(&arguments)
        .map_err(|e| StoreError::Corrupt(format!("approval {} arguments: {e}", approval.id)))?;
    approval.state = parse_state(&state)?;
    Ok(approval)
}

impl Store {
    pub fn insert_approval(&self, approval: &Approval) -> StoreResult<()> {
        let arguments = serde_json::to_string(&approval.arguments)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.conn()?.execute(
            &format!("INSERT INTO approvals ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"),
            params![
                approval.id,
                approval.session_id,
                approval.tool,
                approval.target,
                approval.arguments_hash,
                arguments,
                approval.command,
                approval.risk,
                approval.description,
                sql_i64(approval.created_at_ms),
                sql_i64(approval.expires_at_ms),
                state_str(approval.state),
                approval.reason,
            ],
        )?;
        Ok(())
    }

    pub fn approval(&self, id: &str) -> StoreResult<Option<Approval>> {
        let row = self
            .conn()?
            .query_row(
                &format!("SELECT {COLUMNS} FROM approvals WHERE id = ?1"),
                params![id],
                from_row,
            )
            .optional()?;
        row.map(finish).transpose()
    }

    /// Pending approvals of every session, oldest first.
    pub fn pending_approvals(&self, now_ms: u64) -> StoreResult<Vec<Approval>> {
        let conn = self.conn()?;
        let mut statement = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM approvals WHERE state = 'pending' AND expires_at_ms > ?1 ORDER BY created_at_ms"
        ))?;
        let rows = statement.query_map(params![sql_i64(now_ms)], from_row)?;
        rows.map(|r| r.map_err(StoreError::from).and_then(finish))
            .collect()
    }

    /// Move a pending, unexpired approval to `state`. Returns the updated
    /// approval, or `None` when no such pending approval exists.
    pub fn decide_if_pending(
        &self,
        id: &str,
        state: ApprovalState,
        reason: Option<&str>,
        now_ms: u64,
    ) -> StoreResult<Option<Approval>> {
        let changed = self.conn()?.execute(
            "UPDATE approvals SET state = ?2, reason = ?3 WHERE id = ?1 AND state = 'pending' AND expires_at_ms > ?4",
            params![id, state_str(state), reason, sql_i64(now_ms)],
        )?;
        if changed == 1 {
            self.approval(id)
        } else {
            Ok(None)
        }
    }

    /// Atomically consume an approved, unexpired approval (single use).
    pub fn consume_if_approved(&self, id: &str, now_ms: u64) -> StoreResult<Option<Approval>> {
        let changed = self.conn()?.execute(
            "UPDATE approvals SET state = 'consumed' WHERE id = ?1 AND state = 'approved' AND expires_at_ms > ?2",
            params![id, sql_i64(now_ms)],
        )?;
        if changed == 1 {
            self.approval(id)
        } else {
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn approval() -> Approval {
        Approval {
            id: "a1".into(),
            session_id: "s".into(),
            tool: "control".into(),
            target: "vm:pve1:101".into(),
            arguments_hash: "h".into(),
            arguments: json!({"action": "guest", "target": "web1", "operation": "stop"}),
            command: "qm stop '101'".into(),
            risk: "high_write".into(),
            description: "stop web1".into(),
            created_at_ms: 1_000,
            expires_at_ms: 301_000,
            state: ApprovalState::Pending,
            reason: None,
        }
    }

    #[test]
    fn approvals_survive_a_restart_and_are_single_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("warden.db");
        {
            let store = Store::open(&path).unwrap();
            store.insert_approval(&approval()).unwrap();
            assert_eq!(store.pending_approvals(2_000).unwrap().len(), 1);
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.approval("a1").unwrap(), Some(approval()));
        assert!(
            store.consume_if_approved("a1", 2_000).unwrap().is_none(),
            "pending cannot be consumed"
        );
        let approved = store
            .decide_if_pending("a1", ApprovalState::Approved, None, 2_000)
            .unwrap()
            .unwrap();
        assert_eq!(approved.state, ApprovalState::Approved);
        assert!(
            store
                .decide_if_pending("a1", ApprovalState::Denied, Some("no"), 2_000)
                .unwrap()
                .is_none()
        );
        assert_eq!(
            store
                .consume_if_approved("a1", 3_000)
                .unwrap()
                .unwrap()
                .state,
            ApprovalState::Consumed
        );
        assert!(
            store.consume_if_approved("a1", 3_000).unwrap().is_none(),
            "single use"
        );
    }

    #[test]
    fn expired_approvals_cannot_be_decided() {
        let store = Store::open_in_memory().unwrap();
        store.insert_approval(&approval()).unwrap();
        assert!(
            store
                .decide_if_pending("a1", ApprovalState::Approved, None, 301_000)
                .unwrap()
                .is_none()
        );
        assert!(store.pending_approvals(301_000).unwrap().is_empty());
    }
}
