//! The paths a command line names, for the refusal of Warden's protected
//! paths ([`protect`]).
//!
//! Every word is read — program names, arguments, assignment values,
//! redirect targets, heredoc bodies, the scripts inside substitutions and
//! the text of nested shells (`sh -c '…'`) — after quote removal and brace
//! expansion, and split where a path may be embedded (`if=/x`, `@/x`,
//! `'…'` inside SQL, `-f/x`). Globs stay patterns; text computed at run
//! time (`$VAR`, `$(…)`) is a wildcard that matches anything, slashes
//! included. A line that cannot be parsed is read as plain text the same
//! way. Over-reading is the safe direction: a word that is not a path
//! simply names nothing protected.

mod pattern;
pub mod protect;

use crate::shell::ast::{Command, Dialect, Parsed, Script, SimpleCommand, Substitution, Word};
use crate::shell::braces::expand_braces;
use crate::shell::parse_as;

pub use pattern::{ClassItem, Pattern, Tok, Wildcards};

/// Past this nesting (substitutions in substitutions), the rest of the
/// text is read as plain text.
const MAX_NESTING: usize = 16;

/// One path a command may touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    pub pattern: Pattern,
    /// Whether the command reads it recursively (`grep -r`, `tar`, `cp -r`,
    /// `find … -exec`, a list fed to `xargs`): a directory here exposes
    /// everything below it.
    pub recursive: bool,
}

/// Everything a command line names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mentions {
    pub paths: Vec<Mention>,
    /// Directories the command changes into (`cd DIR`, `-C DIR`,
    /// `--directory=DIR`): relative paths may be read from there.
    pub dirs: Vec<Pattern>,
}

impl Mentions {
    /// The paths `command` names, read as `dialect` reads it.
    pub fn of(command: &str, dialect: Dialect) -> Mentions {
        let mut mentions = Mentions::default();
        mentions.read_line(command, dialect, 0);
        mentions
    }

    /// Whether some path is computed entirely at run time (`cat $(…)`):
    /// nothing can be known about where it points.
    pub fn has_wholly_computed(&self) -> bool {
        self.paths.iter().any(|m| m.pattern.is_wholly_computed())
    }

    fn read_line(&mut self, line: &str, dialect: Dialect, nesting: usize) {
        match parse_as(line, dialect) {
            Ok(parsed) if nesting < MAX_NESTING => self.read_parsed(&parsed, dialect, nesting),
            Ok(_) | Err(_) => self.read_text(line, expansions_and_globs(), false),
        }
    }

    fn read_parsed(&mut self, parsed: &Parsed<'_>, dialect: Dialect, nesting: usize) {
        self.read_script(&parsed.script, dialect, nesting);
        for heredoc in &parsed.heredocs {
            self.read_text(heredoc.body, expansions_and_globs(), false);
            self.read_substitutions(&heredoc.substitutions, dialect, nesting);
        }
    }

    fn read_script(&mut self, script: &Script<'_>, dialect: Dialect, nesting: usize) {
        for and_or in &script.items {
            for pipeline in &and_or.pipelines {
                // A list that a later stage turns into arguments (`find … |
                // xargs cat`, `… | while read f; do cat "$f"; done`) is read
                // as recursively as the directories it lists.
                let feeds_arguments = pipeline
                    .commands
                    .iter()
                    .skip(1)
                    .any(turns_input_into_arguments);
                for command in &pipeline.commands {
                    let first = self.paths.len();
                    self.read_command(command, dialect, nesting);
                    if feeds_arguments {
                        for mention in &mut self.paths[first..] {
                            mention.recursive = true;
                        }
                    }
                }
            }
        }
    }

    fn read_command(&mut self, command: &Command<'_>, dialect: Dialect, nesting: usize) {
        match command {
            Command::Simple(simple) => {
                let recursive = reads_recursively(simple);
                self.note_directories(simple);
                for assignment in &simple.assignments {
                    self.read_word(&assignment.value, dialect, nesting, recursive);
                }
                for word in &simple.words {
                    self.read_word(word, dialect, nesting, recursive);
                }
                for redirect in &simple.redirects {
                    self.read_word(&redirect.target, dialect, nesting, false);
                }
            }
            Command::Compound(compound) => {
                for word in &compound.words {
                    self.read_word(word, dialect, nesting, false);
                }
                for redirect in &compound.redirects {
                    self.read_word(&redirect.target, dialect, nesting, false);
                }
                for body in &compound.bodies {
                    self.read_script(body, dialect, nesting);
                }
            }
        }
    }

    fn read_word(&mut self, word: &Word<'_>, dialect: Dialect, nesting: usize, recursive: bool) {
        self.read_substitutions(&word.substitutions, dialect, nesting);
        let expansions = matches!(word.shape, crate::invocation::ArgShape::Dynamic);
        let globs = expansions || matches!(word.shape, crate::invocation::ArgShape::Glob);
        let braces = word.braces && dialect == Dialect::Bash;
        match braces.then(|| expand_braces(word.raw)).flatten() {
            Some(expanded) => {
                for one in expanded {
                    let wildcards = Wildcards {
                        globs: one.glob,
                        expansions,
                    };
                    self.read_text(&one.text, wildcards, recursive);
                }
            }
            None => self.read_text(&word.text, Wildcards { globs, expansions }, recursive),
        }
    }

