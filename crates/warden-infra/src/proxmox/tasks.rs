//! PVE tasks: parsing UPIDs, deciding a finished task's outcome from its
//! `exitstatus` and the tail of its log, and polling a task until it stops
//! or a deadline passes.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::client::{ApiPath, PveClient};
use super::error::ProxmoxError;
use super::values::{text_field, uint_field};

/// Lines of a task's log kept for the outcome.
pub const LOG_TAIL_LINES: usize = 12;
const LOG_PAGE: usize = 500;
const LOG_MAX_PAGES: usize = 40;

/// A task id: `UPID:{node}:{pid}:{pstart}:{starttime}:{type}:{id}:{user}:`
/// (pid, pstart and starttime in hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Upid {
    pub node: String,
    pub pid: u32,
    pub pstart: u64,
    /// Unix seconds.
    pub start_time: i64,
    /// `qmstart`, `vzshutdown`, `hastart`, …
    pub task_type: String,
    /// What it works on, usually the vmid (may be empty).
    pub id: String,
    /// Who started it (`warden@pve!ops`).
    pub user: String,
    raw: String,
}

impl Upid {
    pub fn as_str(&self) -> &str {
        &self.raw
    }
}

impl fmt::Display for Upid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

/// Why a string is not a UPID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a PVE task id (UPID:node:pid:pstart:starttime:type:id:user:): {reason}")]
pub struct UpidError {
    pub text: String,
    pub reason: &'static str,
}

impl FromStr for Upid {
    type Err = UpidError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = |reason| UpidError {
            text: text.to_string(),
            reason,
        };
        let rest = text
            .strip_prefix("UPID:")
            .ok_or_else(|| bad("no `UPID:` prefix"))?;
        let rest = rest
            .strip_suffix(':')
            .ok_or_else(|| bad("no trailing `:`"))?;
        let parts: Vec<&str> = rest.split(':').collect();
        let [node, pid, pstart, start, task_type, id, user] = parts.as_slice() else {
            return Err(bad("expected 7 fields"));
        };
        if node.is_empty() || task_type.is_empty() || user.is_empty() {
            return Err(bad("node, type and user must not be empty"));
        }
        let hex_u64 = |s: &str| {
            u64::from_str_radix(s, 16).map_err(|_| bad("pid, pstart and starttime must be hex"))
        };
        let pid = u32::try_from(hex_u64(pid)?).map_err(|_| bad("pid out of range"))?;
        let pstart = hex_u64(pstart)?;
        let start_time =
            i64::try_from(hex_u64(start)?).map_err(|_| bad("starttime out of range"))?;
        Ok(Upid {
            node: node.to_string(),
            pid,
            pstart,
            start_time,
            task_type: task_type.to_string(),
            id: id.to_string(),
            user: user.to_string(),
            raw: text.to_string(),
        })
    }
}

/// How a finished task ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum TaskExit {
    Ok,
    /// Succeeded, with this many warnings in the log.
    Warnings {
        count: u32,
    },
    Failed {
        message: String,
    },
}

impl TaskExit {
    pub fn succeeded(&self) -> bool {
        match self {
            TaskExit::Ok | TaskExit::Warnings { .. } => true,
            TaskExit::Failed { .. } => false,
        }
    }
}

/// The outcome from `exitstatus` and the log's tail. PVE writes
/// `TASK OK`, `TASK WARNINGS: n` or `TASK ERROR: msg` as the log's last
/// line; an error there wins over an `OK` exit status, and a missing exit
/// status is read from the log.
pub fn decide_exit(exit_status: Option<&str>, log_tail: &[String]) -> TaskExit {
    let last = log_tail
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with("TASK "));
    if let Some(message) = last.and_then(|l| l.strip_prefix("TASK ERROR:")) {
        return TaskExit::Failed {
            message: message.trim().to_string(),
        };
    }
    let from_log_warnings = last
        .and_then(|l| l.strip_prefix("TASK WARNINGS:"))
        .and_then(|n| n.trim().parse().ok());
    match exit_status.map(str::trim) {
        Some("OK") => match from_log_warnings {
            Some(count) => TaskExit::Warnings { count },
            None => TaskExit::Ok,
        },
        Some(status) if status.starts_with("WARNINGS") => TaskExit::Warnings {
            count: status
                .trim_start_matches("WARNINGS")
                .trim_start_matches(':')
                .trim()
                .parse()
                .unwrap_or(1),
        },
        Some("") | None => match (last, from_log_warnings) {
            (Some("TASK OK"), _) => TaskExit::Ok,
            (_, Some(count)) => TaskExit::Warnings { count },
            _ => TaskExit::Failed {
                message: "the task ended without an exit status".into(),
            },
        },
        Some(status) => TaskExit::Failed {
            message: status.to_string(),
        },
    }
}

