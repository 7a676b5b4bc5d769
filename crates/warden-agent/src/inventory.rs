//! What this agent reports in `inventory` frames: the host (facts,
//! services), its Docker containers (through `warden_infra::LocalInventory`)
//! and, on a Proxmox VE node, its LXC containers and VMs (`pct list`,
//! `qm list`). Ids are scoped to this agent's host name.
//!
//! Discovery blocks (it runs `systemctl` and asks the Docker engine), so the
//! agent calls [`InventorySource::snapshot`] on a blocking thread.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use warden_infra::runner::FIXED_PATH;
use warden_infra::{DockerDiscovery, ExecOptions, InventoryOptions, LocalExecutor, LocalInventory};
use warden_protocol::Resource;

use crate::proxmox::{lxc_resource, parse_pct_list, parse_qm_list, vm_resource};

/// Whether to look for Proxmox's `pct` and `qm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProxmoxDiscovery {
    /// When `pct` (or `qm`) is on the fixed search path.
    Auto,
    Disabled,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryConfig {
    pub docker: DockerDiscovery,
    pub proxmox: ProxmoxDiscovery,
    /// How often to look for changes (an `inventory` frame goes out only
    /// when something changed).
    pub interval: Duration,
}

impl Default for InventoryConfig {
    fn default() -> Self {
        InventoryConfig {
            docker: DockerDiscovery::FromEnv,
            proxmox: ProxmoxDiscovery::Auto,
            interval: Duration::from_secs(30),
        }
    }
}

/// This agent's discovery.
#[derive(Debug)]
pub struct InventorySource {
    host: String,
    local: LocalInventory,
    pct: Option<PathBuf>,
    qm: Option<PathBuf>,
    executor: LocalExecutor,
}

impl InventorySource {
    pub fn new(host: &str, config: &InventoryConfig) -> Self {
        let local = LocalInventory::with_options(InventoryOptions {
            refresh_interval: Duration::ZERO,
            docker: config.docker.clone(),
            hostname: Some(host.to_string()),
            command_timeout: Duration::from_secs(10),
        });
        let (pct, qm) = match config.proxmox {
            ProxmoxDiscovery::Auto => (find_program("pct"), find_program("qm")),
            ProxmoxDiscovery::Disabled => (None, None),
        };
        InventorySource {
            host: local.hostname().to_string(),
            local,
            pct,
            qm,
            executor: LocalExecutor::with_options(
                ExecOptions::default().with_timeout(Duration::from_secs(20)),
            ),
        }
    }

    /// The host name ids are scoped to.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// A fresh snapshot; the host comes first. Never fails as a whole: what
    /// could not be listed becomes a line in the host's `inventory_notes`.
    pub fn snapshot(&self) -> Vec<Resource> {
        let mut resources = self.local.refresh();
        let mut notes = Vec::new();
        if let Some(pct) = &self.pct {
            match self.list(pct) {
                Ok(output) => resources.extend(
                    parse_pct_list(&output)
                        .iter()
                        .map(|row| lxc_resource(&self.host, row)),
                ),
                Err(note) => notes.push(note),
            }
        }
        if let Some(qm) = &self.qm {
            match self.list(qm) {
                Ok(output) => resources.extend(
                    parse_qm_list(&output)
                        .iter()
                        .map(|row| vm_resource(&self.host, row)),
                ),
                Err(note) => notes.push(note),
            }
        }
        if let Some(host) = resources.first_mut() {
            if self.pct.is_some() || self.qm.is_some() {
                host.attributes.insert("proxmox_node".into(), json!(true));
            }
            if !notes.is_empty() {
                let entry = host
                    .attributes
                    .entry("inventory_notes")
                    .or_insert_with(|| json!([]));
                if let Value::Array(existing) = entry {
                    existing.extend(notes.into_iter().map(Value::String));
                }
            }
        }
        resources
    }

    fn list(&self, program: &Path) -> Result<String, String> {
        let command = format!("{} list", program.display());
        match self.executor.run(&command) {
            Ok(out) if out.success() => Ok(out.stdout),
            Ok(out) => Err(format!(
                "`{command}` failed (exit {}): {}",
                out.exit_code,
                out.stderr.trim()
            )),
            Err(err) => Err(format!("`{command}` did not run: {err}")),
        }
    }
}

fn find_program(name: &str) -> Option<PathBuf> {
    FIXED_PATH
        .split(':')
        .map(|dir| Path::new(dir).join(name))
        .find(|path| path.is_file())
}

/// The inventory minus what changes all the time (uptime, free memory,
/// "Up 5 minutes", process counts): two snapshots with the same stable view
/// need no new `inventory` frame.
pub fn stable_view(resources: &[Resource]) -> Value {
    const VOLATILE: [&str; 3] = ["uptime_seconds", "memory_available_bytes", "status_text"];
    let mut value = serde_json::to_value(resources).unwrap_or(Value::Null);
    if let Value::Array(items) = &mut value {
        for item in items {
            let Some(Value::Object(attributes)) = item.get_mut("attributes") else {
                continue;
            };
            for key in VOLATILE {
                attributes.remove(key);
            }
            if let Some(Value::Array(services)) = attributes.get_mut("services") {
                for service in services {
                    if let Value::Object(service) = service {
                        service.remove("processes");
                    }
                }
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_protocol::{ResourceId, ResourceKind};

    #[test]
    fn volatile_facts_do_not_count_as_changes() {
        let host = |uptime: u64, services: Value| {
            let mut r = Resource::new(ResourceId::global(ResourceKind::Host, "h"), "h");
            r.attributes.insert("uptime_seconds".into(), json!(uptime));
            r.attributes.insert("services".into(), services);
            r
        };
        let a = host(
            10,
            json!([{"name": "nginx", "active": "running", "processes": 2}]),
        );
        let b = host(
            99,
            json!([{"name": "nginx", "active": "running", "processes": 5}]),
        );
        let c = host(
            99,
            json!([{"name": "nginx", "active": "failed", "processes": 5}]),
        );
        assert_eq!(stable_view(std::slice::from_ref(&a)), stable_view(&[b]));
        assert_ne!(stable_view(&[a]), stable_view(&[c]));
    }

    #[test]
    fn a_snapshot_starts_with_this_host() {
        let source = InventorySource::new(
            "agent-test-host",
            &InventoryConfig {
                docker: DockerDiscovery::Disabled,
                proxmox: ProxmoxDiscovery::Disabled,
                interval: Duration::from_secs(1),
            },
        );
        let resources = source.snapshot();
        assert_eq!(resources[0].id.to_string(), "host:agent-test-host");
        assert_eq!(source.host(), "agent-test-host");
    }
}
