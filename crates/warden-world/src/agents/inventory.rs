//! What the agents report, as one inventory source: each agent's latest
//! `inventory` frame replaces that agent's resources. An agent speaks only
//! for its own machine: `host:{name}` (always called `{name}`) and
//! resources scoped to `{name}`; anything else it sends is dropped (and
//! logged). Resources carry `source: "agent"` and `connected`; while its
//! agent is away, the host resource's status is `disconnected` and every
//! other resource's is `unknown` (nobody can see it: the last status it
//! had is kept as `last_status`, never shown as current). Agents are
//! listed in enrollment order, so an
//! earlier agent holds its names first (see [`super::names`]).
//!
//! A revoked agent is refused here, under the same lock as its removal:
//! an inventory or presence update already in flight when the revocation
//! lands never brings its resources back.
//!
//! A new `Arc<InventorySnapshot>` is published only when something
//! changed, so the server's composite inventory merges again only then;
//! and it is built when someone next asks, not at every report, so a
//! thousand agents connecting at once cost one rebuild per read.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use serde_json::Value;
use warden_core::ports::{Inventory, InventorySnapshot};
use warden_protocol::{Resource, ResourceId, ResourceKind};

use warden_protocol::routing::{Presence, machine_of};

/// The most resources one agent may report (a frame is at most 1 MiB).
pub const MAX_RESOURCES_PER_AGENT: usize = 10_000;

/// Status of an agent's host resource while the agent is not connected.
pub const DISCONNECTED_STATUS: &str = "disconnected";
/// Status of the other resources of an agent that is not connected.
pub const UNKNOWN_STATUS: &str = "unknown";

/// An enrolled agent as the inventory knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentIdentity<'a> {
    pub id: &'a str,
    /// Its host name: its host resource is `host:{name}`.
    pub name: &'a str,
    /// Earlier agents hold their names first.
    pub enrolled_at_ms: u64,
}

/// The agent was revoked: nothing it sends is taken any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the agent was revoked")]
pub struct Revoked;

/// What an agent reported that it may not speak for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub id: ResourceId,
    pub why: &'static str,
}

/// Names that mean "the machine speaking": from an agent they would name
/// the server's own machine. Every agent reports `localhost` for its host,
/// so these go quietly, before [`super::names`] looks for shadowing.
const LOOPBACK_NAMES: [&str; 5] = [
    "localhost",
    "localhost.localdomain",
    "ip6-localhost",
    "127.0.0.1",
    "::1",
];

fn is_loopback_name(name: &str) -> bool {
    LOOPBACK_NAMES
        .iter()
        .any(|loopback| loopback.eq_ignore_ascii_case(name))
}

/// The resources of `reported` that agent `name` may report, and those it
/// may not. A parent on another machine is cut (the resource hangs off
/// the agent's host instead), so a report cannot graft itself into
/// another machine's routing chain. Pure.
pub fn accept_reported(name: &str, reported: Vec<Resource>) -> (Vec<Resource>, Vec<Rejected>) {
    let host_id = ResourceId::global(ResourceKind::Host, name);
    let mut kept = Vec::new();
    let mut rejected = Vec::new();
    for mut resource in reported {
        let own_host = resource.id == host_id;
        let scoped_here = resource.id.host() == Some(name);
        if !own_host && !scoped_here {
            rejected.push(Rejected {
                id: resource.id,
                why: "not on this agent's host",
            });
            continue;
        }
        if kept.len() >= MAX_RESOURCES_PER_AGENT {
            rejected.push(Rejected {
                id: resource.id,
                why: "too many resources",
            });
            continue;
        }
        if own_host {
            // An agent's host is called by the name it enrolled with.
            resource.name = name.to_string();
            resource.parent = None;
        } else if resource
            .parent
            .as_ref()
            .is_some_and(|p| machine_of(p) != Some(name))
        {
            resource.parent = Some(host_id.clone());
        }
        resource.aliases.retain(|alias| !is_loopback_name(alias));
        // These are ours to say, not the agent's.
        resource.attributes.remove("source");
        resource.attributes.remove("connected");
        kept.push(resource);
    }
    (kept, rejected)
}

