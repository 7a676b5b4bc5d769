//! The read-only sandbox for read commands (DESIGN "Defence in depth"):
//! `no_new_privs` plus a Landlock ruleset that handles every filesystem
//! right of the newest ABI this crate knows (best effort: the kernel's own
//! ABI decides what is enforced), allows reading and executing everything,
//! and allows writing only to `/dev/null`. Scopes (ABI 6) also keep the
//! command from signalling or reaching abstract sockets outside it.
//!
//! Landlock restricts the calling thread and everything it later executes,
//! and Warden forbids `unsafe` (so no `pre_exec`): the agent therefore runs
//! its own executable as a launcher (`warden agent sandbox-exec --landlock
//! read-only -- PROGRAM ARGS…`), which sandboxes itself while it is still
//! single-threaded, tells the agent what applied in one header line on
//! stdout, and replaces itself with the command ([`sandbox_and_exec`]).

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::process::CommandExt;

use landlock::{
    ABI, Access, AccessFs, LandlockStatus, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};

/// The newest ABI this build knows; older kernels get what they support.
const NEWEST_ABI: ABI = ABI::V10;

/// The first line a launcher writes on stdout, before the command's output.
pub const SANDBOX_HEADER_PREFIX: &str = "WARDEN-SANDBOX ";

/// What the sandbox enforces on the process that applied it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxStatus {
    /// The Landlock ABI in force; `None` when Landlock is unavailable.
    pub landlock_abi: Option<u32>,
    pub no_new_privs: NoNewPrivs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoNewPrivs {
    Set,
    NotSet,
}

/// The only sandbox profile: read and execute anywhere, write `/dev/null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxProfile {
    ReadOnly,
}

impl SandboxProfile {
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxProfile::ReadOnly => "read-only",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("could not build the Landlock ruleset: {0}")]
    Landlock(#[from] landlock::RulesetError),
    #[error("could not open {path} for a Landlock rule: {source}")]
    PathRule {
        path: &'static str,
        source: landlock::PathFdError,
    },
    #[error("no_new_privs could not be set")]
    NoNewPrivs,
    #[error("the command to run is empty")]
    EmptyCommand,
    #[error("could not write the sandbox header: {0}")]
    Header(std::io::Error),
    #[error("could not execute {program}: {source}")]
    Exec {
        program: String,
        source: std::io::Error,
    },
}

/// Sandboxes the calling thread (and everything it executes from now on).
/// Call it only while the process is single-threaded: other threads stay
/// unconfined.
pub fn apply(profile: SandboxProfile) -> Result<SandboxStatus, SandboxError> {
    match profile {
        SandboxProfile::ReadOnly => apply_read_only(),
    }
}

fn apply_read_only() -> Result<SandboxStatus, SandboxError> {
    let read = AccessFs::from_read(NEWEST_ABI);
    // Reads need systemd's and Docker's sockets (`systemctl status`, `docker
    // ps`); the kernel cannot tell a read request from a write over a socket,
    // so connecting stays allowed, as on kernels before ABI 9.
    let connect = AccessFs::ResolveUnix;
    let dev_null =
        AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
    let root = PathFd::new("/").map_err(|source| SandboxError::PathRule { path: "/", source })?;
    let null = PathFd::new("/dev/null").map_err(|source| SandboxError::PathRule {
        path: "/dev/null",
        source,
    })?;
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(NEWEST_ABI))?
        .scope(Scope::from_all(NEWEST_ABI))?
        .create()?
        .add_rule(PathBeneath::new(root, read | connect))?
        .add_rule(PathBeneath::new(null, dev_null))?
        .restrict_self()?;
    if !status.no_new_privs {
        return Err(SandboxError::NoNewPrivs);
    }
    let landlock_abi = match (status.ruleset, status.landlock) {
        (RulesetStatus::NotEnforced, _) => None,
        (
            RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced,
            LandlockStatus::Available { effective_abi, .. },
        ) => abi_number(effective_abi),
        (
            RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced,
            LandlockStatus::NotEnabled | LandlockStatus::NotImplemented,
        ) => None,
    };
    Ok(SandboxStatus {
        landlock_abi,
        no_new_privs: NoNewPrivs::Set,
    })
}

