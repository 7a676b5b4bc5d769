//! The core's guest API over the configured Proxmox clusters: which cluster
//! serves a resource (its `cluster` attribute), and each API call carried
//! out by that cluster's connector, answered as JSON the model and the CLI
//! read. A turn's cancellation stops the wait (a write sent may still
//! happen, and the error says so).

use std::sync::{Arc, PoisonError, RwLock};

use serde_json::{Value, json};
use warden_core::ports::{ApiCall, ApiRequest, ApiResult, BoxFuture, GuestApi, SnapshotSupport};
use warden_core::tools::args::{GuestOperation, HistoryRange, ShutdownFallback};
use warden_infra::proxmox::{
    DEFAULT_MAX_POINTS, Metric, PowerOperation, ProxmoxCluster, ProxmoxError, Timeframe,
    snapshot_support::UNSUPPORTED_REASON, sparkline_of,
};
use warden_protocol::{ErrorCode, Resource, ResourceKind, ToolError};

use super::errors::tool_error;

/// How wide the sparkline sent with each history series is.
const SPARKLINE_WIDTH: usize = 40;

/// Every connected cluster, as one guest API. Cheap to clone: clones share
/// the member list, which an admin may change while a server runs.
#[derive(Clone)]
pub struct ProxmoxApi {
    clusters: Arc<RwLock<Vec<Arc<ProxmoxCluster>>>>,
}

impl ProxmoxApi {
    pub fn new(clusters: Vec<Arc<ProxmoxCluster>>) -> Self {
        ProxmoxApi {
            clusters: Arc::new(RwLock::new(clusters)),
        }
    }

    /// The members now (calls hold no lock while they wait on a cluster).
    fn members(&self) -> Vec<Arc<ProxmoxCluster>> {
        self.clusters
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(super) fn join(&self, cluster: Arc<ProxmoxCluster>) {
        self.clusters
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .push(cluster);
    }

    pub(super) fn leave(&self, name: &str) {
        self.clusters
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|c| c.name() != name);
    }

    /// The cluster a resource came from (its inventory's `cluster` attribute).
    fn cluster_of(&self, resource: &Resource) -> Option<Arc<ProxmoxCluster>> {
        let name = resource.attributes.get("cluster")?.as_str()?;
        self.clusters
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|c| c.name() == name)
            .cloned()
    }
}

impl GuestApi for ProxmoxApi {
    fn snapshot_support(&self, guest: &Resource) -> SnapshotSupport {
        let known = self
            .cluster_of(guest)
            .and_then(|c| c.known_snapshot_support(&guest.id));
        match known {
            Some(true) => SnapshotSupport::Supported,
            Some(false) => SnapshotSupport::Unsupported {
                reason: UNSUPPORTED_REASON.to_string(),
            },
            None => SnapshotSupport::Unknown,
        }
    }

    fn serves(&self, resource: Option<&Resource>) -> bool {
        match resource {
            None => !self
                .clusters
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .is_empty(),
            Some(r) => {
                matches!(
                    r.id.kind,
                    ResourceKind::Node
                        | ResourceKind::Vm
                        | ResourceKind::Lxc
                        | ResourceKind::Storage
                ) && self.cluster_of(r).is_some()
            }
        }
    }

    fn call<'a>(&'a self, request: ApiRequest<'a>) -> BoxFuture<'a, ApiResult> {
        Box::pin(async move {
            let work = self.answer(request);
            tokio::select! {
                result = work => result,
                () = request.cancel.cancelled() => Err(cancelled(request.call)),
            }
        })
    }
}

fn cancelled(call: &ApiCall) -> ToolError {
    if call.changes_something() {
        ToolError::failed(
            ErrorCode::Cancelled,
            "interrupted by the user after the request was sent: the change may still happen",
        )
        .with_hint("read the guest's status before anything else")
        .with_detail("possibly_applied", json!(true))
    } else {
        ToolError::failed(ErrorCode::Cancelled, "interrupted by the user")
    }
}

