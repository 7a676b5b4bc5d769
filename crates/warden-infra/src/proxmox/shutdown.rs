//! How a power operation ended, in words: above all whether a shutdown was
//! clean or forced. PVE reports a shutdown with `forceStop=1` that outlasted
//! its timeout as a task that *succeeded*; only its log ("VM quit/powerdown
//! failed - terminating now with SIGTERM") or its length (it ran the whole
//! timeout) tells that the guest was forced off. Pure.

use std::time::Duration;

use super::control::{PowerOperation, PowerPlan, ShutdownFallback};
use super::tasks::TaskOutcome;

/// Words of a task log line that mean the guest did not go down by itself:
/// a timeout, a signal, a kill, a forced stop.
const FORCED_MARKERS: [&str; 10] = [
    "terminating now",
    "sigterm",
    "sigkill",
    "kill",
    "forc",
    "timeout",
    "timed out",
    "did not stop",
    "still running",
    "hard stop",
];

/// Why a finished shutdown counts as forced, or `None` when it was clean.
/// `ran_secs` is how long PVE says the task ran. Pure.
pub fn forced_evidence(
    log_tail: &[String],
    ran_secs: Option<i64>,
    timeout: Duration,
    on_timeout: ShutdownFallback,
) -> Option<String> {
    let marked = log_tail.iter().map(|l| l.trim()).find(|line| {
        let lower = line.to_ascii_lowercase();
        !lower.starts_with("task ok")
            && !lower.starts_with("task warnings")
            && FORCED_MARKERS.iter().any(|m| lower.contains(m))
    });
    if let Some(line) = marked {
        return Some(format!("task log: \"{line}\""));
    }
    let timeout_secs = i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX);
    match (on_timeout, ran_secs) {
        (ShutdownFallback::ForceStop, Some(ran)) if timeout_secs > 0 && ran >= timeout_secs => {
            Some(format!(
                "the task ran {ran} s, its whole timeout of {timeout_secs} s, before the guest stopped"
            ))
        }
        (ShutdownFallback::ForceStop | ShutdownFallback::LeaveRunning, _) => None,
    }
}

/// Whether `operation`'s task shows the guest was forced off (shutdowns only).
pub fn forced_by(operation: PowerOperation, task: Option<&TaskOutcome>) -> Option<String> {
    match (operation, task) {
        (
            PowerOperation::Shutdown {
                timeout,
                on_timeout,
            },
            Some(task),
        ) => forced_evidence(&task.log_tail, task.ran_secs, timeout, on_timeout),
        (PowerOperation::Shutdown { .. }, None)
        | (PowerOperation::Start | PowerOperation::Stop | PowerOperation::Reboot, _) => None,
    }
}

