//! Property tests: a read-only command stays read-only only as long as
//! nothing that writes is attached to it, and no input makes the classifier panic.

use crate::support;

use proptest::prelude::*;
use support::{Label, load_labelled};
use warden_policy::classify;

/// Read commands to build on: programs with harmless arguments.
const READ_PROGRAMS: &[&str] = &[
    "ls -la",
    "cat",
    "head -n 5",
    "tail -n 20",
    "grep -i error",
    "wc -l",
    "df -h",
    "du -sh",
    "ps aux",
    "uptime",
    "free -m",
    "uname -a",
    "id",
    "date",
    "journalctl -n 50 --no-pager",
    "systemctl status nginx",
    "docker ps",
    "kubectl get pods",
    "ip addr",
    "ss -tlnp",
    "sort",
    "uniq -c",
    "awk '{print $1}'",
    "sed -n 1,5p",
    "cut -d: -f1",
    "stat",
    "find . -name x",
];

const SUFFIXES: &[&str] = &["; rm -f x", " | sh", " > f", " $(touch x)", " && reboot"];

fn accepted_pool() -> Vec<String> {
    let mut pool: Vec<String> = load_labelled("corpus/commands-dev.tsv")
        .into_iter()
        .filter(|row| row.label == Label::Read)
        .map(|row| row.command)
        .filter(|c| classify(c).read_allowed() && !c.contains('#') && !c.contains("<<"))
        .collect();
    pool.extend(
        READ_PROGRAMS
            .iter()
            .map(|s| s.to_string())
            .filter(|c| classify(c).read_allowed()),
    );
    assert!(
        pool.len() > 50,
        "too few accepted commands to build on: {}",
        pool.len()
    );
    pool
}

fn safe_word() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9_./-]{1,12}",
        "[a-z0-9 ]{0,10}".prop_map(|s| format!("'{s}'")),
        "[a-z0-9 ]{0,10}".prop_map(|s| format!("\"{s}\"")),
    ]
}

/// A pipeline of read programs with extra harmless operands.
fn generated_read() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(READ_PROGRAMS),
            prop::collection::vec(safe_word(), 0..3),
        ),
        1..4,
    )
    .prop_map(|parts| {
        parts
            .into_iter()
            .map(|(program, words)| {
                let operands: Vec<String> =
                    words.into_iter().filter(|w| !w.starts_with('-')).collect();
                format!("{program} {}", operands.join(" "))
                    .trim()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join(" | ")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn appending_a_write_to_an_accepted_command_rejects_it(
        index in any::<prop::sample::Index>(),
        suffix in prop::sample::select(SUFFIXES),
    ) {
        let pool = accepted_pool();
        let base = index.get(&pool);
        let command = format!("{base}{suffix}");
        prop_assert!(!classify(&command).read_allowed(), "accepted: {command}");
    }

    #[test]
    fn appending_a_write_to_a_generated_read_rejects_it(
        base in generated_read(),
        suffix in prop::sample::select(SUFFIXES),
    ) {
        if classify(&base).read_allowed() {
            let command = format!("{base}{suffix}");
            prop_assert!(!classify(&command).read_allowed(), "accepted: {command}");
        }
    }

    #[test]
    fn quoting_does_not_hide_a_write(
        split in 1usize..3,
        program in prop::sample::select(&["rm", "reboot", "mkfs", "dd", "shutdown"][..]),
        quote in prop::sample::select(&["''", "\"\"", "\\"][..]),
    ) {
        let split = split.min(program.len() - 1);
        let command = format!("{}{}{} -x /tmp/y", &program[..split], quote, &program[split..]);
        prop_assert!(!classify(&command).read_allowed(), "accepted: {command}");
    }

    #[test]
    fn no_input_panics(input in "\\PC{0,120}") {
        let _ = classify(&input);
    }

    #[test]
    fn no_shell_soup_panics(input in "[a-z $(){}\\[\\]<>|&;'\"`\\\\\n#=*?!~-]{0,80}") {
        let c = classify(&input);
        if c.read_allowed() {
            prop_assert!(c.intent.is_read_only());
        }
    }
}
