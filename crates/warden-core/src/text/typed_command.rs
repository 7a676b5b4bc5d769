//! A request that is itself a shell command ("df -h", "systemctl status
//! nginx", "$ uptime", "run docker ps"). The command policy knows which
//! programs exist; a sentence that merely starts with one ("top processes
//! by memory?") is not taken for a command.

/// Explicit prefixes that say "this is a command".
const RUN_PREFIXES: &[&str] = &["$ ", "# ", "run ", "exec ", "execute ", "sh ", "shell "];

/// A request that is itself a shell command, and the host or guest it is
/// aimed at (`uptime on h2`, `uptime @h2`, `on h2: uptime`), if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedCommand {
    pub command: String,
    /// The name as typed; `None` is this machine.
    pub on: Option<String>,
}

/// The command in a request that is itself a shell command, and where it
/// is aimed. A target is split off before the command is read, so it is
/// never an argument of the command.
pub fn typed_command(text: &str) -> Option<TypedCommand> {
    let aimed = super::aimed::split(text);
    command_in(aimed.rest).map(|command| TypedCommand {
        command,
        on: aimed.on.map(str::to_string),
    })
}

/// The command `original` (already trimmed) is: after an explicit prefix
/// (unquoted), or the whole text when it looks like a command.
fn command_in(original: &str) -> Option<String> {
    for prefix in RUN_PREFIXES {
        if let Some(rest) = strip_prefix_ignore_case(original, prefix) {
            let command = unquote(rest.trim());
            if !command.is_empty() && warden_policy::shell::parse(command).is_ok() {
                return Some(command.to_string());
            }
        }
    }
    looks_like_command(original).then(|| original.to_string())
}

fn strip_prefix_ignore_case<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// A known program (to the command policy) as the first word, and the text
/// parses as shell. Questions and prose are not commands.
pub fn looks_like_command(text: &str) -> bool {
    let text = text.trim();
    if text.is_empty() || text.ends_with('?') {
        return false;
    }
    let first = text
        .split_whitespace()
        .find(|w| !w.contains('='))
        .unwrap_or_default();
    let program = first.rsplit('/').next().unwrap_or(first);
    if warden_policy::commands::lookup(program).is_none() {
        return false;
    }
    // Prose that happens to start with a program name: "top processes by
    // memory", "free space on pve1", "watch the logs".
    let prose = text
        .split_whitespace()
        .skip(1)
        .take(4)
        .any(|w| PROSE_WORDS.contains(&w.to_lowercase().as_str()));
    !prose && warden_policy::shell::parse(text).is_ok()
}

/// Words that occur in requests but rarely as arguments right after a
/// program name.
const PROSE_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "is",
    "are",
    "of",
    "my",
    "our",
    "your",
    "me",
    "processes",
    "space",
    "on",
    "for",
    "with",
    "what",
    "which",
    "please",
    "usage",
    "used",
    "logs",
    "about",
    "and",
    "to",
];

/// The text inside one pair of quotes or backquotes around all of it.
pub fn unquote(text: &str) -> &str {
    for (open, close) in [('`', '`'), ('"', '"'), ('\'', '\''), ('“', '”')] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            return inner.trim();
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_prose() {
        for command in [
            "df -h",
            "systemctl status nginx",
            "uptime",
            "docker ps -a",
            "free -m",
            "ls /var/log",
        ] {
            assert!(looks_like_command(command), "{command}");
        }
        for prose in [
            "top processes by memory",
            "free space on pve1",
            "is nginx running?",
            "how are you",
            "watch the logs",
            "tail the logs of nginx",
        ] {
            assert!(!looks_like_command(prose), "{prose}");
        }
    }
}
