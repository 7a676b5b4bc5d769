//! The first release (stop 5, commit 31e7f55): schema version 2, written by
//! its CLI alone. Its audit records are JSON texts chained as
//! `sha256(prev ‖ "\n" ‖ text)` and it kept no anchor file, so the upgrade
//! keeps them as legacy records and anchors the log once.

use serde_json::json;
use warden_protocol::ApprovalState;
use warden_store::{GENESIS_HASH, Store};

use super::support::{Before, anchor_file, copy_fixture, todays_schema_version, user_version};

const RELEASE: &str = "stop05";
const HEAD_HASH: &str = "e4d69c040e9e2dce4fca739fb97eddb96240502ffe36667eb721371c629108bb";

/// (id, title, messages), most recently used first, as `warden sessions`
/// of that release listed them.
const SESSIONS: [(&str, &str, u64); 7] = [
    ("s-1795825556549-34dd", "restart cron", 7),
    (
        "s-1795825556527-1130",
        "remember the web server is nginx",
        7,
    ),
    (
        "s-1795825556502-e566",
        "remember the cron job is at 03:00",
        7,
    ),
    (
        "s-1795825556485-33df",
        "remember the nightly backup runs at 02:00",
        9,
    ),
    ("s-1795825556459-c70c", "hello, what can you do?", 3),
    ("s-1795825556405-0176", "uptime", 9),
    ("s-1795825556382-fb82", "disk usage", 5),
];

