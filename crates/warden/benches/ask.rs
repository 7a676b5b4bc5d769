//! `warden ask "disk usage"` as a whole process — start, configuration,
//! world, routing, the command, the answer, the stored turn — beside
//! `df -h` itself, in one run (`cargo bench -p warden --bench ask`). The
//! target: at most 20 ms for Warden's answer. Each sample runs in a fresh
//! home with nothing configured (the router answers; SQLite is created on
//! the first run and reused after).
#![allow(clippy::expect_used)] // benchmark set-up: a panic is a broken benchmark

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

fn home() -> &'static PathBuf {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("warden-bench-ask-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary home");
        dir
    })
}

fn run(command: &mut Command) {
    let status = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the command runs");
    assert!(status.success(), "{command:?} failed: {status}");
}

#[divan::bench(sample_count = 40)]
fn warden_ask_disk_usage() {
    let home = home();
    run(Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["ask", "disk usage"])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data")));
}

#[divan::bench(sample_count = 40)]
fn df_h() {
    run(Command::new("df").arg("-h"));
}
