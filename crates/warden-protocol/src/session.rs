//! Session vocabulary shared by the executor, the stream and the CLI: how a
//! tool is classified, how much Warden may do alone, and where the session's
//! FSM stands.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How the executor classifies a tool call. Unknown tools are writes
/// (DESIGN invariant 5), so there is deliberately no `Unknown` kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Finds resources (`query`, `discovery`): counts as discovery.
    Resolve,
    /// Reads without changing anything.
    Read,
    /// Changes something: gated by approval and followed by verification.
    Write,
}

impl ToolKind {
    pub const ALL: [ToolKind; 3] = [ToolKind::Resolve, ToolKind::Read, ToolKind::Write];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Resolve => "resolve",
            ToolKind::Read => "read",
            ToolKind::Write => "write",
        }
    }
}

impl fmt::Display for ToolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("unknown tool kind `{0}`: expected resolve, read or write")]
pub struct UnknownToolKind(pub String);

impl FromStr for ToolKind {
    type Err = UnknownToolKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ToolKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownToolKind(s.to_string()))
    }
}

/// How much Warden may do without asking. Defaults to `controlled`: safe
/// unless the operator opts into more.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ControlLevel {
    /// Write tools are refused.
    ReadOnly,
    /// Every write waits for a human's approval.
    #[default]
    Controlled,
    /// Writes run without approval (still audited and gated).
    Autonomous,
}

impl ControlLevel {
    pub const ALL: [ControlLevel; 3] = [
        ControlLevel::ReadOnly,
        ControlLevel::Controlled,
        ControlLevel::Autonomous,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ControlLevel::ReadOnly => "read_only",
            ControlLevel::Controlled => "controlled",
            ControlLevel::Autonomous => "autonomous",
        }
    }
}

impl fmt::Display for ControlLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("unknown control level `{0}`: expected read_only, controlled or autonomous")]
pub struct UnknownControlLevel(pub String);

impl FromStr for ControlLevel {
    type Err = UnknownControlLevel;

    /// Accepts the wire names plus `read-only`/`readonly`, which people type
    /// on command lines and in env vars.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "read_only" | "read-only" | "readonly" => Ok(ControlLevel::ReadOnly),
            "controlled" => Ok(ControlLevel::Controlled),
            "autonomous" => Ok(ControlLevel::Autonomous),
            other => Err(UnknownControlLevel(other.to_string())),
        }
    }
}

/// The session's place in discover → read → write → verify. Serialised
/// uppercase (`VERIFYING`), as the stream and metrics labels show it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum FsmState {
    /// Nothing discovered yet: writes wait for discovery.
    #[default]
    Resolving,
    /// Discovered: reads and writes may run.
    Reading,
    /// A write is running.
    Writing,
    /// A write succeeded: no write and no final answer until a read verifies it.
    Verifying,
}

impl FsmState {
    pub const ALL: [FsmState; 4] = [
        FsmState::Resolving,
        FsmState::Reading,
        FsmState::Writing,
        FsmState::Verifying,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FsmState::Resolving => "RESOLVING",
            FsmState::Reading => "READING",
            FsmState::Writing => "WRITING",
            FsmState::Verifying => "VERIFYING",
        }
    }
}

impl fmt::Display for FsmState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("unknown FSM state `{0}`: expected RESOLVING, READING, WRITING or VERIFYING")]
pub struct UnknownFsmState(pub String);

impl FromStr for FsmState {
    type Err = UnknownFsmState;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FsmState::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownFsmState(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn tool_kinds() {
        for kind in ToolKind::ALL {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                Value::from(kind.as_str())
            );
            assert_eq!(kind.to_string().parse::<ToolKind>(), Ok(kind));
            assert_eq!(
                serde_json::from_value::<ToolKind>(json!(kind.as_str())).unwrap(),
                kind
            );
        }
        assert_eq!(
            serde_json::to_value(ToolKind::Resolve).unwrap(),
            json!("resolve")
        );
        let err = "exec".parse::<ToolKind>().unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown tool kind `exec`: expected resolve, read or write"
        );
    }

    #[test]
    fn control_levels() {
        for level in ControlLevel::ALL {
            assert_eq!(
                serde_json::to_value(level).unwrap(),
                Value::from(level.as_str())
            );
            assert_eq!(level.to_string().parse::<ControlLevel>(), Ok(level));
            assert_eq!(
                serde_json::from_value::<ControlLevel>(json!(level.as_str())).unwrap(),
                level
            );
        }
        assert_eq!(
            serde_json::to_value(ControlLevel::ReadOnly).unwrap(),
            json!("read_only")
        );
        assert_eq!(
            "read-only".parse::<ControlLevel>(),
            Ok(ControlLevel::ReadOnly)
        );
        assert_eq!(ControlLevel::default(), ControlLevel::Controlled);
        let err = "yolo".parse::<ControlLevel>().unwrap_err();
        assert_eq!(err, UnknownControlLevel("yolo".into()));
        assert_eq!(
            err.to_string(),
            "unknown control level `yolo`: expected read_only, controlled or autonomous"
        );
        // Serde is strict: only the wire names.
        assert!(serde_json::from_value::<ControlLevel>(json!("read-only")).is_err());
    }

    #[test]
    fn fsm_states() {
        for state in FsmState::ALL {
            assert_eq!(
                serde_json::to_value(state).unwrap(),
                Value::from(state.as_str())
            );
            assert_eq!(state.to_string().parse::<FsmState>(), Ok(state));
            assert_eq!(
                serde_json::from_value::<FsmState>(json!(state.as_str())).unwrap(),
                state
            );
        }
        assert_eq!(
            serde_json::to_value(FsmState::Verifying).unwrap(),
            json!("VERIFYING")
        );
        assert_eq!(FsmState::default(), FsmState::Resolving);
        assert!(
            "verifying"
                .parse::<FsmState>()
                .unwrap_err()
                .to_string()
                .contains("`verifying`")
        );
    }
}
