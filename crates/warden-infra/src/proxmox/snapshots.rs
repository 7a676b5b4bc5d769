//! Guest snapshots: list, create (waited for), roll back, delete; and the
//! name of the snapshot taken before an approved change,
//! `warden-<time>-<approval>`, so the change can be rolled back.

use serde::Serialize;
use serde_json::Value;
use warden_protocol::ResourceId;

use super::client::PveClient;
use super::control::read_guest_state;
use super::error::ProxmoxError;
use super::inventory::GuestInfo;
use super::tasks::{TaskOutcome, TaskWait, upid_from_answer, wait_for_task};
use super::values::{bool_field, text_field, uint_field};

/// PVE's limit on snapshot names (`pve-configid`, at most 40 characters).
pub const SNAPSHOT_NAME_MAX: usize = 40;

/// One snapshot of a guest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotInfo {
    pub name: String,
    pub description: Option<String>,
    /// Unix seconds.
    pub taken_at: Option<i64>,
    pub parent: Option<String>,
    /// RAM state included (VMs).
    pub with_ram: bool,
    /// Whether the guest currently runs from it (the parent of `current`).
    pub is_current_parent: bool,
}

/// Why a snapshot name is not one PVE accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "snapshot name {name:?} is not valid: it must start with a letter, hold only letters, digits, `-` and `_`, \
     be 2 to 40 characters long, and not be `current`, `vzdump` or `pending`"
)]
pub struct BadSnapshotName {
    pub name: String,
}

/// Checks a snapshot name as PVE does (`pve-configid`, reserved names).
pub fn check_snapshot_name(name: &str) -> Result<(), BadSnapshotName> {
    let ok = (2..=SNAPSHOT_NAME_MAX).contains(&name.len())
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && name != "current"
        && name != "vzdump"
        && !name.eq_ignore_ascii_case("pending");
    if ok {
        Ok(())
    } else {
        Err(BadSnapshotName {
            name: name.to_string(),
        })
    }
}

/// `warden-YYYYMMDDhhmmss-<approval>`: the approval id lower-cased, reduced
/// to letters and digits, and cut so the whole fits PVE's 40 characters.
pub fn pre_change_snapshot_name(at: jiff::Timestamp, approval_id: &str) -> String {
    let time = at.strftime("%Y%m%d%H%M%S").to_string();
    let prefix = format!("warden-{time}-");
    let room = SNAPSHOT_NAME_MAX - prefix.len();
    let approval: String = approval_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .take(room)
        .collect();
    if approval.is_empty() {
        format!("warden-{time}")
    } else {
        format!("{prefix}{approval}")
    }
}

/// Parses the `data` of `GET …/snapshot` (the `current` entry marks the parent).
pub fn parse_snapshot_list(data: &Value) -> Vec<SnapshotInfo> {
    let items = data.as_array().map(Vec::as_slice).unwrap_or_default();
    let current_parent = items
        .iter()
        .find(|i| text_field(i, "name").as_deref() == Some("current"))
        .and_then(|i| text_field(i, "parent"));
    let mut out: Vec<SnapshotInfo> = items
        .iter()
        .filter_map(|item| {
            let name = text_field(item, "name")?;
            (name != "current").then(|| SnapshotInfo {
                is_current_parent: current_parent.as_deref() == Some(name.as_str()),
                name,
                description: text_field(item, "description").filter(|d| !d.trim().is_empty()),
                taken_at: uint_field(item, "snaptime").and_then(|t| i64::try_from(t).ok()),
                parent: text_field(item, "parent"),
                with_ram: bool_field(item, "vmstate").unwrap_or(false),
            })
        })
        .collect();
    out.sort_by_key(|s| (s.taken_at, s.name.clone()));
    out
}

/// The guest's snapshots, oldest first.
pub async fn list_snapshots(
    client: &PveClient,
    guest: &GuestInfo,
) -> Result<Vec<SnapshotInfo>, ProxmoxError> {
    let path = guest.api_path().join(["snapshot"]);
    let data = client
        .get(&path, &[])
        .await
        .map_err(|e| e.needing_privilege("VM.Audit"))?;
    Ok(parse_snapshot_list(&data))
}

