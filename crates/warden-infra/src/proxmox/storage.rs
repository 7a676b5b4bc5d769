//! Storage pools with their usage (`/nodes/{node}/storage`), backup
//! archives (`…/storage/{id}/content?content=backup`), the last backup of
//! each guest and its age, and the cluster's backup jobs.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use super::client::{ApiPath, PveClient};
use super::error::ProxmoxError;
use super::values::{bool_field, float_field, split_tags, text_field, uint_field};

/// One storage as a node sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoragePool {
    pub node: String,
    pub storage: String,
    pub plugin_type: Option<String>,
    pub content: Vec<String>,
    pub active: bool,
    pub enabled: bool,
    pub shared: bool,
    pub total_bytes: Option<u64>,
    pub used_bytes: Option<u64>,
    pub avail_bytes: Option<u64>,
    /// 0..1, computed from used/total when PVE does not send it.
    pub used_fraction: Option<f64>,
}

/// Parses the `data` of `GET /nodes/{node}/storage`.
pub fn parse_storage_pools(node: &str, data: &Value) -> Vec<StoragePool> {
    let items = data.as_array().map(Vec::as_slice).unwrap_or_default();
    items
        .iter()
        .filter_map(|item| {
            let storage = text_field(item, "storage")?;
            let total = uint_field(item, "total");
            let used = uint_field(item, "used");
            let used_fraction =
                float_field(item, "used_fraction").or_else(|| match (used, total) {
                    (Some(used), Some(total)) if total > 0 => Some(used as f64 / total as f64),
                    _ => None,
                });
            Some(StoragePool {
                node: node.to_string(),
                storage,
                plugin_type: text_field(item, "type"),
                content: text_field(item, "content")
                    .map(|c| split_tags(&c))
                    .unwrap_or_default(),
                active: bool_field(item, "active").unwrap_or(false),
                enabled: bool_field(item, "enabled").unwrap_or(true),
                shared: bool_field(item, "shared").unwrap_or(false),
                total_bytes: total,
                used_bytes: used,
                avail_bytes: uint_field(item, "avail"),
                used_fraction,
            })
        })
        .collect()
}

/// A backup archive on a storage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BackupArchive {
    pub volid: String,
    pub storage: String,
    pub vmid: Option<u32>,
    /// Unix seconds.
    pub created_at: Option<i64>,
    pub size_bytes: Option<u64>,
    pub protected: bool,
    pub notes: Option<String>,
}

/// The vmid in a backup volume id: `local:backup/vzdump-qemu-101-2026_…`
/// or a PBS one, `pbs:backup/vm/101/2026-…`.
pub fn vmid_of_backup_volid(volid: &str) -> Option<u32> {
    let name = volid.split_once(':').map_or(volid, |(_, rest)| rest);
    let name = name.strip_prefix("backup/").unwrap_or(name);
    if let Some(rest) = name.strip_prefix("vzdump-") {
        let mut parts = rest.split('-');
        let kind = parts.next()?;
        if matches!(kind, "qemu" | "lxc" | "openvz") {
            return parts.next()?.parse().ok();
        }
        return None;
    }
    let mut parts = name.split('/');
    match (parts.next(), parts.next()) {
        (Some("vm" | "ct"), Some(id)) => id.parse().ok(),
        _ => None,
    }
}

/// Parses the `data` of `…/storage/{storage}/content?content=backup`.
pub fn parse_backup_content(storage: &str, data: &Value) -> Vec<BackupArchive> {
    let items = data.as_array().map(Vec::as_slice).unwrap_or_default();
    items
        .iter()
        .filter_map(|item| {
            let volid = text_field(item, "volid")?;
            if text_field(item, "content").is_some_and(|c| c != "backup") {
                return None;
            }
            let vmid = uint_field(item, "vmid")
                .and_then(|v| u32::try_from(v).ok())
                .or_else(|| vmid_of_backup_volid(&volid));
            Some(BackupArchive {
                storage: storage.to_string(),
                vmid,
                created_at: uint_field(item, "ctime").and_then(|t| i64::try_from(t).ok()),
                size_bytes: uint_field(item, "size"),
                protected: bool_field(item, "protected").unwrap_or(false),
                notes: text_field(item, "notes").filter(|n| !n.is_empty()),
                volid,
            })
        })
        .collect()
}

