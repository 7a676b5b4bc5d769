//! The shell command each tool call runs on its target, or the API call
//! that answers it (Proxmox guests, nodes and storage when a guest API
//! serves them). Values from the model are always single-quoted, so they
//! can only ever be arguments.

use std::time::Duration;

use warden_protocol::routing::{self, Route};
use warden_protocol::{Resource, ResourceKind};

use crate::ports::{ApiCall, GuestApi, ShutdownTimeout};
use crate::tools::ToolCall;
use crate::tools::args::*;

/// Quote a value for a POSIX shell: `it's` becomes `'it'\''s'`.
pub fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// A heredoc delimiter that does not occur in `content`.
fn delimiter_for(content: &str) -> String {
    let mut delimiter = String::from("WARDEN_EOF");
    while content.lines().any(|l| l == delimiter) {
        delimiter.push('_');
    }
    delimiter
}

/// Where a command runs and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedCommand {
    /// `true` when the command runs on the target's parent (guest control
    /// runs `pct`/`qm` on the node; container logs run `docker` on its host).
    pub on_parent: bool,
    pub command: String,
}

fn on_target(command: String) -> PlannedCommand {
    PlannedCommand {
        on_parent: false,
        command,
    }
}

fn on_parent(command: String) -> PlannedCommand {
    PlannedCommand {
        on_parent: true,
        command,
    }
}

/// What dispatching a call means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Answered from Warden's own state (query, discovery, alerts, knowledge).
    Internal,
    /// One command on the target (or its parent).
    Run(PlannedCommand),
    /// Read the file, replace exactly one occurrence of `old`, write it back.
    Replace {
        path: String,
        old: String,
        new: String,
    },
    /// Answered by the target's API (see [`plan_with`]).
    Api(ApiCall),
}

/// The command that writes `content` to `path` (replacing the file).
pub fn write_file_command(path: &str, content: &str) -> String {
    let delimiter = delimiter_for(content);
    format!(
        "cat > {} <<'{delimiter}'\n{content}\n{delimiter}",
        quote(path)
    )
}

/// Both streams of a container's log in the engine's time order: with
/// `--timestamps` every line says when it was written, and `2>&1` keeps
/// stderr lines among the stdout lines instead of after them.
fn docker_logs(container: &str, lines: u32, since: &str) -> String {
    format!(
        "docker logs --timestamps --tail={lines}{since} {} 2>&1",
        quote(container)
    )
}

/// `docker logs --since` takes a Go duration or a timestamp, not
/// journalctl's "1 hour ago": translate that form, pass anything else on.
fn docker_since(since: &str) -> String {
    let words: Vec<&str> = since.split_whitespace().collect();
    let seconds_per = |unit: &str| match unit.trim_end_matches('s') {
        "second" | "sec" => Some(1),
        "minute" | "min" => Some(60),
        "hour" => Some(3600),
        "day" => Some(86_400),
        "week" => Some(604_800),
        _ => None,
    };
    match words.as_slice() {
        [amount, unit, "ago"] => match (amount.parse::<u64>(), seconds_per(unit)) {
            (Ok(amount), Some(per)) => format!("{}s", amount * per),
            _ => since.to_string(),
        },
        _ => since.to_string(),
    }
}

/// What a validated call does on its target, through `api` when it serves
/// the target (guest power, snapshots, history, storage and backups of a
/// Proxmox cluster), else as commands on hosts ([`plan`]).
pub fn plan_with(call: &ToolCall, target: Option<&Resource>, api: &dyn GuestApi) -> Plan {
    let Some(api_call) = api_call_for(call, target) else {
        return plan(call, target);
    };
    match routing::route_api_action(target, api.service(target)) {
        Route::GuestApi(_) => Plan::Api(api_call),
        Route::Shell(_) | Route::Unreachable(_) => plan(call, target),
    }
}

