//! The known-secret canary over 64 KiB of output with 10 registered
//! secrets (the model key, Proxmox token secrets, a grant-signing key, …):
//! ordinary text (`journalctl`-like lines), a base64 dump of random bytes
//! (the worst case: every view decodes everything), and the same dump
//! with a secret near its end.
//!
//! `cargo bench -p warden-core --bench known_secrets`

use std::hint::black_box;

use warden_core::redact::known::KnownSecrets;

const SIZE: usize = 64 * 1024;

const LINES: &[&str] = &[
    "Jun 12 10:00:01 web1 systemd[1]: Started Session 4123 of User root.",
    "Jun 12 10:00:02 web1 sshd[812]: Accepted publickey for root from 10.0.0.4 port 51234 ssh2: ED25519 SHA256:x1y2z3",
    "Jun 12 10:00:05 web1 nginx[913]: 2024/06/12 10:00:05 [warn] 913#913: *1 upstream response is buffered to a temporary file",
    "Jun 12 10:00:07 web1 kernel: EXT4-fs (sda1): mounted filesystem with ordered data mode. Quota mode: none.",
    "root        1530  0.4  2.1 1912312 170112 ?      Ssl  Jun11   6:40 /usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock",
    "a3f9c2e1d4b5a6978877665544332211ffeeddccbbaa99887766554433221100  /usr/lib/x86_64-linux-gnu/libc.so.6",
];

/// A small deterministic generator (no RNG dependency).
fn bytes(n: usize, mut state: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

fn registry() -> KnownSecrets {
    let mut known = KnownSecrets::new();
    known
        .add(
            "model API key",
            b"sk-ant-api03-Zq8vK2mLx9RtYw4PbN7cJdQe0aB1cD2eF3gH4iJ5kL6mN7oP8q",
        )
        .ok();
    for i in 0..9u64 {
        known
            .add(&format!("secret {i}"), &bytes(32, 0x9e37_79b9 + i))
            .ok();
    }
    known
}

fn ordinary() -> String {
    let mut text = String::with_capacity(SIZE + 256);
    for line in LINES.iter().cycle() {
        if text.len() >= SIZE {
            break;
        }
        text.push_str(line);
        text.push('\n');
    }
    text.truncate(SIZE);
    text
}

fn base64_lines(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (i, chunk) in data.chunks(3).enumerate() {
        let mut acc = [0u8; 3];
        acc[..chunk.len()].copy_from_slice(chunk);
        let n = u32::from(acc[0]) << 16 | u32::from(acc[1]) << 8 | u32::from(acc[2]);
        for j in 0..4 {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * j)) & 63) as usize]));
        }
        if i % 19 == 18 {
            out.push('\n');
        }
    }
    out
}

fn main() {
    divan::main();
}

#[divan::bench]
fn ordinary_64k(bencher: divan::Bencher) {
    let known = registry();
    let text = ordinary();
    assert!(known.find(&text).is_none());
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| known.find(black_box(&text)).is_some());
}

#[divan::bench]
fn base64_dump_64k(bencher: divan::Bencher) {
    let known = registry();
    let text = base64_lines(&bytes(SIZE * 3 / 4, 7));
    assert!(known.find(&text).is_none());
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| known.find(black_box(&text)).is_some());
}

#[divan::bench]
fn base64_dump_with_secret_64k(bencher: divan::Bencher) {
    let known = registry();
    let mut data = bytes(SIZE * 3 / 4 - 100, 7);
    data.extend(bytes(32, 0x9e37_79b9 + 4));
    data.extend(bytes(68, 3));
    let text = base64_lines(&data);
    assert!(known.find(&text).is_some());
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| known.find(black_box(&text)).is_some());
}

/// The searcher is built when first searched: register 10, search once.
#[divan::bench]
fn build_registry_of_10(bencher: divan::Bencher) {
    bencher.bench(|| registry().find(black_box("x")).is_some());
}

/// The same with a TLS key of RSA 4096's size registered too (~11,000
/// patterns: the searcher is an NFA, not a DFA).
#[divan::bench]
fn ordinary_64k_with_a_large_key(bencher: divan::Bencher) {
    let mut known = registry();
    let der = bytes(2_400, 0x5eed);
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}-----END PRIVATE KEY-----\n",
        base64_lines(&der)
    );
    known.add_private_key_pem("TLS private key", &pem).ok();
    let text = ordinary();
    assert!(known.find(&text).is_none());
    assert!(known.find(&pem).is_some());
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| known.find(black_box(&text)).is_some());
}
