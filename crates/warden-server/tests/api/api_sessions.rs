//! Live sessions over HTTP: create, list, read, post a message and follow
//! the turn on the SSE stream, resume with Last-Event-ID, 409 while a turn
//! runs, cancel, control levels capped by the server's ceiling.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;
use warden_testkit::test_server::{Options, Script, start};

const WAIT: Duration = Duration::from_secs(20);

#[tokio::test]
async fn a_turn_streams_its_events_in_order_and_is_stored() {
    let server = start(Options::default()).await;
    server.book.add(
        "zq check web1",
        Script::new()
            .call("query", json!({"action": "get", "target": "web1"}))
            .text("web1 is running."),
    );
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    let (status, body) = server
        .post(&server.operator, &session, "zq check web1")
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body["turn"], 1);

    let got = events.until("done", WAIT).await;
    let types: Vec<&str> = got.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(types.first(), Some(&"turn_start"), "{types:?}");
    for expected in ["tool_start", "tool_end", "usage", "content", "done"] {
        assert!(types.contains(&expected), "{expected} missing: {types:?}");
    }
    for (i, event) in got.iter().enumerate() {
        assert_eq!(event.id, Some(i as u64 + 1), "ids count from 1");
        assert_eq!(event.data["seq"], i as u64 + 1);
        assert_eq!(event.data["session_id"], session.as_str());
        assert_eq!(event.data["type"], event.event.as_str());
    }
    let start = &got[0].data;
    assert_eq!(start["turn"], 1);
    assert_eq!(start["text"], "zq check web1");
    let tool_start = got.iter().find(|e| e.event == "tool_start").unwrap();
    assert_eq!(tool_start.data["name"], "query");
    assert_eq!(tool_start.data["kind"], "resolve");
    assert_eq!(tool_start.data["target"], "web1");
    assert_eq!(tool_start.data["arguments"]["action"], "get");
    let tool_end = got.iter().find(|e| e.event == "tool_end").unwrap();
    assert_eq!(tool_end.data["call_id"], tool_start.data["call_id"]);
    assert_eq!(tool_end.data["ok"], true);
    assert_eq!(tool_end.data["cached"], false);
    assert!(tool_end.data["duration_ms"].is_u64());
    let output: serde_json::Value =
        serde_json::from_str(tool_end.data["output"].as_str().unwrap()).unwrap();
    assert_eq!(output["ok"], true, "the output is what the model saw");
    let text: String = got
        .iter()
        .filter(|e| e.event == "content")
        .map(|e| e.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "web1 is running.");
    let done = got.last().unwrap();
    assert_eq!(done.data["turn"], 1);
    assert_eq!(done.data["final_text"], "web1 is running.");
    assert!(got.iter().any(|e| e.event == "fsm_state"));

    // Stored, and readable through the API.
    let (status, detail) = server
        .json(
            &server.viewer,
            Method::GET,
            &format!("/api/sessions/{session}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(detail["state"], "idle");
    assert_eq!(detail["fsm_state"], "READING");
    let messages = detail["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{detail}");
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["text"], "zq check web1");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["text"], "web1 is running.");
    assert!(messages[1]["at"].as_str().unwrap().ends_with('Z'));
    // Usage was recorded.
    let (_, usage) = server
        .json(&server.viewer, Method::GET, "/api/usage", None)
        .await;
    assert_eq!(usage[0]["provider"], "test");
    assert_eq!(usage[0]["input_tokens"], 200);
}

#[tokio::test]
async fn reconnecting_with_last_event_id_replays_what_was_missed() {
    let server = start(Options::default()).await;
    server
        .book
        .add("zq one", Script::new().text("first answer"));
    server
        .book
        .add("zq two", Script::new().text("second answer"));
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    server.post(&server.operator, &session, "zq one").await;
    let first = events.until("done", WAIT).await;
    drop(events);
    // Missed a whole turn while disconnected.
    server.post(&server.operator, &session, "zq two").await;
    wait_idle(&server, &session).await;
    let seen = first.last().unwrap().id.unwrap();
    let mut resumed = server.events(&server.viewer, &session, Some(seen)).await;
    let replay = resumed.until("done", WAIT).await;
    assert_eq!(replay[0].id, Some(seen + 1));
    assert_eq!(replay[0].event, "turn_start");
    assert_eq!(replay[0].data["turn"], 2);
    assert_eq!(replay.last().unwrap().data["final_text"], "second answer");
    // From the start: both turns are still held.
    let mut all = server.events(&server.viewer, &session, Some(0)).await;
    let everything = all.until("done", WAIT).await;
    assert_eq!(everything[0].id, Some(1));
    assert_eq!(everything.last().unwrap().data["turn"], 1);
}

