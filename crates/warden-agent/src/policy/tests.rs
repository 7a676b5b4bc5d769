//! Table and property tests of the admission decision.

use std::collections::HashSet;

use ed25519_dalek::SigningKey;
use proptest::prelude::*;
use warden_protocol::ControlLevel;
use warden_protocol::agent::{
    ExecClass, ExecErrorCode, ExecRequest, GrantClaims, GrantInvalidReason, command_sha256,
};

use super::*;

const NOW: u64 = 1_800_000_000_000;
const AGENT: &str = "agt_self";
const COMMAND: &str = "systemctl restart nginx";
const TARGET: &str = "host:web1";

struct Nonces(HashSet<Vec<u8>>);

impl UsedNonces for Nonces {
    fn contains(&self, nonce: &[u8]) -> bool {
        self.0.contains(nonce)
    }
}

fn none_used() -> Nonces {
    Nonces(HashSet::new())
}

fn server_key() -> SigningKey {
    SigningKey::from_bytes(&[42; 32])
}

fn claims() -> GrantClaims {
    GrantClaims {
        agent_id: AGENT.into(),
        request_id: "req_1".into(),
        command_sha256: command_sha256(COMMAND),
        target: TARGET.into(),
        approval_id: Some("apr_1".into()),
        approved_by: Some("alice".into()),
        expires_at: NOW + 60_000,
        nonce: [1; 16],
    }
}

fn write_with(claims: Option<GrantClaims>, key: &SigningKey) -> ExecRequest {
    ExecRequest {
        request_id: "req_1".into(),
        target: TARGET.into(),
        command: COMMAND.into(),
        class: ExecClass::Write,
        timeout_ms: 10_000,
        max_output_bytes: 4096,
        grant: claims.map(|c| Box::new(c.sign(key))),
    }
}

fn decide(request: &ExecRequest, level: ControlLevel, used: &Nonces) -> Result<Admission, Refusal> {
    let public = server_key().verifying_key();
    let context = AdmissionContext {
        agent_id: AGENT,
        server_key: &public,
        max_level: level,
        now_ms: NOW,
    };
    admit(request, &context, used)
}

fn reason_of(result: Result<Admission, Refusal>) -> Option<GrantInvalidReason> {
    match result {
        Err(failure) if failure.code == ExecErrorCode::GrantInvalid => failure.reason,
        other => panic!("expected GRANT_INVALID, got {other:?}"),
    }
}

#[test]
fn a_valid_grant_admits_the_write() {
    let admission = decide(
        &write_with(Some(claims()), &server_key()),
        ControlLevel::Controlled,
        &none_used(),
    )
    .unwrap();
    assert_eq!(
        admission,
        Admission::Write(AcceptedGrant {
            nonce: vec![1; 16],
            expires_at: NOW + 60_000,
            approval_id: Some("apr_1".into()),
            approved_by: Some("alice".into()),
        })
    );
}

#[test]
fn every_broken_binding_has_its_reason() {
    let other_key = SigningKey::from_bytes(&[7; 32]);
    let cases: Vec<(&str, ExecRequest, GrantInvalidReason)> = vec![
        (
            "no grant",
            write_with(None, &server_key()),
            GrantInvalidReason::Missing,
        ),
        (
            "another key",
            write_with(Some(claims()), &other_key),
            GrantInvalidReason::Signature,
        ),
        (
            "another agent",
            write_with(
                Some(GrantClaims {
                    agent_id: "agt_other".into(),
                    ..claims()
                }),
                &server_key(),
            ),
            GrantInvalidReason::Agent,
        ),
        (
            "another request",
            write_with(
                Some(GrantClaims {
                    request_id: "req_2".into(),
                    ..claims()
                }),
                &server_key(),
            ),
            GrantInvalidReason::Request,
        ),
        (
            "another command",
            write_with(
                Some(GrantClaims {
                    command_sha256: command_sha256("systemctl restart nginx "),
                    ..claims()
                }),
                &server_key(),
            ),
            GrantInvalidReason::Command,
        ),
        (
            "another target",
            write_with(
                Some(GrantClaims {
                    target: "host:web2".into(),
                    ..claims()
                }),
                &server_key(),
            ),
            GrantInvalidReason::Target,
        ),
        (
            "expired",
            write_with(
                Some(GrantClaims {
                    expires_at: NOW,
                    ..claims()
                }),
                &server_key(),
            ),
            GrantInvalidReason::Expired,
        ),
        (
            "too far ahead",
            write_with(
                Some(GrantClaims {
                    expires_at: NOW + 10 * 60_000,
                    ..claims()
                }),
                &server_key(),
            ),
            GrantInvalidReason::Expired,
        ),
    ];
    for (name, request, reason) in cases {
        assert_eq!(
            reason_of(decide(&request, ControlLevel::Autonomous, &none_used())),
            Some(reason),
            "{name}"
        );
    }
}

#[test]
fn a_tampered_grant_fails_its_signature() {
    let mut request = write_with(Some(claims()), &server_key());
    if let Some(grant) = request.grant.as_mut() {
        grant.target = "host:db1".into();
    }
    request.target = "host:db1".into();
    assert_eq!(
        reason_of(decide(&request, ControlLevel::Autonomous, &none_used())),
        Some(GrantInvalidReason::Signature)
    );
}