/// The ABI's number, read from its `Display` (the enum is non-exhaustive).
fn abi_number(abi: ABI) -> Option<u32> {
    abi.to_string().parse().ok().filter(|n| *n > 0)
}

/// The launcher: sandboxes this process with `profile`, writes the header
/// line to `header_out` (the agent reads it from the command's stdout), then
/// replaces the process with `command` (program and arguments). Returns only
/// on failure.
pub fn sandbox_and_exec(
    profile: SandboxProfile,
    command: &[OsString],
    header_out: &mut impl Write,
) -> SandboxError {
    let Some((program, args)) = command.split_first() else {
        return SandboxError::EmptyCommand;
    };
    let status = match apply(profile) {
        Ok(status) => status,
        Err(err) => return err,
    };
    let header = format!("{}\n", header_line(&status));
    if let Err(err) = header_out
        .write_all(header.as_bytes())
        .and_then(|()| header_out.flush())
    {
        return SandboxError::Header(err);
    }
    let source = std::process::Command::new(program).args(args).exec();
    SandboxError::Exec {
        program: program.to_string_lossy().into_owned(),
        source,
    }
}

/// `WARDEN-SANDBOX landlock_abi=7 no_new_privs=1` (`landlock_abi=none`).
pub fn header_line(status: &SandboxStatus) -> String {
    let abi = status
        .landlock_abi
        .map_or_else(|| "none".to_string(), |abi| abi.to_string());
    let nnp = match status.no_new_privs {
        NoNewPrivs::Set => 1,
        NoNewPrivs::NotSet => 0,
    };
    format!("{SANDBOX_HEADER_PREFIX}landlock_abi={abi} no_new_privs={nnp}")
}

/// The status a header line reports; `None` when the line is not one.
pub fn parse_header_line(line: &str) -> Option<SandboxStatus> {
    let rest = line.strip_prefix(SANDBOX_HEADER_PREFIX)?;
    let mut landlock_abi = None;
    let mut no_new_privs = None;
    for field in rest.split_whitespace() {
        match field.split_once('=')? {
            ("landlock_abi", "none") => landlock_abi = Some(None),
            ("landlock_abi", n) => landlock_abi = Some(Some(n.parse().ok()?)),
            ("no_new_privs", "1") => no_new_privs = Some(NoNewPrivs::Set),
            ("no_new_privs", "0") => no_new_privs = Some(NoNewPrivs::NotSet),
            _ => return None,
        }
    }
    Some(SandboxStatus {
        landlock_abi: landlock_abi?,
        no_new_privs: no_new_privs?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_round_trip() {
        for status in [
            SandboxStatus {
                landlock_abi: Some(7),
                no_new_privs: NoNewPrivs::Set,
            },
            SandboxStatus {
                landlock_abi: None,
                no_new_privs: NoNewPrivs::NotSet,
            },
        ] {
            assert_eq!(parse_header_line(&header_line(&status)), Some(status));
        }
        assert_eq!(
            header_line(&SandboxStatus {
                landlock_abi: Some(3),
                no_new_privs: NoNewPrivs::Set
            }),
            "WARDEN-SANDBOX landlock_abi=3 no_new_privs=1"
        );
    }

    #[test]
    fn other_lines_are_not_headers() {
        for line in [
            "",
            "hello",
            "WARDEN-SANDBOX",
            "WARDEN-SANDBOX landlock_abi=x no_new_privs=1",
            "WARDEN-SANDBOX landlock_abi=7",
            "WARDEN-SANDBOX landlock_abi=7 no_new_privs=1 extra=1",
            "warden-sandbox landlock_abi=7 no_new_privs=1",
        ] {
            assert_eq!(parse_header_line(line), None, "{line:?}");
        }
    }

    #[test]
    fn abi_numbers() {
        assert_eq!(abi_number(ABI::V1), Some(1));
        assert_eq!(abi_number(ABI::V7), Some(7));
        assert_eq!(abi_number(ABI::Unsupported), None);
    }
}
