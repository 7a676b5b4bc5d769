//! Subcommands that are read-only, some only in certain modes (`branch`
//! lists unless given a name, `config` reads unless given a value).

use super::{Opt, SubRule, count_operands, first_word, ls_remote, plain_read, scan, stdin_read};
use crate::invocation::Invocation;
use crate::options::Options;
use crate::verdict::{InteractiveCategory, Risk, Verdict};

pub(super) const SUBCOMMANDS: &[(&str, SubRule)] = &[
    // Inspection of history, the index and the work tree. `status` and
    // `describe --dirty` may refresh the index's stat cache: not a change.
    ("status", plain_read),
    ("log", plain_read),
    ("show", plain_read),
    ("diff", plain_read),
    ("diff-tree", plain_read),
    ("diff-index", plain_read),
    ("diff-files", plain_read),
    ("whatchanged", plain_read),
    ("shortlog", plain_read),
    ("range-diff", plain_read),
    ("describe", plain_read),
    ("rev-parse", plain_read),
    ("rev-list", plain_read),
    ("ls-files", plain_read),
    ("ls-tree", plain_read),
    ("ls-remote", ls_remote),
    ("cat-file", plain_read),
    ("blame", plain_read),
    ("annotate", plain_read),
    ("count-objects", plain_read),
    ("verify-commit", plain_read),
    ("verify-tag", plain_read),
    ("verify-pack", plain_read),
    ("show-index", stdin_read),
    ("check-ignore", plain_read),
    ("check-attr", plain_read),
    ("check-ref-format", plain_read),
    ("check-mailmap", plain_read),
    ("merge-base", plain_read),
    ("name-rev", plain_read),
    ("for-each-ref", plain_read),
    ("show-ref", plain_read),
    ("show-branch", plain_read),
    ("cherry", plain_read),
    ("var", plain_read),
    ("version", plain_read),
    ("get-tar-commit-id", plain_read),
    ("patch-id", stdin_read),
    ("stripspace", stdin_read),
    ("column", plain_read),
    ("request-pull", plain_read),
    ("grep", grep),
    ("fsck", fsck),
    ("hash-object", hash_object),
    ("interpret-trailers", interpret_trailers),
    ("archive", archive),
    ("format-patch", format_patch),
    ("help", super::help::help),
    ("branch", branch),
    ("tag", tag),
    ("remote", remote),
    ("stash", stash),
    ("config", config),
    ("reflog", reflog),
    ("notes", notes),
    ("worktree", worktree),
    ("submodule", submodule),
    ("bisect", bisect),
    ("lfs", lfs),
    ("apply", apply),
    ("symbolic-ref", symbolic_ref),
    ("rerere", rerere),
    ("sparse-checkout", sparse_checkout),
    ("commit-graph", verify_only),
    ("multi-pack-index", verify_only),
    ("bundle", bundle),
    ("add", add),
    ("mv", mv),
];

fn add(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_flag('e', "--edit") {
        return Verdict::write(Risk::LowWrite, "`--edit` stages a hunk edited in an editor");
    }
    dry_run(rest, Risk::LowWrite, "stages changes")
}

fn mv(rest: &Invocation<'_, '_>) -> Verdict {
    dry_run(rest, Risk::MediumWrite, "moves files")
}

/// The options of `add`, `mv`, `rm` and `clean` that take a value: a `-n`
/// after one of them is its value, not a dry run (`clean -e -n -f`).
const DRY_RUN: Options = Options {
    short_flags: "nip",
    short_values: "e",
    long_flags: &["--dry-run", "--interactive", "--patch"],
    long_values: &["--exclude", "--chmod", "--pathspec-from-file"],
    ..Options::GNU
};

