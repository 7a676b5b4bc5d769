//! Load harness for `warden serve`: many sessions streaming at once.
//!
//! ```text
//! # The server's own overhead, measured now: an in-process server whose
//! # model is a fake Provider pacing its tokens with tokio::time::sleep.
//! cargo run --release -p warden-server --example load -- serve --port 7900 --pace-ms 20 --tokens 50
//! cargo run --release -p warden-server --example load -- client --base http://127.0.0.1:7900 \
//!     --token TOKEN --sessions 1000 --pace-ms 20 --tokens 50 --server-pid PID
//!
//! # The real binary against a fake OpenAI-compatible streaming server
//! # (once the providers are async):
//! cargo run --release -p warden-server --example load -- fake-openai --port 7901 --pace-ms 20 --tokens 50
//! WARDEN_PROVIDER=openai WARDEN_BASE_URL=http://127.0.0.1:7901/v1 WARDEN_MODEL=fake \
//!     warden serve --listen 127.0.0.1:7900 --data-dir /tmp/load
//! warden token create --name load --role operator --data-dir /tmp/load
//! cargo run --release -p warden-server --example load -- client ... --server-pid $(pidof warden)
//! ```
//!
//! Every token the fake models send is the microsecond wall-clock time it
//! was emitted (`t1700000000000000 `), so the client measures the delay
//! each token took through the server, besides the gap between tokens.
//! `scripts/load.sh` runs the first pair.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a harness: a panic is a failed run

mod client;
mod fake_openai;
mod paced;
mod serve;

use std::collections::HashMap;

/// `--name value` pairs after the subcommand.
pub struct Flags(HashMap<String, String>);

impl Flags {
    fn parse(args: &[String]) -> Flags {
        let mut map = HashMap::new();
        let mut i = 0;
        while i < args.len() {
            let name = args[i].trim_start_matches("--").to_string();
            let value = args.get(i + 1).cloned().unwrap_or_default();
            map.insert(name, value);
            i += 2;
        }
        Flags(map)
    }

    pub fn get(&self, name: &str, default: &str) -> String {
        self.0
            .get(name)
            .cloned()
            .unwrap_or_else(|| default.to_string())
    }

    pub fn number(&self, name: &str, default: u64) -> u64 {
        self.0
            .get(name)
            .map(|v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("--{name} takes a number"))
            })
            .unwrap_or(default)
    }
}

/// Microseconds since the Unix epoch.
pub use warden_testkit::time::now_us;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("usage: load serve|client|fake-openai [--flag value]...");
        std::process::exit(2);
    };
    let flags = Flags::parse(rest);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(64)
        .build()
        .unwrap();
    match command.as_str() {
        "serve" => runtime.block_on(serve::run(&flags)),
        "client" => runtime.block_on(client::run(&flags)),
        "fake-openai" => runtime.block_on(fake_openai::run(&flags)),
        other => {
            eprintln!("unknown command `{other}`");
            std::process::exit(2);
        }
    }
}
