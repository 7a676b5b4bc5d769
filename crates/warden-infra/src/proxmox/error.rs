//! What can go wrong talking to a Proxmox VE cluster, each failure specific
//! enough that a person (or the model) knows what to fix: the secret, a
//! privilege, the pinned certificate, a node, quorum, a lock.

use std::time::Duration;

use warden_protocol::ErrorCode;

use super::config::ConfigError;

/// One failed Proxmox call or refused operation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProxmoxError {
    #[error(transparent)]
    Config(#[from] ConfigError),

    /// 401: the token id is unknown or its secret is wrong.
    #[error(
        "Proxmox cluster `{cluster}` refused API token `{token_id}` (401 authentication failure): \
         check the token id and its secret"
    )]
    Unauthorized { cluster: String, token_id: String },

    /// 403: the token lacks a privilege (boxed: it is the largest variant).
    #[error(transparent)]
    Forbidden(Box<PermissionDenied>),

    /// The server's certificate is not the pinned one.
    #[error(
        "Proxmox cluster `{cluster}`: the certificate presented by {host} has SHA-256 fingerprint \
         {presented}, but {expected} is pinned; if the node's certificate was renewed, pin the new fingerprint"
    )]
    CertificateMismatch {
        cluster: String,
        host: String,
        expected: String,
        presented: String,
    },

    /// Any other TLS failure (unknown issuer, expired, wrong name, …).
    #[error("Proxmox cluster `{cluster}`: TLS handshake with {host} failed: {reason}")]
    Tls {
        cluster: String,
        host: String,
        reason: String,
    },

    /// No connection at all (refused, no route, DNS).
    #[error("Proxmox cluster `{cluster}` is unreachable at {url}: {reason}")]
    Unreachable {
        cluster: String,
        url: String,
        reason: String,
    },

    #[error("Proxmox cluster `{cluster}` did not answer {method} {path} within {timeout:?}")]
    Timeout {
        cluster: String,
        method: String,
        path: String,
        timeout: Duration,
    },

    /// A node that does not answer (PVE's 595 "No route to host", or offline
    /// in the cluster status).
    #[error("Proxmox node `{node}` of cluster `{cluster}` is offline: {message}")]
    NodeOffline {
        cluster: String,
        node: String,
        message: String,
    },

    /// The cluster lost quorum: `/etc/pve` is read-only, so changes fail.
    #[error(
        "Proxmox cluster `{cluster}` has no quorum ({message}): reads work, but no guest can be \
         changed until quorum is back"
    )]
    NoQuorum { cluster: String, message: String },

    /// The guest holds a config lock (backup, migrate, snapshot, …).
    #[error(
        "{target} is locked ({lock}) — {}; try again when it is done",
        lock_hint(lock)
    )]
    Locked { target: String, lock: String },

    /// Templates cannot be started, stopped or snapshotted.
    #[error(
        "{target} is a template: templates cannot be {action}; clone it to get a guest that runs"
    )]
    Template { target: String, action: String },

    /// The HA manager holds the guest in a state where PVE refuses requests.
    #[error("{target} is managed by HA and its HA state is `{state}`: {hint}")]
    HaRefused {
        target: String,
        state: String,
        hint: String,
    },

    /// The operation needs the guest in another state (reboot of a stopped guest).
    #[error("{target} is {status}: {operation} needs a running guest")]
    NotRunning {
        target: String,
        status: String,
        operation: String,
    },

    /// The id names no guest, node or storage of this cluster.
    #[error("{what} not found on Proxmox cluster `{cluster}`{}", hint.as_deref().map(|h| format!(": {h}")).unwrap_or_default())]
    NotFound {
        cluster: String,
        what: String,
        hint: Option<String>,
    },

    /// The operation is not for this kind of resource (agent exec on an LXC).
    #[error("{operation} is not possible for {target}: {reason}")]
    Unsupported {
        target: String,
        operation: String,
        reason: String,
    },

    /// A task ended with an exit status other than OK.
    #[error(
        "task {task_type} on {node} failed: {exit_status}{}",
        tail_text(log_tail)
    )]
    TaskFailed {
        upid: String,
        node: String,
        task_type: String,
        exit_status: String,
        log_tail: Vec<String>,
    },

    /// The deadline passed with the task still running: it may yet succeed.
    #[error(
        "task {upid} is still running after {waited:?}; it may still finish, so check the guest's status before retrying"
    )]
    TaskStillRunning {
        upid: String,
        waited: Duration,
        log_tail: Vec<String>,
    },

    /// A change was sent, but what became of it could not be read (the
    /// connection broke while waiting): it may have happened.
    #[error(
        "{what} was sent, but its outcome could not be read ({reason}); check the guest before retrying"
    )]
    OutcomeUnknown { what: String, reason: String },

    /// The QEMU guest agent does not answer.
    #[error("the QEMU guest agent of {target} is not running or not answering: {message}")]
    AgentNotRunning { target: String, message: String },

    /// The guest did not reach the expected state after a successful task.
    #[error("{target} is {actual} after {operation}, expected {expected}")]
    VerificationFailed {
        target: String,
        operation: String,
        expected: String,
        actual: String,
    },

    /// Any other error answer.
    #[error("Proxmox cluster `{cluster}`: {method} {path} failed with HTTP {status}: {message}")]
    Api {
        cluster: String,
        method: String,
        path: String,
        status: u16,
        message: String,
    },

    /// An answer that is not the JSON shape PVE documents.
    #[error("Proxmox cluster `{cluster}`: unexpected answer to {path}: {reason}")]
    Decode {
        cluster: String,
        path: String,
        reason: String,
    },
}

