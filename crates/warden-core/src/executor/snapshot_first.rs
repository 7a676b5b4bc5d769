//! "Snapshot first": before an approved change to a Proxmox guest (its
//! power, a command or a file edit inside it, a container running in it),
//! a snapshot `warden-<time>-<approval>` is taken and waited for, so the
//! change can be rolled back; when the snapshot fails the change does not
//! run. Whether it is taken comes from a small policy: a default mode and
//! modes per guest tag. The decision is pure; taking it is the executor's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::json;
use warden_protocol::{ErrorCode, Resource, ResourceKind, SnapshotOffer, ToolError};

use crate::ports::SnapshotSupport;

use crate::tools::ToolCall;
use crate::tools::args::{ControlArgs, DockerArgs, FileEditArgs, SnapshotArgs};

/// When a snapshot is taken before a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotMode {
    /// Never (guests on storage without snapshots, scratch guests).
    Never,
    /// Before changes to files and configuration: file edits, commands,
    /// container image updates (the default).
    ConfigChanges,
    /// Before every change, power and service control included.
    Always,
}

impl SnapshotMode {
    pub fn as_str(self) -> &'static str {
        match self {
            SnapshotMode::Never => "never",
            SnapshotMode::ConfigChanges => "config_changes",
            SnapshotMode::Always => "always",
        }
    }
}

/// `[proxmox_snapshots]`: `default = "config_changes"`, `per_tag = { prod = "always" }`.
/// A guest with tags named in `per_tag` gets the strongest of their modes
/// (`always` > `config_changes` > `never`) instead of the default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotPolicy {
    pub default: SnapshotMode,
    #[serde(default)]
    pub per_tag: BTreeMap<String, SnapshotMode>,
}

impl Default for SnapshotPolicy {
    fn default() -> Self {
        SnapshotPolicy {
            default: SnapshotMode::ConfigChanges,
            per_tag: BTreeMap::new(),
        }
    }
}

impl SnapshotPolicy {
    /// The same policy with nothing ever snapshotted.
    pub fn never() -> Self {
        SnapshotPolicy {
            default: SnapshotMode::Never,
            per_tag: BTreeMap::new(),
        }
    }

    /// The mode for a guest with these tags.
    pub fn mode_for(&self, tags: &[&str]) -> SnapshotMode {
        tags.iter()
            .filter_map(|tag| self.per_tag.get(*tag).copied())
            .max()
            .unwrap_or(self.default)
    }
}

/// What a write changes, as far as snapshots care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Files or configuration (file edits, commands, image updates).
    Config,
    /// Running state (power, services, containers).
    State,
    /// A rollback (a snapshot first makes the rollback itself undoable).
    Rollback,
}

/// The change a call makes, or `None` when it changes no guest (reads,
/// notes, taking a snapshot itself).
pub fn change_kind(call: &ToolCall) -> Option<ChangeKind> {
    match call {
        ToolCall::FileEdit(
            FileEditArgs::Write { .. } | FileEditArgs::Append { .. } | FileEditArgs::Replace { .. },
        )
        | ToolCall::Control(ControlArgs::Command { .. })
        | ToolCall::Docker(DockerArgs::Update { .. }) => Some(ChangeKind::Config),
        ToolCall::Control(ControlArgs::Guest { .. } | ControlArgs::Service { .. })
        | ToolCall::Docker(DockerArgs::Control { .. }) => Some(ChangeKind::State),
        ToolCall::Snapshot(SnapshotArgs::Rollback { .. }) => Some(ChangeKind::Rollback),
        ToolCall::Snapshot(SnapshotArgs::List { .. } | SnapshotArgs::Create { .. })
        | ToolCall::FileEdit(FileEditArgs::Read { .. })
        | ToolCall::Docker(
            DockerArgs::List { .. }
            | DockerArgs::Logs { .. }
            | DockerArgs::Inspect { .. }
            | DockerArgs::Stats { .. },
        )
        | ToolCall::Query(_)
        | ToolCall::Discovery(_)
        | ToolCall::Read(_)
        | ToolCall::Metrics(_)
        | ToolCall::Storage(_)
        | ToolCall::Kubernetes(_)
        | ToolCall::Alerts(_)
        | ToolCall::Knowledge(_) => None,
    }
}

