//! Containers and orchestration: docker (with compose, podman and nerdctl),
//! kubectl (oc, k3s, microk8s), helm, argocd, crictl, ctr and the cluster
//! tools around them.
//!
//! Most of these are cobra/pflag programs: options may come before the
//! subcommand, short options cluster (`-it`), and values come glued (`-n5`,
//! `--tail=5`) or as the next word. [`Words`] walks arguments that way, so each
//! rule can find its subcommands and check every option against an allowlist.

mod argocd;
mod compose;
mod crictl;
mod docker;
mod helm;
mod kubectl;
mod tools;

use super::Rule;
use crate::env_vars;
use crate::invocation::{Arg, Invocation, is_short_cluster};
use crate::verdict::{
    Bound, Inner, Intent, InteractiveCategory, InteractiveVerdict, Verdict, Wrap,
};

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("docker", docker::docker),
    ("podman", docker::podman),
    ("nerdctl", docker::nerdctl),
    ("docker-compose", compose::docker_compose),
    ("podman-compose", compose::docker_compose),
    ("kubectl", kubectl::kubectl),
    ("oc", kubectl::kubectl),
    ("kubecolor", kubectl::kubectl),
    ("microk8s.kubectl", kubectl::kubectl),
    ("helm", helm::helm),
    ("argocd", argocd::argocd),
    ("crictl", crictl::crictl),
    ("ctr", crictl::ctr),
    ("k3s", tools::k3s),
    ("microk8s", tools::microk8s),
    ("k9s", tools::k9s),
    ("kubectx", tools::kubectx),
    ("kubens", tools::kubectx),
    ("stern", tools::stern),
    ("kind", tools::kind),
    ("minikube", tools::minikube),
    ("k3d", tools::k3d),
    ("skopeo", tools::skopeo),
    ("lazydocker", tools::lazydocker),
    ("dive", tools::dive),
];

/// The options a program (or a group of its subcommands) accepts.
pub(super) struct Flags {
    /// Short options that take a value (`-n 5`, `-n5`, `-n=5`).
    pub short_value: &'static str,
    /// Short options without a value.
    pub short_bool: &'static str,
    /// Long options that take a value (`--tail 5`, `--tail=5`).
    pub long_value: &'static [&'static str],
    /// Long options without a value (`--follow`, `--follow=false`).
    pub long_bool: &'static [&'static str],
}

impl Flags {
    fn knows(&self, word: &Word<'_>) -> bool {
        match *word {
            Word::Short { flag, .. } => {
                self.short_value.contains(flag) || self.short_bool.contains(flag)
            }
            Word::Long { name, .. } => {
                self.long_value.contains(&name) || self.long_bool.contains(&name)
            }
            Word::Pos { .. } => true,
        }
    }
}

/// One option or operand, as a pflag-style parser sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Word<'i> {
    /// One flag of a short cluster; `value` is set for flags that take one.
    Short {
        index: usize,
        flag: char,
        value: Option<&'i str>,
    },
    /// A long option (name with `--`) and its `=value` or next-word value.
    Long {
        index: usize,
        name: &'i str,
        value: Option<&'i str>,
    },
    /// An operand; everything after `--` is one.
    Pos { index: usize, text: &'i str },
}

impl Word<'_> {
    pub fn index(&self) -> usize {
        match *self {
            Word::Short { index, .. } | Word::Long { index, .. } | Word::Pos { index, .. } => index,
        }
    }
}

/// Walks arguments pflag-style, with value-taking options from `sets`.
pub(super) struct Words<'i, 'a, 's> {
    args: &'i [Arg<'a>],
    sets: &'s [&'s Flags],
    next: usize,
    /// The short cluster being walked: argument index and byte offset.
    cluster: Option<(usize, usize)>,
    ended: bool,
}

impl<'i, 'a, 's> Words<'i, 'a, 's> {
    pub fn new(args: &'i [Arg<'a>], sets: &'s [&'s Flags]) -> Self {
        Words {
            args,
            sets,
            next: 0,
            cluster: None,
            ended: false,
        }
    }

    fn short_takes_value(&self, flag: char) -> bool {
        self.sets.iter().any(|s| s.short_value.contains(flag))
    }

    fn long_takes_value(&self, name: &str) -> bool {
        self.sets.iter().any(|s| s.long_value.contains(&name))
    }

    /// The next word as an option's value.
    fn take_value(&mut self) -> Option<&'i str> {
        let args = self.args;
        let value = args.get(self.next).map(|a| &*a.text);
        if value.is_some() {
            self.next += 1;
        }
        value
    }
}

