//! Every line of the NL2Bash corpus classifies without a panic, and the
//! verdicts are internally consistent.

use crate::support;

use warden_policy::classify;

#[test]
fn every_nl2bash_line_classifies() {
    let path = support::shared_dir().join("corpus/nl2bash-commands.txt");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = String::from_utf8_lossy(&bytes);
    let mut count = 0;
    let mut accepted = 0;
    for line in text.lines() {
        let c = classify(line);
        count += 1;
        if c.read_allowed() {
            accepted += 1;
            assert!(
                c.intent.is_read_only() && c.interactive.is_none() && !c.catastrophic,
                "{line}"
            );
        }
        assert!(!c.reason.is_empty(), "no reason for {line}");
        if let Some(rewrite) = c.interactive.as_ref().and_then(|i| i.rewrite.as_deref()) {
            // A rewrite is bounded, and read-allowed when the line is read-only.
            let r = classify(rewrite);
            assert!(
                r.interactive.is_none() && !r.catastrophic,
                "rewrite of `{line}` is not bounded: {rewrite}"
            );
            assert!(
                !c.intent.is_read_only() || r.read_allowed(),
                "rewrite of `{line}` is not read-allowed: {rewrite}"
            );
        }
    }
    assert!(count > 12_000, "corpus truncated: {count}");
    println!("nl2bash: {count} commands, {accepted} read-allowed");
}

/// NL2Bash lines that delete a whole system tree, its guests' storage or a
/// home, selecting files by size, age, owner, emptiness or content rather
/// than by name: catastrophic (on a Proxmox node `find / -size +100M` finds
/// the VM disks; `-nouser` finds every file of an unprivileged container).
/// The earlier rework (75 → 29 flagged) had dropped them because any test
/// (`-size`, `-mtime`, `-user`) counted as a filter. Judged one by one.
const CATASTROPHIC_IN_NL2BASH: &[&str] = &[
    "find / -size +100M -exec rm -rf {} \\;",
    "find / -size +100M -exec /bin/rm {} \\;",
    "find / -size 0 -ok rm { } \\;",
    "find /usr/* -size 0c -exec rm {} \\;",
    "find / -nouser -exec rm {} +",
    "find / -nouser -ok rm {} \\;",
    "find / -nouser | xargs -0 rm",
    "find / -user edwarda -exec rm \"{}\" \\;",
    "find / -newerct '1 minute ago' -print | xargs rm",
    "find /home -type f -size +100M -delete",
    "find /home -type f -size +100M -print0 |xargs -0 rm",
    "find /home -type f -mtime +90 -mtime -100  -exec rm  {} \\;",
    "find ~ -atime +100 -delete",
    "find ~/ -atime +100 -exec rm -i {} \\;",
    "find * -maxdepth 0 -name 'b' -prune -o -exec rm -rf {} \\;",
    "find $HOME -type d -name $1 -exec echo {} ';'  -exec rm -rf {} ';'",
];

/// Deletions that stay approvable writes: a name test narrows the walk
/// (`-name '*.log'`, alternatives that each name something), or the tree
/// is a placeholder or scratch directory (`/myDir`, `/path`, `/logs`).
const APPROVABLE_IN_NL2BASH: &[&str] = &[
    "find / \\( -name tmp -o -name '*.xx' \\) -atime +7 -exec rm {} \\;",
    "find $HOME \\( -name a.out -o -name '*.o' \\) -atime +7 -exec rm {} \\;",
    "find / -name '#*' -atime +7 -print | xargs rm",
    "find / -type f -name *.mp3 -size +10M -exec rm {} \\;",
    "find /home -type f -name *.log -size +100M -exec rm -f {} \\;",
    "find /myDir -mindepth 1 -mtime +7 -delete",
    "find /path -type f -print0 | xargs -0 rm",
    "find /logs -type f -mtime +5 -exec rm {} \\;",
];

#[test]
fn nl2bash_deletions_of_whole_trees_are_catastrophic() {
    for line in CATASTROPHIC_IN_NL2BASH {
        let c = classify(line);
        assert!(c.catastrophic, "not catastrophic: {line}: {c}");
    }
    for line in APPROVABLE_IN_NL2BASH {
        let c = classify(line);
        assert!(!c.catastrophic && !c.read_allowed(), "{line}: {c}");
    }
}
