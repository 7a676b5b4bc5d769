//! Confinement: every command Warden runs — reads, writes, the router's —
//! runs where Warden's own secrets do not exist.
//!
//! The command runner starts each command through Warden's own executable
//! as a launcher (`warden __warden-confine --hide PATH… --hide-process PID
//! -- PROGRAM ARGS…`, recognised first thing in `main`), which:
//!
//! 1. enters a new **mount namespace** (`unshare`) whose mounts receive the
//!    host's later mounts but never send any back (recursive *slave*);
//! 2. mounts an empty read-only tmpfs over every protected directory and
//!    binds `/dev/null` read-only over every protected file (as systemd's
//!    `InaccessiblePaths=`): Warden's data directory, its database with the
//!    WAL, SHM and audit head, the first admin's password, TLS keys,
//!    secret-bearing configuration files, an agent's state directory;
//! 3. mounts the same over `/proc/PID` of Warden's process and of each of
//!    its threads, so its `environ`, `mem` and `cmdline` cannot be named;
//! 4. drops `CAP_SYS_PTRACE` from the bounding set, so the command (root
//!    or not) cannot read the memory or environment of a process that is
//!    not dumpable — and Warden makes itself not dumpable at start
//!    ([`harden_this_process`]), which covers threads born later;
//! 5. writes one header line on stdout (`WARDEN-CONFINED hidden=N`): the
//!    runner refuses a command whose launcher did not say it confined it;
//! 6. becomes the command (`exec`): same process, same process group, so
//!    the runner stops it as it stops any command.
//!
//! The host's process table stays visible (`ps`, `ss -p`, `kill PID` work
//! as an operator expects); only Warden's own entries are hidden.
//!
//! Where the kernel or the environment forbids a mount namespace (not
//! root, a container without `CAP_SYS_ADMIN`, a seccomp profile),
//! [`probe`] says so and Warden runs commands without the launcher,
//! relying on the policy's refusal of protected paths; the mode in force is
//! reported at start.
//!
//! **Why this crate allows `unsafe`** (the workspace forbids it; here it is
//! denied, and allowed on one function): `unshare(2)` is `unsafe` in rustix
//! because unsharing the file table would break other threads; the
//! launcher is single-threaded and unshares only its mount namespace.

mod launcher;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use launcher::run_confined;

/// The argument by which `warden` becomes the launcher.
pub const CONFINE_ARG: &str = "__warden-confine";

/// The launcher's header line starts so.
pub const HEADER_PREFIX: &str = "WARDEN-CONFINED ";

/// Exit status of a launcher that could not confine (nothing ran).
pub const CANNOT_CONFINE: i32 = 126;

/// What a command must not see.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hidden {
    /// Files and directories (absolute, symlinks resolved).
    pub paths: Vec<PathBuf>,
    /// Processes whose `/proc` entries (and their threads') are hidden.
    pub processes: Vec<u32>,
}

/// The arguments after the program for a command confined with `hidden`
/// out of sight: `__warden-confine --hide P… --hide-process N… --`; the
/// command follows.
pub fn launcher_args(hidden: &Hidden) -> Vec<OsString> {
    let mut args = vec![OsString::from(CONFINE_ARG)];
    for path in &hidden.paths {
        args.push(OsString::from("--hide"));
        args.push(path.clone().into_os_string());
    }
    for pid in &hidden.processes {
        args.push(OsString::from("--hide-process"));
        args.push(OsString::from(pid.to_string()));
    }
    args.push(OsString::from("--"));
    args
}

/// Whether `line` is the header of a launcher that confined its command.
pub fn accepts_header(line: &str) -> bool {
    line.starts_with(HEADER_PREFIX)
}

/// Called first thing by every Warden process that holds secrets: nobody
/// without `CAP_SYS_PTRACE` — which confined commands lack — can read its
/// memory, environment or descriptors through `/proc`, and it never dumps
/// core. Threads started later inherit it.
pub fn harden_this_process() -> std::io::Result<()> {
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(std::io::Error::from)
}

/// How commands are confined on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// In a mount namespace of their own, with Warden's secrets hidden.
    Namespaces,
    /// The kernel or the environment refused a namespace: only the
    /// policy's refusal of protected paths stands between a command and
    /// Warden's secrets.
    PolicyOnly { reason: String },
    /// This program does not launch confined commands (a library user or
    /// a test harness): nothing hides Warden's secrets, and only the
    /// policy's direct refusal of protected paths applies.
    Off,
}

impl Mode {
    /// `namespaces` or `policy_only`, as `/api/health` says it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Mode::Namespaces => "namespaces",
            Mode::PolicyOnly { .. } => "policy_only",
            Mode::Off => "off",
        }
    }

    /// One line for an operator.
    pub fn describe(&self) -> String {
        match self {
            Mode::Namespaces => "confinement: namespaces (each command runs in a mount namespace of its own where Warden's data, keys and process are hidden)".to_string(),
            Mode::PolicyOnly { reason } => format!(
                "confinement: POLICY ONLY ({reason}): commands are not namespaced; only the policy's refusal of protected paths keeps Warden's secrets from them"
            ),
            Mode::Off => "confinement: OFF (this program does not launch confined commands; only the policy's refusal of protected paths applies)".to_string(),
        }
    }
}

/// Whether `warden` (at `program`) can confine a command here: it runs the
/// launcher once, hiding a fresh temporary directory, with `true`, and
/// checks what it said.
pub fn probe(program: &Path) -> Mode {
    let probe_dir =
        std::env::temp_dir().join(format!("warden-confine-probe-{}", std::process::id()));
    let made = std::fs::create_dir(&probe_dir).is_ok();
    let hidden = Hidden {
        paths: if made {
            vec![probe_dir.clone()]
        } else {
            Vec::new()
        },
        processes: vec![std::process::id()],
    };
    let out = Command::new(program)
        .args(launcher_args(&hidden))
        .arg("/bin/true")
        .env_clear()
        .stdin(Stdio::null())
        .output();
    if made {
        let _ = std::fs::remove_dir(&probe_dir);
    }
    match out {
        Ok(out) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            let confined = stdout.lines().next().is_some_and(accepts_header);
            if confined && out.status.success() {
                Mode::Namespaces
            } else {
                let said = String::from_utf8_lossy(&out.stderr);
                let reason = said
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .map(|l| l.trim_start_matches("warden confine: ").to_string())
                    .unwrap_or_else(|| format!("the launcher exited with {}", out.status));
                Mode::PolicyOnly { reason }
            }
        }
        Err(error) => Mode::PolicyOnly {
            reason: format!("cannot start {}: {error}", program.display()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_recognised() {
        assert!(accepts_header("WARDEN-CONFINED hidden=3"));
        assert!(!accepts_header("WARDEN-SANDBOX landlock=7"));
        assert!(!accepts_header("hello"));
    }

    #[test]
    fn modes_say_what_they_are() {
        assert_eq!(Mode::Namespaces.as_str(), "namespaces");
        let weak = Mode::PolicyOnly {
            reason: "not root".into(),
        };
        assert_eq!(weak.as_str(), "policy_only");
        assert!(weak.describe().contains("POLICY ONLY (not root)"));
    }
}
