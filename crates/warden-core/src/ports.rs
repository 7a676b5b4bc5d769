//! The seams between the core and the world: inventory, hosts, approvals and
//! the audit log. The core owns these traits; the binary wires in the real
//! implementations (SQLite, agents, Proxmox, Docker); replay wires in
//! simulated hosts. `MemoryApprovals` and `MemoryAudit` are real in-process
//! implementations, used where nothing must outlive the process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
pub use warden_llm::BoxFuture;
use warden_protocol::routing::{RouteFacts, ShellRoute};
pub use warden_protocol::{Approval, ApprovalState, AuditRecord};
use warden_protocol::{CancelFlag, ErrorCode, FileBefore, Resource, ResourceId};

mod backends;
mod composite;
mod guest_api;
mod unreadable;

pub use backends::{
    Backends, ConversationStore, ConversationStoreError, MemoryConversations, TurnRecord,
    UsageRecord,
};

pub use composite::{CompositeInventory, merge_snapshots};
pub use guest_api::{
    ApiCall, ApiRequest, ApiResult, GuestApi, NoGuestApi, ShutdownTimeout, SnapshotSupport,
};
pub use unreadable::Unreadable;

/// What Warden knows exists (as connectors report it). Connectors publish
/// immutable, indexed snapshots; a tool call takes one (an `Arc` clone) and
/// borrows from it, so a large inventory costs nothing per call.
pub trait Inventory: Send + Sync {
    fn snapshot(&self) -> Arc<InventorySnapshot>;

    /// Where a resource that is gone now lives, when its source knows it
    /// moved (a Proxmox guest migrated to another node: its id changed).
    fn moved_to(&self, _id: &ResourceId) -> Option<ResourceId> {
        None
    }
}

/// Resources with indexes by id and by lower-cased name and alias.
#[derive(Debug, Clone, Default)]
pub struct InventorySnapshot {
    resources: Vec<Resource>,
    by_id: HashMap<ResourceId, usize>,
    /// Lower-cased names and aliases → positions, in inventory order.
    by_name: HashMap<String, Vec<usize>>,
    /// Sources that could not be read: their resources are missing.
    unreadable: Vec<Unreadable>,
}

impl InventorySnapshot {
    /// Index `resources`. A later duplicate id replaces nothing: the first
    /// one reported wins, as connectors list parents before children.
    pub fn new(resources: Vec<Resource>) -> Self {
        let mut by_id = HashMap::with_capacity(resources.len());
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::with_capacity(resources.len());
        for (position, resource) in resources.iter().enumerate() {
            by_id.entry(resource.id.clone()).or_insert(position);
            let mut names: Vec<String> = std::iter::once(&resource.name)
                .chain(resource.aliases.iter())
                .map(|n| n.to_lowercase())
                .collect();
            names.sort();
            names.dedup();
            for name in names {
                by_name.entry(name).or_default().push(position);
            }
        }
        InventorySnapshot {
            resources,
            by_id,
            by_name,
            unreadable: Vec::new(),
        }
    }

    /// This snapshot, saying which sources could not be read.
    pub fn with_unreadable(mut self, unreadable: Vec<Unreadable>) -> Self {
        self.unreadable = unreadable;
        self
    }

    /// The sources that could not be read (their resources are missing).
    pub fn unreadable(&self) -> &[Unreadable] {
        &self.unreadable
    }

    pub fn all(&self) -> &[Resource] {
        &self.resources
    }

    pub fn len(&self) -> usize {
        self.resources.len()
    }

    pub fn is_empty(&self) -> bool {
        self.resources.is_empty()
    }

    pub fn get(&self, id: &ResourceId) -> Option<&Resource> {
        self.by_id.get(id).map(|&i| &self.resources[i])
    }

    /// Resources answering to an id, a name or an alias (case-insensitive).
    pub fn find(&self, name: &str) -> Vec<&Resource> {
        if let Ok(id) = name.parse::<ResourceId>() {
            if let Some(resource) = self.get(&id) {
                return vec![resource];
            }
        }
        self.by_name
            .get(&name.to_lowercase())
            .map(|positions| positions.iter().map(|&i| &self.resources[i]).collect())
            .unwrap_or_default()
    }

    /// `id` and its parents, nearest first.
    pub fn chain(&self, id: &ResourceId) -> Vec<&Resource> {
        let mut chain: Vec<&Resource> = Vec::new();
        let mut current = self.get(id);
        while let Some(resource) = current {
            if chain.iter().any(|r| r.id == resource.id) || chain.len() > 16 {
                break;
            }
            current = resource.parent.as_ref().and_then(|p| self.get(p));
            chain.push(resource);
        }
        chain
    }
}

