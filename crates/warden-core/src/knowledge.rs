//! The knowledge gate: results of reads (negative ones too, such as "no such
//! file"), kept for the session so an identical read is answered from what
//! is already known instead of running again, unless the user asks for fresh
//! data. Any successful write
//! forgets everything (the world changed), so a verification read always
//! runs. Bounded: the oldest entries from earlier turns go first.

use std::collections::HashMap;

use warden_protocol::ToolResponse;

pub const DEFAULT_CAPACITY: usize = 256;

#[derive(Debug, Clone)]
struct Entry {
    response: ToolResponse,
    turn: usize,
    stored: u64,
}

#[derive(Debug, Clone)]
pub struct KnowledgeCache {
    entries: HashMap<String, Entry>,
    capacity: usize,
    clock: u64,
    /// The current user message asked for fresh data ("check again", "now").
    pub fresh_requested: bool,
    /// The current turn: entries stored in it are evicted last.
    pub turn: usize,
}

impl Default for KnowledgeCache {
    fn default() -> Self {
        KnowledgeCache {
            entries: HashMap::new(),
            capacity: DEFAULT_CAPACITY,
            clock: 0,
            fresh_requested: false,
            turn: 0,
        }
    }
}

/// Phrases that ask for fresh data rather than what is already known.
const FRESH_PHRASES: &[&str] = &[
    "check again",
    "again",
    "refresh",
    "re-check",
    "recheck",
    "now",
    "current",
    "currently",
    "latest",
    "fresh",
    "still",
    "right now",
    "live",
];

/// Does the user's message ask for fresh data?
pub fn asks_for_fresh_data(message: &str) -> bool {
    let lower = message.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .any(|word| FRESH_PHRASES.contains(&word))
        || FRESH_PHRASES
            .iter()
            .filter(|p| p.contains(' '))
            .any(|p| lower.contains(p))
}

impl KnowledgeCache {
    /// The cache key of a read: tool, target and exact arguments.
    pub fn key(tool: &str, target: Option<&str>, arguments: &serde_json::Value) -> String {
        format!("{tool}\u{0}{}\u{0}{arguments}", target.unwrap_or("-"))
    }

    pub fn get(&self, key: &str) -> Option<&ToolResponse> {
        if self.fresh_requested {
            return None;
        }
        self.entries.get(key).map(|e| &e.response)
    }

    pub fn put(&mut self, key: String, response: ToolResponse) {
        self.clock += 1;
        self.entries.insert(
            key,
            Entry {
                response,
                turn: self.turn,
                stored: self.clock,
            },
        );
        while self.entries.len() > self.capacity {
            let victim = self
                .entries
                .iter()
                .min_by_key(|(_, e)| (e.turn == self.turn, e.stored))
                .map(|(k, _)| k.clone());
            match victim {
                Some(k) => {
                    self.entries.remove(&k);
                }
                None => break,
            }
        }
    }

    /// A write succeeded: what we knew may no longer be true.
    pub fn forget_all(&mut self) {
        self.entries.clear();
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fresh_phrases() {
        for m in [
            "check again",
            "is nginx running now?",
            "refresh the disk usage",
            "what is the current load",
        ] {
            assert!(asks_for_fresh_data(m), "{m}");
        }
        for m in [
            "why is jellyfin slow?",
            "show the logs of nginx",
            "knowledge base",
        ] {
            assert!(!asks_for_fresh_data(m), "{m}");
        }
    }

    #[test]
    fn bounded_with_the_current_turn_kept() {
        let mut cache = KnowledgeCache {
            capacity: 2,
            ..KnowledgeCache::default()
        };
        cache.turn = 1;
        cache.put("a".into(), ToolResponse::success(json!(1)));
        cache.turn = 2;
        cache.put("b".into(), ToolResponse::success(json!(2)));
        cache.put("c".into(), ToolResponse::success(json!(3)));
        assert!(cache.get("a").is_none());
        assert!(cache.get("b").is_some() && cache.get("c").is_some());
        cache.fresh_requested = true;
        assert!(cache.get("b").is_none());
        cache.forget_all();
        assert!(cache.is_empty());
    }
}
