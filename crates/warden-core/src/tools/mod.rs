//! The tool catalogue: names, JSON Schemas, parsing and validation of a
//! proposed call, and its classification (resolve, read or write).
//! Unknown tools and actions are writes; arguments only the system may set
//! are refused, never honoured.

use schemars::{JsonSchema, Schema, schema_for};
use serde::de::DeserializeOwned;
use serde_json::Value;
use warden_protocol::ToolKind;

pub mod args;
pub mod history_text;
mod model_schema;

pub use model_schema::{flatten, model_tools};

use args::*;

/// Argument names that only Warden itself sets (approvals, confirmations).
/// A model that sends one is refused: an approval is never taken from it.
pub const SYSTEM_ONLY_ARGUMENTS: &[&str] = &[
    "_approval_id",
    "approval_id",
    "_approved",
    "approved",
    "_confirmed",
    "confirmed",
    "_force",
    "_bypass",
    "_skip_approval",
    "_level",
    "_control_level",
];

/// A validated tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCall {
    Query(QueryArgs),
    Discovery(DiscoveryArgs),
    Read(ReadArgs),
    Metrics(MetricsArgs),
    Storage(StorageArgs),
    Kubernetes(KubernetesArgs),
    Control(ControlArgs),
    Docker(DockerArgs),
    Alerts(AlertsArgs),
    Knowledge(KnowledgeArgs),
    FileEdit(FileEditArgs),
    Snapshot(SnapshotArgs),
}

/// Why a proposed call was refused before anything ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    #[error("argument `{0}` is set by Warden only and is never taken from the model")]
    SystemOnlyArgument(String),
    #[error("arguments must be a JSON object, got {0}")]
    NotAnObject(&'static str),
    #[error("invalid arguments for `{tool}`: {message}")]
    Invalid {
        tool: String,
        /// The failing field, when the error names one.
        field: Option<String>,
        message: String,
    },
}

/// One entry of the catalogue, as offered to the model.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Schema,
}

pub const TOOL_NAMES: [&str; 12] = [
    "query",
    "discovery",
    "read",
    "metrics",
    "storage",
    "kubernetes",
    "control",
    "docker",
    "alerts",
    "knowledge",
    "file_edit",
    "snapshot",
];

/// The catalogue with generated schemas.
pub fn catalogue() -> Vec<ToolSpec> {
    fn spec<T: JsonSchema>(name: &'static str, description: &'static str) -> ToolSpec {
        ToolSpec {
            name,
            description,
            schema: schema_for!(T),
        }
    }
    vec![
        spec::<QueryArgs>(
            "query",
            "Find resources: search, get one (by id, name or alias), list, topology, health.",
        ),
        spec::<DiscoveryArgs>(
            "discovery",
            "Services, ports, config and log paths, bind mounts and routing chain of a resource.",
        ),
        spec::<ReadArgs>(
            "read",
            "Read-only access: run a provably read-only bounded command, read, find or tail a file, read logs.",
        ),
        spec::<MetricsArgs>(
            "metrics",
            "Current CPU, memory, disk and network of a resource; with `range` (hour, day, week, month, year) the history of a Proxmox node or guest: min, average, max and latest per metric.",
        ),
        spec::<StorageArgs>(
            "storage",
            "Storage pools with usage, disks (SMART), and backups (the newest backup of each guest and its age).",
        ),
        spec::<KubernetesArgs>(
            "kubernetes",
            "Pods, deployments, events and logs of a Kubernetes cluster.",
        ),
        spec::<ControlArgs>(
            "control",
            "Change things: start/stop/shutdown/reboot a VM or LXC, start/stop/restart services, run a command. Needs approval.",
        ),
        spec::<DockerArgs>(
            "docker",
            "Containers: list, logs, inspect, stats; control and update need approval.",
        ),
        spec::<AlertsArgs>(
            "alerts",
            "Alerts and findings; acknowledge, resolve or dismiss them.",
        ),
        spec::<KnowledgeArgs>(
            "knowledge",
            "Recall or remember notes about the infrastructure.",
        ),
        spec::<FileEditArgs>(
            "file_edit",
            "Read a file, or write, append to or replace text in it (needs approval).",
        ),
        spec::<SnapshotArgs>(
            "snapshot",
            "Snapshots of a Proxmox VM or LXC: list; create and rollback need approval (a rollback loses every change since).",
        ),
    ]
}

fn parse_as<T: DeserializeOwned>(tool: &str, arguments: &Value) -> Result<T, CallError> {
    serde_json::from_value(arguments.clone()).map_err(|error| {
        let message = error.to_string();
        CallError::Invalid {
            tool: tool.to_string(),
            field: field_named_in(&message),
            message,
        }
    })
}

