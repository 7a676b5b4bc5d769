//! Names in a request → what they are: a resource from the inventory, or a
//! service on a host. Exact names and aliases first, then the same fuzzy
//! rules as context prefetch (unique ≥4-character prefixes, hyphen parts).

use warden_protocol::{Resource, ResourceKind};

use crate::ports::InventorySnapshot;
use crate::router::intent::{Subject, SubjectKind};
use crate::text::name_matches;

/// What a subject word names.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Resource(Resource),
    /// A service (systemd unit or daemon) on a host.
    Service {
        host: Resource,
        name: String,
    },
}

/// Why a name could not be used.
#[derive(Debug, Clone, PartialEq)]
pub enum NameProblem {
    NotFound {
        name: String,
        known: Vec<String>,
    },
    Ambiguous {
        name: String,
        candidates: Vec<String>,
    },
    /// The request said what it is ("the cache container"), and no
    /// resource of that kind has that name.
    WrongKind {
        name: String,
        said: SubjectKind,
        known: Vec<String>,
    },
    /// The inventory has no host to run anything on.
    NoHost,
    /// A command was aimed at a name that is no host, node, guest or
    /// container Warden knows: it runs nowhere.
    NoSuchMachine {
        name: String,
        known: Vec<String>,
    },
}

impl NameProblem {
    pub fn describe(&self) -> String {
        match self {
            NameProblem::NotFound { name, known } if known.is_empty() => {
                format!("I don't know a resource called `{name}`, and the inventory is empty.")
            }
            NameProblem::NotFound { name, known } => format!(
                "I don't know a resource called `{name}`. Known: {}.",
                known.join(", ")
            ),
            NameProblem::Ambiguous { name, candidates } => format!(
                "`{name}` matches several resources: {}. Say which one: add `on HOST`, or use the id.",
                candidates.join("; ")
            ),
            NameProblem::WrongKind { name, said, known } if known.is_empty() => format!(
                "I don't know a {} called `{name}`, and the inventory has none.",
                said.word()
            ),
            NameProblem::WrongKind { name, said, known } => format!(
                "I don't know a {} called `{name}`. Known: {}.",
                said.word(),
                known.join(", ")
            ),
            NameProblem::NoHost => {
                "No host is in the inventory, so there is nowhere to run this.".to_string()
            }
            NameProblem::NoSuchMachine { name, known } if known.is_empty() => format!(
                "I don't know a host, guest or container called `{name}`, so I ran nothing (not here either)."
            ),
            NameProblem::NoSuchMachine { name, known } => format!(
                "I don't know a host, guest or container called `{name}`, so I ran nothing (not here either). Hosts and guests: {}.",
                known.join(", ")
            ),
        }
    }
}

impl NameProblem {
    /// The problem in a clause, for routing reasons.
    pub fn describe_briefly(&self) -> String {
        match self {
            NameProblem::NotFound { name, .. } => {
                format!("`{name}` is not a resource Warden knows")
            }
            NameProblem::Ambiguous { name, .. } => {
                format!("`{name}` matches several resources")
            }
            NameProblem::WrongKind { name, said, .. } => {
                format!("`{name}` is not a {} Warden knows", said.word())
            }
            NameProblem::NoHost => "the inventory has no host".to_string(),
            NameProblem::NoSuchMachine { name, .. } => {
                format!("`{name}` is not a host, guest or container Warden knows")
            }
        }
    }
}

/// Words that mean "the machine Warden runs on".
const THIS_HOST: &[&str] = &["localhost", "here", "this", "local", "this-host", "self"];

/// The host a request runs on: `on`, or the first host of the inventory
/// (this machine in a default install).
pub fn host(inventory: &InventorySnapshot, on: Option<&str>) -> Result<Resource, NameProblem> {
    match on {
        Some(name) if !THIS_HOST.contains(&name) => resource(inventory, name),
        _ => default_host(inventory),
    }
}

pub fn default_host(inventory: &InventorySnapshot) -> Result<Resource, NameProblem> {
    let all = inventory.all();
    all.iter()
        .find(|r| r.id.kind == ResourceKind::Host)
        .or_else(|| all.iter().find(|r| r.id.kind == ResourceKind::Node))
        .cloned()
        .ok_or(NameProblem::NoHost)
}

