//! The end of a request after its subject: "on web1", "since 1h", "with
//! \"timeout\"", in any order. Quoted text is one filter, exactly as typed
//! (a "since" inside quotes is text). Anything not understood makes the
//! whole tail unparsed, so a fast path never half-reads a request.

use super::since::Since;

/// What a tail may contain, per route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    Host,
    Since,
    Filter,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tail {
    pub on: Option<String>,
    pub since: Option<Since>,
    pub filter: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
}

impl Token {
    fn word(&self) -> Option<String> {
        match self {
            Token::Word(w) => Some(w.to_lowercase()),
            Token::Quoted(_) => None,
        }
    }
}

const QUOTES: [(char, char); 5] = [('"', '"'), ('\'', '\''), ('`', '`'), ('“', '”'), ('‘', '’')];

/// Words and quoted strings; `None` when a quote is not closed. A quote
/// only opens at the start of a word, so "it's" stays a word.
fn tokens(text: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let first = rest.chars().next()?;
        if let Some((_, close)) = QUOTES.iter().find(|(open, _)| *open == first) {
            let inner = &rest[first.len_utf8()..];
            let end = inner.find(*close)?;
            out.push(Token::Quoted(inner[..end].to_string()));
            rest = inner[end + close.len_utf8()..].trim_start();
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = rest[..end].trim_end_matches([',', ';']);
        if !word.is_empty() {
            out.push(Token::Word(word.to_string()));
        }
        rest = rest[end..].trim_start();
    }
    Some(out)
}

const SINCE_WORDS: &[&str] = &["since", "from", "in", "over", "for", "during", "within"];
const FILTER_WORDS: &[&str] = &[
    "with",
    "containing",
    "matching",
    "mentioning",
    "about",
    "grep",
    "for",
    "including",
];
const HOST_WORDS: &[&str] = &["on", "at"];

/// Parse a tail; `None` when something in it is not a modifier `allowed`.
pub fn parse(text: &str, allowed: &[Modifier]) -> Option<Tail> {
    let tokens = tokens(text)?;
    let mut tail = Tail::default();
    let mut i = 0;
    while i < tokens.len() {
        let word = tokens[i].word();
        let word = word.as_deref();
        if let Some(next) = since_at(&tokens, i).filter(|_| allowed.contains(&Modifier::Since)) {
            if tail.since.is_some() {
                return None;
            }
            tail.since = Some(next.0);
            i = next.1;
        } else if matches!(word, Some("in"))
            && matches!(word_at(&tokens, i + 1), Some("them" | "it"))
        {
            // "… with timeout in them".
            i += 2;
        } else if HOST_WORDS.contains(&word.unwrap_or_default())
            && allowed.contains(&Modifier::Host)
            && tail.on.is_none()
        {
            let (name, next) = host_at(&tokens, i + 1)?;
            tail.on = Some(name);
            i = next;
        } else if allowed.contains(&Modifier::Filter) && tail.filter.is_none() {
            let (filter, next) = filter_at(&tokens, i)?;
            tail.filter = Some(filter);
            i = next;
        } else {
            return None;
        }
    }
    Some(tail)
}

fn word_at(tokens: &[Token], i: usize) -> Option<&str> {
    match tokens.get(i)? {
        Token::Word(w) => Some(w.as_str()),
        Token::Quoted(_) => None,
    }
}

/// A since phrase at `i` (with an optional preposition): the window and
/// the index after it.
fn since_at(tokens: &[Token], i: usize) -> Option<(Since, usize)> {
    let start = match tokens.get(i)?.word() {
        Some(w) if SINCE_WORDS.contains(&w.as_str()) => i + 1,
        _ => i,
    };
    // The longest phrase that parses: "the last 10 minutes ago" is 5 words.
    (start + 1..=(start + 5).min(tokens.len()))
        .rev()
        .find_map(|end| {
            let words: Option<Vec<String>> = tokens[start..end].iter().map(Token::word).collect();
            Since::parse(&words?.join(" ")).map(|since| (since, end))
        })
}

fn host_at(tokens: &[Token], mut i: usize) -> Option<(String, usize)> {
    while matches!(
        word_at(tokens, i).map(str::to_lowercase).as_deref(),
        Some("the" | "host" | "node" | "server")
    ) && tokens.len() > i + 1
    {
        i += 1;
    }
    let name = word_at(tokens, i)?.trim_start_matches('@').to_lowercase();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c));
    valid.then_some((name, i + 1))
}

