//! The exact JSON of every frame, pinned: agents and servers may be built
//! from different commits, and third-party harnesses play either side.

use ed25519_dalek::SigningKey;
use serde_json::{Value, json};

use super::*;
use crate::{Resource, ResourceId, ResourceKind};

fn round_trip(frame: AgentFrame, expected: Value) {
    let text = frame.to_text().unwrap();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
    assert_eq!(parse_frame(&text).unwrap(), ParsedFrame::Known(frame));
}

#[test]
fn handshake_frames() {
    round_trip(
        AgentFrame::Challenge(Challenge {
            nonce: "bm9uY2U=".into(),
        }),
        json!({"type": "challenge", "nonce": "bm9uY2U="}),
    );
    round_trip(
        AgentFrame::Hello(Hello {
            agent_id: "agt_1".into(),
            version: "0.1.0".into(),
            signature: "c2ln".into(),
        }),
        json!({"type": "hello", "agent_id": "agt_1", "version": "0.1.0", "signature": "c2ln"}),
    );
    round_trip(
        AgentFrame::Welcome(Welcome { heartbeat_secs: 15 }),
        json!({"type": "welcome", "heartbeat_secs": 15}),
    );
    round_trip(
        AgentFrame::Ping(Heartbeat {
            at: 1_700_000_000_000,
        }),
        json!({"type": "ping", "at": 1_700_000_000_000u64}),
    );
    round_trip(
        AgentFrame::Pong(Heartbeat { at: 5 }),
        json!({"type": "pong", "at": 5}),
    );
}

#[test]
fn exec_frames() {
    let grant = GrantClaims {
        agent_id: "agt_1".into(),
        request_id: "req_9".into(),
        command_sha256: command_sha256("touch /tmp/x"),
        target: "host:web1".into(),
        approval_id: None,
        approved_by: None,
        expires_at: 10,
        nonce: [0; 16],
    }
    .sign(&SigningKey::from_bytes(&[1; 32]));
    let grant_json = serde_json::to_value(&grant).unwrap();
    round_trip(
        AgentFrame::Exec(ExecRequest {
            request_id: "req_9".into(),
            target: "host:web1".into(),
            command: "touch /tmp/x".into(),
            class: ExecClass::Write,
            timeout_ms: 30_000,
            max_output_bytes: 65_536,
            grant: Some(Box::new(grant)),
        }),
        json!({"type": "exec", "request_id": "req_9", "target": "host:web1",
               "command": "touch /tmp/x", "class": "write", "timeout_ms": 30000,
               "max_output_bytes": 65536, "grant": grant_json}),
    );
    round_trip(
        AgentFrame::Exec(ExecRequest {
            request_id: "r".into(),
            target: "host:a".into(),
            command: "uptime".into(),
            class: ExecClass::Read,
            timeout_ms: 1,
            max_output_bytes: 2,
            grant: None,
        }),
        json!({"type": "exec", "request_id": "r", "target": "host:a", "command": "uptime",
               "class": "read", "timeout_ms": 1, "max_output_bytes": 2}),
    );
    round_trip(
        AgentFrame::ExecOutput(ExecOutput {
            request_id: "r".into(),
            stream: OutputStream::Stderr,
            data: "oops\n".into(),
            seq: 3,
        }),
        json!({"type": "exec_output", "request_id": "r", "stream": "stderr",
               "data": "oops\n", "seq": 3}),
    );
    round_trip(
        AgentFrame::ExecResult(ExecResult {
            request_id: "r".into(),
            exit_code: Some(0),
            error: None,
            truncated: false,
            duration_ms: 12,
            sandbox: SandboxReport {
                landlock_abi: Some(7),
            },
        }),
        json!({"type": "exec_result", "request_id": "r", "exit_code": 0, "truncated": false,
               "duration_ms": 12, "sandbox": {"landlock_abi": 7}}),
    );
    round_trip(
        AgentFrame::ExecResult(ExecResult::refused(
            "r",
            ExecFailure::grant_invalid(GrantInvalidReason::Replayed, "nonce used before"),
        )),
        json!({"type": "exec_result", "request_id": "r",
               "error": {"code": "GRANT_INVALID", "message": "nonce used before",
                         "reason": "replayed"},
               "truncated": false, "duration_ms": 0, "sandbox": {"landlock_abi": null}}),
    );
    round_trip(
        AgentFrame::Cancel(CancelRequest {
            request_id: "r".into(),
        }),
        json!({"type": "cancel", "request_id": "r"}),
    );
}

#[test]
fn inventory_resources_are_written_as_the_api_shows_them() {
    let mut lxc = Resource::new(ResourceId::scoped(ResourceKind::Lxc, "pve1", "141"), "web");
    lxc.parent = Some(ResourceId::global(ResourceKind::Host, "pve1"));
    lxc.status = Some("running".into());
    let host = Resource::new(ResourceId::global(ResourceKind::Host, "pve1"), "pve1");
    let frame = AgentFrame::Inventory(InventoryReport {
        resources: vec![host, lxc],
    });
    round_trip(
        frame,
        json!({"type": "inventory", "resources": [
            {"id": "host:pve1", "kind": "host", "name": "pve1", "aliases": [], "parent": null,
             "status": null, "host": null, "source": "agent"},
            {"id": "lxc:pve1:141", "kind": "lxc", "name": "web", "aliases": [],
             "parent": "host:pve1", "status": "running", "host": "pve1", "source": "agent"}
        ]}),
    );
    round_trip(
        AgentFrame::Metrics(MetricsReport {
            at: 1,
            samples: vec![
                MetricSample {
                    resource: "host:pve1".into(),
                    metric: "cpu_percent".into(),
                    instance: None,
                    value: 0.5,
                },
                MetricSample {
                    resource: "host:pve1".into(),
                    metric: "disk_used_percent".into(),
                    instance: Some("/".into()),
                    value: 41.0,
                },
            ],
        }),
        json!({"type": "metrics", "at": 1,
               "samples": [{"resource": "host:pve1", "metric": "cpu_percent", "value": 0.5},
                           {"resource": "host:pve1", "metric": "disk_used_percent", "instance": "/", "value": 41.0}]}),
    );
}

