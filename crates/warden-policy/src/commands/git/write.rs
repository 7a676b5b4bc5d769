//! Subcommands that change the repository, the work tree or a remote, with
//! their risk, and those that run programs we cannot see.

use super::SubRule;
use super::read::dry_run;
use crate::invocation::Invocation;
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// Writes that open an editor or an interactive prompt: `commit` without a
/// message, `rebase -i`, `merge`/`revert`/`cherry-pick --edit`, `-p` and
/// `-i` hunk pickers. The write needs a human at a terminal.
pub(super) fn opens_editor(name: &str, rest: &Invocation<'_, '_>) -> Option<Verdict> {
    let has = |short: char, long: &str| rest.has_short(short) || rest.has_long(long);
    let message_given = has('m', "--message")
        || has('F', "--file")
        || has('C', "--reuse-message")
        || rest.has_long("--no-edit")
        || rest.has_long("--fixup")
        || rest.option_args().any(|a| {
            let t = a.as_str();
            t.starts_with("--message=") || t.starts_with("--file=") || t.starts_with("--fixup=")
        });
    let editor = match name {
        "commit" => !message_given || has('e', "--edit"),
        "rebase" => has('i', "--interactive"),
        "merge" | "revert" | "cherry-pick" => has('e', "--edit"),
        _ => false,
    };
    if editor {
        return Some(Verdict::interactive_writer(
            InteractiveCategory::Pager,
            "opens an editor for the message or the plan",
        ));
    }
    (name == "commit" && (has('p', "--patch") || has('i', "--interactive"))).then(|| {
        Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "asks which changes to take",
        )
    })
}

/// Writes whatever their arguments.
pub(super) const SIMPLE: &[(&str, Risk, &str)] = &[
    ("commit", Risk::LowWrite, "records a commit"),
    (
        "pull",
        Risk::MediumWrite,
        "fetches and merges into the work tree",
    ),
    // Updates remote-tracking refs and FETCH_HEAD.
    ("fetch", Risk::LowWrite, "updates remote-tracking refs"),
    ("merge", Risk::MediumWrite, "merges into the current branch"),
    ("rebase", Risk::MediumWrite, "rewrites the current branch"),
    ("revert", Risk::MediumWrite, "records reverting commits"),
    (
        "cherry-pick",
        Risk::MediumWrite,
        "applies commits to the current branch",
    ),
    ("am", Risk::MediumWrite, "applies patches as commits"),
    ("init", Risk::LowWrite, "creates a repository"),
    ("clone", Risk::LowWrite, "creates a repository"),
    ("gc", Risk::MediumWrite, "repacks and prunes the repository"),
    ("prune", Risk::HighWrite, "deletes unreachable objects"),
    ("prune-packed", Risk::MediumWrite, "deletes loose objects"),
    ("repack", Risk::MediumWrite, "rewrites packs"),
    ("pack-refs", Risk::LowWrite, "packs refs"),
    ("replace", Risk::MediumWrite, "replaces objects"),
    ("update-index", Risk::MediumWrite, "changes the index"),
    ("read-tree", Risk::MediumWrite, "changes the index"),
    ("write-tree", Risk::LowWrite, "writes a tree object"),
    ("commit-tree", Risk::LowWrite, "writes a commit object"),
    ("mktree", Risk::LowWrite, "writes a tree object"),
    ("mktag", Risk::LowWrite, "writes a tag object"),
    ("merge-tree", Risk::LowWrite, "writes merge result objects"),
    ("merge-file", Risk::MediumWrite, "merges into a file"),
    (
        "checkout-index",
        Risk::MediumWrite,
        "writes files from the index",
    ),
    ("unpack-file", Risk::LowWrite, "writes a temporary file"),
    ("unpack-objects", Risk::LowWrite, "writes objects"),
    ("index-pack", Risk::LowWrite, "writes a pack index"),
    ("pack-objects", Risk::LowWrite, "writes packs"),
    ("filter-branch", Risk::HighWrite, "rewrites history"),
    ("filter-repo", Risk::HighWrite, "rewrites history"),
    (
        "maintenance",
        Risk::MediumWrite,
        "runs or schedules repository maintenance",
    ),
    ("mailinfo", Risk::LowWrite, "writes message and patch files"),
    ("mailsplit", Risk::LowWrite, "writes mail files"),
    ("bugreport", Risk::LowWrite, "writes a report file"),
    ("diagnose", Risk::LowWrite, "writes a diagnostics archive"),
    ("replay", Risk::LowWrite, "writes rewritten commits"),
    ("backfill", Risk::LowWrite, "downloads missing objects"),
    ("fast-import", Risk::MediumWrite, "imports objects and refs"),
    ("fast-export", Risk::LowWrite, "can write marks files"),
    ("annex", Risk::MediumWrite, "manages annexed files"),
];