/// The answer of a host to a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
    /// Output was cut to the size limit.
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    #[error("host for {0} is unreachable: {1}")]
    Unreachable(String, String),
    #[error("command timed out after {0:?}")]
    Timeout(Duration),
    #[error("cancelled by the user")]
    Cancelled,
    /// The command may have started: its outcome is unknown.
    #[error("{0}")]
    Failed(String),
    /// The host (its agent) refused the command or could not start it:
    /// nothing ran. `code` says why (`POLICY_BLOCKED` for the agent's own
    /// policy or a grant it does not accept).
    #[error("{message}")]
    NotRun { code: ErrorCode, message: String },
}

/// Whether a command may change what it runs on. Agents sandbox reads and
/// demand a signed grant for writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecClass {
    Read,
    Write,
}

/// One command for one resource, as the executor admitted and routed it.
#[derive(Debug, Clone, Copy)]
pub struct ExecRequest<'a> {
    /// Where the command runs (the resource itself, or its parent for
    /// plans such as `pct` control and `docker logs`).
    pub target: &'a Resource,
    /// Who runs it and the hop it takes, as [`warden_protocol::routing`]
    /// decided from this backend's [`HostBackend::route_facts`]: the backend
    /// carries it out and decides nothing.
    pub route: &'a ShellRoute,
    pub command: &'a str,
    pub class: ExecClass,
    /// The human approval behind a write, when there was one.
    pub approval: Option<&'a Approval>,
    /// The turn's cancellation: set, the command's process group dies.
    pub cancel: &'a CancelFlag,
}

/// Runs commands on resources. Async: a command waiting on a remote agent
/// holds no thread.
pub trait HostBackend: Send + Sync {
    /// What this backend can run a command for `target` with, now: this
    /// machine, and the agents and whether they are connected. The executor
    /// gives these facts to [`warden_protocol::routing::route`].
    fn route_facts<'a>(&'a self, target: &'a Resource) -> BoxFuture<'a, RouteFacts>;

