//! The `exec` frames of the agent protocol as tests send them, and grant
//! claims that match a write exactly.

use warden_protocol::agent::{ExecClass, ExecRequest, Grant, GrantClaims, command_sha256};

/// A read request (20 s, 64 KiB of output).
pub fn read(request_id: &str, target: &str, command: &str) -> ExecRequest {
    ExecRequest {
        request_id: request_id.into(),
        target: target.into(),
        command: command.into(),
        class: ExecClass::Read,
        timeout_ms: 20_000,
        max_output_bytes: 65_536,
        grant: None,
    }
}

/// A write request carrying `grant`.
pub fn write(request_id: &str, target: &str, command: &str, grant: Option<Grant>) -> ExecRequest {
    ExecRequest {
        class: ExecClass::Write,
        grant: grant.map(Box::new),
        ..read(request_id, target, command)
    }
}

/// Claims that match a write exactly, approved by alice, valid for a
/// minute, with a fresh nonce.
pub fn claims_for(agent_id: &str, request_id: &str, target: &str, command: &str) -> GrantClaims {
    let mut nonce = [0u8; 16];
    getrandom::fill(&mut nonce).unwrap();
    GrantClaims {
        agent_id: agent_id.into(),
        request_id: request_id.into(),
        command_sha256: command_sha256(command),
        target: target.into(),
        approval_id: Some(format!("apr_{request_id}")),
        approved_by: Some("alice".into()),
        expires_at: crate::time::now_ms() + 60_000,
        nonce,
    }
}
