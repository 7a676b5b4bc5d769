//! Guest power control through the API: start, stop, shutdown (with a
//! timeout, then optionally stop), reboot, for VMs and containers.
//!
//! Before acting, `status/current` is read and [`plan_power`] decides:
//! templates and locked guests are refused, HA-managed guests go through the
//! HA manager (PVE's status endpoints hand the request to it and answer with
//! an `hastart`/`hastop` task), and a guest already in the wanted state is
//! left alone. After the task, `status/current` is read again to verify.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use warden_protocol::ResourceId;

use super::client::{ApiPath, PveClient};
use super::error::ProxmoxError;
use super::inventory::GuestInfo;
use super::shutdown::{forced_by, power_summary};
use super::tasks::{TaskOutcome, TaskWait, upid_from_answer, wait_for_task};
use super::values::{bool_field, text_field};

/// What a shutdown does when the guest outlasts its timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ShutdownFallback {
    /// Stop it hard (PVE's `forceStop=1`).
    ForceStop,
    /// Leave it running; the task fails.
    LeaveRunning,
}

/// A power operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "operation", rename_all = "snake_case")]
pub enum PowerOperation {
    Start,
    /// Immediate stop (pulls the plug).
    Stop,
    /// Clean shutdown (ACPI / `lxc-stop`), at most `timeout`.
    Shutdown {
        timeout: Duration,
        on_timeout: ShutdownFallback,
    },
    Reboot,
}

impl PowerOperation {
    /// The `status/{verb}` endpoint.
    pub fn verb(self) -> &'static str {
        match self {
            PowerOperation::Start => "start",
            PowerOperation::Stop => "stop",
            PowerOperation::Shutdown { .. } => "shutdown",
            PowerOperation::Reboot => "reboot",
        }
    }

    /// The status the guest should have afterwards.
    pub fn expected_status(self) -> &'static str {
        match self {
            PowerOperation::Start | PowerOperation::Reboot => "running",
            PowerOperation::Stop | PowerOperation::Shutdown { .. } => "stopped",
        }
    }

    fn past_participle(self) -> &'static str {
        match self {
            PowerOperation::Start => "started",
            PowerOperation::Stop => "stopped",
            PowerOperation::Shutdown { .. } => "shut down",
            PowerOperation::Reboot => "rebooted",
        }
    }

    /// How long the task may take: the shutdown timeout plus a margin, or
    /// two minutes for the others.
    pub fn default_wait(self) -> Duration {
        match self {
            PowerOperation::Shutdown { timeout, .. } => timeout + Duration::from_secs(60),
            PowerOperation::Start | PowerOperation::Stop | PowerOperation::Reboot => {
                Duration::from_secs(120)
            }
        }
    }
}

/// Whether the HA manager manages the guest, from `status/current`'s `ha`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "ha", rename_all = "snake_case")]
pub enum HaManagement {
    Unmanaged,
    Managed { state: String },
}

/// The guest as `status/current` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GuestState {
    pub status: String,
    pub lock: Option<String>,
    pub template: bool,
    pub ha: HaManagement,
}

impl GuestState {
    /// Reads the `data` of `status/current` (tolerant, like the inventory).
    pub fn from_status(data: &Value) -> Self {
        let ha = match data.get("ha") {
            Some(ha) if bool_field(ha, "managed") == Some(true) => {
                let state = text_field(ha, "state").unwrap_or_else(|| "started".into());
                // `ignored` resources are left alone by the HA manager.
                if state == "ignored" {
                    HaManagement::Unmanaged
                } else {
                    HaManagement::Managed { state }
                }
            }
            Some(_) | None => HaManagement::Unmanaged,
        };
        GuestState {
            status: text_field(data, "status").unwrap_or_else(|| "unknown".into()),
            lock: text_field(data, "lock").filter(|l| !l.is_empty()),
            template: bool_field(data, "template").unwrap_or(false),
            ha,
        }
    }

    fn is_running(&self) -> bool {
        self.status == "running"
    }
}

/// How an operation will be (or was) carried out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "route", rename_all = "snake_case")]
pub enum PowerPlan {
    /// The guest is already as asked; nothing is sent.
    NothingToDo { reason: String },
    /// PVE's status endpoint, which runs the task itself.
    Direct,
    /// The HA manager carries it out; the task only queues the request.
    ThroughHa,
}

