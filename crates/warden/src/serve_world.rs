//! `warden serve --simulate FILE` (hidden; tests and demos): the inventory
//! and host answers of a replay scenario file (`spec/replay.md`) instead of
//! this machine. Nothing reaches a real host.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use regex::Regex;
use warden_core::ports::{ExecOutput, HostBackend, Inventory};
use warden_core::simulated::{Answer, SimulatedHosts, StaticInventory};

use crate::replay::scenario::Scenario;

pub fn load(path: &Path) -> Result<(Arc<dyn Inventory>, Arc<dyn HostBackend>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let scenario = Scenario::parse(&text, &path.display().to_string())?;
    let inventory =
        StaticInventory::new(scenario.inventory.iter().map(|e| e.to_resource()).collect());
    let mut answers = Vec::with_capacity(scenario.exec.len());
    for (i, entry) in scenario.exec.iter().enumerate() {
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
    Ok((Arc::new(inventory), Arc::new(SimulatedHosts::new(answers))))
}