/// A filter at `i`: a quoted string (after an optional filter word), or
/// the words after a filter word up to the next modifier.
fn filter_at(tokens: &[Token], i: usize) -> Option<(String, usize)> {
    let start = match tokens.get(i)? {
        Token::Quoted(text) => return non_empty(text).map(|t| (t, i + 1)),
        Token::Word(w) if FILTER_WORDS.contains(&w.to_lowercase().as_str()) => i + 1,
        Token::Word(_) => return None,
    };
    let start = match word_at(tokens, start).map(str::to_lowercase).as_deref() {
        Some("the" | "text" | "word" | "string") if tokens.len() > start + 1 => start + 1,
        _ => start,
    };
    if let Some(Token::Quoted(text)) = tokens.get(start) {
        return non_empty(text).map(|t| (t, start + 1));
    }
    let mut end = start;
    while end < tokens.len() {
        let stop = match &tokens[end] {
            Token::Quoted(_) => true,
            Token::Word(w) => {
                let w = w.to_lowercase();
                since_at(tokens, end).is_some()
                    || HOST_WORDS.contains(&w.as_str())
                    || (w == "in" && matches!(word_at(tokens, end + 1), Some("them" | "it")))
            }
        };
        if stop {
            break;
        }
        end += 1;
    }
    let words: Vec<&str> = tokens[start..end]
        .iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            Token::Quoted(_) => None,
        })
        .collect();
    let text = match words.as_slice() {
        // The usual plurals of a log level: "with errors" finds "error".
        [one] => singular_level(one).unwrap_or(one).to_string(),
        _ => words.join(" "),
    };
    non_empty(&text).map(|t| (t, end))
}

fn singular_level(word: &str) -> Option<&'static str> {
    match word.to_lowercase().as_str() {
        "errors" | "error" => Some("error"),
        "warnings" | "warning" => Some("warn"),
        "failures" | "failed" => Some("fail"),
        _ => None,
    }
}

fn non_empty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::router::recognise::since::TimeUnit;

    const ALL: &[Modifier] = &[Modifier::Host, Modifier::Since, Modifier::Filter];

    fn hours(amount: u64) -> Option<Since> {
        Some(Since::Ago {
            amount,
            unit: TimeUnit::Hour,
        })
    }

    /// A tail, and the host, window and filter expected from it.
    type Row<'a> = (&'a str, Option<&'a str>, Option<Since>, Option<&'a str>);

    #[test]
    fn tails() {
        let cases: Vec<Row<'_>> = vec![
            ("", None, None, None),
            (
                " with \"timeout\" since 1h",
                None,
                hours(1),
                Some("timeout"),
            ),
            (
                " since 1h with \"timeout\"",
                None,
                hours(1),
                Some("timeout"),
            ),
            (" with timeout since 1h", None, hours(1), Some("timeout")),
            (
                " containing 'it''s broken' on web1",
                Some("web1"),
                None,
                Some("it"),
            ),
            (
                " with \"since 1h\" on web1",
                Some("web1"),
                None,
                Some("since 1h"),
            ),
            (
                " with connection refused in the last 2 hours",
                None,
                hours(2),
                Some("connection refused"),
            ),
            (
                " on web1 over the past 2 hours",
                Some("web1"),
                hours(2),
                None,
            ),
            (" \"Timeout\"", None, None, Some("Timeout")),
            (
                " with errors today",
                None,
                Some(Since::Today),
                Some("error"),
            ),
            (" with timeout in them", None, None, Some("timeout")),
            (" for the last hour", None, hours(1), None),
            (" for `OOM`", None, None, Some("OOM")),
        ];
        for (text, on, since, filter) in cases {
            let tail = parse(text, ALL);
            // `'it''s broken'` is two quoted strings: the second is refused.
            if text.contains("it''s") {
                assert_eq!(tail, None, "{text}");
                continue;
            }
            let tail = tail.unwrap_or_else(|| panic!("{text}"));
            assert_eq!(tail.on.as_deref(), on, "{text}");
            assert_eq!(tail.since, since, "{text}");
            assert_eq!(tail.filter.as_deref(), filter, "{text}");
        }
    }

    #[test]
    fn what_is_not_a_modifier_fails_the_tail() {
        for text in [
            " and redis",
            " of nginx",
            " please now",
            " with \"unclosed",
            " since forever",
        ] {
            assert_eq!(parse(text, ALL), None, "{text}");
        }
        // Only what the route allows.
        assert_eq!(
            parse(" with timeout", &[Modifier::Host, Modifier::Since]),
            None
        );
        assert_eq!(
            parse(" on web1 since today", &[Modifier::Host, Modifier::Since])
                .map(|t| (t.on, t.since)),
            Some((Some("web1".to_string()), Some(Since::Today)))
        );
    }
}
