//! This machine as Warden resources: the host `host:<hostname>` with its
//! facts and services, and one `docker_container:<hostname>:<short id>` per
//! container when the Docker engine answers.
//!
//! Discovery never fails as a whole: a missing Docker engine or a broken
//! `systemctl` becomes a line in the host's `inventory_notes` attribute, and
//! the rest is still reported.
//!
//! Discovery is synchronous and blocks (it reads `/proc`, runs `systemctl`
//! and asks the Docker engine): call it on a blocking thread or where no
//! runtime runs. The engine is asked on a thread of its own (see
//! [`crate::blocking`]) while `/proc` and systemd are read: one request, its
//! containers, with its version from the answer's headers.

mod containers;
mod host_facts;
mod services;

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use warden_protocol::{Resource, ResourceId, ResourceKind};

use crate::blocking;
use crate::docker::{ContainerSummary, DockerClient, DockerError, DockerVersion};
use crate::local_exec::{ExecOptions, LocalExecutor};
pub use containers::container_resource;
pub use host_facts::{HostFacts, MemInfo, parse_meminfo, parse_os_release, parse_uptime};
pub use services::{
    ProcessStat, SystemdService, daemons_by_name, parse_proc_stat, parse_systemctl_units,
};

/// Where container discovery asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DockerDiscovery {
    /// `DOCKER_HOST` when it names a unix socket, else the default socket.
    FromEnv,
    /// This engine.
    Client(DockerClient),
    /// No container discovery.
    Disabled,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryOptions {
    /// How old a snapshot may get before [`LocalInventory::resources`] takes
    /// a new one.
    pub refresh_interval: Duration,
    pub docker: DockerDiscovery,
    /// Overrides the machine's hostname (for tests and odd setups).
    pub hostname: Option<String>,
    /// The limit on each discovery command (`systemctl list-units`).
    pub command_timeout: Duration,
}

impl Default for InventoryOptions {
    fn default() -> Self {
        InventoryOptions {
            refresh_interval: Duration::from_secs(15),
            docker: DockerDiscovery::FromEnv,
            hostname: None,
            command_timeout: Duration::from_secs(10),
        }
    }
}

/// What services were found, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceListing {
    /// From `systemctl list-units`.
    Systemd(Vec<SystemdService>),
    /// Guessed from running processes: daemon name → process count.
    Processes(BTreeMap<String, usize>),
}

#[derive(Debug)]
struct Snapshot {
    taken: Instant,
    resources: Vec<Resource>,
}

/// This machine's inventory, cached: [`LocalInventory::resources`] is called
/// many times per request, discovery runs at most once per refresh interval.
#[derive(Debug)]
pub struct LocalInventory {
    hostname: String,
    host_id: ResourceId,
    options: InventoryOptions,
    /// The engine to list containers from, or why there is none.
    docker: Result<Option<DockerClient>, String>,
    executor: LocalExecutor,
    cache: Mutex<Option<Snapshot>>,
}

impl Default for LocalInventory {
    fn default() -> Self {
        LocalInventory::new()
    }
}

impl LocalInventory {
    pub fn new() -> Self {
        LocalInventory::with_options(InventoryOptions::default())
    }

    pub fn with_options(options: InventoryOptions) -> Self {
        let hostname = options
            .hostname
            .as_deref()
            .map(host_facts::sanitize_hostname)
            .filter(|name| !name.is_empty())
            .unwrap_or_else(host_facts::read_hostname);
        let docker = match &options.docker {
            DockerDiscovery::FromEnv => DockerClient::from_env()
                .map(Some)
                .map_err(|err| err.to_string()),
            DockerDiscovery::Client(client) => Ok(Some(client.clone())),
            DockerDiscovery::Disabled => Ok(None),
        };
        let executor = LocalExecutor::with_options(
            ExecOptions::default().with_timeout(options.command_timeout),
        );
        LocalInventory {
            host_id: ResourceId::global(ResourceKind::Host, hostname.clone()),
            hostname,
            options,
            docker,
            executor,
            cache: Mutex::new(None),
        }
    }

    /// `host:<hostname>`: this machine's id, fixed for the inventory's life.
    pub fn host_id(&self) -> &ResourceId {
        &self.host_id
    }

    pub fn hostname(&self) -> &str {
        &self.hostname
    }

