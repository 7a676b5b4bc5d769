//! The agent's own record of what it refused (and of results it could not
//! deliver): one JSON object per line in `agent-events.jsonl` (0600) in the
//! state directory, beside the `tracing` log. A refusal here is evidence
//! that a server asked for something the agent would not do.

use std::path::{Path, PathBuf};

use serde::Serialize;
use warden_protocol::agent::{ExecFailure, ExecResult};

use crate::private_files::append_private_line;

pub const EVENT_LOG_FILE: &str = "agent-events.jsonl";

/// What a logged request was, as far as it could be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestSummary {
    pub request_id: Option<String>,
    pub class: Option<String>,
    pub target: Option<String>,
    pub command: Option<String>,
}

#[derive(Debug, Serialize)]
struct EventRecord<'a> {
    at: String,
    event: &'static str,
    request_id: Option<&'a str>,
    class: Option<&'a str>,
    target: Option<&'a str>,
    command: Option<&'a str>,
    code: Option<&'static str>,
    reason: Option<&'static str>,
    message: &'a str,
}

/// Appends events to the state directory's log.
#[derive(Debug, Clone)]
pub struct EventLog {
    path: PathBuf,
}

impl EventLog {
    pub fn new(state_dir: &Path) -> Self {
        EventLog {
            path: state_dir.join(EVENT_LOG_FILE),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A request the agent refused.
    pub fn refused(&self, request: &RequestSummary, failure: &ExecFailure) {
        tracing::warn!(
            request_id = request.request_id.as_deref().unwrap_or("?"),
            class = request.class.as_deref().unwrap_or("?"),
            target = request.target.as_deref().unwrap_or("?"),
            command = request.command.as_deref().unwrap_or("?"),
            code = failure.code.as_str(),
            reason = failure.reason.map(|r| r.as_str()).unwrap_or(""),
            "refused: {}",
            failure.message
        );
        self.append(EventRecord {
            at: now_rfc3339(),
            event: "refused",
            request_id: request.request_id.as_deref(),
            class: request.class.as_deref(),
            target: request.target.as_deref(),
            command: request.command.as_deref(),
            code: Some(failure.code.as_str()),
            reason: failure.reason.map(|r| r.as_str()),
            message: &failure.message,
        });
    }

    /// A command that finished after its connection was lost: the server
    /// reports it as an unknown outcome; this is what really happened.
    pub fn undelivered(&self, request: &RequestSummary, result: &ExecResult) {
        let message = match (&result.error, result.exit_code) {
            (Some(error), _) => format!("{}: {}", error.code, error.message),
            (None, Some(code)) => format!("exited with {code}"),
            (None, None) => "ended without an exit code".to_string(),
        };
        tracing::warn!(
            request_id = request.request_id.as_deref().unwrap_or("?"),
            "result not delivered (connection lost): {message}"
        );
        self.append(EventRecord {
            at: now_rfc3339(),
            event: "undelivered_result",
            request_id: request.request_id.as_deref(),
            class: request.class.as_deref(),
            target: request.target.as_deref(),
            command: request.command.as_deref(),
            code: result.error.as_ref().map(|e| e.code.as_str()),
            reason: None,
            message: &message,
        });
    }

    fn append(&self, record: EventRecord<'_>) {
        let line = match serde_json::to_string(&record) {
            Ok(line) => line,
            Err(err) => {
                tracing::error!("cannot encode an event record: {err}");
                return;
            }
        };
        if let Err(err) = append_private_line(&self.path, &line) {
            // The tracing line above still carries the event.
            tracing::error!("cannot write the event log: {err}");
        }
    }
}

fn now_rfc3339() -> String {
    jiff::Timestamp::now().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_protocol::agent::GrantInvalidReason;

    #[test]
    fn refusals_are_json_lines_with_request_command_and_reason() {
        let dir = tempfile::tempdir().unwrap();
        let log = EventLog::new(dir.path());
        let request = RequestSummary {
            request_id: Some("req_1".into()),
            class: Some("write".into()),
            target: Some("host:web1".into()),
            command: Some("rm -rf /srv/x".into()),
        };
        log.refused(
            &request,
            &ExecFailure::grant_invalid(GrantInvalidReason::Replayed, "nonce used before"),
        );
        log.refused(
            &RequestSummary::default(),
            &ExecFailure::grant_invalid(GrantInvalidReason::Missing, "m"),
        );
        let text = std::fs::read_to_string(log.path()).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["event"], "refused");
        assert_eq!(lines[0]["request_id"], "req_1");
        assert_eq!(lines[0]["command"], "rm -rf /srv/x");
        assert_eq!(lines[0]["code"], "GRANT_INVALID");
        assert_eq!(lines[0]["reason"], "replayed");
        assert!(lines[0]["at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(lines[1]["request_id"], serde_json::Value::Null);
    }
}
