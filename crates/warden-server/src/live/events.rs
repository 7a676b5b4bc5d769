//! A session's event stream (`spec/api.md` "The session event stream"):
//! the events, numbered from 1, kept for replay to reconnecting clients
//! (`Last-Event-ID`) for at least the current and the previous turn, and a
//! watch that wakes every connected stream when a new one is appended.
//! Streams pull from the log, so replay and live delivery are one path and
//! a slow client never holds anyone else up.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use tokio::sync::watch;
use warden_protocol::StreamEvent;

#[derive(Serialize)]
struct Envelope<'a> {
    session_id: &'a str,
    seq: u64,
    #[serde(flatten)]
    event: &'a StreamEvent,
}

/// An event log a stream can follow: a session's, or the installation's.
pub trait Replay: Send + Sync {
    /// Every event held with `seq > after`, in order.
    fn replay_after(&self, after: u64) -> Vec<StoredEvent>;
    /// Wakes when events are appended.
    fn wake(&self) -> watch::Receiver<u64>;
    /// The last seq handed out (0 before any event).
    fn newest(&self) -> u64;
}

/// One stored event, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    pub seq: u64,
    pub turn: u64,
    pub event_type: &'static str,
    /// The `data:` JSON.
    pub json: Arc<str>,
}

/// How much a session keeps for replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Events of turns older than the previous one go, whatever the size.
    pub keep_turns: usize,
    /// Beyond this many bytes, the oldest events go, but never the current
    /// turn's and never below `keep_turns` unless the current turn alone
    /// exceeds the budget.
    pub max_bytes: usize,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            keep_turns: 2,
            max_bytes: 4 * 1024 * 1024,
        }
    }
}

struct Log {
    session_id: Arc<str>,
    next_seq: u64,
    turn: u64,
    events: VecDeque<StoredEvent>,
    bytes: usize,
}

pub struct EventLog {
    retention: Retention,
    log: Mutex<Log>,
    latest: watch::Sender<u64>,
}

impl EventLog {
    pub fn new(session_id: &str, retention: Retention) -> Self {
        EventLog {
            retention,
            log: Mutex::new(Log {
                session_id: Arc::from(session_id),
                next_seq: 1,
                turn: 0,
                events: VecDeque::new(),
                bytes: 0,
            }),
            latest: watch::Sender::new(0),
        }
    }