/// Where a typed command aimed at `name` runs: a host, a Proxmox node, a
/// guest or a Docker container called exactly that (name, alias, id or
/// VMID), machines before guests before containers. No fuzzy match: a
/// command never lands on a machine the user did not name.
pub fn exec_target(inventory: &InventorySnapshot, name: &str) -> Result<Resource, NameProblem> {
    if THIS_HOST.contains(&name.to_lowercase().as_str()) {
        return default_host(inventory);
    }
    const GROUPS: [&[ResourceKind]; 3] = [
        &[ResourceKind::Host, ResourceKind::Node],
        &[ResourceKind::Vm, ResourceKind::Lxc],
        &[ResourceKind::DockerContainer],
    ];
    let all = inventory.all();
    for kinds in GROUPS {
        let exact: Vec<&Resource> = all
            .iter()
            .filter(|r| kinds.contains(&r.id.kind))
            .filter(|r| r.is_called(name) || r.id.to_string() == name || is_vmid(r, name))
            .collect();
        match exact.as_slice() {
            [] => continue,
            [one] => return Ok((*one).clone()),
            many => {
                return Err(NameProblem::Ambiguous {
                    name: name.to_string(),
                    candidates: many.iter().map(|r| located(inventory, r)).collect(),
                });
            }
        }
    }
    Err(NameProblem::NoSuchMachine {
        name: name.to_string(),
        known: all
            .iter()
            .filter(|r| {
                GROUPS
                    .iter()
                    .take(2)
                    .any(|kinds| kinds.contains(&r.id.kind))
            })
            .take(12)
            .map(|r| r.name.clone())
            .collect(),
    })
}

/// `node-exporter on h2 (docker_container:h2:abc)`: a resource with the
/// machine it is on, for questions that list several.
pub fn located(inventory: &InventorySnapshot, resource: &Resource) -> String {
    let machine = inventory.chain(&resource.id).into_iter().skip(1).find(|r| {
        matches!(
            r.id.kind,
            ResourceKind::Host | ResourceKind::Node | ResourceKind::Vm | ResourceKind::Lxc
        )
    });
    match machine {
        Some(machine) => format!("{} on {} ({})", resource.name, machine.name, resource.id),
        None => format!("{} ({})", resource.name, resource.id),
    }
}

/// A resource by id, name, alias, or a unique fuzzy match.
pub fn resource(inventory: &InventorySnapshot, name: &str) -> Result<Resource, NameProblem> {
    let exact = inventory.find(name);
    match exact.as_slice() {
        [one] => return Ok((*one).clone()),
        [] => {}
        many => return Err(ambiguous(inventory, name, many)),
    }
    let all = inventory.all();
    let vmid: Vec<&Resource> = all.iter().filter(|r| is_vmid(r, name)).collect();
    if let [one] = vmid.as_slice() {
        return Ok((*one).clone());
    }
    let fuzzy: Vec<&Resource> = all.iter().filter(|r| name_matches(r, name)).collect();
    match fuzzy.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(NameProblem::NotFound {
            name: name.to_string(),
            known: all.iter().take(12).map(|r| r.name.clone()).collect(),
        }),
        many => Err(ambiguous(inventory, name, many)),
    }
}

/// Of resources called alike, those on the machine `on` names (all of
/// them when `on` is unset): `nginx on web1` is never the `nginx` of
/// another machine.
fn on_machine<'r>(
    inventory: &'r InventorySnapshot,
    found: Vec<&'r Resource>,
    on: Option<&str>,
) -> Result<Vec<&'r Resource>, NameProblem> {
    let Some(on) = on.filter(|_| !found.is_empty()) else {
        return Ok(found);
    };
    let machine = host(inventory, Some(on))?;
    Ok(found
        .into_iter()
        .filter(|r| inventory.chain(&r.id).iter().any(|p| p.id == machine.id))
        .collect())
}

fn ambiguous(inventory: &InventorySnapshot, name: &str, many: &[&Resource]) -> NameProblem {
    NameProblem::Ambiguous {
        name: name.to_string(),
        candidates: many.iter().map(|r| located(inventory, r)).collect(),
    }
}

/// A subject word: a known resource, else a service on the host.
pub fn subject(
    inventory: &InventorySnapshot,
    name: &str,
    on: Option<&str>,
) -> Result<Target, NameProblem> {
    if THIS_HOST.contains(&name) {
        return default_host(inventory).map(Target::Resource);
    }
    // Exact names only: a service called `nginx` must not fuzzy-match a
    // container called `nginx-proxy-manager`. The same name on several
    // machines (`node-exporter` everywhere) is a question, unless `on`
    // says which machine.
    let exact = on_machine(inventory, inventory.find(name), on)?;
    match exact.as_slice() {
        [one] => return Ok(Target::Resource((*one).clone())),
        [] => {}
        many => return Err(ambiguous(inventory, name, many)),
    }
    let all = inventory.all();
    if let [one] = all
        .iter()
        .filter(|r| is_vmid(r, name))
        .collect::<Vec<_>>()
        .as_slice()
    {
        return Ok(Target::Resource((*one).clone()));
    }
    let host = host(inventory, on)?;
    Ok(Target::Service {
        host,
        name: name.to_string(),
    })
}