fn refuse_bad_name(guest: &GuestInfo, name: &str) -> Result<(), ProxmoxError> {
    check_snapshot_name(name).map_err(|e| ProxmoxError::Unsupported {
        target: guest.resource_id().to_string(),
        operation: "snapshot".into(),
        reason: e.to_string(),
    })
}

/// Takes a snapshot (without RAM) and waits for its task.
pub async fn create_snapshot(
    client: &PveClient,
    guest: &GuestInfo,
    name: &str,
    description: &str,
    wait: TaskWait,
) -> Result<TaskOutcome, ProxmoxError> {
    refuse_bad_name(guest, name)?;
    let state = read_guest_state(client, guest).await?;
    let target = guest.resource_id().to_string();
    if state.template {
        return Err(ProxmoxError::Template {
            target,
            action: "snapshotted".into(),
        });
    }
    if let Some(lock) = state.lock {
        return Err(ProxmoxError::Locked { target, lock });
    }
    let path = guest.api_path().join(["snapshot"]);
    let mut form = vec![("snapname", name.to_string())];
    if !description.is_empty() {
        form.push(("description", description.to_string()));
    }
    let answer = client
        .post(&path, &form)
        .await
        .map_err(|e| e.needing_privilege("VM.Snapshot"))?;
    let upid = upid_from_answer(client, &path, &answer)?;
    wait_for_task(client, &upid, wait).await
}

/// What a rollback did and left behind: the guest's state after it (a VM
/// rolled back to a snapshot without RAM is stopped), in words too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RollbackOutcome {
    pub target: ResourceId,
    pub snapshot: String,
    /// Whether the snapshot holds the RAM state (then the guest resumes
    /// running from it).
    pub with_ram: bool,
    pub status_before: String,
    /// From `status/current` read after the task.
    pub status_after: String,
    pub task: TaskOutcome,
    /// One sentence for the operator: what was done, the state now.
    pub summary: String,
}

/// The sentence for a rollback. Pure.
pub fn rollback_summary(
    guest: &str,
    snapshot: &str,
    with_ram: bool,
    status_before: &str,
    status_after: &str,
) -> String {
    let mut text = format!(
        "{guest} was rolled back to snapshot `{snapshot}`; Proxmox reports it {status_after} now."
    );
    let was_running = status_before == "running";
    match (status_after, with_ram) {
        ("stopped", false) => text.push_str(&format!(
            " The snapshot holds disk and configuration but no RAM state, so PVE leaves the guest stopped{}: start it when you want it back.",
            if was_running {
                " although it was running before"
            } else {
                ""
            }
        )),
        ("running", true) => text.push_str(" It resumed from the RAM state saved in the snapshot."),
        _ => {}
    }
    text
}

/// Rolls the guest back to a snapshot, waits for the task and reads the
/// guest's state after it. The snapshot must exist (checked first, for a
/// clear error).
pub async fn rollback_snapshot(
    client: &PveClient,
    guest: &GuestInfo,
    name: &str,
    wait: TaskWait,
) -> Result<RollbackOutcome, ProxmoxError> {
    refuse_bad_name(guest, name)?;
    let snapshot = require_snapshot(client, guest, name).await?;
    let before = read_guest_state(client, guest).await?;
    let path = guest.api_path().join(["snapshot", name, "rollback"]);
    let answer = client
        .post(&path, &[])
        .await
        .map_err(|e| e.needing_privilege("VM.Snapshot.Rollback"))?;
    let upid = upid_from_answer(client, &path, &answer)?;
    let task = wait_for_task(client, &upid, wait).await?;
    let dispatched = format!("rollback of {} to {name}", guest.resource_id());
    let after = read_guest_state(client, guest)
        .await
        .map_err(|e| e.after_dispatch(&dispatched))?;
    let target = guest.resource_id();
    Ok(RollbackOutcome {
        summary: rollback_summary(
            &format!("{} ({target})", guest.name),
            name,
            snapshot.with_ram,
            &before.status,
            &after.status,
        ),
        target,
        snapshot: name.to_string(),
        with_ram: snapshot.with_ram,
        status_before: before.status,
        status_after: after.status,
        task,
    })
}

