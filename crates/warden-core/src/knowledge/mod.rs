//! The KnowledgeAccumulator: what this session has learned.
//!
//! - The knowledge gate: results of reads (negative ones too, such as "no
//!   such file"), kept so an identical read is answered from what is
//!   already known instead of running again, unless the user asks for fresh
//!   data. Any successful write forgets them (the world changed), so a
//!   verification read always runs. Bounded: the oldest entries from earlier
//!   turns go first (the current turn's are pinned).
//! - Facts: [`extract`] turns every result into short deterministic facts,
//!   per tool; they are what compaction leaves of old results.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use warden_protocol::ToolResponse;

pub mod extract;

pub use extract::Fact;

pub const DEFAULT_CAPACITY: usize = 256;

#[derive(Debug, Clone)]
struct Entry {
    response: ToolResponse,
    turn: usize,
    stored: u64,
    /// When it was learned (session time): facts age.
    learned_at: Duration,
}

/// A cached result and how old it is.
#[derive(Debug, Clone, Copy)]
pub struct Cached<'k> {
    pub response: &'k ToolResponse,
    pub age: Duration,
}

#[derive(Debug, Clone)]
pub struct KnowledgeAccumulator {
    entries: HashMap<String, Entry>,
    capacity: usize,
    clock: u64,
    /// The current user message asked for fresh data ("check again", "now").
    pub fresh_requested: bool,
    /// The current turn: entries stored in it are evicted last.
    pub turn: usize,
    /// Facts learned, oldest first, with the turn they were learned in.
    facts: VecDeque<(usize, Fact)>,
}

/// Facts kept at most (the oldest go first).
pub const MAX_FACTS: usize = 200;

impl Default for KnowledgeAccumulator {
    fn default() -> Self {
        KnowledgeAccumulator {
            entries: HashMap::new(),
            facts: VecDeque::new(),
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

impl KnowledgeAccumulator {
    /// The cache key of a read: tool, target and exact arguments.
    pub fn key(tool: &str, target: Option<&str>, arguments: &serde_json::Value) -> String {
        format!("{tool}\u{0}{}\u{0}{arguments}", target.unwrap_or("-"))
    }

    /// A cached result no older than `ttl` at `now`, unless the user asked
    /// for fresh data.
    pub fn get(&self, key: &str, now: Duration, ttl: Duration) -> Option<Cached<'_>> {
        if self.fresh_requested {
            return None;
        }
        let entry = self.entries.get(key)?;
        let age = now.saturating_sub(entry.learned_at);
        (age <= ttl && !ttl.is_zero()).then_some(Cached {
            response: &entry.response,
            age,
        })
    }

    pub fn put(&mut self, key: String, response: ToolResponse, now: Duration) {
        self.clock += 1;
        self.entries.insert(
            key,
            Entry {
                response,
                turn: self.turn,
                stored: self.clock,
                learned_at: now,
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

    /// Remember the facts of one result.
    pub fn learn(&mut self, facts: Vec<Fact>) {
        for fact in facts {
            // A newer fact about the same thing replaces the older one.
            self.facts.retain(|(_, f)| f.text != fact.text);
            self.facts.push_back((self.turn, fact));
        }
        while self.facts.len() > MAX_FACTS {
            self.facts.pop_front();
        }
    }

    /// Facts learned, oldest first, with their turn.
    pub fn facts(&self) -> impl Iterator<Item = (usize, &Fact)> {
        self.facts.iter().map(|(turn, fact)| (*turn, fact))
    }

    /// A write reached a host: cached results may no longer be true. The
    /// facts stay, as the history of what was seen before the change.
    pub fn forget_all(&mut self) {
        self.entries.clear();
    }

    /// The session was reset: forget everything.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.facts.clear();
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
        let mut cache = KnowledgeAccumulator {
            capacity: 2,
            ..KnowledgeAccumulator::default()
        };
        let now = Duration::ZERO;
        let ttl = Duration::from_secs(60);
        cache.turn = 1;
        cache.put("a".into(), ToolResponse::success(json!(1)), now);
        cache.turn = 2;
        cache.put("b".into(), ToolResponse::success(json!(2)), now);
        cache.put("c".into(), ToolResponse::success(json!(3)), now);
        assert!(cache.get("a", now, ttl).is_none());
        assert!(cache.get("b", now, ttl).is_some() && cache.get("c", now, ttl).is_some());
        cache.fresh_requested = true;
        assert!(cache.get("b", now, ttl).is_none());
        cache.forget_all();
        assert!(cache.is_empty());
    }

    #[test]
    fn cached_results_age_out() {
        let mut cache = KnowledgeAccumulator::default();
        let ttl = Duration::from_secs(60);
        cache.put(
            "k".into(),
            ToolResponse::success(json!(1)),
            Duration::from_secs(10),
        );
        let fresh = cache.get("k", Duration::from_secs(40), ttl).unwrap();
        assert_eq!(fresh.age, Duration::from_secs(30));
        assert!(cache.get("k", Duration::from_secs(70), ttl).is_some());
        assert!(cache.get("k", Duration::from_secs(71), ttl).is_none());
        // A zero TTL turns the knowledge gate off.
        assert!(
            cache
                .get("k", Duration::from_secs(10), Duration::ZERO)
                .is_none()
        );
    }

    #[test]
    fn facts_are_bounded_newest_kept_and_survive_writes() {
        let mut k = KnowledgeAccumulator::default();
        let fact = |t: &str| Fact {
            subject: "host:web1".into(),
            text: t.into(),
            negative: false,
        };
        k.turn = 1;
        k.learn(vec![fact("nginx: active"), fact("disk / 60% used")]);
        k.turn = 2;
        k.learn(vec![fact("nginx: active")]);
        let facts: Vec<(usize, &str)> = k.facts().map(|(t, f)| (t, f.text.as_str())).collect();
        assert_eq!(facts, [(1, "disk / 60% used"), (2, "nginx: active")]);
        for i in 0..(MAX_FACTS + 10) {
            k.learn(vec![fact(&format!("fact {i}"))]);
        }
        assert_eq!(k.facts().count(), MAX_FACTS);
        assert_eq!(
            k.facts().last().map(|(_, f)| f.text.clone()),
            Some(format!("fact {}", MAX_FACTS + 9))
        );
        k.forget_all();
        assert_eq!(k.facts().count(), MAX_FACTS);
        k.clear();
        assert_eq!(k.facts().count(), 0);
    }
}
