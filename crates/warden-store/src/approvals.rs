//! Durable approvals. The conditional updates here are the atomic part of
//! the rules (single use, expiry); why a transition was refused is decided
//! by the core from the stored row. Every decision and every expiry is
//! audited in the same transaction as the change itself.

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use warden_protocol::{Approval, ApprovalState, AuditRecord, FileBefore};

use crate::{Store, StoreError, StoreResult, sql_i64};

/// Who the log names for what nobody decided (expiry).
const SYSTEM_ACTOR: &str = "system";

fn parse_state(text: &str) -> StoreResult<ApprovalState> {
    text.parse()
        .map_err(|e: warden_protocol::UnknownApprovalState| StoreError::Corrupt(e.to_string()))
}

const COLUMNS: &str = "id, session_id, tool, target, arguments_hash, arguments, command, risk, description, created_at_ms, expires_at_ms, state, reason, decided_by, decided_at_ms, snapshot, file_before";

/// An approval row with its JSON columns still as text: arguments, state,
/// the snapshot offer (`None` when the call touches no guest) and the file
/// before an edit (`None` for other calls).
type RawApproval = (Approval, String, String, Option<String>, Option<String>);

fn from_row(row: &Row<'_>) -> rusqlite::Result<RawApproval> {
    let arguments: String = row.get(5)?;
    let state: String = row.get(11)?;
    let created: i64 = row.get(9)?;
    let expires: i64 = row.get(10)?;
    let decided_at: Option<i64> = row.get(14)?;
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
            decided_by: row.get(13)?,
            decided_at_ms: decided_at.map(|t| u64::try_from(t).unwrap_or(0)),
            // Parsed in `finish`. What the approver was offered; the
            // executor decides again when the call runs.
            snapshot: None,
            file_before: None,
        },
        arguments,
        state,
        row.get(15)?,
        row.get(16)?,
    ))
}

fn finish(
    (mut approval, arguments, state, snapshot, file_before): RawApproval,
) -> StoreResult<Approval> {
    approval.arguments = serde_json::from_str(&arguments)
        .map_err(|e| StoreError::Corrupt(format!("approval {} arguments: {e}", approval.id)))?;
    approval.state = parse_state(&state)?;
    approval.snapshot = snapshot
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .map_err(|e| {
            StoreError::Corrupt(format!("approval {} snapshot offer: {e}", approval.id))
        })?;
    approval.file_before = file_before
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .map_err(|e| StoreError::Corrupt(format!("approval {} file before: {e}", approval.id)))?;
    Ok(approval)
}

fn load(conn: &Connection, id: &str) -> StoreResult<Option<Approval>> {
    let row = conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM approvals WHERE id = ?1"),
            params![id],
            from_row,
        )
        .optional()?;
    row.map(finish).transpose()
}

fn select(
    conn: &Connection,
    filter: &str,
    values: &[&dyn rusqlite::ToSql],
) -> StoreResult<Vec<Approval>> {
    let mut statement = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM approvals {filter} ORDER BY created_at_ms, id"
    ))?;
    let rows = statement.query_map(values, from_row)?;
    rows.map(|r| r.map_err(StoreError::from).and_then(finish))
        .collect()
}

/// The audit record of a change to an approval.
fn approval_record(
    approval: &Approval,
    actor: &str,
    decision: &str,
    reason: Option<String>,
) -> AuditRecord {
    AuditRecord {
        session_id: approval.session_id.clone(),
        actor: actor.to_string(),
        tool: approval.tool.clone(),
        target: Some(approval.target.clone()),
        decision: decision.to_string(),
        code: None,
        command: approval.command.clone(),
        reason,
        duration_ms: 0,
    }
}