/// serde names the field in backquotes: "missing field `target`".
fn field_named_in(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_string())
}

impl ToolCall {
    /// Validate a proposed call against its tool's schema.
    pub fn parse(tool: &str, arguments: &Value) -> Result<ToolCall, CallError> {
        let object = match arguments {
            Value::Object(map) => map,
            Value::Null => return Err(CallError::NotAnObject("null")),
            Value::Bool(_) => return Err(CallError::NotAnObject("a boolean")),
            Value::Number(_) => return Err(CallError::NotAnObject("a number")),
            Value::String(_) => return Err(CallError::NotAnObject("a string")),
            Value::Array(_) => return Err(CallError::NotAnObject("an array")),
        };
        if let Some(raw) = object.get(warden_llm::types::MALFORMED_ARGUMENTS) {
            let raw = raw.as_str().unwrap_or_default();
            let excerpt: String = raw.chars().take(200).collect();
            return Err(CallError::Invalid {
                tool: tool.to_string(),
                field: None,
                message: format!(
                    "the arguments are not valid JSON (`{excerpt}`); send one JSON object"
                ),
            });
        }
        if let Some(key) = object
            .keys()
            .find(|k| SYSTEM_ONLY_ARGUMENTS.contains(&k.as_str()))
        {
            return Err(CallError::SystemOnlyArgument(key.clone()));
        }
        Ok(match tool {
            "query" => ToolCall::Query(parse_as(tool, arguments)?),
            "discovery" => ToolCall::Discovery(parse_as(tool, arguments)?),
            "read" => ToolCall::Read(parse_as(tool, arguments)?),
            "metrics" => ToolCall::Metrics(parse_as(tool, arguments)?),
            "storage" => ToolCall::Storage(parse_as(tool, arguments)?),
            "kubernetes" => ToolCall::Kubernetes(parse_as(tool, arguments)?),
            "control" => ToolCall::Control(parse_as(tool, arguments)?),
            "docker" => ToolCall::Docker(parse_as(tool, arguments)?),
            "alerts" => ToolCall::Alerts(parse_as(tool, arguments)?),
            "knowledge" => ToolCall::Knowledge(parse_as(tool, arguments)?),
            "file_edit" => ToolCall::FileEdit(parse_as(tool, arguments)?),
            "snapshot" => ToolCall::Snapshot(parse_as(tool, arguments)?),
            other => return Err(CallError::UnknownTool(other.to_string())),
        })
    }

