//! A fleet for one test: a private Docker network, a real `warden serve` on
//! the host's address on it, the fake model it asks, and agents in
//! containers enrolled through the API. Everything goes when the fleet is
//! dropped (containers, then the network), even after a panic. Tests that
//! share the engine take turns.
#![allow(dead_code)] // each test uses a part

pub mod docker;
pub mod model;
pub mod serve;
pub mod session;

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use docker::{Host, Network};
use serve::Serve;
use warden_testkit::model::FakeModel;

/// Seconds between the server's pings: a lost agent shows within three.
pub const HEARTBEAT_SECS: &str = "1";
/// How long an agent may take to (re)connect.
pub const CONNECT_WITHIN: Duration = Duration::from_secs(20);

/// One fleet test at a time on the engine.
fn engine_turn() -> MutexGuard<'static, ()> {
    static ENGINE: Mutex<()> = Mutex::new(());
    ENGINE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An agent to start: its name and the flags of its `warden agent run`.
pub struct AgentSpec<'a> {
    pub name: &'a str,
    pub flags: &'a [&'a str],
    /// Extra `docker run` options of its container (`--cap-add …`).
    pub container: &'a [&'a str],
}

pub fn agent(name: &str) -> AgentSpec<'_> {
    AgentSpec {
        name,
        flags: &[],
        container: &[],
    }
}

/// Field order is drop order: the server, the containers, the network.
pub struct Fleet {
    pub serve: Serve,
    pub hosts: Vec<Host>,
    pub network: Network,
    pub model: FakeModel,
    _dir: tempfile::TempDir,
    _turn: MutexGuard<'static, ()>,
}

impl Fleet {
    /// The fleet, every agent connected; None (after one loud line) when
    /// the Docker engine cannot be reached.
    pub async fn up(agents: &[AgentSpec<'_>]) -> Option<Fleet> {
        if !docker::engine_reachable() {
            return None;
        }
        let turn = engine_turn();
        docker::sweep_leftovers();
        docker::agent_image();
        let network = Network::create("net");
        let model = model::start();
        let dir = tempfile::tempdir().unwrap();
        let serve = Serve::start(
            dir.path(),
            &network.gateway,
            &model.base_url(),
            &["--agent-heartbeat-secs", HEARTBEAT_SECS],
        );
        let mut fleet = Fleet {
            serve,
            hosts: Vec::new(),
            network,
            model,
            _dir: dir,
            _turn: turn,
        };
        for spec in agents {
            fleet.add(spec).await;
        }
        for spec in agents {
            fleet
                .serve
                .wait_connected(spec.name, true, CONNECT_WITHIN)
                .await;
        }
        Some(fleet)
    }

    /// Starts a container, enrolls its agent with a fresh token, runs it.
    pub async fn add(&mut self, spec: &AgentSpec<'_>) -> &Host {
        let host = Host::start_with(spec.name, &self.network, spec.container);
        let token = self.serve.enrollment_token(1).await;
        host.enroll(&self.serve.base, &token, &self.serve.fingerprint);
        host.run_agent(spec.flags);
        self.hosts.push(host);
        self.hosts.last().unwrap()
    }

    pub fn host(&self, name: &str) -> &Host {
        self.hosts.iter().find(|h| h.name == name).unwrap()
    }
}
