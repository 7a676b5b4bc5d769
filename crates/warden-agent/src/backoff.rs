//! Reconnection delays: exponential from 1 s to 60 s with jitter, so that a
//! fleet of agents does not reconnect in lockstep after a server restart,
//! and reset once a connection has proved healthy.

use std::time::Duration;

/// The delays' bounds and what counts as a healthy connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackoffPolicy {
    pub initial: Duration,
    pub max: Duration,
    /// A connection that was welcomed and stayed up this long resets the delay.
    pub healthy_after: Duration,
}

impl Default for BackoffPolicy {
    fn default() -> Self {
        BackoffPolicy {
            initial: Duration::from_secs(1),
            max: Duration::from_secs(60),
            healthy_after: Duration::from_secs(30),
        }
    }
}

impl BackoffPolicy {
    /// The delay before retry number `attempt` (0 for the first retry),
    /// with `unit` in `[0, 1)` choosing where in the window it falls.
    ///
    /// Retry `n` waits between `initial·2ⁿ` and `initial·2ⁿ⁺¹`, both capped at
    /// `max`, the lower bound also at `max / 2`: delays always lie in
    /// `[initial, max]`, never shrink from one retry to the next window, and
    /// stay spread out once capped.
    pub fn delay(&self, attempt: u32, unit: f64) -> Duration {
        let initial = self.initial.min(self.max);
        let ceiling = scaled(initial, attempt.saturating_add(1)).min(self.max);
        let floor = scaled(initial, attempt)
            .min(self.max / 2)
            .max(initial)
            .min(ceiling);
        let unit = if unit.is_finite() {
            unit.clamp(0.0, 1.0)
        } else {
            0.0
        };
        floor + (ceiling - floor).mul_f64(unit)
    }
}

/// `base · 2^exponent`, saturating.
fn scaled(base: Duration, exponent: u32) -> Duration {
    let factor = 2u32.checked_pow(exponent.min(31)).unwrap_or(u32::MAX);
    base.checked_mul(factor).unwrap_or(Duration::MAX)
}

/// The retry counter of one agent.
#[derive(Debug, Clone)]
pub struct Backoff {
    policy: BackoffPolicy,
    attempt: u32,
}

impl Backoff {
    pub fn new(policy: BackoffPolicy) -> Self {
        Backoff { policy, attempt: 0 }
    }

    pub fn policy(&self) -> &BackoffPolicy {
        &self.policy
    }

    /// The next delay, with fresh jitter.
    pub fn next_delay(&mut self) -> Duration {
        let delay = self.policy.delay(self.attempt, random_unit());
        self.attempt = self.attempt.saturating_add(1);
        delay
    }

    /// Back to the shortest delay (after a healthy connection).
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

/// A random number in `[0, 1)`; 0 when the system has no randomness to give
/// (the delay then loses only its jitter).
fn random_unit() -> f64 {
    let mut bytes = [0u8; 8];
    match getrandom::fill(&mut bytes) {
        Ok(()) => (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64,
        Err(_) => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn the_windows_double_up_to_the_cap() {
        let policy = BackoffPolicy::default();
        let windows: Vec<(u64, u64)> = (0..9)
            .map(|n| {
                (
                    policy.delay(n, 0.0).as_secs(),
                    policy.delay(n, 1.0).as_secs(),
                )
            })
            .collect();
        assert_eq!(
            windows,
            [
                (1, 2),
                (2, 4),
                (4, 8),
                (8, 16),
                (16, 32),
                (30, 60),
                (30, 60),
                (30, 60),
                (30, 60)
            ]
        );
        assert_eq!(policy.delay(0, 0.5), SECOND + SECOND / 2);
    }

    #[test]
    fn reset_returns_to_the_first_window() {
        let mut backoff = Backoff::new(BackoffPolicy::default());
        for _ in 0..10 {
            backoff.next_delay();
        }
        assert!(backoff.next_delay() >= 30 * SECOND);
        backoff.reset();
        assert!(backoff.next_delay() <= 2 * SECOND);
    }

    #[test]
    fn odd_units_stay_in_bounds() {
        let policy = BackoffPolicy::default();
        for unit in [f64::NAN, f64::INFINITY, -1.0, 7.0] {
            let delay = policy.delay(3, unit);
            assert!(delay >= 8 * SECOND && delay <= 16 * SECOND, "{delay:?}");
        }
    }

    proptest! {
        #[test]
        fn delays_stay_within_the_policy(
            attempt in 0u32..200,
            unit in 0.0f64..1.0,
            initial_ms in 1u64..5_000,
            max_ms in 1u64..120_000,
        ) {
            let policy = BackoffPolicy {
                initial: Duration::from_millis(initial_ms),
                max: Duration::from_millis(max_ms),
                healthy_after: SECOND,
            };
            let delay = policy.delay(attempt, unit);
            prop_assert!(delay >= policy.initial.min(policy.max));
            prop_assert!(delay <= policy.max);
            // The window never moves down from one retry to the next.
            prop_assert!(policy.delay(attempt + 1, 0.0) >= policy.delay(attempt, 0.0));
            prop_assert!(policy.delay(attempt + 1, 1.0) >= policy.delay(attempt, 1.0));
        }
    }
}