#[tokio::test]
async fn an_event_id_from_before_a_restart_replays_everything_held() {
    let server = start(Options::default()).await;
    server
        .book
        .add("zq after", Script::new().text("fresh answer"));
    let session = server.create_session(&server.operator).await;
    server.post(&server.operator, &session, "zq after").await;
    wait_idle(&server, &session).await;
    // A browser that saw seq 500 of the session's log in the process
    // before this one: the new log numbers from 1, all of it is new.
    let mut resumed = server.events(&server.viewer, &session, Some(500)).await;
    let replay = resumed.until("done", WAIT).await;
    assert_eq!(replay[0].id, Some(1));
    assert_eq!(replay[0].event, "turn_start");
    assert_eq!(replay.last().unwrap().data["final_text"], "fresh answer");
}

async fn wait_idle(server: &warden_testkit::test_server::TestServer, session: &str) {
    for _ in 0..400 {
        let (_, detail) = server
            .json(
                &server.viewer,
                Method::GET,
                &format!("/api/sessions/{session}"),
                None,
            )
            .await;
        if detail["state"] == "idle" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("session {session} never went idle");
}

#[tokio::test]
async fn a_second_message_while_a_turn_runs_is_a_409_and_cancel_stops_the_turn() {
    let server = start(Options::default()).await;
    let long = "word ".repeat(400);
    server.book.add(
        "zq slow",
        Script::new().text(&long).paced(Duration::from_millis(20)),
    );
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    let (status, _) = server.post(&server.operator, &session, "zq slow").await;
    assert_eq!(status, StatusCode::ACCEPTED);
    // Streaming has begun.
    loop {
        let event = events.next(WAIT).await.unwrap();
        if event.event == "content" {
            break;
        }
    }
    let (_, detail) = server
        .json(
            &server.viewer,
            Method::GET,
            &format!("/api/sessions/{session}"),
            None,
        )
        .await;
    assert_eq!(detail["state"], "running");
    let (status, body) = server.post(&server.operator, &session, "zq slow").await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["error"]["code"], "CONFLICT");

    let (status, _) = server
        .json(
            &server.viewer,
            Method::POST,
            &format!("/api/sessions/{session}/cancel"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a viewer cannot cancel");
    let (status, _) = server
        .json(
            &server.operator,
            Method::POST,
            &format!("/api/sessions/{session}/cancel"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let rest = events.until("done", WAIT).await;
    let cancelled = rest
        .iter()
        .find(|e| e.event == "error")
        .expect("an error event");
    assert_eq!(cancelled.data["code"], "CANCELLED");
    let words = rest.iter().filter(|e| e.event == "content").count();
    assert!(words < 390, "the stream stopped early ({words} more words)");
    wait_idle(&server, &session).await;
    // The session takes messages again.
    server.book.add("zq after", Script::new().text("ok"));
    assert_eq!(
        server.post(&server.operator, &session, "zq after").await.0,
        StatusCode::ACCEPTED
    );
}

#[tokio::test]
async fn idle_sessions_leave_memory_and_come_back_from_the_store() {
    let server = start(Options {
        config: Box::new(|c| c.session_idle_ttl = Duration::from_millis(200)),
        ..Options::default()
    })
    .await;
    server.book.add(
        "zq look at web1",
        Script::new()
            .call("query", json!({"action": "get", "target": "web1"}))
            .text("web1 is fine."),
    );
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    server
        .post(&server.operator, &session, "zq look at web1")
        .await;
    events.until("done", WAIT).await;
    let path = format!("/api/sessions/{session}");
    let (_, live) = server.json(&server.viewer, Method::GET, &path, None).await;
    assert_eq!(live["fsm_state"], "READING");
    // Still followed: it stays.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let (_, followed) = server.json(&server.viewer, Method::GET, &path, None).await;
    assert_eq!(followed["fsm_state"], "READING");
    drop(events);
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (status, stored) = server.json(&server.viewer, Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        stored["fsm_state"], "RESOLVING",
        "a fresh state: it left memory"
    );
    assert_eq!(stored["messages"].as_array().unwrap().len(), 2);
    server.book.add("zq and again", Script::new().text("again"));
    let (status, accepted) = server
        .post(&server.operator, &session, "zq and again")
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(
        accepted["turn"], 2,
        "turns count on from the stored history"
    );
}

#[tokio::test]
async fn idle_streams_get_keepalive_comments() {
    let server = start(Options {
        config: Box::new(|c| c.sse_keepalive = Duration::from_millis(100)),
        ..Options::default()
    })
    .await;
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    assert!(events.next(Duration::from_millis(450)).await.is_none());
    assert!(
        events.comments.len() >= 2 && events.comments.iter().all(|c| c == "keepalive"),
        "{:?}",
        events.comments
    );
}

#[tokio::test]
async fn a_client_that_disconnects_does_not_stop_the_turn() {
    let server = start(Options::default()).await;
    server.book.add(
        "zq walk away",
        Script::new()
            .text("one two three four five six seven eight")
            .paced(Duration::from_millis(30)),
    );
    let session = server.create_session(&server.operator).await;
    let mut events = server.events(&server.viewer, &session, None).await;
    server
        .post(&server.operator, &session, "zq walk away")
        .await;
    let first = events.next(WAIT).await.unwrap();
    assert_eq!(first.event, "turn_start");
    drop(events);
    wait_idle(&server, &session).await;
    let (_, detail) = server
        .json(
            &server.viewer,
            Method::GET,
            &format!("/api/sessions/{session}"),
            None,
        )
        .await;
    assert_eq!(
        detail["messages"][1]["text"],
        "one two three four five six seven eight"
    );
}

#[tokio::test]
async fn sessions_are_listed_newest_first_with_levels_capped() {
    let server = start(Options::default()).await;
    let (status, first) = server
        .json(
            &server.operator,
            Method::POST,
            "/api/sessions",
            Some(json!({"control_level": "autonomous", "title": "first"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        first["control_level"], "controlled",
        "capped by the ceiling"
    );
    assert_eq!(first["state"], "idle");
    assert_eq!(first["fsm_state"], "RESOLVING");
    assert_eq!(first["title"], "first");
    tokio::time::sleep(Duration::from_millis(5)).await;
    let (_, second) = server
        .json(
            &server.operator,
            Method::POST,
            "/api/sessions",
            Some(json!({})),
        )
        .await;
    let (status, list) = server
        .json(&server.viewer, Method::GET, "/api/sessions", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            second["id"].as_str().unwrap(),
            first["id"].as_str().unwrap()
        ]
    );

    let path = format!("/api/sessions/{}", first["id"].as_str().unwrap());
    let (status, patched) = server
        .json(
            &server.operator,
            Method::PATCH,
            &path,
            Some(json!({"control_level": "read_only"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(patched["control_level"], "read_only");
    let (_, patched) = server
        .json(
            &server.operator,
            Method::PATCH,
            &path,
            Some(json!({"control_level": "autonomous"})),
        )
        .await;
    assert_eq!(patched["control_level"], "controlled");
    let (status, body) = server
        .json(
            &server.operator,
            Method::PATCH,
            &path,
            Some(json!({"control_level": "godmode"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, _) = server
        .json(
            &server.viewer,
            Method::PATCH,
            &path,
            Some(json!({"control_level": "read_only"})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = server
        .json(&server.viewer, Method::GET, "/api/sessions/s-nope", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], "NOT_FOUND");
}

#[tokio::test]
async fn a_turn_at_read_only_refuses_writes() {
    let server = start(Options::default()).await;
    server.book.add(
        "zq stop web1",
        Script::new()
            .call("query", json!({"action": "get", "target": "web1"}))
            .call(
                "control",
                json!({"action": "guest", "target": "web1", "operation": "stop"}),
            )
            .text("I could not stop web1."),
    );
    let (_, session) = server
        .json(
            &server.operator,
            Method::POST,
            "/api/sessions",
            Some(json!({"control_level": "read_only"})),
        )
        .await;
    let id = session["id"].as_str().unwrap();
    let mut events = server.events(&server.viewer, id, None).await;
    server.post(&server.operator, id, "zq stop web1").await;
    let got = events.until("done", WAIT).await;
    let ends: Vec<_> = got.iter().filter(|e| e.event == "tool_end").collect();
    assert_eq!(ends[1].data["ok"], false);
    assert_eq!(ends[1].data["error_code"], "POLICY_BLOCKED");
    assert!(
        server
            .hosts
            .received()
            .iter()
            .all(|(_, c)| !c.contains("qm stop"))
    );
}
