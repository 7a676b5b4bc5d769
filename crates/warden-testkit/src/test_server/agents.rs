//! The scripted agent ([`crate::agent_peer`]) against the test server:
//! enrollment with the admin's tokens, sockets to its agent endpoint, and
//! the agent lists the API shows.

use crate::agent_peer::{self, Socket};
use ed25519_dalek::SigningKey;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use super::TestServer;

impl TestServer {
    /// An enrollment token made by the admin.
    pub async fn enrollment_token(&self, body: Value) -> String {
        let (status, created) = self
            .json(
                &self.admin,
                Method::POST,
                "/api/agents/enrollment-tokens",
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{created}");
        assert!(created["expires_at"].is_string(), "{created}");
        created["token"].as_str().unwrap().to_string()
    }

    /// `POST /api/agents/enroll` without user credentials.
    pub async fn enroll(&self, token: &str, name: &str, key: &SigningKey) -> (StatusCode, Value) {
        agent_peer::enroll(&self.client, &self.base, token, name, key).await
    }

    /// Enrolls `name` with a new single-use token; returns its agent id.
    pub async fn enroll_new(&self, name: &str, key: &SigningKey) -> String {
        let token = self.enrollment_token(serde_json::json!({})).await;
        let (status, body) = self.enroll(&token, name, key).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["agent_id"].as_str().unwrap().to_string()
    }

    /// A WebSocket to the agent endpoint (no handshake yet).
    pub async fn agent_socket(&self) -> Socket {
        agent_peer::socket(&self.base).await
    }

    /// The agents as `GET /api/agents` lists them.
    pub async fn agents(&self) -> Vec<Value> {
        let (status, body) = self
            .json(&self.viewer, Method::GET, "/api/agents", None)
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body.as_array().unwrap().clone()
    }

    /// The inventory as `GET /api/inventory` lists it.
    pub async fn inventory_ids(&self) -> Vec<Value> {
        let (status, body) = self
            .json(&self.viewer, Method::GET, "/api/inventory", None)
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body.as_array().unwrap().clone()
    }
}

/// A connected, welcomed agent.
pub async fn connect(server: &TestServer, agent_id: &str, key: &SigningKey) -> Socket {
    agent_peer::connect(&server.base, agent_id, key).await
}