impl ProxmoxApi {
    async fn answer(&self, request: ApiRequest<'_>) -> ApiResult {
        let Some(target) = request.target else {
            return self.cluster_wide(request.call).await;
        };
        let cluster = self.cluster_of(target).ok_or_else(|| {
            ToolError::blocked(
                ErrorCode::Unavailable,
                format!("{} belongs to no connected Proxmox cluster", target.id),
            )
        })?;
        refuse_reused_vmid(&cluster, target)?;
        let mut answer = self.on_target(&cluster, target, request.call).await;
        // A guest that migrated within the refresh window was followed to
        // its node: the session is told its new id.
        let now = cluster.current_id(&target.id);
        if now != target.id {
            let note = moved_note(&target.id, &now);
            match &mut answer {
                Ok(Value::Object(object)) => {
                    object.insert("moved".into(), note);
                }
                Ok(other) => *other = json!({"result": other.take(), "moved": note}),
                Err(error) => {
                    error.details.extra.insert("moved".into(), note);
                }
            }
        }
        answer
    }

    async fn on_target(
        &self,
        cluster: &ProxmoxCluster,
        target: &Resource,
        call: &ApiCall,
    ) -> ApiResult {
        let fail = |e: ProxmoxError| tool_error(&e);
        let id = &target.id;
        match call {
            ApiCall::Power {
                operation,
                shutdown,
            } => {
                let operation = match (operation, shutdown) {
                    (GuestOperation::Start, _) => PowerOperation::Start,
                    (GuestOperation::Stop, _) => PowerOperation::Stop,
                    (GuestOperation::Reboot, _) => PowerOperation::Reboot,
                    (GuestOperation::Shutdown, shutdown) => {
                        let shutdown = shutdown.unwrap_or(warden_core::ports::ShutdownTimeout {
                            timeout: std::time::Duration::from_secs(180),
                            on_timeout: ShutdownFallback::LeaveRunning,
                        });
                        PowerOperation::Shutdown {
                            timeout: shutdown.timeout,
                            on_timeout: match shutdown.on_timeout {
                                ShutdownFallback::Stop => {
                                    warden_infra::proxmox::ShutdownFallback::ForceStop
                                }
                                ShutdownFallback::LeaveRunning => {
                                    warden_infra::proxmox::ShutdownFallback::LeaveRunning
                                }
                            },
                        }
                    }
                };
                let outcome = cluster.power(id, operation).await.map_err(fail)?;
                Ok(json!(outcome))
            }
            ApiCall::ListSnapshots => {
                let snapshots = cluster.list_snapshots(id).await.map_err(fail)?;
                Ok(json!({"target": cluster.current_id(id).to_string(), "snapshots": snapshots}))
            }
            ApiCall::CreateSnapshot { name, description } => {
                let task = cluster
                    .create_snapshot(id, name, description.as_deref().unwrap_or(""))
                    .await
                    .map_err(fail)?;
                Ok(
                    json!({"target": cluster.current_id(id).to_string(), "name": name, "task": task}),
                )
            }
            ApiCall::Rollback { name } => {
                let outcome = cluster.rollback(id, name).await.map_err(fail)?;
                let mut value = json!(outcome);
                value["rolled_back_to"] = json!(name);
                Ok(value)
            }
            ApiCall::SnapshotBeforeChange { approval_id } => {
                // Asked live: a card may have been written before it was known.
                if !cluster.can_snapshot(id).await.map_err(fail)? {
                    return Err(ToolError::blocked(
                        ErrorCode::PolicyBlocked,
                        format!(
                            "{} ({}) cannot be snapshotted: {UNSUPPORTED_REASON}",
                            target.name,
                            cluster.current_id(id)
                        ),
                    )
                    .with_detail("snapshot_unsupported", json!(UNSUPPORTED_REASON)));
                }
                let taken = cluster
                    .snapshot_before_change(id, approval_id)
                    .await
                    .map_err(fail)?;
                Ok(
                    json!({"target": taken.target.to_string(), "name": taken.name, "task": taken.task}),
                )
            }
            ApiCall::History {
                range,
                metric,
                max_points,
            } => {
                let metrics = match metric {
                    None => Vec::new(),
                    Some(text) => vec![text.parse::<Metric>().map_err(|e| {
                        ToolError::blocked(ErrorCode::InvalidInput, e.to_string())
                            .with_detail("field", json!("metric"))
                    })?],
                };
                let max_points = usize::try_from(*max_points).unwrap_or(DEFAULT_MAX_POINTS);
                let series = cluster
                    .history(id, &metrics, timeframe(*range), max_points)
                    .await
                    .map_err(fail)?;
                let series: Vec<Value> = series
                    .iter()
                    .map(|h| {
                        let mut value = json!(h);
                        value["sparkline"] = json!(sparkline_of(&h.average, SPARKLINE_WIDTH));
                        value
                    })
                    .collect();
                Ok(json!({
                    "target": cluster.current_id(id).to_string(),
                    "name": target.name,
                    "range": range.as_str(),
                    "series": series,
                }))
            }
            ApiCall::StoragePools => {
                let node = super::node_name(target);
                let pools = cluster
                    .storage_pools(Some(node.as_str()))
                    .await
                    .map_err(fail)?;
                Ok(json!({"node": node, "pools": pools}))
            }
            ApiCall::Backups => {
                let report = cluster.backups().await.map_err(fail)?;
                Ok(super::backups_of(target, &report))
            }
            ApiCall::VmShell {
                command, timeout, ..
            } => {
                let output = cluster
                    .exec_shell_in_vm(id, command, *timeout)
                    .await
                    .map_err(fail)?;
                Ok(json!({
                    "exit_code": output.exit_code.unwrap_or(-1),
                    "signal": output.signal,
                    "stdout": output.stdout,
                    "stderr": output.stderr,
                    "truncated": output.stdout_truncated || output.stderr_truncated,
                    "confinement": output.confinement,
                }))
            }
        }
    }