#[test]
fn unknown_types_are_reported_not_rejected() {
    assert_eq!(
        parse_frame(r#"{"type": "telemetry_v2", "anything": [1]}"#),
        Ok(ParsedFrame::Unknown {
            frame_type: "telemetry_v2".into()
        })
    );
}

#[test]
fn unknown_fields_of_known_frames_are_ignored() {
    assert_eq!(
        parse_frame(r#"{"type": "cancel", "request_id": "r", "reason": "user"}"#),
        Ok(ParsedFrame::Known(AgentFrame::Cancel(CancelRequest {
            request_id: "r".into()
        })))
    );
}

#[test]
fn malformed_known_frames_are_rejected_with_their_request_id() {
    let err = parse_frame(r#"{"type": "exec", "request_id": "r7", "command": "ls"}"#).unwrap_err();
    match err {
        FrameError::Malformed {
            frame_type,
            request_id,
            message,
        } => {
            assert_eq!(frame_type, "exec");
            assert_eq!(request_id.as_deref(), Some("r7"));
            assert!(message.contains("missing field"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // Wrong types and bad enum values are malformed too.
    for text in [
        r#"{"type": "welcome", "heartbeat_secs": "15"}"#,
        r#"{"type": "exec", "request_id": "r", "target": "host:a", "command": "ls",
            "class": "admin", "timeout_ms": 1, "max_output_bytes": 1}"#,
        r#"{"type": "ping"}"#,
    ] {
        assert!(
            matches!(parse_frame(text), Err(FrameError::Malformed { .. })),
            "{text}"
        );
    }
}

#[test]
fn frames_that_are_not_objects_with_a_type_are_rejected() {
    assert!(matches!(
        parse_frame("not json"),
        Err(FrameError::NotJson(_))
    ));
    assert_eq!(parse_frame("[1, 2]"), Err(FrameError::NotAnObject));
    assert_eq!(
        parse_frame(r#"{"nonce": "x"}"#),
        Err(FrameError::MissingType)
    );
    assert_eq!(parse_frame(r#"{"type": 7}"#), Err(FrameError::MissingType));
}

#[test]
fn frames_over_one_mebibyte_are_refused_both_ways() {
    let big = "x".repeat(MAX_FRAME_BYTES);
    let text = format!(r#"{{"type": "pong", "at": 1, "pad": "{big}"}}"#);
    assert_eq!(
        parse_frame(&text),
        Err(FrameError::TooLarge { bytes: text.len() })
    );
    let frame = AgentFrame::ExecOutput(ExecOutput {
        request_id: "r".into(),
        stream: OutputStream::Stdout,
        data: big,
        seq: 0,
    });
    assert!(matches!(frame.to_text(), Err(FrameError::TooLarge { .. })));
}

#[test]
fn enrollment_bodies() {
    let request = EnrollRequest {
        token: "tok".into(),
        name: "web1".into(),
        public_key: encode_base64(SigningKey::from_bytes(&[4; 32]).verifying_key().as_bytes()),
        version: "0.1.0".into(),
        os: "linux".into(),
        arch: "x86_64".into(),
    };
    let value = serde_json::to_value(&request).unwrap();
    // Key order depends on serde_json's features; the set is what counts.
    let mut keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["arch", "name", "os", "public_key", "token", "version"]
    );
    assert_eq!(
        request.agent_key(),
        Some(SigningKey::from_bytes(&[4; 32]).verifying_key())
    );
    let mut extra = value.clone();
    extra["admin"] = json!(true);
    assert!(serde_json::from_value::<EnrollRequest>(extra).is_err());

    let response: EnrollResponse = serde_json::from_value(json!({
        "agent_id": "agt_1", "server_public_key": encode_base64(&[0; 32]), "new_field": 1
    }))
    .unwrap();
    assert_eq!(response.agent_id, "agt_1");
    assert!(response.server_key().is_some());
    let bad: EnrollResponse = serde_json::from_value(json!({
        "agent_id": "a", "server_public_key": encode_base64(&[0; 31])
    }))
    .unwrap();
    assert!(bad.server_key().is_none());

    assert_eq!(
        serde_json::to_value(EnrollmentTokenRequest::default()).unwrap(),
        json!({})
    );
    assert!(serde_json::from_value::<EnrollmentTokenRequest>(json!({"use": 2})).is_err());
    let summary: AgentSummary = serde_json::from_value(json!({
        "id": "agt_1", "name": "web1", "host": "host:web1", "version": "0.1.0",
        "connected": false, "last_seen": null
    }))
    .unwrap();
    assert_eq!(summary.last_seen, None);
}