/// A finished task: what it was and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskOutcome {
    pub upid: Upid,
    pub exit: TaskExit,
    /// The raw `exitstatus` (`OK`, `WARNINGS: 1`, the error text).
    pub exit_status: Option<String>,
    /// The last lines of the task's log.
    pub log_tail: Vec<String>,
    /// How long Warden waited for it.
    pub waited_ms: u64,
    /// How long PVE says it ran, in seconds (`endtime` of its status less
    /// the start time in its UPID), when the status gave an end time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran_secs: Option<i64>,
}

/// How a task is polled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskWait {
    /// Give up (with `TaskStillRunning`) after this long.
    pub deadline: Duration,
    /// First pause between polls; it doubles up to `max_interval`.
    pub first_interval: Duration,
    pub max_interval: Duration,
}

impl TaskWait {
    pub fn up_to(deadline: Duration) -> Self {
        TaskWait {
            deadline,
            first_interval: Duration::from_millis(100),
            max_interval: Duration::from_secs(2),
        }
    }
}

/// The UPID a task-starting call answered with.
pub fn upid_from_answer(
    client: &PveClient,
    path: &ApiPath,
    data: &Value,
) -> Result<Upid, ProxmoxError> {
    let text = data.as_str().ok_or_else(|| {
        client.decode_error(path, format!("expected a task id (UPID), got {data}"))
    })?;
    text.parse()
        .map_err(|e: UpidError| client.decode_error(path, e.to_string()))
}

/// Polls the task until it stops, then reads its log tail and decides.
/// A failed task is `Err(TaskFailed)`; one still running at the deadline
/// is `Err(TaskStillRunning)`.
pub async fn wait_for_task(
    client: &PveClient,
    upid: &Upid,
    wait: TaskWait,
) -> Result<TaskOutcome, ProxmoxError> {
    let started = tokio::time::Instant::now();
    let status_path = task_path(upid).join(["status"]);
    let mut interval = wait.first_interval;
    let dispatched = format!("task {upid}");
    let status = loop {
        let status = client
            .get(&status_path, &[])
            .await
            .map_err(|e| e.after_dispatch(&dispatched))?;
        let state = text_field(&status, "status");
        if state.as_deref() == Some("stopped") {
            break status;
        }
        let elapsed = started.elapsed();
        if elapsed >= wait.deadline {
            let log_tail = read_log_tail(client, upid).await.unwrap_or_default();
            return Err(ProxmoxError::TaskStillRunning {
                upid: upid.to_string(),
                waited: elapsed,
                log_tail,
            });
        }
        tokio::time::sleep(interval.min(wait.deadline - elapsed)).await;
        interval = (interval * 2).min(wait.max_interval);
    };
    let exit_status = text_field(&status, "exitstatus");
    let ran_secs = uint_field(&status, "endtime")
        .and_then(|end| i64::try_from(end).ok())
        .map(|end| end.saturating_sub(upid.start_time))
        .filter(|secs| *secs >= 0);
    let log_tail = read_log_tail(client, upid)
        .await
        .map_err(|e| e.after_dispatch(&dispatched))?;
    let exit = decide_exit(exit_status.as_deref(), &log_tail);
    let waited_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match exit {
        TaskExit::Failed { message } => Err(ProxmoxError::TaskFailed {
            upid: upid.to_string(),
            node: upid.node.clone(),
            task_type: upid.task_type.clone(),
            exit_status: exit_status.unwrap_or(message),
            log_tail,
        }),
        exit => Ok(TaskOutcome {
            upid: upid.clone(),
            exit,
            exit_status,
            log_tail,
            waited_ms,
            ran_secs,
        }),
    }
}

fn task_path(upid: &Upid) -> ApiPath {
    ApiPath::new(["nodes", upid.node.as_str(), "tasks", upid.as_str()])
}

