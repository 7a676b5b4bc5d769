//! The launcher itself: `warden __warden-confine …` (see the crate docs).

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use rustix::mount::{MountFlags, MountPropagationFlags};
use rustix::thread::{CapabilitySet, UnshareFlags};

use crate::{CANNOT_CONFINE, CONFINE_ARG, HEADER_PREFIX, Hidden};

/// Exit status when the command itself could not be started (as a shell's
/// "command not found"); the header was written, the confinement held.
const NOT_STARTED: i32 = 127;

/// Why the launcher could not confine (nothing ran).
#[derive(Debug)]
enum ConfineError {
    Usage(String),
    Namespace(rustix::io::Errno),
    Propagation(rustix::io::Errno),
    Hide {
        path: PathBuf,
        error: std::io::Error,
    },
    Capability(rustix::io::Errno),
    Header(std::io::Error),
}

impl std::fmt::Display for ConfineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfineError::Usage(what) => write!(
                f,
                "usage: {CONFINE_ARG} [--hide PATH]… [--hide-process PID]… -- PROGRAM [ARG]… ({what})"
            ),
            ConfineError::Namespace(errno) => {
                write!(f, "no mount namespace for commands here (unshare: {errno})")
            }
            ConfineError::Propagation(errno) => {
                write!(f, "cannot keep the command's mounts to itself: {errno}")
            }
            ConfineError::Hide { path, error } => {
                write!(f, "cannot hide {}: {error}", path.display())
            }
            ConfineError::Capability(errno) => {
                write!(f, "cannot drop CAP_SYS_PTRACE: {errno}")
            }
            ConfineError::Header(error) => write!(f, "cannot write the header: {error}"),
        }
    }
}

/// The launcher: confine, then become the command. Never returns; a
/// launcher that could not confine exits with [`CANNOT_CONFINE`] and no
/// header, having run nothing.
pub fn run_confined(args: impl IntoIterator<Item = OsString>) -> ! {
    let code = match confine(args) {
        Ok(command) => {
            let (program, rest) = match command.split_first() {
                Some(split) => split,
                None => unreachable_empty(),
            };
            // Only returns when the command could not be started.
            let error = Command::new(program).args(rest).exec();
            eprintln!(
                "warden confine: cannot run {}: {error}",
                program.to_string_lossy()
            );
            NOT_STARTED
        }
        Err(error) => {
            eprintln!("warden confine: {error}");
            CANNOT_CONFINE
        }
    };
    std::process::exit(code)
}

/// `parse` never yields an empty command.
fn unreachable_empty() -> ! {
    eprintln!("warden confine: no command");
    std::process::exit(CANNOT_CONFINE)
}

/// Everything but the `exec`: the command, once it is confined.
fn confine(args: impl IntoIterator<Item = OsString>) -> Result<Vec<OsString>, ConfineError> {
    let (hidden, command) = parse(args)?;
    enter_mount_namespace().map_err(ConfineError::Namespace)?;
    // What is hidden here never reaches the host; what the host mounts
    // later still reaches the command.
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::DOWNSTREAM,
    )
    .map_err(ConfineError::Propagation)?;
    let mut count = 0;
    for path in &hidden.paths {
        if hide(path).map_err(|error| ConfineError::Hide {
            path: path.clone(),
            error,
        })? {
            count += 1;
        }
    }
    for pid in &hidden.processes {
        count += hide_process(*pid)?;
    }
    drop_ptrace()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{HEADER_PREFIX}hidden={count}")
        .and_then(|()| out.flush())
        .map_err(ConfineError::Header)?;
    Ok(command)
}

/// `--hide PATH`… `--hide-process PID`… `--` COMMAND….
fn parse(
    args: impl IntoIterator<Item = OsString>,
) -> Result<(Hidden, Vec<OsString>), ConfineError> {
    let mut args = args.into_iter();
    let mut hidden = Hidden::default();
    loop {
        let Some(arg) = args.next() else {
            return Err(ConfineError::Usage("no `--` before the command".into()));
        };
        if arg == OsStr::new("--") {
            break;
        }
        let value = |args: &mut dyn Iterator<Item = OsString>| {
            args.next().ok_or_else(|| {
                ConfineError::Usage(format!("{} needs a value", arg.to_string_lossy()))
            })
        };
        if arg == OsStr::new("--hide") {
            let path = PathBuf::from(value(&mut args)?);
            if !path.is_absolute() {
                return Err(ConfineError::Usage(format!(
                    "{} is not an absolute path",
                    path.display()
                )));
            }
            hidden.paths.push(path);
        } else if arg == OsStr::new("--hide-process") {
            let pid = value(&mut args)?;
            let pid = pid
                .to_str()
                .and_then(|p| p.parse::<u32>().ok())
                .filter(|p| *p > 0)
                .ok_or_else(|| {
                    ConfineError::Usage(format!("{} is not a process id", pid.to_string_lossy()))
                })?;
            hidden.processes.push(pid);
        } else {
            return Err(ConfineError::Usage(format!(
                "unknown argument {}",
                arg.to_string_lossy()
            )));
        }
    }
    let command: Vec<OsString> = args.collect();
    if command.is_empty() {
        return Err(ConfineError::Usage("no command".into()));
    }
    Ok((hidden, command))
}