/// The resources of one agent as published: `source`, `connected`, and
/// while away the host `disconnected` and the rest `unknown`. Pure.
pub fn decorate(name: &str, resources: &[Resource], presence: Presence) -> Vec<Resource> {
    let connected = presence == Presence::Connected;
    let host_id = ResourceId::global(ResourceKind::Host, name);
    let mut out: Vec<Resource> = resources
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.attributes.insert("source".into(), Value::from("agent"));
            r.attributes
                .insert("connected".into(), Value::from(connected));
            if !connected {
                let away = if r.id == host_id {
                    DISCONNECTED_STATUS
                } else {
                    UNKNOWN_STATUS
                };
                if let Some(last) = r.status.replace(away.to_string()) {
                    r.attributes.insert("last_status".into(), Value::from(last));
                }
            }
            r
        })
        .collect();
    if !out.iter().any(|r| r.id == host_id) {
        // The agent's host is known even before its first report.
        let mut host = Resource::new(host_id, name);
        host.attributes
            .insert("source".into(), Value::from("agent"));
        host.attributes
            .insert("connected".into(), Value::from(connected));
        if !connected {
            host.status = Some(DISCONNECTED_STATUS.to_string());
        }
        out.insert(0, host);
    }
    out
}

struct AgentResources {
    name: String,
    enrolled_at_ms: u64,
    presence: Presence,
    resources: Vec<Resource>,
}

/// The agents and the revoked ids, under one lock.
#[derive(Default)]
struct Agents {
    /// By agent id.
    by_id: HashMap<String, AgentResources>,
    /// Agents revoked while this server runs.
    revoked: HashSet<String>,
}

impl Agents {
    /// The entry of a live agent (made on first sight), or [`Revoked`].
    fn entry(&mut self, agent: AgentIdentity<'_>) -> Result<&mut AgentResources, Revoked> {
        if self.revoked.contains(agent.id) {
            return Err(Revoked);
        }
        Ok(self
            .by_id
            .entry(agent.id.to_string())
            .or_insert_with(|| AgentResources {
                name: agent.name.to_string(),
                enrolled_at_ms: agent.enrolled_at_ms,
                presence: Presence::Disconnected,
                resources: Vec::new(),
            }))
    }
}

/// The agents' inventory (an [`Inventory`] source of the server).
pub struct AgentInventory {
    agents: Mutex<Agents>,
    published: RwLock<Arc<InventorySnapshot>>,
    /// Something changed since `published` was built.
    stale: AtomicBool,
}

impl Default for AgentInventory {
    fn default() -> Self {
        AgentInventory {
            agents: Mutex::new(Agents::default()),
            published: RwLock::new(Arc::new(InventorySnapshot::default())),
            stale: AtomicBool::new(false),
        }
    }
}

impl AgentInventory {
    fn lock(&self) -> std::sync::MutexGuard<'_, Agents> {
        self.agents.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The agent reported `reported`: keep what it may report. Returns what
    /// was dropped; a revoked agent's report is refused whole.
    pub fn replace(
        &self,
        agent: AgentIdentity<'_>,
        reported: Vec<Resource>,
    ) -> Result<Vec<Rejected>, Revoked> {
        let (kept, rejected) = accept_reported(agent.name, reported);
        let mut agents = self.lock();
        let entry = agents.entry(agent)?;
        let changed = entry.resources != kept || entry.presence != Presence::Connected;
        entry.resources = kept;
        entry.presence = Presence::Connected;
        if changed {
            self.stale.store(true, Ordering::Release);
        }
        Ok(rejected)
    }

