//! `warden usage` and `warden config show`.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};

use crate::common::CommonArgs;
use crate::time_fmt::now_ms;

#[derive(Args)]
pub struct UsageArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Only this conversation.
    #[arg(long)]
    session: Option<String>,
    /// Only the last period: 24h, 7d, 30d, …
    #[arg(long)]
    since: Option<String>,
    /// A JSON array, one object per provider and model.
    #[arg(long)]
    json: bool,
}

fn parse_period(text: &str) -> Result<u64> {
    let text = text.trim();
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    let amount: u64 = digits.parse().unwrap_or(0);
    let unit = &text[digits.len()..];
    let seconds = match unit.trim() {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => bail!("--since takes a period like 24h, 7d or 4w, got `{text}`"),
    };
    if amount == 0 {
        bail!("--since takes a period like 24h, 7d or 4w, got `{text}`");
    }
    Ok(amount * seconds * 1000)
}

/// Cost of tokens at a price per million.
fn priced(price: &warden_world::config::FilePrice, input: u64, output: u64) -> f64 {
    (input as f64 * price.input + output as f64 * price.output) / 1_000_000.0
}

pub fn usage(args: &UsageArgs) -> Result<ExitCode> {
    let config = args.common.load()?;
    let store = crate::common::open_store(config.db.value.clone())?;
    let since = args
        .since
        .as_deref()
        .map(parse_period)
        .transpose()?
        .map(|period| now_ms().saturating_sub(period));
    let mut totals = store.usage_totals(args.session.as_deref(), since)?;
    // The pricing table as it is now applies to every recorded token, so a
    // price configured later still prices earlier calls.
    for t in &mut totals {
        if let Some(price) = config.pricing.get(&t.model) {
            t.cost_usd = priced(price, t.input_tokens, t.output_tokens);
            t.priced_calls = t.calls;
        }
    }
    if args.json {
        let rows: Vec<serde_json::Value> = totals
            .iter()
            .map(|t| {
                serde_json::json!({
                    "provider": t.provider, "model": t.model, "calls": t.calls,
                    "input_tokens": t.input_tokens, "output_tokens": t.output_tokens,
                    "cost_usd": (t.priced_calls > 0).then_some(t.cost_usd),
                    "priced_calls": t.priced_calls,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    if totals.is_empty() {
        println!("No model calls recorded (the router alone uses no tokens).");
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:<12} {:<32} {:>7} {:>12} {:>12} {:>10}",
        "provider", "model", "calls", "tokens in", "tokens out", "cost"
    );
    let (mut calls, mut input, mut output, mut cost) = (0, 0, 0, 0.0);
    for t in &totals {
        let price = if t.priced_calls == 0 {
            "unknown".to_string()
        } else if t.priced_calls < t.calls {
            format!("≥${:.4}", t.cost_usd)
        } else {
            format!("${:.4}", t.cost_usd)
        };
        println!(
            "{:<12} {:<32} {:>7} {:>12} {:>12} {:>10}",
            t.provider, t.model, t.calls, t.input_tokens, t.output_tokens, price
        );
        calls += t.calls;
        input += t.input_tokens;
        output += t.output_tokens;
        cost += t.cost_usd;
    }
    println!(
        "{:<12} {:<32} {:>7} {:>12} {:>12} {:>10}",
        "total",
        "",
        calls,
        input,
        output,
        format!("${cost:.4}")
    );
    println!(
        "(cost uses the [pricing] table of the config file as it is now; models without a price count as unknown)"
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    command: ConfigCommand,
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// The effective configuration and where each value came from (secrets hidden).
    Show {
        #[command(flatten)]
        common: CommonArgs,
    },
}

pub fn config(args: &ConfigArgs) -> Result<ExitCode> {
    match &args.command {
        ConfigCommand::Show { common } => {
            let config = common.load()?;
            print!("{}", config.show());
            // Which mode is in force here, and what it keeps out of reach.
            let confinement = warden_infra::confinement::Confinement::new(
                crate::common::this_program_launches(),
                warden_world::protected::protected_paths(&config, None, &[]),
            );
            println!("{}", confinement.mode().describe());
            for entry in confinement.protected() {
                println!("  protected: {} ({})", entry.path, entry.label);
            }
            // Each cluster connected for real: OK, or why it cannot be read.
            if config.proxmox.is_empty() {
                return Ok(ExitCode::SUCCESS);
            }
            let checks = crate::common::runtime()?.block_on(
                warden_world::proxmox::check::check_clusters(&config.proxmox),
            );
            for check in &checks {
                println!("{}", check.line());
            }
            Ok(if checks.iter().all(|c| c.ok()) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(4)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods() {
        assert_eq!(parse_period("24h").unwrap(), 86_400_000);
        assert_eq!(parse_period("7d").unwrap(), 7 * 86_400_000);
        assert!(parse_period("soon").is_err());
        assert!(parse_period("0d").is_err());
    }
}