    /// Append an event (a `turn_start` opens its turn); returns its seq.
    pub fn push(&self, event: &StreamEvent) -> u64 {
        let seq = {
            let mut log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
            if let StreamEvent::TurnStart { turn, .. } = event {
                log.turn = *turn;
            }
            let seq = log.next_seq;
            log.next_seq += 1;
            let json = serde_json::to_string(&Envelope {
                session_id: &log.session_id,
                seq,
                event,
            })
            .unwrap_or_else(|_| {
                format!(r#"{{"type":"error","session_id":"","seq":{seq},"code":"INTERNAL","message":"unserialisable event"}}"#)
            });
            log.bytes += json.len();
            let turn = log.turn;
            log.events.push_back(StoredEvent {
                seq,
                turn,
                event_type: event.event_type(),
                json: Arc::from(json),
            });
            self.evict(&mut log);
            seq
        };
        self.latest.send_replace(seq);
        seq
    }

    fn evict(&self, log: &mut Log) {
        let keep = u64::try_from(self.retention.keep_turns).unwrap_or(u64::MAX);
        let oldest_kept_turn = log.turn.saturating_sub(keep.saturating_sub(1));
        while let Some(front) = log.events.front() {
            let too_old = front.turn < oldest_kept_turn;
            let over_budget = log.bytes > self.retention.max_bytes
                && (front.turn < log.turn || log.events.len() > 1);
            if !(too_old || over_budget) {
                break;
            }
            if let Some(gone) = log.events.pop_front() {
                log.bytes -= gone.json.len();
            }
        }
    }

    /// Every event held with `seq > after`, in order.
    pub fn after(&self, after: u64) -> Vec<StoredEvent> {
        let log = self.log.lock().unwrap_or_else(PoisonError::into_inner);
        let first = log.events.front().map_or(log.next_seq, |e| e.seq);
        // Seqs are contiguous in the log: the position is arithmetic.
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

    /// Streams following this log now.
    pub fn subscribers(&self) -> usize {
        self.latest.receiver_count()
    }

    /// Bytes held for replay (memory accounting).
    pub fn held_bytes(&self) -> usize {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .bytes
    }
}

impl Replay for EventLog {
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

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::Value;

    fn content(text: &str) -> StreamEvent {
        StreamEvent::Content { text: text.into() }
    }

    fn turn(n: u64) -> StreamEvent {
        StreamEvent::TurnStart {
            turn: n,
            text: format!("message {n}"),
        }
    }

    fn seqs(events: &[StoredEvent]) -> Vec<u64> {
        events.iter().map(|e| e.seq).collect()
    }

    #[test]
    fn events_are_numbered_from_one_with_type_session_and_seq() {
        let log = EventLog::new("s1", Retention::default());
        assert_eq!(log.push(&turn(1)), 1);
        assert_eq!(log.push(&content("hi")), 2);
        let events = log.after(0);
        assert_eq!(seqs(&events), [1, 2]);
        let data: Value = serde_json::from_str(&events[1].json).unwrap();
        assert_eq!(
            data,
            serde_json::json!({"type": "content", "session_id": "s1", "seq": 2, "text": "hi"})
        );
        assert_eq!(events[1].event_type, "content");
        assert_eq!(log.last_seq(), 2);
    }

    #[test]
    fn replay_after_a_seq() {
        let log = EventLog::new("s", Retention::default());
        for i in 0..5 {
            log.push(&content(&i.to_string()));
        }
        let table: [(u64, &[u64]); 5] = [
            (0, &[1, 2, 3, 4, 5]),
            (2, &[3, 4, 5]),
            (4, &[5]),
            (5, &[]),
            (99, &[]),
        ];
        for (after, expected) in table {
            assert_eq!(seqs(&log.after(after)), expected, "after {after}");
        }
    }

    #[test]
    fn the_current_and_previous_turns_are_kept() {
        let log = EventLog::new("s", Retention::default());
        log.push(&turn(1)); // 1
        log.push(&content("a")); // 2
        log.push(&turn(2)); // 3
        log.push(&content("b")); // 4
        assert_eq!(seqs(&log.after(0)), [1, 2, 3, 4]);
        log.push(&turn(3)); // 5: turn 1 goes
        log.push(&content("c")); // 6
        assert_eq!(seqs(&log.after(0)), [3, 4, 5, 6]);
        // A client that saw up to 1 gets what is left, from 3.
        assert_eq!(seqs(&log.after(1)), [3, 4, 5, 6]);
    }

    #[test]
    fn the_byte_budget_drops_older_turns_first() {
        let retention = Retention {
            keep_turns: 2,
            max_bytes: 300,
        };
        let log = EventLog::new("s", retention);
        log.push(&turn(1));
        log.push(&content(&"x".repeat(150)));
        log.push(&turn(2));
        // Over budget: turn 1 goes before anything of turn 2.
        log.push(&content(&"y".repeat(150)));
        let kept = log.after(0);
        assert!(kept.iter().all(|e| e.turn == 2), "{kept:?}");
        assert!(log.held_bytes() <= 300 || kept.len() == 1);
        // The current turn alone over budget keeps at least its last event.
        log.push(&content(&"z".repeat(400)));
        assert_eq!(log.after(0).last().unwrap().seq, 5);
    }

    #[test]
    fn subscribers_see_the_latest_seq() {
        let log = EventLog::new("s", Retention::default());
        let mut rx = log.subscribe();
        assert_eq!(*rx.borrow_and_update(), 0);
        log.push(&content("a"));
        assert!(rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), 1);
    }
}
