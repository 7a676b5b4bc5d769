//! Text helpers every answer uses: byte sizes, clipped and indented
//! output, UTC times, a resource's name with its id, capitalisation.

use warden_protocol::Resource;

pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// At most `max` lines, saying how many were left out.
pub fn clip_lines(text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max {
        return text.to_string();
    }
    format!(
        "{}\n… ({} more lines)",
        lines[..max].join("\n"),
        lines.len() - max
    )
}

/// A block of output, indented, or "(no output)".
pub fn block(text: &str) -> String {
    let text = text.trim_end();
    if text.trim().is_empty() {
        return "  (no output)".to_string();
    }
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Unix time as UTC calendar parts: (year, month, day, hour, minute).
pub fn utc_parts(seconds: i64) -> (i64, u32, u32, u32, u32) {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Howard Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let part = |v: i64| u32::try_from(v).unwrap_or(0);
    (
        year,
        part(month),
        part(day),
        part(rest / 3600),
        part(rest % 3600 / 60),
    )
}

/// "2026-11-23 10:30 UTC".
pub fn utc_time(seconds: i64) -> String {
    let (year, month, day, hour, minute) = utc_parts(seconds);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

/// "web1 (host:web1)".
pub fn named(resource: &Resource) -> String {
    if resource.name == resource.id.to_string() {
        resource.name.clone()
    } else {
        format!("{} ({})", resource.name, resource.id)
    }
}

/// The text with its first letter in upper case.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_times() {
        let cases: &[(i64, &str)] = &[
            (0, "1970-01-01 00:00 UTC"),
            (1_795_429_800, "2026-11-23 10:30 UTC"),
            (951_782_400, "2000-02-29 00:00 UTC"),
            (-60, "1969-12-31 23:59 UTC"),
        ];
        for (seconds, text) in cases {
            assert_eq!(utc_time(*seconds), *text, "{seconds}");
        }
    }

    #[test]
    fn byte_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(10 * 1024 * 1024 * 1024), "10.0 GiB");
    }
}
