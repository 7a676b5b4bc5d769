//! A session on the server, driven through the API as a client would: a
//! message posted, its event stream read (SSE) until the turn is done.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use warden_testkit::sse::EventReader;

use super::serve::Serve;

pub struct Session {
    pub id: String,
    events: mpsc::UnboundedReceiver<Value>,
    /// Every event received so far, in order.
    pub seen: Vec<Value>,
}

impl Session {
    /// A new session at the `controlled` level, its event stream open.
    pub async fn open(serve: &Serve) -> Session {
        let (status, body) = serve
            .call(
                "POST",
                "/api/sessions",
                Some(json!({"control_level": "controlled"})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let id = body["id"].as_str().unwrap().to_string();
        Session::attach(serve, &id).await
    }

    /// The event stream of an existing session.
    pub async fn attach(serve: &Serve, id: &str) -> Session {
        let response = serve
            .streams
            .get(format!("{}/api/sessions/{id}/events", serve.base))
            .bearer_auth(&serve.admin)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let (tx, events) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut reader = EventReader::new(response);
            // The stream stays open as long as the server does.
            while let Some(event) = reader.next(Duration::from_secs(24 * 3600)).await {
                if tx.send(event.data).is_err() {
                    return;
                }
            }
        });
        Session {
            id: id.to_string(),
            events,
            seen: Vec::new(),
        }
    }

    /// Posts a user message; the turn starts.
    pub async fn say(&self, serve: &Serve, text: &str) {
        let (status, body) = serve
            .call(
                "POST",
                &format!("/api/sessions/{}/messages", self.id),
                Some(json!({"text": text})),
            )
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    }

    /// The next event of type `kind` (others are kept in `seen`).
    pub async fn next(&mut self, kind: &str, within: Duration) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = match tokio::time::timeout(left, self.events.recv()).await {
                Ok(Some(event)) => event,
                Ok(None) => panic!("the event stream ended before `{kind}`: {:#?}", self.seen),
                Err(_) => panic!("no `{kind}` event within {within:?}: {:#?}", self.seen),
            };
            self.seen.push(event.clone());
            if event["type"] == kind {
                return event;
            }
        }
    }

    /// Events of the turn up to its `done` (included).
    pub async fn until_done(&mut self, within: Duration) -> Vec<Value> {
        let from = self.seen.len();
        self.next("done", within).await;
        self.seen[from..].to_vec()
    }

    /// The `tool_end` events seen so far.
    pub fn tool_ends(&self) -> Vec<&Value> {
        self.seen
            .iter()
            .filter(|e| e["type"] == "tool_end")
            .collect()
    }
}

/// Approves `approval_id` as the admin.
pub async fn approve(serve: &Serve, approval_id: &str) -> Value {
    let (status, body) = serve
        .call(
            "POST",
            &format!("/api/approvals/{approval_id}/approve"),
            Some(json!({"reason": "fleet test"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}