/// A 403, with the privilege named whenever PVE or the operation says
/// which one is needed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Proxmox cluster `{cluster}`: API token `{token_id}` lacks {} on `{acl_path}` ({method} {path}: {message})",
    privilege.as_deref().map(|p| format!("privilege `{p}`")).unwrap_or_else(|| "a privilege".into())
)]
pub struct PermissionDenied {
    pub cluster: String,
    pub token_id: String,
    pub method: String,
    pub path: String,
    /// The ACL path the privilege is checked on (`/vms/101`), when known.
    pub acl_path: String,
    pub privilege: Option<String>,
    pub message: String,
}

impl ProxmoxError {
    /// An error met after a change was sent (while polling its task or
    /// verifying it): a failure to read becomes [`ProxmoxError::OutcomeUnknown`],
    /// so nobody takes it for "nothing happened". Errors that describe the
    /// change's own outcome pass through.
    pub fn after_dispatch(self, what: &str) -> Self {
        match self {
            ProxmoxError::Unreachable { .. }
            | ProxmoxError::Timeout { .. }
            | ProxmoxError::Tls { .. }
            | ProxmoxError::CertificateMismatch { .. }
            | ProxmoxError::NodeOffline { .. }
            | ProxmoxError::Unauthorized { .. }
            | ProxmoxError::Forbidden(_)
            | ProxmoxError::Decode { .. }
            | ProxmoxError::Api { .. }
            | ProxmoxError::NoQuorum { .. }
            | ProxmoxError::NotFound { .. }
            | ProxmoxError::AgentNotRunning { .. } => ProxmoxError::OutcomeUnknown {
                what: what.to_string(),
                reason: self.to_string(),
            },
            ProxmoxError::Config(_)
            | ProxmoxError::Locked { .. }
            | ProxmoxError::Template { .. }
            | ProxmoxError::HaRefused { .. }
            | ProxmoxError::NotRunning { .. }
            | ProxmoxError::Unsupported { .. }
            | ProxmoxError::TaskFailed { .. }
            | ProxmoxError::TaskStillRunning { .. }
            | ProxmoxError::VerificationFailed { .. }
            | ProxmoxError::OutcomeUnknown { .. } => self,
        }
    }
}

fn lock_hint(lock: &str) -> &'static str {
    match lock {
        "backup" => "a backup is running",
        "migrate" => "a migration is running",
        "snapshot" | "snapshot-delete" => "a snapshot task is running or was interrupted",
        "rollback" => "a rollback is running or was interrupted",
        "clone" => "a clone is running",
        "create" => "it is being created",
        "suspended" | "suspending" => "it is hibernated",
        "mounted" => "its volumes are mounted by `pct mount`",
        "disk" => "a disk operation is running",
        _ => "another operation holds it",
    }
}

fn tail_text(tail: &[String]) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!(" (log tail: {})", tail.join(" | "))
    }
}

