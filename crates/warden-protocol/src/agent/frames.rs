//! The WebSocket frames of spec/agent.md: text frames, one JSON object each,
//! at most [`MAX_FRAME_BYTES`], tagged by `type`.
//!
//! Reading rule ([`parse_frame`]): a frame whose `type` this version does not
//! know is [`ParsedFrame::Unknown`], for the caller to log and ignore (a newer
//! peer may send it); a frame of a known type that does not match its schema
//! is an error ([`FrameError::Malformed`]), never acted on. Unknown *fields*
//! in a known frame are ignored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::codes::{ExecErrorCode, GrantInvalidReason};
use super::grant::Grant;
use super::inventory_wire;
use crate::Resource;

/// The largest frame either side sends or accepts, in bytes of JSON text.
pub const MAX_FRAME_BYTES: usize = 1 << 20;

/// Every frame of protocol version 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentFrame {
    /// server → agent, first frame.
    Challenge(Challenge),
    /// agent → server, the answer to the challenge.
    Hello(Hello),
    /// server → agent, the agent is authenticated.
    Welcome(Welcome),
    /// both directions.
    Ping(Heartbeat),
    /// both directions, the answer to a ping.
    Pong(Heartbeat),
    /// agent → server: everything this agent reaches.
    Inventory(InventoryReport),
    /// agent → server, optional and periodic.
    Metrics(MetricsReport),
    /// server → agent: run a command.
    Exec(ExecRequest),
    /// agent → server: a chunk of a running command's output.
    ExecOutput(ExecOutput),
    /// agent → server: how a command ended (or why it never ran).
    ExecResult(ExecResult),
    /// server → agent: stop a running command.
    Cancel(CancelRequest),
}

/// The `type` of every [`AgentFrame`], as on the wire.
pub const FRAME_TYPES: [&str; 11] = [
    "challenge",
    "hello",
    "welcome",
    "ping",
    "pong",
    "inventory",
    "metrics",
    "exec",
    "exec_output",
    "exec_result",
    "cancel",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// Base64 of 32 random bytes.
    pub nonce: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    pub agent_id: String,
    pub version: String,
    /// Base64 Ed25519 over `"warden-agent-v1\n" + nonce bytes`.
    pub signature: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Welcome {
    /// How often the server pings.
    pub heartbeat_secs: u64,
}

/// The body of `ping` and `pong`. An agent answers a ping with a pong
/// carrying the same `at`, so the server can match them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heartbeat {
    /// Unix time in milliseconds.
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InventoryReport {
    /// Resources as api.md shows them (`kind`, `host`, `source: "agent"`
    /// added on the way out; ignored on the way in), ids scoped to the agent's host.
    #[serde(serialize_with = "inventory_wire::serialize_resources")]
    pub resources: Vec<Resource>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsReport {
    pub at: u64,
    pub samples: Vec<MetricSample>,
}

/// One sample of a `metrics` frame: the metric's name as a string (a name
/// this version does not know is skipped by the server, not an error, so
/// a newer agent may send more).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSample {
    pub resource: String,
    pub metric: String,
    /// A mount point, device or interface; absent for metrics without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    pub value: f64,
}

/// Read commands are admitted by the agent's own policy; writes by a grant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecClass {
    Read,
    Write,
}

