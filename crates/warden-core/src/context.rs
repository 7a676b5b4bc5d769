//! The ResolvedContext: what this session has discovered. A write may only
//! target a resource in it (strict resolution). Indexed by canonical id, by
//! name and by alias (case-insensitive); entries expire 45 minutes after
//! their last use (sliding), at most 500 are kept (least recently used go
//! first), pinned entries never expire. Never persisted: it lives and dies
//! with the session, together with the FSM.
//!
//! Time is passed in as the time since the session started, so the logic
//! is pure and testable.

use std::collections::HashMap;
use std::time::Duration;

use warden_protocol::{Resource, ResourceId};

pub const DEFAULT_TTL: Duration = Duration::from_secs(45 * 60);
pub const DEFAULT_CAPACITY: usize = 500;

/// How a resource entered the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registration {
    /// Found by a bulk call (`query list`, `search`, topology): discovered,
    /// but not explicitly referred to by the user.
    Bulk,
    /// A single-resource `query get` or `discovery get`: explicit access.
    Explicit,
    /// A structured `@mention` by the user: explicit and pinned for the session.
    Mention,
    /// The user named the resource in a message (a plain name, or a command
    /// typed for this host): explicit, and the most recent user reference.
    UserNamed,
    /// A parent on the routing chain of an explicit resource.
    RoutingParent,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedEntry {
    pub resource: Resource,
    /// The user (or a single-resource get) referred to this resource itself.
    pub explicit: bool,
    pub pinned: bool,
    pub last_used: Duration,
    /// When the user last referred to it (a mention, a name, a typed
    /// command), as an ever-increasing sequence number: the most recent
    /// user reference wins routing validation.
    pub user_reference: Option<u64>,
}

/// The result of looking a name up.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup<'c> {
    Found(&'c ResolvedEntry),
    /// Several resources answer to this name.
    Ambiguous(Vec<ResourceId>),
    Missing,
}

#[derive(Debug, Clone)]
pub struct ResolvedContext {
    entries: HashMap<ResourceId, ResolvedEntry>,
    /// Lower-cased names, aliases and ids → ids.
    names: HashMap<String, Vec<ResourceId>>,
    ttl: Duration,
    capacity: usize,
    /// The last user reference handed out.
    user_references: u64,
}

impl Default for ResolvedContext {
    fn default() -> Self {
        ResolvedContext::with_limits(DEFAULT_TTL, DEFAULT_CAPACITY)
    }
}

impl ResolvedContext {
    pub fn new() -> Self {
        ResolvedContext::default()
    }