/// The API call that answers `call` on `target`, if an API can.
pub fn api_call_for(call: &ToolCall, target: Option<&Resource>) -> Option<ApiCall> {
    let kind = target.map(|t| t.id.kind);
    let guest = matches!(kind, Some(ResourceKind::Vm | ResourceKind::Lxc));
    match call {
        ToolCall::Control(ControlArgs::Guest {
            operation,
            timeout_secs,
            on_timeout,
            ..
        }) if guest => Some(ApiCall::Power {
            operation: *operation,
            shutdown: (*operation == GuestOperation::Shutdown).then(|| ShutdownTimeout {
                timeout: Duration::from_secs(u64::from(
                    timeout_secs.unwrap_or(DEFAULT_SHUTDOWN_TIMEOUT_SECS).max(1),
                )),
                on_timeout: on_timeout.unwrap_or(ShutdownFallback::LeaveRunning),
            }),
        }),
        ToolCall::Snapshot(args) if guest => Some(match args {
            SnapshotArgs::List { .. } => ApiCall::ListSnapshots,
            SnapshotArgs::Create {
                name, description, ..
            } => ApiCall::CreateSnapshot {
                name: name.clone(),
                description: description.clone(),
            },
            SnapshotArgs::Rollback { name, .. } => ApiCall::Rollback { name: name.clone() },
        }),
        ToolCall::Metrics(MetricsArgs {
            range: Some(range),
            metric,
            max_points,
            ..
        }) if guest || kind == Some(ResourceKind::Node) => Some(ApiCall::History {
            range: *range,
            metric: metric.clone(),
            max_points: max_points
                .unwrap_or(DEFAULT_MAX_POINTS)
                .clamp(2, MAX_POINTS_LIMIT),
        }),
        ToolCall::Storage(args) => {
            let cluster_scope = matches!(
                kind,
                None | Some(
                    ResourceKind::Node
                        | ResourceKind::Storage
                        | ResourceKind::Vm
                        | ResourceKind::Lxc
                )
            );
            match args.action {
                StorageAction::Pools if cluster_scope => Some(ApiCall::StoragePools),
                StorageAction::Backups if cluster_scope => Some(ApiCall::Backups),
                StorageAction::Pools | StorageAction::Backups | StorageAction::Disks => None,
            }
        }
        _ => None,
    }
}