    pub fn name(&self) -> &'static str {
        match self {
            ToolCall::Query(_) => "query",
            ToolCall::Discovery(_) => "discovery",
            ToolCall::Read(_) => "read",
            ToolCall::Metrics(_) => "metrics",
            ToolCall::Storage(_) => "storage",
            ToolCall::Kubernetes(_) => "kubernetes",
            ToolCall::Control(_) => "control",
            ToolCall::Docker(_) => "docker",
            ToolCall::Alerts(_) => "alerts",
            ToolCall::Knowledge(_) => "knowledge",
            ToolCall::FileEdit(_) => "file_edit",
            ToolCall::Snapshot(_) => "snapshot",
        }
    }

    /// Resolve, read or write, by tool and action.
    pub fn kind(&self) -> ToolKind {
        match self {
            ToolCall::Query(_) | ToolCall::Discovery(_) => ToolKind::Resolve,
            ToolCall::Read(_)
            | ToolCall::Metrics(_)
            | ToolCall::Storage(_)
            | ToolCall::Kubernetes(_) => ToolKind::Read,
            ToolCall::Control(_) => ToolKind::Write,
            ToolCall::Docker(args) => match args {
                DockerArgs::List { .. }
                | DockerArgs::Logs { .. }
                | DockerArgs::Inspect { .. }
                | DockerArgs::Stats { .. } => ToolKind::Read,
                DockerArgs::Control { .. } | DockerArgs::Update { .. } => ToolKind::Write,
            },
            ToolCall::Alerts(args) => match args {
                AlertsArgs::List {} | AlertsArgs::Findings {} => ToolKind::Read,
                AlertsArgs::Acknowledge { .. }
                | AlertsArgs::Resolve { .. }
                | AlertsArgs::Dismiss { .. } => ToolKind::Write,
            },
            ToolCall::Knowledge(args) => match args {
                KnowledgeArgs::Recall { .. } => ToolKind::Read,
                KnowledgeArgs::Remember { .. } => ToolKind::Write,
            },
            ToolCall::FileEdit(args) => match args {
                FileEditArgs::Read { .. } => ToolKind::Read,
                FileEditArgs::Write { .. }
                | FileEditArgs::Append { .. }
                | FileEditArgs::Replace { .. } => ToolKind::Write,
            },
            ToolCall::Snapshot(args) => match args {
                SnapshotArgs::List { .. } => ToolKind::Read,
                SnapshotArgs::Create { .. } | SnapshotArgs::Rollback { .. } => ToolKind::Write,
            },
        }
    }

    /// The resource the call acts on, as the model named it.
    pub fn target(&self) -> Option<&str> {
        match self {
            ToolCall::Query(QueryArgs::Get { target })
            | ToolCall::Discovery(DiscoveryArgs::Get { target }) => Some(target),
            ToolCall::Query(QueryArgs::Health { target }) => target.as_deref(),
            ToolCall::Query(_) => None,
            ToolCall::Read(args) => Some(match args {
                ReadArgs::Exec { target, .. }
                | ReadArgs::File { target, .. }
                | ReadArgs::Find { target, .. }
                | ReadArgs::Tail { target, .. }
                | ReadArgs::Logs { target, .. } => target,
            }),
            ToolCall::Metrics(args) => Some(&args.target),
            ToolCall::Storage(args) => args.target.as_deref(),
            ToolCall::Kubernetes(args) => args.target.as_deref(),
            ToolCall::Control(args) => Some(match args {
                ControlArgs::Guest { target, .. }
                | ControlArgs::Service { target, .. }
                | ControlArgs::Command { target, .. } => target,
            }),
            ToolCall::Docker(args) => match args {
                DockerArgs::List { target } | DockerArgs::Stats { target } => target.as_deref(),
                DockerArgs::Logs { target, .. }
                | DockerArgs::Inspect { target }
                | DockerArgs::Control { target, .. }
                | DockerArgs::Update { target } => Some(target),
            },
            ToolCall::Alerts(_) => None,
            ToolCall::Knowledge(
                KnowledgeArgs::Recall { target, .. } | KnowledgeArgs::Remember { target, .. },
            ) => target.as_deref(),
            ToolCall::FileEdit(args) => Some(match args {
                FileEditArgs::Read { target, .. }
                | FileEditArgs::Write { target, .. }
                | FileEditArgs::Append { target, .. }
                | FileEditArgs::Replace { target, .. } => target,
            }),
            ToolCall::Snapshot(
                SnapshotArgs::List { target }
                | SnapshotArgs::Create { target, .. }
                | SnapshotArgs::Rollback { target, .. },
            ) => Some(target),
        }
    }
}