    /// Runs the command the way its [`ExecRequest::route`] says.
    fn exec<'a>(&'a self, request: ExecRequest<'a>)
    -> BoxFuture<'a, Result<ExecOutput, HostError>>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApprovalError {
    #[error("approval {0} does not exist")]
    NotFound(String),
    #[error("approval {0} expired")]
    Expired(String),
    #[error("approval {0} was already used")]
    AlreadyUsed(String),
    #[error("approval {0} was already {1}")]
    AlreadyDecided(String, &'static str),
    #[error("approval {0} was denied")]
    Denied(String),
    #[error("approval {0} is still pending")]
    Pending(String),
    #[error("approval {0} is for a different call")]
    Mismatch(String),
    #[error("approval store: {0}")]
    Store(String),
}

/// Who decided, when a store is not told: the operator at this process's
/// terminal. Stores that know the local user override [`ApprovalStore::decide`].
pub const LOCAL_OPERATOR: &str = "user:local";

/// A fresh approval id: 128 random bits from the operating system, as 32
/// lowercase hex digits, so ids are unguessable and unique across processes.
pub fn new_approval_id() -> Result<String, ApprovalError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApprovalError::Store(format!("no randomness for an approval id: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Durable approvals (SQLite in the server; memory in tests and replay).
pub trait ApprovalStore: Send + Sync {
    fn create(&self, approval: Approval) -> Result<(), ApprovalError>;
    fn get(&self, id: &str) -> Result<Approval, ApprovalError>;
    /// Record a human decision on a pending approval, naming who decided
    /// (`user:alice`, `token:ci-bot`); durable stores audit it.
    fn decide_as(
        &self,
        id: &str,
        state: ApprovalState,
        decided_by: &str,
        reason: Option<String>,
        now_ms: u64,
    ) -> Result<Approval, ApprovalError>;
    /// Record a decision by the operator at this process's terminal.
    fn decide(
        &self,
        id: &str,
        state: ApprovalState,
        reason: Option<String>,
        now_ms: u64,
    ) -> Result<Approval, ApprovalError> {
        self.decide_as(id, state, LOCAL_OPERATOR, reason, now_ms)
    }
    /// Atomically turn an approved, unexpired approval into a consumed one.
    fn consume(&self, id: &str, now_ms: u64) -> Result<Approval, ApprovalError>;
    /// Keep, with a pending file edit's approval, the file as it is now
    /// (what the change loses, for the approver).
    fn keep_file_before(&self, id: &str, before: &FileBefore) -> Result<(), ApprovalError>;
}

/// An in-process approval store.
#[derive(Default)]
pub struct MemoryApprovals {
    approvals: Mutex<HashMap<String, Approval>>,
}

impl MemoryApprovals {
    fn with<T>(
        &self,
        f: impl FnOnce(&mut HashMap<String, Approval>) -> Result<T, ApprovalError>,
    ) -> Result<T, ApprovalError> {
        let mut guard = self
            .approvals
            .lock()
            .map_err(|_| ApprovalError::Store("lock poisoned".into()))?;
        f(&mut guard)
    }
}

impl ApprovalStore for MemoryApprovals {
    fn create(&self, approval: Approval) -> Result<(), ApprovalError> {
        self.with(|map| {
            map.insert(approval.id.clone(), approval);
            Ok(())
        })
    }

    fn get(&self, id: &str) -> Result<Approval, ApprovalError> {
        self.with(|map| {
            map.get(id)
                .cloned()
                .ok_or_else(|| ApprovalError::NotFound(id.to_string()))
        })
    }

    fn decide_as(
        &self,
        id: &str,
        state: ApprovalState,
        decided_by: &str,
        reason: Option<String>,
        now_ms: u64,
    ) -> Result<Approval, ApprovalError> {
        self.with(|map| {
            let approval = map
                .get_mut(id)
                .ok_or_else(|| ApprovalError::NotFound(id.to_string()))?;
            check_decidable(approval, now_ms)?;
            approval.state = state;
            approval.reason = reason;
            approval.decided_by = Some(decided_by.to_string());
            approval.decided_at_ms = Some(now_ms);
            Ok(approval.clone())
        })
    }

    fn consume(&self, id: &str, now_ms: u64) -> Result<Approval, ApprovalError> {
        self.with(|map| {
            let approval = map
                .get_mut(id)
                .ok_or_else(|| ApprovalError::NotFound(id.to_string()))?;
            check_consumable(approval, now_ms)?;
            approval.state = ApprovalState::Consumed;
            Ok(approval.clone())
        })
    }

    fn keep_file_before(&self, id: &str, before: &FileBefore) -> Result<(), ApprovalError> {
        self.with(|map| {
            let approval = map
                .get_mut(id)
                .ok_or_else(|| ApprovalError::NotFound(id.to_string()))?;
            if approval.state == ApprovalState::Pending {
                approval.file_before = Some(before.clone());
            }
            Ok(())
        })
    }
}

/// Only a pending, unexpired approval can be decided.
pub fn check_decidable(approval: &Approval, now_ms: u64) -> Result<(), ApprovalError> {
    let id = || approval.id.clone();
    match approval.state {
        ApprovalState::Pending if now_ms >= approval.expires_at_ms => {
            Err(ApprovalError::Expired(id()))
        }
        ApprovalState::Pending => Ok(()),
        ApprovalState::Expired => Err(ApprovalError::Expired(id())),
        ApprovalState::Consumed => Err(ApprovalError::AlreadyUsed(id())),
        ApprovalState::Approved => Err(ApprovalError::AlreadyDecided(id(), "approved")),
        ApprovalState::Denied => Err(ApprovalError::AlreadyDecided(id(), "denied")),
    }
}

/// Only an approved, unexpired, unused approval can authorise a run.
pub fn check_consumable(approval: &Approval, now_ms: u64) -> Result<(), ApprovalError> {
    let id = || approval.id.clone();
    match approval.state {
        ApprovalState::Approved if now_ms >= approval.expires_at_ms => {
            Err(ApprovalError::Expired(id()))
        }
        ApprovalState::Approved => Ok(()),
        ApprovalState::Expired => Err(ApprovalError::Expired(id())),
        ApprovalState::Pending => Err(ApprovalError::Pending(id())),
        ApprovalState::Denied => Err(ApprovalError::Denied(id())),
        ApprovalState::Consumed => Err(ApprovalError::AlreadyUsed(id())),
    }
}

/// A note from `knowledge remember`: what an operator wants Warden to keep
/// in mind across sessions ("the NAS backup runs at 02:00").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub target: Option<String>,
    pub text: String,
    pub created_at_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("notes store: {0}")]
pub struct NotesError(pub String);

/// Durable notes (SQLite in the binary; memory in tests and replay).
pub trait NotesStore: Send + Sync {
    fn add(&self, note: Note) -> Result<(), NotesError>;
    /// Every note, newest first.
    fn all(&self) -> Result<Vec<Note>, NotesError>;
}

#[derive(Default)]
pub struct MemoryNotes {
    notes: Mutex<Vec<Note>>,
}

impl NotesStore for MemoryNotes {
    fn add(&self, note: Note) -> Result<(), NotesError> {
        let mut notes = self
            .notes
            .lock()
            .map_err(|_| NotesError("lock poisoned".into()))?;
        notes.insert(0, note);
        Ok(())
    }

    fn all(&self) -> Result<Vec<Note>, NotesError> {
        self.notes
            .lock()
            .map(|n| n.clone())
            .map_err(|_| NotesError("lock poisoned".into()))
    }
}

/// Notes that share a word with the query (words of three letters or
/// more, a trailing plural `s` ignored), optionally about one target.
pub fn notes_matching<'n>(notes: &'n [Note], query: &str, target: Option<&str>) -> Vec<&'n Note> {
    let stem = |w: &str| w.trim_end_matches('s').to_string();
    let terms: Vec<String> = query
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3)
        .map(stem)
        .collect();
    notes
        .iter()
        .filter(|n| target.is_none_or(|t| n.target.as_deref().is_none_or(|nt| nt == t)))
        .filter(|n| {
            let text = n.text.to_lowercase();
            terms.is_empty() || terms.iter().any(|t| text.contains(t.as_str()))
        })
        .collect()
}