    pub fn with_limits(ttl: Duration, capacity: usize) -> Self {
        ResolvedContext {
            entries: HashMap::new(),
            names: HashMap::new(),
            ttl,
            capacity: capacity.max(1),
            user_references: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Add or refresh a resource. Explicit access and pinning only ever
    /// increase: a later bulk listing does not undo an explicit reference.
    pub fn register(&mut self, resource: Resource, how: Registration, now: Duration) {
        self.expire(now);
        let explicit = match how {
            Registration::Explicit | Registration::Mention | Registration::UserNamed => true,
            Registration::Bulk | Registration::RoutingParent => false,
        };
        let pinned = how == Registration::Mention;
        let user_reference = match how {
            Registration::Mention | Registration::UserNamed => {
                self.user_references += 1;
                Some(self.user_references)
            }
            Registration::Explicit | Registration::Bulk | Registration::RoutingParent => None,
        };
        let id = resource.id.clone();
        self.unindex(&id);
        match self.entries.get_mut(&id) {
            Some(entry) => {
                entry.resource = resource;
                entry.explicit |= explicit;
                entry.pinned |= pinned;
                entry.last_used = now;
                entry.user_reference = user_reference.or(entry.user_reference);
            }
            None => {
                self.entries.insert(
                    id.clone(),
                    ResolvedEntry {
                        resource,
                        explicit,
                        pinned,
                        last_used: now,
                        user_reference,
                    },
                );
            }
        }
        self.index(&id);
        self.evict_over_capacity();
    }

    /// Look up by canonical id, name or alias (case-insensitive), refreshing
    /// the entry's last use.
    pub fn resolve(&mut self, name: &str, now: Duration) -> Lookup<'_> {
        self.expire(now);
        let ids = self.ids_for(name);
        match ids.as_slice() {
            [] => Lookup::Missing,
            [id] => match self.entries.get_mut(id) {
                Some(entry) => {
                    entry.last_used = now;
                    Lookup::Found(entry)
                }
                None => Lookup::Missing,
            },
            _ => Lookup::Ambiguous(ids),
        }
    }

    fn ids_for(&self, name: &str) -> Vec<ResourceId> {
        if let Ok(id) = name.parse::<ResourceId>() {
            if self.entries.contains_key(&id) {
                return vec![id];
            }
        }
        let mut ids = self
            .names
            .get(&name.to_lowercase())
            .cloned()
            .unwrap_or_default();
        ids.sort();
        ids.dedup();
        ids
    }

    /// The entry for a canonical id, if present and not expired.
    pub fn get(&self, id: &ResourceId, now: Duration) -> Option<&ResolvedEntry> {
        self.entries
            .get(id)
            .filter(|e| e.pinned || now.saturating_sub(e.last_used) < self.ttl)
    }

    pub fn contains(&self, id: &ResourceId, now: Duration) -> bool {
        self.get(id, now).is_some()
    }

    pub fn mark_explicit(&mut self, id: &ResourceId) {
        if let Some(entry) = self.entries.get_mut(id) {
            entry.explicit = true;
        }
    }

    pub fn pin(&mut self, id: &ResourceId) {
        if let Some(entry) = self.entries.get_mut(id) {
            entry.pinned = true;
        }
    }

    pub fn unpin(&mut self, id: &ResourceId) {
        if let Some(entry) = self.entries.get_mut(id) {
            entry.pinned = false;
        }
    }

    /// Explicitly referenced resources whose routing chain passes through
    /// `parent` (for routing validation: a file edit on a node while the user
    /// named an LXC on it).
    pub fn explicit_descendants_of(
        &self,
        parent: &ResourceId,
        now: Duration,
    ) -> Vec<&ResolvedEntry> {
        // The user referring to the parent after the child lifts the block.
        let parent_reference = self.entries.get(parent).and_then(|e| e.user_reference);
        let mut found: Vec<&ResolvedEntry> = self
            .entries
            .values()
            .filter(|e| e.explicit && self.get(&e.resource.id, now).is_some())
            .filter(|e| match (parent_reference, e.user_reference) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(parent), Some(child)) => child > parent,
            })
            .filter(|e| {
                self.chain(&e.resource.id)
                    .iter()
                    .skip(1)
                    .any(|p| p == parent)
            })
            .collect();
        found.sort_by(|a, b| a.resource.id.cmp(&b.resource.id));
        found
    }

    /// `id` and its parents, nearest first, as far as the context knows them.
    pub fn chain(&self, id: &ResourceId) -> Vec<ResourceId> {
        let mut chain = vec![id.clone()];
        let mut current = self.entries.get(id).and_then(|e| e.resource.parent.clone());
        while let Some(parent) = current {
            if chain.contains(&parent) || chain.len() > 16 {
                break;
            }
            current = self
                .entries
                .get(&parent)
                .and_then(|e| e.resource.parent.clone());
            chain.push(parent);
        }
        chain
    }

    /// Names in the context that look like `wanted` (for STRICT_RESOLUTION
    /// suggestions): containment, a shared prefix of four or more characters,
    /// or an edit distance of at most two.
    pub fn suggestions(&self, wanted: &str, limit: usize) -> Vec<String> {
        let wanted = wanted.to_lowercase();
        let mut scored: Vec<(usize, String)> = self
            .entries
            .values()
            .flat_map(|e| std::iter::once(&e.resource.name).chain(e.resource.aliases.iter()))
            .filter_map(|name| {
                let lower = name.to_lowercase();
                let distance = edit_distance(&lower, &wanted);
                let prefix = common_prefix(&lower, &wanted);
                let similar = lower.contains(&wanted)
                    || wanted.contains(&lower)
                    || prefix >= 4
                    || distance <= 2;
                similar.then(|| (distance, name.clone()))
            })
            .collect();
        scored.sort();
        scored.dedup_by(|a, b| a.1 == b.1);
        scored
            .into_iter()
            .take(limit)
            .map(|(_, name)| name)
            .collect()
    }

    /// Drop entries unused for longer than the TTL (pinned ones stay).
    pub fn expire(&mut self, now: Duration) {
        let ttl = self.ttl;
        let expired: Vec<ResourceId> = self
            .entries
            .iter()
            .filter(|(_, e)| !e.pinned && now.saturating_sub(e.last_used) >= ttl)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            self.remove(&id);
        }
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.names.clear();
    }

    /// A resource that moved (a migrated guest: its id changed) keeps what
    /// the session knew of it (explicit reference, pin) under its new id;
    /// the old id is forgotten.
    pub fn moved(&mut self, from: &ResourceId, to: Resource, now: Duration) {
        let old = self.entries.get(from).cloned();
        self.remove(from);
        let id = to.id.clone();
        self.unindex(&id);
        let before = self.entries.remove(&id);
        let flag = |f: fn(&ResolvedEntry) -> bool| {
            old.as_ref().is_some_and(f) || before.as_ref().is_some_and(f)
        };
        let entry = ResolvedEntry {
            explicit: flag(|e| e.explicit),
            pinned: flag(|e| e.pinned),
            last_used: now,
            user_reference: old
                .as_ref()
                .and_then(|e| e.user_reference)
                .max(before.as_ref().and_then(|e| e.user_reference)),
            resource: to,
        };
        self.entries.insert(id.clone(), entry);
        self.index(&id);
    }

    fn remove(&mut self, id: &ResourceId) {
        self.unindex(id);
        self.entries.remove(id);
    }

    fn evict_over_capacity(&mut self) {
        while self.entries.len() > self.capacity {
            let oldest = self
                .entries
                .iter()
                .filter(|(_, e)| !e.pinned)
                .min_by_key(|(_, e)| e.last_used)
                .map(|(id, _)| id.clone());
            match oldest {
                Some(id) => self.remove(&id),
                None => break,
            }
        }
    }

    fn keys_of(entry: &ResolvedEntry) -> Vec<String> {
        let r = &entry.resource;
        std::iter::once(r.name.to_lowercase())
            .chain(r.aliases.iter().map(|a| a.to_lowercase()))
            .chain(std::iter::once(r.id.to_string().to_lowercase()))
            .collect()
    }

    fn index(&mut self, id: &ResourceId) {
        let Some(entry) = self.entries.get(id) else {
            return;
        };
        for key in Self::keys_of(entry) {
            let ids = self.names.entry(key).or_default();
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
    }

    fn unindex(&mut self, id: &ResourceId) {
        let Some(entry) = self.entries.get(id) else {
            return;
        };
        for key in Self::keys_of(entry) {
            if let Some(ids) = self.names.get_mut(&key) {
                ids.retain(|x| x != id);
                if ids.is_empty() {
                    self.names.remove(&key);
                }
            }
        }
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// Levenshtein distance over characters (names are short).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn res(id: &str, name: &str, aliases: &[&str], parent: Option<&str>) -> Resource {
        Resource {
            id: id.parse().unwrap(),
            name: name.into(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            parent: parent.map(|p| p.parse().unwrap()),
            status: None,
            attributes: Map::new(),
        }
    }

    fn mins(m: u64) -> Duration {
        Duration::from_secs(m * 60)
    }

    #[test]
    fn resolves_by_id_name_and_alias() {
        let mut ctx = ResolvedContext::new();
        ctx.register(
            res(
                "lxc:pve1:141",
                "homepage-docker",
                &["homepage"],
                Some("node:pve1"),
            ),
            Registration::Bulk,
            mins(0),
        );
        for name in ["lxc:pve1:141", "homepage-docker", "HOMEPAGE", "homepage"] {
            assert!(
                matches!(ctx.resolve(name, mins(1)), Lookup::Found(e) if e.resource.name == "homepage-docker"),
                "{name}"
            );
        }
        assert_eq!(ctx.resolve("jellyfin", mins(1)), Lookup::Missing);
    }

    #[test]
    fn ambiguous_names_are_reported() {
        let mut ctx = ResolvedContext::new();
        ctx.register(
            res("vm:pve1:101", "web", &[], None),
            Registration::Bulk,
            mins(0),
        );
        ctx.register(
            res("vm:pve2:201", "web", &[], None),
            Registration::Bulk,
            mins(0),
        );
        assert!(matches!(ctx.resolve("web", mins(0)), Lookup::Ambiguous(ids) if ids.len() == 2));
        assert!(matches!(
            ctx.resolve("vm:pve2:201", mins(0)),
            Lookup::Found(_)
        ));
    }

    #[test]
    fn ttl_is_sliding_and_pins_never_expire() {
        let mut ctx = ResolvedContext::new();
        let a: ResourceId = "host:a".parse().unwrap();
        let b: ResourceId = "host:b".parse().unwrap();
        ctx.register(res("host:a", "a", &[], None), Registration::Bulk, mins(0));
        ctx.register(
            res("host:b", "b", &[], None),
            Registration::Mention,
            mins(0),
        );
        assert!(matches!(ctx.resolve("a", mins(40)), Lookup::Found(_)));
        assert!(ctx.contains(&a, mins(80)));
        assert!(!ctx.contains(&a, mins(86)));
        ctx.expire(mins(86));
        assert_eq!(ctx.resolve("a", mins(86)), Lookup::Missing);
        assert!(ctx.contains(&b, mins(1000)));
    }

    #[test]
    fn lru_capacity_spares_pinned_entries() {
        let mut ctx = ResolvedContext::with_limits(DEFAULT_TTL, 3);
        ctx.register(
            res("host:pinned", "pinned", &[], None),
            Registration::Mention,
            mins(0),
        );
        for (i, name) in ["a", "b", "c", "d"].iter().enumerate() {
            ctx.register(
                res(&format!("host:{name}"), name, &[], None),
                Registration::Bulk,
                mins(i as u64 + 1),
            );
        }
        assert_eq!(ctx.len(), 3);
        assert!(ctx.contains(&"host:pinned".parse().unwrap(), mins(5)));
        assert!(!ctx.contains(&"host:a".parse().unwrap(), mins(5)));
        assert!(ctx.contains(&"host:d".parse().unwrap(), mins(5)));
    }

    #[test]
    fn explicit_access_only_grows() {
        let mut ctx = ResolvedContext::new();
        let id: ResourceId = "lxc:pve1:141".parse().unwrap();
        ctx.register(
            res("lxc:pve1:141", "x", &[], None),
            Registration::Explicit,
            mins(0),
        );
        ctx.register(
            res("lxc:pve1:141", "x", &[], None),
            Registration::Bulk,
            mins(1),
        );
        assert!(ctx.get(&id, mins(1)).is_some_and(|e| e.explicit));
    }

    #[test]
    fn explicit_descendants_follow_the_routing_chain() {
        let mut ctx = ResolvedContext::new();
        ctx.register(
            res("node:delly", "delly", &[], None),
            Registration::RoutingParent,
            mins(0),
        );
        ctx.register(
            res("lxc:delly:141", "media-server", &[], Some("node:delly")),
            Registration::RoutingParent,
            mins(0),
        );
        ctx.register(
            res(
                "docker_container:media-server:abc",
                "jellyfin",
                &[],
                Some("lxc:delly:141"),
            ),
            Registration::Mention,
            mins(0),
        );
        let node: ResourceId = "node:delly".parse().unwrap();
        let found = ctx.explicit_descendants_of(&node, mins(1));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].resource.name, "jellyfin");
        assert_eq!(ctx.chain(&found[0].resource.id).len(), 3);
        // Bulk discovery is not explicit reference.
        let lxc: ResourceId = "lxc:delly:141".parse().unwrap();
        assert_eq!(ctx.explicit_descendants_of(&lxc, mins(1)).len(), 1);
    }

    #[test]
    fn suggestions_find_similar_names() {
        let mut ctx = ResolvedContext::new();
        for (id, name) in [
            ("host:web1", "web1"),
            ("host:web2", "web2"),
            ("host:db1", "db1"),
            ("lxc:pve:1", "homepage-docker"),
        ] {
            ctx.register(res(id, name, &[], None), Registration::Bulk, mins(0));
        }
        assert_eq!(
            ctx.suggestions("web3", 5),
            vec!["web1".to_string(), "web2".to_string()]
        );
        assert_eq!(
            ctx.suggestions("homepage", 5),
            vec!["homepage-docker".to_string()]
        );
        assert!(ctx.suggestions("zzzzzz", 5).is_empty());
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("web1", "web1"), 0);
    }
}