/// Writes whose risk depends on their options.
pub(super) const SUBCOMMANDS: &[(&str, SubRule)] = &[
    ("checkout", checkout),
    ("switch", switch),
    ("restore", restore),
    ("reset", reset),
    ("push", push),
    ("rm", rm),
    ("clean", clean),
    ("update-ref", update_ref),
];

/// Run programs of the user's choosing, prompt, or serve: never provably read-only.
pub(super) const OPAQUE: &[(&str, &str)] = &[
    (
        "credential",
        "talks to credential helpers, which can prompt or store secrets",
    ),
    ("credential-cache", "manages cached credentials"),
    ("credential-store", "manages stored credentials"),
    ("daemon", "starts a server"),
    ("instaweb", "starts a web server and a browser"),
    ("web--browse", "starts a browser"),
    ("difftool", "runs the configured diff tool"),
    ("mergetool", "runs the configured merge tool"),
    ("gui", "starts a graphical tool"),
    ("citool", "starts a graphical tool"),
    ("gitk", "starts a graphical tool"),
    ("for-each-repo", "runs git commands in other repositories"),
    ("send-email", "sends mail"),
    ("imap-send", "uploads to a mailbox"),
    ("send-pack", "updates a remote"),
    ("http-push", "updates a remote"),
    ("upload-pack", "serves a repository"),
    ("receive-pack", "receives pushes"),
    ("upload-archive", "serves an archive"),
    ("http-backend", "serves a repository"),
    ("shell", "a restricted login shell"),
    ("svn", "talks to a Subversion repository"),
    ("p4", "talks to a Perforce depot"),
    ("cvsimport", "imports from CVS"),
    ("cvsexportcommit", "exports to CVS"),
    ("cvsserver", "serves CVS"),
    ("archimport", "imports from GNU arch"),
    ("quiltimport", "imports quilt patches"),
    ("sh-setup", "a shell library"),
    ("hook", "runs repository hooks"),
];

fn checkout(rest: &Invocation<'_, '_>) -> Verdict {
    // Checking out paths (`-- file`, `.`) or forcing throws local changes away.
    let discards = rest.has_flag('f', "--force")
        || rest.has_word(&["--", "."])
        || rest.has_long("--theirs")
        || rest.has_long("--ours");
    if discards {
        return Verdict::write(Risk::HighWrite, "overwrites local changes in the work tree");
    }
    Verdict::write(Risk::MediumWrite, "switches branches or restores files")
}

fn switch(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_flag('f', "--force") || rest.has_long("--discard-changes") {
        return Verdict::write(
            Risk::HighWrite,
            "switches branches, discarding local changes",
        );
    }
    Verdict::write(Risk::MediumWrite, "switches branches")
}

fn restore(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::write(Risk::HighWrite, "overwrites files with committed content")
}

fn reset(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_long("--hard") || rest.has_long("--merge") || rest.has_long("--keep") {
        return Verdict::write(Risk::HighWrite, "resets the work tree, discarding changes");
    }
    Verdict::write(Risk::MediumWrite, "moves the branch or resets the index")
}

fn push(rest: &Invocation<'_, '_>) -> Verdict {
    let forced = rest.has_flag('f', "--force")
        || rest.has_short('d')
        || [
            "--force-with-lease",
            "--delete",
            "--mirror",
            "--prune",
            "--force-if-includes",
        ]
        .iter()
        .any(|l| rest.has_long(l))
        || rest
            .args
            .iter()
            .any(|a| a.as_str().starts_with('+') || a.as_str().starts_with(':'));
    if forced {
        return Verdict::write(Risk::HighWrite, "overwrites or deletes refs on the remote");
    }
    Verdict::write(Risk::MediumWrite, "updates the remote")
}

fn rm(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_long("--cached") && !rest.has_flag('f', "--force") {
        return dry_run(rest, Risk::LowWrite, "removes files from the index");
    }
    if rest.has_flag('f', "--force") {
        return dry_run(
            rest,
            Risk::HighWrite,
            "deletes files, even with local changes",
        );
    }
    dry_run(rest, Risk::MediumWrite, "deletes files")
}

fn clean(rest: &Invocation<'_, '_>) -> Verdict {
    dry_run(rest, Risk::HighWrite, "deletes untracked files")
}

fn update_ref(rest: &Invocation<'_, '_>) -> Verdict {
    if rest.has_short('d') {
        return Verdict::write(Risk::HighWrite, "deletes a ref");
    }
    Verdict::write(Risk::MediumWrite, "updates a ref")
}
