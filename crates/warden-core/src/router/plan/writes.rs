//! Planning a change: which route a verb takes on what a name resolved to
//! (a service, a container, a guest), and the refusals: a reload of a
//! container or guest, a force stop of anything but a guest, and any
//! change of a whole host or node from a one-line request.

use warden_protocol::ResourceKind;

use super::resolve::Target;
use super::resolved::Plan;
use crate::router::intent::ControlOp;

/// "kill nginx": only guests are stopped without a clean shutdown. `what`
/// is what the name is, when the inventory knows it.
fn only_for_guests(operation: ControlOp, name: &str, what: Option<&str>) -> Plan {
    let known = match what {
        Some(what) => format!("{name} is a {what}"),
        None => format!("I know no VM or LXC called {name}"),
    };
    Plan::Say(format!(
        "A {} is for VMs and LXC containers, and {known}. To stop a service or a container, say \"stop {name}\"; nothing was done.",
        operation.as_str()
    ))
}

/// The plan for `operation` on a resolved target.
pub fn control(operation: ControlOp, target: Target) -> Plan {
    let r = match target {
        Target::Service { host, name } => {
            return match operation.for_services() {
                Some(operation) => Plan::ServiceControl {
                    host,
                    service: name,
                    operation,
                },
                None => only_for_guests(operation, &name, None),
            };
        }
        Target::Resource(r) => r,
    };
    match r.id.kind {
        ResourceKind::DockerContainer if operation == ControlOp::Reload => Plan::Say(format!(
            "A container cannot be reloaded; ask to restart {} instead.",
            r.name
        )),
        ResourceKind::DockerContainer => match operation.for_services() {
            Some(operation) => Plan::ContainerControl {
                container: r,
                operation,
            },
            None => only_for_guests(operation, &r.name, Some("Docker container")),
        },
        ResourceKind::Vm | ResourceKind::Lxc if operation == ControlOp::Reload => {
            Plan::Say(format!(
                "A guest cannot be reloaded; ask to restart {} instead.",
                r.name
            ))
        }
        ResourceKind::Vm | ResourceKind::Lxc => Plan::GuestControl {
            guest: r,
            operation,
        },
        ResourceKind::Host
        | ResourceKind::Node
        | ResourceKind::DockerHost
        | ResourceKind::K8sCluster
        | ResourceKind::K8sNode
        | ResourceKind::K8sPod
        | ResourceKind::Storage => Plan::Say(format!(
            "I won't {} {} ({}) from a one-line request: that takes down everything on it. If you mean a service on it, say \"{} <service> on {}\".",
            operation.as_str(),
            r.name,
            r.id.kind.label(),
            operation.as_str(),
            r.name
        )),
    }
}
