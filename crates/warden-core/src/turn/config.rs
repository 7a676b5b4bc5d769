//! What a turn is configured with: the part of Warden's effective
//! configuration that the turn runner reads. The world builder makes it
//! from the configuration file, the environment and flags (one loader);
//! every front end hands the same value to the runner, so a key means the
//! same in `warden ask` and in `warden serve`.

use std::sync::Arc;
use std::time::Duration;

use warden_protocol::ControlLevel;

use crate::agent::LoopLimits;
use crate::agent::usage::{Budget, Prices};
use crate::executor::Settings;
use crate::executor::snapshot_first::SnapshotPolicy;
use crate::redact::known::SharedKnownSecrets;

/// Model calls one user message may cause, unless configured.
pub const DEFAULT_MAX_MODEL_CALLS: usize = 12;
/// How long a cached read is served, unless configured.
pub const DEFAULT_KNOWLEDGE_TTL: Duration = Duration::from_secs(60);
/// How long an approval request waits for a human, unless configured.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(5 * 60);
/// A stored message is capped like a model reply, unless configured.
pub const DEFAULT_MAX_REPLY_BYTES: usize = warden_llm::config::DEFAULT_MAX_REPLY_BYTES;

#[derive(Debug, Clone, PartialEq)]
pub struct TurnConfig {
    /// The level a new conversation starts at (`control_level`).
    pub control_level: ControlLevel,
    /// How long the knowledge gate serves a cached read (`knowledge_ttl_secs`).
    pub knowledge_ttl: Duration,
    /// Snapshot first, before approved changes to guests (`[proxmox_snapshots]`).
    pub snapshots: SnapshotPolicy,
    /// How long an approval request waits for a human.
    pub approval_ttl: Duration,
    /// Model calls per user message (`[loop] max_model_calls`).
    pub max_model_calls: usize,
    /// Tokens one conversation may spend (`[budget] max_tokens`).
    pub budget_tokens: Option<u64>,
    /// Each stored message is capped to this (`[provider] max_reply_bytes`).
    pub max_reply_bytes: usize,
    /// Prices per million tokens (`[pricing."MODEL"]`).
    pub prices: Prices,
    /// Warden's own secrets, withheld from every tool output (the world
    /// builder fills it; a server adds its TLS key and first password).
    pub known_secrets: Arc<SharedKnownSecrets>,
}

impl Default for TurnConfig {
    fn default() -> Self {
        TurnConfig {
            control_level: ControlLevel::Controlled,
            knowledge_ttl: DEFAULT_KNOWLEDGE_TTL,
            snapshots: SnapshotPolicy::default(),
            approval_ttl: DEFAULT_APPROVAL_TTL,
            max_model_calls: DEFAULT_MAX_MODEL_CALLS,
            budget_tokens: None,
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
            prices: Prices::default(),
            known_secrets: Arc::default(),
        }
    }
}

impl TurnConfig {
    /// The executor's settings for a conversation at `level`.
    pub fn settings(&self, level: ControlLevel) -> Settings {
        Settings {
            control_level: level,
            approval_ttl: self.approval_ttl,
            knowledge_ttl: self.knowledge_ttl,
            snapshots: self.snapshots.clone(),
            known_secrets: Arc::clone(&self.known_secrets),
            ..Settings::default()
        }
    }

    /// The loop's limits for a conversation that spent `tokens_used`.
    pub fn limits(&self, tokens_used: u64) -> LoopLimits {
        LoopLimits {
            max_model_calls: self.max_model_calls,
            budget: Budget {
                max_tokens: self
                    .budget_tokens
                    .map(|max| max.saturating_sub(tokens_used)),
            },
            ..LoopLimits::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_reaches_the_executor_or_the_loop() {
        let config = TurnConfig {
            knowledge_ttl: Duration::from_secs(7),
            approval_ttl: Duration::from_secs(9),
            max_model_calls: 3,
            budget_tokens: Some(100),
            ..TurnConfig::default()
        };
        let settings = config.settings(ControlLevel::ReadOnly);
        assert_eq!(settings.control_level, ControlLevel::ReadOnly);
        assert_eq!(settings.knowledge_ttl, Duration::from_secs(7));
        assert_eq!(settings.approval_ttl, Duration::from_secs(9));
        let limits = config.limits(40);
        assert_eq!(limits.max_model_calls, 3);
        assert_eq!(limits.budget.max_tokens, Some(60));
        assert_eq!(config.limits(400).budget.max_tokens, Some(0));
        assert_eq!(TurnConfig::default().limits(400).budget.max_tokens, None);
    }
}