impl<'i> Iterator for Words<'i, '_, '_> {
    type Item = Word<'i>;

    fn next(&mut self) -> Option<Word<'i>> {
        let args = self.args;
        loop {
            if let Some((index, offset)) = self.cluster {
                let text: &'i str = args.get(index).map_or("", |a| &*a.text);
                let Some(flag) = text.get(offset..).and_then(|rest| rest.chars().next()) else {
                    self.cluster = None;
                    continue;
                };
                let after = offset + flag.len_utf8();
                if self.short_takes_value(flag) {
                    self.cluster = None;
                    let glued = text.get(after..).unwrap_or_default();
                    let value = if glued.is_empty() {
                        self.take_value()
                    } else {
                        Some(glued.strip_prefix('=').unwrap_or(glued))
                    };
                    return Some(Word::Short { index, flag, value });
                }
                self.cluster = (after < text.len()).then_some((index, after));
                return Some(Word::Short {
                    index,
                    flag,
                    value: None,
                });
            }
            let index = self.next;
            let text: &'i str = &args.get(index)?.text;
            self.next += 1;
            if self.ended {
                return Some(Word::Pos { index, text });
            }
            if text == "--" {
                self.ended = true;
                continue;
            }
            if text.starts_with("--") {
                if let Some((name, value)) = text.split_once('=') {
                    return Some(Word::Long {
                        index,
                        name,
                        value: Some(value),
                    });
                }
                let value = if self.long_takes_value(text) {
                    self.take_value()
                } else {
                    None
                };
                return Some(Word::Long {
                    index,
                    name: text,
                    value,
                });
            }
            if is_short_cluster(text) {
                self.cluster = Some((index, 1));
                continue;
            }
            return Some(Word::Pos { index, text });
        }
    }
}

/// Go's `strconv.ParseBool` for a switch's value; a value it cannot parse
/// makes the program fail, so anything but a false spelling counts as true.
pub(super) fn truthy(value: Option<&str>) -> bool {
    !matches!(value, Some("0" | "f" | "F" | "false" | "FALSE" | "False"))
}

/// The first option that none of `sets` knows, as an unknown verdict.
pub(super) fn unknown_option(args: &[Arg<'_>], sets: &[&Flags]) -> Option<Verdict> {
    Words::new(args, sets)
        .find(|w| !sets.iter().any(|s| s.knows(w)))
        .map(unknown_word)
}

fn unknown_word(word: Word<'_>) -> Verdict {
    match word {
        Word::Short { flag, .. } => Verdict::unknown(format!("unknown option `-{flag}`")),
        Word::Long { name, .. } => Verdict::unknown(format!("unknown option `{name}`")),
        Word::Pos { text, .. } => Verdict::unknown(format!("unknown argument `{text}`")),
    }
}

/// Is any of these options given, in any spelling?
pub(super) fn given(args: &[Arg<'_>], sets: &[&Flags], shorts: &str, longs: &[&str]) -> bool {
    Words::new(args, sets).any(|w| match w {
        Word::Short { flag, .. } => shorts.contains(flag),
        Word::Long { name, .. } => longs.contains(&name),
        Word::Pos { .. } => false,
    })
}

/// The value of the last occurrence of an option.
pub(super) fn value_of<'i>(
    args: &'i [Arg<'_>],
    sets: &[&Flags],
    short: Option<char>,
    long: &str,
) -> Option<Option<&'i str>> {
    Words::new(args, sets)
        .filter_map(|w| match w {
            Word::Short { flag, value, .. } if Some(flag) == short => Some(value),
            Word::Long { name, value, .. } if name == long => Some(value),
            _ => None,
        })
        .last()
}

/// A boolean switch after all its occurrences (`-f`, `--follow`, `--follow=false`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Switch {
    pub given: bool,
    pub on: bool,
    /// The short flag shares a cluster with others (`-ft`): no rewrite then.
    pub clustered: bool,
}

