//! Planning the Proxmox requests that need more than a name: which metric
//! series a history asks for (and what to do for a target Proxmox keeps
//! no history of), and the name of a snapshot taken on request.

use warden_protocol::{Resource, ResourceKind};

use super::resolve::{self, NameProblem};
use super::resolved::Plan;
use crate::executor::host_metrics::Metric;
use crate::executor::valid_snapshot_name;
use crate::ports::InventorySnapshot;
use crate::router::intent::{Subject, Window};
use crate::router::render::{named, utc_parts};

/// The history of a node or guest; for anything else, its current values
/// with a word on why there is no history.
pub fn history(
    inventory: &InventorySnapshot,
    metric: Option<Metric>,
    subject: Option<&Subject>,
    window: &Window,
) -> Result<Plan, NameProblem> {
    let kinds = [ResourceKind::Node, ResourceKind::Vm, ResourceKind::Lxc];
    let target = match subject {
        None => resolve::default_host(inventory)?,
        Some(subject) => match resolve::guest(inventory, subject, &kinds) {
            Ok(target) => target,
            // "memory of web1 this week" for a plain host: said so below.
            Err(problem) => match (subject.said, resolve::resource(inventory, &subject.name)) {
                (None, Ok(other)) => other,
                _ => return Err(problem),
            },
        },
    };
    if kinds.contains(&target.id.kind) {
        return Ok(Plan::History {
            target,
            metrics: series_names(metric),
            window: window.clone(),
        });
    }
    Ok(Plan::Each(vec![
        Plan::Say(format!(
            "Warden keeps no history for {} ({}); Proxmox does, for its nodes and guests. These are its current values instead.",
            named(&target),
            target.id.kind.label()
        )),
        Plan::Metric {
            host: target,
            metric: metric.unwrap_or(Metric::All),
        },
    ]))
}

/// The series Proxmox names for a metric; none is every series.
fn series_names(metric: Option<Metric>) -> Vec<&'static str> {
    match metric {
        None | Some(Metric::All) => Vec::new(),
        Some(Metric::Cpu) => vec!["cpu"],
        Some(Metric::Memory) => vec!["memory"],
        Some(Metric::Disk | Metric::DiskAll) => vec!["disk"],
        Some(Metric::Load) => vec!["load"],
        Some(Metric::Network) => vec!["netin", "netout"],
    }
}

/// A snapshot of `guest` named as asked, else after the time
/// (`snap-20261123-1030`); a name Proxmox would refuse is refused here.
pub fn take_snapshot(guest: Resource, name: Option<&str>) -> Plan {
    let name = match name {
        Some(name) => name.to_string(),
        None => {
            let now = i64::try_from(crate::router::recognise::since::now_unix()).unwrap_or(0);
            let (year, month, day, hour, minute) = utc_parts(now);
            format!("snap-{year:04}{month:02}{day:02}-{hour:02}{minute:02}")
        }
    };
    if !valid_snapshot_name(&name) {
        return Plan::Say(format!(
            "`{name}` is not a name Proxmox accepts for a snapshot: a letter, then letters, digits, `-` and `_`, 2 to 40 characters, not `current` or `vzdump`. Nothing was done."
        ));
    }
    Plan::TakeSnapshot { guest, name }
}
