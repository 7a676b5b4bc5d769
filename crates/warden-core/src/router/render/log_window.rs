//! "since" for log files, which have no `--since`: the read prints the
//! host's clock (`@@warden:now EPOCH ±HHMM`) before the file's last lines,
//! and only the entries at or after the window's start are kept, judged
//! by the time each entry carries in the host's own time zone. Syslog's
//! `Nov 28 10:12:01` (no year: the host's current one, or the year
//! before for a date ahead of the host's clock) and ISO 8601 stamps
//! (`2026-11-28T10:12:01.5+01:00`, `2026-11-28 10:12:01`) are read; a line
//! without a stamp belongs to the entry above it.

use crate::router::recognise::since::Since;

/// The marker of the clock line a file read starts with.
pub const CLOCK_MARKER: &str = "@@warden:now";

/// The host's clock, as the read printed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostClock {
    /// Seconds since the Unix epoch.
    pub now: i64,
    /// The host's offset from UTC, in seconds.
    pub offset: i64,
}

impl HostClock {
    /// `@@warden:now 1795429800 +0100`.
    pub fn parse(line: &str) -> Option<HostClock> {
        let mut words = line.strip_prefix(CLOCK_MARKER)?.split_whitespace();
        let now = words.next()?.parse().ok()?;
        let offset = parse_offset(words.next()?)?;
        Some(HostClock { now, offset })
    }

    /// When the window of `since` starts, in seconds since the epoch:
    /// calendar days are the host's own.
    pub fn window_start(self, since: Since) -> i64 {
        let local_midnight = {
            let local = self.now + self.offset;
            local - local.rem_euclid(86_400) - self.offset
        };
        match since {
            Since::Ago { amount, unit } => {
                let seconds =
                    i64::try_from(amount.saturating_mul(unit.seconds())).unwrap_or(i64::MAX);
                self.now.saturating_sub(seconds)
            }
            Since::Today => local_midnight,
            Since::Yesterday => local_midnight - 86_400,
        }
    }
}

/// What a file read with a clock line holds for a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Windowed<'t> {
    /// The lines of the entries at or after the window's start.
    pub lines: Vec<&'t str>,
    /// The first line read is already inside the window: older entries of
    /// the window may lie beyond what was read.
    pub maybe_cut: bool,
    /// No line carried a time Warden can read.
    pub undated: bool,
}

/// The entries of `stdout` (a clock line, then the file's lines) at or
/// after the start of `since`; `None` without a clock line.
pub fn lines_since(stdout: &str, since: Since) -> Option<Windowed<'_>> {
    let mut lines = stdout.lines();
    let clock = lines.by_ref().find_map(HostClock::parse)?;
    let start = clock.window_start(since);
    let mut kept = Vec::new();
    let mut inside = false;
    let mut first_dated = None;
    // The output cap dropped the middle of a long read: what follows the
    // marker starts mid-line, and entries of the window may be gone.
    let mut after_gap = false;
    let mut maybe_cut = false;
    for line in lines {
        if is_omission_marker(line) {
            inside = false;
            after_gap = true;
            continue;
        }
        if let Some(at) = line_time(line, clock) {
            inside = at >= start;
            first_dated.get_or_insert(inside);
            if after_gap {
                maybe_cut |= inside;
                after_gap = false;
            }
        }
        if inside {
            kept.push(line);
        }
    }
    Some(Windowed {
        lines: kept,
        maybe_cut: maybe_cut || first_dated == Some(true),
        undated: first_dated.is_none(),
    })
}

/// The line the output cap puts where it dropped bytes.
fn is_omission_marker(line: &str) -> bool {
    line.starts_with("… [") && line.ends_with("bytes omitted] …")
}

/// The read of a file's last `lines` lines (those containing `filter`
/// when given), after the host's clock line.
pub fn dated_read(path: &str, lines: usize, filter: Option<&str>) -> String {
    use crate::executor::commands::quote;
    let clock = format!("date {}", quote(&format!("+{CLOCK_MARKER} %s %z")));
    match filter {
        None => format!("{clock}; tail -n {lines} -- {}", quote(path)),
        Some(filter) => format!(
            "{clock}; grep -i -F -e {} -- {} | tail -n {lines}",
            quote(filter),
            quote(path)
        ),
    }
}

/// The time a log line starts with, in seconds since the epoch.
fn line_time(line: &str, clock: HostClock) -> Option<i64> {
    iso_time(line, clock).or_else(|| syslog_time(line, clock))
}