/// The kind of a proposed call, before or without validation: unknown tools
/// and unknown actions are writes (DESIGN invariant 5).
pub fn classify_call(tool: &str, arguments: &Value) -> ToolKind {
    ToolCall::parse(tool, arguments).map_or(ToolKind::Write, |call| call.kind())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_are_action_aware() {
        let cases = [
            (
                "query",
                json!({"action": "get", "target": "web1"}),
                ToolKind::Resolve,
            ),
            (
                "discovery",
                json!({"action": "get", "target": "web1"}),
                ToolKind::Resolve,
            ),
            (
                "read",
                json!({"action": "exec", "target": "web1", "command": "uptime"}),
                ToolKind::Read,
            ),
            ("metrics", json!({"target": "web1"}), ToolKind::Read),
            (
                "control",
                json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
                ToolKind::Write,
            ),
            (
                "docker",
                json!({"action": "logs", "target": "web"}),
                ToolKind::Read,
            ),
            (
                "docker",
                json!({"action": "control", "target": "web", "operation": "restart"}),
                ToolKind::Write,
            ),
            ("alerts", json!({"action": "list"}), ToolKind::Read),
            (
                "alerts",
                json!({"action": "dismiss", "id": "a1"}),
                ToolKind::Write,
            ),
            (
                "knowledge",
                json!({"action": "recall", "query": "x"}),
                ToolKind::Read,
            ),
            (
                "knowledge",
                json!({"action": "remember", "note": "x"}),
                ToolKind::Write,
            ),
            (
                "file_edit",
                json!({"action": "read", "target": "h", "path": "/etc/x"}),
                ToolKind::Read,
            ),
            (
                "file_edit",
                json!({"action": "append", "target": "h", "path": "/etc/x", "content": "y"}),
                ToolKind::Write,
            ),
            (
                "snapshot",
                json!({"action": "list", "target": "web"}),
                ToolKind::Read,
            ),
            (
                "snapshot",
                json!({"action": "create", "target": "web", "name": "before"}),
                ToolKind::Write,
            ),
            (
                "snapshot",
                json!({"action": "rollback", "target": "web", "name": "before"}),
                ToolKind::Write,
            ),
            (
                "metrics",
                json!({"target": "pve1", "range": "week", "max_points": 60}),
                ToolKind::Read,
            ),
            // Unknown tools and actions are writes.
            (
                "snapshot",
                json!({"action": "delete", "target": "web"}),
                ToolKind::Write,
            ),
            ("shell", json!({"command": "ls"}), ToolKind::Write),
            ("docker", json!({"action": "prune"}), ToolKind::Write),
            (
                "alerts",
                json!({"action": "snooze", "id": "a"}),
                ToolKind::Write,
            ),
        ];
        for (tool, args, kind) in cases {
            assert_eq!(classify_call(tool, &args), kind, "{tool} {args}");
        }
    }

    #[test]
    fn invalid_input_names_the_field() {
        let err =
            ToolCall::parse("read", &json!({"action": "exec", "target": "web1"})).unwrap_err();
        assert!(
            matches!(&err, CallError::Invalid { field: Some(f), .. } if f == "command"),
            "{err}"
        );
        let err = ToolCall::parse(
            "read",
            &json!({"action": "exec", "target": "h", "command": "ls", "sudo": true}),
        )
        .unwrap_err();
        assert!(
            matches!(&err, CallError::Invalid { field: Some(f), .. } if f == "sudo"),
            "{err}"
        );
        let err = ToolCall::parse(
            "control",
            &json!({"action": "guest", "target": "vm", "operation": "destroy"}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("destroy"), "{err}");
        assert!(matches!(
            ToolCall::parse("query", &json!("get web1")),
            Err(CallError::NotAnObject("a string"))
        ));
    }

    #[test]
    fn system_only_arguments_are_refused() {
        for key in ["_approval_id", "approval_id", "_confirmed"] {
            let mut args = json!({"action": "service", "target": "w", "service": "nginx", "operation": "restart"});
            args[key] = json!("appr-1");
            assert_eq!(
                ToolCall::parse("control", &args),
                Err(CallError::SystemOnlyArgument(key.to_string()))
            );
        }
    }

    #[test]
    fn malformed_model_json_is_invalid_input_with_the_text() {
        let err = ToolCall::parse(
            "read",
            &serde_json::json!({"_malformed_arguments": "{\"action\": \"exec\", \"tar"}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
        assert!(err.to_string().contains("\"tar"), "{err}");
    }

    #[test]
    fn catalogue_has_a_schema_per_tool() {
        let catalogue = catalogue();
        let names: Vec<&str> = catalogue.iter().map(|t| t.name).collect();
        assert_eq!(names, TOOL_NAMES);
        for tool in &catalogue {
            let schema = serde_json::to_value(&tool.schema).unwrap();
            assert!(schema.is_object(), "{}", tool.name);
        }
        let read = serde_json::to_string(&catalogue[2].schema).unwrap();
        assert!(
            read.contains("\"exec\"") && read.contains("command"),
            "{read}"
        );
    }

    #[test]
    fn history_ranges_take_common_spellings_and_refuse_the_rest() {
        for (text, range) in [
            ("hour", HistoryRange::Hour),
            ("24h", HistoryRange::Day),
            ("7d", HistoryRange::Week),
            ("this_week", HistoryRange::Week),
            ("30d", HistoryRange::Month),
            ("1y", HistoryRange::Year),
        ] {
            let call =
                ToolCall::parse("metrics", &json!({"target": "web", "range": text})).unwrap();
            assert!(
                matches!(&call, ToolCall::Metrics(MetricsArgs { range: Some(r), .. }) if *r == range),
                "{text}"
            );
        }
        let err = ToolCall::parse("metrics", &json!({"target": "web", "range": "fortnight"}))
            .unwrap_err();
        assert!(matches!(&err, CallError::Invalid { .. }));
        assert!(err.to_string().contains("fortnight"), "{err}");
    }

    #[test]
    fn targets() {
        let call = ToolCall::parse(
            "file_edit",
            &json!({"action": "append", "target": "delly", "path": "/x", "content": "y"}),
        )
        .unwrap();
        assert_eq!(call.target(), Some("delly"));
        assert_eq!(call.name(), "file_edit");
        let call = ToolCall::parse("query", &json!({"action": "list", "kind": "lxc"})).unwrap();
        assert_eq!(call.target(), None);
    }
}
