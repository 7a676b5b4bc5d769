//! Property tests of the four rewrites (DESIGN "Command policy"): a rewrite
//! keeps every part of the command but the follow flag (prefixes, other
//! flags, operands, pipes, redirects, the rest of the list), adds only the
//! bounding flags, and classifies as bounded, and as read-only exactly when
//! the original without its follow flag is.

use proptest::prelude::*;
use warden_policy::classify;

/// One program whose follow flag has a rewrite: the command words, the
/// spellings of the follow flag, other flags that keep the command
/// read-only, the operand, and the tokens the rewrite may add.
struct Follower {
    command: &'static str,
    follow: &'static [&'static str],
    others: &'static [&'static str],
    operand: &'static str,
    added: &'static [&'static str],
}

const FOLLOWERS: &[Follower] = &[
    Follower {
        command: "tail",
        follow: &[
            "-f",
            "-F",
            "--follow",
            "--follow=name",
            "--follow=descriptor",
            // getopt_long abbreviations
            "--fo",
            "--foll",
            "--follo=name",
        ],
        others: &["-q", "-v", "--retry", "-s 2", "-n 5", "-c 100"],
        operand: "/var/log/syslog",
        added: &["-n", "200"],
    },
    Follower {
        command: "journalctl",
        follow: &["-f", "--follow", "--foll", "--follo"],
        others: &[
            "-u nginx",
            "--no-pager",
            "-o cat",
            "-p err",
            "-b",
            "-x",
            "-n 10",
        ],
        operand: "",
        added: &["-n", "200", "--since", "\"10", "min", "ago\""],
    },
    Follower {
        command: "docker logs",
        follow: &["-f", "--follow", "--follow=true"],
        others: &[
            "-t",
            "--timestamps",
            "--since 10m",
            "--details",
            "--tail 10",
        ],
        operand: "web",
        added: &["--tail=200"],
    },
    Follower {
        command: "kubectl logs",
        follow: &["-f", "--follow", "--follow=true"],
        others: &[
            "-n kube-system",
            "-c app",
            "--timestamps",
            "--all-containers",
            "--tail=5",
        ],
        operand: "pod/api",
        added: &["--tail=200", "--since=10m"],
    },
];

const PREFIXES: &[&str] = &["", "LC_ALL=C ", "TZ=UTC "];

const SUFFIXES: &[&str] = &[
    "",
    " | grep -i error",
    " 2>&1 | tail -n 5",
    " > /tmp/out",
    " && echo done",
    " ; uptime",
    " | wc -l",
];

/// A follow command: (original, original without the follow flag, prefix, suffix, added tokens).
fn follow_command() -> impl Strategy<Value = (String, String, String, &'static [&'static str])> {
    (
        0..FOLLOWERS.len(),
        any::<prop::sample::Index>(),
        prop::collection::vec(any::<prop::sample::Index>(), 0..3),
        0..4usize,
        prop::sample::select(PREFIXES),
        prop::sample::select(SUFFIXES),
    )
        .prop_map(|(which, follow, others, at, prefix, suffix)| {
            let f = &FOLLOWERS[which];
            let follow = f.follow[follow.index(f.follow.len())];
            let mut flags: Vec<&str> = Vec::new();
            for other in others {
                let flag = f.others[other.index(f.others.len())];
                if !flags.contains(&flag) {
                    flags.push(flag);
                }
            }
            let mut with_follow = flags.clone();
            with_follow.insert(at.min(flags.len()), follow);
            let build = |flags: &[&str]| {
                let mut words = vec![f.command];
                words.extend(flags);
                if !f.operand.is_empty() {
                    words.push(f.operand);
                }
                format!("{prefix}{}{suffix}", words.join(" "))
            };
            (
                build(&with_follow),
                build(&flags),
                follow.to_string(),
                f.added,
            )
        })
}

/// `line` split into words, without the words in `dropped` (once each).
fn words_without<'l>(line: &'l str, dropped: &[&str]) -> Vec<&'l str> {
    let mut dropped: Vec<&str> = dropped.to_vec();
    line.split_whitespace()
        .filter(|w| match dropped.iter().position(|d| d == w) {
            Some(i) => {
                dropped.remove(i);
                false
            }
            None => true,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_rewrite_changes_only_the_follow_flag(
        (original, without, follow, added) in follow_command()
    ) {
        let verdict = classify(&original);
        let interactive = verdict.interactive.clone();
        prop_assert!(interactive.is_some(), "{original}: not interactive");
        let Some(rewrite) = interactive.and_then(|i| i.rewrite) else {
            return Err(TestCaseError::fail(format!("{original}: no rewrite")));
        };
        // Every word of the original but the follow flag, in order; the
        // rewrite adds only bounding words (none that the command already has).
        let kept = words_without(&original, &[follow.as_str()]);
        let mut next = kept.iter().peekable();
        for word in rewrite.split_whitespace() {
            if next.peek().is_some_and(|k| **k == word) {
                next.next();
            } else {
                prop_assert!(
                    added.contains(&word),
                    "{original}: rewrite `{rewrite}` adds `{word}`"
                );
            }
        }
        prop_assert!(
            next.peek().is_none(),
            "{original}: rewrite `{rewrite}` lost `{}`", next.peek().copied().unwrap_or(&"")
        );
        prop_assert!(!rewrite.split_whitespace().any(|w| w == follow), "{rewrite} still follows");

        // Bounded, and read-only exactly when the original without the
        // follow flag is.
        let after = classify(&rewrite);
        prop_assert!(after.interactive.is_none(), "{rewrite}: {after}");
        prop_assert_eq!(
            after.read_allowed(),
            classify(&without).read_allowed(),
            "{} vs {}", rewrite, without
        );
    }
}

#[test]
fn no_rewrite_when_it_cannot_be_faithful() {
    for line in [
        "sudo journalctl -f",
        "sudo tail -f /var/log/auth.log > /tmp/x",
        "ssh host 'tail -f /var/log/syslog'",
        "watch tail -f f",
        "tail -f $LOG",
    ] {
        let verdict = classify(line);
        let rewrite = verdict.interactive.and_then(|i| i.rewrite);
        if let Some(rewrite) = rewrite {
            let after = classify(&rewrite);
            assert!(after.interactive.is_none(), "{line} -> {rewrite}: {after}");
        }
    }
}

#[test]
fn the_four_rewrites_keep_the_rest_of_the_line() {
    let cases = [
        (
            "journalctl -f; uptime",
            "journalctl -n 200 --since \"10 min ago\"; uptime",
        ),
        (
            "journalctl -fu nginx | grep -i err",
            "journalctl -n 200 --since \"10 min ago\" -u nginx | grep -i err",
        ),
        ("docker logs -f web 2>&1", "docker logs --tail=200 web 2>&1"),
        (
            "kubectl logs -f -n kube-system pod/api",
            "kubectl logs --tail=200 --since=10m -n kube-system pod/api",
        ),
        (
            "LC_ALL=C tail -F /var/log/syslog && echo done",
            "LC_ALL=C tail -n 200 /var/log/syslog && echo done",
        ),
        (
            "systemctl restart x && journalctl -fu x",
            "systemctl restart x && journalctl -n 200 --since \"10 min ago\" -u x",
        ),
    ];
    for (line, expected) in cases {
        let rewrite = classify(line).interactive.and_then(|i| i.rewrite);
        assert_eq!(rewrite.as_deref(), Some(expected), "{line}");
    }
}
