//! Classify command lines and print one verdict per line, for checking
//! that a change keeps every verdict and for profiling.
//!
//! `cargo run -p warden-policy --example classify -- 'journalctl -f'`
//! classifies its arguments; `--file PATH` classifies each line of a file
//! (the second column of a `.tsv`); `--repeat N` classifies the whole input
//! N times and prints nothing (for `valgrind --tool=callgrind`);
//! `--time` prints each line's best time of seven, in nanoseconds.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut commands: Vec<String> = Vec::new();
    let mut repeat: Option<usize> = None;
    let mut time = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--file" => {
                let Some(path) = args.next() else {
                    eprintln!("--file needs a path");
                    return ExitCode::FAILURE;
                };
                let bytes = match std::fs::read(&path) {
                    Ok(bytes) => bytes,
                    Err(error) => {
                        eprintln!("{path}: {error}");
                        return ExitCode::FAILURE;
                    }
                };
                let text = String::from_utf8_lossy(&bytes);
                let tsv = path.ends_with(".tsv");
                commands.extend(text.lines().filter_map(|line| {
                    if tsv {
                        line.split_once('\t').map(|(_, c)| c.to_string())
                    } else {
                        Some(line.to_string())
                    }
                }));
            }
            "--repeat" => repeat = args.next().and_then(|n| n.parse().ok()),
            "--time" => time = true,
            _ => commands.push(arg),
        }
    }
    if let Some(times) = repeat {
        for _ in 0..times {
            for command in &commands {
                std::hint::black_box(warden_policy::classify(std::hint::black_box(command)));
            }
        }
        return ExitCode::SUCCESS;
    }
    if time {
        for command in &commands {
            std::hint::black_box(warden_policy::classify(command));
        }
        for command in &commands {
            let best = (0..7)
                .map(|_| {
                    let start = std::time::Instant::now();
                    std::hint::black_box(warden_policy::classify(std::hint::black_box(command)));
                    start.elapsed().as_nanos()
                })
                .min()
                .unwrap_or(0);
            println!("{best}\t{command}");
        }
        return ExitCode::SUCCESS;
    }
    for command in &commands {
        let c = warden_policy::classify(command);
        let interactive = c.interactive.as_ref().map_or("-".to_string(), |i| {
            format!(
                "{}:{}",
                i.category.as_str(),
                i.rewrite.as_deref().unwrap_or("-")
            )
        });
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            command,
            c.intent.as_str(),
            c.risk.as_str(),
            c.read_allowed(),
            c.catastrophic,
            c.understood,
            interactive,
            c.reason
        );
    }
    ExitCode::SUCCESS
}