/// The last [`LOG_TAIL_LINES`] lines of the task's log, paging through it.
pub async fn read_log_tail(client: &PveClient, upid: &Upid) -> Result<Vec<String>, ProxmoxError> {
    let path = task_path(upid).join(["log"]);
    let mut tail: VecDeque<String> = VecDeque::with_capacity(LOG_TAIL_LINES);
    for page in 0..LOG_MAX_PAGES {
        let query = [
            ("start", (page * LOG_PAGE).to_string()),
            ("limit", LOG_PAGE.to_string()),
        ];
        let lines = client.get(&path, &query).await?;
        let lines = lines.as_array().cloned().unwrap_or_default();
        let count = lines.len();
        for line in lines {
            let Some(text) = text_field(&line, "t") else {
                continue;
            };
            if tail.len() == LOG_TAIL_LINES {
                tail.pop_front();
            }
            tail.push_back(text);
        }
        // A short page is the last one.
        if count < LOG_PAGE {
            break;
        }
    }
    Ok(tail.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn upids_parse() {
        let upid: Upid = "UPID:pve1:000003E8:00001B58:6740A2F1:qmstart:100:warden@pve!ops:"
            .parse()
            .unwrap();
        assert_eq!(upid.node, "pve1");
        assert_eq!(upid.pid, 1000);
        assert_eq!(upid.pstart, 7000);
        assert_eq!(upid.start_time, 0x6740A2F1);
        assert_eq!(upid.task_type, "qmstart");
        assert_eq!(upid.id, "100");
        assert_eq!(upid.user, "warden@pve!ops");
        let upid: Upid = "UPID:pve1:00000001:00000002:00000003:aptupdate::root@pam:"
            .parse()
            .unwrap();
        assert_eq!(upid.id, "");
    }

    #[test]
    fn bad_upids_say_why() {
        let cases = [
            ("", "no `UPID:` prefix"),
            ("UPID:pve1:1:2:3:qmstart:100:root@pam", "no trailing"),
            ("UPID:pve1:1:2:3:qmstart:root@pam:", "expected 7 fields"),
            ("UPID:pve1:zz:2:3:qmstart:100:root@pam:", "must be hex"),
            ("UPID::1:2:3:qmstart:100:root@pam:", "must not be empty"),
        ];
        for (text, expected) in cases {
            let err = text.parse::<Upid>().unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }

    fn lines(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exits_are_decided_from_status_and_log() {
        let cases: Vec<(Option<&str>, Vec<String>, TaskExit)> = vec![
            (Some("OK"), lines(&["TASK OK"]), TaskExit::Ok),
            (Some("OK"), vec![], TaskExit::Ok),
            (
                Some("WARNINGS: 2"),
                lines(&["WARN: x", "TASK WARNINGS: 2"]),
                TaskExit::Warnings { count: 2 },
            ),
            (
                Some("OK"),
                lines(&["TASK WARNINGS: 3"]),
                TaskExit::Warnings { count: 3 },
            ),
            (
                Some("VM quit/powerdown failed - got timeout"),
                lines(&["TASK ERROR: VM quit/powerdown failed - got timeout"]),
                TaskExit::Failed {
                    message: "VM quit/powerdown failed - got timeout".into(),
                },
            ),
            // The log's error wins over an OK status.
            (
                Some("OK"),
                lines(&["starting", "TASK ERROR: disk missing"]),
                TaskExit::Failed {
                    message: "disk missing".into(),
                },
            ),
            (None, lines(&["x", "TASK OK"]), TaskExit::Ok),
            (
                None,
                lines(&["x"]),
                TaskExit::Failed {
                    message: "the task ended without an exit status".into(),
                },
            ),
            (
                Some("unexpected status"),
                vec![],
                TaskExit::Failed {
                    message: "unexpected status".into(),
                },
            ),
        ];
        for (status, log, expected) in cases {
            assert_eq!(decide_exit(status, &log), expected, "{status:?} {log:?}");
        }
        assert!(TaskExit::Warnings { count: 1 }.succeeded());
        assert!(
            !TaskExit::Failed {
                message: String::new()
            }
            .succeeded()
        );
    }

    proptest! {
        #[test]
        fn upids_round_trip(
            node in "[a-z][a-z0-9-]{0,12}",
            pid in any::<u32>(),
            pstart in 0u64..u64::from(u32::MAX),
            start in 0i64..i64::from(u32::MAX),
            task_type in "[a-z]{2,12}",
            id in "[0-9]{0,6}",
        ) {
            let text = format!("UPID:{node}:{pid:08X}:{pstart:08X}:{start:08X}:{task_type}:{id}:warden@pve!ops:");
            let upid: Upid = text.parse().unwrap();
            prop_assert_eq!(upid.as_str(), text.as_str());
            prop_assert_eq!(upid.pid, pid);
            prop_assert_eq!(upid.pstart, pstart);
            prop_assert_eq!(upid.start_time, start);
        }

        #[test]
        fn an_error_line_always_fails(status in proptest::option::of("OK|WARNINGS: [0-9]"), msg in "[a-z ]{1,20}") {
            let log = vec![format!("TASK ERROR: {msg}")];
            prop_assert!(!decide_exit(status.as_deref(), &log).succeeded());
        }
    }
}
