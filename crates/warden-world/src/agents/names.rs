//! Agents cannot squat names. A name or alias held by this machine, a
//! Proxmox cluster (every source the server had before agents) or an agent
//! that enrolled earlier stays theirs:
//!
//! - an agent's alias that another machine's resource already answers to
//!   is dropped (and logged): `localhost`, `pve1` or another agent's name
//!   as an alias would make a name ambiguous today, and take it over the
//!   day its holder is gone;
//! - a resource on an agent's machine named like another machine (a
//!   `host`, `node` or `docker_host` of another source or an earlier agent)
//!   is dropped (and logged): a command for that machine must never find
//!   a container instead;
//! - an agent's own host is always called by the name it enrolled with
//!   ([`super::inventory::accept_reported`]).
//!
//! Names a resource shares with one on the same machine are not taken from
//! anyone (a node's agent reports `host:pve1` beside `node:pve1`). Two
//! containers with the same name on different machines stay a question
//! ("which one?"), as any name on several hosts is.
//!
//! [`AgentNames`] is the agents' inventory as the server merges it: the
//! agents' resources with what shadows removed, recomputed only when the
//! other sources or the agents publish a new snapshot.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use warden_core::ports::{Inventory, InventorySnapshot};
use warden_protocol::routing::machine_of;
use warden_protocol::{Resource, ResourceId, ResourceKind};

use super::inventory::AgentInventory;

/// Something an agent reported that would shadow someone else's name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shadowing {
    /// The agent's resource.
    pub resource: ResourceId,
    /// The name or alias (as reported).
    pub name: String,
    /// Who holds it.
    pub held_by: ResourceId,
    pub what: Shadowed,
}

/// What was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shadowed {
    /// An alias of a resource that stays.
    Alias,
    /// A whole resource, named like another machine.
    Resource,
}

/// Who holds each lower-cased name: the first resource that answers to it.
#[derive(Default)]
struct Holders {
    names: HashMap<String, ResourceId>,
    /// Names of machines (`host`, `node`, `docker_host`), with the holder.
    machines: HashMap<String, ResourceId>,
}

fn is_machine(kind: ResourceKind) -> bool {
    matches!(
        kind,
        ResourceKind::Host | ResourceKind::Node | ResourceKind::DockerHost
    )
}

impl Holders {
    fn hold(&mut self, resource: &Resource) {
        for name in std::iter::once(&resource.name).chain(&resource.aliases) {
            let key = name.to_lowercase();
            self.names
                .entry(key.clone())
                .or_insert_with(|| resource.id.clone());
            if is_machine(resource.id.kind) {
                self.machines
                    .entry(key)
                    .or_insert_with(|| resource.id.clone());
            }
        }
    }
}

/// Whether `holder` is on another machine than the agent `machine`.
fn elsewhere(holder: &ResourceId, machine: Option<&str>) -> bool {
    machine.is_none() || machine_of(holder) != machine
}

/// The agents' resources (`agents`, in enrollment order) without what
/// would shadow a name held by `others` or an earlier agent, and what was
/// dropped. Pure.
pub fn unshadow(others: &[Resource], agents: &[Resource]) -> (Vec<Resource>, Vec<Shadowing>) {
    let mut holders = Holders::default();
    for resource in others {
        holders.hold(resource);
    }
    let mut kept: Vec<Resource> = Vec::with_capacity(agents.len());
    let mut dropped = Vec::new();
    // One agent's resources at a time: what an agent reports is held only
    // after the whole agent was looked at, so its own resources (a host and
    // its containers) never take names from each other.
    let mut start = 0;
    while start < agents.len() {
        let machine = machine_of(&agents[start].id);
        let end = agents[start..]
            .iter()
            .position(|r| machine_of(&r.id) != machine)
            .map_or(agents.len(), |n| start + n);
        let mine: Vec<Resource> = agents[start..end]
            .iter()
            .filter_map(|resource| keep_unshadowed(resource, machine, &holders, &mut dropped))
            .collect();
        for resource in &mine {
            holders.hold(resource);
        }
        kept.extend(mine);
        start = end;
    }
    (kept, dropped)
}