/// A write subcommand that only reports with `-n`/`--dry-run` (and no
/// interactive mode).
pub(super) fn dry_run(rest: &Invocation<'_, '_>, risk: Risk, reason: &'static str) -> Verdict {
    let mut dry = false;
    let mut interactive = false;
    for tok in DRY_RUN.walk(rest.args) {
        match tok {
            crate::options::Tok::Short { flag: 'n', .. }
            | crate::options::Tok::Long {
                name: "--dry-run", ..
            } => dry = true,
            crate::options::Tok::Short {
                flag: 'i' | 'p', ..
            }
            | crate::options::Tok::Long {
                name: "--interactive" | "--patch",
                ..
            } => interactive = true,
            crate::options::Tok::Dynamic { .. } => interactive = true,
            _ => {}
        }
    }
    if dry && !interactive {
        return Verdict::Read;
    }
    Verdict::write(risk, reason)
}

fn grep(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_short('O') {
        return Verdict::interactive_writer(
            InteractiveCategory::Pager,
            "`-O` opens the matching files in a pager or editor",
        );
    }
    plain_read(rest)
}

fn fsck(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_long("--lost-found") {
        return Verdict::write(Risk::LowWrite, "`--lost-found` writes dangling objects out");
    }
    plain_read(rest)
}

fn hash_object(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_short('w') {
        return Verdict::write(Risk::LowWrite, "`-w` writes the object into the repository");
    }
    plain_read(rest)
}

fn interpret_trailers(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_long_abbrev("--in-place") {
        return Verdict::write(Risk::MediumWrite, "`--in-place` edits the files");
    }
    plain_read(rest)
}

fn archive(rest: &Invocation<'_, '_>) -> Verdict {
    // Without `-o` the archive goes to standard output.
    if rest.has_short('o') {
        return Verdict::write(Risk::LowWrite, "`-o` writes the archive to a file");
    }
    plain_read(rest)
}

fn format_patch(rest: &Invocation<'_, '_>) -> Verdict {
    let to_dir = rest.has_short('o')
        || rest
            .option_args()
            .any(|a| a.as_str().starts_with("--output-directory") || a.as_str() == "--output-dir");
    if rest.has_long("--stdout") && !to_dir {
        return plain_read(rest);
    }
    Verdict::write(Risk::LowWrite, "writes patch files")
}

fn branch(rest: &Invocation<'_, '_>) -> Verdict {
    const SPEC: Options = Options {
        short_values: "u",
        // `--contains` and friends take the next word when there is one.
        long_values: &[
            "--sort",
            "--format",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--set-upstream-to",
        ],
        ..Options::GNU
    };
    let mut list = false;
    let mut named = false;
    let v = scan(rest.args, SPEC, |o| match o {
        Opt::Short('l' | 'a' | 'r')
        | Opt::Long(
            "list" | "all" | "remotes" | "contains" | "no-contains" | "merged" | "no-merged"
            | "points-at" | "show-current",
        ) => {
            // `-a` and `-r` refuse a branch name outside list mode.
            list = true;
            None
        }
        Opt::Short('v' | 'q' | 'i')
        | Opt::Long(
            "verbose" | "quiet" | "sort" | "format" | "color" | "no-color" | "column" | "no-column"
            | "abbrev" | "no-abbrev" | "ignore-case" | "omit-empty",
        ) => None,
        Opt::Short('D') => Some(Verdict::write(
            Risk::HighWrite,
            "`-D` deletes a branch even if unmerged",
        )),
        Opt::Short('d') | Opt::Long("delete") => {
            Some(Verdict::write(Risk::MediumWrite, "deletes a branch"))
        }
        Opt::Short('m' | 'M' | 'c' | 'C' | 'f' | 't' | 'u')
        | Opt::Long(
            "move" | "copy" | "force" | "set-upstream-to" | "unset-upstream" | "edit-description"
            | "track" | "no-track" | "create-reflog" | "recurse-submodules" | "set-upstream",
        ) => Some(Verdict::write(
            Risk::LowWrite,
            "creates, renames or configures a branch",
        )),
        Opt::Pos(..) => {
            named = true;
            None
        }
        Opt::Short(c) => Some(Verdict::unknown(format!("unknown option `-{c}`"))),
        Opt::Long(l) => Some(Verdict::unknown(format!("unknown option `--{l}`"))),
    });
    if let Some(v) = v {
        return v;
    }
    if named && !list {
        return Verdict::write(Risk::LowWrite, "creates a branch");
    }
    Verdict::Read
}

