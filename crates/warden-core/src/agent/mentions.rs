//! Context prefetch, before the model runs: structured `@name` mentions and
//! plain names of known resources in the user's message.
//!
//! - A resolved `@mention` registers the resource (explicit, pinned) and the
//!   parents on its routing chain, and counts as discovery (the FSM leaves
//!   RESOLVING). An `@name` that matches nothing is reported as not found.
//! - A plain name that matches exactly one resource (its name or alias,
//!   a prefix of at least four characters, one of its hyphen parts, or a
//!   part of the name of at least five characters)
//!   registers it as explicitly referred to, with its routing chain, but is
//!   not discovery: the model must still resolve before it writes.

use std::time::Duration;

use warden_protocol::Resource;

use crate::context::Registration;
use crate::executor::Session;
use crate::ports::InventorySnapshot;
use crate::text::{name_matches, typed_command};

/// Resolve mentions and names; returns notes for the model (routing
/// summaries, unresolved mentions).
pub fn prefetch(
    inventory: &InventorySnapshot,
    session: &mut Session,
    message: &str,
    now: Duration,
) -> Vec<String> {
    let mut notes = Vec::new();
    let mentioned = mentions(message);
    for name in &mentioned {
        let found = inventory.find(name);
        let [resource] = found.as_slice() else {
            let why = if found.is_empty() {
                "not found"
            } else {
                "ambiguous"
            };
            notes.push(format!("@{name}: {why} in the inventory"));
            continue;
        };
        register_with_chain(inventory, session, resource, Registration::Mention, now);
        session.fsm.on_discovery();
        notes.push(format!("@{name}: {}", routing_summary(inventory, resource)));
    }
    // A typed command refers to the machine it is aimed at (this host
    // unless it says `on NAME`): it runs there, and routing advice to
    // target something else could not be followed.
    if let Some(typed) = typed_command(message) {
        let aimed_at = match typed.on.as_deref() {
            None => inventory
                .all()
                .iter()
                .find(|r| r.id.kind == warden_protocol::ResourceKind::Host),
            Some(name) => match inventory.find(name).as_slice() {
                [one] => Some(*one),
                _ => None,
            },
        };
        if let Some(machine) = aimed_at {
            register_with_chain(inventory, session, machine, Registration::UserNamed, now);
            session.fsm.on_discovery();
        }
    }
    let all = inventory.all();
    for word in plain_words(message) {
        if mentioned.iter().any(|m| m.eq_ignore_ascii_case(word)) {
            continue;
        }
        let candidates: Vec<&Resource> = all.iter().filter(|r| name_matches(r, word)).collect();
        if let [resource] = candidates.as_slice() {
            let known = session
                .context
                .get(&resource.id, now)
                .is_some_and(|e| e.explicit);
            // Named again: it becomes the most recent user reference.
            register_with_chain(inventory, session, resource, Registration::UserNamed, now);
            if !known {
                notes.push(format!(
                    "\"{word}\" is {}",
                    routing_summary(inventory, resource)
                ));
            }
        }
    }
    notes
}

fn register_with_chain(
    inventory: &InventorySnapshot,
    session: &mut Session,
    resource: &Resource,
    how: Registration,
    now: Duration,
) {
    for parent in inventory.chain(&resource.id).iter().skip(1) {
        session
            .context
            .register((*parent).clone(), Registration::RoutingParent, now);
    }
    session.context.register(resource.clone(), how, now);
}

/// "jellyfin: Docker container on media-server (LXC lxc:delly:141) on delly
/// (Proxmox node node:delly); target docker_container:media-server:abc".
pub fn routing_summary(inventory: &InventorySnapshot, resource: &Resource) -> String {
    let chain = inventory.chain(&resource.id);
    let mut text = format!("{}: {}", resource.name, resource.id.kind.label());
    for parent in chain.iter().skip(1) {
        text.push_str(&format!(
            " on {} ({} {})",
            parent.name,
            parent.id.kind.label(),
            parent.id
        ));
    }
    text.push_str(&format!("; target {}", resource.id));
    text
}

/// The `@name` tokens of a message.
pub fn mentions(message: &str) -> Vec<&str> {
    message
        .split_whitespace()
        .filter_map(|word| word.strip_prefix('@'))
        .map(|name| {
            name.trim_end_matches(|c: char| {
                !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.' || c == ':')
            })
        })
        .map(|name| name.trim_end_matches('.'))
        .filter(|name| !name.is_empty())
        .collect()
}

/// Words that could name a resource (no `@`, at least three characters).
fn plain_words(message: &str) -> impl Iterator<Item = &str> {
    message
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| w.len() >= 3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::Inventory;
    use crate::simulated::StaticInventory;
    use serde_json::Map;
    use warden_protocol::FsmState;

    fn res(id: &str, name: &str, parent: Option<&str>) -> Resource {
        Resource {
            id: id.parse().unwrap(),
            name: name.into(),
            aliases: Vec::new(),
            parent: parent.map(|p| p.parse().unwrap()),
            status: None,
            attributes: Map::new(),
        }
    }

    fn inventory() -> StaticInventory {
        StaticInventory::new(vec![
            res("node:delly", "delly", None),
            res("lxc:delly:141", "homepage-docker", Some("node:delly")),
            res(
                "docker_container:homepage-docker:abc",
                "jellyfin",
                Some("lxc:delly:141"),
            ),
        ])
    }

    #[test]
    fn mentions_are_found() {
        assert_eq!(
            mentions("check the logs of @jellyfin, and @media-server."),
            vec!["jellyfin", "media-server"]
        );
        assert!(mentions("email me at a@b").is_empty());
    }

    #[test]
    fn a_mention_is_discovery_with_its_chain() {
        let inv = inventory();
        let mut session = Session::new("s");
        let notes = prefetch(
            &inv.snapshot(),
            &mut session,
            "check the logs of @jellyfin",
            Duration::ZERO,
        );
        assert_eq!(session.fsm.state(), FsmState::Reading);
        assert_eq!(session.context.len(), 3);
        assert!(
            notes[0].contains("on homepage-docker (LXC lxc:delly:141) on delly"),
            "{notes:?}"
        );
        let notes = prefetch(&inv.snapshot(), &mut session, "and @ghost", Duration::ZERO);
        assert!(notes[0].contains("not found"));
    }

    #[test]
    fn plain_names_are_explicit_but_not_discovery() {
        let inv = inventory();
        let mut session = Session::new("s");
        prefetch(
            &inv.snapshot(),
            &mut session,
            "add InfluxDB to my homepage config",
            Duration::ZERO,
        );
        assert_eq!(session.fsm.state(), FsmState::Resolving);
        let node = "node:delly".parse().unwrap();
        let children = session
            .context
            .explicit_descendants_of(&node, Duration::ZERO);
        assert_eq!(children.len(), 1);
        assert_eq!(children[0].resource.name, "homepage-docker");
        // Stopwords and short words do not match.
        let mut other = Session::new("t");
        prefetch(&inv.snapshot(), &mut other, "show the logs", Duration::ZERO);
        assert!(other.context.is_empty());
    }
}
