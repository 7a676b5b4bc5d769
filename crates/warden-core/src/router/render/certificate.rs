//! A TLS certificate's expiry in words, from `openssl x509 -enddate
//! -subject -issuer` output: days left (or since it expired), subject,
//! issuer, and the host it was seen from.

use warden_protocol::Resource;

use super::format::{block, clip_lines, named};

/// How long the connection may take (the answer says so when it fails).
pub const TIMEOUT_SECS: u32 = 5;

pub fn describe(name: &str, runner: &Resource, stdout: &str, now_unix: i64) -> String {
    let field = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .map(str::trim)
    };
    let Some(not_after) = field("notAfter=") else {
        return format!(
            "No certificate came back from {name} (checked from {}): the connection failed within {TIMEOUT_SECS} s, the name does not resolve, or it does not speak TLS.{}",
            named(runner),
            if stdout.trim().is_empty() {
                String::new()
            } else {
                format!("\n{}", block(&clip_lines(stdout, 6)))
            }
        );
    };
    let mut text = match parse_openssl_date(not_after) {
        Some(expiry) => {
            let days = (expiry - now_unix).div_euclid(86_400);
            let when = if expiry <= now_unix {
                format!("EXPIRED {} day(s) ago", (now_unix - expiry) / 86_400)
            } else if days < 1 {
                "expires in less than a day".to_string()
            } else {
                format!("expires in {days} day{}", if days == 1 { "" } else { "s" })
            };
            format!("The certificate of {name} {when}: valid until {not_after}.")
        }
        None => format!("The certificate of {name} is valid until {not_after}."),
    };
    if let Some(subject) = field("subject=") {
        text.push_str(&format!("\n  subject: {subject}"));
    }
    if let Some(issuer) = field("issuer=") {
        text.push_str(&format!("\n  issuer:  {issuer}"));
    }
    text.push_str(&format!("\n  (as seen from {})", named(runner)));
    text
}

/// "Jan  1 00:00:00 2027 GMT" → Unix seconds.
fn parse_openssl_date(text: &str) -> Option<i64> {
    let f: Vec<&str> = text.split_whitespace().collect();
    let [month, day, time, year, "GMT"] = f.as_slice() else {
        return None;
    };
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as i64
        + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let mut hms = time.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(
            parse_openssl_date("Nov 23 10:30:00 2026 GMT"),
            Some(1_795_429_800)
        );
        assert_eq!(parse_openssl_date("Nov 23 2026"), None);
    }

    #[test]
    fn answers() {
        let runner = Resource::new(
            warden_protocol::ResourceId::global(warden_protocol::ResourceKind::Host, "web1"),
            "web1",
        );
        let now = 1_795_429_800; // 2026-11-23T10:30:00Z
        let out = "notAfter=Jan  2 10:30:00 2027 GMT\nsubject=CN=example.com\nissuer=C=US, O=Let's Encrypt, CN=R11\n";
        let text = describe("example.com:443", &runner, out, now);
        assert!(
            text.starts_with("The certificate of example.com:443 expires in 40 days"),
            "{text}"
        );
        assert!(text.contains("issuer:  C=US, O=Let's Encrypt"), "{text}");
        let expired = describe(
            "old.example:443",
            &runner,
            "notAfter=Nov 20 10:30:00 2026 GMT\n",
            now,
        );
        assert!(expired.contains("EXPIRED 3 day(s) ago"), "{expired}");
        let nothing = describe("down.example:443", &runner, "", now);
        assert!(
            nothing.starts_with("No certificate came back from down.example:443"),
            "{nothing}"
        );
    }
}