pub(super) fn switch(args: &[Arg<'_>], sets: &[&Flags], short: Option<char>, long: &str) -> Switch {
    let mut state = Switch::default();
    for word in Words::new(args, sets) {
        match word {
            Word::Short { index, flag, .. } if Some(flag) == short => {
                state.given = true;
                state.on = true;
                state.clustered |= args.get(index).is_some_and(|a| a.text.len() != 2);
            }
            Word::Long { name, value, .. } if name == long => {
                state.given = true;
                state.on = truthy(value);
            }
            _ => {}
        }
    }
    state
}

/// Could this word expand into an option we did not see (`$X`, `*`, `-$X`)?
/// A word with a literal head like `app=$X` or `--since=$T` cannot.
pub(super) fn may_be_option(arg: &Arg<'_>) -> bool {
    if arg.is_literal() {
        return false;
    }
    let text = arg.as_str();
    let head = &text[..text.find(['$', '`', '*', '?', '[']).unwrap_or(text.len())];
    head.is_empty() || (head.starts_with('-') && !head.contains('='))
}

pub(super) fn any_may_be_option(args: &[Arg<'_>]) -> bool {
    args.iter().any(may_be_option)
}

/// Is `--dry-run` in effect? pflag keeps the last occurrence; a bare
/// `--dry-run` means client-side. A bare one followed by `none`/`false` is
/// taken as a real run, the careful reading.
pub(super) fn dry_run(args: &[Arg<'_>]) -> bool {
    let mut on = false;
    for (i, arg) in args.iter().enumerate() {
        let text = arg.as_str();
        if text == "--" {
            break;
        }
        if text == "--dry-run" {
            on = !matches!(args.get(i + 1).map(Arg::as_str), Some("none" | "false"));
        } else if let Some(value) = text.strip_prefix("--dry-run=") {
            on = matches!(value, "client" | "server" | "true" | "unchanged");
        }
    }
    on
}

/// The command rebuilt from its raw words: `prog`, the words up to and
/// including `after`, then `insert`, then the remaining words except those
/// `drop` matches.
pub(super) fn rebuild(
    prog: &str,
    inv: &Invocation<'_, '_>,
    after: usize,
    insert: &[&str],
    drop: fn(&str) -> bool,
) -> String {
    let mut out = String::from(prog);
    for (i, arg) in inv.args.iter().enumerate() {
        if i > after && drop(&arg.text) {
            continue;
        }
        out.push(' ');
        out.push_str(arg.raw);
        if i == after {
            for word in insert {
                out.push(' ');
                out.push_str(word);
            }
        }
    }
    out
}

/// `-f`, `--follow`, `--follow=…`.
pub(super) fn is_follow_word(text: &str) -> bool {
    text == "-f" || text == "--follow" || text.starts_with("--follow=")
}

/// Look through to `args[start..]`, asking for a terminal when `tty`.
pub(super) fn tty_wrap(via: &'static str, start: usize, tty: bool) -> Verdict {
    if !tty {
        return Verdict::wrap_argv(via, start);
    }
    Verdict::Wrap(Wrap {
        inner: Inner::Argv { start },
        bound: Bound::None,
        interactive: Some(InteractiveVerdict {
            category: InteractiveCategory::TtyFlag,
            intent: Intent::ReadOnlyCertain,
            rewrite: None,
            reason: "`-t` asks for a terminal".into(),
        }),
        via,
    })
}

/// The first operand after `after` (a sub-subcommand), which must be literal.
// Cold path: the error is the rule's final verdict.
#[allow(clippy::result_large_err)]
pub(super) fn action<'i>(
    inv: &Invocation<'i, '_>,
    after: usize,
    sets: &[&Flags],
) -> Result<(usize, &'i str), Verdict> {
    let rest = inv.args.get(after + 1..).unwrap_or(&[]);
    match Words::new(rest, sets).find(|w| matches!(w, Word::Pos { .. })) {
        Some(Word::Pos { index, text }) => {
            if rest.get(index).is_some_and(Arg::is_variable) {
                Err(Verdict::unknown("the subcommand comes from an expansion"))
            } else {
                Ok((after + 1 + index, text))
            }
        }
        _ => Err(Verdict::unknown("no subcommand")),
    }
}

/// The subcommand after the program's global options: `Ok(None)` when there
/// is none; an unknown verdict for an option no set knows or for a word
/// that comes from an expansion.
// Cold path: the error is the rule's final verdict.
#[allow(clippy::result_large_err)]
pub(super) fn subcommand<'i>(
    inv: &Invocation<'i, '_>,
    sets: &[&Flags],
) -> Result<Option<(usize, &'i str)>, Verdict> {
    for word in Words::new(inv.args, sets) {
        let arg = inv.args.get(word.index());
        match word {
            Word::Pos { .. } if arg.is_some_and(Arg::is_variable) => {
                return Err(Verdict::unknown("the subcommand comes from an expansion"));
            }
            // `--namespace=$NS` is fine; `$OPTS` could be any option.
            _ if arg.is_some_and(may_be_option) => {
                return Err(Verdict::unknown("an option comes from an expansion"));
            }
            Word::Pos { index, text } => return Ok(Some((index, text))),
            _ if !sets.iter().any(|s| s.knows(&word)) => return Err(unknown_word(word)),
            _ => {}
        }
    }
    Ok(None)
}

/// How a wrapper like `docker exec [opts] CONTAINER CMD…` spells its options.
pub(super) struct ExecSpec {
    pub via: &'static str,
    /// Options with a value; `e`/`env` set variables for the inner command.
    pub short_value: &'static str,
    pub long_value: &'static [&'static str],
    /// Harmless switches.
    pub short_bool: &'static str,
    pub long_bool: &'static [&'static str],
    /// Asks for a terminal.
    pub tty: (char, &'static str),
    /// Refuses a terminal (compose's `-T`).
    pub no_tty: Option<(char, &'static [&'static str])>,
    /// Whether a terminal is allocated without being asked for.
    pub tty_default: bool,
    /// Leaves the command running in the background.
    pub detach: Option<(char, &'static str)>,
}

