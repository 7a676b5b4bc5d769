//! PVE's error answers turned into specific [`ProxmoxError`]s: 401, 403
//! with the privilege named, 595 for an offline node, lost quorum, locks,
//! missing guests, a silent guest agent. Pure: status and message in.

use reqwest::StatusCode;

use super::client::ApiPath;
use super::error::{PermissionDenied, ProxmoxError, parse_lock_failure, parse_permission_failure};

/// PVE's error answer as a specific error. Pure: status, request and message in.
pub fn classify_failure(
    cluster: &str,
    token_id: &str,
    status: StatusCode,
    method: &str,
    path: &ApiPath,
    message: &str,
) -> ProxmoxError {
    let cluster = cluster.to_string();
    let lower = message.to_ascii_lowercase();
    match status.as_u16() {
        401 => {
            return ProxmoxError::Unauthorized {
                cluster,
                token_id: token_id.to_string(),
            };
        }
        403 => {
            let parsed = parse_permission_failure(message);
            return ProxmoxError::Forbidden(Box::new(PermissionDenied {
                cluster,
                token_id: token_id.to_string(),
                method: method.to_string(),
                path: path.to_string(),
                acl_path: parsed
                    .as_ref()
                    .map(|(p, _)| p.clone())
                    .unwrap_or_else(|| acl_path_of(path)),
                privilege: parsed.map(|(_, privilege)| privilege),
                message: message.to_string(),
            }));
        }
        // 595: pveproxy could not reach the node the request is for.
        595 | 596 => {
            return ProxmoxError::NodeOffline {
                cluster,
                node: path.node().unwrap_or("?").to_string(),
                message: message.to_string(),
            };
        }
        _ => {}
    }
    if lower.contains("no quorum") {
        return ProxmoxError::NoQuorum {
            cluster,
            message: message.to_string(),
        };
    }
    if let Some(lock) = parse_lock_failure(message) {
        return ProxmoxError::Locked {
            target: path.target(),
            lock,
        };
    }
    if lower.contains("guest agent is not running")
        || (lower.contains("qmp command 'guest-") && lower.contains("timeout"))
    {
        return ProxmoxError::AgentNotRunning {
            target: path.target(),
            message: message.to_string(),
        };
    }
    if lower.contains("no route to host") && path.node().is_some() {
        return ProxmoxError::NodeOffline {
            cluster,
            node: path.node().unwrap_or("?").to_string(),
            message: message.to_string(),
        };
    }
    if (lower.contains("configuration file") && lower.contains("does not exist"))
        || status == StatusCode::NOT_FOUND
    {
        return ProxmoxError::NotFound {
            cluster,
            what: path.target(),
            hint: Some(message.to_string()),
        };
    }
    ProxmoxError::Api {
        cluster,
        method: method.to_string(),
        path: path.to_string(),
        status: status.as_u16(),
        message: message.to_string(),
    }
}

/// The ACL path PVE checks for a request path: `/vms/{vmid}` for a guest,
/// `/nodes/{node}` for a node, `/storage/{id}` for a storage, else `/`.
pub fn acl_path_of(path: &ApiPath) -> String {
    match path.segments() {
        [n, _, kind, vmid, ..] if n == "nodes" && (kind == "qemu" || kind == "lxc") => {
            format!("/vms/{vmid}")
        }
        [n, _, kind, storage, ..] if n == "nodes" && kind == "storage" => {
            format!("/storage/{storage}")
        }
        [n, node, ..] if n == "nodes" => format!("/nodes/{node}"),
        _ => "/".to_string(),
    }
}

impl ProxmoxError {
    /// Names the privilege an operation needs on a 403 whose message did
    /// not (PVE's wording varies between endpoints and versions).
    pub fn needing_privilege(self, privilege: &str) -> Self {
        match self {
            ProxmoxError::Forbidden(mut denied) => {
                if denied.privilege.is_none() {
                    denied.privilege = Some(privilege.to_string());
                }
                ProxmoxError::Forbidden(denied)
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(status: u16, path: &[&str], message: &str) -> ProxmoxError {
        classify_failure(
            "lab",
            "warden@pve!ops",
            StatusCode::from_u16(status).unwrap(),
            "POST",
            &ApiPath::new(path.iter().copied()),
            message,
        )
    }

    #[test]
    fn error_answers_become_specific_errors() {
        let start = ["nodes", "pve1", "qemu", "100", "status", "start"];
        assert!(matches!(
            classify(401, &start, "authentication failure"),
            ProxmoxError::Unauthorized { token_id, .. } if token_id == "warden@pve!ops"
        ));
        assert!(matches!(
            classify(403, &start, "Permission check failed (/vms/100, VM.PowerMgmt)"),
            ProxmoxError::Forbidden(d)
                if d.privilege.as_deref() == Some("VM.PowerMgmt") && d.acl_path == "/vms/100"
        ));
        let vague =
            classify(403, &start, "Permission check failed").needing_privilege("VM.PowerMgmt");
        assert!(matches!(
            vague,
            ProxmoxError::Forbidden(d)
                if d.privilege.as_deref() == Some("VM.PowerMgmt") && d.acl_path == "/vms/100"
        ));
        assert!(matches!(
            classify(595, &start, "No route to host"),
            ProxmoxError::NodeOffline { node, .. } if node == "pve1"
        ));
        assert!(matches!(
            classify(500, &start, "cluster not ready - no quorum?"),
            ProxmoxError::NoQuorum { .. }
        ));
        assert!(matches!(
            classify(500, &start, "VM is locked (backup)"),
            ProxmoxError::Locked { target, lock } if target == "vm:pve1:100" && lock == "backup"
        ));
        let lxc = ["nodes", "pve2", "lxc", "101", "status", "stop"];
        assert!(matches!(
            classify(500, &lxc, "CT is locked (snapshot)"),
            ProxmoxError::Locked { target, lock } if target == "lxc:pve2:101" && lock == "snapshot"
        ));
        assert!(matches!(
            classify(500, &start, "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist"),
            ProxmoxError::NotFound { what, .. } if what == "vm:pve1:100"
        ));
        assert!(matches!(
            classify(
                500,
                &["nodes", "pve1", "qemu", "100", "agent", "exec"],
                "QEMU guest agent is not running"
            ),
            ProxmoxError::AgentNotRunning { .. }
        ));
        assert!(matches!(
            classify(500, &start, "something else"),
            ProxmoxError::Api { status: 500, .. }
        ));
    }

    #[test]
    fn acl_paths() {
        let cases: [(&[&str], &str); 5] = [
            (
                &["nodes", "pve1", "qemu", "100", "status", "start"],
                "/vms/100",
            ),
            (&["nodes", "pve1", "lxc", "101"], "/vms/101"),
            (
                &["nodes", "pve1", "storage", "local", "content"],
                "/storage/local",
            ),
            (&["nodes", "pve1", "rrddata"], "/nodes/pve1"),
            (&["cluster", "resources"], "/"),
        ];
        for (segments, expected) in cases {
            assert_eq!(
                acl_path_of(&ApiPath::new(segments.iter().copied())),
                expected
            );
        }
    }
}
