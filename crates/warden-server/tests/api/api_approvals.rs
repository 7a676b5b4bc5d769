//! Approvals that resume a live turn: approve, deny with a reason, expiry,
//! deciding twice, roles, the four-eyes rule, and running an approved
//! approval whose session is gone after a restart.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use warden_server::auth::Role;
use warden_testkit::sse::{EventReader, SseEvent};
use warden_testkit::test_server::{Options, Script, TestServer, start};

const WAIT: Duration = Duration::from_secs(20);
const MESSAGE: &str = "zq restart nginx on web1";

fn restart_script() -> Script {
    Script::new()
        .call("query", json!({"action": "get", "target": "web1"}))
        .call(
            "control",
            json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
        )
        .call(
            "read",
            json!({"action": "exec", "target": "web1", "command": "systemctl is-active nginx"}),
        )
        .text("nginx was restarted on web1 and is active.")
}

/// Post the restart and wait for its approval request.
async fn until_approval(server: &TestServer, token: &str) -> (String, EventReader, Value) {
    server.book.add(MESSAGE, restart_script());
    let session = server.create_session(token).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    let (status, body) = server.post(token, &session, MESSAGE).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let got = events.until("approval_needed", WAIT).await;
    let approval = got.last().unwrap().data["approval"].clone();
    (session, events, approval)
}

async fn state_of(server: &TestServer, session: &str) -> String {
    let (_, detail) = server
        .json(
            &server.viewer,
            Method::GET,
            &format!("/api/sessions/{session}"),
            None,
        )
        .await;
    detail["state"].as_str().unwrap().to_string()
}

fn restarts(server: &TestServer) -> usize {
    server
        .hosts
        .received()
        .iter()
        .filter(|(_, c)| c.contains("restart") && c.contains("nginx"))
        .count()
}

fn find<'a>(events: &'a [SseEvent], kind: &str) -> Vec<&'a SseEvent> {
    events.iter().filter(|e| e.event == kind).collect()
}