    /// The current snapshot, taken anew when older than the refresh interval.
    /// The host always comes first.
    pub fn resources(&self) -> Vec<Resource> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        match cache.as_ref() {
            Some(snapshot) if snapshot.taken.elapsed() < self.options.refresh_interval => {
                snapshot.resources.clone()
            }
            Some(_) | None => {
                // Discovery runs under the lock, so concurrent callers wait
                // for one snapshot instead of each taking their own.
                let resources = self.discover();
                *cache = Some(Snapshot {
                    taken: Instant::now(),
                    resources: resources.clone(),
                });
                resources
            }
        }
    }

    /// Takes a new snapshot now, whatever the age of the cached one.
    pub fn refresh(&self) -> Vec<Resource> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let resources = self.discover();
        *cache = Some(Snapshot {
            taken: Instant::now(),
            resources: resources.clone(),
        });
        resources
    }

    fn discover(&self) -> Vec<Resource> {
        std::thread::scope(|scope| {
            // The engine is asked on a thread of its own (see
            // `crate::blocking`) while /proc and systemd are read here.
            let engine = match &self.docker {
                Ok(Some(client)) => Some(blocking::start_in(scope, ask_engine(client))),
                Ok(None) | Err(_) => None,
            };
            let mut notes = Vec::new();
            let facts = HostFacts::gather();
            let services = self.discover_services(facts.systemd, &mut notes);
            let engine = match (engine, &self.docker) {
                (Some(Ok(pending)), _) => pending
                    .wait()
                    .unwrap_or_else(|source| EngineReport::failed(DockerError::Runtime { source })),
                (Some(Err(source)), _) => EngineReport::failed(DockerError::Runtime { source }),
                (None, Err(reason)) => EngineReport::note(format!("docker: {reason}")),
                (None, Ok(_)) => EngineReport::default(),
            };
            notes.extend(engine.notes);
            let mut resources = vec![host_resource(
                &self.host_id,
                &facts,
                &services,
                engine.version.as_ref(),
                &notes,
            )];
            resources.extend(
                engine
                    .containers
                    .iter()
                    .map(|c| container_resource(&self.hostname, &self.host_id, c)),
            );
            resources
        })
    }

    fn discover_services(&self, systemd: bool, notes: &mut Vec<String>) -> ServiceListing {
        if systemd {
            let listing =
                "systemctl list-units --type=service --all --plain --no-legend --no-pager";
            match self.executor.run(listing) {
                Ok(out) if out.success() => {
                    return ServiceListing::Systemd(parse_systemctl_units(&out.stdout));
                }
                Ok(out) => notes.push(format!(
                    "systemctl list-units failed (exit {}): {}; services are guessed from processes",
                    out.exit_code,
                    out.stderr.trim()
                )),
                Err(err) => notes.push(format!(
                    "systemctl list-units did not run: {err}; services are guessed from processes"
                )),
            }
        }
        ServiceListing::Processes(daemons_by_name(&processes_in_our_pid_namespace()))
    }
}

/// What the engine told discovery: its version, its containers, and a note
/// for each thing that failed.
#[derive(Debug, Default)]
struct EngineReport {
    version: Option<DockerVersion>,
    containers: Vec<ContainerSummary>,
    notes: Vec<String>,
}

impl EngineReport {
    fn note(note: String) -> Self {
        EngineReport {
            notes: vec![note],
            ..EngineReport::default()
        }
    }

    fn failed(error: DockerError) -> Self {
        EngineReport::note(format!("docker: {error}"))
    }
}

/// The listing, with the engine's version from its headers (one cheap
/// request); `GET /version` only when the headers do not say, or beside a
/// listing the engine refused. No engine means no version and no
/// containers.
async fn ask_engine(client: &DockerClient) -> EngineReport {
    let error = match client.list_containers_and_version().await {
        Ok((containers, version)) => {
            let (version, notes) = match version {
                Some(version) => (Some(version), Vec::new()),
                None => match client.version().await {
                    Ok(version) => (Some(version), Vec::new()),
                    Err(error) => (None, vec![format!("docker: {error}")]),
                },
            };
            return EngineReport {
                version,
                containers,
                notes,
            };
        }
        Err(error) => error,
    };
    match error {
        // Nothing to ask for a version.
        DockerError::Unavailable { .. }
        | DockerError::UnsupportedDockerHost { .. }
        | DockerError::TimedOut { .. }
        | DockerError::Runtime { .. } => EngineReport::failed(error),
        // The engine is there; only its listing failed.
        DockerError::Io { .. }
        | DockerError::Api { .. }
        | DockerError::Protocol { .. }
        | DockerError::Decode { .. }
        | DockerError::InvalidRequest { .. } => EngineReport {
            version: client.version().await.ok(),
            containers: Vec::new(),
            notes: vec![format!("docker: listing containers failed: {error}")],
        },
    }
}

/// Every process in `/proc` that shares our pid namespace: processes inside
/// containers also show up in the host's `/proc`, but an `nginx` in a
/// container is that container's, not the host's, service.
fn processes_in_our_pid_namespace() -> Vec<ProcessStat> {
    let our_namespace = std::fs::read_link("/proc/self/ns/pid").ok();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|entry| {
            // Unreadable (another user's process, when not root): keep it.
            match (
                &our_namespace,
                std::fs::read_link(entry.path().join("ns/pid")),
            ) {
                (Some(ours), Ok(theirs)) => *ours == theirs,
                (None, _) | (_, Err(_)) => true,
            }
        })
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter_map(|stat| parse_proc_stat(&stat))
        .collect()
}

