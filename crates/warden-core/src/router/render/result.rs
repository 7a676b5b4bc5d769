//! A tool result as the answers read it ([`Res`]), and a failed or refused
//! call in words. Everything an answer says comes from a result (or says
//! that there is none): the router never guesses.

use serde_json::Value;

use super::format::clip_lines;

/// A tool result (the JSON of a `ToolResponse`) with the accessors the
/// answers need.
#[derive(Debug, Clone, Copy)]
pub struct Res<'v>(pub &'v Value);

impl<'v> Res<'v> {
    pub fn ok(self) -> bool {
        self.0["ok"].as_bool() == Some(true)
    }

    pub fn code(self) -> Option<&'v str> {
        self.0["error"]["code"].as_str()
    }

    pub fn message(self) -> &'v str {
        self.0["error"]["message"].as_str().unwrap_or("no result")
    }

    pub fn data(self) -> &'v Value {
        &self.0["data"]
    }

    /// Command output, also when the command exited non-zero.
    fn output(self) -> &'v Value {
        if self.ok() {
            self.data()
        } else {
            &self.0["error"]["details"]["output"]
        }
    }

    pub fn stdout(self) -> &'v str {
        self.output()["stdout"].as_str().unwrap_or_default()
    }

    pub fn stderr(self) -> &'v str {
        self.output()["stderr"].as_str().unwrap_or_default()
    }

    pub fn exit_code(self) -> Option<i64> {
        self.output()["exit_code"].as_i64()
    }

    pub fn ran(self) -> bool {
        self.ok() || self.code() == Some("EXECUTION_FAILED") && self.exit_code().is_some()
    }

    pub fn cached(self) -> bool {
        self.0["meta"]["cached"].as_bool() == Some(true)
    }

    pub fn approval_id(self) -> Option<&'v str> {
        self.0["error"]["details"]["approval_id"].as_str()
    }

    pub fn approval_command(self) -> Option<&'v str> {
        self.0["error"]["details"]["command"].as_str()
    }
}

/// "Could not …: <why>" for a failed call, with the command's stderr when
/// it ran.
pub fn failure(what: &str, res: Res<'_>) -> String {
    if res.ran() {
        let stderr = res.stderr().trim();
        let detail = if stderr.is_empty() {
            res.stdout().trim()
        } else {
            stderr
        };
        let detail = clip_lines(detail, 8);
        return format!(
            "Could not {what}: the command exited with status {}{}",
            res.exit_code().unwrap_or(-1),
            if detail.is_empty() {
                ".".to_string()
            } else {
                format!(":\n{detail}")
            }
        );
    }
    match res.code() {
        Some(code) => format!(
            "Could not {what}: {} ({code}).{}",
            res.message(),
            task_details(res)
        ),
        None => format!("Could not {what}: no result came back."),
    }
}

/// The exit status and the last lines of the log of a Proxmox task that
/// failed, as lines to add to the failure.
fn task_details(res: Res<'_>) -> String {
    let details = &res.0["error"]["details"];
    let mut text = String::new();
    if let Some(status) = details["exit_status"].as_str().filter(|s| !s.is_empty()) {
        text.push_str(&format!("\n  task exit status: {status}"));
    }
    let tail: Vec<&str> = details["log_tail"]
        .as_array()
        .map(|lines| lines.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !tail.is_empty() {
        text.push_str("\n  task log (last lines):");
        for line in &tail[tail.len().saturating_sub(8)..] {
            text.push_str(&format!("\n    {line}"));
        }
    }
    text
}

/// The answer for a write that did not run because it waits for a human
/// or was refused.
pub fn not_done(action: &str, res: Res<'_>) -> String {
    match res.code() {
        Some("APPROVAL_REQUIRED") => format!(
            "Not done yet: {action} needs approval.\n  command: {}\n  approve: warden approvals approve {id}\n  deny:    warden approvals deny {id} --reason \"…\"",
            res.approval_command().unwrap_or("?"),
            id = res.approval_id().unwrap_or("?"),
        ),
        Some("APPROVAL_DENIED") => format!("Not done: {action} was denied. {}", res.message()),
        _ => failure(action, res),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn failures_quote_stderr() {
        let v = json!({"ok": false, "error": {"code": "EXECUTION_FAILED", "message": "exit code 5",
            "details": {"output": {"exit_code": 5, "stdout": "", "stderr": "Unit nginx.service not found."}}}});
        let text = failure("restart nginx", Res(&v));
        assert!(text.contains("status 5"), "{text}");
        assert!(text.contains("Unit nginx.service not found."), "{text}");
        let task = json!({"ok": false, "error": {"code": "EXECUTION_FAILED",
            "message": "the Proxmox task `qm start 100` failed: no such disk",
            "details": {"exit_status": "no such disk", "log_tail": ["starting", "TASK ERROR: no such disk"]}}});
        assert_eq!(
            failure("start db", Res(&task)),
            "Could not start db: the Proxmox task `qm start 100` failed: no such disk (EXECUTION_FAILED).\n  task exit status: no such disk\n  task log (last lines):\n    starting\n    TASK ERROR: no such disk"
        );
        let blocked =
            json!({"ok": false, "error": {"code": "POLICY_BLOCKED", "message": "read_only level"}});
        assert_eq!(
            failure("restart nginx", Res(&blocked)),
            "Could not restart nginx: read_only level (POLICY_BLOCKED)."
        );
    }
}