impl ProxmoxError {
    /// The envelope code the executor reports this error with.
    pub fn error_code(&self) -> ErrorCode {
        match self {
            ProxmoxError::Config(_) => ErrorCode::InvalidInput,
            ProxmoxError::Unauthorized { .. } | ProxmoxError::Forbidden(_) => {
                ErrorCode::PolicyBlocked
            }
            ProxmoxError::CertificateMismatch { .. }
            | ProxmoxError::Tls { .. }
            | ProxmoxError::Unreachable { .. }
            | ProxmoxError::NodeOffline { .. }
            | ProxmoxError::NoQuorum { .. }
            | ProxmoxError::AgentNotRunning { .. } => ErrorCode::Unavailable,
            ProxmoxError::Timeout { .. } | ProxmoxError::TaskStillRunning { .. } => {
                ErrorCode::Timeout
            }
            ProxmoxError::Locked { .. }
            | ProxmoxError::Template { .. }
            | ProxmoxError::HaRefused { .. }
            | ProxmoxError::NotRunning { .. }
            | ProxmoxError::Unsupported { .. } => ErrorCode::PolicyBlocked,
            ProxmoxError::NotFound { .. } => ErrorCode::NotFound,
            ProxmoxError::TaskFailed { .. }
            | ProxmoxError::VerificationFailed { .. }
            | ProxmoxError::OutcomeUnknown { .. }
            | ProxmoxError::Api { .. } => ErrorCode::ExecutionFailed,
            ProxmoxError::Decode { .. } => ErrorCode::Internal,
        }
    }

    /// Whether the same call may succeed later without anyone changing
    /// Warden's configuration (a lock ends, a node returns, quorum comes back).
    pub fn is_retryable(&self) -> bool {
        match self {
            ProxmoxError::Unreachable { .. }
            | ProxmoxError::Timeout { .. }
            | ProxmoxError::NodeOffline { .. }
            | ProxmoxError::NoQuorum { .. }
            | ProxmoxError::Locked { .. }
            | ProxmoxError::AgentNotRunning { .. } => true,
            ProxmoxError::Config(_)
            | ProxmoxError::Unauthorized { .. }
            | ProxmoxError::Forbidden(_)
            | ProxmoxError::CertificateMismatch { .. }
            | ProxmoxError::Tls { .. }
            | ProxmoxError::Template { .. }
            | ProxmoxError::HaRefused { .. }
            | ProxmoxError::NotRunning { .. }
            | ProxmoxError::NotFound { .. }
            | ProxmoxError::Unsupported { .. }
            | ProxmoxError::TaskFailed { .. }
            | ProxmoxError::TaskStillRunning { .. }
            | ProxmoxError::VerificationFailed { .. }
            | ProxmoxError::OutcomeUnknown { .. }
            | ProxmoxError::Api { .. }
            | ProxmoxError::Decode { .. } => false,
        }
    }

    /// Whether nothing was changed on the cluster: the request was refused
    /// before PVE started any work (the envelope's `blocked`).
    pub fn nothing_changed(&self) -> bool {
        match self {
            ProxmoxError::TaskFailed { .. }
            | ProxmoxError::TaskStillRunning { .. }
            | ProxmoxError::VerificationFailed { .. }
            | ProxmoxError::OutcomeUnknown { .. }
            | ProxmoxError::Timeout { .. }
            | ProxmoxError::Api { .. }
            | ProxmoxError::Decode { .. } => false,
            ProxmoxError::Config(_)
            | ProxmoxError::Unauthorized { .. }
            | ProxmoxError::Forbidden(_)
            | ProxmoxError::CertificateMismatch { .. }
            | ProxmoxError::Tls { .. }
            | ProxmoxError::Unreachable { .. }
            | ProxmoxError::NodeOffline { .. }
            | ProxmoxError::NoQuorum { .. }
            | ProxmoxError::Locked { .. }
            | ProxmoxError::Template { .. }
            | ProxmoxError::HaRefused { .. }
            | ProxmoxError::NotRunning { .. }
            | ProxmoxError::NotFound { .. }
            | ProxmoxError::Unsupported { .. }
            | ProxmoxError::AgentNotRunning { .. } => true,
        }
    }
}

