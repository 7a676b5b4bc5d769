//! The agent's own admission decision (defence in depth: a compromised or
//! buggy server must not be able to make the agent run a write). Pure: the
//! clock, the server key and the used nonces are passed in.
//!
//! - a `read` runs only if the agent's own `warden-policy` classifies it as
//!   read-allowed (read-only, bounded, not catastrophic);
//! - a `write` runs only if the agent's `--max-level` allows writes, the
//!   command is neither catastrophic nor interactive, and it carries a grant
//!   signed by the server key learned at enrollment and bound to this
//!   agent, this request, this exact command, this target, a deadline at
//!   most 120 s ahead and a nonce never used before; `controlled` also wants
//!   the grant to name its approval and approver.

use ed25519_dalek::VerifyingKey;
use warden_protocol::ControlLevel;
use warden_protocol::agent::{
    ExecClass, ExecErrorCode, ExecFailure, ExecRequest, GRANT_VERSION, Grant, GrantInvalidReason,
    MAX_GRANT_LIFETIME_MS, command_sha256,
};

/// Tolerated lead of the server's clock over the agent's: a grant may
/// expire up to `MAX_GRANT_LIFETIME_MS` plus this far ahead of the agent's
/// clock. Clocks further apart than this need fixing (NTP).
pub const MAX_CLOCK_SKEW_MS: u64 = 10_000;

/// What the agent knows when it decides.
#[derive(Debug, Clone, Copy)]
pub struct AdmissionContext<'a> {
    pub agent_id: &'a str,
    pub server_key: &'a VerifyingKey,
    pub max_level: ControlLevel,
    /// Unix time in milliseconds.
    pub now_ms: u64,
}

/// Nonces of grants already used (and not yet expired).
pub trait UsedNonces {
    fn contains(&self, nonce: &[u8]) -> bool;
}

/// A write's grant that passed every check: its nonce must now be recorded
/// as used before the command starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedGrant {
    pub nonce: Vec<u8>,
    pub expires_at: u64,
    pub approval_id: Option<String>,
    pub approved_by: Option<String>,
}

/// How an admitted request runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Under the read-only sandbox.
    Read,
    /// Unsandboxed, on the strength of its grant.
    Write(AcceptedGrant),
}

/// A refusal, ready for `exec_result.error`.
pub type Refusal = ExecFailure;

/// Decides whether `request` may run on this agent.
pub fn admit(
    request: &ExecRequest,
    context: &AdmissionContext<'_>,
    used: &impl UsedNonces,
) -> Result<Admission, Refusal> {
    match request.class {
        ExecClass::Read => admit_read(&request.command).map(|()| Admission::Read),
        ExecClass::Write => admit_write(request, context, used).map(Admission::Write),
    }
}

/// A read must be read-allowed by the agent's own policy.
pub fn admit_read(command: &str) -> Result<(), Refusal> {
    let verdict = warden_policy::classify(command);
    if verdict.read_allowed() {
        return Ok(());
    }
    let why = if verdict.catastrophic {
        "catastrophic"
    } else if verdict.interactive.is_some() {
        "not bounded (interactive)"
    } else {
        "not provably read-only"
    };
    Err(blocked(format!(
        "refused as a read: the agent's policy says it is {why}: {}",
        verdict.reason
    )))
}

fn admit_write(
    request: &ExecRequest,
    context: &AdmissionContext<'_>,
    used: &impl UsedNonces,
) -> Result<AcceptedGrant, Refusal> {
    if context.max_level == ControlLevel::ReadOnly {
        return Err(blocked(
            "this agent runs with --max-level read_only and refuses every write",
        ));
    }
    let verdict = warden_policy::classify(&request.command);
    if verdict.catastrophic {
        return Err(blocked(format!(
            "catastrophic commands are refused at every level: {}",
            verdict.reason
        )));
    }
    if let Some(interactive) = &verdict.interactive {
        return Err(blocked(format!(
            "the command would not end by itself ({}): {}",
            interactive.category.as_str(),
            verdict.reason
        )));
    }
    let grant = request.grant.as_deref().ok_or_else(|| {
        invalid(
            GrantInvalidReason::Missing,
            "a write needs a server-signed grant",
        )
    })?;
    let accepted = verify_grant(grant, request, context, used)?;
    if context.max_level == ControlLevel::Controlled
        && (accepted.approval_id.is_none() || accepted.approved_by.is_none())
    {
        return Err(blocked(
            "this agent runs with --max-level controlled: a write needs a grant naming \
             its approval_id and approved_by",
        ));
    }
    Ok(accepted)
}

/// The grant checks, in order; the first failure is the reason.
fn verify_grant(
    grant: &Grant,
    request: &ExecRequest,
    context: &AdmissionContext<'_>,
    used: &impl UsedNonces,
) -> Result<AcceptedGrant, Refusal> {
    if grant.v != GRANT_VERSION {
        return Err(invalid(
            GrantInvalidReason::Signature,
            format!("grant version {} is not {GRANT_VERSION}", grant.v),
        ));
    }
    if grant.verify_signature(context.server_key).is_err() {
        return Err(invalid(
            GrantInvalidReason::Signature,
            "the grant's signature does not verify with the server key from enrollment",
        ));
    }
    let nonce = grant.nonce_bytes().ok_or_else(|| {
        invalid(
            GrantInvalidReason::Signature,
            "the grant's nonce is not base64 of 16 bytes",
        )
    })?;
    if grant.agent_id != context.agent_id {
        return Err(invalid(
            GrantInvalidReason::Agent,
            format!("the grant is for agent {:?}, not this one", grant.agent_id),
        ));
    }
    if grant.request_id != request.request_id {
        return Err(invalid(
            GrantInvalidReason::Request,
            format!("the grant is for request {:?}", grant.request_id),
        ));
    }
    if !grant
        .command_sha256
        .eq_ignore_ascii_case(&command_sha256(&request.command))
    {
        return Err(invalid(
            GrantInvalidReason::Command,
            "the grant is for another command (SHA-256 differs)",
        ));
    }
    if grant.target != request.target {
        return Err(invalid(
            GrantInvalidReason::Target,
            format!("the grant is for target {:?}", grant.target),
        ));
    }
    if grant.expires_at <= context.now_ms {
        return Err(invalid(
            GrantInvalidReason::Expired,
            format!(
                "the grant expired {} ms ago",
                context.now_ms - grant.expires_at
            ),
        ));
    }
    let horizon = context
        .now_ms
        .saturating_add(MAX_GRANT_LIFETIME_MS + MAX_CLOCK_SKEW_MS);
    if grant.expires_at > horizon {
        return Err(invalid(
            GrantInvalidReason::Expired,
            format!(
                "the grant expires {} ms ahead; grants live at most {MAX_GRANT_LIFETIME_MS} ms",
                grant.expires_at - context.now_ms
            ),
        ));
    }
    if used.contains(&nonce) {
        return Err(invalid(
            GrantInvalidReason::Replayed,
            "the grant's nonce was used before",
        ));
    }
    Ok(AcceptedGrant {
        nonce: nonce.to_vec(),
        expires_at: grant.expires_at,
        approval_id: grant.approval_id.clone(),
        approved_by: grant.approved_by.clone(),
    })
}

fn blocked(message: impl Into<String>) -> Refusal {
    ExecFailure::new(ExecErrorCode::PolicyBlocked, message)
}

fn invalid(reason: GrantInvalidReason, message: impl Into<String>) -> Refusal {
    ExecFailure::grant_invalid(reason, message)
}

#[cfg(test)]
mod tests;
