//! Login throttling: failures are counted per client IP and per user name
//! in a sliding window; while either count is at its limit, every attempt
//! (a right password included) is refused with the time to wait.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};

/// At most `max_failures` failures within `window_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub max_failures: usize,
    pub window_ms: u64,
}

/// Whether an attempt may go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Throttle {
    Allowed,
    Blocked { retry_after_secs: u64 },
}

/// Keys tracked at most; beyond this, keys with no recent failure are dropped.
const MAX_KEYS: usize = 100_000;

pub struct LoginLimiter {
    per_user: Limit,
    per_ip: Limit,
    failures: Mutex<HashMap<String, VecDeque<u64>>>,
}

impl Default for LoginLimiter {
    /// 5 failures a minute per user, 10 per client address.
    fn default() -> Self {
        LoginLimiter::new(
            Limit {
                max_failures: 5,
                window_ms: 60_000,
            },
            Limit {
                max_failures: 10,
                window_ms: 60_000,
            },
        )
    }
}

fn user_key(user: &str) -> String {
    format!("user:{}", user.to_lowercase())
}

fn ip_key(ip: &str) -> String {
    format!("ip:{ip}")
}

impl LoginLimiter {
    pub fn new(per_user: Limit, per_ip: Limit) -> Self {
        LoginLimiter {
            per_user,
            per_ip,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// May this client try this user's password now?
    pub fn check(&self, ip: &str, user: &str, now_ms: u64) -> Throttle {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let waits = [
            wait_for(&mut failures, &user_key(user), self.per_user, now_ms),
            wait_for(&mut failures, &ip_key(ip), self.per_ip, now_ms),
        ];
        match waits.into_iter().flatten().max() {
            Some(wait_ms) => Throttle::Blocked {
                retry_after_secs: wait_ms.div_ceil(1000).max(1),
            },
            None => Throttle::Allowed,
        }
    }

    pub fn record_failure(&self, ip: &str, user: &str, now_ms: u64) {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        if failures.len() >= MAX_KEYS {
            let window = self.per_user.window_ms.max(self.per_ip.window_ms);
            failures.retain(|_, times| times.back().is_some_and(|t| now_ms < t + window));
        }
        for key in [user_key(user), ip_key(ip)] {
            failures.entry(key).or_default().push_back(now_ms);
        }
    }

    /// A successful login clears the user's failures (not the address's).
    pub fn record_success(&self, user: &str) {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        failures.remove(&user_key(user));
    }
}

/// Milliseconds until `key` may try again, or `None` when it may now.
fn wait_for(
    failures: &mut HashMap<String, VecDeque<u64>>,
    key: &str,
    limit: Limit,
    now_ms: u64,
) -> Option<u64> {
    let times = failures.get_mut(key)?;
    while times
        .front()
        .is_some_and(|&t| now_ms >= t.saturating_add(limit.window_ms))
    {
        times.pop_front();
    }
    if times.is_empty() {
        failures.remove(key);
        return None;
    }
    if times.len() < limit.max_failures {
        return None;
    }
    // The attempt that frees a slot is when the oldest counted failure
    // leaves the window.
    let oldest = times[times.len() - limit.max_failures];
    Some(oldest.saturating_add(limit.window_ms) - now_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter() -> LoginLimiter {
        LoginLimiter::new(
            Limit {
                max_failures: 3,
                window_ms: 10_000,
            },
            Limit {
                max_failures: 5,
                window_ms: 10_000,
            },
        )
    }

    #[test]
    fn per_user_limit_in_a_sliding_window() {
        let l = limiter();
        // (time, action, expected check before the action)
        for (t, expected) in [
            (0, Throttle::Allowed),
            (1_000, Throttle::Allowed),
            (2_000, Throttle::Allowed),
        ] {
            assert_eq!(l.check("1.1.1.1", "bob", t), expected);
            l.record_failure("1.1.1.1", "bob", t);
        }
        // Another user from another address is not affected.
        assert_eq!(l.check("2.2.2.2", "alice", 2_500), Throttle::Allowed);
        // Names are compared case-insensitively, whatever the address.
        assert_eq!(
            l.check("3.3.3.3", "BOB", 2_500),
            Throttle::Blocked {
                retry_after_secs: 8
            }
        );
        let table = [
            (
                2_500,
                Throttle::Blocked {
                    retry_after_secs: 8,
                },
            ),
            (
                9_999,
                Throttle::Blocked {
                    retry_after_secs: 1,
                },
            ),
            (10_000, Throttle::Allowed),
        ];
        for (t, expected) in table {
            assert_eq!(l.check("1.1.1.1", "bob", t), expected, "at {t}");
        }
    }

    #[test]
    fn per_address_limit_spans_user_names() {
        let l = limiter();
        for (i, user) in ["a", "b", "c", "d", "e"].iter().enumerate() {
            let t = i as u64 * 100;
            assert_eq!(l.check("9.9.9.9", user, t), Throttle::Allowed);
            l.record_failure("9.9.9.9", user, t);
        }
        assert!(matches!(
            l.check("9.9.9.9", "f", 600),
            Throttle::Blocked { .. }
        ));
        assert_eq!(l.check("8.8.8.8", "f", 600), Throttle::Allowed);
    }

    #[test]
    fn success_clears_the_user_but_not_the_address() {
        let l = limiter();
        for t in 0..3 {
            l.record_failure("1.1.1.1", "bob", t);
        }
        l.record_success("bob");
        assert_eq!(l.check("2.2.2.2", "bob", 10), Throttle::Allowed);
        for t in 3..5 {
            l.record_failure("1.1.1.1", "carol", t);
        }
        assert!(matches!(
            l.check("1.1.1.1", "dave", 10),
            Throttle::Blocked { .. }
        ));
    }
}