#[tokio::test]
async fn an_approved_write_resumes_the_waiting_turn() {
    let server = start(Options::default()).await;
    let (session, mut events, approval) = until_approval(&server, &server.operator).await;
    let id = approval["id"].as_str().unwrap().to_string();
    assert_eq!(approval["state"], "pending");
    assert_eq!(approval["session_id"], session.as_str());
    assert_eq!(approval["tool"], "control");
    assert_eq!(approval["target"], "vm:pve1:101");
    assert!(approval["command"].as_str().unwrap().contains("nginx"));
    assert_eq!(approval["arguments"]["service"], "nginx", "{approval}");
    for field in ["risk", "description", "created_at", "expires_at"] {
        assert!(approval[field].is_string(), "{field}: {approval}");
    }
    assert_eq!(state_of(&server, &session).await, "waiting_approval");
    assert_eq!(restarts(&server), 0, "nothing runs before the decision");
    let (status, listed) = server
        .json(
            &server.viewer,
            Method::GET,
            "/api/approvals?state=pending",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed[0]["id"], id.as_str());
    // A change to a guest: the card's snapshot offer, as stored with the
    // approval (the listing reads the store, not the live turn).
    for view in [&approval, &listed[0]] {
        assert_eq!(view["snapshot"]["guest"], "vm:pve1:101", "{view}");
        assert_eq!(view["snapshot"]["take"], false, "{view}");
        assert!(
            view["snapshot"]["undoable"]
                .as_str()
                .unwrap()
                .starts_with("not undoable by Warden"),
            "{view}"
        );
    }

    // Roles: a viewer and an operator may not approve.
    for token in [&server.viewer, &server.operator] {
        let (status, body) = server
            .json(
                token,
                Method::POST,
                &format!("/api/approvals/{id}/approve"),
                Some(json!({})),
            )
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(body["error"]["code"], "FORBIDDEN");
    }
    let (status, decided) = server
        .json(
            &server.approver,
            Method::POST,
            &format!("/api/approvals/{id}/approve"),
            Some(json!({"reason": "maintenance window"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["state"], "approved");
    assert_eq!(decided["decided_by"], "token:approver (user:approver)");
    assert!(decided["decided_at"].is_string());

    let rest = events.until("done", WAIT).await;
    let resolved = find(&rest, "approval_resolved");
    assert_eq!(resolved[0].data["approval_id"], id.as_str());
    assert_eq!(resolved[0].data["decision"], "approved");
    assert_eq!(resolved[0].data["by"], "token:approver (user:approver)");
    let ends = find(&rest, "tool_end");
    assert_eq!(ends[0].data["name"], "control");
    assert_eq!(ends[0].data["ok"], true, "{:?}", ends[0].data);
    assert_eq!(restarts(&server), 1, "ran once");
    assert_eq!(
        rest.last().unwrap().data["final_text"],
        "nginx was restarted on web1 and is active."
    );
    // Approving again, or denying now, is a conflict naming the state.
    for (path, body) in [
        ("approve", json!({})),
        ("deny", json!({"reason": "too late"})),
    ] {
        let (status, body) = server
            .json(
                &server.approver,
                Method::POST,
                &format!("/api/approvals/{id}/{path}"),
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert_eq!(body["error"]["code"], "CONFLICT");
        assert_eq!(body["error"]["state"], "consumed");
    }
    // The human decision is in the audit log.
    let (_, audit) = server
        .json(&server.viewer, Method::GET, "/api/audit?limit=1000", None)
        .await;
    assert!(
        audit
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["decision"] == "approved" && r["actor"] == "token:approver (user:approver)"),
        "{audit}"
    );
}

#[tokio::test]
async fn approving_twice_is_a_conflict() {
    let server = start(Options::default()).await;
    // Cancelled while waiting: the approval stays pending, the turn ends.
    let (session, mut events, approval) = until_approval(&server, &server.operator).await;
    let id = approval["id"].as_str().unwrap();
    server
        .json(
            &server.operator,
            Method::POST,
            &format!("/api/sessions/{session}/cancel"),
            None,
        )
        .await;
    events.until("done", WAIT).await;
    let path = format!("/api/approvals/{id}/approve");
    let approve = || server.json(&server.approver, Method::POST, &path, Some(json!({})));
    assert_eq!(approve().await.0, StatusCode::OK);
    let (status, body) = approve().await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"]["state"], "approved");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already approved")
    );
    assert_eq!(
        restarts(&server),
        0,
        "approving alone runs nothing once the turn is gone"
    );
}

#[tokio::test]
async fn a_denial_tells_the_model_why_and_runs_nothing() {
    let server = start(Options::default()).await;
    let (_session, mut events, approval) = until_approval(&server, &server.operator).await;
    let id = approval["id"].as_str().unwrap();
    let (status, body) = server
        .json(
            &server.approver,
            Method::POST,
            &format!("/api/approvals/{id}/deny"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a denial needs a reason");
    assert_eq!(body["error"]["field"], "reason");
    let (status, denied) = server
        .json(
            &server.approver,
            Method::POST,
            &format!("/api/approvals/{id}/deny"),
            Some(json!({"reason": "not during business hours"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(denied["state"], "denied");
    assert_eq!(denied["reason"], "not during business hours");
    let rest = events.until("done", WAIT).await;
    let resolved = find(&rest, "approval_resolved");
    assert_eq!(resolved[0].data["decision"], "denied");
    assert_eq!(resolved[0].data["by"], "token:approver (user:approver)");
    let end = find(&rest, "tool_end")[0];
    assert_eq!(end.data["error_code"], "APPROVAL_DENIED");
    assert!(
        end.data["output"]
            .as_str()
            .unwrap()
            .contains("not during business hours"),
        "the model is told why: {}",
        end.data["output"]
    );
    assert_eq!(restarts(&server), 0);
}

#[tokio::test]
async fn an_expired_approval_ends_the_wait_and_cannot_be_approved() {
    let server = start(Options {
        settings: Box::new(|c| c.approval_ttl.value = Duration::from_secs(1)),
        ..Options::default()
    })
    .await;
    let (session, mut events, approval) = until_approval(&server, &server.operator).await;
    let id = approval["id"].as_str().unwrap();
    let rest = events.until("done", WAIT).await;
    let resolved = find(&rest, "approval_resolved");
    assert_eq!(resolved[0].data["decision"], "expired");
    assert!(resolved[0].data.get("by").is_none());
    assert_eq!(
        find(&rest, "tool_end")[0].data["error_code"],
        "APPROVAL_EXPIRED"
    );
    assert_eq!(state_of(&server, &session).await, "idle");
    let (_, stored) = server
        .json(
            &server.viewer,
            Method::GET,
            &format!("/api/approvals/{id}"),
            None,
        )
        .await;
    assert_eq!(stored["state"], "expired");
    let (_, listed) = server
        .json(
            &server.viewer,
            Method::GET,
            "/api/approvals?state=expired",
            None,
        )
        .await;
    assert_eq!(listed[0]["id"], id);
    let (status, body) = server
        .json(
            &server.approver,
            Method::POST,
            &format!("/api/approvals/{id}/approve"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"]["state"], "expired");
    assert_eq!(restarts(&server), 0);
}

#[tokio::test]
async fn four_eyes_an_approver_cannot_approve_their_own_request() {
    let server = start(Options {
        config: Box::new(warden_testkit::test_server::four_eyes),
        ..Options::default()
    })
    .await;
    let olga = warden_testkit::test_server::mint(
        &server.store,
        "olga",
        Role::Approver,
        &warden_server::auth::Person::user("olga"),
    );
    let (_session, mut events, approval) = until_approval(&server, &olga).await;
    let id = approval["id"].as_str().unwrap();
    let (status, body) = server
        .json(
            &olga,
            Method::POST,
            &format!("/api/approvals/{id}/approve"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("four-eyes")
    );
    let (status, _) = server
        .json(
            &server.approver,
            Method::POST,
            &format!("/api/approvals/{id}/approve"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    events.until("done", WAIT).await;
    assert_eq!(restarts(&server), 1);
}

#[tokio::test]
async fn an_approval_whose_session_is_gone_runs_on_request_after_a_restart() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let mut first = start(Options {
        data_dir: Some(Arc::clone(&dir)),
        ..Options::default()
    })
    .await;
    let (session, mut events, approval) = until_approval(&first, &first.operator).await;
    let id = approval["id"].as_str().unwrap().to_string();
    // While the live turn waits, `run` is refused: that turn runs it.
    let (status, body) = first
        .json(
            &first.approver,
            Method::POST,
            &format!("/api/approvals/{id}/run"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"]["state"], "pending");

    // Shutdown: the waiting turn is cancelled at the deadline and audited.
    let report = first.stop().await;
    assert_eq!(report.cancelled_turns, 1);
    let rest = events.until("done", WAIT).await;
    assert!(
        rest.iter()
            .any(|e| e.event == "error" && e.data["code"] == "CANCELLED")
    );
    assert!(
        events.next(Duration::from_secs(2)).await.is_none(),
        "the stream ended"
    );
    let cancelled = first
        .store
        .audit_page(0, 1000)
        .unwrap()
        .into_iter()
        .filter(|e| e.record.decision == "cancelled" && e.record.session_id == session)
        .count();
    assert_eq!(cancelled, 1, "the cancelled turn is audited");
    drop(first);

    let second = start(Options {
        data_dir: Some(Arc::clone(&dir)),
        ..Options::default()
    })
    .await;
    let (_, still) = second
        .json(
            &second.viewer,
            Method::GET,
            &format!("/api/approvals/{id}"),
            None,
        )
        .await;
    assert_eq!(
        still["state"], "pending",
        "pending approvals survive the restart"
    );
    let (status, body) = second
        .json(
            &second.approver,
            Method::POST,
            &format!("/api/approvals/{id}/run"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "not approved yet: {body}");
    assert_eq!(body["error"]["state"], "pending");
    let (status, _) = second
        .json(
            &second.approver,
            Method::POST,
            &format!("/api/approvals/{id}/approve"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = second
        .json(
            &second.operator,
            Method::POST,
            &format!("/api/approvals/{id}/run"),
            None,
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "operators do not run approvals"
    );
    let (status, ran) = second
        .json(
            &second.approver,
            Method::POST,
            &format!("/api/approvals/{id}/run"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{ran}");
    assert_eq!(ran["outcome"]["ok"], true, "{ran}");
    assert_eq!(ran["verification"]["ok"], true, "{ran}");
    assert_eq!(restarts(&second), 1);
    let (status, body) = second
        .json(
            &second.approver,
            Method::POST,
            &format!("/api/approvals/{id}/run"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"]["state"], "consumed");
    let (status, _) = second
        .json(
            &second.approver,
            Method::POST,
            "/api/approvals/nope/run",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The stored session can be read and continued.
    let (_, detail) = second
        .json(
            &second.viewer,
            Method::GET,
            &format!("/api/sessions/{session}"),
            None,
        )
        .await;
    assert_eq!(detail["messages"][0]["text"], MESSAGE);
    second
        .book
        .add("zq again", Script::new().text("back again"));
    let mut events = second.events(&second.viewer, &session, None).await;
    assert_eq!(
        second.post(&second.operator, &session, "zq again").await.0,
        StatusCode::ACCEPTED
    );
    let got = events.until("done", WAIT).await;
    assert_eq!(
        got.last().unwrap().data["turn"],
        2,
        "turns continue from the stored history"
    );
}
