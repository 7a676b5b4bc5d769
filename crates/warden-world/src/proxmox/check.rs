//! `warden config show` connects to each `[[proxmox]]` cluster for real:
//! its version, nodes and quorum, and its inventory (which needs
//! `Sys.Audit`), or why it cannot be read.

use std::time::Duration;

use warden_infra::proxmox::{ClusterStatus, ProxmoxCluster, ProxmoxConfig, RefreshReport};

/// How long one cluster may take to answer the check.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(8);

/// What checking one cluster found.
#[derive(Debug)]
pub struct ClusterCheck {
    pub cluster: String,
    pub result: Result<(ClusterStatus, RefreshReport), String>,
}

impl ClusterCheck {
    /// `proxmox `lab`: OK, PVE 8.2.4, 3 nodes (3 online), quorate, 42 guests`
    /// or `proxmox `lab`: cannot be read: …`.
    pub fn line(&self) -> String {
        match &self.result {
            Ok((status, report)) => {
                let online = status.nodes.iter().filter(|n| n.online).count();
                let quorum = match status.quorate {
                    Some(true) => ", quorate",
                    Some(false) => ", NOT quorate (changes will fail)",
                    None => "",
                };
                format!(
                    "proxmox `{}`: OK, PVE {}, {} node{} ({online} online){quorum}, {} guest{}",
                    self.cluster,
                    status.version.as_deref().unwrap_or("?"),
                    status.nodes.len(),
                    if status.nodes.len() == 1 { "" } else { "s" },
                    report.guests,
                    if report.guests == 1 { "" } else { "s" },
                )
            }
            Err(reason) => format!("proxmox `{}`: cannot be read: {reason}", self.cluster),
        }
    }

    pub fn ok(&self) -> bool {
        self.result.is_ok()
    }
}

/// Checks every cluster, concurrently, each within [`CHECK_TIMEOUT`].
pub async fn check_clusters(configs: &[ProxmoxConfig]) -> Vec<ClusterCheck> {
    let checks = configs.iter().map(|config| async move {
        let result = match ProxmoxCluster::from_config(config) {
            Err(error) => Err(error.to_string()),
            Ok(cluster) => {
                let both = async {
                    let status = cluster.check().await?;
                    let report = cluster.refresh().await?;
                    Ok::<_, warden_infra::proxmox::ProxmoxError>((status, report))
                };
                match tokio::time::timeout(CHECK_TIMEOUT, both).await {
                    Ok(result) => result.map_err(|e| e.to_string()),
                    Err(_) => Err(format!(
                        "no answer within {} s: is the URL right and the node up?",
                        CHECK_TIMEOUT.as_secs()
                    )),
                }
            }
        };
        ClusterCheck {
            cluster: config.name.clone(),
            result,
        }
    });
    futures_util::future::join_all(checks).await
}
