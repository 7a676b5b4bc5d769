//! Variables the line itself sets. A word that expands a variable the line
//! assigned could be anything the line put there (`f=../../dev/watchdog;
//! cat "/var/log/$f"`), so it is taken as unknown text. A `for` loop over
//! file names under literal directories sets a plain path, and so do a few
//! variables the shell itself provides (`$HOME`).

use std::borrow::Cow;

use smallvec::SmallVec;

use crate::devices;
use crate::invocation::{Arg, ArgShape};
use crate::shell::ast::*;
use crate::shell::is_name;

/// Builtins whose operands (or `NAME=` operands) are variable names they set.
const ASSIGNERS: &[&str] = &[
    "read",
    "mapfile",
    "readarray",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "getopts",
    "let",
    "printf",
    "wait",
];

/// Variables the shell provides that hold plain values (never options and
/// never device paths). `HOME` cannot be set on the line: it is dangerous.
const SHELL_PATHS: &[&str] = &["HOME", "USER", "LOGNAME", "PWD", "HOSTNAME", "UID", "EUID"];

#[derive(Default)]
pub(super) struct Vars {
    /// Set by `for NAME in` file names under literal directories.
    paths: Names,
    /// Set any other way.
    other: Names,
}

/// Variable names, kept in one buffer (one allocation for the line).
#[derive(Default)]
struct Names {
    /// Each name followed by a `\n` (never part of a name).
    text: String,
}

impl Names {
    fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.text.push('\n');
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.text.split_terminator('\n')
    }

    fn contains(&self, name: &str) -> bool {
        self.iter().any(|n| n == name)
    }
}

impl Vars {
    /// Add the variables `script` sets, anywhere (a loop can set one after
    /// it is used).
    pub(super) fn add(&mut self, script: &Script<'_>) {
        self.script(script);
        if self.paths.text.is_empty() {
            return;
        }
        let mut kept = Names::default();
        for p in self.paths.iter() {
            if !self.other.contains(p) {
                kept.push(p);
            }
        }
        self.paths = kept;
    }

    fn script(&mut self, script: &Script<'_>) {
        for item in &script.items {
            for pipeline in &item.pipelines {
                for command in &pipeline.commands {
                    match command {
                        Command::Simple(simple) => self.simple(simple),
                        Command::Compound(compound) => self.compound(compound),
                    }
                }
            }
        }
    }

    fn compound(&mut self, compound: &Compound<'_>) {
        if let Some(var) = compound.var {
            let plain = !compound.words.is_empty()
                && compound.words.iter().all(|w| {
                    matches!(w.shape, ArgShape::Literal | ArgShape::Glob)
                        && !w.braces
                        && w.text.starts_with(['/', '.'])
                        && devices::literal_kind(&w.text).is_none()
                        && !devices::glob_may_name_device(&w.text)
                });
            if plain && compound.kind == CompoundKind::For {
                self.paths.push(var);
            } else {
                self.other.push(var);
            }
        }
        for body in &compound.bodies {
            self.script(body);
        }
        for word in &compound.words {
            self.word(word);
        }
    }

    fn simple(&mut self, simple: &SimpleCommand<'_>) {
        for assignment in &simple.assignments {
            self.other.push(assignment.name);
            self.word(&assignment.value);
        }
        for word in &simple.words {
            self.word(word);
        }
        let Some((name, args)) = simple.words.split_first() else {
            return;
        };
        if ASSIGNERS.contains(&&*name.text) {
            for arg in args {
                let head = arg.text.split_once('=').map_or(&*arg.text, |(n, _)| n);
                let head = head.split('[').next().unwrap_or(head);
                if is_name(head) {
                    self.other.push(head);
                }
            }
        }
    }

    /// `${x:=v}` and `${x=v}` assign; substitutions set variables too.
    fn word(&mut self, word: &Word<'_>) {
        let raw = word.raw;
        // Most words have no `${`: one pass over the bytes says so.
        let mut rest = if raw.as_bytes().windows(2).any(|w| w == b"${") {
            raw
        } else {
            ""
        };
        // Each `${` in turn (a `$` then a `{`: no substring searcher).
        while let Some(at) = rest.find('$') {
            let Some(after) = rest[at + 1..].strip_prefix('{') else {
                rest = &rest[at + 1..];
                continue;
            };
            let name_len = after
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let op = &after[name_len..];
            if name_len > 0 && (op.starts_with(":=") || op.starts_with('=')) {
                self.other.push(&after[..name_len]);
            }
            rest = &after[name_len..];
        }
        for sub in &word.substitutions {
            if let Substitution::Parsed(script) = sub {
                self.script(script);
            }
        }
    }

    /// The argument as the walk should see it: unknown text when it expands
    /// a variable the line set (or a command's output); a plain path when
    /// it is one quoted path variable.
    pub(super) fn resolve<'w>(&self, arg: Arg<'w>) -> Arg<'w> {
        if arg.shape != ArgShape::Dynamic {
            return arg;
        }
        let raw = arg.raw;
        let names = expanded_names(raw);
        let substitutes = raw.contains("$(") || raw.contains('`');
        let assigned = names.iter().any(|n| self.other.contains(n));
        if substitutes || assigned {
            return Arg {
                text: Cow::Borrowed("$…"),
                raw,
                shape: ArgShape::Dynamic,
            };
        }
        // `"$f"`, `"${f}"`, `"$HOME/x"`: one word that starts with a path.
        let inner = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"'));
        let plain_start = |name: &str| self.paths.contains(name) || SHELL_PATHS.contains(&name);
        let quoted_one_var = inner.is_some_and(|i| !i.contains('"'))
            && names.first().is_some_and(|n| plain_start(n))
            && names
                .iter()
                .all(|n| plain_start(n) || !self.other.contains(n))
            && inner.is_some_and(|i| i.starts_with('$'));
        // `$HOME/x` unquoted: the shell's own values hold no spaces.
        let shell_value = raw.starts_with('$')
            && !names.is_empty()
            && names
                .iter()
                .all(|n| SHELL_PATHS.contains(n) && !self.other.contains(n))
            && !raw.contains(['"', '\'', '*', '?', '[']);
        if quoted_one_var || shell_value {
            return Arg {
                shape: ArgShape::Inert,
                ..arg
            };
        }
        arg
    }
}

/// The variable names a word expands (`$x`, `${x}`, `${x:-…}`).
fn expanded_names(raw: &str) -> SmallVec<[&str; 4]> {
    let mut names = SmallVec::new();
    let bytes = raw.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'\'' {
            // Single quotes hide expansions.
            i += 1;
            while bytes.get(i).is_some_and(|&c| c != b'\'') {
                i += 1;
            }
        } else if b == b'$' {
            let start = if bytes.get(i + 1) == Some(&b'{') {
                i + 2
            } else {
                i + 1
            };
            let len = bytes[start.min(bytes.len())..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            if len > 0 {
                names.push(&raw[start..start + len]);
            }
            i = start + len;
            continue;
        }
        i += 1;
    }
    names
}
