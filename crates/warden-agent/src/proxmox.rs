//! A Proxmox VE node's guests from `pct list` and `qm list`, as resources
//! `lxc:{host}:{vmid}` and `vm:{host}:{vmid}` whose parent is the host.
//! Pure parsing; the commands run in [`crate::inventory`].

use serde_json::json;
use warden_protocol::{Resource, ResourceId, ResourceKind};

/// One row of `pct list`: `VMID Status Lock Name`, where Lock is often empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LxcRow {
    pub vmid: String,
    pub status: String,
    pub lock: Option<String>,
    pub name: Option<String>,
}

/// One row of `qm list`: `VMID NAME STATUS MEM(MB) BOOTDISK(GB) PID`.
#[derive(Debug, Clone, PartialEq)]
pub struct VmRow {
    pub vmid: String,
    pub name: Option<String>,
    pub status: String,
    pub memory_mb: Option<u64>,
    pub bootdisk_gb: Option<f64>,
    pub pid: Option<u64>,
}

fn is_vmid(text: &str) -> bool {
    !text.is_empty() && text.len() <= 10 && text.bytes().all(|b| b.is_ascii_digit())
}

/// Parses `pct list`. The Lock column is blank for most containers, so a
/// row with three fields is told apart by where its third field starts
/// relative to the header's `Name` column.
pub fn parse_pct_list(output: &str) -> Vec<LxcRow> {
    let mut lines = output.lines();
    let name_column = lines
        .clone()
        .find(|line| line.trim_start().starts_with("VMID"))
        .and_then(|header| header.find("Name"));
    lines
        .by_ref()
        .filter_map(|line| {
            let fields = fields_with_offsets(line);
            let (vmid, status) = match fields.as_slice() {
                [(_, vmid), (_, status), ..] if is_vmid(vmid) => (*vmid, *status),
                _ => return None,
            };
            let (lock, name) = match fields.as_slice() {
                [_, _, (_, lock), (_, name), ..] => (Some(*lock), Some(*name)),
                [_, _, (offset, third)] => match name_column {
                    Some(column) if *offset < column => (Some(*third), None),
                    Some(_) | None => (None, Some(*third)),
                },
                _ => (None, None),
            };
            Some(LxcRow {
                vmid: vmid.to_string(),
                status: status.to_string(),
                lock: lock.map(str::to_string),
                name: name.map(str::to_string),
            })
        })
        .collect()
}

/// Parses `qm list`.
pub fn parse_qm_list(output: &str) -> Vec<VmRow> {
    output
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [vmid, name, status, rest @ ..] if is_vmid(vmid) => Some(VmRow {
                    vmid: vmid.to_string(),
                    name: Some(name.to_string()),
                    status: status.to_string(),
                    memory_mb: rest.first().and_then(|v| v.parse().ok()),
                    bootdisk_gb: rest.get(1).and_then(|v| v.parse().ok()),
                    pid: rest
                        .get(2)
                        .and_then(|v| v.parse().ok())
                        .filter(|pid| *pid > 0),
                }),
                _ => None,
            }
        })
        .collect()
}

fn fields_with_offsets(line: &str) -> Vec<(usize, &str)> {
    let mut fields = Vec::new();
    let mut start = None;
    for (index, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                fields.push((s, &line[s..index]));
                start = None;
            }
            (false, None) => start = Some(index),
            (true, None) | (false, Some(_)) => {}
        }
    }
    if let Some(s) = start {
        fields.push((s, &line[s..]));
    }
    fields
}

/// The resource for an LXC row on `host` (whose id is `host:{host}`).
pub fn lxc_resource(host: &str, row: &LxcRow) -> Resource {
    let id = ResourceId::scoped(ResourceKind::Lxc, host, row.vmid.clone());
    let name = row
        .name
        .clone()
        .unwrap_or_else(|| format!("CT{}", row.vmid));
    let mut resource = Resource::new(id, name);
    resource.parent = Some(ResourceId::global(ResourceKind::Host, host));
    resource.status = Some(row.status.clone());
    resource
        .attributes
        .insert("vmid".into(), json!(row.vmid.parse::<u64>().ok()));
    if let Some(lock) = &row.lock {
        resource.attributes.insert("lock".into(), json!(lock));
    }
    resource
}

