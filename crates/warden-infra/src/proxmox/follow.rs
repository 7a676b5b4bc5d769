//! A guest migrated within the refresh window: the inventory still names
//! its old node, and PVE answers that node's path with "Configuration file
//! 'nodes/pve1/qemu-server/100.conf' does not exist". Instead of reporting
//! the guest missing, the cluster refreshes its inventory, follows the vmid
//! to its node (the same guest: same kind and name; a vmid reused by another
//! guest is refused), and runs the operation there once. The refresh records
//! the move, so callers see it through [`ProxmoxCluster::current_id`].

use std::future::Future;

use super::cluster::ProxmoxCluster;
use super::error::ProxmoxError;
use super::inventory::GuestInfo;
use super::snapshot::same_guest;

/// Where the guest `before` is now, from a fresh inventory. Pure.
pub fn follow_vmid(
    cluster: &str,
    before: &GuestInfo,
    now: Option<&GuestInfo>,
) -> Result<Option<GuestInfo>, ProxmoxError> {
    let gone = |hint: String| ProxmoxError::NotFound {
        cluster: cluster.to_string(),
        what: before.resource_id().to_string(),
        hint: Some(hint),
    };
    match now {
        // Same node: not a migration; the original answer stands.
        Some(now) if same_guest(before, now) && now.node == before.node => Ok(None),
        Some(now) if same_guest(before, now) => Ok(Some(now.clone())),
        Some(now) => Err(gone(format!(
            "vmid {} is now {} `{}`, not `{}` ({}): another guest, so nothing was done to it; \
             ask again naming the guest you mean",
            before.vmid,
            now.resource_id(),
            now.name,
            before.name,
            before.kind.resource_kind().label()
        ))),
        None => Err(gone(format!(
            "`{}` (vmid {}) is no longer in the cluster: it was deleted or moved to another cluster",
            before.name, before.vmid
        ))),
    }
}

impl ProxmoxCluster {
    /// Runs `op` on the guest behind `target` (its node checked online
    /// first); when PVE says the guest is not on that node, refreshes,
    /// follows it to its new node and runs `op` there once. Every operation
    /// passed here fails on its first request when the guest is elsewhere,
    /// before anything was changed, so running it again is safe.
    pub(super) async fn on_guest<T, F, Fut>(
        &self,
        target: &warden_protocol::ResourceId,
        op: F,
    ) -> Result<T, ProxmoxError>
    where
        F: Fn(GuestInfo) -> Fut,
        Fut: Future<Output = Result<T, ProxmoxError>>,
    {
        let guest = self.resolve_guest(target).await?;
        self.refuse_offline_node(&guest)?;
        let error = match op(guest.clone()).await {
            Err(error) if error.guest_config_missing() => error,
            other => return other,
        };
        self.refresh().await?;
        let inventory = self.inventory();
        let Some(moved) = follow_vmid(self.name(), &guest, inventory.guest_by_vmid(guest.vmid))?
        else {
            return Err(error);
        };
        tracing::info!(
            cluster = %self.name(),
            from = %guest.resource_id(),
            to = %moved.resource_id(),
            "guest migrated within the refresh window; following it"
        );
        self.refuse_offline_node(&moved)?;
        op(moved).await
    }
}

impl ProxmoxError {
    /// PVE's "Configuration file '…' does not exist": the guest is not (or
    /// no longer) on the node the request named.
    pub fn guest_config_missing(&self) -> bool {
        match self {
            ProxmoxError::NotFound {
                hint: Some(message),
                ..
            } => {
                let lower = message.to_ascii_lowercase();
                lower.contains("configuration file") && lower.contains("does not exist")
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxmox::inventory::GuestKind;

    fn guest(kind: GuestKind, node: &str, vmid: u32, name: &str) -> GuestInfo {
        GuestInfo {
            kind,
            node: node.into(),
            vmid,
            name: name.into(),
            status: None,
            tags: Vec::new(),
            lock: None,
            template: false,
            ha_state: None,
            pool: None,
            maxcpu: None,
            maxmem: None,
            maxdisk: None,
            uptime: None,
        }
    }

    #[test]
    fn the_vmid_is_followed_only_to_the_same_guest() {
        let web = guest(GuestKind::Qemu, "pve1", 100, "web");
        let moved = guest(GuestKind::Qemu, "pve2", 100, "web");
        assert_eq!(
            follow_vmid("lab", &web, Some(&moved)).unwrap(),
            Some(moved.clone())
        );
        assert_eq!(follow_vmid("lab", &web, Some(&web)).unwrap(), None);
        for other in [
            guest(GuestKind::Qemu, "pve2", 100, "db"),
            guest(GuestKind::Lxc, "pve2", 100, "web"),
            guest(GuestKind::Qemu, "pve1", 100, "db"),
        ] {
            let error = follow_vmid("lab", &web, Some(&other)).unwrap_err();
            let text = error.to_string();
            assert!(text.contains("another guest"), "{text}");
            assert!(text.contains("vm:pve1:100"), "{text}");
        }
        let error = follow_vmid("lab", &web, None).unwrap_err();
        assert!(
            error.to_string().contains("no longer in the cluster"),
            "{error}"
        );
    }

    #[test]
    fn only_a_missing_configuration_is_a_migration_sign() {
        let missing = ProxmoxError::NotFound {
            cluster: "lab".into(),
            what: "vm:pve1:100".into(),
            hint: Some(
                "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist".into(),
            ),
        };
        assert!(missing.guest_config_missing());
        let snapshot = ProxmoxError::NotFound {
            cluster: "lab".into(),
            what: "snapshot `x` of vm:pve1:100".into(),
            hint: Some("its snapshots: a".into()),
        };
        assert!(!snapshot.guest_config_missing());
    }
}