impl ExecClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ExecClass::Read => "read",
            ExecClass::Write => "write",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecRequest {
    pub request_id: String,
    /// A resource id this agent reported.
    pub target: String,
    pub command: String,
    pub class: ExecClass,
    pub timeout_ms: u64,
    /// Bytes kept per stream (stdout and stderr each), head and tail.
    pub max_output_bytes: u64,
    /// Required when `class` is `write`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<Box<Grant>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputStream {
    Stdout,
    Stderr,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecOutput {
    pub request_id: String,
    pub stream: OutputStream,
    /// UTF-8 (invalid bytes replaced); chunks never split a character.
    pub data: String,
    /// 0, 1, 2, … per request, across both streams, in sending order.
    pub seq: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecResult {
    pub request_id: String,
    /// The exit status (`128 + N` when signal N ended it); absent when the
    /// command never ran or was stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ExecFailure>,
    /// Whether output was dropped from either stream (between head and tail).
    pub truncated: bool,
    pub duration_ms: u64,
    pub sandbox: SandboxReport,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecFailure {
    pub code: ExecErrorCode,
    pub message: String,
    /// With `GRANT_INVALID` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<GrantInvalidReason>,
}

/// How the command itself was confined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxReport {
    /// The Landlock ABI enforced on the command; `null` when none was (a
    /// write, a kernel without Landlock, a command run inside a container).
    pub landlock_abi: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelRequest {
    pub request_id: String,
}

/// A frame that was read, whether or not this version knows its type.
#[derive(Debug, Clone, PartialEq)]
pub enum ParsedFrame {
    Known(AgentFrame),
    /// A type this version does not know: log it and carry on.
    Unknown {
        frame_type: String,
    },
}

/// Why a text is not a frame this side may act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame of {bytes} bytes exceeds the {MAX_FRAME_BYTES}-byte limit")]
    TooLarge { bytes: usize },
    #[error("frame is not JSON: {0}")]
    NotJson(String),
    #[error("frame is not a JSON object")]
    NotAnObject,
    #[error("frame has no string `type`")]
    MissingType,
    #[error("malformed `{frame_type}` frame: {message}")]
    Malformed {
        frame_type: String,
        /// The frame's `request_id` when it has a string one, so that a bad
        /// `exec` can still be answered.
        request_id: Option<String>,
        message: String,
    },
}

/// Reads one text frame (see the module docs for the rule).
pub fn parse_frame(text: &str) -> Result<ParsedFrame, FrameError> {
    if text.len() > MAX_FRAME_BYTES {
        return Err(FrameError::TooLarge { bytes: text.len() });
    }
    let value: Value =
        serde_json::from_str(text).map_err(|err| FrameError::NotJson(err.to_string()))?;
    let Value::Object(object) = &value else {
        return Err(FrameError::NotAnObject);
    };
    let frame_type = match object.get("type") {
        Some(Value::String(frame_type)) => frame_type.clone(),
        Some(_) | None => return Err(FrameError::MissingType),
    };
    if !FRAME_TYPES.contains(&frame_type.as_str()) {
        return Ok(ParsedFrame::Unknown { frame_type });
    }
    let request_id = match object.get("request_id") {
        Some(Value::String(id)) => Some(id.clone()),
        Some(_) | None => None,
    };
    serde_json::from_value(value)
        .map(ParsedFrame::Known)
        .map_err(|err| FrameError::Malformed {
            frame_type,
            request_id,
            message: err.to_string(),
        })
}

impl AgentFrame {
    /// The wire `type`.
    pub fn frame_type(&self) -> &'static str {
        match self {
            AgentFrame::Challenge(_) => "challenge",
            AgentFrame::Hello(_) => "hello",
            AgentFrame::Welcome(_) => "welcome",
            AgentFrame::Ping(_) => "ping",
            AgentFrame::Pong(_) => "pong",
            AgentFrame::Inventory(_) => "inventory",
            AgentFrame::Metrics(_) => "metrics",
            AgentFrame::Exec(_) => "exec",
            AgentFrame::ExecOutput(_) => "exec_output",
            AgentFrame::ExecResult(_) => "exec_result",
            AgentFrame::Cancel(_) => "cancel",
        }
    }

    /// The frame as wire text, refused when over [`MAX_FRAME_BYTES`].
    pub fn to_text(&self) -> Result<String, FrameError> {
        let text = serde_json::to_string(self).map_err(|err| FrameError::Malformed {
            frame_type: self.frame_type().to_string(),
            request_id: None,
            message: err.to_string(),
        })?;
        if text.len() > MAX_FRAME_BYTES {
            return Err(FrameError::TooLarge { bytes: text.len() });
        }
        Ok(text)
    }
}

impl ExecResult {
    /// A command that never ran: refused, unknown target, failed to start.
    pub fn refused(request_id: impl Into<String>, failure: ExecFailure) -> Self {
        ExecResult {
            request_id: request_id.into(),
            exit_code: None,
            error: Some(failure),
            truncated: false,
            duration_ms: 0,
            sandbox: SandboxReport::default(),
        }
    }
}

impl ExecFailure {
    pub fn new(code: ExecErrorCode, message: impl Into<String>) -> Self {
        ExecFailure {
            code,
            message: message.into(),
            reason: None,
        }
    }

    pub fn grant_invalid(reason: GrantInvalidReason, message: impl Into<String>) -> Self {
        ExecFailure {
            code: ExecErrorCode::GrantInvalid,
            message: message.into(),
            reason: Some(reason),
        }
    }
}
