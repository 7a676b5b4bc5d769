//! `find` (GNU findutils), `locate` and `fd`. find's expression is read
//! primary by primary: tests and printing actions read; `-delete`,
//! `-fprint*` and `-fls` write; `-exec`/`-execdir` run a command on each
//! file, which is classified like any other (with `{}` a file name);
//! `-ok`/`-okdir` ask on the terminal. Anything else is unknown.

use crate::commands::common::{Globs, bad, read_rule};
use crate::devices::glob_matches;
use crate::invocation::{Arg, ArgShape, Invocation};
use crate::options::Options;
use crate::verdict::*;

/// What a primary does and how many arguments it takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Primary {
    /// A test, an option or an action that only prints: (arguments).
    Reads(usize),
    /// Writes a file or deletes: (arguments).
    Writes(usize),
    /// Runs a command up to `;` or `+`.
    Runs,
    /// Runs a command after asking on the terminal.
    Asks,
}

const PRIMARIES: &[(&str, Primary)] = &[
    // tests
    ("-amin", Primary::Reads(1)),
    ("-anewer", Primary::Reads(1)),
    ("-atime", Primary::Reads(1)),
    ("-cmin", Primary::Reads(1)),
    ("-cnewer", Primary::Reads(1)),
    ("-ctime", Primary::Reads(1)),
    ("-empty", Primary::Reads(0)),
    ("-executable", Primary::Reads(0)),
    ("-false", Primary::Reads(0)),
    ("-fstype", Primary::Reads(1)),
    ("-gid", Primary::Reads(1)),
    ("-group", Primary::Reads(1)),
    ("-ilname", Primary::Reads(1)),
    ("-iname", Primary::Reads(1)),
    ("-inum", Primary::Reads(1)),
    ("-ipath", Primary::Reads(1)),
    ("-iregex", Primary::Reads(1)),
    ("-iwholename", Primary::Reads(1)),
    ("-links", Primary::Reads(1)),
    ("-lname", Primary::Reads(1)),
    ("-mmin", Primary::Reads(1)),
    ("-mtime", Primary::Reads(1)),
    ("-name", Primary::Reads(1)),
    ("-newer", Primary::Reads(1)),
    ("-nogroup", Primary::Reads(0)),
    ("-nouser", Primary::Reads(0)),
    ("-path", Primary::Reads(1)),
    ("-perm", Primary::Reads(1)),
    ("-readable", Primary::Reads(0)),
    ("-regex", Primary::Reads(1)),
    ("-samefile", Primary::Reads(1)),
    ("-size", Primary::Reads(1)),
    ("-true", Primary::Reads(0)),
    ("-type", Primary::Reads(1)),
    ("-uid", Primary::Reads(1)),
    ("-used", Primary::Reads(1)),
    ("-user", Primary::Reads(1)),
    ("-wholename", Primary::Reads(1)),
    ("-writable", Primary::Reads(0)),
    ("-xtype", Primary::Reads(1)),
    ("-context", Primary::Reads(1)),
    // options
    ("-d", Primary::Reads(0)),
    ("-depth", Primary::Reads(0)),
    ("-follow", Primary::Reads(0)),
    ("-ignore_readdir_race", Primary::Reads(0)),
    ("-noignore_readdir_race", Primary::Reads(0)),
    ("-maxdepth", Primary::Reads(1)),
    ("-mindepth", Primary::Reads(1)),
    ("-mount", Primary::Reads(0)),
    ("-noleaf", Primary::Reads(0)),
    ("-regextype", Primary::Reads(1)),
    ("-warn", Primary::Reads(0)),
    ("-nowarn", Primary::Reads(0)),
    ("-xdev", Primary::Reads(0)),
    ("-daystart", Primary::Reads(0)),
    ("-files0-from", Primary::Reads(1)),
    ("-help", Primary::Reads(0)),
    ("--help", Primary::Reads(0)),
    ("-version", Primary::Reads(0)),
    ("--version", Primary::Reads(0)),
    // operators
    ("-not", Primary::Reads(0)),
    ("-a", Primary::Reads(0)),
    ("-and", Primary::Reads(0)),
    ("-o", Primary::Reads(0)),
    ("-or", Primary::Reads(0)),
    // actions
    ("-print", Primary::Reads(0)),
    ("-print0", Primary::Reads(0)),
    ("-printf", Primary::Reads(1)),
    ("-ls", Primary::Reads(0)),
    ("-prune", Primary::Reads(0)),
    ("-quit", Primary::Reads(0)),
    ("-delete", Primary::Writes(0)),
    ("-fprint", Primary::Writes(1)),
    ("-fprint0", Primary::Writes(1)),
    ("-fprintf", Primary::Writes(2)),
    ("-fls", Primary::Writes(1)),
    ("-exec", Primary::Runs),
    ("-execdir", Primary::Runs),
    ("-ok", Primary::Asks),
    ("-okdir", Primary::Asks),
];

