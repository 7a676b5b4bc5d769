//! Login throttling with a growing delay, never a hard lockout of an
//! account from everywhere. Failures are counted per (user name, client
//! address) and per client address (password spraying across names). A
//! key's first failures are free; from a limit on, each failure makes the
//! key wait twice as long as the one before (5 s, 10 s, 20 s, … at most
//! 15 min) from that failure. While a key waits, every attempt through it — a right
//! password included — is refused with the time left. A key that failed
//! nothing for an hour is forgotten; a successful login forgets its (user,
//! address) key. Someone guessing alice's password from one address never
//! keeps alice out from another.
//!
//! Pure: the caller passes the time, logs the lockouts [`LoginLimiter::
//! record_failure`] reports and counts them in `/metrics`.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// How a kind of key is throttled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The failure that starts the delays (the ones before it are free).
    pub delays_from: u32,
    /// The first delay; each further failure doubles it.
    pub first_delay_ms: u64,
    /// The longest delay.
    pub max_delay_ms: u64,
    /// A key with no failure for this long is forgotten.
    pub forget_after_ms: u64,
}

/// Whether an attempt may go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Throttle {
    Allowed,
    Blocked { retry_after_secs: u64 },
}

/// Which key a lockout is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockoutScope {
    /// One user name from one address.
    UserAddress,
    /// One address, whatever the user names.
    Address,
}

impl LockoutScope {
    /// The `/metrics` label.
    pub fn as_str(self) -> &'static str {
        match self {
            LockoutScope::UserAddress => "user_address",
            LockoutScope::Address => "address",
        }
    }
}

/// A failure that made a key wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lockout {
    pub scope: LockoutScope,
    /// How long the key now waits, in whole seconds (rounded up).
    pub wait_secs: u64,
    /// The key's failures so far.
    pub failures: u32,
}

/// Keys tracked at most; beyond this, forgotten keys are dropped first.
const MAX_KEYS: usize = 100_000;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    UserAddress { user: String, address: String },
    Address(String),
}

/// What a key has done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    failures: u32,
    last_failure_ms: u64,
    /// Until when attempts are refused.
    blocked_until_ms: u64,
}

pub struct LoginLimiter {
    per_user_address: Limit,
    per_address: Limit,
    records: Mutex<HashMap<Key, Record>>,
}

impl Default for LoginLimiter {
    /// Delays from the 5th failure per user name and address and the 20th
    /// per address, from 5 s doubling to 15 min; forgotten after an hour of
    /// quiet.
    fn default() -> Self {
        let delays = |delays_from| Limit {
            delays_from,
            first_delay_ms: 5_000,
            max_delay_ms: 15 * 60_000,
            forget_after_ms: 60 * 60_000,
        };
        LoginLimiter::new(delays(5), delays(20))
    }
}

/// The delay after a key's `failures`-th failure, or `None` while it is
/// still free. Pure.
pub fn delay_after(limit: Limit, failures: u32) -> Option<u64> {
    let doublings = failures.checked_sub(limit.delays_from.max(1))?.min(32);
    Some(
        limit
            .first_delay_ms
            .saturating_mul(1u64 << doublings)
            .min(limit.max_delay_ms),
    )
}

impl LoginLimiter {
    pub fn new(per_user_address: Limit, per_address: Limit) -> Self {
        LoginLimiter {
            per_user_address,
            per_address,
            records: Mutex::new(HashMap::new()),
        }
    }

    fn keys(&self, address: &str, user: &str) -> [(Key, Limit, LockoutScope); 2] {
        [
            (
                Key::UserAddress {
                    user: user.to_lowercase(),
                    address: address.to_string(),
                },
                self.per_user_address,
                LockoutScope::UserAddress,
            ),
            (
                Key::Address(address.to_string()),
                self.per_address,
                LockoutScope::Address,
            ),
        ]
    }

    /// May this address try this user's password now?
    pub fn check(&self, address: &str, user: &str, now_ms: u64) -> Throttle {
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let mut wait_ms = 0;
        for (key, limit, _) in self.keys(address, user) {
            let Some(record) = records.get(&key).copied() else {
                continue;
            };
            if now_ms.saturating_sub(record.last_failure_ms) >= limit.forget_after_ms {
                records.remove(&key);
                continue;
            }
            wait_ms = wait_ms.max(record.blocked_until_ms.saturating_sub(now_ms));
        }
        if wait_ms == 0 {
            Throttle::Allowed
        } else {
            Throttle::Blocked {
                retry_after_secs: wait_ms.div_ceil(1000).max(1),
            }
        }
    }

    /// A wrong password: count it on both keys. Returns the keys this
    /// failure made wait (the caller logs and counts them).
    pub fn record_failure(&self, address: &str, user: &str, now_ms: u64) -> Vec<Lockout> {
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        if records.len() >= MAX_KEYS {
            let forget = self
                .per_user_address
                .forget_after_ms
                .min(self.per_address.forget_after_ms);
            records.retain(|_, r| now_ms.saturating_sub(r.last_failure_ms) < forget);
        }
        let mut lockouts = Vec::new();
        for (key, limit, scope) in self.keys(address, user) {
            let record = records.entry(key).or_insert(Record {
                failures: 0,
                last_failure_ms: now_ms,
                blocked_until_ms: 0,
            });
            if now_ms.saturating_sub(record.last_failure_ms) >= limit.forget_after_ms {
                record.failures = 0;
            }
            record.failures = record.failures.saturating_add(1);
            record.last_failure_ms = now_ms;
            if let Some(delay) = delay_after(limit, record.failures) {
                record.blocked_until_ms = now_ms.saturating_add(delay);
                lockouts.push(Lockout {
                    scope,
                    wait_secs: delay.div_ceil(1000),
                    failures: record.failures,
                });
            }
        }
        lockouts
    }

