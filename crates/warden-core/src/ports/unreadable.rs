//! An inventory source that cannot be read (a Proxmox cluster with a wrong
//! or unset token secret, a certificate that does not match its pin, an
//! unreachable URL) is not an empty source: its snapshot says so, and a
//! listing that would hold its resources fails naming it.

use serde::Serialize;
use warden_protocol::ResourceKind;

/// One source whose resources are missing from (or stale in) the snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unreadable {
    /// What cannot be read, for people: "Proxmox cluster `lab`".
    pub source: String,
    /// The kinds of resource it would list.
    pub kinds: Vec<ResourceKind>,
    /// Why, as the connector reported it.
    pub reason: String,
}

impl Unreadable {
    /// A Proxmox cluster's nodes, guests and storages.
    pub fn proxmox(cluster: &str, reason: impl Into<String>) -> Self {
        Unreadable {
            source: format!("Proxmox cluster `{cluster}`"),
            kinds: vec![
                ResourceKind::Node,
                ResourceKind::Vm,
                ResourceKind::Lxc,
                ResourceKind::Storage,
            ],
            reason: reason.into(),
        }
    }

    /// Whether a listing of `kind` (every kind for `None`) is missing what
    /// this source holds.
    pub fn concerns(&self, kind: Option<ResourceKind>) -> bool {
        kind.is_none_or(|k| self.kinds.contains(&k))
    }

    /// "Proxmox cluster `lab` cannot be read: …".
    pub fn sentence(&self) -> String {
        format!("{} cannot be read: {}", self.source, self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_concerns_its_own_kinds_only() {
        let lab = Unreadable::proxmox("lab", "401 authentication failure");
        assert!(lab.concerns(None));
        assert!(lab.concerns(Some(ResourceKind::Vm)));
        assert!(lab.concerns(Some(ResourceKind::Storage)));
        assert!(!lab.concerns(Some(ResourceKind::Host)));
        assert_eq!(
            lab.sentence(),
            "Proxmox cluster `lab` cannot be read: 401 authentication failure"
        );
    }
}
