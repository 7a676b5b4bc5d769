//! Command parts that ask systemd: whether it is the running init, and the
//! unit names a service may have.

/// Whether systemd is the running init (what `sd_booted()` checks):
/// `systemctl` may be installed where systemd does not run (containers).
pub const SYSTEMD_RUNS: &str = "[ -d /run/systemd/system ]";

/// The units a service may be: `ssh` is `ssh.service` or `sshd.service`.
pub fn unit_candidates(service: &str) -> Vec<String> {
    if service.ends_with(".service") {
        return vec![service.to_string()];
    }
    let mut units = vec![format!("{service}.service")];
    if !service.ends_with('d') {
        units.push(format!("{service}d.service"));
    }
    units
}