    /// A right password: this user name from this address starts afresh
    /// (the address's own count stays).
    pub fn record_success(&self, address: &str, user: &str) {
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let [(key, _, _), _] = self.keys(address, user);
        records.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Limit = Limit {
        delays_from: 3,
        first_delay_ms: 1_000,
        max_delay_ms: 8_000,
        forget_after_ms: 60_000,
    };

    fn limiter() -> LoginLimiter {
        LoginLimiter::new(
            LIMIT,
            Limit {
                delays_from: 5,
                ..LIMIT
            },
        )
    }

    #[test]
    fn delays_grow_from_the_first_failure_past_the_free_ones() {
        let table = [
            (0, None),
            (1, None),
            (2, None),
            (3, Some(1_000)),
            (4, Some(2_000)),
            (5, Some(4_000)),
            (6, Some(8_000)),
            (7, Some(8_000)),
            (500, Some(8_000)),
        ];
        for (failures, expected) in table {
            assert_eq!(delay_after(LIMIT, failures), expected, "{failures}");
        }
        let at_once = Limit {
            delays_from: 0,
            ..LIMIT
        };
        assert_eq!(delay_after(at_once, 0), None);
        assert_eq!(delay_after(at_once, 1), Some(1_000));
    }

    #[test]
    fn one_user_from_one_address_waits_longer_and_longer() {
        let l = limiter();
        // (time, failures recorded before it) → what a check says then.
        let mut lockouts = Vec::new();
        for t in [0, 10, 20] {
            assert_eq!(l.check("1.1.1.1", "bob", t), Throttle::Allowed, "at {t}");
            lockouts.extend(l.record_failure("1.1.1.1", "bob", t));
        }
        assert_eq!(
            lockouts,
            [Lockout {
                scope: LockoutScope::UserAddress,
                wait_secs: 1,
                failures: 3
            }]
        );
        assert_eq!(
            l.check("1.1.1.1", "bob", 500),
            Throttle::Blocked {
                retry_after_secs: 1
            }
        );
        // Names are compared case-insensitively.
        assert!(matches!(
            l.check("1.1.1.1", "BOB", 500),
            Throttle::Blocked { .. }
        ));
        assert_eq!(l.check("1.1.1.1", "bob", 1_020), Throttle::Allowed);
        let fourth = l.record_failure("1.1.1.1", "bob", 1_020);
        assert_eq!(fourth[0].wait_secs, 2);
        assert_eq!(
            l.check("1.1.1.1", "bob", 1_030),
            Throttle::Blocked {
                retry_after_secs: 2
            }
        );
        assert_eq!(l.check("1.1.1.1", "bob", 3_020), Throttle::Allowed);
    }

    #[test]
    fn an_account_is_never_locked_out_from_everywhere() {
        let l = limiter();
        for t in 0..20 {
            l.record_failure("6.6.6.6", "alice", t);
        }
        assert!(matches!(
            l.check("6.6.6.6", "alice", 30),
            Throttle::Blocked { .. }
        ));
        // Alice from her own address is not held up by the attacker's.
        assert_eq!(l.check("10.0.0.7", "alice", 30), Throttle::Allowed);
    }

    #[test]
    fn an_address_spraying_names_waits_too() {
        let l = limiter();
        let mut scopes = Vec::new();
        for (i, user) in ["a", "b", "c", "d", "e"].iter().enumerate() {
            let t = i as u64;
            assert_eq!(l.check("9.9.9.9", user, t), Throttle::Allowed);
            scopes.extend(l.record_failure("9.9.9.9", user, t).iter().map(|l| l.scope));
        }
        assert_eq!(scopes, [LockoutScope::Address]);
        assert!(matches!(
            l.check("9.9.9.9", "f", 10),
            Throttle::Blocked { .. }
        ));
        assert_eq!(l.check("8.8.8.8", "f", 10), Throttle::Allowed);
    }

    #[test]
    fn success_and_quiet_forget() {
        let l = limiter();
        for t in 0..3 {
            l.record_failure("1.1.1.1", "bob", t);
        }
        l.record_success("1.1.1.1", "bob");
        assert_eq!(l.check("1.1.1.1", "bob", 10), Throttle::Allowed);
        assert!(
            l.record_failure("1.1.1.1", "bob", 10).is_empty(),
            "counted afresh"
        );
        for t in 20..23 {
            l.record_failure("2.2.2.2", "carol", t);
        }
        assert!(matches!(
            l.check("2.2.2.2", "carol", 100),
            Throttle::Blocked { .. }
        ));
        // An hour… here a minute of quiet: forgotten, the count starts again.
        assert_eq!(l.check("2.2.2.2", "carol", 60_100), Throttle::Allowed);
        assert!(l.record_failure("2.2.2.2", "carol", 60_100).is_empty());
    }
}
