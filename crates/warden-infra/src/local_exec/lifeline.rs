//! The lifeline: one pipe per Warden process whose write end Warden holds
//! and never writes to. Every launcher gets the read end as its stdin; when
//! Warden dies, however it dies (`kill -9` included), the kernel closes the
//! write end and every launcher reads end-of-file at once, then stops its
//! command.
//!
//! Why not `PR_SET_PDEATHSIG`: the kernel sends it when the *thread* that
//! spawned the child exits, not the process. Tokio spawns from whatever
//! thread polls the future (blocking-pool threads come and go), so a
//! perfectly healthy Warden would kill its own commands. A pipe belongs to
//! the process, and needs no signal handler in the launcher to notice.

use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::sync::{Mutex, PoisonError};

use rustix::pipe::{PipeFlags, pipe_with};

/// Both ends, alive for the rest of the process. Close-on-exec, so no
/// other child inherits the write end (which would keep the line alive);
/// the read end a launcher gets becomes its stdin, which exec keeps open.
struct Lifeline {
    read: OwnedFd,
    _write: OwnedFd,
}

static LIFELINE: Mutex<Option<Lifeline>> = Mutex::new(None);

/// A new handle on the read end, for one launcher's stdin.
pub(crate) fn stdin_for_launcher() -> std::io::Result<Stdio> {
    let mut lifeline = LIFELINE.lock().unwrap_or_else(PoisonError::into_inner);
    let line = match lifeline.as_mut() {
        Some(line) => line,
        None => {
            let (read, write) = pipe_with(PipeFlags::CLOEXEC)?;
            lifeline.insert(Lifeline {
                read,
                _write: write,
            })
        }
    };
    Ok(Stdio::from(line.read.try_clone()?))
}

/// Blocks until the process at the other end of `lifeline` is gone (end of
/// file, or an error: either way nobody holds the line any more).
pub(crate) fn wait_for_loss(mut lifeline: impl std::io::Read) {
    let mut byte = [0u8; 64];
    loop {
        match lifeline.read(&mut byte) {
            // Nobody writes on purpose; stray bytes are not a loss.
            Ok(n) if n > 0 => {}
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Ok(_) | Err(_) => return,
        }
    }
}
