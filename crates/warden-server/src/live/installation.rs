//! The installation event stream of spec/patrol.md (`GET /api/events`):
//! what happens across the whole installation, numbered from 1 and kept
//! for replay to reconnecting clients (`Last-Event-ID`) up to a count and a
//! byte budget. Today it carries `inventory_changed` (the inventory
//! watcher diffs the live inventory every second) and every session's
//! `approval_needed` / `approval_resolved`; Patrol's findings and runs
//! join it later. Streams pull from the log as a session's do.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::sync::watch;
use warden_core::ports::Inventory;
use warden_protocol::Resource;

use super::events::{Replay, StoredEvent};

/// How much the installation keeps for replay.
const KEEP_EVENTS: usize = 2_000;
const KEEP_BYTES: usize = 8 * 1024 * 1024;
/// How often the inventory is compared with what was last announced.
pub const INVENTORY_CHECK: Duration = Duration::from_secs(1);

struct Log {
    next_seq: u64,
    events: VecDeque<StoredEvent>,
    bytes: usize,
}

/// The installation's event log.
pub struct InstallationEvents {
    log: Mutex<Log>,
    latest: watch::Sender<u64>,
}

impl Default for InstallationEvents {
    fn default() -> Self {
        InstallationEvents {
            log: Mutex::new(Log {
                next_seq: 1,
                events: VecDeque::new(),
                bytes: 0,
            }),
            latest: watch::Sender::new(0),
        }
    }
}

impl InstallationEvents {
    /// Append an event of `event_type` with `fields` (an object); returns
    /// its seq. The data carries `type` and `seq` as in a session stream.
    pub fn push(&self, event_type: &'static str, fields: Value) -> u64 {
        let seq = {
            let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
            let seq = log.next_seq;
            log.next_seq += 1;
            let mut data = match fields {
                Value::Object(map) => map,
                other => {
                    let mut map = Map::new();
                    map.insert("value".into(), other);
                    map
                }
            };
            data.insert("type".into(), Value::from(event_type));
            data.insert("seq".into(), Value::from(seq));
            let json = Value::Object(data).to_string();
            log.bytes += json.len();
            log.events.push_back(StoredEvent {
                seq,
                turn: 0,
                event_type,
                json: Arc::from(json),
            });
            while log.events.len() > KEEP_EVENTS || (log.bytes > KEEP_BYTES && log.events.len() > 1)
            {
                if let Some(gone) = log.events.pop_front() {
                    log.bytes -= gone.json.len();
                }
            }
            seq
        };
        self.latest.send_replace(seq);
        seq
    }

    /// Every event held with `seq > after`, in order.
    pub fn after(&self, after: u64) -> Vec<StoredEvent> {
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let first = log.events.front().map_or(log.next_seq, |e| e.seq);
        let skip = usize::try_from(after.saturating_add(1).saturating_sub(first))
            .unwrap_or(usize::MAX)
            .min(log.events.len());
        log.events.range(skip..).cloned().collect()
    }

    /// The last seq handed out (0 before any event).
    pub fn last_seq(&self) -> u64 {
        *self.latest.borrow()
    }

    /// Wakes when events are appended.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }
}

impl Replay for InstallationEvents {
    fn replay_after(&self, after: u64) -> Vec<StoredEvent> {
        self.after(after)
    }

    fn wake(&self) -> watch::Receiver<u64> {
        self.subscribe()
    }

    fn newest(&self) -> u64 {
        self.last_seq()
    }
}

/// What changed between two views of the inventory: resources new or
/// different (whole), and ids gone. Pure.
pub fn inventory_delta(
    before: &HashMap<String, Value>,
    now: &[Resource],
) -> (Vec<Value>, Vec<String>, HashMap<String, Value>) {
    let mut current = HashMap::with_capacity(now.len());
    let mut changed = Vec::new();
    for resource in now {
        let id = resource.id.to_string();
        let value = serde_json::to_value(resource).unwrap_or(Value::Null);
        if before.get(&id) != Some(&value) {
            changed.push(value.clone());
        }
        current.insert(id, value);
    }
    let mut removed: Vec<String> = before
        .keys()
        .filter(|id| !current.contains_key(*id))
        .cloned()
        .collect();
    removed.sort();
    (changed, removed, current)
}

/// Announce inventory changes until `closing` says stop: the first look
/// sets the baseline (nothing is announced for what was already there).
pub async fn watch_inventory(
    events: Arc<InstallationEvents>,
    inventory: Arc<dyn Inventory>,
    mut closing: watch::Receiver<bool>,
) {
    let mut known: Option<HashMap<String, Value>> = None;
    let mut ticker = tokio::time::interval(INVENTORY_CHECK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = closing.changed() => {
                if *closing.borrow() {
                    return;
                }
            }
        }
        let snapshot = inventory.snapshot();
        let before = known.take().unwrap_or_default();
        let first = before.is_empty();
        let (changed, removed, current) = inventory_delta(&before, snapshot.all());
        if !first && (!changed.is_empty() || !removed.is_empty()) {
            events.push(
                "inventory_changed",
                json!({"changed": changed, "removed": removed}),
            );
        }
        known = Some(current);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(id: &str, status: &str) -> Resource {
        let mut r = Resource::new(id.parse().unwrap(), id.rsplit(':').next().unwrap());
        r.status = Some(status.into());
        r
    }

    #[test]
    fn the_delta_names_new_changed_and_removed_resources() {
        let (changed, removed, known) = inventory_delta(
            &HashMap::new(),
            &[resource("host:a", "up"), resource("host:b", "up")],
        );
        assert_eq!(changed.len(), 2);
        assert!(removed.is_empty());
        let (changed, removed, known) = inventory_delta(
            &known,
            &[resource("host:a", "up"), resource("host:c", "up")],
        );
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0]["id"], "host:c");
        assert_eq!(removed, ["host:b"]);
        let (changed, removed, _) = inventory_delta(
            &known,
            &[resource("host:a", "down"), resource("host:c", "up")],
        );
        assert_eq!(changed[0]["status"], "down");
        assert!(removed.is_empty());
    }

    #[test]
    fn events_carry_type_and_seq_and_replay_after_a_seq() {
        let log = InstallationEvents::default();
        assert_eq!(
            log.push(
                "inventory_changed",
                json!({"changed": [], "removed": ["host:x"]})
            ),
            1
        );
        assert_eq!(log.push("approval_needed", json!({"approval_id": "a1"})), 2);
        let all = log.after(0);
        let data: Value = serde_json::from_str(&all[0].json).unwrap();
        assert_eq!(data["type"], "inventory_changed");
        assert_eq!(data["seq"], 1);
        assert_eq!(data["removed"][0], "host:x");
        assert_eq!(log.after(1).len(), 1);
        assert_eq!(log.after(2).len(), 0);
        for i in 0..(KEEP_EVENTS + 10) {
            log.push("approval_resolved", json!({"i": i}));
        }
        assert_eq!(log.after(0).len(), KEEP_EVENTS);
        assert_eq!(log.last_seq(), (KEEP_EVENTS + 12) as u64);
    }
}
