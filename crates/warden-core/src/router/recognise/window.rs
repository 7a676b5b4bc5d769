//! The window of a history request ("this week", "today", "the last
//! 24h", "past 3 days"), as the smallest range Proxmox keeps history for
//! (`rrddata` timeframes: hour, day, week, month, year) that covers it.

use crate::tools::args::HistoryRange;

/// A history window as asked and as it will be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub range: HistoryRange,
    /// The phrase as asked, normalised ("this week", "the last 3 days").
    pub asked: String,
    /// Whether the range is exactly what was asked (else it covers more).
    pub exact: bool,
}

const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;
const WEEK: u64 = 7 * DAY;
const MONTH: u64 = 31 * DAY;
const YEAR: u64 = 366 * DAY;

impl Window {
    /// A window phrase, or `None` when it is not one.
    pub fn parse(phrase: &str) -> Option<Window> {
        let lower = phrase.trim().to_lowercase();
        let mut words: Vec<&str> = lower.split_whitespace().collect();
        if words
            .first()
            .is_some_and(|w| ["over", "during", "in", "for", "within", "from"].contains(w))
        {
            words.remove(0);
        }
        if words.first() == Some(&"the") {
            words.remove(0);
        }
        let asked = words.join(" ");
        let (seconds, exact) = match words.as_slice() {
            ["today"] => (DAY, false),
            ["this" | "last" | "past", unit] if unit_seconds(unit).is_some() => {
                (unit_seconds(unit)?, true)
            }
            ["last" | "past", rest @ ..] => amount(rest)?,
            rest => amount(rest)?,
        };
        let range = [
            (HOUR, HistoryRange::Hour),
            (DAY, HistoryRange::Day),
            (WEEK, HistoryRange::Week),
            (MONTH, HistoryRange::Month),
            (YEAR, HistoryRange::Year),
        ]
        .into_iter()
        .find(|(span, _)| seconds <= *span)
        .map(|(_, range)| range)?;
        let asked = if matches!(words.first(), Some(&"last" | &"past")) {
            format!("the {asked}")
        } else {
            asked
        };
        Some(Window {
            range,
            asked,
            exact,
        })
    }

    /// "the past week".
    pub fn describe(&self) -> String {
        format!("the past {}", self.range.as_str())
    }

    /// What to add to an answer when the range covers more than was asked.
    pub fn note(&self) -> Option<String> {
        (!self.exact).then(|| {
            format!(
                "(You asked for {}; Proxmox keeps history by hour, day, week, month and year, so this is {}.)",
                self.asked,
                self.describe()
            )
        })
    }
}

/// "3 days", "24h", "24 hours": the span in seconds, and whether it is
/// exactly one of the ranges.
fn amount(words: &[&str]) -> Option<(u64, bool)> {
    let (count, unit) = match words {
        [count, unit] => (count.parse::<u64>().ok()?, unit_seconds(unit)?),
        [compact] => {
            let digits: String = compact.chars().take_while(char::is_ascii_digit).collect();
            (
                digits.parse::<u64>().ok()?,
                unit_seconds(&compact[digits.len()..])?,
            )
        }
        _ => return None,
    };
    let seconds = count.checked_mul(unit).filter(|s| *s > 0)?;
    let exact = [HOUR, DAY, WEEK].contains(&seconds)
        || (28 * DAY..=MONTH).contains(&seconds)
        || (360 * DAY..=YEAR).contains(&seconds);
    Some((seconds, exact))
}

fn unit_seconds(word: &str) -> Option<u64> {
    Some(match word {
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => HOUR,
        "d" | "day" | "days" => DAY,
        "w" | "week" | "weeks" => WEEK,
        "mo" | "month" | "months" => 30 * DAY,
        "y" | "yr" | "year" | "years" => 365 * DAY,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use HistoryRange::{Day, Hour, Month, Week, Year};

    #[test]
    fn phrases_become_the_smallest_range_that_covers_them() {
        let cases: &[(&str, HistoryRange, bool)] = &[
            ("this week", Week, true),
            ("over the past week", Week, true),
            ("last week", Week, true),
            ("today", Day, false),
            ("the last 24h", Day, true),
            ("last 24 hours", Day, true),
            ("in the last hour", Hour, true),
            ("past 30 minutes", Hour, false),
            ("past 3 days", Week, false),
            ("7d", Week, true),
            ("this month", Month, true),
            ("the last 30 days", Month, true),
            ("last 2 months", Year, false),
            ("this year", Year, true),
            ("for the last 12 months", Year, true),
        ];
        for (phrase, range, exact) in cases {
            let window = Window::parse(phrase).unwrap_or_else(|| panic!("{phrase}"));
            assert_eq!((window.range, window.exact), (*range, *exact), "{phrase}");
        }
        for not in [
            "",
            "now",
            "week",
            "this",
            "last",
            "0h",
            "2 years",
            "10 parsecs",
            "yesterday",
            "soon",
        ] {
            assert_eq!(Window::parse(not), None, "{not}");
        }
    }

    #[test]
    fn a_wider_range_says_so() {
        let window = Window::parse("the past 3 days").unwrap();
        assert_eq!(window.describe(), "the past week");
        assert_eq!(
            window.note().unwrap(),
            "(You asked for the past 3 days; Proxmox keeps history by hour, day, week, month and year, so this is the past week.)"
        );
        assert_eq!(Window::parse("this week").unwrap().note(), None);
    }
}
