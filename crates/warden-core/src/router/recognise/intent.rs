//! What a request asks for, as the router understands it: the [`Intent`]
//! and its parts, and which stage recognised it. Names are kept as typed;
//! resolving them is the planner's job.

use warden_protocol::ResourceKind;

pub use super::endpoint::Endpoint;
use super::since::Since;
pub use super::window::Window;
use crate::executor::host_metrics::Metric;

/// Which stage recognised the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    FastPath,
    Heuristic,
    Parser,
    /// Handed to the configured model.
    Llm,
    /// Nothing matched and no model is configured.
    Unmatched,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::FastPath => "fast_path",
            Stage::Heuristic => "heuristic",
            Stage::Parser => "parser",
            Stage::Llm => "llm",
            Stage::Unmatched => "unmatched",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlOp {
    Start,
    Stop,
    Restart,
    Reload,
    /// A guest's clean shutdown, left running when it does not finish.
    Shutdown,
    /// A guest's reboot (for services and containers: a restart).
    Reboot,
    /// A guest stopped at once, without a clean shutdown ("kill", "force stop").
    ForceStop,
}

impl ControlOp {
    /// The verb as typed (whitespace between words is one space).
    pub fn parse(word: &str) -> Option<ControlOp> {
        let word = word.split_whitespace().collect::<Vec<_>>().join(" ");
        match word.as_str() {
            "start" => Some(ControlOp::Start),
            "stop" => Some(ControlOp::Stop),
            "restart" | "bounce" => Some(ControlOp::Restart),
            "reload" => Some(ControlOp::Reload),
            "shutdown" | "shut down" => Some(ControlOp::Shutdown),
            "reboot" => Some(ControlOp::Reboot),
            "kill" | "force stop" | "force-stop" | "hard stop" => Some(ControlOp::ForceStop),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ControlOp::Start => "start",
            ControlOp::Stop => "stop",
            ControlOp::Restart => "restart",
            ControlOp::Reload => "reload",
            ControlOp::Shutdown => "shut down",
            ControlOp::Reboot => "reboot",
            ControlOp::ForceStop => "force stop",
        }
    }