fn tag(rest: &Invocation<'_, '_>) -> Verdict {
    const SPEC: Options = Options {
        short_values: "umF",
        short_optional: "n",
        long_values: &[
            "--sort",
            "--format",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--local-user",
            "--message",
            "--file",
            "--cleanup",
            "--trailer",
        ],
        ..Options::GNU
    };
    let mut list = false;
    let mut named = false;
    let v = scan(rest.args, SPEC, |o| match o {
        Opt::Short('l' | 'n' | 'v')
        | Opt::Long(
            "list" | "contains" | "no-contains" | "merged" | "no-merged" | "points-at" | "verify",
        ) => {
            list = true;
            None
        }
        Opt::Short('i')
        | Opt::Long(
            "sort" | "format" | "color" | "no-color" | "column" | "no-column" | "ignore-case"
            | "omit-empty",
        ) => None,
        Opt::Short('d') | Opt::Long("delete") => {
            Some(Verdict::write(Risk::LowWrite, "deletes a tag"))
        }
        Opt::Short('a' | 's' | 'u' | 'f' | 'm' | 'F' | 'e')
        | Opt::Long(
            "annotate" | "sign" | "no-sign" | "local-user" | "force" | "message" | "file" | "edit"
            | "cleanup" | "create-reflog" | "trailer",
        ) => Some(Verdict::write(Risk::LowWrite, "creates a tag")),
        Opt::Pos(..) => {
            named = true;
            None
        }
        Opt::Short(c) => Some(Verdict::unknown(format!("unknown option `-{c}`"))),
        Opt::Long(l) => Some(Verdict::unknown(format!("unknown option `--{l}`"))),
    });
    if let Some(v) = v {
        return v;
    }
    if named && !list {
        return Verdict::write(Risk::LowWrite, "creates a tag");
    }
    Verdict::Read
}

fn remote(rest: &Invocation<'_, '_>) -> Verdict {
    match first_word(rest, Options::GNU) {
        None => {
            let known = rest
                .args
                .iter()
                .all(|a| matches!(a.as_str(), "-v" | "--verbose"));
            if known {
                Verdict::Read
            } else {
                Verdict::unknown("unknown option")
            }
        }
        // `show` asks the remote (a network read) unless `-n`.
        Some((_, "show" | "get-url")) => Verdict::Read,
        Some((_, "remove" | "rm")) => Verdict::write(
            Risk::MediumWrite,
            "removes a remote and its remote-tracking branches",
        ),
        Some((
            _,
            "add" | "rename" | "set-url" | "set-head" | "set-branches" | "prune" | "update",
        )) => Verdict::write(
            Risk::LowWrite,
            "changes remotes or remote-tracking branches",
        ),
        Some((_, other)) => Verdict::unknown(format!("unknown subcommand `{other}`")),
    }
}

fn stash(rest: &Invocation<'_, '_>) -> Verdict {
    match first_word(rest, Options::GNU) {
        Some((at, "list" | "show")) => plain_read(&rest.from(at + 1)),
        Some((_, "drop" | "clear")) => Verdict::write(Risk::HighWrite, "discards stashed changes"),
        Some((_, "pop" | "apply" | "branch")) => Verdict::write(
            Risk::MediumWrite,
            "applies stashed changes to the work tree",
        ),
        Some((_, "create" | "store")) => Verdict::write(Risk::LowWrite, "stores a stash entry"),
        _ => Verdict::write(
            Risk::MediumWrite,
            "stashes local changes and resets the work tree",
        ),
    }
}

