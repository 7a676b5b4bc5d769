//! The previous release (stop 14, commit aeb05c3): schema version 6,
//! written by its CLI (requests, approvals decided at the terminal, a
//! Proxmox stop approved with its snapshot offer, users and tokens) and by
//! its server (browser logins, API sessions, approvals decided by a user,
//! an API token, agents enrolled, seen and revoked).

use serde_json::json;
use warden_protocol::ApprovalState;
use warden_store::Store;

use super::support::{
    Before, anchor_file, copy_fixture, count, text, todays_schema_version, user_version,
};

const RELEASE: &str = "stop14";
const HEAD_HASH: &str = "cf88a3bb7e7349d4774f3ad2499a9e8a71307049a26f7d087cd845677635464a";

/// (title, messages), most recently used first.
const SESSIONS: [(&str, u64); 10] = [
    ("remember the cron job is at 03:00", 7),
    ("model chat", 3),
    ("alice notes", 15),
    ("ci checks", 5),
    ("stop vm-100", 8),
    ("remember the backup disk is /dev/sdb", 7),
    ("remember the nightly backup runs at 02:00", 9),
    ("hello, what can you do?", 3),
    ("uptime", 9),
    ("disk usage", 5),
];

const ALICE_SESSION: &str = "s-d89585638ad27ac9ba07da282e43a361";

