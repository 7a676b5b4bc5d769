//! Signals to a command's whole process group, and the names of signals.
//!
//! Every command runs as the leader of its own process group, so one
//! `kill(-pgid)` reaches the shell, its pipeline and whatever it put in the
//! background, which killing only the shell would leave running.

use rustix::process::{Pid, Signal, kill_process_group};

/// The process group of one spawned command (its leader's pid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProcessGroup(Pid);

impl ProcessGroup {
    /// The group led by the process `leader`, which was spawned with
    /// `process_group(0)`. `None` for pid 1 or below: `kill(-1)` would
    /// signal every process we may signal, so such a group is never
    /// constructed; and never Warden's own group.
    pub fn of_leader(leader: u32) -> Option<Self> {
        let raw = i32::try_from(leader).ok()?;
        let pid = Pid::from_raw(raw).filter(|pid| pid.as_raw_pid() > 1)?;
        (pid != rustix::process::getpgrp()).then_some(ProcessGroup(pid))
    }

    pub fn id(self) -> i32 {
        self.0.as_raw_pid()
    }

    /// Asks every member to stop: SIGTERM, then SIGCONT so that members
    /// stopped by job control (SIGTTIN from reading a terminal) can act on it.
    /// A group that is already gone is fine.
    pub fn terminate(self) {
        self.signal(Signal::TERM);
        self.signal(Signal::CONT);
    }

    /// Kills every member that is left.
    pub fn kill(self) {
        self.signal(Signal::KILL);
    }

    /// Whether any process (a zombie too) is still in the group: one
    /// syscall, `kill(-pgid, 0)`.
    pub fn has_members(self) -> bool {
        // EPERM means a member exists that we may not signal.
        !matches!(
            rustix::process::test_kill_process_group(self.0),
            Err(rustix::io::Errno::SRCH)
        )
    }

    pub fn signal(self, signal: Signal) {
        // Errors are ignored on purpose: ESRCH means no member is left, which
        // is the goal; EPERM means a member changed its credentials (setuid)
        // and nothing more can be done from here.
        kill_process_group(self.0, signal).ok();
    }
}

/// Sends `signal` to each process and to each process group of `procs`
/// (a process that made itself a group leader took its own group along).
/// Errors are ignored as in [`ProcessGroup::signal`].
pub(crate) fn signal_processes(procs: &[super::procfs::ProcEntry], signal: Signal) {
    let mut groups = std::collections::BTreeSet::new();
    for proc in procs {
        if let Some(pid) = Pid::from_raw(proc.pid).filter(|p| p.as_raw_pid() > 1) {
            rustix::process::kill_process(pid, signal).ok();
        }
        groups.insert(proc.pgid);
    }
    for group in groups {
        if let Some(group) = u32::try_from(group).ok().and_then(ProcessGroup::of_leader) {
            group.signal(signal);
        }
    }
}

/// The conventional name of a signal number (`SIGKILL` for 9) on this
/// platform; numbers differ between architectures, so they come from rustix.
pub fn signal_name(number: i32) -> Option<&'static str> {
    const NAMES: [(Signal, &str); 28] = [
        (Signal::HUP, "SIGHUP"),
        (Signal::INT, "SIGINT"),
        (Signal::QUIT, "SIGQUIT"),
        (Signal::ILL, "SIGILL"),
        (Signal::TRAP, "SIGTRAP"),
        (Signal::ABORT, "SIGABRT"),
        (Signal::BUS, "SIGBUS"),
        (Signal::FPE, "SIGFPE"),
        (Signal::KILL, "SIGKILL"),
        (Signal::USR1, "SIGUSR1"),
        (Signal::SEGV, "SIGSEGV"),
        (Signal::USR2, "SIGUSR2"),
        (Signal::PIPE, "SIGPIPE"),
        (Signal::ALARM, "SIGALRM"),
        (Signal::TERM, "SIGTERM"),
        (Signal::CHILD, "SIGCHLD"),
        (Signal::CONT, "SIGCONT"),
        (Signal::STOP, "SIGSTOP"),
        (Signal::TSTP, "SIGTSTP"),
        (Signal::TTIN, "SIGTTIN"),
        (Signal::TTOU, "SIGTTOU"),
        (Signal::URG, "SIGURG"),
        (Signal::XCPU, "SIGXCPU"),
        (Signal::XFSZ, "SIGXFSZ"),
        (Signal::VTALARM, "SIGVTALRM"),
        (Signal::PROF, "SIGPROF"),
        (Signal::WINCH, "SIGWINCH"),
        (Signal::SYS, "SIGSYS"),
    ];
    NAMES
        .iter()
        .find(|(signal, _)| signal.as_raw() == number)
        .map(|(_, name)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_signal_names() {
        assert_eq!(signal_name(9), Some("SIGKILL"));
        assert_eq!(signal_name(15), Some("SIGTERM"));
        assert_eq!(signal_name(2), Some("SIGINT"));
        assert_eq!(signal_name(0), None);
        assert_eq!(signal_name(200), None);
    }
}