/// The resource for a VM row on `host`.
pub fn vm_resource(host: &str, row: &VmRow) -> Resource {
    let id = ResourceId::scoped(ResourceKind::Vm, host, row.vmid.clone());
    let name = row
        .name
        .clone()
        .unwrap_or_else(|| format!("VM{}", row.vmid));
    let mut resource = Resource::new(id, name);
    resource.parent = Some(ResourceId::global(ResourceKind::Host, host));
    resource.status = Some(row.status.clone());
    let attributes = &mut resource.attributes;
    attributes.insert("vmid".into(), json!(row.vmid.parse::<u64>().ok()));
    if let Some(memory) = row.memory_mb {
        attributes.insert("memory_mb".into(), json!(memory));
    }
    if let Some(disk) = row.bootdisk_gb {
        attributes.insert("bootdisk_gb".into(), json!(disk));
    }
    if let Some(pid) = row.pid {
        attributes.insert("pid".into(), json!(pid));
    }
    resource
}

#[cfg(test)]
mod tests {
    use super::*;

    const PCT_LIST: &str = "\
VMID       Status     Lock         Name                
100        running                 pihole              
101        stopped    backup       db-old              
102        running    mounted                          
103        stopped                 web                 
";

    const QM_LIST: &str =
        "      VMID NAME                 STATUS     MEM(MB)    BOOTDISK(GB) PID       
       200 ubuntu-srv           running    2048              32.00 41234     
       201 win11                stopped    8192              64.00 0         
";

    #[test]
    fn pct_rows_with_and_without_lock_and_name() {
        let rows = parse_pct_list(PCT_LIST);
        let summary: Vec<(&str, &str, Option<&str>, Option<&str>)> = rows
            .iter()
            .map(|r| {
                (
                    r.vmid.as_str(),
                    r.status.as_str(),
                    r.lock.as_deref(),
                    r.name.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("100", "running", None, Some("pihole")),
                ("101", "stopped", Some("backup"), Some("db-old")),
                ("102", "running", Some("mounted"), None),
                ("103", "stopped", None, Some("web")),
            ]
        );
    }

    #[test]
    fn qm_rows() {
        let rows = parse_qm_list(QM_LIST);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].vmid, "200");
        assert_eq!(rows[0].name.as_deref(), Some("ubuntu-srv"));
        assert_eq!(rows[0].memory_mb, Some(2048));
        assert_eq!(rows[0].bootdisk_gb, Some(32.0));
        assert_eq!(rows[0].pid, Some(41234));
        assert_eq!(rows[1].status, "stopped");
        assert_eq!(rows[1].pid, None);
    }

    #[test]
    fn noise_is_skipped() {
        assert!(parse_pct_list("").is_empty());
        assert!(parse_pct_list("ipcc_send_rec[1] failed: Connection refused\n").is_empty());
        assert!(parse_qm_list("      VMID NAME STATUS\n").is_empty());
    }

    #[test]
    fn guests_become_children_of_the_host() {
        let lxc = lxc_resource("pve1", &parse_pct_list(PCT_LIST)[1]);
        assert_eq!(
            serde_json::to_value(&lxc).unwrap(),
            json!({"id": "lxc:pve1:101", "name": "db-old", "parent": "host:pve1",
                   "status": "stopped", "attributes": {"vmid": 101, "lock": "backup"}})
        );
        let unnamed = lxc_resource("pve1", &parse_pct_list(PCT_LIST)[2]);
        assert_eq!(unnamed.name, "CT102");
        let vm = vm_resource("pve1", &parse_qm_list(QM_LIST)[0]);
        assert_eq!(vm.id.to_string(), "vm:pve1:200");
        assert_eq!(vm.parent.unwrap().to_string(), "host:pve1");
        assert_eq!(vm.attributes["memory_mb"], 2048);
    }
}