/// The `(path, privilege)` of PVE's "Permission check failed (/vms/100,
/// VM.PowerMgmt)"; `None` when the message names no privilege.
pub fn parse_permission_failure(message: &str) -> Option<(String, String)> {
    let start = message.find("Permission check failed (")? + "Permission check failed (".len();
    let inner = &message[start..];
    let inner = &inner[..inner.find(')')?];
    let (path, privilege) = inner.split_once(',')?;
    let (path, privilege) = (path.trim(), privilege.trim());
    let looks_like_privilege = !privilege.is_empty()
        && privilege.contains('.')
        && privilege
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.');
    (path.starts_with('/') && looks_like_privilege)
        .then(|| (path.to_string(), privilege.to_string()))
}

/// The lock name of PVE's "VM is locked (backup)" / "CT is locked (backup)".
pub fn parse_lock_failure(message: &str) -> Option<String> {
    let start = message.find("is locked (")? + "is locked (".len();
    let inner = &message[start..];
    let lock = &inner[..inner.find(')')?];
    (!lock.is_empty()).then(|| lock.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_failures_name_path_and_privilege() {
        let cases = [
            (
                "Permission check failed (/vms/100, VM.PowerMgmt)\n",
                Some(("/vms/100", "VM.PowerMgmt")),
            ),
            (
                "Permission check failed (/, Sys.Audit)",
                Some(("/", "Sys.Audit")),
            ),
            (
                "Permission check failed (/vms/100, VM.GuestAgent.Unrestricted)",
                Some(("/vms/100", "VM.GuestAgent.Unrestricted")),
            ),
            ("Permission check failed (API token not allowed)", None),
            ("Permission check failed (pool 'x' does not exist)", None),
            ("permission denied", None),
            ("", None),
        ];
        for (message, expected) in cases {
            let got = parse_permission_failure(message);
            let expected = expected.map(|(p, v)| (p.to_string(), v.to_string()));
            assert_eq!(got, expected, "{message:?}");
        }
    }

    #[test]
    fn lock_failures_name_the_lock() {
        assert_eq!(
            parse_lock_failure("VM is locked (backup)\n"),
            Some("backup".into())
        );
        assert_eq!(
            parse_lock_failure("CT is locked (snapshot)"),
            Some("snapshot".into())
        );
        assert_eq!(parse_lock_failure("VM is locked ()"), None);
        assert_eq!(parse_lock_failure("no quorum"), None);
    }

    #[test]
    fn messages_are_specific() {
        let err = ProxmoxError::Forbidden(Box::new(PermissionDenied {
            cluster: "homelab".into(),
            token_id: "warden@pve!ops".into(),
            method: "POST".into(),
            path: "/nodes/pve1/qemu/100/status/start".into(),
            acl_path: "/vms/100".into(),
            privilege: Some("VM.PowerMgmt".into()),
            message: "Permission check failed".into(),
        }));
        let text = err.to_string();
        assert!(
            text.contains("lacks privilege `VM.PowerMgmt` on `/vms/100`"),
            "{text}"
        );
        let err = ProxmoxError::Locked {
            target: "vm:pve1:100".into(),
            lock: "backup".into(),
        };
        assert!(err.to_string().contains("a backup is running"), "{err}");
        assert!(err.is_retryable() && err.nothing_changed());
        assert_eq!(err.error_code(), ErrorCode::PolicyBlocked);
        let err = ProxmoxError::TaskFailed {
            upid: "UPID:…".into(),
            node: "pve1".into(),
            task_type: "qmstart".into(),
            exit_status: "boom".into(),
            log_tail: vec!["TASK ERROR: boom".into()],
        };
        assert_eq!(
            err.to_string(),
            "task qmstart on pve1 failed: boom (log tail: TASK ERROR: boom)"
        );
        assert!(!err.nothing_changed());
    }

    #[test]
    fn read_failures_after_a_change_are_not_nothing() {
        let unreachable = ProxmoxError::Unreachable {
            cluster: "lab".into(),
            url: "https://pve1:8006/".into(),
            reason: "connection reset".into(),
        };
        assert!(unreachable.nothing_changed());
        let after = unreachable.after_dispatch("POST /nodes/pve1/qemu/100/status/stop");
        assert!(!after.nothing_changed());
        assert!(
            after
                .to_string()
                .starts_with("POST /nodes/pve1/qemu/100/status/stop was sent"),
            "{after}"
        );
        let failed = ProxmoxError::TaskFailed {
            upid: "u".into(),
            node: "pve1".into(),
            task_type: "qmstop".into(),
            exit_status: "x".into(),
            log_tail: vec![],
        };
        assert_eq!(failed.clone().after_dispatch("x"), failed);
    }
}
