//! Where a typed command is aimed: `uptime on h2`, `run df -h on web1`,
//! `uptime @h2`, `on h2: uptime`, `@h2: uptime`. The name is split off
//! the command before anything reads it, so a command aimed at another
//! machine never runs here with the name as an argument (`uptime h2`).
//!
//! The split is by form only; whether the name is a host or guest is the
//! router's question, and a name it does not know is refused, never run
//! here. A trailing `@NAME` is the DNS server of `dig`, `drill`, `kdig`
//! and `delv` (`dig example.com @1.1.1.1`), so for them only `on NAME`
//! aims the command.

/// A request split into what to run and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aimed<'t> {
    /// The request without its target.
    pub rest: &'t str,
    /// The host or guest named, as typed (without `@`).
    pub on: Option<&'t str>,
}

/// Programs whose own syntax ends with `@SERVER`.
const AT_IS_AN_ARGUMENT: &[&str] = &["dig", "drill", "kdig", "delv"];

/// Split a target off a request that may be a command. Only the forms
/// above count; a request with none is returned whole.
pub fn split(text: &str) -> Aimed<'_> {
    let text = text.trim();
    if let Some(aimed) = leading(text) {
        return aimed;
    }
    if let Some(aimed) = trailing(text) {
        return aimed;
    }
    Aimed {
        rest: text,
        on: None,
    }
}

/// `on NAME: rest`, `@NAME: rest`: the first word ends with the colon.
fn leading(text: &str) -> Option<Aimed<'_>> {
    let body = strip_word_ignore_case(text, "on")
        .map(str::trim_start)
        .or_else(|| text.strip_prefix('@'))?;
    let end = body.find(char::is_whitespace)?;
    let name = body[..end].strip_suffix(':')?.trim_start_matches('@');
    let rest = body[end..].trim();
    (is_name(name) && !rest.is_empty()).then_some(Aimed {
        rest,
        on: Some(name),
    })
}

/// `rest on NAME`, `rest on @NAME`, `rest @NAME`.
fn trailing(text: &str) -> Option<Aimed<'_>> {
    let (before, last) = text.rsplit_once(char::is_whitespace)?;
    let before = before.trim_end();
    if before.is_empty() {
        return None;
    }
    if let Some(name) = last.strip_prefix('@') {
        let (rest, on_word) = match before.rsplit_once(char::is_whitespace) {
            Some((rest, word)) if word.eq_ignore_ascii_case("on") => (rest.trim_end(), true),
            _ => (before, false),
        };
        if !on_word && at_is_an_argument(rest) {
            return None;
        }
        return (is_name(name) && !rest.is_empty()).then_some(Aimed {
            rest,
            on: Some(name),
        });
    }
    let (rest, word) = before.rsplit_once(char::is_whitespace)?;
    (word.eq_ignore_ascii_case("on") && is_name(last)).then(|| Aimed {
        rest: rest.trim_end(),
        on: Some(last),
    })
}

fn at_is_an_argument(command: &str) -> bool {
    let first = command
        .split_whitespace()
        .find(|w| !w.contains('='))
        .unwrap_or_default();
    let program = first.rsplit('/').next().unwrap_or(first);
    AT_IS_AN_ARGUMENT.contains(&program)
}

/// A host or guest name or id as typed: `h2`, `web1.lan`, `vm:pve1:101`,
/// not a path, an option, a variable or shell syntax.
fn is_name(word: &str) -> bool {
    let Some(first) = word.chars().next() else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
        && !word.ends_with(['.', ':'])
}

fn strip_word_ignore_case<'t>(text: &'t str, word: &str) -> Option<&'t str> {
    let head = text.get(..word.len())?;
    let rest = &text[word.len()..];
    (head.eq_ignore_ascii_case(word) && rest.starts_with(char::is_whitespace)).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_split_off_in_every_form() {
        let rows: &[(&str, &str, Option<&str>)] = &[
            ("uptime on h2", "uptime", Some("h2")),
            (
                "run cat /etc/hostname on h2",
                "run cat /etc/hostname",
                Some("h2"),
            ),
            ("df -h on web1", "df -h", Some("web1")),
            ("uptime @h2", "uptime", Some("h2")),
            ("uptime on @h2", "uptime", Some("h2")),
            ("on h2: uptime", "uptime", Some("h2")),
            ("On web1.lan:   df -h /", "df -h /", Some("web1.lan")),
            (
                "@h2: cat /etc/os-release",
                "cat /etc/os-release",
                Some("h2"),
            ),
            ("on vm:pve1:101: uptime", "uptime", Some("vm:pve1:101")),
            ("journalctl -n 5 ON Pve1", "journalctl -n 5", Some("Pve1")),
            // Not a target: the DNS server of dig, a path, an option,
            // a variable, shell syntax, or no command before it.
            ("dig example.com @1.1.1.1", "dig example.com @1.1.1.1", None),
            ("dig example.com on h2", "dig example.com", Some("h2")),
            ("dig example.com on @h2", "dig example.com", Some("h2")),
            ("grep on /etc/hosts", "grep on /etc/hosts", None),
            ("ls on -l", "ls on -l", None),
            ("echo on $HOST", "echo on $HOST", None),
            ("on h2", "on h2", None),
            ("@h2", "@h2", None),
            ("uptime", "uptime", None),
            ("ssh root@h2", "ssh root@h2", None),
            (
                "systemctl status getty@tty1",
                "systemctl status getty@tty1",
                None,
            ),
            ("on h2 uptime", "on h2 uptime", None),
            ("on: uptime", "on: uptime", None),
            ("on h2:", "on h2:", None),
        ];
        for (text, rest, on) in rows {
            let aimed = split(text);
            assert_eq!((aimed.rest, aimed.on), (*rest, *on), "{text}");
        }
    }
}
