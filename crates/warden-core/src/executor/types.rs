//! The executor's vocabulary: settings, the in-memory session, the moment of
//! a call, a proposed call and its outcome.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use warden_protocol::{CancelFlag, ControlLevel, ResourceId, ToolKind, ToolResponse};

use crate::context::ResolvedContext;
use crate::fsm::{SessionFsm, Transition};
use crate::ports::Approval;
use crate::redact::known::SharedKnownSecrets;

/// How the executor is configured for a session.
#[derive(Debug, Clone)]
pub struct Settings {
    pub control_level: ControlLevel,
    pub strict_resolution: bool,
    /// Tools never offered nor run.
    pub denied_tools: Vec<String>,
    /// When set, only these tools may run (a profile such as "read-only triage").
    pub toolset: Option<Vec<String>>,
    pub approval_ttl: Duration,
    /// How long the knowledge gate serves a cached read (zero: never).
    pub knowledge_ttl: Duration,
    /// When a snapshot is taken before an approved change to a Proxmox guest.
    pub snapshots: super::snapshot_first::SnapshotPolicy,
    /// Warden's own secrets: an output holding one is withheld whole.
    pub known_secrets: Arc<SharedKnownSecrets>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            control_level: ControlLevel::Controlled,
            strict_resolution: true,
            denied_tools: Vec::new(),
            toolset: None,
            approval_ttl: Duration::from_secs(5 * 60),
            knowledge_ttl: Duration::from_secs(60),
            snapshots: super::snapshot_first::SnapshotPolicy::default(),
            known_secrets: Arc::default(),
        }
    }
}

/// Session truth, in memory only: FSM and ResolvedContext live and reset together.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    pub fsm: SessionFsm,
    pub context: ResolvedContext,
    /// Results of successful reads (the knowledge gate).
    pub knowledge: crate::knowledge::KnowledgeAccumulator,
    /// The running turn's cancellation (Ctrl-C, a cancel request): shared
    /// with whoever may cancel, re-armed at the start of each turn.
    pub cancel: CancelFlag,
    /// Resources found at a new id since the last call (migrated guests),
    /// told with the next result.
    pub moves: Vec<(ResourceId, ResourceId)>,
    /// The running turn's user message: a note in the user's own words is
    /// theirs to keep without an approval.
    pub user_words: String,
}

impl Session {
    pub fn new(id: impl Into<String>) -> Self {
        Session {
            id: id.into(),
            fsm: SessionFsm::new(),
            context: ResolvedContext::new(),
            knowledge: crate::knowledge::KnowledgeAccumulator::default(),
            cancel: CancelFlag::new(),
            moves: Vec::new(),
            user_words: String::new(),
        }
    }

    /// Note that `from` is now `to`; the next call's result says so.
    pub fn note_move(&mut self, from: ResourceId, to: ResourceId) {
        self.moves.push((from, to));
    }

    /// Reset the FSM and the ResolvedContext together (invariant 7).
    pub fn reset(&mut self) -> Transition {
        self.context.clear();
        self.knowledge.clear();
        self.fsm.reset()
    }
}

/// When a call happens: session-relative time (context TTLs) and wall time (approvals).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment {
    pub session: Duration,
    pub wall_ms: u64,
}

/// A call as proposed, before validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedCall {
    pub tool: String,
    pub arguments: Value,
}

/// A command that reached a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecRecord {
    pub target: String,
    pub command: String,
    pub exit_code: i32,
}

/// What happened to one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub kind: ToolKind,
    pub response: ToolResponse,
    pub execs: Vec<ExecRecord>,
    /// The approval created (APPROVAL_REQUIRED) or used.
    pub approval: Option<Approval>,
    pub transition: Option<Transition>,
}
