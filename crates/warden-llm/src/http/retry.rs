//! When and how long to wait before trying a request again: exponential
//! backoff with full jitter, or the server's `Retry-After` when it is not
//! longer than Warden is willing to wait.

use std::cell::Cell;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// First backoff ceiling; doubles per attempt.
const BASE_DELAY: Duration = Duration::from_millis(500);
/// Largest backoff ceiling.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Statuses worth another try: rate limits, overload, gateway trouble.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504 | 529)
}

/// What to do before the next try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryWait {
    /// Wait this long, then try again.
    After(Duration),
    /// The server asked for a longer wait than `max_retry_after`: report it
    /// (whole seconds, rounded up) instead of waiting silently.
    TooLong { seconds: u64 },
}

/// The wait before retry number `attempt` (0-based): the server's
/// `Retry-After` if it sent one we understand, else full jitter over an
/// exponentially growing ceiling (so many clients do not retry in step).
pub fn wait_before_retry(
    attempt: u32,
    retry_after: Option<&str>,
    max_retry_after: Duration,
) -> RetryWait {
    match retry_after.and_then(parse_retry_after) {
        Some(asked) if asked > max_retry_after => RetryWait::TooLong {
            seconds: whole_seconds(asked),
        },
        Some(asked) => RetryWait::After(asked),
        None => RetryWait::After(backoff(attempt)),
    }
}

/// Full jitter over `500 ms × 2^attempt`, at most 30 s.
pub fn backoff(attempt: u32) -> Duration {
    let ceiling = BASE_DELAY
        .saturating_mul(2u32.saturating_pow(attempt.min(16)))
        .min(MAX_BACKOFF);
    let millis = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
    Duration::from_millis(random_u64() % (millis + 1))
}

/// Seconds as a user reads them: rounded up, so "1 s" for 300 ms.
pub fn whole_seconds(duration: Duration) -> u64 {
    let seconds = duration.as_secs();
    if duration.subsec_nanos() > 0 {
        seconds.saturating_add(1)
    } else {
        seconds
    }
}

/// `Retry-After` is either delay-seconds or an HTTP-date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>()
        && seconds.is_finite()
        && seconds >= 0.0
    {
        return Some(Duration::from_secs_f64(seconds.min(1e6)));
    }
    let at = parse_http_date(value)?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37
/// GMT`), the form RFC 9110 requires senders to use.
fn parse_http_date(value: &str) -> Option<u64> {
    let rest = value.split_once(", ")?.1;
    let parts: Vec<&str> = rest.split_whitespace().collect();
    let [day, month, year, time, zone] = parts.as_slice() else {
        return None;
    };
    if *zone != "GMT" {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let mut clock = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    u64::try_from(days * 86_400 + hour * 3600 + minute * 60 + second).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// A xorshift generator seeded from the clock: jitter needs spread, not
/// cryptographic quality, and this avoids a `rand` dependency.
fn random_u64() -> u64 {
    thread_local! {
        static STATE: Cell<u64> = Cell::new({
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x9e37_79b9_7f4a_7c15);
            nanos | 1
        });
    }
    STATE.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        x
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        assert_eq!(parse_retry_after("0"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after(" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2028 12:00:00 GMT"),
            Some(1_835_438_400)
        );
    }

    #[test]
    fn long_retry_after_is_reported_not_waited() {
        let cap = Duration::from_secs(30);
        assert_eq!(
            wait_before_retry(0, Some("120"), cap),
            RetryWait::TooLong { seconds: 120 }
        );
        assert_eq!(
            wait_before_retry(0, Some("30"), cap),
            RetryWait::After(Duration::from_secs(30))
        );
        let far = "Fri, 01 Jan 2100 00:00:00 GMT";
        assert!(matches!(
            wait_before_retry(0, Some(far), cap),
            RetryWait::TooLong { seconds } if seconds > 2_000_000_000
        ));
        assert_eq!(
            wait_before_retry(0, Some("0.2"), cap),
            RetryWait::After(Duration::from_millis(200))
        );
        assert_eq!(whole_seconds(Duration::from_millis(200)), 1);
        assert_eq!(whole_seconds(Duration::from_secs(2)), 2);
    }

    #[test]
    fn backoff_grows_with_full_jitter() {
        let cap = Duration::from_secs(30);
        for attempt in 0..6 {
            let ceiling = BASE_DELAY * 2u32.pow(attempt);
            for _ in 0..50 {
                let RetryWait::After(wait) = wait_before_retry(attempt, None, cap) else {
                    panic!("no Retry-After means a backoff");
                };
                assert!(wait <= ceiling.min(MAX_BACKOFF));
            }
        }
        assert!(backoff(40) <= MAX_BACKOFF);
        let spread: std::collections::HashSet<Duration> = (0..20).map(|_| backoff(3)).collect();
        assert!(spread.len() > 1, "jitter varies");
    }

    #[test]
    fn retryable_statuses() {
        for status in [429, 500, 502, 503, 504, 529] {
            assert!(is_retryable_status(status));
        }
        for status in [400, 401, 403, 404, 422, 501] {
            assert!(!is_retryable_status(status));
        }
    }
}
