//! GNU `getopt_long` abbreviations (`--foll` for `--follow`), read
//! conservatively: the allowlist does not list every option a program has,
//! and getopt takes an exact name over any abbreviation. So a prefix is the
//! listed option only when it is the prefix of no other listed option and
//! does not look like a complete option name of its own: it does not end
//! where a word of the listed name ends (`--trace` of `--trace-time`), and
//! its last word is not a word option names are made of (`--config` of a
//! listed `--configreport` is LVM's own `--config`), and it is longer
//! than one letter.

use std::sync::LazyLock;

use super::LongKind;

/// The words of long option names (see `words.txt`), sorted.
static WORDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    include_str!("words.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect()
});

/// Could `word` (the last, maybe partial, word of an abbreviation) be a
/// whole word of an option name?
fn is_option_word(word: &str) -> bool {
    word.len() >= 2
        && WORDS
            .binary_search(&word.to_ascii_lowercase().as_str())
            .is_ok()
}

/// The one listed option that `head` (`--…`, without a value) safely
/// abbreviates, if any.
pub(super) fn expand(
    head: &str,
    listed: impl Iterator<Item = (&'static str, LongKind)>,
) -> Option<(&'static str, LongKind)> {
    let body = head.strip_prefix("--")?;
    // One letter (`--t`) abbreviates too much to be the option of a table
    // that does not list them all.
    if body.len() < 2 {
        return None;
    }
    let mut found: Option<(&'static str, LongKind)> = None;
    for (name, kind) in listed {
        let Some(rest) = name.strip_prefix(head) else {
            continue;
        };
        if rest.starts_with('-') {
            return None;
        }
        match found {
            // The same option listed in two sets.
            Some((first, _)) if first == name => {}
            Some(_) => return None,
            None => found = Some((name, kind)),
        }
    }
    let last_word = body.rsplit('-').next().unwrap_or(body);
    if found.is_some() && is_option_word(last_word) {
        return None;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTED: &[&str] = &[
        "--follow",
        "--no-pager",
        "--configreport",
        "--trace-time",
        "--lines",
    ];

    fn expanded(head: &str) -> Option<&'static str> {
        expand(head, LISTED.iter().map(|n| (*n, LongKind::Flag))).map(|(n, _)| n)
    }

    #[test]
    fn a_unique_prefix_that_is_no_option_word_is_the_option() {
        assert_eq!(expanded("--fo"), Some("--follow"));
        assert_eq!(expanded("--foll"), Some("--follow"));
        assert_eq!(expanded("--no-pag"), Some("--no-pager"));
        assert_eq!(expanded("--lin"), Some("--lines"));
    }

    #[test]
    fn a_prefix_that_may_be_an_option_of_its_own_is_not() {
        // Ends where a word ends.
        assert_eq!(expanded("--trace"), None);
        assert_eq!(expanded("--no"), None);
        // Ends in a word option names are made of.
        assert_eq!(expanded("--config"), None);
        assert_eq!(expanded("--line"), None);
        assert_eq!(expanded("--no-page"), None);
        // Nothing listed starts so; one letter.
        assert_eq!(expanded("--x"), None);
        assert_eq!(expanded("--f"), None);
        assert_eq!(expanded("--"), None);
    }

    #[test]
    fn the_word_list_is_sorted_lowercase_words() {
        let words: Vec<&str> = include_str!("words.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect();
        assert!(words.len() > 1000);
        assert!(words.windows(2).all(|w| w[0] < w[1]));
        assert!(words.iter().all(|w| {
            w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        }));
        for word in [
            "config", "trace", "output", "exec", "command", "file", "script",
        ] {
            assert!(is_option_word(word), "{word}");
        }
    }
}
