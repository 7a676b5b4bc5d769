//! Commands inside a VM through the QEMU guest agent (`agent/exec`, then
//! `agent/exec-status` until it exits), for VMs with no Warden agent
//! inside. The executor classifies the command before it gets here; the
//! result says it ran unsandboxed (the guest agent runs it as root, outside
//! any Landlock sandbox).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::client::{ApiPath, PveClient};
use super::control::read_guest_state;
use super::error::{PermissionDenied, ProxmoxError};
use super::inventory::{GuestInfo, GuestKind};
use super::values::{bool_field, float_field, text_field, uint_field};

/// How the command was confined. Always `Unsandboxed` here: said so that
/// nobody mistakes it for an agent's sandboxed read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Confinement {
    Unsandboxed,
}

/// What a command run through the guest agent produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GuestCommandOutput {
    pub exit_code: Option<i64>,
    /// The signal that ended it, if one did.
    pub signal: Option<i64>,
    pub stdout: String,
    pub stderr: String,
    /// The guest agent cut the output (it keeps a bounded buffer).
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub confinement: Confinement,
    pub waited_ms: u64,
}

/// The privilege `agent/exec` needs: `VM.GuestAgent.Unrestricted` from PVE 9
/// on, `VM.Monitor` before.
pub fn agent_exec_privilege(pve_major: u32) -> &'static str {
    if pve_major >= 9 {
        "VM.GuestAgent.Unrestricted"
    } else {
        "VM.Monitor"
    }
}

/// The major version of `/version`'s `version` (`9.0.10` → 9).
pub fn major_version(version: &Value) -> Option<u32> {
    text_field(version, "version")?
        .split('.')
        .next()?
        .trim()
        .parse()
        .ok()
}

/// Whether the `data` of `/access/permissions` grants `privilege` on
/// `acl_path`, directly or through a parent path (`/`, `/vms`).
pub fn holds_privilege(permissions: &Value, acl_path: &str, privilege: &str) -> bool {
    let Some(paths) = permissions.as_object() else {
        return false;
    };
    paths.iter().any(|(path, privileges)| {
        let covers = path == "/"
            || path == acl_path
            || acl_path.starts_with(&format!("{}/", path.trim_end_matches('/')));
        covers && bool_field(privileges, privilege).unwrap_or(false)
    })
}

/// A decoded `agent/exec-status` answer, or `None` while it runs.
pub fn parse_exec_status(data: &Value) -> Option<GuestCommandOutput> {
    if !bool_field(data, "exited").unwrap_or(false) {
        return None;
    }
    Some(GuestCommandOutput {
        exit_code: float_field(data, "exitcode").map(|c| c as i64),
        signal: uint_field(data, "signal").and_then(|s| i64::try_from(s).ok()),
        stdout: text_field(data, "out-data").unwrap_or_default(),
        stderr: text_field(data, "err-data").unwrap_or_default(),
        stdout_truncated: bool_field(data, "out-truncated").unwrap_or(false),
        stderr_truncated: bool_field(data, "err-truncated").unwrap_or(false),
        confinement: Confinement::Unsandboxed,
        waited_ms: 0,
    })
}

/// Runs `argv` in the VM and waits (at most `deadline`) for it to exit.
/// Refuses containers, stopped VMs, and tokens without the privilege.
pub async fn exec_in_vm(
    client: &PveClient,
    guest: &GuestInfo,
    argv: &[String],
    deadline: Duration,
) -> Result<GuestCommandOutput, ProxmoxError> {
    let target = guest.resource_id().to_string();
    if guest.kind != GuestKind::Qemu {
        return Err(ProxmoxError::Unsupported {
            target,
            operation: "a command through the QEMU guest agent".into(),
            reason: "containers have no guest agent; commands reach them with `pct exec` by the node's agent".into(),
        });
    }
    if argv.is_empty() || argv[0].is_empty() {
        return Err(ProxmoxError::Unsupported {
            target,
            operation: "agent exec".into(),
            reason: "the command is empty".into(),
        });
    }
    let state = read_guest_state(client, guest).await?;
    if state.status != "running" {
        return Err(ProxmoxError::NotRunning {
            target,
            status: state.status,
            operation: "a command through the guest agent".into(),
        });
    }
    require_agent_privilege(client, guest).await?;
    let started = tokio::time::Instant::now();
    let exec_path = guest.api_path().join(["agent", "exec"]);
    let form: Vec<(&str, String)> = argv.iter().map(|arg| ("command", arg.clone())).collect();
    let answer = client.post(&exec_path, &form).await?;
    let pid = uint_field(&answer, "pid")
        .ok_or_else(|| client.decode_error(&exec_path, format!("no `pid` in {answer}")))?;
    let status_path = guest.api_path().join(["agent", "exec-status"]);
    let mut pause = Duration::from_millis(100);
    loop {
        let data = client
            .get(&status_path, &[("pid", pid.to_string())])
            .await?;
        if let Some(mut output) = parse_exec_status(&data) {
            output.waited_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            return Ok(output);
        }
        if started.elapsed() >= deadline {
            return Err(ProxmoxError::Timeout {
                cluster: client.cluster().to_string(),
                method: "GET".into(),
                path: format!(
                    "{status_path}?pid={pid} (the command is still running in the guest)"
                ),
                timeout: deadline,
            });
        }
        tokio::time::sleep(pause.min(deadline.saturating_sub(started.elapsed()))).await;
        pause = (pause * 2).min(Duration::from_secs(1));
    }
}