/// Why a record could not be appended. The executor refuses to run a call
/// it could not audit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("audit log unavailable: {0}")]
pub struct AuditError(pub String);

pub trait AuditSink: Send + Sync {
    fn append(&self, record: AuditRecord) -> Result<(), AuditError>;
}

/// Keeps records in memory (tests, replay).
#[derive(Default)]
pub struct MemoryAudit {
    records: Mutex<Vec<AuditRecord>>,
}

impl MemoryAudit {
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl AuditSink for MemoryAudit {
    fn append(&self, record: AuditRecord) -> Result<(), AuditError> {
        let mut records = self
            .records
            .lock()
            .map_err(|_| AuditError("lock poisoned".into()))?;
        records.push(record);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approval(state: ApprovalState) -> Approval {
        Approval {
            id: "a1".into(),
            session_id: "s".into(),
            tool: "control".into(),
            target: "vm:pve1:101".into(),
            arguments_hash: "h".into(),
            arguments: serde_json::json!({}),
            command: "systemctl restart nginx".into(),
            risk: "medium_write".into(),
            description: "restart nginx".into(),
            created_at_ms: 0,
            expires_at_ms: 300_000,
            state,
            reason: None,
            decided_by: None,
            decided_at_ms: None,
            snapshot: None,
            file_before: None,
        }
    }

    #[test]
    fn approval_ids_are_128_random_bits() {
        let ids: std::collections::HashSet<String> =
            (0..1000).map(|_| new_approval_id().unwrap()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(
            ids.iter()
                .all(|id| id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()))
        );
    }

    #[test]
    fn decisions_record_who_and_when() {
        let store = MemoryApprovals::default();
        store.create(approval(ApprovalState::Pending)).unwrap();
        let denied = store
            .decide_as(
                "a1",
                ApprovalState::Denied,
                "user:alice",
                Some("not now".into()),
                7,
            )
            .unwrap();
        assert_eq!(denied.decided_by.as_deref(), Some("user:alice"));
        assert_eq!(denied.decided_at_ms, Some(7));
        assert_eq!(denied.reason.as_deref(), Some("not now"));
        let mut expired = approval(ApprovalState::Expired);
        expired.id = "a2".into();
        store.create(expired).unwrap();
        assert_eq!(
            store.decide("a2", ApprovalState::Approved, None, 1),
            Err(ApprovalError::Expired("a2".into()))
        );
        assert_eq!(
            store.consume("a2", 1),
            Err(ApprovalError::Expired("a2".into()))
        );
    }

    #[test]
    fn approvals_are_single_use_and_expire() {
        let store = MemoryApprovals::default();
        store.create(approval(ApprovalState::Pending)).unwrap();
        assert_eq!(
            store.consume("a1", 1),
            Err(ApprovalError::Pending("a1".into()))
        );
        store
            .decide("a1", ApprovalState::Approved, None, 1)
            .unwrap();
        assert!(store.decide("a1", ApprovalState::Denied, None, 2).is_err());
        assert_eq!(
            store.consume("a1", 2).unwrap().state,
            ApprovalState::Consumed
        );
        assert_eq!(
            store.consume("a1", 3),
            Err(ApprovalError::AlreadyUsed("a1".into()))
        );

        store.create(approval(ApprovalState::Pending)).unwrap();
        assert_eq!(
            store.decide("a1", ApprovalState::Approved, None, 300_000),
            Err(ApprovalError::Expired("a1".into()))
        );
        assert_eq!(
            store.get("nope"),
            Err(ApprovalError::NotFound("nope".into()))
        );
    }
}
