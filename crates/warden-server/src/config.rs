//! How `warden serve` is set up: where it listens, where its data lives,
//! TLS, the control-level ceiling, and the timings of logins, streams and
//! shutdown. Everything a turn reads (the model, limits, approvals' life,
//! budgets) is the world's effective configuration, the same as the CLI's.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use warden_protocol::ControlLevel;

/// How the listener speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsMode {
    /// Plain HTTP (loopback, or behind a TLS-terminating proxy).
    Off,
    /// A certificate chain and key from PEM files.
    Files { cert: PathBuf, key: PathBuf },
    /// A self-signed certificate, generated once and kept in the data
    /// directory; its SHA-256 fingerprint is reported at start.
    SelfSigned,
}

/// Whether `/metrics` needs a viewer's credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricsAccess {
    Viewer,
    Public,
}

/// The four-eyes rule: an approver may not approve (or run) a request
/// their own message caused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FourEyes {
    Off,
    On,
}

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// SQLite (`warden.db`), TLS material, the first admin's password file.
    pub data_dir: PathBuf,
    pub tls: TlsMode,
    /// No session's control level exceeds this; requests for more are capped.
    pub max_control_level: ControlLevel,
    pub metrics: MetricsAccess,
    pub four_eyes: FourEyes,
    /// How long a browser login lasts.
    pub login_ttl: Duration,
    /// On SIGTERM, how long running turns may still take before they are
    /// cancelled.
    pub shutdown_grace: Duration,
    /// A `: keepalive` comment goes to idle event streams this often.
    pub sse_keepalive: Duration,
    /// A session with no turn and no stream for this long leaves memory
    /// (its messages stay in the store; it comes back on its next use).
    pub session_idle_ttl: Duration,
}

impl ServerConfig {
    /// Defaults for everything but where the data lives.
    pub fn new(data_dir: PathBuf) -> Self {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 7878)),
            data_dir,
            tls: TlsMode::Off,
            max_control_level: ControlLevel::Controlled,
            metrics: MetricsAccess::Viewer,
            four_eyes: FourEyes::Off,
            login_ttl: Duration::from_secs(12 * 60 * 60),
            shutdown_grace: Duration::from_secs(10),
            sse_keepalive: Duration::from_secs(15),
            session_idle_ttl: Duration::from_secs(60 * 60),
        }
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("warden.db")
    }
}

/// The lower of two control levels (read_only < controlled < autonomous).
pub fn cap_level(requested: ControlLevel, max: ControlLevel) -> ControlLevel {
    fn rank(level: ControlLevel) -> u8 {
        match level {
            ControlLevel::ReadOnly => 0,
            ControlLevel::Controlled => 1,
            ControlLevel::Autonomous => 2,
        }
    }
    if rank(requested) <= rank(max) {
        requested
    } else {
        max
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ControlLevel::*;

    #[test]
    fn levels_are_capped_by_the_ceiling() {
        let table = [
            (ReadOnly, Controlled, ReadOnly),
            (Controlled, Controlled, Controlled),
            (Autonomous, Controlled, Controlled),
            (Autonomous, ReadOnly, ReadOnly),
            (Autonomous, Autonomous, Autonomous),
            (Controlled, ReadOnly, ReadOnly),
        ];
        for (requested, max, expected) in table {
            assert_eq!(
                cap_level(requested, max),
                expected,
                "{requested} under {max}"
            );
        }
    }
}
