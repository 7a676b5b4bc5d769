//! The kinds of resource Warden knows, and which of them live on a host.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a resource is. The wire form is snake_case (`docker_container`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    /// A Linux machine reached by an agent or locally.
    Host,
    /// A Proxmox VE node.
    Node,
    /// A Proxmox QEMU guest.
    Vm,
    /// A Proxmox LXC container.
    Lxc,
    /// A machine running the Docker engine.
    DockerHost,
    DockerContainer,
    K8sCluster,
    K8sNode,
    K8sPod,
    /// A storage pool or disk, on a node or host.
    Storage,
}

impl ResourceKind {
    /// Every kind, in declaration order: for parsing and exhaustive tests.
    pub const ALL: [ResourceKind; 10] = [
        ResourceKind::Host,
        ResourceKind::Node,
        ResourceKind::Vm,
        ResourceKind::Lxc,
        ResourceKind::DockerHost,
        ResourceKind::DockerContainer,
        ResourceKind::K8sCluster,
        ResourceKind::K8sNode,
        ResourceKind::K8sPod,
        ResourceKind::Storage,
    ];

    /// The wire name, identical to the serde form and the id prefix.
    pub fn as_str(self) -> &'static str {
        match self {
            ResourceKind::Host => "host",
            ResourceKind::Node => "node",
            ResourceKind::Vm => "vm",
            ResourceKind::Lxc => "lxc",
            ResourceKind::DockerHost => "docker_host",
            ResourceKind::DockerContainer => "docker_container",
            ResourceKind::K8sCluster => "k8s_cluster",
            ResourceKind::K8sNode => "k8s_node",
            ResourceKind::K8sPod => "k8s_pod",
            ResourceKind::Storage => "storage",
        }
    }

    /// Scoped kinds live on a host (a node, a Docker host, a cluster) and
    /// carry it in their id: `lxc:pve1:141`. Global kinds are unique by
    /// their own name: `node:pve1`.
    pub fn is_scoped(self) -> bool {
        match self {
            ResourceKind::Host
            | ResourceKind::Node
            | ResourceKind::DockerHost
            | ResourceKind::K8sCluster => false,
            ResourceKind::Vm
            | ResourceKind::Lxc
            | ResourceKind::DockerContainer
            | ResourceKind::K8sNode
            | ResourceKind::K8sPod
            | ResourceKind::Storage => true,
        }
    }

    /// What a person calls it, for messages ("LXC homepage on pve1").
    pub fn label(self) -> &'static str {
        match self {
            ResourceKind::Host => "host",
            ResourceKind::Node => "Proxmox node",
            ResourceKind::Vm => "VM",
            ResourceKind::Lxc => "LXC",
            ResourceKind::DockerHost => "Docker host",
            ResourceKind::DockerContainer => "Docker container",
            ResourceKind::K8sCluster => "Kubernetes cluster",
            ResourceKind::K8sNode => "Kubernetes node",
            ResourceKind::K8sPod => "Kubernetes pod",
            ResourceKind::Storage => "storage",
        }
    }

    /// The wire names of all kinds, comma-separated, for error messages.
    pub(crate) fn names() -> String {
        let names: Vec<&str> = ResourceKind::ALL.iter().map(|k| k.as_str()).collect();
        names.join(", ")
    }
}

impl fmt::Display for ResourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A kind name that names no kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("unknown resource kind `{0}`: expected one of {kinds}", kinds = ResourceKind::names())]
pub struct UnknownResourceKind(pub String);

impl FromStr for ResourceKind {
    type Err = UnknownResourceKind;

    /// Exact wire names only: fuzzy words ("container") are the router's job.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ResourceKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownResourceKind(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_str_and_serde() {
        for kind in ResourceKind::ALL {
            assert_eq!(kind.as_str().parse::<ResourceKind>(), Ok(kind));
            assert_eq!(kind.to_string(), kind.as_str());
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::Value::from(kind.as_str())
            );
            let back: ResourceKind = serde_json::from_value(kind.as_str().into()).unwrap();
            assert_eq!(back, kind);
        }
    }

    #[test]
    fn scoping_and_labels() {
        let global = [
            ResourceKind::Host,
            ResourceKind::Node,
            ResourceKind::DockerHost,
            ResourceKind::K8sCluster,
        ];
        for kind in ResourceKind::ALL {
            assert_eq!(kind.is_scoped(), !global.contains(&kind), "{kind}");
        }
        assert_eq!(ResourceKind::Lxc.label(), "LXC");
        assert_eq!(ResourceKind::Vm.label(), "VM");
        assert_eq!(ResourceKind::DockerContainer.label(), "Docker container");
    }

    #[test]
    fn unknown_kind_lists_the_known_ones() {
        let err = "LXC".parse::<ResourceKind>().unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("unknown resource kind `LXC`"), "{text}");
        assert!(text.contains("docker_container"), "{text}");
        assert_eq!(serde_json::to_value(&err).unwrap(), "LXC");
    }
}