/// What a validated call does on its target, as commands on hosts.
pub fn plan(call: &ToolCall, target: Option<&Resource>) -> Plan {
    let kind = target.map(|t| t.id.kind);
    let uid = target.map_or("", |t| t.id.uid.as_str());
    Plan::Run(match call {
        ToolCall::Query(_) | ToolCall::Discovery(_) | ToolCall::Alerts(_) | ToolCall::Knowledge(_) => return Plan::Internal,
        ToolCall::Read(args) => match args {
            ReadArgs::Exec { command, .. } => on_target(command.clone()),
            ReadArgs::File { path, .. } => on_target(format!("cat -- {}", quote(path))),
            ReadArgs::Find { path, pattern, .. } => {
                on_target(format!("find {} -name {} -print", quote(path), quote(pattern)))
            }
            ReadArgs::Tail { path, lines, .. } => {
                on_target(format!("tail -n {} -- {}", lines.unwrap_or(100), quote(path)))
            }
            ReadArgs::Logs {
                service, lines, since, ..
            } => {
                let lines = lines.unwrap_or(100);
                match (kind, service) {
                    (Some(ResourceKind::DockerContainer), None) => {
                        let since = since.as_ref().map(|s| format!(" --since {}", quote(&docker_since(s)))).unwrap_or_default();
                        on_parent(docker_logs(uid, lines, &since))
                    }
                    (_, service) => {
                        let unit = service.as_ref().map(|s| format!(" -u {}", quote(s))).unwrap_or_default();
                        let since = since.as_ref().map(|s| format!(" --since {}", quote(s))).unwrap_or_default();
                        on_target(format!("journalctl{unit} -n {lines}{since} --no-pager"))
                    }
                }
            }
        },
        ToolCall::Metrics(args) => {
            let metric = super::host_metrics::Metric::parse(args.metric.as_deref());
            match kind {
                // The engine's numbers, not /proc inside (which shows the host's).
                Some(ResourceKind::DockerContainer) => on_parent(super::host_metrics::container_command(uid, metric)),
                _ => on_target(super::host_metrics::command(metric)),
            }
        }
        ToolCall::Storage(args) => on_target(
            match args.action {
                StorageAction::Pools => "zpool list -H 2>/dev/null; pvesm status 2>/dev/null; df -h",
                StorageAction::Disks => "lsblk -J -o NAME,SIZE,TYPE,MODEL,SERIAL,MOUNTPOINT; smartctl --scan",
                StorageAction::Backups => "pvesm list local --content backup 2>/dev/null; ls -la /var/lib/vz/dump 2>/dev/null",
            }
            .to_string(),
        ),
        ToolCall::Kubernetes(args) => {
            let namespace = args
                .namespace
                .as_ref()
                .map_or_else(|| " -A".to_string(), |n| format!(" -n {}", quote(n)));
            on_target(match args.action {
                KubernetesAction::Pods => format!("kubectl get pods{namespace} -o wide"),
                KubernetesAction::Deployments => format!("kubectl get deployments{namespace} -o wide"),
                KubernetesAction::Events => format!("kubectl get events{namespace} --sort-by=.lastTimestamp"),
                KubernetesAction::Logs => {
                    let pod = args.target.as_deref().unwrap_or_default();
                    format!("kubectl logs{namespace} --tail={} {}", args.lines.unwrap_or(100), quote(pod))
                }
            })
        }
        ToolCall::Control(args) => match args {
            ControlArgs::Service { service, operation, .. } => {
                let op = match operation {
                    ServiceOperation::Start => "start",
                    ServiceOperation::Stop => "stop",
                    ServiceOperation::Restart => "restart",
                    ServiceOperation::Reload => "reload",
                };
                on_target(format!("systemctl {op} {}", quote(service)))
            }
            ControlArgs::Guest { operation, .. } => {
                let op = match operation {
                    GuestOperation::Start => "start",
                    GuestOperation::Stop => "stop",
                    GuestOperation::Shutdown => "shutdown",
                    GuestOperation::Reboot => "reboot",
                };
                let tool = match kind {
                    Some(ResourceKind::Lxc) => "pct",
                    _ => "qm",
                };
                on_parent(format!("{tool} {op} {}", quote(uid)))
            }
            ControlArgs::Command { command, .. } => on_target(command.clone()),
        },
        ToolCall::Docker(args) => {
            let name = quote(uid);
            match args {
                DockerArgs::List { .. } => on_target("docker ps -a --format '{{json .}}'".into()),
                DockerArgs::Stats { .. } if kind == Some(ResourceKind::DockerContainer) => {
                    on_parent(format!("docker stats --no-stream --format '{{{{json .}}}}' {name}"))
                }
                DockerArgs::Stats { .. } => on_target("docker stats --no-stream --format '{{json .}}'".into()),
                DockerArgs::Logs { lines, .. } => on_parent(docker_logs(uid, lines.unwrap_or(100), "")),
                DockerArgs::Inspect { .. } => on_parent(format!("docker inspect {name}")),
                DockerArgs::Control { operation, .. } => {
                    let op = match operation {
                        ContainerOperation::Start => "start",
                        ContainerOperation::Stop => "stop",
                        ContainerOperation::Restart => "restart",
                        ContainerOperation::Pause => "pause",
                        ContainerOperation::Unpause => "unpause",
                    };
                    on_parent(format!("docker {op} {name}"))
                }
                DockerArgs::Update { .. } => on_parent(format!(
                    "docker pull \"$(docker inspect --format '{{{{.Config.Image}}}}' {name})\" && docker restart {name}"
                )),
            }
        }
        ToolCall::Snapshot(args) => {
            let tool = match kind {
                Some(ResourceKind::Lxc) => "pct",
                _ => "qm",
            };
            on_parent(match args {
                SnapshotArgs::List { .. } => format!("{tool} listsnapshot {}", quote(uid)),
                SnapshotArgs::Create { name, description, .. } => {
                    let description = description
                        .as_ref()
                        .map(|d| format!(" --description {}", quote(d)))
                        .unwrap_or_default();
                    format!("{tool} snapshot {} {}{description}", quote(uid), quote(name))
                }
                SnapshotArgs::Rollback { name, .. } => {
                    format!("{tool} rollback {} {}", quote(uid), quote(name))
                }
            })
        }
        ToolCall::FileEdit(args) => match args {
            FileEditArgs::Read { path, .. } => on_target(format!("cat -- {}", quote(path))),
            FileEditArgs::Write { path, content, .. } => on_target(write_file_command(path, content)),
            FileEditArgs::Append { path, content, .. } => {
                let delimiter = delimiter_for(content);
                on_target(format!("cat >> {} <<'{delimiter}'\n{content}\n{delimiter}", quote(path)))
            }
            FileEditArgs::Replace { path, old, new, .. } => {
                return Plan::Replace {
                    path: path.clone(),
                    old: old.clone(),
                    new: new.clone(),
                };
            }
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_values_as_single_arguments() {
        assert_eq!(quote("nginx"), "'nginx'");
        assert_eq!(quote("it's; rm -rf /"), r"'it'\''s; rm -rf /'");
        let c = warden_policy::classify(&format!("cat -- {}", quote("$(reboot)")));
        assert!(c.read_allowed());
    }

    #[test]
    fn container_logs_merge_streams_in_time_order() {
        assert_eq!(
            docker_logs("abc", 50, ""),
            "docker logs --timestamps --tail=50 'abc' 2>&1"
        );
        assert_eq!(docker_since("1 hour ago"), "3600s");
        assert_eq!(docker_since("2 days ago"), "172800s");
        assert_eq!(docker_since("90m"), "90m");
        assert!(
            warden_policy::classify(&docker_logs("abc", 50, " --since '3600s'")).read_allowed()
        );
    }

    #[test]
    fn delimiters_avoid_the_content() {
        assert_eq!(delimiter_for("a\nb"), "WARDEN_EOF");
        assert_eq!(delimiter_for("x\nWARDEN_EOF\ny"), "WARDEN_EOF_");
    }
}
