//! What the local executor adds to a command: `true` (pure overhead) and
//! `sleep 0.05` (how late a short command's end is noticed), through the
//! synchronous entry point (a runtime per call), the async one on a shared
//! runtime (as `warden ask` runs it), and the same with the watchdog
//! following every command when `WARDEN_BIN` names a built `warden` binary.
//!
//! `WARDEN_BIN=target/release/warden cargo bench -p warden-infra --bench local_exec`

use divan::Bencher;
use std::time::Duration;

use warden_infra::{LocalExecutor, start_watchdog};

const COMMANDS: [&str; 2] = ["true", "sleep 0.05"];

fn main() {
    divan::main();
}

#[divan::bench(args = COMMANDS, sample_count = 40)]
fn run_sync(bencher: Bencher, command: &str) {
    let exec = LocalExecutor::new();
    bencher.bench_local(|| exec.run(command));
}

#[divan::bench(args = COMMANDS, sample_count = 40)]
fn execute_async(bencher: Bencher, command: &str) {
    let exec = LocalExecutor::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok();
    let Some(runtime) = runtime else { return };
    bencher.bench_local(|| runtime.block_on(exec.execute(command, exec.options(), None)));
}

#[divan::bench(args = COMMANDS, sample_count = 40)]
fn execute_watched(bencher: Bencher, command: &str) {
    let Some(bin) = std::env::var_os("WARDEN_BIN") else {
        eprintln!("execute_watched: set WARDEN_BIN to a built warden binary to measure it");
        return;
    };
    if start_watchdog(bin, Duration::from_secs(2)).is_err() {
        eprintln!("execute_watched: the watchdog did not start");
        return;
    }
    let exec = LocalExecutor::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok();
    let Some(runtime) = runtime else { return };
    bencher.bench_local(|| runtime.block_on(exec.execute(command, exec.options(), None)));
}