/// What the guest API knows of a resource's snapshots: `None` when no API
/// serves it (nothing is offered then).
pub type SupportOf<'s> = &'s dyn Fn(&Resource) -> Option<SnapshotSupport>;

/// The guest a change lands in: the first VM or LXC on the target's
/// routing chain (target first) that a guest API serves.
pub fn guest_of<'r>(chain: &[&'r Resource], support: SupportOf<'_>) -> Option<&'r Resource> {
    chain
        .iter()
        .copied()
        .find(|r| matches!(r.id.kind, ResourceKind::Vm | ResourceKind::Lxc) && support(r).is_some())
}

/// A guest's tags, from its inventory attributes.
pub fn tags_of(guest: &Resource) -> Vec<&str> {
    guest
        .attributes
        .get("tags")
        .and_then(|t| t.as_array())
        .map(|tags| tags.iter().filter_map(|t| t.as_str()).collect())
        .unwrap_or_default()
}

/// Whether the policy wants a snapshot before this kind of change.
fn wanted(mode: SnapshotMode, change: ChangeKind) -> bool {
    match (mode, change) {
        (SnapshotMode::Never, _) => false,
        (SnapshotMode::ConfigChanges, ChangeKind::Config) => true,
        (SnapshotMode::ConfigChanges, ChangeKind::State | ChangeKind::Rollback) => false,
        (SnapshotMode::Always, _) => true,
    }
}

/// What the approval offers for `call`, whose target's routing chain is
/// `chain`: `None` when the call changes no snapshottable guest. A guest
/// whose storage cannot take snapshots is promised no undo. Pure.
pub fn snapshot_offer(
    policy: &SnapshotPolicy,
    call: &ToolCall,
    chain: &[&Resource],
    support: SupportOf<'_>,
) -> Option<SnapshotOffer> {
    let change = change_kind(call)?;
    let guest = guest_of(chain, support)?;
    let mode = policy.mode_for(&tags_of(guest));
    let named = format!("{} ({})", guest.name, guest.id);
    let (take, undoable) = match (wanted(mode, change), support(guest)) {
        (true, Some(SnapshotSupport::Unsupported { reason })) => (
            false,
            format!(
                "not undoable by Warden: {named} cannot be snapshotted ({reason}), so no snapshot is taken first"
            ),
        ),
        (true, Some(SnapshotSupport::Supported)) => (
            true,
            format!(
                "undoable: a snapshot of {named} named warden-<time>-<approval> is taken first and waited for \
                 (disk and configuration, not memory); the change does not run if it fails; undo with \
                 `snapshot rollback` to that name"
            ),
        ),
        (true, Some(SnapshotSupport::Unknown) | None) => (
            true,
            format!(
                "undoable if {named} can be snapshotted (checked before the change runs): a snapshot named \
                 warden-<time>-<approval> is then taken first and waited for (disk and configuration, not \
                 memory); undo with `snapshot rollback` to that name"
            ),
        ),
        (false, _) => (false, not_taken(&named, mode, change)),
    };
    Some(SnapshotOffer {
        guest: guest.id.to_string(),
        take,
        undoable,
    })
}

fn not_taken(named: &str, mode: SnapshotMode, change: ChangeKind) -> String {
    format!(
        "not undoable by Warden: no snapshot of {named} is taken first \
         ([proxmox_snapshots] {} for {})",
        mode.as_str(),
        match change {
            ChangeKind::Config => "configuration changes",
            ChangeKind::State => "power and service changes",
            ChangeKind::Rollback => "rollbacks",
        }
    )
}

/// A change the policy wants snapshotted first under `always`, on a guest
/// PVE cannot snapshot: refused before anyone approves it, saying how to
/// proceed. Pure.
pub fn refuse_unsnapshottable(
    policy: &SnapshotPolicy,
    call: &ToolCall,
    chain: &[&Resource],
    support: SupportOf<'_>,
) -> Result<(), ToolError> {
    let (Some(change), Some(guest)) = (change_kind(call), guest_of(chain, support)) else {
        return Ok(());
    };
    let mode = policy.mode_for(&tags_of(guest));
    match (mode, support(guest)) {
        (SnapshotMode::Always, Some(SnapshotSupport::Unsupported { reason }))
            if wanted(mode, change) =>
        {
            Err(unsnapshottable(guest, &reason))
        }
        _ => Ok(()),
    }
}