/// `-newerXY` compares timestamps: `-newermt DATE`, `-neweraa FILE`.
fn newer_xy(word: &str) -> bool {
    word.strip_prefix("-newer").is_some_and(|xy| {
        xy.len() == 2
            && xy
                .bytes()
                .all(|b| matches!(b, b'a' | b'B' | b'c' | b'm' | b't'))
    })
}

fn primary(word: &str) -> Option<Primary> {
    if newer_xy(word) {
        return Some(Primary::Reads(1));
    }
    PRIMARY_MAP.get(word).copied()
}

/// [`PRIMARIES`] by name.
static PRIMARY_MAP: std::sync::LazyLock<crate::commands::FastMap<Primary>> =
    std::sync::LazyLock::new(|| PRIMARIES.iter().copied().collect());

/// The primaries that write, run or ask ([`PRIMARIES`] that do not only read).
static DANGEROUS_PRIMARIES: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| {
        PRIMARIES
            .iter()
            .filter(|(_, p)| !matches!(p, Primary::Reads(_)))
            .map(|&(name, _)| name)
            .collect()
    });

/// Could this word, once expanded, be a primary that writes or runs?
fn may_become_dangerous(arg: &Arg<'_>) -> bool {
    match arg.shape {
        ArgShape::Literal | ArgShape::Inert => false,
        ArgShape::Glob => {
            // Every primary starts with `-`: a pattern that starts with
            // another literal character matches none.
            let could_start_a_primary = arg
                .text
                .as_bytes()
                .first()
                .is_some_and(|b| matches!(b, b'-' | b'*' | b'?' | b'[' | b'\\'));
            could_start_a_primary
                && DANGEROUS_PRIMARIES
                    .iter()
                    .any(|name| glob_matches(&arg.text, name))
        }
        ArgShape::Dynamic => true,
    }
}