/// `2026-11-28T10:12:01(.frac)(Z|±HH:MM|±HHMM)` or with a space.
fn iso_time(line: &str, clock: HostClock) -> Option<i64> {
    let b = line.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let num = |range: std::ops::Range<usize>| line.get(range)?.parse::<i64>().ok();
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let mut rest = &line[19..];
    if let Some(frac) = rest.strip_prefix(['.', ',']) {
        rest = frac.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let offset = match rest.chars().next() {
        Some('Z') => 0,
        Some('+' | '-') => parse_offset(rest.split_whitespace().next()?)?,
        _ => clock.offset,
    };
    Some(civil_seconds(year, month, day, hour, minute, second)? - offset)
}

/// `Nov 28 10:12:01` (the day may be space-padded), in the host's zone.
fn syslog_time(line: &str, clock: HostClock) -> Option<i64> {
    let month = MONTHS
        .iter()
        .position(|m| line.get(..3).is_some_and(|p| p.eq_ignore_ascii_case(m)))?;
    let rest = line.get(3..)?.trim_start();
    let (day, rest) = rest.split_once(' ')?;
    let day: i64 = day.parse().ok()?;
    let time = rest.get(..8)?;
    let parts: Vec<i64> = time.split(':').filter_map(|p| p.parse().ok()).collect();
    let [hour, minute, second] = parts.as_slice() else {
        return None;
    };
    let local_now = clock.now + clock.offset;
    let year = year_of(local_now);
    let at = |year| {
        civil_seconds(year, month as i64 + 1, day, *hour, *minute, *second)
            .map(|t| t - clock.offset)
    };
    let this_year = at(year)?;
    // A date ahead of the host's clock is last year's (December's lines
    // read in January).
    if this_year > clock.now + 86_400 {
        at(year - 1)
    } else {
        Some(this_year)
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `+0100`, `-05:30`, `Z`.
fn parse_offset(text: &str) -> Option<i64> {
    if text == "Z" {
        return Some(0);
    }
    let sign = match text.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let digits: String = text[1..].chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let hours: i64 = digits[..2].parse().ok()?;
    let minutes: i64 = digits[2..].parse().ok()?;
    Some(sign * (hours * 3600 + minutes * 60))
}

/// Seconds since the epoch of a civil date and time (UTC), `None` for
/// impossible fields.
fn civil_seconds(
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
) -> Option<i64> {
    let valid = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..24).contains(&hour)
        && (0..60).contains(&minute)
        && (0..=60).contains(&second);
    valid.then(|| days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days since 1970-01-01 (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil year of a time (seconds since the epoch, already local).
fn year_of(local: i64) -> i64 {
    let days = local.div_euclid(86_400);
    // Inverse of days_from_civil, year only.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-11-28T10:30:00Z; the host is at +01:00 (11:30 local).
    const NOW: i64 = 1_795_861_800;

    fn read(lines: &[&str]) -> String {
        let mut text = format!("{CLOCK_MARKER} {NOW} +0100\n");
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    #[test]
    fn civil_dates_round_trip() {
        assert_eq!(civil_seconds(1970, 1, 1, 0, 0, 0), Some(0));
        assert_eq!(civil_seconds(2026, 11, 28, 10, 30, 0), Some(NOW));
        assert_eq!(year_of(NOW), 2026);
        assert_eq!(
            year_of(civil_seconds(2024, 12, 31, 23, 59, 59).unwrap()),
            2024
        );
        assert_eq!(year_of(civil_seconds(2025, 1, 1, 0, 0, 0).unwrap()), 2025);
        assert_eq!(civil_seconds(2026, 13, 1, 0, 0, 0), None);
    }

    #[test]
    fn entries_inside_the_window_are_kept_with_their_continuation_lines() {
        let hour = Since::parse("1h").unwrap();
        let text = read(&[
            "Nov 28 09:10:00 web1 cron[1]: old (10:10 local is 09:10Z, before 09:30Z)",
            "Nov 28 10:40:00 web1 app[2]: inside (09:40Z)",
            "    continuation of the inside entry",
            "2026-11-28T10:20:00+00:00 web1 app: inside, ISO with offset",
            "2026-11-28T10:20:00 web1 app: outside, ISO in local time (09:20Z)",
            "Nov  28 11:29:59 web1 app: padded day, inside",
        ]);
        let got = lines_since(&text, hour).unwrap();
        assert_eq!(
            got.lines,
            vec![
                "Nov 28 10:40:00 web1 app[2]: inside (09:40Z)",
                "    continuation of the inside entry",
                "2026-11-28T10:20:00+00:00 web1 app: inside, ISO with offset",
                "Nov  28 11:29:59 web1 app: padded day, inside",
            ]
        );
        assert!(!got.maybe_cut);
        assert!(!got.undated);
    }

    #[test]
    fn calendar_days_are_the_hosts_and_a_date_ahead_is_last_year() {
        let text = read(&[
            "Nov 27 23:59:59 h x: yesterday local",
            "Nov 28 00:00:01 h x: today local",
        ]);
        let today = lines_since(&text, Since::Today).unwrap();
        assert_eq!(today.lines, vec!["Nov 28 00:00:01 h x: today local"]);
        let text = read(&["Dec 31 10:00:00 h x: last year"]);
        assert!(
            lines_since(&text, Since::Yesterday)
                .unwrap()
                .lines
                .is_empty()
        );
    }

    #[test]
    fn a_window_that_starts_before_the_read_may_be_cut_and_undated_files_say_so() {
        let hour = Since::parse("1h").unwrap();
        let text = read(&["Nov 28 11:00:00 h x: inside"]);
        let cut = lines_since(&text, hour).unwrap();
        assert!(cut.maybe_cut);
        let gap = read(&[
            "Nov 28 09:00:00 h x: outside",
            "… [4096 bytes omitted] …",
            "ment of a line",
            "Nov 28 11:00:00 h x: inside",
        ]);
        let gap = lines_since(&gap, hour).unwrap();
        assert_eq!(gap.lines, vec!["Nov 28 11:00:00 h x: inside"]);
        assert!(gap.maybe_cut);
        let text = read(&["no time here", "nor here"]);
        let undated = lines_since(&text, hour).unwrap();
        assert!(undated.undated && undated.lines.is_empty());
        assert_eq!(lines_since("no clock line\n", hour), None);
    }
}