/// `resource` as it may stay, or `None` when it is named like another
/// machine.
fn keep_unshadowed(
    resource: &Resource,
    machine: Option<&str>,
    holders: &Holders,
    dropped: &mut Vec<Shadowing>,
) -> Option<Resource> {
    if !is_machine(resource.id.kind) {
        if let Some(holder) = holders.machines.get(&resource.name.to_lowercase()) {
            if elsewhere(holder, machine) {
                dropped.push(Shadowing {
                    resource: resource.id.clone(),
                    name: resource.name.clone(),
                    held_by: holder.clone(),
                    what: Shadowed::Resource,
                });
                return None;
            }
        }
    }
    let mut resource = resource.clone();
    let own_name = resource.name.to_lowercase();
    resource.aliases.retain(|alias| {
        let key = alias.to_lowercase();
        if key == own_name {
            return true;
        }
        match holders.names.get(&key) {
            Some(holder) if *holder != resource.id && elsewhere(holder, machine) => {
                dropped.push(Shadowing {
                    resource: resource.id.clone(),
                    name: alias.clone(),
                    held_by: holder.clone(),
                    what: Shadowed::Alias,
                });
                false
            }
            Some(_) | None => true,
        }
    });
    Some(resource)
}

struct Cached {
    others: Arc<InventorySnapshot>,
    agents: Arc<InventorySnapshot>,
    snapshot: Arc<InventorySnapshot>,
}

/// The agents' inventory without names that shadow `others`' or an
/// earlier agent's (an [`Inventory`] source of the server, after `others`).
pub struct AgentNames {
    others: Arc<dyn Inventory>,
    agents: Arc<AgentInventory>,
    cached: Mutex<Option<Cached>>,
    /// Said once each, not at every rebuild.
    logged: Mutex<HashSet<Shadowing>>,
}

impl AgentNames {
    pub fn new(others: Arc<dyn Inventory>, agents: Arc<AgentInventory>) -> Self {
        AgentNames {
            others,
            agents,
            cached: Mutex::new(None),
            logged: Mutex::new(HashSet::new()),
        }
    }

    fn log(&self, dropped: Vec<Shadowing>) {
        let mut logged = self.logged.lock().unwrap_or_else(PoisonError::into_inner);
        for shadowing in dropped {
            if logged.contains(&shadowing) {
                continue;
            }
            match shadowing.what {
                Shadowed::Alias => tracing::warn!(
                    resource = %shadowing.resource,
                    alias = %shadowing.name,
                    held_by = %shadowing.held_by,
                    "an agent's alias names another machine's resource: dropped"
                ),
                Shadowed::Resource => tracing::warn!(
                    resource = %shadowing.resource,
                    name = %shadowing.name,
                    held_by = %shadowing.held_by,
                    "an agent's resource is named like another machine: dropped"
                ),
            }
            logged.insert(shadowing);
        }
        // Bounded: a flapping agent cannot grow this for ever.
        if logged.len() > 10_000 {
            logged.clear();
        }
    }
}

