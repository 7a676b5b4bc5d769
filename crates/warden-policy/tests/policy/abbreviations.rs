//! An abbreviated long option is never read more permissively than the
//! option it abbreviates: getopt_long runs `--foll` as `--follow`, so a
//! rule that spots a write option by its full name only (and so misses
//! `--in-pl` of `--in-place`) would let the abbreviation through. Every
//! prefix of every long option of both corpora and of a list of writes is
//! tried.

use crate::support;

use warden_policy::classify;

/// Writes spelled with long options, the abbreviations of which must stay
/// writes.
const WRITES: &[&str] = &[
    "sed --in-place=.bak s/a/b/ f",
    "sed --expression=s/a/b/ --in-place f",
    "sort --output=/tmp/x f",
    "journalctl --vacuum-time=1d",
    "journalctl --rotate",
    "journalctl --flush",
    "journalctl --setup-keys",
    "git clean --force",
    "git branch --delete x",
    "tar --extract --file=x.tar",
    "tar --create --file=x.tar d",
    "tar --list --file=x.tar --to-command=sh",
    "tar --create --file=- --remove-files d",
    "wget --output-document=/tmp/x https://x",
    "wget --spider --output-file=/tmp/log https://x",
    "curl --output /tmp/x https://x",
    "curl --upload-file f https://x",
    "curl --data-binary @f https://x",
    "rsync --archive --delete a/ b/",
    "systemctl --now enable nginx",
    "systemctl restart --no-block nginx",
    "uniq --repeated f /tmp/out",
    "tee --append /tmp/x",
    "touch --no-create f",
    "mktemp --directory",
    "ldconfig --verbose",
    "logrotate --force /etc/logrotate.conf",
    "smartctl --test=short /dev/sda",
    "dmesg --clear",
    "hostnamectl set-hostname --static x",
    "timedatectl set-time --adjust-system-clock 10:00",
    "ip --force address add 10.0.0.1/24 dev eth0",
    "find . --newer x -delete",
    "date --set=10:00",
    "hwclock --systohc",
    "sysctl --write vm.swappiness=10",
    "sysctl --load=/tmp/x.conf",
    "chmod --recursive 600 /srv",
    "cp --recursive a b",
    "ln --symbolic a b",
    "du --max-depth=1 --exclude-from=x / > /tmp/x",
    "zstd --decompress f.zst",
    "gzip --decompress f.gz",
    "xz --keep --compress f",
];

fn long_options(command: &str) -> Vec<(usize, &str)> {
    command
        .split(' ')
        .enumerate()
        .filter_map(|(i, w)| {
            let head = w.split_once('=').map_or(w, |(h, _)| h);
            (head.len() > 4
                && head.starts_with("--")
                && head[2..]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-'))
            .then_some((i, head))
        })
        .collect()
}

#[test]
fn no_abbreviation_reads_more_than_its_option() {
    let nl2bash = std::fs::read(support::shared_dir().join("corpus/nl2bash-commands.txt"))
        .expect("nl2bash corpus");
    let nl2bash = String::from_utf8_lossy(&nl2bash).into_owned();
    let dev: Vec<String> = support::load_labelled("corpus/commands-dev.tsv")
        .into_iter()
        .map(|r| r.command)
        .collect();
    let commands = WRITES
        .iter()
        .map(|c| c.to_string())
        .chain(dev)
        .chain(nl2bash.lines().map(str::to_string));
    let mut tried = 0;
    let mut wrong = Vec::new();
    for command in commands {
        let options = long_options(&command);
        if options.is_empty() {
            continue;
        }
        let full = classify(&command);
        for (index, head) in options {
            for cut in 3..head.len() {
                let words: Vec<String> = command
                    .split(' ')
                    .enumerate()
                    .map(|(i, w)| {
                        if i == index {
                            format!("{}{}", &head[..cut], &w[head.len()..])
                        } else {
                            w.to_string()
                        }
                    })
                    .collect();
                let variant = words.join(" ");
                let short = classify(&variant);
                tried += 1;
                // An option that is no option of the program (`du
                // --summary`) abbreviates nothing; an abbreviation the
                // tables do not take (ambiguous, or maybe an option of its
                // own) is refused, which is all it needs to be.
                let not_an_option = full.reason.contains(&format!("unknown option `{head}"));
                let refused_as_unknown = short
                    .reason
                    .contains(&format!("unknown option `{}", &head[..cut]));
                if not_an_option {
                    continue;
                }
                let reads_more = short.read_allowed() && !full.read_allowed();
                let lower_risk = short.risk < full.risk && !refused_as_unknown;
                if reads_more || lower_risk {
                    wrong.push(format!("  `{variant}` ({short}) vs `{command}` ({full})"));
                }
            }
        }
    }
    assert!(tried > 1000, "only {tried} abbreviations tried");
    assert!(
        wrong.is_empty(),
        "{} abbreviations read more than their option:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn listed_writes_are_writes() {
    super::tables::refused(WRITES);
}