/// Decides what to do for `operation` on a guest in `state`. Pure.
pub fn plan_power(
    target: &str,
    operation: PowerOperation,
    state: &GuestState,
) -> Result<PowerPlan, ProxmoxError> {
    if state.template {
        return Err(ProxmoxError::Template {
            target: target.to_string(),
            action: operation.past_participle().to_string(),
        });
    }
    if let Some(lock) = &state.lock {
        // A hibernated VM (`suspended`) is resumed by a start.
        let resumes = operation == PowerOperation::Start && lock == "suspended";
        if !resumes {
            return Err(ProxmoxError::Locked {
                target: target.to_string(),
                lock: lock.clone(),
            });
        }
    }
    let already = |what: &str| {
        Ok(PowerPlan::NothingToDo {
            reason: format!("{target} is already {what}"),
        })
    };
    let running = state.is_running();
    let through_ha = match &state.ha {
        HaManagement::Unmanaged => false,
        HaManagement::Managed { state: ha_state } => {
            ha_refusal(target, ha_state)?;
            true
        }
    };
    match operation {
        PowerOperation::Start if running => already("running"),
        PowerOperation::Stop | PowerOperation::Shutdown { .. }
            if !running && state.status == "stopped" =>
        {
            already("stopped")
        }
        PowerOperation::Reboot if !running => Err(ProxmoxError::NotRunning {
            target: target.to_string(),
            status: state.status.clone(),
            operation: "reboot".into(),
        }),
        // A reboot keeps HA's requested state (`started`): PVE runs it directly.
        PowerOperation::Reboot => Ok(PowerPlan::Direct),
        PowerOperation::Start | PowerOperation::Stop | PowerOperation::Shutdown { .. } => {
            Ok(if through_ha {
                PowerPlan::ThroughHa
            } else {
                PowerPlan::Direct
            })
        }
    }
}

/// HA states in which PVE refuses (or would not act on) a request.
fn ha_refusal(target: &str, ha_state: &str) -> Result<(), ProxmoxError> {
    let hint = match ha_state {
        "error" => {
            "fix the cause, then set the HA resource to `disabled` (ha-manager set SID --state disabled) and try again"
        }
        "fence" | "recovery" => {
            "the HA manager is recovering it from a failed node; wait until it is done"
        }
        "migrate" | "relocate" | "freeze" => {
            "the HA manager is moving or holding it; wait until it is done"
        }
        _ => return Ok(()),
    };
    Err(ProxmoxError::HaRefused {
        target: target.to_string(),
        state: ha_state.to_string(),
        hint: hint.to_string(),
    })
}

/// What a power operation did, as the model and the user see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerOutcome {
    pub target: ResourceId,
    pub operation: PowerOperation,
    pub plan: PowerPlan,
    /// The task PVE ran, with its exit status and log tail.
    pub task: Option<TaskOutcome>,
    pub status_before: String,
    /// From the verification read of `status/current`.
    pub status_after: String,
    /// A shutdown that outlasted its timeout and was forced off (PVE counts
    /// it a success): never reported as a clean shutdown.
    pub forced: bool,
    /// What shows it was forced: the task log's line, or its length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forced_evidence: Option<String>,
    /// One sentence for the operator: what was done, the state now.
    pub summary: String,
}

/// Reads `status/current` of a guest.
pub async fn read_guest_state(
    client: &PveClient,
    guest: &GuestInfo,
) -> Result<GuestState, ProxmoxError> {
    let path = guest.api_path().join(["status", "current"]);
    let data = client
        .get(&path, &[])
        .await
        .map_err(|e| e.needing_privilege("VM.Audit"))?;
    Ok(GuestState::from_status(&data))
}

/// Carries out `operation` on `guest`, waiting at most `wait.deadline` for
/// the task and (through HA) for the guest to reach the wanted state.
pub async fn power(
    client: &PveClient,
    guest: &GuestInfo,
    operation: PowerOperation,
    wait: TaskWait,
) -> Result<PowerOutcome, ProxmoxError> {
    let target = guest.resource_id();
    let started = tokio::time::Instant::now();
    let before = read_guest_state(client, guest).await?;
    let plan = plan_power(&target.to_string(), operation, &before)?;
    let mut outcome = PowerOutcome {
        target: target.clone(),
        operation,
        plan: plan.clone(),
        task: None,
        status_before: before.status.clone(),
        status_after: before.status.clone(),
        forced: false,
        forced_evidence: None,
        summary: String::new(),
    };
    let named = format!("{} ({target})", guest.name);
    if let PowerPlan::NothingToDo { .. } = plan {
        outcome.summary = power_summary(&named, operation, &plan, None, &before.status);
        return Ok(outcome);
    }
    let path = guest.api_path().join(["status", operation.verb()]);
    let mut form: Vec<(&str, String)> = Vec::new();
    if let PowerOperation::Shutdown {
        timeout,
        on_timeout,
    } = operation
    {
        form.push(("timeout", timeout.as_secs().max(1).to_string()));
        match on_timeout {
            ShutdownFallback::ForceStop => form.push(("forceStop", "1".into())),
            ShutdownFallback::LeaveRunning => {}
        }
    }
    let answer = client
        .post(&path, &form)
        .await
        .map_err(|e| e.needing_privilege("VM.PowerMgmt"))?;
    let upid = upid_from_answer(client, &path, &answer)?;
    let task = wait_for_task(client, &upid, wait).await?;
    outcome.forced_evidence = forced_by(operation, Some(&task));
    outcome.forced = outcome.forced_evidence.is_some();
    outcome.task = Some(task);
    let expected = operation.expected_status();
    let dispatched = format!("{} of {target}", operation.verb());
    let read_back = || async {
        read_guest_state(client, guest)
            .await
            .map_err(|e| e.after_dispatch(&dispatched))
    };
    let mut after = read_back().await?;
    if plan == PowerPlan::ThroughHa {
        // The HA manager acts a few seconds after the request was queued.
        let mut pause = Duration::from_millis(200);
        while after.status != expected && started.elapsed() < wait.deadline {
            tokio::time::sleep(pause.min(wait.deadline.saturating_sub(started.elapsed()))).await;
            pause = (pause * 2).min(Duration::from_secs(2));
            after = read_back().await?;
        }
    }
    outcome.status_after = after.status.clone();
    outcome.summary = power_summary(
        &named,
        operation,
        &plan,
        outcome.forced_evidence.as_deref(),
        &after.status,
    );
    if after.status != expected {
        return Err(ProxmoxError::VerificationFailed {
            target: target.to_string(),
            operation: operation.verb().to_string(),
            expected: expected.to_string(),
            actual: after.status,
        });
    }
    Ok(outcome)
}