/// Deletes a snapshot and waits for the task.
pub async fn delete_snapshot(
    client: &PveClient,
    guest: &GuestInfo,
    name: &str,
    wait: TaskWait,
) -> Result<TaskOutcome, ProxmoxError> {
    refuse_bad_name(guest, name)?;
    require_snapshot(client, guest, name).await?;
    let path = guest.api_path().join(["snapshot", name]);
    let answer = client
        .delete(&path, &[])
        .await
        .map_err(|e| e.needing_privilege("VM.Snapshot"))?;
    let upid = upid_from_answer(client, &path, &answer)?;
    wait_for_task(client, &upid, wait).await
}

async fn require_snapshot(
    client: &PveClient,
    guest: &GuestInfo,
    name: &str,
) -> Result<SnapshotInfo, ProxmoxError> {
    let snapshots = list_snapshots(client, guest).await?;
    if let Some(found) = snapshots.iter().find(|s| s.name == name) {
        return Ok(found.clone());
    }
    let known: Vec<&str> = snapshots.iter().map(|s| s.name.as_str()).collect();
    Err(ProxmoxError::NotFound {
        cluster: client.cluster().to_string(),
        what: format!("snapshot `{name}` of {}", guest.resource_id()),
        hint: Some(if known.is_empty() {
            "the guest has no snapshots".into()
        } else {
            format!("its snapshots: {}", known.join(", "))
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn names_are_checked_like_pve() {
        for good in ["warden-1", "before_upgrade", "Ab", &"a".repeat(40)] {
            assert_eq!(check_snapshot_name(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "a",
            "1abc",
            "Pending",
            "a b",
            "a.b",
            "current",
            "vzdump",
            &"a".repeat(41),
            "ä-x",
        ] {
            assert!(check_snapshot_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_pre_change_name() {
        let at: jiff::Timestamp = "2026-11-23T13:01:12Z".parse().unwrap();
        assert_eq!(
            pre_change_snapshot_name(at, "9F3A-77c0e1d2b3a4f5e6"),
            "warden-20261123130112-9f3a77c0e1d2b3a4f5"
        );
        assert_eq!(pre_change_snapshot_name(at, "--"), "warden-20261123130112");
    }

    #[test]
    fn a_rollback_says_the_state_it_left() {
        let stopped = rollback_summary("web (vm:pve1:100)", "before", false, "running", "stopped");
        assert!(stopped.contains("reports it stopped now"), "{stopped}");
        assert!(stopped.contains("no RAM state"), "{stopped}");
        assert!(
            stopped.contains("although it was running before"),
            "{stopped}"
        );
        let resumed = rollback_summary("web (vm:pve1:100)", "live", true, "stopped", "running");
        assert!(resumed.contains("resumed from the RAM state"), "{resumed}");
        let ct = rollback_summary("dns (lxc:pve1:101)", "before", false, "stopped", "stopped");
        assert!(
            ct.contains("no RAM state") && !ct.contains("although"),
            "{ct}"
        );
    }

    #[test]
    fn lists_mark_the_current_parent() {
        let data = json!([
            {"name": "b", "snaptime": "200", "parent": "a", "vmstate": 1, "description": "second"},
            {"name": "a", "snaptime": 100, "description": ""},
            {"name": "current", "parent": "b", "running": 1, "description": "You are here!"},
            {"snaptime": 5}
        ]);
        let list = parse_snapshot_list(&data);
        let names: Vec<_> = list.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["a", "b"]);
        assert!(list[1].is_current_parent && !list[0].is_current_parent);
        assert!(list[1].with_ram);
        assert_eq!(list[0].description, None);
        assert_eq!(list[1].taken_at, Some(200));
        assert!(parse_snapshot_list(&json!(null)).is_empty());
    }

    proptest! {
        #[test]
        fn pre_change_names_are_always_valid(secs in 0i64..4_000_000_000, approval in "\\PC{0,80}") {
            let at = jiff::Timestamp::from_second(secs).unwrap();
            let name = pre_change_snapshot_name(at, &approval);
            prop_assert_eq!(check_snapshot_name(&name), Ok(()));
            prop_assert!(name.starts_with("warden-"));
        }
    }
}