/// The newest backup of one guest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastBackup {
    pub vmid: u32,
    pub archive: BackupArchive,
    /// Seconds since it was made (0 for a clock skewed into the future).
    pub age_secs: Option<u64>,
    /// How many archives the guest has in all.
    pub archives: usize,
}

/// The newest archive per guest (archives without a vmid are ignored), by vmid.
pub fn last_backups(archives: &[BackupArchive], now: i64) -> BTreeMap<u32, LastBackup> {
    let mut out: BTreeMap<u32, LastBackup> = BTreeMap::new();
    for archive in archives {
        let Some(vmid) = archive.vmid else { continue };
        let entry = out.entry(vmid).or_insert_with(|| LastBackup {
            vmid,
            archive: archive.clone(),
            age_secs: None,
            archives: 0,
        });
        entry.archives += 1;
        if archive.created_at > entry.archive.created_at {
            entry.archive = archive.clone();
        }
    }
    for entry in out.values_mut() {
        entry.age_secs = entry
            .archive
            .created_at
            .map(|t| u64::try_from(now.saturating_sub(t)).unwrap_or(0));
    }
    out
}

/// A scheduled backup job (`/cluster/backup`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BackupJob {
    pub id: String,
    pub schedule: Option<String>,
    pub enabled: bool,
    pub storage: Option<String>,
    /// `all`, or the vmids it covers.
    pub selection: BackupSelection,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum BackupSelection {
    All,
    Guests { vmids: Vec<u32> },
    Pool { pool: String },
}

/// Parses the `data` of `GET /cluster/backup`.
pub fn parse_backup_jobs(data: &Value) -> Vec<BackupJob> {
    let items = data.as_array().map(Vec::as_slice).unwrap_or_default();
    items
        .iter()
        .filter_map(|item| {
            let id = text_field(item, "id")?;
            let selection = if bool_field(item, "all").unwrap_or(false) {
                BackupSelection::All
            } else if let Some(pool) = text_field(item, "pool") {
                BackupSelection::Pool { pool }
            } else {
                BackupSelection::Guests {
                    vmids: text_field(item, "vmid")
                        .map(|v| {
                            split_tags(&v)
                                .iter()
                                .filter_map(|n| n.parse().ok())
                                .collect()
                        })
                        .unwrap_or_default(),
                }
            };
            Some(BackupJob {
                id,
                schedule: text_field(item, "schedule").or_else(|| {
                    // Older jobs: `starttime` + `dow`.
                    text_field(item, "starttime").map(|t| {
                        format!("{} {t}", text_field(item, "dow").unwrap_or_default())
                            .trim()
                            .to_string()
                    })
                }),
                enabled: bool_field(item, "enabled").unwrap_or(true),
                storage: text_field(item, "storage"),
                selection,
            })
        })
        .collect()
}

/// The pools of the given nodes (each node asked in turn).
pub async fn storage_pools(
    client: &PveClient,
    nodes: &[String],
) -> Result<Vec<StoragePool>, ProxmoxError> {
    let mut pools = Vec::new();
    for node in nodes {
        let path = ApiPath::new(["nodes", node.as_str(), "storage"]);
        let data = client
            .get(&path, &[])
            .await
            .map_err(|e| e.needing_privilege("Datastore.Audit"))?;
        pools.extend(parse_storage_pools(node, &data));
    }
    Ok(pools)
}

/// Every backup archive on the backup-capable, active storages of `nodes`;
/// a shared storage is read once.
pub async fn backup_archives(
    client: &PveClient,
    nodes: &[String],
) -> Result<Vec<BackupArchive>, ProxmoxError> {
    let pools = storage_pools(client, nodes).await?;
    let mut seen_shared = HashSet::new();
    let mut archives = Vec::new();
    for pool in pools {
        let holds_backups = pool.content.iter().any(|c| c == "backup");
        if !holds_backups || !pool.active || !pool.enabled {
            continue;
        }
        if pool.shared && !seen_shared.insert(pool.storage.clone()) {
            continue;
        }
        let path = ApiPath::new([
            "nodes",
            pool.node.as_str(),
            "storage",
            pool.storage.as_str(),
            "content",
        ]);
        let data = client
            .get(&path, &[("content", "backup".to_string())])
            .await
            .map_err(|e| e.needing_privilege("Datastore.Audit"))?;
        archives.extend(parse_backup_content(&pool.storage, &data));
    }
    Ok(archives)
}