    /// Storage pools and backups of every cluster (a call with no target).
    async fn cluster_wide(&self, call: &ApiCall) -> ApiResult {
        let members = self.members();
        let mut clusters = Vec::with_capacity(members.len());
        for cluster in &members {
            let answer = match call {
                ApiCall::StoragePools => cluster
                    .storage_pools(None)
                    .await
                    .map(|pools| json!({"pools": pools})),
                ApiCall::Backups => cluster
                    .backups()
                    .await
                    .map(|report| super::backups_summary(&report.guests, &report.jobs)),
                other => {
                    return Err(ToolError::blocked(
                        ErrorCode::InvalidInput,
                        format!("{other:?} needs a target"),
                    ));
                }
            };
            // One unreachable cluster does not hide the others.
            clusters.push(match answer {
                Ok(mut value) => {
                    value["cluster"] = json!(cluster.name());
                    value
                }
                Err(error) => json!({"cluster": cluster.name(), "error": tool_error(&error)}),
            });
        }
        Ok(json!({"clusters": clusters}))
    }
}

/// A guest id the inventory no longer has, whose vmid another guest (by
/// name) holds now: refused, never carried out on that other guest.
fn refuse_reused_vmid(cluster: &ProxmoxCluster, target: &Resource) -> Result<(), ToolError> {
    if !matches!(target.id.kind, ResourceKind::Vm | ResourceKind::Lxc) {
        return Ok(());
    }
    let inventory = cluster.inventory();
    if inventory.guest(&cluster.current_id(&target.id)).is_some() {
        return Ok(());
    }
    let holder = target
        .id
        .uid
        .parse::<u32>()
        .ok()
        .and_then(|vmid| inventory.guest_by_vmid(vmid));
    match holder {
        Some(now) if !now.name.eq_ignore_ascii_case(&target.name) => Err(ToolError::blocked(
            ErrorCode::NotFound,
            format!(
                "{} ({}) is no longer in Proxmox cluster `{}`: vmid {} is now {} `{}`, another guest, \
                 so nothing was done to it",
                target.name,
                target.id,
                cluster.name(),
                now.vmid,
                now.resource_id(),
                now.name
            ),
        )
        .with_hint("ask again naming the guest you mean")),
        Some(_) | None => Ok(()),
    }
}

/// `moved: {from, to, note}`, as the executor tells a session of a move.
fn moved_note(from: &warden_protocol::ResourceId, to: &warden_protocol::ResourceId) -> Value {
    json!({
        "from": from.to_string(),
        "to": to.to_string(),
        "note": format!(
            "{from} moved (migrated to {}); it is now {to}: it was followed there, use the new id",
            to.host().unwrap_or("another node")
        ),
    })
}

fn timeframe(range: HistoryRange) -> Timeframe {
    match range {
        HistoryRange::Hour => Timeframe::Hour,
        HistoryRange::Day => Timeframe::Day,
        HistoryRange::Week => Timeframe::Week,
        HistoryRange::Month => Timeframe::Month,
        HistoryRange::Year => Timeframe::Year,
    }
}