/// The refusal of a change to a guest that must be snapshotted first and
/// cannot be.
pub fn unsnapshottable(guest: &Resource, reason: &str) -> ToolError {
    ToolError::blocked(
        ErrorCode::PolicyBlocked,
        format!(
            "{} ({}) cannot be snapshotted ({reason}), and [proxmox_snapshots] says `always` for it: \
             a change to it must be undoable, so nothing was asked or done",
            guest.name, guest.id
        ),
    )
    .with_hint(
        "to proceed, move its disks to storage that takes snapshots (ZFS, LVM-thin, Ceph RBD, Btrfs, or \
         qcow2 on a directory), or give it a tag whose [proxmox_snapshots] per_tag mode is \
         `config_changes` or `never`, then ask again",
    )
    .with_detail("snapshot_unsupported", json!(reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(id: &str, parent: Option<&str>, tags: &[&str]) -> Resource {
        let mut r = Resource::new(id.parse().unwrap(), id.rsplit(':').next().unwrap());
        r.parent = parent.map(|p| p.parse().unwrap());
        if !tags.is_empty() {
            r.attributes.insert("tags".into(), json!(tags));
        }
        r
    }

    fn call(tool: &str, arguments: serde_json::Value) -> ToolCall {
        ToolCall::parse(tool, &arguments).unwrap()
    }

    #[test]
    fn offers_follow_the_mode_the_change_and_the_tags() {
        let node = resource("node:pve1", None, &[]);
        let plain = resource("lxc:pve1:141", Some("node:pve1"), &[]);
        let prod = resource("vm:pve1:101", Some("node:pve1"), &["prod", "web"]);
        let scratch = resource("vm:pve1:102", Some("node:pve1"), &["scratch"]);
        let container = resource("docker_container:ct:abc", Some("lxc:pve1:141"), &[]);
        let policy = SnapshotPolicy {
            default: SnapshotMode::ConfigChanges,
            per_tag: [
                ("prod".to_string(), SnapshotMode::Always),
                ("scratch".to_string(), SnapshotMode::Never),
            ]
            .into(),
        };
        let edit = |t: &str| {
            call(
                "file_edit",
                json!({"action": "append", "target": t, "path": "/etc/x", "content": "y"}),
            )
        };
        let stop = |t: &str| {
            call(
                "control",
                json!({"action": "guest", "target": t, "operation": "stop"}),
            )
        };
        let all = |_: &Resource| Some(SnapshotSupport::Supported);
        /// The call, the target's routing chain, the offered guest and whether it is taken.
        type Case<'r> = (ToolCall, Vec<&'r Resource>, Option<(&'r str, bool)>);
        let cases: Vec<Case> = vec![
            (edit("x"), vec![&plain, &node], Some(("lxc:pve1:141", true))),
            (
                stop("x"),
                vec![&plain, &node],
                Some(("lxc:pve1:141", false)),
            ),
            (stop("x"), vec![&prod, &node], Some(("vm:pve1:101", true))),
            (
                edit("x"),
                vec![&scratch, &node],
                Some(("vm:pve1:102", false)),
            ),
            // A container in an LXC: the LXC is what gets snapshotted.
            (
                call("docker", json!({"action": "update", "target": "c"})),
                vec![&container, &plain, &node],
                Some(("lxc:pve1:141", true)),
            ),
            // A node is no guest; reads and snapshot creation change nothing to protect.
            (edit("x"), vec![&node], None),
            (
                call(
                    "read",
                    json!({"action": "exec", "target": "x", "command": "ls"}),
                ),
                vec![&plain, &node],
                None,
            ),
            (
                call(
                    "snapshot",
                    json!({"action": "create", "target": "x", "name": "mine"}),
                ),
                vec![&plain, &node],
                None,
            ),
            (
                call(
                    "snapshot",
                    json!({"action": "rollback", "target": "x", "name": "mine"}),
                ),
                vec![&prod, &node],
                Some(("vm:pve1:101", true)),
            ),
        ];
        for (call, chain, want) in cases {
            let got = snapshot_offer(&policy, &call, &chain, &all);
            let got = got.as_ref().map(|o| (o.guest.as_str(), o.take));
            assert_eq!(got, want, "{call:?} on {}", chain[0].id);
        }
        // An API that does not serve the guest: nothing offered.
        let none = |_: &Resource| None;
        assert!(snapshot_offer(&policy, &edit("x"), &[&plain, &node], &none).is_none());
        // Never means never.
        assert!(
            !snapshot_offer(&SnapshotPolicy::never(), &edit("x"), &[&plain], &all)
                .unwrap()
                .take
        );
    }

    #[test]
    fn the_card_says_what_is_undoable() {
        let guest = resource("lxc:pve1:141", Some("node:pve1"), &[]);
        let edit = call(
            "file_edit",
            json!({"action": "write", "target": "x", "path": "/etc/x", "content": "y"}),
        );
        let offer = snapshot_offer(&SnapshotPolicy::default(), &edit, &[&guest], &|_| {
            Some(SnapshotSupport::Supported)
        })
        .unwrap();
        assert!(
            offer.undoable.starts_with("undoable:"),
            "{}",
            offer.undoable
        );
        assert!(offer.undoable.contains("snapshot rollback"));
        let stop = call(
            "control",
            json!({"action": "guest", "target": "x", "operation": "stop"}),
        );
        let offer = snapshot_offer(&SnapshotPolicy::default(), &stop, &[&guest], &|_| {
            Some(SnapshotSupport::Supported)
        })
        .unwrap();
        assert!(
            offer.undoable.starts_with("not undoable"),
            "{}",
            offer.undoable
        );
        assert!(offer.undoable.contains("config_changes"));
    }

    #[test]
    fn storage_without_snapshots_is_promised_no_undo_and_refused_under_always() {
        let guest = resource("vm:pve1:100", Some("node:pve1"), &[]);
        let stop = call(
            "control",
            json!({"action": "guest", "target": "x", "operation": "stop"}),
        );
        let edit = call(
            "file_edit",
            json!({"action": "write", "target": "x", "path": "/etc/x", "content": "y"}),
        );
        let cannot = |_: &Resource| {
            Some(SnapshotSupport::Unsupported {
                reason: "raw disks on a directory".into(),
            })
        };
        let unknown = |_: &Resource| Some(SnapshotSupport::Unknown);
        let always = SnapshotPolicy {
            default: SnapshotMode::Always,
            per_tag: BTreeMap::new(),
        };
        for policy in [&always, &SnapshotPolicy::default()] {
            let offer = snapshot_offer(policy, &edit, &[&guest], &cannot).unwrap();
            assert!(!offer.take, "{policy:?}");
            assert!(
                offer.undoable.starts_with("not undoable")
                    && offer.undoable.contains("raw disks on a directory"),
                "{}",
                offer.undoable
            );
            let offer = snapshot_offer(policy, &edit, &[&guest], &unknown).unwrap();
            assert!(
                offer.take && offer.undoable.starts_with("undoable if"),
                "{}",
                offer.undoable
            );
        }
        let refused = refuse_unsnapshottable(&always, &stop, &[&guest], &cannot).unwrap_err();
        assert_eq!(refused.code, ErrorCode::PolicyBlocked);
        assert!(
            refused.message.contains("cannot be snapshotted"),
            "{}",
            refused.message
        );
        assert!(
            refused
                .details
                .recovery_hint
                .unwrap_or_default()
                .contains("move its disks"),
        );
        // Not under the default (a power change wants no snapshot there),
        // nor when PVE can, nor when not known yet.
        assert!(
            refuse_unsnapshottable(&SnapshotPolicy::default(), &edit, &[&guest], &cannot).is_ok()
        );
        assert!(refuse_unsnapshottable(&always, &stop, &[&guest], &unknown).is_ok());
    }

    #[test]
    fn the_strongest_tag_wins_and_unknown_tags_keep_the_default() {
        let policy = SnapshotPolicy {
            default: SnapshotMode::Never,
            per_tag: [
                ("a".to_string(), SnapshotMode::ConfigChanges),
                ("b".to_string(), SnapshotMode::Always),
            ]
            .into(),
        };
        assert_eq!(policy.mode_for(&[]), SnapshotMode::Never);
        assert_eq!(policy.mode_for(&["zzz"]), SnapshotMode::Never);
        assert_eq!(policy.mode_for(&["a"]), SnapshotMode::ConfigChanges);
        assert_eq!(policy.mode_for(&["a", "b"]), SnapshotMode::Always);
    }
}