fn config(rest: &Invocation<'_, '_>) -> Verdict {
    const SPEC: Options = Options {
        short_values: "f",
        long_values: &[
            "--file",
            "--blob",
            "--type",
            "--default",
            "--comment",
            "--value",
            "--url",
            "--get",
            "--get-all",
            "--get-regexp",
            "--get-urlmatch",
            "--get-color",
            "--get-colorbool",
            "--unset",
            "--unset-all",
            "--replace-all",
            "--add",
            "--rename-section",
            "--remove-section",
        ],
        ..Options::GNU
    };
    let mut reading = false;
    let mut writing = None;
    let v = scan(rest.args, SPEC, |o| match o {
        Opt::Short('l')
        | Opt::Long(
            "get" | "get-all" | "get-regexp" | "get-urlmatch" | "get-color" | "get-colorbool"
            | "list",
        ) => {
            reading = true;
            None
        }
        Opt::Short('f' | 'z')
        | Opt::Long(
            "global" | "system" | "local" | "worktree" | "file" | "blob" | "show-origin"
            | "show-scope" | "name-only" | "type" | "no-type" | "bool" | "int" | "bool-or-int"
            | "path" | "expiry-date" | "null" | "default" | "includes" | "no-includes" | "value"
            | "fixed-value" | "url" | "all" | "regexp",
        ) => None,
        Opt::Short('e') | Opt::Long("edit") => Some(Verdict::interactive_writer(
            InteractiveCategory::Pager,
            "`--edit` opens the configuration in an editor",
        )),
        Opt::Long(
            "unset" | "unset-all" | "replace-all" | "add" | "rename-section" | "remove-section"
            | "comment",
        ) => {
            writing = Some(o);
            None
        }
        Opt::Pos(..) => None,
        Opt::Short(c) => Some(Verdict::unknown(format!("unknown option `-{c}`"))),
        Opt::Long(l) => Some(Verdict::unknown(format!("unknown option `--{l}`"))),
    });
    if let Some(v) = v {
        return v;
    }
    if writing.is_some() {
        return Verdict::write(Risk::MediumWrite, "changes git configuration");
    }
    // Subcommand syntax (git 2.46+): `git config get|list|set|unset …`.
    match first_word(rest, SPEC) {
        Some((_, "get" | "list")) => return Verdict::Read,
        Some((_, "edit")) => {
            return Verdict::interactive_writer(
                InteractiveCategory::Pager,
                "opens the configuration in an editor",
            );
        }
        Some((_, "set" | "unset" | "rename-section" | "remove-section")) => {
            return Verdict::write(Risk::MediumWrite, "changes git configuration");
        }
        _ => {}
    }
    // `git config NAME` reads a value; `git config NAME VALUE` sets it.
    if reading || count_operands(rest, SPEC) <= 1 {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "sets a configuration value")
}

fn reflog(rest: &Invocation<'_, '_>) -> Verdict {
    match first_word(rest, Options::GNU) {
        Some((at, "show")) => plain_read(&rest.from(at + 1)),
        Some((_, "list" | "exists")) => Verdict::Read,
        Some((_, "expire" | "delete" | "drop")) => {
            Verdict::write(Risk::MediumWrite, "removes reflog entries")
        }
        // `git reflog [log options] [ref]` is `reflog show`.
        _ => plain_read(rest),
    }
}

fn notes(rest: &Invocation<'_, '_>) -> Verdict {
    const SPEC: Options = Options {
        long_values: &["--ref"],
        ..Options::GNU
    };
    match first_word(rest, SPEC) {
        None | Some((_, "list" | "show" | "get-ref")) => Verdict::Read,
        Some((_, "add" | "copy" | "append" | "edit" | "merge" | "remove" | "prune")) => {
            Verdict::write(Risk::LowWrite, "changes notes")
        }
        Some((_, other)) => Verdict::unknown(format!("unknown subcommand `{other}`")),
    }
}