impl Store {
    pub fn insert_approval(&self, approval: &Approval) -> StoreResult<()> {
        let arguments = serde_json::to_string(&approval.arguments)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let snapshot = approval
            .snapshot
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let file_before = approval
            .file_before
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        self.conn()?.execute(
            &format!("INSERT INTO approvals ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"),
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
                approval.state.as_str(),
                approval.reason,
                approval.decided_by,
                approval.decided_at_ms.map(sql_i64),
                snapshot,
                file_before,
            ],
        )?;
        Ok(())
    }

    /// Keep the file an edit waiting for approval would change, as it was
    /// (only while the approval is pending: a decided one stays as decided).
    pub fn set_file_before(&self, id: &str, before: &FileBefore) -> StoreResult<bool> {
        let text = serde_json::to_string(before).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let changed = self.conn()?.execute(
            "UPDATE approvals SET file_before = ?1 WHERE id = ?2 AND state = 'pending'",
            params![text, id],
        )?;
        Ok(changed == 1)
    }

    pub fn approval(&self, id: &str) -> StoreResult<Option<Approval>> {
        load(&*self.conn()?, id)
    }

    /// Pending approvals of every session that have not expired yet, oldest first.
    pub fn pending_approvals(&self, now_ms: u64) -> StoreResult<Vec<Approval>> {
        select(
            &*self.conn()?,
            "WHERE state = 'pending' AND expires_at_ms > ?1",
            &[&sql_i64(now_ms)],
        )
    }

    /// Approvals in `state` (every approval when `None`), oldest first. Call
    /// [`Store::expire_approvals`] first for `expired` to be up to date.
    pub fn approvals(&self, state: Option<ApprovalState>) -> StoreResult<Vec<Approval>> {
        let conn = self.conn()?;
        match state {
            Some(state) => select(&conn, "WHERE state = ?1", &[&state.as_str()]),
            None => select(&conn, "", &[]),
        }
    }

    /// Mark every pending or approved (not yet run) approval past its
    /// expiry `expired`, auditing each (actor `system`). Returns them.
    pub fn expire_approvals(&self, now_ms: u64) -> StoreResult<Vec<Approval>> {
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let stale = select(
            &tx,
            "WHERE state IN ('pending', 'approved') AND expires_at_ms <= ?1",
            &[&sql_i64(now_ms)],
        )?;
        let mut expired = Vec::with_capacity(stale.len());
        let mut anchor = None;
        for mut approval in stale {
            tx.execute(
                "UPDATE approvals SET state = 'expired' WHERE id = ?1",
                params![approval.id],
            )?;
            let why = match approval.state {
                ApprovalState::Approved => "approved but not run before it expired",
                _ => "nobody decided before it expired",
            };
            let record = approval_record(&approval, SYSTEM_ACTOR, "expired", Some(why.into()));
            anchor = Some(self.append_in(&tx, &record, now_ms)?.anchor);
            approval.state = ApprovalState::Expired;
            expired.push(approval);
        }
        tx.commit()?;
        if let Some(anchor) = anchor {
            self.anchor_after_commit(&mut conn, &anchor)?;
        }
        Ok(expired)
    }

    /// Approve or deny a pending, unexpired approval, recording who decided,
    /// when and why, and audit it in the same transaction (no decision
    /// without its record). `None` when no such pending approval exists.
    pub fn decide_if_pending(
        &self,
        id: &str,
        state: ApprovalState,
        decided_by: &str,
        reason: Option<&str>,
        now_ms: u64,
    ) -> StoreResult<Option<Approval>> {
        let decision = match state {
            ApprovalState::Approved | ApprovalState::Denied => state.as_str(),
            ApprovalState::Pending | ApprovalState::Expired | ApprovalState::Consumed => {
                return Err(StoreError::NotADecision(state));
            }
        };
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let changed = tx.execute(
            "UPDATE approvals SET state = ?2, reason = ?3, decided_by = ?4, decided_at_ms = ?5 WHERE id = ?1 AND state = 'pending' AND expires_at_ms > ?5",
            params![id, decision, reason, decided_by, sql_i64(now_ms)],
        )?;
        if changed != 1 {
            return Ok(None);
        }
        let Some(approval) = load(&tx, id)? else {
            return Ok(None);
        };
        let record = approval_record(&approval, decided_by, decision, reason.map(str::to_string));
        let appended = self.append_in(&tx, &record, now_ms)?;
        tx.commit()?;
        self.anchor_after_commit(&mut conn, &appended.anchor)?;
        Ok(Some(approval))
    }

    /// Atomically consume an approved, unexpired approval (single use).
    pub fn consume_if_approved(&self, id: &str, now_ms: u64) -> StoreResult<Option<Approval>> {
        let conn = self.conn()?;
        let changed = conn.execute(
            "UPDATE approvals SET state = 'consumed' WHERE id = ?1 AND state = 'approved' AND expires_at_ms > ?2",
            params![id, sql_i64(now_ms)],
        )?;
        if changed == 1 {
            load(&conn, id)
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
            decided_by: None,
            decided_at_ms: None,
            snapshot: None,
            file_before: None,
        }
    }

    #[test]
    fn the_file_before_an_edit_is_kept_while_pending_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("w.db")).unwrap();
        store.insert_approval(&approval()).unwrap();
        let before = FileBefore {
            content: Some("listen 80;\n".into()),
            truncated: false,
            unreadable: None,
        };
        assert!(store.set_file_before("a1", &before).unwrap());
        assert_eq!(
            store.approval("a1").unwrap().unwrap().file_before,
            Some(before.clone())
        );
        store
            .decide_if_pending("a1", ApprovalState::Denied, "user:x", Some("no"), 2_000)
            .unwrap();
        assert!(!store.set_file_before("a1", &before).unwrap());
    }

    fn with_id(id: &str, created_at_ms: u64) -> Approval {
        Approval {
            id: id.into(),
            created_at_ms,
            ..approval()
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
            .decide_if_pending("a1", ApprovalState::Approved, "user:alice", None, 2_000)
            .unwrap()
            .unwrap();
        assert_eq!(approved.state, ApprovalState::Approved);
        assert!(
            store
                .decide_if_pending("a1", ApprovalState::Denied, "user:bob", Some("no"), 2_000)
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
    fn a_snapshot_offer_is_kept_with_its_approval() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("warden.db");
        let offered = Approval {
            snapshot: Some(warden_protocol::SnapshotOffer {
                guest: "vm:pve1:101".into(),
                take: true,
                undoable: "roll back web1 to the snapshot".into(),
            }),
            ..approval()
        };
        Store::open(&path)
            .unwrap()
            .insert_approval(&offered)
            .unwrap();
        let store = Store::open(&path).unwrap();
        assert_eq!(store.approval("a1").unwrap(), Some(offered.clone()));
        assert_eq!(store.pending_approvals(2_000).unwrap(), vec![offered]);
    }

    #[test]
    fn a_corrupt_snapshot_offer_is_a_clear_error() {
        let store = Store::open_in_memory().unwrap();
        store.insert_approval(&approval()).unwrap();
        store
            .conn()
            .unwrap()
            .execute(
                "UPDATE approvals SET snapshot = '{not json' WHERE id = 'a1'",
                [],
            )
            .unwrap();
        let error = store.approval("a1").unwrap_err().to_string();
        assert!(error.contains("approval a1 snapshot offer"), "{error}");
    }

    #[test]
    fn decisions_record_who_when_and_why_and_are_audited() {
        let store = Store::open_in_memory().unwrap();
        store.insert_approval(&approval()).unwrap();
        let denied = store
            .decide_if_pending(
                "a1",
                ApprovalState::Denied,
                "user:alice",
                Some("maintenance window is tonight"),
                5_000,
            )
            .unwrap()
            .unwrap();
        assert_eq!(denied.decided_by.as_deref(), Some("user:alice"));
        assert_eq!(denied.decided_at_ms, Some(5_000));
        assert_eq!(
            denied.reason.as_deref(),
            Some("maintenance window is tonight")
        );
        assert_eq!(store.approval("a1").unwrap(), Some(denied));

        let log = store.audit_tail(10).unwrap();
        assert_eq!(log.len(), 1);
        let record = &log[0].record;
        assert_eq!(
            (
                record.actor.as_str(),
                record.decision.as_str(),
                record.command.as_str(),
                record.reason.as_deref(),
                record.target.as_deref(),
                record.session_id.as_str()
            ),
            (
                "user:alice",
                "denied",
                "qm stop '101'",
                Some("maintenance window is tonight"),
                Some("vm:pve1:101"),
                "s"
            )
        );
        assert_eq!(log[0].at, "1970-01-01T00:00:05.000Z");
        assert!(store.verify_audit().unwrap().intact);
    }

    #[test]
    fn only_approve_and_deny_are_decisions() {
        let store = Store::open_in_memory().unwrap();
        store.insert_approval(&approval()).unwrap();
        for state in [
            ApprovalState::Pending,
            ApprovalState::Expired,
            ApprovalState::Consumed,
        ] {
            assert!(matches!(
                store.decide_if_pending("a1", state, "user:alice", None, 2_000),
                Err(StoreError::NotADecision(s)) if s == state
            ));
        }
        assert_eq!(
            store.approval("a1").unwrap().unwrap().state,
            ApprovalState::Pending
        );
    }

    #[test]
    fn expired_approvals_cannot_be_decided_and_are_marked_expired() {
        let store = Store::open_in_memory().unwrap();
        store.insert_approval(&approval()).unwrap();
        store.insert_approval(&with_id("a2", 1_001)).unwrap();
        store
            .insert_approval(&Approval {
                expires_at_ms: 900_000,
                ..with_id("a3", 1_002)
            })
            .unwrap();
        store
            .decide_if_pending("a2", ApprovalState::Approved, "user:alice", None, 2_000)
            .unwrap()
            .unwrap();
        assert!(
            store
                .decide_if_pending("a1", ApprovalState::Approved, "user:alice", None, 301_000)
                .unwrap()
                .is_none()
        );
        assert_eq!(
            store
                .pending_approvals(301_000)
                .unwrap()
                .iter()
                .map(|a| a.id.as_str())
                .collect::<Vec<_>>(),
            ["a3"]
        );

        let expired = store.expire_approvals(301_000).unwrap();
        assert_eq!(
            expired.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
            ["a1", "a2"],
            "pending and approved-but-unused both expire"
        );
        assert!(expired.iter().all(|a| a.state == ApprovalState::Expired));
        assert!(store.expire_approvals(301_000).unwrap().is_empty(), "once");
        assert!(store.consume_if_approved("a2", 301_000).unwrap().is_none());

        let ids = |state| {
            store
                .approvals(Some(state))
                .unwrap()
                .into_iter()
                .map(|a| a.id)
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(ApprovalState::Expired), ["a1", "a2"]);
        assert_eq!(ids(ApprovalState::Pending), ["a3"]);
        assert!(ids(ApprovalState::Approved).is_empty());
        assert_eq!(store.approvals(None).unwrap().len(), 3);

        let log = store.audit_tail(10).unwrap();
        let summary: Vec<(&str, &str)> = log
            .iter()
            .map(|e| (e.record.actor.as_str(), e.record.decision.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                ("user:alice", "approved"),
                ("system", "expired"),
                ("system", "expired")
            ]
        );
        assert!(store.verify_audit().unwrap().intact);
    }

    #[test]
    fn no_decision_without_its_audit_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("warden.db");
        let store = Store::open(&path).unwrap();
        store.insert_approval(&approval()).unwrap();
        store
            .append_audit(
                &approval_record(&approval(), "assistant", "approval_required", None),
                1_000,
            )
            .unwrap();
        // The log loses its newest record behind Warden's back.
        let raw = Connection::open(&path).unwrap();
        raw.execute("DELETE FROM audit", []).unwrap();
        let refused =
            store.decide_if_pending("a1", ApprovalState::Approved, "user:alice", None, 2_000);
        assert!(
            matches!(refused, Err(StoreError::AuditTampered(_))),
            "{refused:?}"
        );
        assert_eq!(
            store.approval("a1").unwrap().unwrap().state,
            ApprovalState::Pending,
            "the decision was rolled back with its record"
        );
    }
}
