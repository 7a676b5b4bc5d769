//! The nearest supported phrasings for a request the router did not
//! understand: every phrasing it supports, compared word by word with
//! typos forgiven ("disk usgae" → "disk usage"). Placeholders (NAME, HOST,
//! …) take the request's own words when it has some left over.

/// Supported phrasings; upper-case words are placeholders.
const PHRASINGS: &[&str] = &[
    "disk usage",
    "disk usage including containers",
    "memory usage",
    "cpu usage",
    "load average",
    "network usage",
    "is NAME running",
    "status of NAME",
    "logs of NAME",
    "NAME logs with \"TEXT\" since 1h",
    "last 20 lines of the syslog",
    "errors in the last hour",
    "top processes by cpu",
    "top processes by memory",
    "open ports",
    "what is listening on port PORT",
    "who is logged in",
    "kernel version",
    "pending updates",
    "failed units",
    "certificate expiry of HOST:443",
    "why did NAME exit",
    "list services",
    "list containers",
    "list resources",
    "restart NAME",
    "stop NAME",
    "start NAME",
    "stop NAME and NAME",
    "list vms",
    "list guests",
    "memory of NAME this week",
    "cpu of NAME today",
    "snapshots of NAME",
    "take a snapshot of NAME",
    "roll back NAME to SNAPSHOT",
    "reboot NAME",
    "shutdown NAME",
    "remember NOTE",
    "recall TOPIC",
    "explain `COMMAND`",
    "help",
];

/// Words that carry no meaning for matching.
const FILLER: &[&str] = &[
    "the", "a", "an", "of", "is", "me", "show", "please", "my", "in", "what", "whats", "what's",
    "on", "for", "get", "check", "by",
];

/// Optimal string alignment distance (Levenshtein plus adjacent swaps).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// How many edits a word of this length may have and still be "the same
/// word mistyped": none for short words, where one edit is another word.
pub fn tolerance(word: &str) -> usize {
    match word.chars().count() {
        0..=3 => 0,
        4..=5 => 1,
        _ => 2,
    }
}

/// Whether `typed` is `word`, allowing for typos.
pub fn same_word(typed: &str, word: &str) -> bool {
    typed == word || distance(typed, word) <= tolerance(word).min(tolerance(typed).max(1))
}

fn is_placeholder(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_uppercase())
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '?' || c == '!')
        .map(|w| w.trim_matches(|c: char| c == '.' || c == '"' || c == '`' || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A phrasing's score against the request's words, and the phrasing with
/// its placeholders filled from words the keywords did not use.
fn score(phrasing: &str, request: &[String]) -> Option<(f64, String)> {
    let template = words(phrasing);
    let keywords: Vec<&String> = template
        .iter()
        .filter(|w| !is_placeholder(w) && !FILLER.contains(&w.as_str()))
        .collect();
    if keywords.is_empty() {
        return None;
    }
    let mut used = vec![false; request.len()];
    let mut matched = 0.0;
    for keyword in &keywords {
        let keyword = keyword.to_lowercase();
        let best = request
            .iter()
            .enumerate()
            .filter(|(i, w)| !used[*i] && same_word(w, &keyword))
            .min_by_key(|(_, w)| distance(w, &keyword));
        if let Some((i, w)) = best {
            used[i] = true;
            matched += if *w == keyword { 1.0 } else { 0.8 };
        }
    }
    let mut left = request
        .iter()
        .enumerate()
        .filter(|(i, w)| !used[*i] && !FILLER.contains(&w.as_str()))
        .map(|(_, w)| w.clone());
    let filled: Vec<String> = template
        .iter()
        .map(|w| {
            if is_placeholder(w) && w.chars().all(|c| c.is_ascii_uppercase()) {
                left.next().unwrap_or_else(|| w.clone())
            } else {
                w.clone()
            }
        })
        .collect();
    Some((matched / keywords.len() as f64, filled.join(" ")))
}

/// Up to `max` phrasings close to `text`, best first; none when nothing
/// is close enough to be a useful hint.
pub fn nearest(text: &str, max: usize) -> Vec<String> {
    let lower = text.to_lowercase();
    let request = words(&lower);
    // "… on web1" stays with the suggestion.
    let host = request
        .windows(2)
        .rev()
        .find(|p| p[0] == "on")
        .map(|p| p[1].clone());
    let body: Vec<String> = match &host {
        Some(h) => {
            let cut = request.len().saturating_sub(2);
            if request.get(cut + 1) == Some(h) {
                request[..cut].to_vec()
            } else {
                request.clone()
            }
        }
        None => request.clone(),
    };
    let mut scored: Vec<(f64, String)> = PHRASINGS
        .iter()
        .filter_map(|p| score(p, &body))
        .filter(|(s, _)| *s >= 0.75)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out: Vec<String> = Vec::new();
    for (_, phrasing) in scored {
        let phrasing = match &host {
            Some(h) if !phrasing.contains(" on ") => format!("{phrasing} on {h}"),
            _ => phrasing,
        };
        if !out.contains(&phrasing) {
            out.push(phrasing);
        }
        if out.len() == max {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("usgae", "usage"), 1);
        assert_eq!(distance("dsik", "disk"), 1);
        assert_eq!(distance("memroy", "memory"), 1);
        assert_eq!(distance("nginx", "nginx"), 0);
        assert_eq!(distance("", "abc"), 3);
        assert!(same_word("restrat", "restart"));
        assert!(!same_word("cpu", "cpd"));
        assert!(!same_word("redis", "reload"));
    }

    #[test]
    fn suggestions() {
        let cases: &[(&str, &str)] = &[
            ("disk usgae", "disk usage"),
            ("dsik usage on pve1", "disk usage on pve1"),
            ("memroy usage", "memory usage"),
            ("opne ports", "open ports"),
            ("kernal version", "kernel version"),
            ("pending updtaes", "pending updates"),
            ("faild units", "failed units"),
            ("top proceses by memroy", "top processes by memory"),
            ("restrat nginx", "restart nginx"),
            ("lgos of nginx", "logs of nginx"),
            ("snapshtos of web", "snapshots of web"),
            ("roll bak web to base", "roll back web to base"),
        ];
        for (text, expected) in cases {
            let found = nearest(text, 3);
            assert_eq!(
                found.first().map(String::as_str),
                Some(*expected),
                "{text}: {found:?}"
            );
        }
        for far in ["what should I name my cat", "hello there", "bake a cake"] {
            assert_eq!(nearest(far, 3), Vec::<String>::new(), "{far}");
        }
    }
}