/// The host resource, from what discovery found.
pub fn host_resource(
    id: &ResourceId,
    facts: &HostFacts,
    services: &ServiceListing,
    docker: Option<&DockerVersion>,
    notes: &[String],
) -> Resource {
    let mut resource = Resource::new(id.clone(), id.uid.clone());
    if id.uid != "localhost" {
        // People say "localhost" for the machine Warden runs on.
        resource.aliases.push("localhost".into());
    }
    resource.status = Some("running".into());
    let a = &mut resource.attributes;
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            a.insert(key.to_string(), value);
        }
    };
    put("os", facts.os.as_ref().map(|v| json!(v)));
    put("kernel", facts.kernel.as_ref().map(|v| json!(v)));
    put("cpus", facts.cpus.map(|v| json!(v)));
    put("memory_bytes", facts.memory_bytes.map(|v| json!(v)));
    put(
        "memory_available_bytes",
        facts.memory_available_bytes.map(|v| json!(v)),
    );
    put("uptime_seconds", facts.uptime_seconds.map(|v| json!(v)));
    put("systemd", Some(json!(facts.systemd)));
    put("log_files", Some(json!(facts.log_files)));
    put(
        "journal_has_entries",
        Some(json!(facts.journal_has_entries)),
    );
    let (source, list) = match services {
        ServiceListing::Systemd(units) => (
            "systemd",
            units
                .iter()
                .map(SystemdService::to_json)
                .collect::<Vec<_>>(),
        ),
        ServiceListing::Processes(daemons) => (
            "processes",
            daemons
                .iter()
                .map(|(name, count)| json!({"name": name, "active": "running", "processes": count}))
                .collect(),
        ),
    };
    put("services_source", Some(json!(source)));
    put("services", Some(Value::Array(list)));
    put(
        "docker",
        docker.map(|v| json!({"version": v.version, "api_version": v.api_version})),
    );
    put("inventory_notes", (!notes.is_empty()).then(|| json!(notes)));
    resource
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> HostFacts {
        HostFacts {
            os: Some("Debian GNU/Linux 12 (bookworm)".into()),
            kernel: Some("6.1.0-18-amd64".into()),
            cpus: Some(4),
            memory_bytes: Some(8 << 30),
            memory_available_bytes: None,
            uptime_seconds: Some(3600),
            systemd: true,
            log_files: vec!["/var/log/syslog".into()],
            journal_has_entries: true,
        }
    }

    #[test]
    fn host_resource_with_systemd_services_and_docker() {
        let services = ServiceListing::Systemd(parse_systemctl_units(
            "ssh.service loaded active running OpenBSD Secure Shell server\n",
        ));
        let docker = DockerVersion {
            version: "27.0.1".into(),
            api_version: "1.46".into(),
            os: "linux".into(),
            arch: "amd64".into(),
            kernel_version: "6.1.0".into(),
        };
        let id = ResourceId::global(ResourceKind::Host, "web1");
        let r = host_resource(&id, &facts(), &services, Some(&docker), &[]);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({
                "id": "host:web1",
                "name": "web1",
                "aliases": ["localhost"],
                "status": "running",
                "attributes": {
                    "os": "Debian GNU/Linux 12 (bookworm)",
                    "kernel": "6.1.0-18-amd64",
                    "cpus": 4,
                    "memory_bytes": 8589934592u64,
                    "uptime_seconds": 3600,
                    "systemd": true,
                    "log_files": ["/var/log/syslog"],
                    "journal_has_entries": true,
                    "services_source": "systemd",
                    "services": [{"name": "ssh", "load": "loaded", "active": "active",
                                  "sub": "running", "description": "OpenBSD Secure Shell server"}],
                    "docker": {"version": "27.0.1", "api_version": "1.46"}
                }
            })
        );
    }

    #[test]
    fn host_resource_from_processes_with_notes() {
        let services = ServiceListing::Processes(
            [("dockerd".to_string(), 1), ("postgres".to_string(), 3)].into(),
        );
        let id = ResourceId::global(ResourceKind::Host, "box");
        let notes =
            vec!["docker: Docker is not available here: the socket does not exist".to_string()];
        let r = host_resource(&id, &facts(), &services, None, &notes);
        assert_eq!(r.attributes["services_source"], "processes");
        assert_eq!(
            r.attributes["services"],
            json!([{"name": "dockerd", "active": "running", "processes": 1},
                   {"name": "postgres", "active": "running", "processes": 3}])
        );
        assert_eq!(r.attributes["inventory_notes"], json!(notes));
        assert!(!r.attributes.contains_key("docker"));
    }
}
