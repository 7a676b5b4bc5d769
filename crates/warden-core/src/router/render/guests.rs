//! Proxmox answers: a guest's status from the inventory's copy, inventory
//! lists, a node's or guest's history, and a guest's snapshots.

use serde_json::{Map, Value, json};
use warden_protocol::{Resource, ResourceKind};

use super::format::{block, named, utc_time};
use super::result::{Res, failure};
use super::snapshot_list::snapshots;
use crate::router::intent::Window;
use crate::tools::history_text::render_history;

/// "web (vm:pve1:101) is running: VM 101 on node pve1." with its lock, HA
/// state, tags and pool, from the inventory's copy of the resource.
pub fn describe_guest(guest: &Resource, resource: &Value) -> String {
    let status = resource["status"].as_str().unwrap_or("unknown");
    let attributes = &resource["attributes"];
    let text_of = |key: &str| match &attributes[key] {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let node = text_of("node").or_else(|| {
        resource["parent"]
            .as_str()
            .map(|p| p.trim_start_matches("node:").to_string())
    });
    let what = match (text_of("vmid"), node) {
        (Some(vmid), Some(node)) => format!("{} {vmid} on node {node}", guest.id.kind.label()),
        (None, Some(node)) => format!("{} on {node}", guest.id.kind.label()),
        (vmid, None) => format!(
            "{}{}",
            guest.id.kind.label(),
            vmid.map(|v| format!(" {v}")).unwrap_or_default()
        ),
    };
    let mut lines = vec![format!("{} is {status}: {what}.", named(guest))];
    if let Some(node_status) = text_of("node_status") {
        let node = text_of("node").unwrap_or_else(|| "its node".to_string());
        lines.push(format!(
            "  node {node} is {node_status}: Proxmox cannot reach it, so it cannot say how {} is now",
            guest.name
        ));
    }
    if let Some(lock) = text_of("lock") {
        lines.push(format!(
            "  locked: {lock} (changes wait until that operation ends)"
        ));
    }
    if let Some(ha) = text_of("ha_state") {
        lines.push(format!("  HA: managed, requested state {ha}"));
    }
    if let Some(tags) = attributes["tags"].as_array().filter(|t| !t.is_empty()) {
        let tags: Vec<&str> = tags.iter().filter_map(Value::as_str).collect();
        lines.push(format!("  tags: {}", tags.join(", ")));
    }
    if let Some(pool) = text_of("pool") {
        lines.push(format!("  pool: {pool}"));
    }
    if attributes["template"] == json!(true) {
        lines.push("  a template: it never runs; clone it to use it".to_string());
    }
    lines.push("(from Warden's live copy of the inventory)".to_string());
    lines.join("\n")
}

/// The resources the `query list` calls returned, a line each.
pub fn resources_answer(kinds: &[ResourceKind], last: &[Value]) -> String {
    if let Some(failed) = last.iter().map(Res).find(|r| !r.ok()) {
        return failure("list the inventory", failed);
    }
    if last.is_empty() {
        return "Nothing came back from the inventory.".to_string();
    }
    let resources: Vec<&Value> = last
        .iter()
        .filter_map(|r| Res(r).data()["resources"].as_array())
        .flatten()
        .collect();
    let plural = if resources.len() == 1 { "" } else { "s" };
    let what = match kinds {
        [ResourceKind::Vm, ResourceKind::Lxc] => format!("guest{plural} (VMs and LXC containers)"),
        [kind] => format!("{}{plural}", kind.label()),
        _ => format!("resource{plural}"),
    };
    if resources.is_empty() {
        return format!("The inventory has no {what}.");
    }
    let mut lines = vec![format!("{} {what}:", resources.len())];
    lines.extend(resources.iter().map(|r| resource_line(r)));
    lines.join("\n")
}

/// "  vm:pve1:101  web  [running]  on node:pve1  tags prod, web  locked backup".
fn resource_line(r: &Value) -> String {
    let mut line = format!(
        "  {}  {}",
        r["id"].as_str().unwrap_or("?"),
        r["name"].as_str().unwrap_or("?")
    );
    if let Some(status) = r["status"].as_str() {
        line.push_str(&format!("  [{status}]"));
    }
    if let Some(parent) = r["parent"].as_str() {
        line.push_str(&format!("  on {parent}"));
    }
    let attributes = r["attributes"]
        .as_object()
        .cloned()
        .unwrap_or_else(Map::new);
    if let Some(tags) = attributes.get("tags").and_then(Value::as_array) {
        let tags: Vec<&str> = tags.iter().filter_map(Value::as_str).collect();
        if !tags.is_empty() {
            line.push_str(&format!("  tags {}", tags.join(", ")));
        }
    }
    if let Some(lock) = attributes.get("lock").and_then(Value::as_str) {
        line.push_str(&format!("  locked {lock}"));
    }
    line
}

/// The history the `metrics` calls returned, as one (network in and out
/// come from two calls), with what the window left out.
pub fn history_answer(target: &Resource, window: &Window, last: &[Value]) -> String {
    let what = format!("read the history of {}", named(target));
    if let Some(failed) = last.iter().map(Res).find(|r| !r.ok()) {
        return failure(&what, failed);
    }
    // Several calls (network in and out) are one history.
    let mut merged = match last.first() {
        Some(first) => Res(first).data().clone(),
        None => return format!("Nothing came back for {}.", named(target)),
    };
    let series: Vec<Value> = last
        .iter()
        .filter_map(|r| Res(r).data()["series"].as_array())
        .flatten()
        .cloned()
        .collect();
    if merged.get("series").is_some() {
        merged["series"] = Value::Array(series);
    }
    let Some(text) = render_history(&merged) else {
        return format!(
            "The history of {} came back in a form I cannot read:\n{}",
            named(target),
            block(&merged.to_string())
        );
    };
    let mut answer = text.trim_end().to_string();
    if let Some(note) = window.note() {
        answer.push('\n');
        answer.push_str(&note);
    }
    answer
}

/// "web (vm:pve1:101) has 2 snapshots, newest first:" and one line each.
pub fn snapshots_text(guest: &Resource, data: &Value) -> String {
    let list = snapshots(data);
    if list.is_empty() {
        return format!("{} has no snapshots.", named(guest));
    }
    let width = list
        .iter()
        .filter_map(|s| s["name"].as_str())
        .map(str::len)
        .max()
        .unwrap_or(0);
    let plural = if list.len() == 1 { "" } else { "s" };
    let mut lines = vec![format!(
        "{} has {} snapshot{plural}, newest first:",
        named(guest),
        list.len()
    )];
    for s in &list {
        let mut line = format!("  {:<width$}", s["name"].as_str().unwrap_or("?"));
        line.push_str(&match (s["taken_at"].as_i64(), s["taken"].as_str()) {
            (Some(at), _) => format!("  {}", utc_time(at)),
            (None, Some(local)) => format!("  {local}"),
            (None, None) => "  (no time)".to_string(),
        });
        if let Some(description) = s["description"].as_str().map(str::trim) {
            if !description.is_empty() {
                line.push_str(&format!("  \"{}\"", description.replace('\n', " ")));
            }
        }
        if let Some(parent) = s["parent"].as_str() {
            line.push_str(&format!("  parent {parent}"));
        }
        if s["with_ram"] == json!(true) {
            line.push_str("  with RAM");
        }
        if s["is_current_parent"] == json!(true) {
            line.push_str("  <- it runs from this one");
        }
        lines.push(line.trim_end().to_string());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guest_on_an_offline_node_says_so() {
        let guest = Resource::new("vm:pve2:100".parse().unwrap(), "web");
        let resource = json!({"status": "unknown", "attributes": {
            "vmid": 100, "node": "pve2", "node_status": "offline"}});
        let text = describe_guest(&guest, &resource);
        assert!(
            text.contains(
                "node pve2 is offline: Proxmox cannot reach it, so it cannot say how web is now"
            ),
            "{text}"
        );
        let online = json!({"status": "running", "attributes": {"vmid": 100, "node": "pve2"}});
        assert!(!describe_guest(&guest, &online).contains("offline"));
    }
}
