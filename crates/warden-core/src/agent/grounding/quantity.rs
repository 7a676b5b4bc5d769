//! Numbers with or without units, and whether two of them say the same:
//! `1.5G` and `1.5 GiB`, `3.2 GiB` and `3435973836` bytes, `12 days` and
//! `1036800` seconds, `4.2` and `4.21` (the answer may round or cut off
//! its last digit), `1,204` and `1204`.

use std::sync::OnceLock;

use regex::Regex;

/// What a number measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    Bytes,
    Percent,
    Seconds,
    Plain,
}

/// A number as written, with its unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    /// The number as written (`3.2` of `3.2 GiB`).
    pub number: f64,
    /// One unit of the last digit written (`0.1` for `3.2`).
    pub ulp: f64,
    pub dimension: Dimension,
    /// The unit in the dimension's base unit, read binary and decimal
    /// (`GB` is written for both): bytes per `G`, seconds per `day`.
    pub scales: [f64; 2],
}

fn number_unit() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?:^|[^\w.,:/-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)(?:\s?(%|°\s?[cf]|[a-zäöüéèñ/]+))?",
        )
        .ok()
    })
    .as_ref()
}

/// Every number in `text` (lower case), with the unit that follows it.
/// Numbers inside identifiers (`web1`, `6.8.12-4`, `10.0.0.5`, `09:42`)
/// are not quantities: they are matched as text.
pub fn quantities(text: &str) -> Vec<Quantity> {
    let Some(re) = number_unit() else {
        return Vec::new();
    };
    re.captures_iter(text)
        .filter_map(|caps| {
            let digits = caps.get(1)?;
            let after = &text[digits.end()..];
            // Part of a version, an address, a time or a name: not a quantity.
            if after.starts_with(['.', ':', '-', '_'])
                && after[1..].starts_with(|c: char| c.is_ascii_digit())
            {
                return None;
            }
            let (number, ulp) = parse_number(digits.as_str())?;
            let unit = caps.get(2).map_or("", |m| m.as_str());
            let (dimension, scales) = unit_of(unit);
            Some(Quantity {
                number,
                ulp,
                dimension,
                scales,
            })
        })
        .collect()
}

/// `1,204` → 1204 (ulp 1); `1,5` → 1.5 (ulp 0.1); `3.20` → 3.2 (ulp 0.01).
fn parse_number(digits: &str) -> Option<(f64, f64)> {
    // `1,204` and `12,345,678` group thousands; `1,5` is a decimal comma.
    let thousands = digits
        .split('.')
        .next()
        .is_some_and(|int| int.contains(',') && int.split(',').skip(1).all(|g| g.len() == 3));
    let plain = if thousands {
        digits.replace(',', "")
    } else {
        digits.replace(',', ".")
    };
    let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len());
    let number: f64 = plain.parse().ok()?;
    let ulp = 10f64.powi(-i32::try_from(decimals).ok()?);
    Some((number, ulp))
}

const KI: f64 = 1024.0;

fn unit_of(unit: &str) -> (Dimension, [f64; 2]) {
    let unit = unit.trim_end_matches("/s");
    let bytes = |power: i32| (Dimension::Bytes, [KI.powi(power), 1000f64.powi(power)]);
    let seconds = |s: f64| (Dimension::Seconds, [s, s]);
    match unit {
        "%" | "percent" | "prozent" | "pct" => (Dimension::Percent, [1.0, 1.0]),
        "b" | "byte" | "bytes" | "octets" => bytes(0),
        "k" | "kb" | "kib" | "ko" | "kilobytes" | "kbytes" => bytes(1),
        "m" | "mb" | "mib" | "mo" | "megabytes" | "mbytes" => bytes(2),
        "g" | "gb" | "gib" | "go" | "gigabytes" | "gbytes" => bytes(3),
        "t" | "tb" | "tib" | "to" | "terabytes" => bytes(4),
        "p" | "pb" | "pib" => bytes(5),
        "ms" | "milliseconds" => seconds(0.001),
        "s" | "sec" | "secs" | "second" | "seconds" | "sekunden" | "secondes" | "segundos" => {
            seconds(1.0)
        }
        "min" | "mins" | "minute" | "minutes" | "minuten" | "minutos" => seconds(60.0),
        "h" | "hr" | "hrs" | "hour" | "hours" | "stunden" | "heures" | "horas" => seconds(3600.0),
        "d" | "day" | "days" | "tage" | "tagen" | "jours" | "días" | "dias" => seconds(86400.0),
        "w" | "week" | "weeks" | "wochen" | "semaines" | "semanas" => seconds(604_800.0),
        _ => (Dimension::Plain, [1.0, 1.0]),
    }
}

/// Whether `seen` (from evidence) is what `said` (in an answer) states:
/// the same number as written, or the same amount in another unit of the
/// same dimension, allowing the answer to round or cut its last digit.
pub fn same(said: &Quantity, seen: &Quantity) -> bool {
    // A bare number on either side says nothing of the unit.
    if said.dimension == Dimension::Plain || seen.dimension == Dimension::Plain {
        return close(said.number, said.ulp, seen.number);
    }
    if said.dimension != seen.dimension {
        return false;
    }
    said.scales.iter().any(|said_scale| {
        seen.scales
            .iter()
            .any(|seen_scale| close(said.number, said.ulp, seen.number * seen_scale / said_scale))
    })
}

/// `value` rounds or cuts off to `number` at `ulp`.
fn close(number: f64, ulp: f64, value: f64) -> bool {
    let tolerance = ulp * 1e-6;
    value >= number - ulp / 2.0 - tolerance && value < number + ulp - tolerance
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Quantity {
        let found = quantities(text);
        assert_eq!(found.len(), 1, "{text}: {found:?}");
        found[0]
    }

    #[test]
    fn equal_amounts_in_any_spelling_match() {
        for (said, seen) in [
            ("1.5 gib", "1.5g"),
            ("1.5g", "1.5 gb"),
            ("3.2 gib", "3435973836 bytes"),
            ("1.5 gb", "1536m"),
            ("12 days", "1036800 s"),
            ("4.2", "4.21"),
            ("93%", "93 %"),
            ("1,204 jobs", "1204"),
            ("312 messages", "312"),
            ("2,1 gb", "2.1g"),
            ("23 ms", "23.4ms"),
        ] {
            assert!(same(&one(said), &one(seen)), "{said} vs {seen}");
        }
    }

    #[test]
    fn different_amounts_do_not_match() {
        for (said, seen) in [
            ("1.5 gib", "2.5g"),
            ("312 messages", "313"),
            ("4.2", "4.4"),
            ("93%", "39%"),
            ("12 days", "12 hours"),
            ("3 gb", "3 days"),
            ("1.5 gib", "1.5 mb"),
        ] {
            assert!(!same(&one(said), &one(seen)), "{said} vs {seen}");
        }
    }

    #[test]
    fn numbers_inside_identifiers_are_no_quantities() {
        for text in ["web1", "6.8.12-4-pve", "10.0.0.5", "09:42", "sda1", "k3s-2"] {
            assert!(
                quantities(text).is_empty(),
                "{text}: {:?}",
                quantities(text)
            );
        }
    }
}
