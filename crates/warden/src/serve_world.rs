//! `warden serve --simulate FILE` (hidden; tests and demos): the inventory
//! and host answers of a replay scenario file (`spec/replay.md`) instead of
//! this machine. Nothing reaches a real host.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use warden_core::ports::{HostBackend, Inventory};

use crate::replay::scenario::Scenario;

pub fn load(path: &Path) -> Result<(Arc<dyn Inventory>, Arc<dyn HostBackend>)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let scenario = Scenario::parse(&text, &path.display().to_string())?;
    Ok((
        Arc::new(scenario.static_inventory()),
        Arc::new(scenario.simulated_hosts()?),
    ))
}
