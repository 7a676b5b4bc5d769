//! Times for people: local RFC 3339 and how long ago. Machine output
//! (`--json`) keeps its timestamps as they are.

use jiff::Timestamp;
use jiff::tz::TimeZone;

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    warden_world::now_ms()
}

/// `2026-11-23T13:05:02+01:00`, in the system's time zone.
pub fn local_rfc3339(ms: u64) -> String {
    let Ok(ms) = i64::try_from(ms) else {
        return format!("{ms} ms after the epoch");
    };
    match Timestamp::from_millisecond(ms) {
        Ok(at) => at
            .to_zoned_datetime(TimeZone::system())
            .strftime("%Y-%m-%dT%H:%M:%S%:z")
            .to_string(),
        Err(_) => format!("{ms} ms after the epoch"),
    }
}

/// `3 min ago`, `in 4 min`, `just now`.
pub fn relative(ms: u64, now_ms: u64) -> String {
    let (seconds, future) = if ms > now_ms {
        ((ms - now_ms) / 1000, true)
    } else {
        ((now_ms - ms) / 1000, false)
    };
    let span = match seconds {
        0..=4 => return "just now".to_string(),
        5..=59 => format!("{seconds} s"),
        60..=3599 => format!("{} min", seconds / 60),
        3600..=86_399 => format!("{} h", seconds / 3600),
        _ => format!("{} d", seconds / 86_400),
    };
    if future {
        format!("in {span}")
    } else {
        format!("{span} ago")
    }
}

/// Both: `2026-11-23T13:05:02+01:00 (3 min ago)`.
pub fn when(ms: u64, now_ms: u64) -> String {
    format!("{} ({})", local_rfc3339(ms), relative(ms, now_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_read_naturally() {
        let now = 1_000_000_000;
        assert_eq!(relative(now, now), "just now");
        assert_eq!(relative(now - 30_000, now), "30 s ago");
        assert_eq!(relative(now - 180_000, now), "3 min ago");
        assert_eq!(relative(now - 7_200_000, now), "2 h ago");
        assert_eq!(relative(now + 240_000, now), "in 4 min");
        assert_eq!(relative(now - 3 * 86_400_000, now), "3 d ago");
    }

    #[test]
    fn local_times_are_rfc3339_with_an_offset() {
        let text = local_rfc3339(1_795_000_000_000);
        assert_eq!(text.len(), 25, "{text}");
        assert!(text.starts_with("2026-"), "{text}");
        assert_eq!(&text[10..11], "T");
    }
}