    /// The agent connected or left; refused for a revoked agent.
    pub fn set_presence(
        &self,
        agent: AgentIdentity<'_>,
        presence: Presence,
    ) -> Result<(), Revoked> {
        let mut agents = self.lock();
        let entry = agents.entry(agent)?;
        let changed = entry.presence != presence || entry.resources.is_empty();
        entry.presence = presence;
        if changed {
            self.stale.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// The agent was revoked: its resources leave, and nothing it sends
    /// later (frames already in flight included) brings them back.
    pub fn revoke(&self, agent_id: &str) {
        let mut agents = self.lock();
        agents.revoked.insert(agent_id.to_string());
        if agents.by_id.remove(agent_id).is_some() {
            self.stale.store(true, Ordering::Release);
        }
    }

    pub fn is_revoked(&self, agent_id: &str) -> bool {
        self.lock().revoked.contains(agent_id)
    }

    /// Every agent seen since the server started and not revoked, in
    /// enrollment order: `(id, name, presence)`.
    pub fn agents(&self) -> Vec<(String, String, Presence)> {
        let agents = self.lock();
        ordered(&agents.by_id)
            .into_iter()
            .map(|(id, a)| (id.clone(), a.name.clone(), a.presence))
            .collect()
    }

    /// Rebuilds the snapshot from every agent's resources.
    fn rebuild(&self) -> Arc<InventorySnapshot> {
        let agents = self.lock();
        // Cleared under the lock: a change after this point marks it again;
        // a concurrent reader that rebuilt first leaves nothing to do.
        if !self.stale.swap(false, Ordering::AcqRel) {
            return Arc::clone(
                &self
                    .published
                    .read()
                    .unwrap_or_else(PoisonError::into_inner),
            );
        }
        let resources: Vec<Resource> = ordered(&agents.by_id)
            .into_iter()
            .flat_map(|(_, a)| decorate(&a.name, &a.resources, a.presence))
            .collect();
        let snapshot = Arc::new(InventorySnapshot::new(resources));
        *self
            .published
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::clone(&snapshot);
        snapshot
    }
}

/// Agents in enrollment order (then name and id, for equal times).
fn ordered(by_id: &HashMap<String, AgentResources>) -> Vec<(&String, &AgentResources)> {
    let mut agents: Vec<_> = by_id.iter().collect();
    agents.sort_by(|(id_a, a), (id_b, b)| {
        (a.enrolled_at_ms, &a.name, id_a).cmp(&(b.enrolled_at_ms, &b.name, id_b))
    });
    agents
}

impl Inventory for AgentInventory {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        if self.stale.load(Ordering::Acquire) {
            return self.rebuild();
        }
        Arc::clone(
            &self
                .published
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(id: &str, parent: Option<&str>) -> Resource {
        let mut r = Resource::new(id.parse().unwrap(), id);
        r.parent = parent.map(|p| p.parse().unwrap());
        r
    }

    #[test]
    fn an_agent_reports_only_its_own_machine() {
        /// (id, parent) reported by agent `web1` → kept with this parent
        /// (`Some(parent)`), or dropped (`None`).
        type Case = (
            &'static str,
            Option<&'static str>,
            Option<Option<&'static str>>,
        );
        let cases: [Case; 8] = [
            ("host:web1", None, Some(None)),
            ("host:web1", Some("host:web2"), Some(None)),
            (
                "docker_container:web1:abc",
                Some("host:web1"),
                Some(Some("host:web1")),
            ),
            ("lxc:web1:141", Some("node:web1"), Some(Some("node:web1"))),
            ("lxc:web1:142", Some("host:web2"), Some(Some("host:web1"))),
            ("host:web2", None, None),
            ("docker_container:web2:abc", Some("host:web1"), None),
            ("node:pve1", None, None),
        ];
        for (id, parent, expected) in cases {
            let (kept, rejected) = accept_reported("web1", vec![resource(id, parent)]);
            match expected {
                Some(parent) => {
                    assert_eq!(kept.len(), 1, "{id}");
                    assert_eq!(
                        kept[0].parent.as_ref().map(ToString::to_string).as_deref(),
                        parent,
                        "{id}"
                    );
                    assert!(rejected.is_empty());
                }
                None => {
                    assert!(kept.is_empty(), "{id}");
                    assert_eq!(rejected[0].id.to_string(), id);
                }
            }
        }
    }

    #[test]
    fn published_resources_say_source_and_presence() {
        let mut claimed = resource("host:web1", None);
        claimed.attributes.insert("source".into(), "local".into());
        claimed.status = Some("up".into());
        let (kept, _) = accept_reported("web1", vec![claimed]);
        let up = decorate("web1", &kept, Presence::Connected);
        assert_eq!(up[0].attributes["source"], "agent");
        assert_eq!(up[0].attributes["connected"], true);
        assert_eq!(up[0].status.as_deref(), Some("up"));
        let down = decorate("web1", &kept, Presence::Disconnected);
        assert_eq!(down[0].attributes["connected"], false);
        assert_eq!(down[0].status.as_deref(), Some(DISCONNECTED_STATUS));
        // Nobody can see what runs on a machine whose agent is away.
        let mut container = resource("docker_container:web1:abc", Some("host:web1"));
        container.status = Some("running".into());
        let (kept, _) = accept_reported("web1", vec![container]);
        let away = decorate("web1", &kept, Presence::Disconnected);
        let container = away.iter().find(|r| r.id.uid == "abc").unwrap();
        assert_eq!(container.status.as_deref(), Some(UNKNOWN_STATUS));
        assert_eq!(container.attributes["last_status"], "running");
        let back = decorate("web1", &kept, Presence::Connected);
        let container = back.iter().find(|r| r.id.uid == "abc").unwrap();
        assert_eq!(container.status.as_deref(), Some("running"));
        let empty = decorate("web2", &[], Presence::Connected);
        assert_eq!(empty[0].id.to_string(), "host:web2");
    }

    const WEB1: AgentIdentity<'static> = AgentIdentity {
        id: "a1",
        name: "web1",
        enrolled_at_ms: 10,
    };

    #[test]
    fn an_agent_s_host_keeps_the_name_it_enrolled_with_and_no_loopback_name() {
        let mut renamed = resource("host:web1", None);
        renamed.name = "pve1".into();
        renamed.aliases = vec![
            "localhost".into(),
            "LOCALHOST".into(),
            "::1".into(),
            "web1.lan".into(),
        ];
        let (kept, _) = accept_reported("web1", vec![renamed]);
        assert_eq!(kept[0].name, "web1");
        assert_eq!(kept[0].aliases, ["web1.lan"]);
    }

    #[test]
    fn a_snapshot_is_published_only_on_change() {
        let inventory = AgentInventory::default();
        let empty = inventory.snapshot();
        inventory.set_presence(WEB1, Presence::Connected).unwrap();
        let first = inventory.snapshot();
        assert!(!Arc::ptr_eq(&empty, &first));
        assert_eq!(first.len(), 1);
        inventory
            .replace(WEB1, vec![resource("host:web1", None)])
            .unwrap();
        let second = inventory.snapshot();
        inventory
            .replace(WEB1, vec![resource("host:web1", None)])
            .unwrap();
        assert!(Arc::ptr_eq(&second, &inventory.snapshot()));
        let dropped = inventory
            .replace(
                WEB1,
                vec![
                    resource("host:web1", None),
                    resource("docker_container:web1:abc", Some("host:web1")),
                    resource("host:web2", None),
                ],
            )
            .unwrap();
        assert_eq!(dropped.len(), 1);
        assert_eq!(inventory.snapshot().len(), 2);
        inventory
            .set_presence(WEB1, Presence::Disconnected)
            .unwrap();
        let away = inventory.snapshot();
        assert_eq!(
            away.get(&"host:web1".parse().unwrap())
                .unwrap()
                .status
                .as_deref(),
            Some(DISCONNECTED_STATUS)
        );
        inventory.revoke("a1");
        assert!(inventory.snapshot().is_empty());
    }

    #[test]
    fn a_revoked_agent_never_comes_back() {
        let inventory = AgentInventory::default();
        inventory
            .replace(WEB1, vec![resource("host:web1", None)])
            .unwrap();
        assert!(!inventory.is_revoked("a1"));
        inventory.revoke("a1");
        assert!(inventory.is_revoked("a1"));
        assert_eq!(
            inventory.replace(WEB1, vec![resource("host:web1", None)]),
            Err(Revoked)
        );
        assert_eq!(
            inventory.set_presence(WEB1, Presence::Connected),
            Err(Revoked)
        );
        assert_eq!(
            inventory.set_presence(WEB1, Presence::Disconnected),
            Err(Revoked)
        );
        assert!(inventory.snapshot().is_empty());
        assert!(inventory.agents().is_empty());
    }

    #[test]
    fn agents_are_listed_in_enrollment_order() {
        let inventory = AgentInventory::default();
        for (id, name, at) in [("a1", "zeta", 3), ("a2", "alpha", 5), ("a3", "mid", 1)] {
            let agent = AgentIdentity {
                id,
                name,
                enrolled_at_ms: at,
            };
            inventory.set_presence(agent, Presence::Connected).unwrap();
        }
        let names: Vec<String> = inventory.agents().into_iter().map(|a| a.1).collect();
        assert_eq!(names, ["mid", "zeta", "alpha"]);
        let hosts: Vec<String> = inventory
            .snapshot()
            .all()
            .iter()
            .map(|r| r.name.clone())
            .collect();
        assert_eq!(hosts, ["mid", "zeta", "alpha"]);
    }
}