pub(super) fn find(inv: &Invocation<'_, '_>) -> Verdict {
    let args = inv.args;
    let mut i = 0;
    // Global options: -H -L -P, -D DEBUGOPTS, -O LEVEL.
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            o if o.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    // Start directories: until the first primary, `(` or `!`.
    let mut paths = true;
    while let Some(arg) = args.get(i) {
        let text = arg.as_str();
        if text.starts_with('-') || matches!(text, "(" | "!" | ")" | ",") {
            break;
        }
        if may_become_dangerous(arg) {
            return bad(arg.raw);
        }
        paths &= arg.is_literal() && text.starts_with(['/', '.']);
        i += 1;
    }
    let mut commands = Vec::new();
    while let Some(arg) = args.get(i) {
        let text = arg.as_str();
        if may_become_dangerous(arg) {
            return bad(arg.raw);
        }
        if !arg.is_literal() && arg.shape != ArgShape::Glob {
            return bad(arg.raw);
        }
        if matches!(text, "(" | ")" | "!" | ",") {
            i += 1;
            continue;
        }
        let Some(kind) = primary(text) else {
            return Verdict::unknown(format!("unknown primary `{text}`"));
        };
        match kind {
            Primary::Reads(n) => {
                // A value that is itself an expansion could split into a
                // dangerous primary.
                for value in args.iter().skip(i + 1).take(n) {
                    if value.may_split() && may_become_dangerous(value) {
                        return bad(value.raw);
                    }
                }
                i += 1 + n;
            }
            Primary::Writes(_) => {
                return Verdict::write(
                    Risk::HighWrite,
                    format!("`{text}` deletes or writes files"),
                );
            }
            Primary::Asks => {
                return Verdict::interactive_writer(
                    InteractiveCategory::TtyFlag,
                    format!("`{text}` asks on the terminal before each command"),
                );
            }
            Primary::Runs => {
                let start = i + 1;
                let end = args
                    .iter()
                    .skip(start)
                    .position(|a| matches!(a.as_str(), ";" | "+"))
                    .map(|p| start + p);
                let Some(end) = end else {
                    return Verdict::unknown(format!("`{text}` without `;` or `+`"));
                };
                if end == start {
                    return Verdict::unknown(format!("`{text}` without a command"));
                }
                commands.push(start..end);
                i = end + 1;
            }
        }
    }
    if commands.is_empty() {
        return Verdict::Read;
    }
    Verdict::Wrap(Wrap {
        inner: Inner::EachFile {
            ranges: commands,
            paths,
        },
        bound: Bound::None,
        interactive: None,
        via: "find -exec",
    })
}

const LOCATE: Options = Options {
    short_flags: "AbceiLPqSw0",
    short_values: "dlnr",
    long_flags: &[
        "--all",
        "--basename",
        "--count",
        "--existing",
        "--follow",
        "--ignore-case",
        "--nofollow",
        "--null",
        "--quiet",
        "--statistics",
        "--wholename",
        "--help",
        "--version",
    ],
    long_values: &[
        "--database",
        "--limit",
        "--regex",
        "--regextype",
        "--max-database-age",
    ],
    ..Options::GNU
};
read_rule!(locate, LOCATE, Globs::Harmless);

const FD: Options = Options {
    short_flags: "HIusiFgapLl0q1",
    short_values: "dteEScojxX",
    long_flags: &[
        "--hidden",
        "--no-hidden",
        "--no-ignore",
        "--ignore",
        "--no-ignore-vcs",
        "--no-ignore-parent",
        "--unrestricted",
        "--case-sensitive",
        "--ignore-case",
        "--glob",
        "--regex",
        "--fixed-strings",
        "--absolute-path",
        "--relative-path",
        "--list-details",
        "--follow",
        "--no-follow",
        "--full-path",
        "--print0",
        "--prune",
        "--one-file-system",
        "--quiet",
        "--show-errors",
        "--strip-cwd-prefix",
        "--require-git",
        "--help",
        "--version",
    ],
    long_values: &[
        "--max-depth",
        "--min-depth",
        "--exact-depth",
        "--type",
        "--extension",
        "--exclude",
        "--size",
        "--changed-within",
        "--changed-before",
        "--newer",
        "--older",
        "--owner",
        "--color",
        "--threads",
        "--max-results",
        "--base-directory",
        "--search-path",
        "--format",
        "--path-separator",
        "--ignore-file",
    ],
    ..Options::GNU
};

/// `fd`: `-x`/`-X` run a command per result; the rest prints.
pub(super) fn fd(inv: &Invocation<'_, '_>) -> Verdict {
    crate::commands::common::walk_checked(inv, &[&FD], Globs::Refused, |tok| match tok {
        crate::options::Tok::Short {
            flag: 'x' | 'X', ..
        } => Some(Verdict::unknown("`--exec` runs a command on every result")),
        _ => None,
    })
}
