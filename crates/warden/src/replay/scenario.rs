//! The replay scenario file (`shared/spec/replay.md`): parsing and checks.
//! Unknown top-level keys are errors, except `expect` and `description`.

use anyhow::{Context, Result, bail};
use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use warden_core::agent::provider::{ModelReply, ProposedToolCall};
use warden_core::executor::snapshot_first::{SnapshotMode, SnapshotPolicy};
use warden_core::ports::ExecOutput;
use warden_core::simulated::{Answer, SimulatedHosts, StaticInventory};
use warden_protocol::{ControlLevel, Resource, ResourceId};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// Free text for people; accepted and ignored.
    #[serde(default)]
    #[allow(dead_code)]
    pub description: Option<String>,
    #[serde(default)]
    pub control_level: ControlLevel,
    #[serde(default = "yes")]
    pub strict_resolution: bool,
    #[serde(default)]
    pub approvals: ApprovalMode,
    #[serde(default)]
    pub inventory: Vec<InventoryEntry>,
    #[serde(default)]
    pub exec: Vec<ExecEntry>,
    /// Snapshot first before approved changes to guests (default: never in
    /// replay, so transcripts show only what the scenario's calls send).
    #[serde(default)]
    pub proxmox_snapshots: Option<ReplaySnapshots>,
    pub turns: Vec<TurnEntry>,
    /// Used by external checkers; accepted and ignored here.
    #[serde(default)]
    #[allow(dead_code)]
    pub expect: Option<Value>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    Approve,
    Deny,
    #[default]
    Pending,
}

/// `proxmox_snapshots:` as in the config file's `[proxmox_snapshots]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplaySnapshots {
    pub default: SnapshotMode,
    #[serde(default)]
    pub per_tag: std::collections::BTreeMap<String, SnapshotMode>,
}

impl Scenario {
    pub fn snapshot_policy(&self) -> SnapshotPolicy {
        self.proxmox_snapshots
            .as_ref()
            .map_or_else(SnapshotPolicy::never, |s| SnapshotPolicy {
                default: s.default,
                per_tag: s.per_tag.clone(),
            })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InventoryEntry {
    pub id: ResourceId,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub parent: Option<ResourceId>,
    #[serde(default)]
    pub status: Option<String>,
    /// Proxmox tags (for `proxmox_snapshots.per_tag`).
    #[serde(default)]
    pub tags: Vec<String>,
}

impl InventoryEntry {
    pub fn to_resource(&self) -> Resource {
        let mut attributes = serde_json::Map::new();
        if !self.tags.is_empty() {
            attributes.insert("tags".into(), serde_json::json!(self.tags));
        }
        Resource {
            id: self.id.clone(),
            name: self.name.clone(),
            aliases: self.aliases.clone(),
            parent: self.parent.clone(),
            status: self.status.clone(),
            attributes,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecEntry {
    #[serde(default)]
    pub target: Option<ResourceId>,
    #[serde(rename = "match")]
    pub pattern: String,
    #[serde(default)]
    pub stdout: String,
    #[serde(default)]
    pub stderr: String,
    #[serde(default)]
    pub exit_code: i32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnEntry {
    pub user: String,
    #[serde(default)]
    pub model: Vec<ModelEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCallEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallEntry {
    pub name: String,
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl Scenario {
    /// The scenario's resources, as an inventory.
    pub fn static_inventory(&self) -> StaticInventory {
        StaticInventory::new(self.inventory.iter().map(|e| e.to_resource()).collect())
    }

    /// The scenario's `exec` table, as hosts that answer from it.
    pub fn simulated_hosts(&self) -> Result<SimulatedHosts> {
        let mut answers = Vec::with_capacity(self.exec.len());
        for (i, entry) in self.exec.iter().enumerate() {
            let regex = Regex::new(&entry.pattern)
                .with_context(|| format!("exec[{i}].match is not a valid regular expression"))?;
            answers.push(Answer {
                target: entry.target.clone(),
                matches: Box::new(move |command: &str| regex.is_match(command)),
                output: ExecOutput {
                    stdout: entry.stdout.clone(),
                    stderr: entry.stderr.clone(),
                    exit_code: entry.exit_code,
                    truncated: false,
                },
            });
        }
        Ok(SimulatedHosts::new(answers))
    }

    pub fn parse(text: &str, origin: &str) -> Result<Scenario> {
        let scenario: Scenario =
            serde_norway::from_str(text).with_context(|| format!("{origin}: invalid scenario"))?;
        if scenario.name.trim().is_empty() {
            bail!("{origin}: `name` is empty");
        }
        for (i, entry) in scenario.inventory.iter().enumerate() {
            if let Some(parent) = &entry.parent {
                if !scenario.inventory.iter().any(|e| &e.id == parent) {
                    bail!(
                        "{origin}: inventory[{i}] (`{}`): parent `{parent}` is not in the inventory",
                        entry.id
                    );
                }
            }
        }
        for (i, turn) in scenario.turns.iter().enumerate() {
            for (j, entry) in turn.model.iter().enumerate() {
                if entry.text.is_none() && entry.tool_calls.is_empty() {
                    bail!("{origin}: turns[{i}].model[{j}] has neither `text` nor `tool_calls`");
                }
                for (k, call) in entry.tool_calls.iter().enumerate() {
                    if !call.arguments.is_object() {
                        bail!(
                            "{origin}: turns[{i}].model[{j}].tool_calls[{k}].arguments must be a mapping"
                        );
                    }
                }
            }
        }
        Ok(scenario)
    }
}

/// The scripted replies of one turn, with stable call ids.
pub fn replies(turn: &TurnEntry, turn_number: usize) -> Vec<ModelReply> {
    turn.model
        .iter()
        .enumerate()
        .map(|(i, entry)| ModelReply {
            usage: None,
            text: entry.text.clone(),
            tool_calls: entry
                .tool_calls
                .iter()
                .enumerate()
                .map(|(j, call)| {
                    ProposedToolCall::new(
                        format!("t{turn_number}-m{i}-c{j}"),
                        call.name.clone(),
                        call.arguments.clone(),
                    )
                })
                .collect(),
        })
        .collect()
}