/// One sentence for the operator: what was done and the state Proxmox
/// reports now. `guest` names it (`web (vm:pve1:100)`). Pure.
pub fn power_summary(
    guest: &str,
    operation: PowerOperation,
    plan: &PowerPlan,
    forced: Option<&str>,
    status_after: &str,
) -> String {
    if let PowerPlan::NothingToDo { reason } = plan {
        return format!("Nothing was sent: {reason}.");
    }
    let how = match (operation, forced) {
        (PowerOperation::Start, _) => "was started".to_string(),
        (PowerOperation::Stop, _) => "was stopped at once, without a clean shutdown".to_string(),
        (PowerOperation::Shutdown { timeout, .. }, Some(evidence)) => format!(
            "did not shut down within {} s and was forced off ({evidence}): not a clean shutdown",
            timeout.as_secs()
        ),
        (PowerOperation::Shutdown { .. }, None) => "shut down cleanly".to_string(),
        (PowerOperation::Reboot, _) => "was rebooted".to_string(),
    };
    let ha = match plan {
        PowerPlan::ThroughHa => " by the HA manager",
        PowerPlan::Direct | PowerPlan::NothingToDo { .. } => "",
    };
    format!("{guest} {how}{ha}; Proxmox reports it {status_after}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORCE: ShutdownFallback = ShutdownFallback::ForceStop;
    const LEAVE: ShutdownFallback = ShutdownFallback::LeaveRunning;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn forced_shutdowns_are_told_from_the_log_or_the_length() {
        let t = Duration::from_secs(60);
        // (log, ran secs, fallback, forced)
        let cases: Vec<(Vec<String>, Option<i64>, ShutdownFallback, bool)> = vec![
            (lines(&["TASK OK"]), Some(3), FORCE, false),
            (lines(&[]), None, FORCE, false),
            (
                lines(&["VM still running - terminating now with SIGTERM", "TASK OK"]),
                Some(60),
                FORCE,
                true,
            ),
            (
                lines(&[
                    "VM quit/powerdown failed - terminating now with SIGTERM",
                    "TASK OK",
                ]),
                None,
                FORCE,
                true,
            ),
            (
                lines(&[
                    "VM 100 still running - terminating now with SIGKILL",
                    "TASK OK",
                ]),
                None,
                FORCE,
                true,
            ),
            (
                lines(&["shutdown timeout reached, killing container", "TASK OK"]),
                None,
                FORCE,
                true,
            ),
            (
                lines(&["forcing stop of CT 141", "TASK OK"]),
                None,
                FORCE,
                true,
            ),
            // An LXC whose log says nothing, but which took the whole timeout.
            (lines(&["TASK OK"]), Some(61), FORCE, true),
            (lines(&["TASK OK"]), Some(59), FORCE, false),
            // Left running on timeout: it cannot have been forced.
            (lines(&["TASK OK"]), Some(61), LEAVE, false),
            (
                lines(&["Requesting HA stop for VM 100", "TASK OK"]),
                None,
                FORCE,
                false,
            ),
            (lines(&["TASK WARNINGS: 1"]), Some(1), FORCE, false),
        ];
        for (log, ran, fallback, forced) in cases {
            assert_eq!(
                forced_evidence(&log, ran, t, fallback).is_some(),
                forced,
                "{log:?} {ran:?} {fallback:?}"
            );
        }
        let evidence = forced_evidence(
            &lines(&["VM still running - terminating now with SIGTERM"]),
            None,
            t,
            FORCE,
        )
        .unwrap();
        assert!(
            evidence.contains("terminating now with SIGTERM"),
            "{evidence}"
        );
    }

    #[test]
    fn summaries_never_call_a_forced_shutdown_clean() {
        let shutdown = PowerOperation::Shutdown {
            timeout: Duration::from_secs(180),
            on_timeout: FORCE,
        };
        let forced = power_summary(
            "web (vm:pve1:100)",
            shutdown,
            &PowerPlan::Direct,
            Some("task log: \"VM still running - terminating now with SIGTERM\""),
            "stopped",
        );
        assert!(forced.contains("forced off"), "{forced}");
        assert!(!forced.contains("cleanly"), "{forced}");
        assert!(forced.contains("within 180 s"), "{forced}");
        let clean = power_summary(
            "web (vm:pve1:100)",
            shutdown,
            &PowerPlan::Direct,
            None,
            "stopped",
        );
        assert_eq!(
            clean,
            "web (vm:pve1:100) shut down cleanly; Proxmox reports it stopped."
        );
        let nothing = power_summary(
            "web (vm:pve1:100)",
            PowerOperation::Start,
            &PowerPlan::NothingToDo {
                reason: "vm:pve1:100 is already running".into(),
            },
            None,
            "running",
        );
        assert_eq!(nothing, "Nothing was sent: vm:pve1:100 is already running.");
        let ha = power_summary(
            "web (vm:pve1:100)",
            PowerOperation::Stop,
            &PowerPlan::ThroughHa,
            None,
            "stopped",
        );
        assert!(ha.contains("by the HA manager"), "{ha}");
    }
}
