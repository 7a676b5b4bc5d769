//! Secret redaction over 64 KiB of typical tool output (`journalctl` and
//! `ps aux` lines): the common case has no secret and must cost next to
//! nothing; the second case hides a few secrets in the same output.
//!
//! `cargo bench -p warden-core --bench redact`
//!
//! Where the time goes (no secret): two SIMD literal passes (key fragments,
//! shape prefixes) are most of it, four single-byte-prefiltered hash and
//! Proxmox passes a few microseconds, the key candidates the rest (this
//! output has ~150: `publickey`, `password for`, `sshd:auth`).

use std::hint::black_box;

use warden_core::redact::redact;

const SIZE: usize = 64 * 1024;

const JOURNAL: &[&str] = &[
    "Jun 12 10:00:01 web1 systemd[1]: Started Session 4123 of User root.",
    "Jun 12 10:00:02 web1 sshd[812]: Accepted publickey for root from 10.0.0.4 port 51234 ssh2: ED25519 SHA256:x1y2z3",
    "Jun 12 10:00:02 web1 sshd[812]: pam_unix(sshd:session): session opened for user root(uid=0) by (uid=0)",
    "Jun 12 10:00:05 web1 nginx[913]: 2024/06/12 10:00:05 [warn] 913#913: *1 upstream response is buffered to a temporary file",
    "Jun 12 10:00:07 web1 kernel: EXT4-fs (sda1): mounted filesystem with ordered data mode. Quota mode: none.",
    "Jun 12 10:00:09 web1 sshd[820]: Failed password for invalid user admin from 203.0.113.9 port 40022 ssh2",
    "Jun 12 10:00:09 web1 sshd[820]: pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=203.0.113.9",
    "Jun 12 10:00:11 web1 dockerd[700]: time=\"2024-06-12T10:00:11Z\" level=info msg=\"ignoring event\" module=libcontainerd namespace=moby topic=/tasks/delete",
    "Jun 12 10:00:12 web1 CRON[1022]: (root) CMD (test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; })",
];

const PS: &[&str] = &[
    "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND",
    "root           1  0.0  0.1 168052 11844 ?        Ss   Jun11   0:02 /sbin/init",
    "root         412  0.0  0.2  47624 17232 ?        S<s  Jun11   0:01 /lib/systemd/systemd-journald",
    "www-data     914  0.1  0.3 125544 24120 ?        S    Jun11   1:12 nginx: worker process",
    "postgres    1201  0.0  1.2 215412 98340 ?        Ss   Jun11   0:05 /usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf",
    "root        1530  0.4  2.1 1912312 170112 ?      Ssl  Jun11   6:40 /usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock",
];

fn typical_output() -> String {
    let mut text = String::with_capacity(SIZE + 256);
    let lines = JOURNAL.iter().chain(PS.iter()).cycle();
    for line in lines {
        if text.len() >= SIZE {
            break;
        }
        text.push_str(line);
        text.push('\n');
    }
    text.truncate(SIZE);
    text
}

fn with_secrets() -> String {
    let mut text = typical_output();
    let secrets = [
        "DB_PASSWORD=hunter2hunter2\n",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345\n",
        "root:$6$saltsalt$Zx9Qe0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2yZ3:19750:0:99999:7:::\n",
        "remote: https://ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com\n",
    ];
    let step = text.len() / (secrets.len() + 1);
    for (i, secret) in secrets.iter().enumerate().rev() {
        let at = text[..step * (i + 1)].rfind('\n').map_or(0, |n| n + 1);
        text.insert_str(at, secret);
    }
    text
}

fn main() {
    divan::main();
}

#[divan::bench]
fn no_secrets_64k(bencher: divan::Bencher) {
    let text = typical_output();
    assert!(
        !redact(&text).is_redacted(),
        "the typical output must hold no secret"
    );
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| redact(black_box(&text)).is_redacted());
}

#[divan::bench]
fn four_secrets_64k(bencher: divan::Bencher) {
    let text = with_secrets();
    assert_eq!(redact(&text).total(), 4);
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| redact(black_box(&text)).total());
}
