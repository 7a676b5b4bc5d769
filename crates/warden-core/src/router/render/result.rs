//! Answers from tool results, in plain words. Everything said here comes
//! from a result (or says that there is none): the router never guesses.

use serde_json::Value;
use warden_protocol::Resource;

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

pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// At most `max` lines, saying how many were left out.
pub fn clip_lines(text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max {
        return text.to_string();
    }
    format!(
        "{}\n… ({} more lines)",
        lines[..max].join("\n"),
        lines.len() - max
    )
}

/// A block of output, indented, or "(no output)".
pub fn block(text: &str) -> String {
    let text = text.trim_end();
    if text.trim().is_empty() {
        return "  (no output)".to_string();
    }
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Unix time as UTC calendar parts: (year, month, day, hour, minute).
pub fn utc_parts(seconds: i64) -> (i64, u32, u32, u32, u32) {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Howard Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let part = |v: i64| u32::try_from(v).unwrap_or(0);
    (
        year,
        part(month),
        part(day),
        part(rest / 3600),
        part(rest % 3600 / 60),
    )
}

/// "2026-11-23 10:30 UTC".
pub fn utc_time(seconds: i64) -> String {
    let (year, month, day, hour, minute) = utc_parts(seconds);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

/// "web1 (host:web1)".
pub fn named(resource: &Resource) -> String {
    if resource.name == resource.id.to_string() {
        resource.name.clone()
    } else {
        format!("{} ({})", resource.name, resource.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn utc_times() {
        let cases: &[(i64, &str)] = &[
            (0, "1970-01-01 00:00 UTC"),
            (1_795_429_800, "2026-11-23 10:30 UTC"),
            (951_782_400, "2000-02-29 00:00 UTC"),
            (-60, "1969-12-31 23:59 UTC"),
        ];
        for (seconds, text) in cases {
            assert_eq!(utc_time(*seconds), *text, "{seconds}");
        }
    }

    #[test]
    fn byte_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(10 * 1024 * 1024 * 1024), "10.0 GiB");
    }

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
