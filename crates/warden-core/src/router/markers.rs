//! The `@@warden:` lines a route's command prints between the parts of its
//! output, or in place of a tool that is missing, so that the answer can
//! tell the parts apart (and a missing `systemctl` from an empty list).
//! Commands (`routes/`) print them; answers (`render/`) split on them.

/// `systemctl` is missing, or systemd is not the running init.
pub const NO_SYSTEMCTL: &str = "@@warden:no-systemctl";
/// Before the processes whose name matches a service.
pub const PROCESSES_MARKER: &str = "@@warden:processes";
/// `pgrep` is missing, so processes could not be listed.
pub const NO_PGREP: &str = "@@warden:no-pgrep";
/// `ss` is missing; `netstat` output follows.
pub const NO_SS: &str = "@@warden:no-ss";
/// Before `/etc/os-release`, after `uname`.
pub const OS_MARKER: &str = "@@warden:os";
/// Before a unit's last journal lines, after `systemctl show`.
pub const JOURNAL_MARKER: &str = "@@warden:journal";
/// Marks the check before a service change (`warden explain` answers it
/// as if the unit exists, to show the rest of the plan).
pub const UNIT_CHECK: &str = "@@warden:unit-check";
