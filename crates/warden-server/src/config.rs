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

/// Whether plain HTTP may listen on an address beyond loopback (behind a
/// TLS-terminating proxy): only when asked for (`--insecure-http`), and
/// then every start warns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainHttp {
    LoopbackOnly,
    AnyAddress,
}

/// The four-eyes rule: no credential of the person whose message caused a
/// request may approve (or run) it.
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
    /// Where plain HTTP may listen (TLS may listen anywhere).
    pub plain_http: PlainHttp,
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
            plain_http: PlainHttp::LoopbackOnly,
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

    /// Why this configuration may not listen, or the warning it starts
    /// with: plain HTTP beyond loopback needs [`PlainHttp::AnyAddress`].
    pub fn listen_check(&self) -> ListenCheck {
        if self.tls != TlsMode::Off || is_loopback(self.listen.ip()) {
            return ListenCheck::Fine;
        }
        match self.plain_http {
            PlainHttp::LoopbackOnly => ListenCheck::Refused,
            PlainHttp::AnyAddress => ListenCheck::Warn(format!(
                "serving plain HTTP on {}: passwords, cookies and tokens cross the network unencrypted unless a TLS proxy is in front (--insecure-http)",
                self.listen
            )),
        }
    }
}

/// What [`ServerConfig::listen_check`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListenCheck {
    Fine,
    Warn(String),
    Refused,
}

/// 127.0.0.0/8, ::1, and ::ffff:127.0.0.0/104.
pub fn is_loopback(ip: std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V4(v4) => v4.is_loopback(),
        std::net::IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
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
    fn plain_http_listens_beyond_loopback_only_when_asked() {
        let table = [
            (
                "127.0.0.1:7878",
                TlsMode::Off,
                PlainHttp::LoopbackOnly,
                "fine",
            ),
            (
                "127.8.0.1:7878",
                TlsMode::Off,
                PlainHttp::LoopbackOnly,
                "fine",
            ),
            ("[::1]:7878", TlsMode::Off, PlainHttp::LoopbackOnly, "fine"),
            (
                "[::ffff:127.0.0.1]:7878",
                TlsMode::Off,
                PlainHttp::LoopbackOnly,
                "fine",
            ),
            (
                "0.0.0.0:7878",
                TlsMode::Off,
                PlainHttp::LoopbackOnly,
                "refused",
            ),
            (
                "[::]:7878",
                TlsMode::Off,
                PlainHttp::LoopbackOnly,
                "refused",
            ),
            (
                "192.168.1.5:7878",
                TlsMode::Off,
                PlainHttp::LoopbackOnly,
                "refused",
            ),
            ("0.0.0.0:7878", TlsMode::Off, PlainHttp::AnyAddress, "warn"),
            (
                "0.0.0.0:7878",
                TlsMode::SelfSigned,
                PlainHttp::LoopbackOnly,
                "fine",
            ),
        ];
        for (listen, tls, plain_http, expected) in table {
            let mut config = ServerConfig::new(PathBuf::from("/tmp/x"));
            config.listen = listen.parse().unwrap();
            config.tls = tls;
            config.plain_http = plain_http;
            let got = match config.listen_check() {
                ListenCheck::Fine => "fine",
                ListenCheck::Warn(text) => {
                    assert!(text.contains("--insecure-http"), "{text}");
                    "warn"
                }
                ListenCheck::Refused => "refused",
            };
            assert_eq!(got, expected, "{listen}");
        }
    }

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