    fn read_substitutions(&mut self, subs: &[Substitution<'_>], dialect: Dialect, nesting: usize) {
        for sub in subs {
            match sub {
                Substitution::Parsed(script) => self.read_script(script, dialect, nesting + 1),
                Substitution::Unparsed(text) => self.read_line(text, dialect, nesting + 1),
            }
        }
    }

    fn note_directories(&mut self, simple: &SimpleCommand<'_>) {
        let words: Vec<&str> = simple.words.iter().map(|w| w.text.as_ref()).collect();
        let changes_into = |at: usize| -> Option<&str> {
            let word = words[at];
            if at == 0 && matches!(word, "cd" | "pushd") {
                return words.get(1).copied();
            }
            if matches!(word, "-C" | "--directory" | "--chdir" | "--cwd" | "-D") {
                return words.get(at + 1).copied();
            }
            ["--directory=", "--chdir=", "--cwd="]
                .iter()
                .find_map(|option| word.strip_prefix(option))
        };
        for at in 0..words.len() {
            if let Some(dir) = changes_into(at) {
                let pattern = Pattern::from_text(dir, expansions_and_globs());
                if !self.dirs.contains(&pattern) {
                    self.dirs.push(pattern);
                }
            }
        }
    }

    /// The whole text, and each piece of it where a path may be embedded.
    fn read_text(&mut self, text: &str, wildcards: Wildcards, recursive: bool) {
        let mut push = |piece: &str| {
            if piece.is_empty() {
                return;
            }
            let pattern = Pattern::from_text(piece, wildcards);
            let mention = Mention { pattern, recursive };
            if !self.paths.contains(&mention) {
                self.paths.push(mention);
            }
        };
        push(text);
        for piece in text.split(is_separator) {
            push(piece);
            // `-f/etc/x`, `-T/x`: an option with its value attached.
            if piece.starts_with('-')
                && let Some(slash) = piece.find('/')
            {
                push(&piece[slash..]);
            }
        }
    }
}

fn expansions_and_globs() -> Wildcards {
    Wildcards {
        globs: true,
        expansions: true,
    }
}

/// Where a path may start inside a word: `if=/x`, `@/x`, `host:/x`,
/// `ATTACH '/x'`, `a,b`, a nested shell's words.
fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '=' | ',' | ':' | ';' | '\'' | '"' | '(' | ')' | '<' | '>' | '|' | '&' | '@'
        )
}

/// The program names among a command's words (a wrapper's program counts:
/// `sudo grep -r`).
fn programs<'s>(simple: &'s SimpleCommand<'_>) -> impl Iterator<Item = &'s str> {
    simple
        .words
        .iter()
        .map(|w| w.text.as_ref())
        .filter(|t| !t.starts_with('-'))
        .map(|t| t.rsplit('/').next().unwrap_or(t))
}

fn has_flag(simple: &SimpleCommand<'_>, long: &[&str], short: &[char]) -> bool {
    simple.words.iter().any(|w| {
        let t = w.text.as_ref();
        long.iter()
            .any(|l| t == *l || t.starts_with(&format!("{l}=")))
            || (t.starts_with('-')
                && !t.starts_with("--")
                && t[1..].chars().any(|c| short.contains(&c)))
    })
}

/// Whether the command reads the contents of a directory tree it names.
fn reads_recursively(simple: &SimpleCommand<'_>) -> bool {
    const ALWAYS: &[&str] = &[
        "rg",
        "ag",
        "ack",
        "rgrep",
        "tar",
        "bsdtar",
        "cpio",
        "pax",
        "zip",
        "7z",
        "7za",
        "rsync",
        "rclone",
        "restic",
        "borg",
        "duplicity",
        "rdiff-backup",
    ];
    const WITH_RECURSIVE_FLAG: &[&str] = &[
        "grep", "egrep", "fgrep", "zgrep", "cp", "scp", "diff", "gzip", "zstd", "xz", "bzip2",
    ];
    const FIND_RUNS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];
    let mut names = programs(simple);
    if names.any(|name| ALWAYS.contains(&name)) {
        return true;
    }
    let recursive_flag = || {
        has_flag(
            simple,
            &[
                "--recursive",
                "--dereference-recursive",
                "--archive",
                "--directories",
                "-d",
            ],
            &['r', 'R', 'a'],
        )
    };
    if programs(simple).any(|name| WITH_RECURSIVE_FLAG.contains(&name)) && recursive_flag() {
        return true;
    }
    programs(simple).any(|name| matches!(name, "find" | "fd" | "fdfind"))
        && simple.words.iter().any(|w| {
            FIND_RUNS.contains(&w.text.as_ref())
                || matches!(w.text.as_ref(), "-x" | "--exec" | "-X" | "--exec-batch")
        })
}

/// `xargs`, `parallel`, or a loop reading names from its input.
fn turns_input_into_arguments(command: &Command<'_>) -> bool {
    match command {
        Command::Simple(simple) => programs(simple).any(|name| {
            matches!(
                name,
                "xargs" | "parallel" | "sh" | "bash" | "dash" | "zsh" | "ash" | "busybox"
            )
        }),
        Command::Compound(_) => true,
    }
}

#[cfg(test)]
mod tests;