/// A mount namespace of this process's own.
#[allow(unsafe_code)]
fn enter_mount_namespace() -> rustix::io::Result<()> {
    // SAFETY: the launcher is single-threaded (it was just executed and
    // started no thread), and only the mount namespace is unshared — not
    // the file table, the case rustix marks unsafe.
    unsafe { rustix::thread::unshare_unsafe(UnshareFlags::NEWNS) }
}

/// The flags of every mount that hides something.
fn sealed() -> MountFlags {
    MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC
}

/// Out of sight: an empty read-only tmpfs over a directory, `/dev/null`
/// read-only over a file. A path that does not exist is nothing to hide.
fn hide(path: &Path) -> std::io::Result<bool> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(error),
    };
    if metadata.is_dir() {
        empty_over(path)?;
    } else {
        rustix::mount::mount_bind("/dev/null", path)?;
        rustix::mount::mount_remount(path, MountFlags::BIND | sealed(), c"")?;
    }
    Ok(true)
}

fn empty_over(dir: &Path) -> std::io::Result<()> {
    rustix::mount::mount("tmpfs", dir, "tmpfs", sealed(), c"mode=0,size=4k")?;
    Ok(())
}

/// `/proc/PID` and `/proc/TID` of each of its threads, hidden. A process
/// that is gone has nothing left to hide.
fn hide_process(pid: u32) -> Result<usize, ConfineError> {
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    let mut entries = vec![proc_dir.clone()];
    if let Ok(tasks) = std::fs::read_dir(proc_dir.join("task")) {
        for task in tasks.flatten() {
            let tid = task.file_name();
            if tid.to_str().is_some_and(|t| t != pid.to_string()) {
                entries.push(Path::new("/proc").join(tid));
            }
        }
    }
    let mut count = 0;
    for entry in entries {
        match empty_over(&entry) {
            Ok(()) => count += 1,
            // The thread ended between the listing and the mount.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(ConfineError::Hide { path: entry, error }),
        }
    }
    Ok(count)
}

/// No `CAP_SYS_PTRACE` for the command, whoever it runs as. Without
/// `CAP_SETPCAP` (not root) there is none to drop.
fn drop_ptrace() -> Result<(), ConfineError> {
    match rustix::thread::remove_capability_from_bounding_set(CapabilitySet::SYS_PTRACE) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::PERM) if !rustix::process::geteuid().is_root() => Ok(()),
        Err(errno) => Err(ConfineError::Capability(errno)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn arguments_round_trip() {
        let hidden = Hidden {
            paths: vec![
                PathBuf::from("/var/lib/warden"),
                PathBuf::from("/etc/w.toml"),
            ],
            processes: vec![42, 43],
        };
        let mut args = crate::launcher_args(&hidden);
        args.extend(os(&["/bin/sh", "-c", "uptime"]));
        assert_eq!(args[0], CONFINE_ARG);
        let (parsed, command) = parse(args.into_iter().skip(1)).unwrap();
        assert_eq!(parsed, hidden);
        assert_eq!(command, os(&["/bin/sh", "-c", "uptime"]));
    }

    #[test]
    fn bad_arguments_are_refused_before_anything_happens() {
        for args in [
            os(&["--hide"]),
            os(&["--hide", "/x"]),
            os(&["--hide", "relative", "--", "true"]),
            os(&["--hide-process", "0", "--", "true"]),
            os(&["--hide-process", "self", "--", "true"]),
            os(&["--"]),
            os(&["--frobnicate", "--", "true"]),
        ] {
            assert!(parse(args.clone()).is_err(), "{args:?}");
        }
    }
}