#[test]
fn the_first_release_database_opens_with_everything() {
    let fixture = copy_fixture(RELEASE);
    assert_eq!(user_version(&fixture.path), 2, "as the release left it");
    assert!(
        !warden_store::anchor_path(&fixture.path).exists(),
        "that release kept no anchor"
    );

    let store = Store::open(&fixture.path).unwrap();
    assert_eq!(user_version(&fixture.path), todays_schema_version());

    // Sessions and their messages.
    let sessions = store.sessions(1000).unwrap();
    let listed: Vec<(&str, &str, u64)> = sessions
        .iter()
        .map(|s| (s.id.as_str(), s.title.as_str(), s.messages))
        .collect();
    assert_eq!(listed, SESSIONS);
    let total: u64 = sessions.iter().map(|s| s.messages).sum();
    assert_eq!(total, 47);
    let uptime = &sessions[5];
    assert_eq!(
        (uptime.created_at_ms, uptime.updated_at_ms),
        (1_795_825_556_421, 1_795_825_556_447)
    );
    let messages = store.messages("s-1795825556405-0176").unwrap();
    assert_eq!(messages.len(), 9);
    assert_eq!(messages[1], r#"{"role":"user","text":"uptime"}"#);
    assert_eq!(messages[5], r#"{"role":"user","text":"memory usage"}"#);
    assert_eq!(
        messages[8],
        r#"{"role":"assistant","text":"Memory on vm (host:vm): 2.9% used (705.1 MiB of 23.5 GiB, 22.9 GiB available); no swap.","tool_calls":[]}"#
    );
    let timed = store.messages_with_times("s-1795825556405-0176").unwrap();
    assert_eq!(timed[4].at_ms, 1_795_825_556_421);
    assert_eq!(timed[5].at_ms, 1_795_825_556_447);
    assert_eq!(
        store.messages("s-1795825556459-c70c").unwrap()[2],
        r#"{"role":"assistant","text":"Hello. I can look at disks, services, logs and containers on this machine.","tool_calls":[]}"#
    );

    // Approvals: approved, denied and pending. That release recorded no
    // decider, so none is invented.
    let approvals = store.approvals(None).unwrap();
    assert_eq!(approvals.len(), 3);
    let approved = store.approval("appr-1795825556507-1").unwrap().unwrap();
    assert_eq!(approved.state, ApprovalState::Approved);
    assert_eq!(approved.session_id, "s-1795825556502-e566");
    assert_eq!(approved.tool, "knowledge");
    assert_eq!(
        approved.arguments,
        json!({"action": "remember", "note": "the cron job is at 03:00"})
    );
    assert_eq!((approved.decided_by, approved.decided_at_ms), (None, None));
    let denied = store.approval("appr-1795825556531-1").unwrap().unwrap();
    assert_eq!(denied.state, ApprovalState::Denied);
    assert_eq!(denied.reason.as_deref(), Some("not now"));
    assert_eq!(
        denied.command,
        r#"knowledge {"action":"remember","note":"the web server is nginx"}"#
    );
    let pending = store.approval("appr-1795825556555-1").unwrap().unwrap();
    assert_eq!(pending.state, ApprovalState::Pending);
    assert_eq!(pending.target, "host:vm");
    assert_eq!(pending.command, "systemctl restart 'cron'");
    assert_eq!(pending.risk, "medium_write");
    assert_eq!(pending.arguments_hash, "8712bb8a3eb98376");
    assert_eq!(
        pending.arguments,
        json!({"action": "service", "operation": "restart", "service": "cron", "target": "host:vm"})
    );
    assert_eq!(
        (pending.created_at_ms, pending.expires_at_ms),
        (1_795_825_556_555, 1_795_825_856_555)
    );
    assert_eq!(pending.snapshot, None);
    assert_eq!(
        store.pending_approvals(1_795_825_556_600).unwrap().len(),
        1,
        "still pending before its expiry"
    );

    // Notes and usage.
    let notes = store.notes().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].text, "the nightly backup runs at 02:00");
    assert_eq!(notes[0].target, None);
    assert_eq!(notes[0].at_ms, 1_795_825_556_490);
    let usage = store.usage_totals(None, None).unwrap();
    assert_eq!(usage.len(), 1);
    assert_eq!(
        (usage[0].provider.as_str(), usage[0].model.as_str()),
        ("openai", "fixture-model")
    );
    assert_eq!(
        (
            usage[0].calls,
            usage[0].input_tokens,
            usage[0].output_tokens,
            usage[0].priced_calls
        ),
        (1, 321, 17, 1)
    );
    assert!((usage[0].cost_usd - 0.001218).abs() < 1e-9);
    assert_eq!(store.session_tokens("s-1795825556459-c70c").unwrap(), 338);

    // The audit log: every record kept as the text its hash covers, and
    // the chain verifies against the anchor adopted at the upgrade.
    let report = store.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(
        (report.records, report.legacy_records, report.head_seq),
        (21, 21, 21)
    );
    assert_eq!(report.head_hash, HEAD_HASH);
    assert_eq!(anchor_file(&fixture.path), (21, 21, HEAD_HASH.to_string()));
    let entries = store.audit_page(0, 1000).unwrap();
    assert_eq!(entries.len(), 21);
    assert!(entries.iter().all(|e| e.legacy_record.is_some()));
    assert_eq!(
        entries.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=21).collect::<Vec<_>>()
    );
    let first = &entries[0];
    assert_eq!(first.prev_hash, GENESIS_HASH);
    assert_eq!(first.at, "2026-11-28T00:25:56.387Z");
    assert_eq!(
        first.legacy_record.as_deref(),
        Some(
            r#"{"session_id":"s-1795825556382-fb82","tool":"metrics","target":"host:vm","decision":"allowed","code":null,"summary":"","duration_ms":0}"#
        )
    );
    let executed = &entries[1].record;
    assert_eq!(executed.decision, "executed");
    assert_eq!(executed.duration_ms, 4);
    assert_eq!(
        executed.command,
        "echo @@warden:disk; df -P -B1 -x tmpfs -x devtmpfs -x squashfs -x efivarfs 2>/dev/null"
    );
    let last = &entries[20];
    assert_eq!(last.at, "2026-11-28T00:25:56.555Z");
    assert_eq!(last.record.session_id, "s-1795825556549-34dd");
    assert_eq!(last.record.tool, "control");
    assert_eq!(last.record.target.as_deref(), Some("host:vm"));
    assert_eq!(last.record.decision, "approval_required");
    assert_eq!(last.record.code.as_deref(), Some("APPROVAL_REQUIRED"));
    assert_eq!(last.record.command, "systemctl restart 'cron'");
    assert_eq!(last.record.actor, "unknown", "that release named no actor");

    // The tables later releases added are there and empty.
    assert!(store.users().unwrap().is_empty());
    assert!(store.api_tokens().unwrap().is_empty());
    assert!(store.agents().unwrap().is_empty());

    super::support::takes_new_writes(
        store,
        &fixture.path,
        &Before {
            sessions: 7,
            notes: 1,
            audit_records: 21,
            audit_head_hash: HEAD_HASH.into(),
        },
    );
}
