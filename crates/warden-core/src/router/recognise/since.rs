//! "since" in a request ("1h", "the last 10 minutes", "today"), kept as
//! what the user meant and written out for each consumer: journalctl and
//! the Docker Engine read different syntaxes.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Second,
    Minute,
    Hour,
    Day,
    Week,
}

impl TimeUnit {
    fn parse(word: &str) -> Option<TimeUnit> {
        Some(match word {
            "s" | "sec" | "secs" | "second" | "seconds" => TimeUnit::Second,
            "m" | "min" | "mins" | "minute" | "minutes" => TimeUnit::Minute,
            "h" | "hr" | "hrs" | "hour" | "hours" => TimeUnit::Hour,
            "d" | "day" | "days" => TimeUnit::Day,
            "w" | "week" | "weeks" => TimeUnit::Week,
            _ => return None,
        })
    }

    fn word(self) -> &'static str {
        match self {
            TimeUnit::Second => "second",
            TimeUnit::Minute => "minute",
            TimeUnit::Hour => "hour",
            TimeUnit::Day => "day",
            TimeUnit::Week => "week",
        }
    }

    pub(crate) fn seconds(self) -> u64 {
        match self {
            TimeUnit::Second => 1,
            TimeUnit::Minute => 60,
            TimeUnit::Hour => 3600,
            TimeUnit::Day => 86_400,
            TimeUnit::Week => 604_800,
        }
    }
}

/// The start of a time window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    Ago { amount: u64, unit: TimeUnit },
    Today,
    Yesterday,
}

/// Longest window a route asks for (a year): keeps the numbers sane.
const MAX_SECONDS: u64 = 366 * 86_400;

impl Since {
    /// "1h", "10 minutes", "the last hour", "past 2 days", "an hour ago",
    /// "today", "yesterday"; `None` for anything else.
    pub fn parse(phrase: &str) -> Option<Since> {
        let lower = phrase.trim().to_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        let words = match words.as_slice() {
            ["the", rest @ ..] => rest,
            all => all,
        };
        let words = match words {
            [rest @ .., "ago"] => rest,
            all => all,
        };
        match words {
            ["today"] => Some(Since::Today),
            ["yesterday"] => Some(Since::Yesterday),
            ["last" | "past", rest @ ..] => Since::amount_unit(rest, true),
            rest => Since::amount_unit(rest, false),
        }
    }

    /// "2 hours", "2h", "an hour", and after "last": "hour".
    fn amount_unit(words: &[&str], after_last: bool) -> Option<Since> {
        match words {
            [unit] if after_last && TimeUnit::parse(unit).is_some() => {
                Since::ago(1, TimeUnit::parse(unit)?)
            }
            ["a" | "an" | "one", unit] => Since::ago(1, TimeUnit::parse(unit)?),
            [amount, unit] => Since::ago(amount.parse().ok()?, TimeUnit::parse(unit)?),
            [compact] => {
                let digits: String = compact.chars().take_while(char::is_ascii_digit).collect();
                let unit = TimeUnit::parse(&compact[digits.len()..])?;
                Since::ago(digits.parse().ok()?, unit)
            }
            _ => None,
        }
    }

    fn ago(amount: u64, unit: TimeUnit) -> Option<Since> {
        (amount > 0 && amount.saturating_mul(unit.seconds()) <= MAX_SECONDS)
            .then_some(Since::Ago { amount, unit })
    }

    /// What `journalctl --since` reads: "1 hour ago", "today".
    pub fn journal(self) -> String {
        match self {
            Since::Ago { amount, unit } => {
                let plural = if amount == 1 { "" } else { "s" };
                format!("{amount} {}{plural} ago", unit.word())
            }
            Since::Today => "today".to_string(),
            Since::Yesterday => "yesterday".to_string(),
        }
    }

    /// What `docker logs --since` reads: a Go duration ("90m"), or for
    /// calendar days a Unix timestamp of midnight UTC (`now_unix` is the
    /// current time).
    pub fn docker(self, now_unix: u64) -> String {
        let midnight = now_unix - now_unix % 86_400;
        match self {
            Since::Ago { amount, unit } => {
                let seconds = amount * unit.seconds();
                if seconds % 3600 == 0 {
                    format!("{}h", seconds / 3600)
                } else if seconds % 60 == 0 {
                    format!("{}m", seconds / 60)
                } else {
                    format!("{seconds}s")
                }
            }
            Since::Today => midnight.to_string(),
            Since::Yesterday => midnight.saturating_sub(86_400).to_string(),
        }
    }

    /// For answers, after what was searched: "in the last hour",
    /// "in the last 10 minutes", "today", "since yesterday".
    pub fn describe(self) -> String {
        match self {
            Since::Ago { amount: 1, unit } => format!("in the last {}", unit.word()),
            Since::Ago { amount, unit } => format!("in the last {amount} {}s", unit.word()),
            Since::Today => "today".to_string(),
            Since::Yesterday => "since yesterday".to_string(),
        }
    }
}

/// Seconds since the Unix epoch, for `Since::docker`.
pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases() {
        let hour = Some(Since::Ago {
            amount: 1,
            unit: TimeUnit::Hour,
        });
        for phrase in [
            "1h",
            "1 h",
            "1 hour",
            "an hour",
            "the last hour",
            "last hour",
            "past hour",
            "1 hour ago",
            "the past 1 hour",
            "1hr",
        ] {
            assert_eq!(Since::parse(phrase), hour, "{phrase}");
        }
        assert_eq!(
            Since::parse("the last 10 minutes"),
            Some(Since::Ago {
                amount: 10,
                unit: TimeUnit::Minute
            })
        );
        assert_eq!(Since::parse("Today"), Some(Since::Today));
        assert_eq!(Since::parse("yesterday"), Some(Since::Yesterday));
        for bad in [
            "a while",
            "0h",
            "10 parsecs",
            "",
            "last",
            "999999 weeks",
            "h",
            "1 hour later",
        ] {
            assert_eq!(Since::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn renderings() {
        let two_days = Since::parse("2 days").unwrap();
        assert_eq!(two_days.journal(), "2 days ago");
        assert_eq!(two_days.docker(0), "48h");
        assert_eq!(two_days.describe(), "in the last 2 days");
        assert_eq!(Since::parse("90 min").unwrap().docker(0), "90m");
        assert_eq!(Since::parse("45s").unwrap().docker(0), "45s");
        assert_eq!(Since::parse("1h").unwrap().journal(), "1 hour ago");
        assert_eq!(Since::parse("1h").unwrap().describe(), "in the last hour");
        // 2026-11-23T10:30:00Z → midnight that day, and the day before.
        let now = 1_795_429_800;
        assert_eq!(Since::Today.docker(now), "1795392000");
        assert_eq!(Since::Yesterday.docker(now), "1795305600");
        assert_eq!(Since::Today.journal(), "today");
    }
}