/// Checks `/access/permissions` for the exec privilege, so a missing one is
/// named before anything is sent to the guest.
async fn require_agent_privilege(
    client: &PveClient,
    guest: &GuestInfo,
) -> Result<(), ProxmoxError> {
    let version = client.get(&ApiPath::new(["version"]), &[]).await?;
    let privilege = agent_exec_privilege(major_version(&version).unwrap_or(9));
    let acl_path = format!("/vms/{}", guest.vmid);
    let permissions_path = ApiPath::new(["access", "permissions"]);
    let permissions = client
        .get(&permissions_path, &[("path", acl_path.clone())])
        .await?;
    if holds_privilege(&permissions, &acl_path, privilege) {
        return Ok(());
    }
    Err(ProxmoxError::Forbidden(Box::new(PermissionDenied {
        cluster: client.cluster().to_string(),
        token_id: client.token_id().to_string(),
        method: "POST".into(),
        path: guest.api_path().join(["agent", "exec"]).to_string(),
        acl_path,
        privilege: Some(privilege.to_string()),
        message: "checked with /access/permissions before sending the command".into(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn privileges_by_version() {
        assert_eq!(agent_exec_privilege(9), "VM.GuestAgent.Unrestricted");
        assert_eq!(agent_exec_privilege(10), "VM.GuestAgent.Unrestricted");
        assert_eq!(agent_exec_privilege(8), "VM.Monitor");
        assert_eq!(major_version(&json!({"version": "9.0.10"})), Some(9));
        assert_eq!(major_version(&json!({"version": "8.4.1"})), Some(8));
        assert_eq!(major_version(&json!({})), None);
    }

    #[test]
    fn privileges_are_inherited_from_parent_paths() {
        let priv_ = "VM.GuestAgent.Unrestricted";
        let cases = [
            (json!({"/": {priv_: 1}}), true),
            (json!({"/vms": {priv_: 1}}), true),
            (json!({"/vms/100": {priv_: "1"}}), true),
            (json!({"/vms/1000": {priv_: 1}}), false),
            (json!({"/vms/100": {priv_: 0}}), false),
            (json!({"/vms/100": {"VM.Audit": 1}}), false),
            (json!({"/storage": {priv_: 1}}), false),
            (json!([]), false),
        ];
        for (permissions, expected) in cases {
            assert_eq!(
                holds_privilege(&permissions, "/vms/100", priv_),
                expected,
                "{permissions}"
            );
        }
    }

    #[test]
    fn exec_status_is_decoded() {
        assert_eq!(parse_exec_status(&json!({"exited": 0})), None);
        let out = parse_exec_status(&json!({
            "exited": 1, "exitcode": 2, "out-data": "hi\n", "err-data": "oops", "out-truncated": 1
        }))
        .unwrap();
        assert_eq!(out.exit_code, Some(2));
        assert_eq!(out.stdout, "hi\n");
        assert_eq!(out.stderr, "oops");
        assert!(out.stdout_truncated && !out.stderr_truncated);
        assert_eq!(out.confinement, Confinement::Unsandboxed);
        let killed = parse_exec_status(&json!({"exited": true, "signal": 9})).unwrap();
        assert_eq!((killed.exit_code, killed.signal), (None, Some(9)));
    }
}
