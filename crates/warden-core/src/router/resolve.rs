//! Names in a request → what they are: a resource from the inventory, or a
//! service on a host. Exact names and aliases first, then the same fuzzy
//! rules as context prefetch (unique ≥4-character prefixes, hyphen parts).

use warden_protocol::{Resource, ResourceKind};

use crate::agent::mentions::name_matches;
use crate::ports::InventorySnapshot;

/// What a subject word names.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
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
    /// The inventory has no host to run anything on.
    NoHost,
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
                "`{name}` matches several resources: {}. Say which one (the id works).",
                candidates.join(", ")
            ),
            NameProblem::NoHost => {
                "No host is in the inventory, so there is nowhere to run this.".to_string()
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

/// A resource by id, name, alias, or a unique fuzzy match.
pub fn resource(inventory: &InventorySnapshot, name: &str) -> Result<Resource, NameProblem> {
    let exact = inventory.find(name);
    match exact.as_slice() {
        [one] => return Ok((*one).clone()),
        [] => {}
        many => {
            return Err(NameProblem::Ambiguous {
                name: name.to_string(),
                candidates: many.iter().map(|r| r.id.to_string()).collect(),
            });
        }
    }
    let all = inventory.all();
    let fuzzy: Vec<&Resource> = all.iter().filter(|r| name_matches(r, name)).collect();
    match fuzzy.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(NameProblem::NotFound {
            name: name.to_string(),
            known: all.iter().take(12).map(|r| r.name.clone()).collect(),
        }),
        many => Err(NameProblem::Ambiguous {
            name: name.to_string(),
            candidates: many.iter().map(|r| r.id.to_string()).collect(),
        }),
    }
}

/// A subject word: a known resource, else a service on the host.
pub fn subject(
    inventory: &InventorySnapshot,
    name: &str,
    on: Option<&str>,
) -> Result<Subject, NameProblem> {
    if THIS_HOST.contains(&name) {
        return default_host(inventory).map(Subject::Resource);
    }
    // Exact names only: a service called `nginx` must not fuzzy-match a
    // container called `nginx-proxy-manager`.
    if let [one] = inventory.find(name).as_slice() {
        return Ok(Subject::Resource((*one).clone()));
    }
    let host = host(inventory, on)?;
    Ok(Subject::Service {
        host,
        name: name.to_string(),
    })
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
