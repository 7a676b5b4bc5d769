//! The fleet benchmarks of issue 9 ("Must reach"), on loopback:
//!
//! - `fanout [N] [ROUNDS] [COMMAND]`: one read (default `uptime`) fanned
//!   out to N real agents (default 200), POST message → `done`; and the
//!   agents' idle RSS.
//! - `idle [N] [SECS]`: the server's RSS with N idle simulated agents
//!   connected (default 1000, held 20 s, pinged every 5 s).
//! - `overhead [RUNS]`: one agent's idle RSS and its per-command overhead
//!   (default 100 runs of `true`).
//!
//! `scripts/fleet/bench.sh` builds and runs them all (release build). The
//! `warden` binary is the one next to this example's directory
//! (`target/<profile>/warden`), or `$WARDEN_BIN`.
// A benchmark harness: a failed step is a failed run, as in a test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fanout;
mod idle;
mod overhead;
mod server;

use std::path::PathBuf;
use std::time::Duration;

fn warden_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("WARDEN_BIN") {
        return PathBuf::from(path);
    }
    // target/<profile>/examples/fleet_bench → target/<profile>/warden
    let me = std::env::current_exe().unwrap();
    let binary = me.parent().unwrap().parent().unwrap().join("warden");
    assert!(
        binary.exists(),
        "{} is missing: build it (cargo build -p warden) or set WARDEN_BIN",
        binary.display()
    );
    binary
}

fn arg(args: &[String], i: usize, default: usize) -> usize {
    args.get(i).map_or(default, |a| a.parse().unwrap())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let binary = warden_binary();
    match args.first().map(String::as_str) {
        Some("fanout") => {
            let command = args.get(3).map_or("uptime", String::as_str);
            fanout::run(&binary, arg(&args, 1, 200), arg(&args, 2, 5), command).await;
        }
        Some("idle") => {
            let hold = Duration::from_secs(arg(&args, 2, 20) as u64);
            idle::run(&binary, arg(&args, 1, 1000), hold).await;
        }
        Some("overhead") => overhead::run(&binary, arg(&args, 1, 100)).await,
        _ => {
            eprintln!(
                "usage: fleet_bench fanout [N] [ROUNDS] [COMMAND] | idle [N] [SECS] | overhead [RUNS]"
            );
            std::process::exit(2);
        }
    }
}