fn worktree(rest: &Invocation<'_, '_>) -> Verdict {
    match first_word(rest, Options::GNU) {
        Some((_, "list")) => Verdict::Read,
        Some((_, "remove")) => Verdict::write(Risk::HighWrite, "removes a work tree"),
        Some((_, "add" | "prune" | "move" | "lock" | "unlock" | "repair")) => {
            Verdict::write(Risk::LowWrite, "changes work trees")
        }
        _ => Verdict::unknown("unknown or missing subcommand"),
    }
}

fn submodule(rest: &Invocation<'_, '_>) -> Verdict {
    match first_word(rest, Options::GNU) {
        // Bare `git submodule` is `status`.
        None | Some((_, "status" | "summary")) => Verdict::Read,
        Some((_, "foreach")) => Verdict::unknown("`foreach` runs a command in every submodule"),
        Some((_, "deinit")) => Verdict::write(Risk::MediumWrite, "removes submodule work trees"),
        Some((
            _,
            "update" | "add" | "init" | "sync" | "absorbgitdirs" | "set-branch" | "set-url",
        )) => Verdict::write(Risk::MediumWrite, "changes submodules"),
        Some((_, other)) => Verdict::unknown(format!("unknown subcommand `{other}`")),
    }
}

fn bisect(rest: &Invocation<'_, '_>) -> Verdict {
    match rest.arg(0) {
        None | Some("log" | "view" | "visualize" | "help") => Verdict::Read,
        Some("run") => Verdict::unknown("`run` runs a command at every step"),
        Some(_) => Verdict::write(
            Risk::LowWrite,
            "changes the bisection state and checks out commits",
        ),
    }
}

fn lfs(rest: &Invocation<'_, '_>) -> Verdict {
    match rest.arg(0) {
        Some("ls-files" | "status" | "env" | "version" | "locks") => Verdict::Read,
        Some("logs") if matches!(rest.arg(1), None | Some("last" | "show")) => Verdict::Read,
        _ => Verdict::write(Risk::MediumWrite, "changes large-file storage"),
    }
}

fn apply(rest: &Invocation<'_, '_>) -> Verdict {
    let report = ["--check", "--stat", "--numstat", "--summary"]
        .iter()
        .any(|l| rest.has_long(l));
    if report && !rest.has_long("--apply") && !rest.has_long("--build-fake-ancestor") {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "applies a patch")
}

fn symbolic_ref(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_flag('d', "--delete") {
        return Verdict::write(Risk::MediumWrite, "deletes a symbolic ref");
    }
    const SPEC: Options = Options {
        short_values: "m",
        ..Options::GNU
    };
    if count_operands(rest, SPEC) >= 2 {
        return Verdict::write(Risk::MediumWrite, "points a symbolic ref elsewhere");
    }
    Verdict::Read
}

fn rerere(rest: &Invocation<'_, '_>) -> Verdict {
    match rest.arg(0) {
        Some("status" | "remaining" | "diff") => Verdict::Read,
        _ => Verdict::write(Risk::LowWrite, "records or forgets conflict resolutions"),
    }
}

fn sparse_checkout(rest: &Invocation<'_, '_>) -> Verdict {
    match rest.arg(0) {
        Some("list") => Verdict::Read,
        _ => Verdict::write(Risk::MediumWrite, "changes the sparse checkout"),
    }
}

fn verify_only(rest: &Invocation<'_, '_>) -> Verdict {
    match first_word(rest, Options::GNU) {
        Some((_, "verify")) => Verdict::Read,
        _ => Verdict::write(Risk::LowWrite, "writes repository files"),
    }
}

fn bundle(rest: &Invocation<'_, '_>) -> Verdict {
    match rest.arg(0) {
        Some("verify" | "list-heads") => Verdict::Read,
        _ => Verdict::write(Risk::LowWrite, "creates or unbundles a bundle"),
    }
}