/// Is `NAME=value` (or `NAME`) safe to set for the inner command?
fn env_ok(value: Option<&Arg<'_>>) -> bool {
    value.is_some_and(|arg| {
        arg.is_literal()
            && !env_vars::is_dangerous(arg.as_str().split('=').next().unwrap_or_default())
    })
}

fn env_text_ok(text: &str) -> bool {
    !env_vars::is_dangerous(text.split('=').next().unwrap_or_default())
}

fn detached() -> Verdict {
    Verdict::unknown("`--detach` leaves the command running in the background")
}

/// `WRAPPER [opts] TARGET CMD…` where options stop at the target: look
/// through to `CMD…`. `after` is the index of the `exec` word.
pub(super) fn exec_wrapper(inv: &Invocation<'_, '_>, after: usize, spec: &ExecSpec) -> Verdict {
    let mut tty = spec.tty_default;
    let mut i = after + 1;
    loop {
        let Some(arg) = inv.args.get(i) else {
            return Verdict::unknown("no container");
        };
        let text = arg.as_str();
        if text == "--" {
            i += 1;
            break;
        }
        if !text.starts_with('-') || text.len() == 1 {
            break;
        }
        if arg.is_variable() {
            return Verdict::unknown("an option comes from an expansion");
        }
        if let Some(body) = text.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (body, None),
            };
            if spec.long_value.contains(&name) {
                let ok = match inline {
                    Some(value) => name != "env" || env_text_ok(value),
                    None => {
                        i += 1;
                        name != "env" || env_ok(inv.args.get(i))
                    }
                };
                if !ok {
                    return Verdict::unknown("sets a variable that changes which code runs");
                }
            } else if name == spec.tty.1 {
                tty = truthy(inline);
            } else if spec.no_tty.is_some_and(|(_, longs)| longs.contains(&name)) {
                tty = tty && !truthy(inline);
            } else if spec.detach.is_some_and(|(_, long)| long == name) {
                if truthy(inline) {
                    return detached();
                }
            } else if !spec.long_bool.contains(&name) {
                return Verdict::unknown(format!("unknown option `--{name}`"));
            }
        } else {
            for (pos, c) in text.char_indices().skip(1) {
                if spec.short_value.contains(c) {
                    let glued = &text[pos + c.len_utf8()..];
                    let ok = if glued.is_empty() {
                        i += 1;
                        c != 'e' || env_ok(inv.args.get(i))
                    } else {
                        c != 'e' || env_text_ok(glued.strip_prefix('=').unwrap_or(glued))
                    };
                    if !ok {
                        return Verdict::unknown("sets a variable that changes which code runs");
                    }
                    break;
                }
                if c == spec.tty.0 {
                    tty = true;
                } else if spec.no_tty.is_some_and(|(short, _)| short == c) {
                    tty = false;
                } else if spec.detach.is_some_and(|(short, _)| short == c) {
                    return detached();
                } else if !spec.short_bool.contains(c) {
                    return Verdict::unknown(format!("unknown option `-{c}`"));
                }
            }
        }
        i += 1;
    }
    if inv.args.get(i).is_none() {
        return Verdict::unknown("no container");
    }
    if inv.args.get(i + 1).is_none() {
        return Verdict::unknown("no command to run");
    }
    tty_wrap(spec.via, i + 1, tty)
}

#[cfg(test)]
mod tests;
