//! `warden inventory`: what Warden knows exists (this machine and every
//! configured Proxmox cluster), with how each cluster's inventory went and
//! how long it took. `--json` prints one JSON object.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use serde_json::json;
use warden_protocol::{Resource, ResourceKind};

use crate::common::CommonArgs;
use warden_world::proxmox::Connected;

use crate::local::Local;

#[derive(Args)]
pub struct InventoryArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Only resources of this kind: host, node, vm, lxc, storage, docker_container, …
    #[arg(long)]
    kind: Option<ResourceKind>,
    /// One JSON object: the clusters and the resources.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &InventoryArgs) -> Result<ExitCode> {
    let local = Local::open(args.common.load()?)?;
    let world = &local.world;
    let started = Instant::now();
    let snapshot = world.backends.inventory.snapshot();
    let merge_ms = started.elapsed().as_secs_f64() * 1000.0;
    let resources: Vec<&Resource> = snapshot
        .all()
        .iter()
        .filter(|r| args.kind.is_none_or(|k| r.id.kind == k))
        .collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        let clusters: Vec<serde_json::Value> =
            world.proxmox.connected.iter().map(cluster_json).collect();
        serde_json::to_writer(
            &mut out,
            &json!({"clusters": clusters, "resources": resources, "merge_ms": merge_ms}),
        )?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for connected in &world.proxmox.connected {
        writeln!(out, "{}", cluster_line(connected))?;
    }
    let width = resources
        .iter()
        .map(|r| r.id.to_string().len())
        .max()
        .unwrap_or(2)
        .max(2);
    writeln!(
        out,
        "{:<width$}  {:<24}  {:<10}  PARENT",
        "ID", "NAME", "STATUS"
    )?;
    for r in &resources {
        writeln!(
            out,
            "{:<width$}  {:<24}  {:<10}  {}",
            r.id.to_string(),
            r.name,
            r.status.as_deref().unwrap_or("-"),
            r.parent
                .as_ref()
                .map_or("-".to_string(), ToString::to_string)
        )?;
    }
    writeln!(out, "{} resources", resources.len())?;
    Ok(ExitCode::SUCCESS)
}

fn cluster_line(connected: &Connected) -> String {
    match &connected.result {
        Ok(report) => format!(
            "proxmox `{}`: {} nodes, {} guests, {} storages in {} ms{}",
            connected.cluster,
            report.nodes,
            report.guests,
            report.storages,
            connected.elapsed.as_millis(),
            if report.skipped > 0 {
                format!(" ({} entries without identity left out)", report.skipped)
            } else {
                String::new()
            }
        ),
        Err(error) => format!("proxmox `{}`: NOT CONNECTED: {error}", connected.cluster),
    }
}

fn cluster_json(connected: &Connected) -> serde_json::Value {
    match &connected.result {
        Ok(report) => json!({
            "cluster": connected.cluster,
            "ok": true,
            "elapsed_ms": connected.elapsed.as_millis() as u64,
            "report": report,
        }),
        Err(error) => json!({
            "cluster": connected.cluster,
            "ok": false,
            "elapsed_ms": connected.elapsed.as_millis() as u64,
            "error": error,
        }),
    }
}
