//! Everything a turn acts on, held once per process and shared: the
//! inventory, the hosts, a guest API, approvals, the audit log, notes and
//! the stored conversations. The world builder (`warden-world`) fills it
//! from the configuration; replays and tests fill it with simulated parts.

use std::sync::Arc;

use super::{
    ApprovalStore, AuditSink, BoxFuture, GuestApi, HostBackend, Inventory, NoGuestApi, NotesStore,
};
use crate::executor::Ports;

/// Tokens of one model call, as the store keeps them.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRecord {
    pub session_id: String,
    pub provider: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
    pub at_ms: u64,
}

/// What one turn adds to a stored conversation, written at once.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRecord {
    pub session_id: String,
    /// The messages added by the turn, as JSON, each capped like a model reply.
    pub messages: Vec<String>,
    /// The session's title, if it has none yet (the first user message).
    pub title: String,
    pub usage: Vec<UsageRecord>,
    pub at_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("conversation store: {0}")]
pub struct ConversationStoreError(pub String);

/// Stored conversations: their messages and what they spent.
pub trait ConversationStore: Send + Sync {
    /// A new, empty conversation, listed at once.
    fn create(
        &self,
        session_id: &str,
        title: &str,
        at_ms: u64,
    ) -> Result<(), ConversationStoreError>;

    fn exists(&self, session_id: &str) -> Result<bool, ConversationStoreError>;

    /// The stored messages, as JSON, oldest first.
    fn messages(&self, session_id: &str) -> Result<Vec<String>, ConversationStoreError>;

    /// Tokens spent so far (the budget counts them).
    fn tokens_used(&self, session_id: &str) -> Result<u64, ConversationStoreError>;

    /// Store one turn's messages and usage together. Async: a store may
    /// write on a thread of its own, off the workers that stream tokens.
    fn save_turn(&self, record: TurnRecord) -> BoxFuture<'_, Result<(), ConversationStoreError>>;
}

/// Conversations kept in memory (replays, tests, `warden explain`).
#[derive(Default)]
pub struct MemoryConversations {
    sessions: std::sync::Mutex<std::collections::HashMap<String, (Vec<String>, u64)>>,
}

impl MemoryConversations {
    fn with<T>(
        &self,
        f: impl FnOnce(&mut std::collections::HashMap<String, (Vec<String>, u64)>) -> T,
    ) -> T {
        let mut sessions = self
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut sessions)
    }
}

impl ConversationStore for MemoryConversations {
    fn create(&self, session_id: &str, _: &str, _: u64) -> Result<(), ConversationStoreError> {
        self.with(|s| {
            s.entry(session_id.to_string()).or_default();
        });
        Ok(())
    }

    fn exists(&self, session_id: &str) -> Result<bool, ConversationStoreError> {
        Ok(self.with(|s| s.contains_key(session_id)))
    }

    fn messages(&self, session_id: &str) -> Result<Vec<String>, ConversationStoreError> {
        Ok(self.with(|s| {
            s.get(session_id)
                .map(|(m, _)| m.clone())
                .unwrap_or_default()
        }))
    }

    fn tokens_used(&self, session_id: &str) -> Result<u64, ConversationStoreError> {
        Ok(self.with(|s| s.get(session_id).map_or(0, |(_, t)| *t)))
    }

    fn save_turn(&self, record: TurnRecord) -> BoxFuture<'_, Result<(), ConversationStoreError>> {
        self.with(|s| {
            let (messages, tokens) = s.entry(record.session_id.clone()).or_default();
            messages.extend(record.messages);
            *tokens += record
                .usage
                .iter()
                .map(|u| u.input_tokens + u.output_tokens)
                .sum::<u64>();
        });
        Box::pin(std::future::ready(Ok(())))
    }
}

/// The world's parts, shared for the life of the process.
#[derive(Clone)]
pub struct Backends {
    pub inventory: Arc<dyn Inventory>,
    pub hosts: Arc<dyn HostBackend>,
    /// Guest power, snapshots, history and storage through a cluster's API.
    pub guest_api: Arc<dyn GuestApi>,
    pub approvals: Arc<dyn ApprovalStore>,
    pub audit: Arc<dyn AuditSink>,
    pub notes: Arc<dyn NotesStore>,
    pub conversations: Arc<dyn ConversationStore>,
}

impl Backends {
    /// Everything in memory around `inventory` and `hosts`: no guest API,
    /// approvals, audit, notes and conversations that end with the process.
    pub fn in_memory(inventory: Arc<dyn Inventory>, hosts: Arc<dyn HostBackend>) -> Self {
        Backends {
            inventory,
            hosts,
            guest_api: Arc::new(NoGuestApi),
            approvals: Arc::new(super::MemoryApprovals::default()),
            audit: Arc::new(super::MemoryAudit::default()),
            notes: Arc::new(super::MemoryNotes::default()),
            conversations: Arc::new(MemoryConversations::default()),
        }
    }

    /// The executor's view of them, borrowed for one turn.
    pub fn ports(&self) -> Ports<'_> {
        Ports {
            inventory: self.inventory.as_ref(),
            hosts: self.hosts.as_ref(),
            approvals: self.approvals.as_ref(),
            audit: self.audit.as_ref(),
            notes: self.notes.as_ref(),
        }
    }

    /// An executor over these parts with `settings`.
    pub fn executor(&self, settings: crate::executor::Settings) -> crate::executor::Executor<'_> {
        crate::executor::Executor::new(settings, self.ports())
            .with_guest_api(self.guest_api.as_ref())
    }
}
