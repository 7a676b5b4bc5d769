//! What the agent tests share: the testkit's fake server that speaks the
//! agent protocol (here `TestServer`), the in-process agent with test
//! settings and this crate's sandbox launcher, enrollment into a fresh
//! state directory, and the agent's refusal log.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)] // test code: each test binary uses a part

use std::path::{Path, PathBuf};

use warden_agent::{AgentConfig, Launcher, ServerTrust};
use warden_testkit::agent_runner;

pub use warden_testkit::agent_runner::{RunningAgent, start as start_agent};
pub use warden_testkit::agent_server::{
    AgentConn, Behaviour, Collected, FakeAgentServer as TestServer, FakeAgentState as ServerState,
    TOKEN,
};
pub use warden_testkit::exec_requests::{claims_for, read, write};
pub use warden_testkit::tls;

/// An agent configuration for tests: fast back-off, no Docker or Proxmox
/// discovery, the standalone sandbox launcher.
pub fn agent_config(state_dir: &Path) -> AgentConfig {
    agent_runner::config(
        state_dir,
        Launcher::standalone(env!("CARGO_BIN_EXE_warden-agent-sandbox")),
    )
}

/// Enrolls an agent named `name` with `server` into a fresh state directory.
pub async fn enroll_agent(server: &TestServer, name: &str, dir: &Path) -> PathBuf {
    let state_dir = dir.join(name);
    warden_agent::enroll(warden_agent::EnrollOptions {
        server: server.url(),
        token: TOKEN.into(),
        trust: ServerTrust::SystemRoots,
        name: name.into(),
        state_dir: state_dir.clone(),
    })
    .await
    .unwrap();
    state_dir
}

/// The agent's refusal log, parsed.
pub fn refusals(state_dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(state_dir.join("agent-events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
