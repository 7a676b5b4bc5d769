//! Text the line itself feeds to a program that runs it: `echo 'rm -rf /' |
//! sh`, `sh <<< '…'`, `cat <<EOF | bash`, `echo / | xargs rm -rf`. What such
//! a program runs is unknown to the classifier (the line is a write), but the
//! catastrophic check reads the text anyway.

use crate::catastrophic;
use crate::invocation::Arg;
use crate::shell::ast::{Command, Heredoc, RedirectOp, SimpleCommand};
use crate::verdict::Reason;

/// Programs that run the text on their standard input (or, for `xargs`,
/// append it to a command).
const RUNS_INPUT: &[&str] = &[
    "sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "busybox", "xargs", "perl", "python",
    "python3", "ruby", "node", "php", "lua",
];

/// Is `name` one of [`RUNS_INPUT`]? (A `match` on the name: no scan of the list.)
fn runs_input(name: &str) -> bool {
    let known = matches!(
        name,
        "sh" | "bash"
            | "dash"
            | "ash"
            | "zsh"
            | "ksh"
            | "mksh"
            | "busybox"
            | "xargs"
            | "perl"
            | "python"
            | "python3"
            | "ruby"
            | "node"
            | "php"
            | "lua"
    );
    debug_assert_eq!(known, RUNS_INPUT.contains(&name));
    known
}

/// The catastrophic reason for running what the line feeds `consumer`:
/// the output of `previous` in its pipeline, or its own heredoc or
/// here-string.
pub(super) fn catastrophic_input(
    previous: Option<&Command<'_>>,
    consumer: &SimpleCommand<'_>,
    heredocs: &[Heredoc<'_>],
) -> Option<Reason> {
    let runs_input = consumer.words.iter().any(|w| {
        let text: &str = &w.text;
        if text.len() < 2 {
            return false;
        }
        // The base name: after the last `/`. Every name is 2 to 7 bytes
        // long, so only the last 8 bytes are looked at.
        let tail = text.len().saturating_sub(8);
        let base = match text.as_bytes()[tail..].iter().rposition(|&b| b == b'/') {
            Some(slash) => &text[tail + slash + 1..],
            None if tail == 0 => text,
            None => return false,
        };
        runs_input(base)
    });
    if !runs_input {
        return None;
    }
    if let Some(reason) = find_feeds_deleter(previous, consumer) {
        return Some(reason);
    }
    let fed = own_input(consumer, heredocs).or_else(|| match previous {
        Some(Command::Simple(simple)) => printed_text(simple, heredocs),
        _ => None,
    })?;
    if let Some(reason) = catastrophic::scan_unparsed(&fed) {
        return Some(reason);
    }
    // `xargs CMD` appends the words it reads to CMD.
    let words: Vec<&str> = consumer.words.iter().map(|w| &*w.text).collect();
    let appended = format!("{} {}", words.join(" "), fed.replace('\n', " "));
    catastrophic::scan_unparsed(&appended)
}

/// `find / -size +100M | xargs rm -f`: the names of a whole system tree,
/// fed to a program that deletes them.
fn find_feeds_deleter(
    previous: Option<&Command<'_>>,
    consumer: &SimpleCommand<'_>,
) -> Option<Reason> {
    let Some(Command::Simple(find)) = previous else {
        return None;
    };
    let (name, words) = find.words.split_first()?;
    if name.text.rsplit('/').next() != Some("find")
        || !consumer
            .words
            .iter()
            .any(|w| catastrophic::is_deleter(&w.text))
    {
        return None;
    }
    let args: Vec<Arg<'_>> = words
        .iter()
        .map(|w| Arg {
            text: w.text.clone(),
            raw: w.raw,
            shape: w.shape,
        })
        .collect();
    let start = catastrophic::find_whole_tree(&args)?;
    Some(format!("`find {} | xargs rm` deletes the system", start.raw).into())
}

/// A heredoc or here-string on the command itself.
fn own_input(simple: &SimpleCommand<'_>, heredocs: &[Heredoc<'_>]) -> Option<String> {
    simple.redirects.iter().find_map(|r| match r.op {
        RedirectOp::Herestring => Some(unescape(&r.target.text)),
        RedirectOp::Heredoc => r
            .heredoc
            .and_then(|i| heredocs.get(i))
            .map(|h| h.body.to_string()),
        _ => None,
    })
}

/// What `echo …`, `printf …` or `cat <<EOF` print, as far as the words tell.
fn printed_text(simple: &SimpleCommand<'_>, heredocs: &[Heredoc<'_>]) -> Option<String> {
    let (name, args) = simple.words.split_first()?;
    match name.text.rsplit('/').next().unwrap_or_default() {
        "echo" | "printf" => {
            let words: Vec<&str> = args.iter().map(|w| &*w.text).collect();
            Some(unescape(&words.join(" ")))
        }
        "cat" if args.is_empty() => own_input(simple, heredocs),
        _ => None,
    }
}

/// `\n` and `\t` as `echo -e` and `printf` print them; the scan drops other
/// backslashes.
fn unescape(text: &str) -> String {
    text.replace("\\n", "\n").replace("\\t", " ")
}