impl Inventory for AgentNames {
    fn snapshot(&self) -> Arc<InventorySnapshot> {
        let others = self.others.snapshot();
        let agents = self.agents.snapshot();
        let mut cached = self.cached.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(last) = cached.as_ref() {
            if Arc::ptr_eq(&last.others, &others) && Arc::ptr_eq(&last.agents, &agents) {
                return Arc::clone(&last.snapshot);
            }
        }
        let (kept, dropped) = unshadow(others.all(), agents.all());
        let snapshot = Arc::new(InventorySnapshot::new(kept));
        *cached = Some(Cached {
            others,
            agents,
            snapshot: Arc::clone(&snapshot),
        });
        drop(cached);
        if !dropped.is_empty() {
            self.log(dropped);
        }
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(id: &str, name: &str, aliases: &[&str]) -> Resource {
        let mut r = Resource::new(id.parse().unwrap(), name);
        r.aliases = aliases.iter().map(|a| (*a).to_string()).collect();
        r
    }

    /// This machine (`srv`, alias `localhost`) and a Proxmox cluster.
    fn others() -> Vec<Resource> {
        vec![
            resource("host:srv", "srv", &["localhost"]),
            resource("node:pve1", "pve1", &["pve1.lan"]),
            resource("lxc:pve1:141", "web", &[]),
            resource("vm:pve1:101", "jellyfin", &[]),
        ]
    }

    #[test]
    fn agents_never_shadow_names_held_before_them() {
        /// Agents' resources (in enrollment order) → what stays of them
        /// (id, aliases), and the names dropped.
        type Case = (
            &'static str,
            Vec<Resource>,
            Vec<(&'static str, Vec<&'static str>)>,
            Vec<(&'static str, Shadowed)>,
        );
        let cases: Vec<Case> = vec![
            (
                "an alias naming this machine or the cluster",
                vec![resource(
                    "host:web2",
                    "web2",
                    &["localhost", "PVE1", "web2.lan"],
                )],
                vec![("host:web2", vec!["web2.lan"])],
                vec![("localhost", Shadowed::Alias), ("PVE1", Shadowed::Alias)],
            ),
            (
                "an alias naming an earlier agent",
                vec![
                    resource("host:db1", "db1", &["db"]),
                    resource("host:web2", "web2", &["db1", "db"]),
                ],
                vec![("host:db1", vec!["db"]), ("host:web2", vec![])],
                vec![("db1", Shadowed::Alias), ("db", Shadowed::Alias)],
            ),
            (
                "a container named like another machine",
                vec![
                    resource("host:web2", "web2", &[]),
                    resource("docker_container:web2:a", "pve1", &[]),
                    resource("docker_container:web2:b", "srv", &[]),
                    resource("docker_container:web2:c", "nginx", &["localhost"]),
                ],
                vec![("host:web2", vec![]), ("docker_container:web2:c", vec![])],
                vec![
                    ("pve1", Shadowed::Resource),
                    ("srv", Shadowed::Resource),
                    ("localhost", Shadowed::Alias),
                ],
            ),
            (
                "a node's own agent shares the node's names",
                vec![
                    resource("host:pve1", "pve1", &["pve1.lan"]),
                    resource("lxc:pve1:141", "web", &[]),
                ],
                vec![("host:pve1", vec!["pve1.lan"]), ("lxc:pve1:141", vec![])],
                vec![],
            ),
            (
                "a guest's agent is named like its guest; names on other machines are a question",
                vec![
                    resource("host:web", "web", &[]),
                    resource("docker_container:web:x", "jellyfin", &[]),
                ],
                vec![("host:web", vec![]), ("docker_container:web:x", vec![])],
                vec![],
            ),
            (
                "an agent's own resources do not shadow each other",
                vec![
                    resource("host:web3", "web3", &[]),
                    resource("docker_container:web3:a", "app", &["web3"]),
                ],
                vec![
                    ("host:web3", vec![]),
                    ("docker_container:web3:a", vec!["web3"]),
                ],
                vec![],
            ),
        ];
        for (case, agents, expected, expected_dropped) in cases {
            let (kept, dropped) = unshadow(&others(), &agents);
            let got: Vec<(String, Vec<String>)> = kept
                .iter()
                .map(|r| (r.id.to_string(), r.aliases.clone()))
                .collect();
            let want: Vec<(String, Vec<String>)> = expected
                .iter()
                .map(|(id, aliases)| {
                    (
                        (*id).to_string(),
                        aliases.iter().map(|a| (*a).to_string()).collect(),
                    )
                })
                .collect();
            assert_eq!(got, want, "{case}");
            let names: Vec<(&str, Shadowed)> =
                dropped.iter().map(|d| (d.name.as_str(), d.what)).collect();
            assert_eq!(names, expected_dropped, "{case}");
        }
    }

    #[test]
    fn the_merged_inventory_is_redone_only_on_change() {
        use super::super::inventory::AgentIdentity;
        use warden_core::simulated::StaticInventory;
        use warden_protocol::routing::Presence;

        let agents = Arc::new(AgentInventory::default());
        let names = AgentNames::new(
            Arc::new(StaticInventory::new(others())),
            Arc::clone(&agents),
        );
        let web2 = AgentIdentity {
            id: "a2",
            name: "web2",
            enrolled_at_ms: 1,
        };
        agents.set_presence(web2, Presence::Connected).unwrap();
        agents
            .replace(web2, vec![resource("host:web2", "web2", &["pve1"])])
            .unwrap();
        let first = names.snapshot();
        assert!(first.find("pve1").is_empty(), "the alias is gone");
        assert_eq!(first.find("web2").len(), 1);
        assert!(Arc::ptr_eq(&first, &names.snapshot()));
        agents
            .replace(web2, vec![resource("host:web2", "web2", &["w2"])])
            .unwrap();
        let second = names.snapshot();
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(second.find("w2").len(), 1);
    }
}