/// The API path of a guest's `status/{verb}` (for messages and audits).
pub fn power_path(guest: &GuestInfo, operation: PowerOperation) -> ApiPath {
    guest.api_path().join(["status", operation.verb()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(status: &str, lock: Option<&str>, template: bool, ha: Option<&str>) -> GuestState {
        GuestState {
            status: status.into(),
            lock: lock.map(Into::into),
            template,
            ha: match ha {
                Some(s) => HaManagement::Managed { state: s.into() },
                None => HaManagement::Unmanaged,
            },
        }
    }

    const SHUTDOWN: PowerOperation = PowerOperation::Shutdown {
        timeout: Duration::from_secs(60),
        on_timeout: ShutdownFallback::ForceStop,
    };

    #[test]
    fn plans() {
        use PowerOperation::{Reboot, Start, Stop};
        let t = "vm:pve1:100";
        let direct = Ok(PowerPlan::Direct);
        let ha = Ok(PowerPlan::ThroughHa);
        let cases: Vec<(PowerOperation, GuestState, Result<PowerPlan, &str>)> = vec![
            (Start, state("stopped", None, false, None), direct.clone()),
            (
                Start,
                state("running", None, false, None),
                Err("already running"),
            ),
            (Stop, state("running", None, false, None), direct.clone()),
            (
                Stop,
                state("stopped", None, false, None),
                Err("already stopped"),
            ),
            (
                SHUTDOWN,
                state("running", None, false, None),
                direct.clone(),
            ),
            (
                SHUTDOWN,
                state("stopped", None, false, None),
                Err("already stopped"),
            ),
            (Reboot, state("running", None, false, None), direct.clone()),
            (
                Reboot,
                state("stopped", None, false, None),
                Err("reboot needs a running guest"),
            ),
            (
                Start,
                state("stopped", None, true, None),
                Err("is a template"),
            ),
            (
                Stop,
                state("running", Some("backup"), false, None),
                Err("locked (backup) — a backup is running"),
            ),
            (
                Start,
                state("stopped", Some("migrate"), false, None),
                Err("locked (migrate)"),
            ),
            (
                Start,
                state("stopped", Some("suspended"), false, None),
                direct.clone(),
            ),
            (
                Stop,
                state("running", Some("suspended"), false, None),
                Err("locked (suspended)"),
            ),
            (
                Start,
                state("stopped", None, false, Some("stopped")),
                ha.clone(),
            ),
            (
                Stop,
                state("running", None, false, Some("started")),
                ha.clone(),
            ),
            (
                SHUTDOWN,
                state("running", None, false, Some("started")),
                ha.clone(),
            ),
            (
                Reboot,
                state("running", None, false, Some("started")),
                direct.clone(),
            ),
            (
                Start,
                state("stopped", None, false, Some("error")),
                Err("HA state is `error`"),
            ),
            (
                Stop,
                state("running", None, false, Some("fence")),
                Err("recovering it"),
            ),
            (
                Start,
                state("stopped", None, false, Some("migrate")),
                Err("moving or holding"),
            ),
        ];
        for (op, st, expected) in cases {
            let got = plan_power(t, op, &st);
            match (expected, got) {
                (Ok(want), Ok(plan)) => assert_eq!(plan, want, "{op:?} {st:?}"),
                (Err(text), Ok(PowerPlan::NothingToDo { reason })) => {
                    assert!(reason.contains(text), "{op:?} {st:?}: {reason}");
                }
                (Err(text), Err(err)) => {
                    let shown = err.to_string();
                    assert!(shown.contains(text), "{op:?} {st:?}: {shown}");
                    assert!(err.nothing_changed());
                }
                (want, got) => panic!("{op:?} {st:?}: expected {want:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn status_current_is_read_tolerantly() {
        let st = GuestState::from_status(&json!({
            "status": "running", "lock": "backup", "template": "1", "ha": {"managed": 1, "state": "started"}
        }));
        assert_eq!(st, state("running", Some("backup"), true, Some("started")));
        let st = GuestState::from_status(
            &json!({"status": "stopped", "ha": {"managed": 0}, "lock": ""}),
        );
        assert_eq!(st, state("stopped", None, false, None));
        let st = GuestState::from_status(&json!({"ha": {"managed": "1", "state": "ignored"}}));
        assert_eq!(st, state("unknown", None, false, None));
    }
}