    /// "restarted", for answers.
    pub fn past(self) -> &'static str {
        match self {
            ControlOp::Start => "started",
            ControlOp::Stop => "stopped",
            ControlOp::Restart => "restarted",
            ControlOp::Reload => "reloaded",
            ControlOp::Shutdown => "shut down",
            ControlOp::Reboot => "rebooted",
            ControlOp::ForceStop => "force-stopped",
        }
    }

    /// The operation on a service or a container, which have no shutdown
    /// or reboot of their own; `None` for a force stop (only guests have one).
    pub fn for_services(self) -> Option<ControlOp> {
        match self {
            ControlOp::Start | ControlOp::Stop | ControlOp::Restart | ControlOp::Reload => {
                Some(self)
            }
            ControlOp::Shutdown => Some(ControlOp::Stop),
            ControlOp::Reboot => Some(ControlOp::Restart),
            ControlOp::ForceStop => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListWhat {
    Services,
    Containers,
    /// VMs and LXC containers.
    Guests,
    Resources(Option<ResourceKind>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsRequest {
    /// A service, container or guest; `None` is the system log.
    pub subject: Option<String>,
    pub on: Option<String>,
    pub lines: u32,
    /// Only lines containing this (case-insensitive).
    pub filter: Option<String>,
    pub since: Option<Since>,
}

/// What the words of a request said a subject is ("the cache *container*").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectKind {
    Service,
    /// A Docker container, else an LXC container.
    Container,
    /// A VM or an LXC container.
    Guest,
    Vm,
    Lxc,
}

impl SubjectKind {
    pub fn parse(word: &str) -> Option<SubjectKind> {
        let word = word.split_whitespace().collect::<Vec<_>>().join(" ");
        match word.trim_end_matches('s') {
            "service" | "daemon" | "unit" => Some(SubjectKind::Service),
            "container" | "docker container" => Some(SubjectKind::Container),
            "guest" | "virtual machine" => Some(SubjectKind::Guest),
            "vm" | "qemu vm" => Some(SubjectKind::Vm),
            "lxc" | "ct" | "lxc container" => Some(SubjectKind::Lxc),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            SubjectKind::Service => "service",
            SubjectKind::Container => "container",
            SubjectKind::Guest => "guest (VM or LXC)",
            SubjectKind::Vm => "VM",
            SubjectKind::Lxc => "LXC container",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessOrder {
    Cpu,
    Memory,
}

/// A host fact a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    TopProcesses(ProcessOrder),
    /// Listening sockets, optionally only one port.
    Ports {
        port: Option<u16>,
    },
    Sessions,
    Kernel,
    Updates,
    FailedUnits,
}

impl Fact {
    pub fn name(self) -> &'static str {
        match self {
            Fact::TopProcesses(_) => "top_processes",
            Fact::Ports { .. } => "open_ports",
            Fact::Sessions => "logged_in",
            Fact::Kernel => "kernel",
            Fact::Updates => "updates",
            Fact::FailedUnits => "failed_units",
        }
    }
}

/// A named thing in a request, with what the words said it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    pub name: String,
    pub on: Option<String>,
    pub said: Option<SubjectKind>,
}

impl Subject {
    pub fn new(name: impl Into<String>, on: Option<String>, said: Option<SubjectKind>) -> Self {
        Subject {
            name: name.into(),
            on,
            said,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    Status(Subject),
    Metric {
        metric: Metric,
        on: Option<String>,
    },
    Logs(LogsRequest),
    List {
        what: ListWhat,
        on: Option<String>,
    },
    Control {
        operation: ControlOp,
        subject: Subject,
    },
    /// Top processes, open ports, who is logged in, kernel, updates, failed units.
    Fact {
        fact: Fact,
        on: Option<String>,
    },
    /// Errors in the system log, host-wide.
    Errors {
        since: Option<Since>,
        on: Option<String>,
    },
    /// TLS certificate expiry of an endpoint, checked from `on`.
    Certificate {
        endpoint: Endpoint,
        on: Option<String>,
    },
    /// Why a container or service exited.
    WhyExit(Subject),
    /// A Proxmox node's or guest's history over a window ("memory of web
    /// this week"); `metric` `None` is every metric, `subject` `None` this
    /// machine.
    History {
        metric: Option<Metric>,
        subject: Option<Subject>,
        window: Window,
    },
    /// A guest's snapshots.
    Snapshots(Subject),
    /// Take a snapshot of a guest, named as asked or after the time.
    TakeSnapshot {
        subject: Subject,
        name: Option<String>,
    },
    /// Roll a guest back to one of its snapshots.
    Rollback {
        subject: Subject,
        snapshot: String,
    },
    /// The same request for several subjects ("stop A and B"): one plan each.
    Each(Vec<Intent>),
    Remember {
        note: String,
    },
    Recall {
        query: String,
    },
    /// What Warden's command policy says about a command.
    Explain {
        command: String,
    },
    /// The request is a shell command: run it (read tool if read-only,
    /// otherwise the control tool, which asks for approval), on the host
    /// or guest it is aimed at, else this machine.
    Run {
        command: String,
        on: Option<String>,
    },
    Help,
}

impl Intent {
    /// A short name for logs, `--verbose` and `warden explain`.
    pub fn name(&self) -> &'static str {
        match self {
            Intent::Status(_) => "status",
            Intent::Metric { .. } => "metric",
            Intent::Logs(_) => "logs",
            Intent::List { .. } => "list",
            Intent::Control { .. } => "control",
            Intent::Fact { fact, .. } => fact.name(),
            Intent::Errors { .. } => "errors",
            Intent::Certificate { .. } => "certificate",
            Intent::WhyExit(_) => "why_exit",
            Intent::History { .. } => "history",
            Intent::Snapshots(_) => "snapshots",
            Intent::TakeSnapshot { .. } => "take_snapshot",
            Intent::Rollback { .. } => "rollback",
            Intent::Each(parts) => parts.first().map_or("each", Intent::name),
            Intent::Remember { .. } => "remember",
            Intent::Recall { .. } => "recall",
            Intent::Explain { .. } => "explain",
            Intent::Run { .. } => "run",
            Intent::Help => "help",
        }
    }

    /// Whether carrying it out changes something.
    pub fn writes(&self) -> bool {
        match self {
            Intent::Control { .. }
            | Intent::Remember { .. }
            | Intent::TakeSnapshot { .. }
            | Intent::Rollback { .. } => true,
            Intent::Each(parts) => parts.iter().any(Intent::writes),
            Intent::Status(_)
            | Intent::Metric { .. }
            | Intent::Logs(_)
            | Intent::List { .. }
            | Intent::Fact { .. }
            | Intent::Errors { .. }
            | Intent::Certificate { .. }
            | Intent::WhyExit(_)
            | Intent::History { .. }
            | Intent::Snapshots(_)
            | Intent::Recall { .. }
            | Intent::Explain { .. }
            | Intent::Run { .. }
            | Intent::Help => false,
        }
    }
}

/// A recognised request: the stage, the intent, and what matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recognised {
    pub stage: Stage,
    pub intent: Intent,
    /// The pattern, parse or keywords that matched, for `warden explain`.
    pub evidence: String,
}

/// Default number of log lines.
pub const DEFAULT_LOG_LINES: u32 = 50;
/// Most log lines a route asks for.
pub const MAX_LOG_LINES: u32 = 2000;
