//! `warden classify`: the command policy from the command line.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;
use warden_policy::{Autonomy, Classification, Intent, InteractiveCategory, Risk, classify};

#[derive(Args)]
pub struct ClassifyArgs {
    /// The command to classify (quote it). Omit with --jsonl.
    command: Option<String>,
    /// Read one command per line from standard input; print one JSON object per line.
    #[arg(long, conflicts_with = "command")]
    jsonl: bool,
    /// Print the verdict as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// The JSON shape of one verdict (stable: other tools read it).
#[derive(Serialize)]
struct Record<'a> {
    command: &'a str,
    intent: Intent,
    risk: Risk,
    read_allowed: bool,
    interactive: Option<InteractiveRecord<'a>>,
    catastrophic: bool,
    /// What the autonomous level does with it (read, unattended, needs_human, refused).
    autonomy: Autonomy,
    reason: &'a str,
}

#[derive(Serialize)]
struct InteractiveRecord<'a> {
    category: InteractiveCategory,
    rewrite: Option<&'a str>,
}

fn record<'a>(command: &'a str, c: &'a Classification) -> Record<'a> {
    Record {
        command,
        intent: c.intent,
        risk: c.risk,
        read_allowed: c.read_allowed(),
        interactive: c.interactive.as_ref().map(|i| InteractiveRecord {
            category: i.category,
            rewrite: i.rewrite.as_deref(),
        }),
        catastrophic: c.catastrophic,
        autonomy: c.autonomy(),
        reason: &c.reason,
    }
}

pub fn run(args: &ClassifyArgs) -> Result<ExitCode> {
    if args.jsonl {
        return run_jsonl();
    }
    let Some(command) = &args.command else {
        anyhow::bail!("give a command to classify, or --jsonl to read commands from stdin");
    };
    let verdict = classify(command);
    let mut out = io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &record(command, &verdict))?;
        writeln!(out)?;
    } else {
        print_readable(&mut out, &verdict)?;
    }
    // Exit status tells scripts whether the read tool would accept it.
    Ok(if verdict.read_allowed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_readable(out: &mut impl Write, c: &Classification) -> io::Result<()> {
    let verdict = if c.catastrophic {
        "CATASTROPHIC: refused at every control level"
    } else if c.read_allowed() {
        "read-only: the read tool runs it"
    } else if c.intent.is_read_only() {
        "read-only but not bounded: the read tool refuses it"
    } else {
        "write or unknown: needs a write tool (and approval)"
    };
    writeln!(out, "{verdict}")?;
    writeln!(out, "  intent:      {}", c.intent.as_str())?;
    writeln!(out, "  risk:        {}", c.risk.as_str())?;
    match &c.interactive {
        Some(i) => {
            writeln!(out, "  interactive: {}", i.category.as_str())?;
            if let Some(rewrite) = &i.rewrite {
                writeln!(out, "  try instead: {rewrite}")?;
            }
        }
        None => writeln!(out, "  interactive: no")?,
    }
    writeln!(out, "  autonomous:  {}", c.autonomy_text())?;
    writeln!(out, "  reason:      {}", c.reason)
}

fn run_jsonl() -> Result<ExitCode> {
    let stdin = io::stdin().lock();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut reader = io::BufReader::new(stdin);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .context("reading standard input")?;
        if n == 0 {
            break;
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        // Invalid UTF-8 is replaced, never skipped: the line still gets a verdict.
        let line = String::from_utf8_lossy(&buf);
        let verdict = classify(&line);
        serde_json::to_writer(&mut out, &record(&line, &verdict))?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