/// The scheduled backup jobs.
pub async fn backup_jobs(client: &PveClient) -> Result<Vec<BackupJob>, ProxmoxError> {
    let data = client
        .get(&ApiPath::new(["cluster", "backup"]), &[])
        .await
        .map_err(|e| e.needing_privilege("Sys.Audit"))?;
    Ok(parse_backup_jobs(&data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pools_with_usage() {
        let pools = parse_storage_pools(
            "pve1",
            &json!([
                {"storage": "local", "type": "dir", "content": "iso,vztmpl,backup", "active": 1, "enabled": 1,
                 "shared": 0, "total": "1000", "used": 250, "avail": 750},
                {"storage": "nfs", "type": "nfs", "content": "backup", "active": 0, "total": 0, "used": 0},
                {"type": "dir"}
            ]),
        );
        assert_eq!(pools.len(), 2);
        assert_eq!(pools[0].used_fraction, Some(0.25));
        assert_eq!(pools[0].content, vec!["iso", "vztmpl", "backup"]);
        assert!(pools[0].active && !pools[1].active);
        assert_eq!(pools[1].used_fraction, None);
    }

    #[test]
    fn vmids_from_volids() {
        let cases = [
            (
                "local:backup/vzdump-qemu-101-2026_11_01-02_00_00.vma.zst",
                Some(101),
            ),
            (
                "local:backup/vzdump-lxc-141-2026_11_01-02_00_00.tar.zst",
                Some(141),
            ),
            ("pbs:backup/vm/102/2026-11-01T02:00:00Z", Some(102)),
            ("pbs:backup/ct/143/2026-11-01T02:00:00Z", Some(143)),
            ("local:backup/vzdump-unknown-1-x", None),
            ("local:iso/debian.iso", None),
        ];
        for (volid, expected) in cases {
            assert_eq!(vmid_of_backup_volid(volid), expected, "{volid}");
        }
    }

    #[test]
    fn the_newest_backup_per_guest_and_its_age() {
        let archives = parse_backup_content(
            "local",
            &json!([
                {"volid": "local:backup/vzdump-qemu-101-a.vma.zst", "ctime": 1000, "size": 5, "content": "backup"},
                {"volid": "local:backup/vzdump-qemu-101-b.vma.zst", "ctime": "3000", "content": "backup", "protected": 1},
                {"volid": "local:backup/vzdump-lxc-141-a.tar.zst", "vmid": "141", "ctime": 2000},
                {"volid": "local:iso/x.iso", "content": "iso"},
                {"volid": "local:backup/odd-name.tar"}
            ]),
        );
        assert_eq!(archives.len(), 4);
        let last = last_backups(&archives, 3600);
        assert_eq!(last.len(), 2);
        let vm = &last[&101];
        assert_eq!(vm.archive.volid, "local:backup/vzdump-qemu-101-b.vma.zst");
        assert_eq!((vm.age_secs, vm.archives), (Some(600), 2));
        assert!(vm.archive.protected);
        assert_eq!(last[&141].age_secs, Some(1600));
        // A backup from the future is age 0, not a panic.
        assert_eq!(last_backups(&archives, 0)[&101].age_secs, Some(0));
    }

    #[test]
    fn backup_jobs_and_their_selection() {
        let jobs = parse_backup_jobs(&json!([
            {"id": "backup-1", "schedule": "daily", "all": 1, "storage": "pbs", "enabled": 1},
            {"id": "backup-2", "schedule": "sun 01:00", "vmid": "101,102", "enabled": "0"},
            {"id": "backup-3", "starttime": "02:00", "dow": "mon", "pool": "prod"},
            {"schedule": "x"}
        ]));
        assert_eq!(jobs.len(), 3);
        assert_eq!(jobs[0].selection, BackupSelection::All);
        assert_eq!(
            jobs[1].selection,
            BackupSelection::Guests {
                vmids: vec![101, 102]
            }
        );
        assert!(!jobs[1].enabled);
        assert_eq!(jobs[2].schedule.as_deref(), Some("mon 02:00"));
        assert_eq!(
            jobs[2].selection,
            BackupSelection::Pool {
                pool: "prod".into()
            }
        );
    }
}
