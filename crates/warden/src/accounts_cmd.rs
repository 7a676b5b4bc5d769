//! `warden user add|passwd|list` and `warden token create|list|revoke`:
//! the server's users and API tokens, managed offline on the data
//! directory (the same functions the API uses).

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use warden_server::auth::{self, Role, TokenExpiry};
use warden_server::rfc3339;

use crate::time_fmt::now_ms;

#[derive(Args)]
pub struct UserArgs {
    #[command(subcommand)]
    command: UserCommand,
    /// The server's data directory (default: $WARDEN_DATA_DIR, else ~/.local/share/warden).
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
    /// The server's config file: its `db`, when set, is the database used.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Add a user (the password is read from stdin when it is not a terminal).
    Add {
        name: String,
        /// viewer, operator, approver or admin.
        #[arg(long, value_parser = parse_role)]
        role: Role,
    },
    /// Change a user's password (ends their browser sessions).
    Passwd { name: String },
    /// Every user and their role.
    List,
}

#[derive(Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
    /// The server's data directory (default: $WARDEN_DATA_DIR, else ~/.local/share/warden).
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
    /// The server's config file: its `db`, when set, is the database used.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a bearer token; it is printed once, alone on stdout.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, value_parser = parse_role)]
        role: Role,
        /// How long it is valid: `30d`, `12h`, `90m` (default: no expiry).
        #[arg(long, value_parser = parse_expiry)]
        expires: Option<Duration>,
        /// The person the token acts for (a user name): the four-eyes rule
        /// and the audit log see them behind it (default: the local user
        /// running this, user:$USER).
        #[arg(long, value_parser = parse_owner)]
        owner: Option<auth::Person>,
    },
    /// Every token (never the secret).
    List,
    /// Revoke a token by id: it stops working at once.
    Revoke { id: String },
}

fn parse_owner(text: &str) -> std::result::Result<auth::Person, String> {
    auth::Person::parse_owner(text).map_err(|problem| match problem {
        auth::NameProblem::Malformed => {
            format!("`{text}`: a user name (letters, digits, `.`, `_`, `-`)")
        }
        auth::NameProblem::Reserved => format!("`{text}` names Warden itself, not a person"),
    })
}

/// The local user running this command, as a person (`user:$USER`).
fn local_person() -> auth::Person {
    auth::Person::from_stored(&warden_world::storage::local_operator())
}

fn parse_role(text: &str) -> std::result::Result<Role, String> {
    text.parse().map_err(|e: auth::UnknownRole| e.to_string())
}

/// `30d`, `12h`, `90m`, `45s`.
fn parse_expiry(text: &str) -> std::result::Result<Duration, String> {
    let error = || format!("`{text}`: use a number and d, h, m or s, e.g. 30d");
    let unit = text.chars().last().ok_or_else(error)?;
    let number: u64 = text[..text.len() - unit.len_utf8()]
        .parse()
        .map_err(|_| error())?;
    let seconds = match unit {
        'd' => 86_400,
        'h' => 3_600,
        'm' => 60,
        's' => 1,
        _ => return Err(error()),
    };
    match number.checked_mul(seconds) {
        Some(0) | None => Err(error()),
        Some(total) => Ok(Duration::from_secs(total)),
    }
}

/// A password from the terminal (echo off, asked twice), else one line of stdin.
fn read_password(prompt: &str) -> Result<String> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut line = String::new();
        stdin
            .lock()
            .read_line(&mut line)
            .context("reading the password from stdin")?;
        let password = line.trim_end_matches(['\n', '\r']).to_string();
        if password.is_empty() {
            bail!("no password on stdin");
        }
        return Ok(password);
    }
    let first = prompt_hidden(prompt)?;
    let second = prompt_hidden("Again: ")?;
    if first != second {
        bail!("the passwords differ");
    }
    Ok(first)
}

fn prompt_hidden(prompt: &str) -> Result<String> {
    use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
    eprint!("{prompt}");
    std::io::stderr().flush()?;
    let stdin = std::io::stdin();
    let saved = tcgetattr(&stdin).context("reading the terminal settings")?;
    let mut quiet = saved.clone();
    quiet.local_modes -= LocalModes::ECHO;
    tcsetattr(&stdin, OptionalActions::Now, &quiet).context("turning echo off")?;
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    let restored = tcsetattr(&stdin, OptionalActions::Now, &saved);
    eprintln!();
    read.context("reading the password")?;
    restored.context("restoring the terminal")?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

pub fn user(args: UserArgs) -> Result<ExitCode> {
    let (dir, store) = crate::common::open_data_dir(args.data_dir, args.config)?;
    let mut out = std::io::stdout().lock();
    match args.command {
        UserCommand::Add { name, role } => {
            let password = read_password(&format!("Password for {name}: "))?;
            auth::add_user(&store, &name, role, &password, now_ms())?;
            writeln!(out, "added {name} ({role})")?;
        }
        UserCommand::Passwd { name } => {
            let password = read_password(&format!("New password for {name}: "))?;
            auth::set_password(&store, &dir, &name, &password, None, now_ms())?;
            writeln!(out, "password changed for {name}")?;
        }
        UserCommand::List => {
            for user in store.users()? {
                writeln!(out, "{}\t{}", user.username, user.role)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn token(args: TokenArgs) -> Result<ExitCode> {
    let (_, store) = crate::common::open_data_dir(args.data_dir, args.config)?;
    let mut out = std::io::stdout().lock();
    match args.command {
        TokenCommand::Create {
            name,
            role,
            expires,
            owner,
        } => {
            let expiry = expires.map_or(TokenExpiry::Never, TokenExpiry::After);
            let made_by = local_person();
            let owner = owner.unwrap_or_else(|| made_by.clone());
            let request = auth::TokenRequest {
                name: &name,
                role,
                expiry,
                owner: &owner,
                created_by: made_by.as_str(),
            };
            let token = auth::create_token(&store, &request, now_ms())?;
            writeln!(out, "{}", token.secret)?;
            eprintln!(
                "token {} ({role}, acting for {owner}) created; it is shown only this once",
                token.id
            );
        }
        TokenCommand::List => {
            let now = now_ms();
            for t in store.api_tokens()? {
                let state = match (t.revoked_at_ms, t.expires_at_ms) {
                    (Some(at), _) => format!("revoked {}", rfc3339(at)),
                    (None, Some(at)) if at <= now => format!("expired {}", rfc3339(at)),
                    (None, Some(at)) => format!("expires {}", rfc3339(at)),
                    (None, None) => "no expiry".to_string(),
                };
                let owner = t.owner.as_deref().unwrap_or("-");
                writeln!(out, "{}\t{}\t{}\t{state}\t{owner}", t.id, t.name, t.role)?;
            }
        }
        TokenCommand::Revoke { id } => {
            if !auth::revoke_token(&store, &id, now_ms())? {
                bail!("no token `{id}` (see `warden token list`)");
            }
            writeln!(out, "revoked {id}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_durations() {
        assert_eq!(parse_expiry("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_expiry("12h"), Ok(Duration::from_secs(12 * 3_600)));
        assert_eq!(parse_expiry("90m"), Ok(Duration::from_secs(90 * 60)));
        for bad in ["", "d", "30", "30w", "0d", "-1d"] {
            assert!(parse_expiry(bad).is_err(), "{bad}");
        }
    }
}
