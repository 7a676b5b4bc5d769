//! A guest's snapshots from a `snapshot list` result, newest first, in
//! either shape it comes in: the Proxmox API's (`{snapshots: [{name,
//! taken_at, description, parent, with_ram, is_current_parent}]}`), or the
//! output of `qm listsnapshot` / `pct listsnapshot` run by an agent on the
//! node (a tree, oldest first, with `current` under the snapshot the guest
//! runs from).

use serde_json::{Value, json};

/// The snapshots, newest first (`current` is not one).
pub fn snapshots(data: &Value) -> Vec<Value> {
    let mut list: Vec<Value> = match data["snapshots"].as_array() {
        Some(list) => list
            .iter()
            .filter(|s| s["name"] != json!("current"))
            .cloned()
            .collect(),
        None => from_tree(data["stdout"].as_str().unwrap_or_default()),
    };
    // Stable: a tree's snapshots (no times) stay newest first.
    list.sort_by_key(|s| std::cmp::Reverse(s["taken_at"].as_i64()));
    list
}

/// The names of the snapshots, newest first.
pub fn snapshot_names(data: &Value) -> Vec<String> {
    snapshots(data)
        .iter()
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect()
}

/// The snapshot the guest runs from, when the list says.
pub fn current_parent(data: &Value) -> Option<String> {
    snapshots(data)
        .into_iter()
        .find(|s| s["is_current_parent"] == json!(true))
        .and_then(|s| s["name"].as_str().map(str::to_string))
}

/// `qm listsnapshot` output:
///
/// ```text
/// `-> base                  2026-11-01 08:00:00     first
///  `-> before-upgrade       2026-11-23 10:30:00     manual
///   `-> current                                     You are here!
/// ```
///
/// Each line's indentation says its parent; the times are the node's local
/// time, kept as text. Newest first (the reverse of the tree).
fn from_tree(text: &str) -> Vec<Value> {
    // (indentation, name) of the snapshots above, for parents.
    let mut above: Vec<(usize, String)> = Vec::new();
    let mut list: Vec<Value> = Vec::new();
    let mut current_parent: Option<String> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let rest = line.trim_start().trim_start_matches("`->").trim();
        let mut words = rest.split_whitespace();
        let Some(name) = words.next() else {
            continue;
        };
        let parent = above
            .iter()
            .rev()
            .find(|(depth, _)| *depth < indent)
            .map(|(_, name)| name.clone());
        if name == "current" {
            current_parent = parent;
            continue;
        }
        let words: Vec<&str> = words.collect();
        let (taken, description) = match words.as_slice() {
            [date, time, rest @ ..] if looks_like_date(date) => {
                (Some(format!("{date} {time}")), rest.join(" "))
            }
            rest => (None, rest.join(" ")),
        };
        let mut snapshot = json!({"name": name, "parent": parent, "taken": taken});
        if !description.is_empty() && description != "no-description" {
            snapshot["description"] = json!(description);
        }
        above.push((indent, name.to_string()));
        list.push(snapshot);
    }
    for snapshot in &mut list {
        let is_current = current_parent.as_deref() == snapshot["name"].as_str();
        snapshot["is_current_parent"] = json!(is_current);
    }
    list.reverse();
    list
}

fn looks_like_date(word: &str) -> bool {
    word.len() == 10 && word.chars().filter(|c| *c == '-').count() == 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_shape_newest_first() {
        let data = json!({"snapshots": [
            {"name": "old", "taken_at": 1},
            {"name": "new", "taken_at": 3, "is_current_parent": true},
            {"name": "current"},
            {"name": "mid", "taken_at": 2}
        ]});
        assert_eq!(snapshot_names(&data), ["new", "mid", "old"]);
        assert_eq!(current_parent(&data).as_deref(), Some("new"));
        assert!(snapshot_names(&json!({"snapshots": []})).is_empty());
    }

    #[test]
    fn the_tree_of_qm_listsnapshot() {
        let stdout = "`-> base                 2026-11-01 08:00:00     no-description\n `-> before-upgrade     2026-11-23 10:30:00     manual snapshot\n  `-> current                                  You are here!\n";
        let data = json!({"stdout": stdout, "exit_code": 0});
        let list = snapshots(&data);
        assert_eq!(snapshot_names(&data), ["before-upgrade", "base"]);
        assert_eq!(list[0]["parent"], "base");
        assert_eq!(list[0]["taken"], "2026-11-23 10:30:00");
        assert_eq!(list[0]["description"], "manual snapshot");
        assert!(list[1].get("description").is_none());
        assert_eq!(current_parent(&data).as_deref(), Some("before-upgrade"));
        let fresh =
            json!({"stdout": "`-> current                                  You are here!\n"});
        assert!(snapshots(&fresh).is_empty());
        assert!(snapshots(&json!({"stdout": ""})).is_empty());
    }
}