#[test]
fn the_previous_release_database_opens_with_everything() {
    let fixture = copy_fixture(RELEASE);
    assert_eq!(user_version(&fixture.path), 6, "as the release left it");
    assert_eq!(anchor_file(&fixture.path), (42, 42, HEAD_HASH.to_string()));

    let store = Store::open(&fixture.path).unwrap();
    assert_eq!(user_version(&fixture.path), todays_schema_version());

    // Sessions from the CLI and from the server, and their messages.
    let sessions = store.sessions(1000).unwrap();
    let listed: Vec<(&str, u64)> = sessions
        .iter()
        .map(|s| (s.title.as_str(), s.messages))
        .collect();
    assert_eq!(listed, SESSIONS);
    assert_eq!(sessions.iter().map(|s| s.messages).sum::<u64>(), 71);
    let alice = store.session_summary(ALICE_SESSION).unwrap().unwrap();
    assert_eq!(
        (alice.created_at_ms, alice.updated_at_ms),
        (1_795_825_816_465, 1_795_825_817_669)
    );
    let messages = store.messages(ALICE_SESSION).unwrap();
    assert_eq!(messages.len(), 15);
    assert_eq!(
        messages[1],
        r#"{"role":"user","text":"remember the web server is nginx"}"#
    );
    assert_eq!(
        messages[8],
        r#"{"role":"assistant","text":"Noted: \"the web server is nginx\".","tool_calls":[]}"#
    );
    assert_eq!(
        messages[14],
        r#"{"role":"assistant","text":"Not done: remember \"the proxy is haproxy\" was denied. Command denied: we are moving to caddy","tool_calls":[]}"#
    );
    let ci = store
        .messages_with_times("s-2c8e660d769cb9cc75ed1f95dd854249")
        .unwrap();
    assert_eq!(ci.len(), 5);
    assert_eq!(ci[1].json, r#"{"role":"user","text":"uptime"}"#);
    assert_eq!(ci[1].at_ms, 1_795_825_816_086);
    assert_eq!(
        store
            .messages("s-338e36824eae6b3019e76305e64999a5")
            .unwrap()[2],
        r#"{"role":"assistant","text":"Hello. I can look at disks, services, logs and containers on this machine.","tool_calls":[]}"#
    );

    approvals_are_kept(&store);
    people_are_kept(&store);
    agents_are_kept(&store);

    // Notes and usage (one model call from the CLI, one from the server).
    let notes = store.notes().unwrap();
    let texts: Vec<(&str, u64)> = notes.iter().map(|n| (n.text.as_str(), n.at_ms)).collect();
    assert_eq!(
        texts,
        [
            ("the web server is nginx", 1_795_825_816_901),
            ("the nightly backup runs at 02:00", 1_795_825_801_152),
        ]
    );
    let usage = store.usage_totals(None, None).unwrap();
    assert_eq!(usage.len(), 1);
    assert_eq!(
        (
            usage[0].provider.as_str(),
            usage[0].model.as_str(),
            usage[0].calls,
            usage[0].input_tokens,
            usage[0].output_tokens,
            usage[0].priced_calls
        ),
        ("openai", "fixture-model", 2, 642, 34, 2)
    );
    assert!((usage[0].cost_usd - 0.002436).abs() < 1e-9);
    assert_eq!(
        store
            .session_tokens("s-338e36824eae6b3019e76305e64999a5")
            .unwrap(),
        338
    );

    audit_is_kept(&store, &fixture.path);

    super::support::takes_new_writes(
        store,
        &fixture.path,
        &Before {
            sessions: 10,
            notes: 2,
            audit_records: 42,
            audit_head_hash: HEAD_HASH.into(),
        },
    );
}

/// Pending, denied at the terminal and by a user, consumed after a
/// terminal approval (with its snapshot offer) and after a user's.
fn approvals_are_kept(store: &Store) {
    let all = store.approvals(None).unwrap();
    assert_eq!(all.len(), 5);
    let states: Vec<(&str, ApprovalState)> = all.iter().map(|a| (a.id.as_str(), a.state)).collect();
    assert_eq!(
        states,
        [
            ("bf8421902af77f3d169b17a09805f5aa", ApprovalState::Denied),
            ("369d408bd15c234405f607c237fd2b5c", ApprovalState::Consumed),
            ("ea85e1bce51069dbbe65dc05990cbebd", ApprovalState::Consumed),
            ("1bb160bcf460e738862d1548e1b1da81", ApprovalState::Denied),
            ("5174d5f746c307e8908b45ef46b863a3", ApprovalState::Pending),
        ]
    );
    let decided = |id: &str| {
        let a = store.approval(id).unwrap().unwrap();
        (a.decided_by, a.decided_at_ms, a.reason)
    };
    assert_eq!(
        decided("bf8421902af77f3d169b17a09805f5aa"),
        (
            Some("user:ops".into()),
            Some(1_795_825_801_353),
            Some("it is /dev/sdc now".into())
        )
    );
    assert_eq!(
        decided("ea85e1bce51069dbbe65dc05990cbebd"),
        (
            Some("user:bob".into()),
            Some(1_795_825_816_895),
            Some("fine".into())
        )
    );
    assert_eq!(
        decided("1bb160bcf460e738862d1548e1b1da81"),
        (
            Some("user:bob".into()),
            Some(1_795_825_817_640),
            Some("we are moving to caddy".into())
        )
    );
    assert_eq!(
        decided("5174d5f746c307e8908b45ef46b863a3"),
        (None, None, None)
    );

    let stop = store
        .approval("369d408bd15c234405f607c237fd2b5c")
        .unwrap()
        .unwrap();
    assert_eq!(stop.session_id, "s-1795825813790-1798");
    assert_eq!(stop.tool, "control");
    assert_eq!(stop.target, "vm:pve1:100");
    assert_eq!(stop.command, "qm shutdown 100 --timeout 180 --forceStop 1");
    assert_eq!(stop.arguments_hash, "ed7675bfd39f4974");
    assert_eq!(
        stop.arguments,
        json!({"action": "guest", "on_timeout": "stop", "operation": "shutdown",
               "target": "vm:pve1:100", "timeout_secs": 180})
    );
    assert_eq!(stop.decided_by.as_deref(), Some("user:ops"));
    let offer = stop.snapshot.expect("the snapshot offer is kept");
    assert_eq!(offer.guest, "vm:pve1:100");
    assert!(offer.take);
    assert!(
        offer
            .undoable
            .starts_with("undoable: a snapshot of vm-100 (vm:pve1:100) named warden-<time>-<approval> is taken first"),
        "{}",
        offer.undoable
    );

    let pending = store
        .approval("5174d5f746c307e8908b45ef46b863a3")
        .unwrap()
        .unwrap();
    assert_eq!(
        pending.arguments,
        json!({"action": "remember", "note": "the cron job is at 03:00"})
    );
    assert_eq!(
        (pending.created_at_ms, pending.expires_at_ms),
        (1_795_825_823_849, 1_795_826_123_849)
    );
    assert_eq!(pending.snapshot, None);

    // Who asked, for the approvals a server user's message caused.
    for id in [
        "ea85e1bce51069dbbe65dc05990cbebd",
        "1bb160bcf460e738862d1548e1b1da81",
    ] {
        assert_eq!(
            store.approval_people(id).unwrap().requested_by.as_deref(),
            Some("alice"),
            "{id}"
        );
    }
    assert_eq!(
        store
            .approval_people("bf8421902af77f3d169b17a09805f5aa")
            .unwrap()
            .requested_by,
        None,
        "asked at the terminal"
    );
}

/// Users, API tokens (created offline, revoked, created through the API)
/// and browser login sessions.
fn people_are_kept(store: &Store) {
    let users: Vec<(String, String)> = store
        .users()
        .unwrap()
        .into_iter()
        .map(|u| (u.username, u.role))
        .collect();
    assert_eq!(
        users,
        [
            ("alice".to_string(), "admin".to_string()),
            ("bob".into(), "approver".into()),
            ("carol".into(), "viewer".into()),
        ]
    );
    let alice = store.user("alice").unwrap().unwrap();
    assert!(alice.password_hash.starts_with("$argon2id$"));
    assert_eq!(
        alice.password_change,
        warden_store::PasswordChange::NotRequired
    );
    assert_eq!(alice.created_at_ms, 1_795_825_799_002);

    let tokens = store.api_tokens().unwrap();
    assert_eq!(tokens.len(), 3);
    let token = |id: &str| tokens.iter().find(|t| t.id == id).unwrap().clone();
    let ci = token("tok-8e664c7fbd82edc2890d182961eca721");
    assert_eq!((ci.name.as_str(), ci.role.as_str()), ("ci", "operator"));
    assert_eq!(
        (ci.expires_at_ms, ci.revoked_at_ms, ci.last_used_at_ms),
        (None, None, Some(1_795_825_815_773))
    );
    let old = token("tok-1694bf888d17ca9128371ae5655bac36");
    assert_eq!(
        (old.expires_at_ms, old.revoked_at_ms),
        (Some(1_798_417_800_186), Some(1_795_825_800_222))
    );
    let dashboard = token("tok-bb2128aa459dbc2e7b4f57b9d687309c");
    assert_eq!(dashboard.created_by.as_deref(), Some("alice"));
    // A token alice made through the API is hers; one made offline before
    // tokens had owners stands for itself.
    assert_eq!(dashboard.owner.as_deref(), Some("user:alice"));
    assert_eq!((ci.owner.as_deref(), old.owner.as_deref()), (None, None));
    assert_eq!(dashboard.expires_at_ms, Some(1_803_601_819_219));
    let by_hash = store
        .api_token_by_hash("6213e561def5a49945172d31741e8dd903ef31ab1110f4f490739a2fde86d492")
        .unwrap()
        .unwrap();
    assert_eq!(by_hash.id, ci.id);

    let login = store
        .login_session(
            "cf6ecbb1edc351d8af6b9a42b84fd946be9e3143ef5ab3f35b964b4c31b53549",
            1_795_825_815_500,
        )
        .unwrap()
        .unwrap();
    assert_eq!(login.username, "alice");
    assert_eq!(
        (login.created_at_ms, login.expires_at_ms),
        (1_795_825_815_044, 1_795_869_015_044)
    );
    assert_eq!(
        login.csrf_token,
        "J8bMKxZ-yQCSz2qasa6Q0O9WjUbN2duFCw5c8FbL3nQ"
    );
    assert!(
        store
            .login_session(
                "5b7d283858e338f1453de1a6522a2b016af6b7e4ee5aa29604d778c687baab7c",
                1_795_825_815_500
            )
            .unwrap()
            .is_some_and(|s| s.username == "bob")
    );
}

/// Agents (one seen, one revoked), the enrollment token with a use left,
/// and the server's grant-signing key, which must never change.
fn agents_are_kept(store: &Store) {
    let live = store.agents().unwrap();
    assert_eq!(live.len(), 1, "the revoked agent is not listed");
    let agent = &live[0];
    assert_eq!(agent.id, "agt_175acfced44f6295ac56296e5efbec7f");
    assert_eq!(agent.name, "fixture-agent");
    assert_eq!(
        agent.public_key,
        "/eIF4BHuzcY/Cdsq7ibeBerKiOnqBs1B9Ac/KEh4eiU="
    );
    assert_eq!(
        (
            agent.version.as_str(),
            agent.os.as_str(),
            agent.arch.as_str()
        ),
        ("0.1.0", "linux", "x86_64")
    );
    assert_eq!(
        (
            agent.enrolled_at_ms,
            agent.last_seen_ms,
            agent.revoked_at_ms
        ),
        (1_795_825_819_614, Some(1_795_825_823_694), None)
    );
    let retired = store
        .agent("agt_09aa23beb357a1fb33c71a6dd4fd4738")
        .unwrap()
        .unwrap();
    assert_eq!(retired.name, "retired-agent");
    assert_eq!(
        (retired.last_seen_ms, retired.revoked_at_ms),
        (None, Some(1_795_825_823_799))
    );

    let key = store
        .server_secret_or_insert("agent_grant_signing_key", &[0; 32], 1_800_000_000_000)
        .unwrap();
    assert_eq!(
        hex(&key),
        "56b08ca687a9ad0703fbc64c3067eaea77cbb53566ec7f3f174d26259d5f9433"
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every record, with the humans' decisions, and the chain verifies
/// against the release's anchor file.
fn audit_is_kept(store: &Store, path: &std::path::Path) {
    let report = store.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(
        (
            report.records,
            report.legacy_records,
            report.head_seq,
            report.anchor_lag
        ),
        (42, 0, 42, 0)
    );
    assert_eq!(report.head_hash, HEAD_HASH);
    let entries = store.audit_page(0, 1000).unwrap();
    assert_eq!(
        entries.iter().map(|e| e.seq).collect::<Vec<_>>(),
        (1..=42).collect::<Vec<_>>()
    );
    assert!(entries.iter().all(|e| e.legacy_record.is_none()));
    let first = &entries[0];
    assert_eq!(first.at, "2026-11-28T00:30:00.291Z");
    assert_eq!(
        first.hash,
        "7ea3ff81cd41098e368362d791d3ad54c390a57782a17a2c8c4eea11adf5efd8"
    );
    let denied = &entries[15].record;
    assert_eq!(
        (denied.actor.as_str(), denied.decision.as_str()),
        ("user:ops", "denied")
    );
    assert_eq!(denied.reason.as_deref(), Some("it is /dev/sdc now"));
    let snapshot_and_stop = &entries[21].record;
    assert_eq!(snapshot_and_stop.decision, "executed");
    assert_eq!(snapshot_and_stop.target.as_deref(), Some("vm:pve1:100"));
    assert_eq!(
        snapshot_and_stop.command,
        "qm snapshot 100 warden-20261128003013-369d408bd15c234405; qm shutdown 100 --timeout 180 --forceStop 1"
    );
    let revoked = &entries[38];
    assert_eq!(revoked.at, "2026-11-28T00:30:23.799Z");
    assert_eq!(
        (
            revoked.record.actor.as_str(),
            revoked.record.decision.as_str()
        ),
        ("user:alice", "revoked")
    );
    assert_eq!(
        revoked.record.command,
        "agent retired-agent (agt_09aa23beb357a1fb33c71a6dd4fd4738) revoked"
    );
    assert_eq!(entries[41].hash, HEAD_HASH);
    assert_eq!(count(path, "login_sessions"), 2);
    assert_eq!(count(path, "enrollment_tokens"), 1);
    assert_eq!(
        text(
            path,
            "SELECT uses_left || ' ' || expires_at_ms || ' ' || created_by FROM enrollment_tokens"
        ),
        "1 1795912219280 user:alice"
    );
}