#[test]
fn a_used_nonce_is_a_replay() {
    let used = Nonces([vec![1u8; 16]].into());
    assert_eq!(
        reason_of(decide(
            &write_with(Some(claims()), &server_key()),
            ControlLevel::Autonomous,
            &used
        )),
        Some(GrantInvalidReason::Replayed)
    );
}

#[test]
fn max_level_caps_writes() {
    let request = write_with(Some(claims()), &server_key());
    let refusal = decide(&request, ControlLevel::ReadOnly, &none_used()).unwrap_err();
    assert_eq!(refusal.code, ExecErrorCode::PolicyBlocked);
    assert!(refusal.message.contains("read_only"), "{}", refusal.message);

    let unapproved = write_with(
        Some(GrantClaims {
            approval_id: None,
            approved_by: None,
            ..claims()
        }),
        &server_key(),
    );
    let refusal = decide(&unapproved, ControlLevel::Controlled, &none_used()).unwrap_err();
    assert_eq!(refusal.code, ExecErrorCode::PolicyBlocked);
    assert!(
        refusal.message.contains("approval_id"),
        "{}",
        refusal.message
    );
    let half = write_with(
        Some(GrantClaims {
            approved_by: None,
            ..claims()
        }),
        &server_key(),
    );
    assert!(decide(&half, ControlLevel::Controlled, &none_used()).is_err());
    assert!(decide(&unapproved, ControlLevel::Autonomous, &none_used()).is_ok());
}

#[test]
fn catastrophic_and_interactive_writes_are_refused_even_when_granted() {
    for command in ["rm -rf /", "mkfs.ext4 /dev/sda", "vim /etc/hosts"] {
        let claims = GrantClaims {
            command_sha256: command_sha256(command),
            ..claims()
        };
        let mut request = write_with(Some(claims), &server_key());
        request.command = command.into();
        let refusal = decide(&request, ControlLevel::Autonomous, &none_used()).unwrap_err();
        assert_eq!(refusal.code, ExecErrorCode::PolicyBlocked, "{command}");
    }
}

#[test]
fn reads_follow_the_agents_own_policy() {
    let read = |command: &str| ExecRequest {
        request_id: "r".into(),
        target: TARGET.into(),
        command: command.into(),
        class: ExecClass::Read,
        timeout_ms: 1000,
        max_output_bytes: 1000,
        grant: None,
    };
    for command in ["cat /etc/hostname", "ls -la /var/log", "df -h", "uptime"] {
        assert_eq!(
            decide(&read(command), ControlLevel::ReadOnly, &none_used()),
            Ok(Admission::Read),
            "{command}"
        );
    }
    for command in [
        "rm -rf x",
        "find . -delete",
        "sed -i s/a/b/ f",
        "echo x > /tmp/f",
        "tail -f /var/log/syslog",
        "rm -rf /",
        "bash",
    ] {
        let refusal = decide(&read(command), ControlLevel::Autonomous, &none_used()).unwrap_err();
        assert_eq!(refusal.code, ExecErrorCode::PolicyBlocked, "{command}");
    }
}

proptest! {
    /// Whatever the server puts in a grant, a write is admitted only when
    /// every binding matches, and then its nonce is the grant's.
    #[test]
    fn admitted_writes_match_every_binding(
        agent in prop_oneof![Just(AGENT.to_string()), "[a-z_]{1,10}"],
        request_id in prop_oneof![Just("req_1".to_string()), "[a-z0-9_]{1,8}"],
        command in prop_oneof![Just(COMMAND.to_string()), "[a-z ]{1,20}"],
        target in prop_oneof![Just(TARGET.to_string()), "host:[a-z0-9]{1,8}"],
        expires_offset in -200_000i64..200_000,
        nonce in any::<[u8; 16]>(),
        wrong_key in any::<bool>(),
    ) {
        let expires_at = NOW.saturating_add_signed(expires_offset);
        let key = if wrong_key { SigningKey::from_bytes(&[9; 32]) } else { server_key() };
        let grant = GrantClaims {
            agent_id: agent.clone(),
            request_id: request_id.clone(),
            command_sha256: command_sha256(&command),
            target: target.clone(),
            approval_id: None,
            approved_by: None,
            expires_at,
            nonce,
        };
        let request = write_with(Some(grant), &key);
        match decide(&request, ControlLevel::Autonomous, &none_used()) {
            Ok(Admission::Write(accepted)) => {
                prop_assert!(!wrong_key);
                prop_assert_eq!(agent.as_str(), AGENT);
                prop_assert_eq!(request_id.as_str(), "req_1");
                prop_assert_eq!(command.as_str(), COMMAND);
                prop_assert_eq!(target.as_str(), TARGET);
                prop_assert!(expires_at > NOW);
                prop_assert!(expires_at <= NOW + MAX_GRANT_LIFETIME_MS + MAX_CLOCK_SKEW_MS);
                prop_assert_eq!(accepted.nonce, nonce.to_vec());
            }
            Ok(Admission::Read) => prop_assert!(false, "a write admitted as a read"),
            Err(refusal) => prop_assert!(matches!(
                refusal.code,
                ExecErrorCode::GrantInvalid | ExecErrorCode::PolicyBlocked
            )),
        }
    }
}