/// A subject as the request described it: when it said "container" (or
/// "vm", "service"), only that kind of thing will do.
pub fn described(inventory: &InventorySnapshot, subject: &Subject) -> Result<Target, NameProblem> {
    let groups: &[&[ResourceKind]] = match subject.said {
        None => return self::subject(inventory, &subject.name, subject.on.as_deref()),
        Some(SubjectKind::Service) => {
            return Ok(Target::Service {
                host: host(inventory, subject.on.as_deref())?,
                name: subject.name.clone(),
            });
        }
        // On a Proxmox node a "container" may be an LXC: Docker first.
        Some(SubjectKind::Container) => &[&[ResourceKind::DockerContainer], &[ResourceKind::Lxc]],
        Some(SubjectKind::Guest) => &[&[ResourceKind::Vm, ResourceKind::Lxc]],
        Some(SubjectKind::Vm) => &[&[ResourceKind::Vm]],
        Some(SubjectKind::Lxc) => &[&[ResourceKind::Lxc]],
    };
    let said = subject.said.unwrap_or(SubjectKind::Guest);
    of_kinds(
        inventory,
        &subject.name,
        subject.on.as_deref(),
        said,
        groups,
    )
    .map(Target::Resource)
}

/// A VM or LXC (or, for history, a node) named by a request that can only
/// mean one: what the words said it is, else any of `kinds`.
pub fn guest(
    inventory: &InventorySnapshot,
    subject: &Subject,
    kinds: &[ResourceKind],
) -> Result<Resource, NameProblem> {
    match subject.said {
        Some(said @ (SubjectKind::Vm | SubjectKind::Lxc | SubjectKind::Container)) => {
            match described(inventory, subject)? {
                Target::Resource(r) => Ok(r),
                Target::Service { .. } => Err(NameProblem::WrongKind {
                    name: subject.name.clone(),
                    said,
                    known: Vec::new(),
                }),
            }
        }
        Some(SubjectKind::Guest | SubjectKind::Service) | None => of_kinds(
            inventory,
            &subject.name,
            subject.on.as_deref(),
            SubjectKind::Guest,
            &[kinds],
        ),
    }
}

/// The one resource called `name` among `groups` of kinds, tried in
/// order: exact names, aliases, ids and (for guests) VMIDs first, then
/// the fuzzy rules.
fn of_kinds(
    inventory: &InventorySnapshot,
    name: &str,
    on: Option<&str>,
    said: SubjectKind,
    groups: &[&[ResourceKind]],
) -> Result<Resource, NameProblem> {
    let all = inventory.all();
    let mut known = Vec::new();
    for kinds in groups {
        let of_kind: Vec<&Resource> = all.iter().filter(|r| kinds.contains(&r.id.kind)).collect();
        known.extend(of_kind.iter().map(|r| r.name.clone()));
        let exact: Vec<&Resource> = of_kind
            .iter()
            .copied()
            .filter(|r| r.is_called(name) || r.id.to_string() == name || is_vmid(r, name))
            .collect();
        let found: Vec<&Resource> = if exact.is_empty() {
            of_kind
                .iter()
                .copied()
                .filter(|r| name_matches(r, name))
                .collect()
        } else {
            exact
        };
        let found = on_machine(inventory, found, on)?;
        match found.as_slice() {
            [one] => return Ok((*one).clone()),
            [] => continue,
            many => return Err(ambiguous(inventory, name, many)),
        }
    }
    known.truncate(12);
    Err(NameProblem::WrongKind {
        name: name.to_string(),
        said,
        known,
    })
}

/// "101" names the guest `vm:pve1:101`.
fn is_vmid(resource: &Resource, name: &str) -> bool {
    matches!(resource.id.kind, ResourceKind::Vm | ResourceKind::Lxc) && resource.id.uid == name
}

/// Services a host reported (the `services` attribute of the local inventory).
pub fn known_services(host: &Resource) -> Vec<String> {
    host.attributes
        .get("services")
        .and_then(|s| s.as_array())
        .map(|list| {
            list.iter()
                .filter_map(|s| s["name"].as_str().or_else(|| s.as_str()))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the host runs systemd: `Some(false)` when it reported it does not.
pub fn has_systemd(host: &Resource) -> Option<bool> {
    host.attributes.get("systemd").and_then(|v| v.as_bool())
}

/// Log files the host reported as present, if it reported any.
pub fn log_files(host: &Resource) -> Option<Vec<String>> {
    host.attributes.get("log_files").and_then(|v| {
        v.as_array().map(|list| {
            list.iter()
                .filter_map(|p| p.as_str().or_else(|| p["path"].as_str()))
                .map(str::to_string)
                .collect()
        })
    })
}
