//! The connected agents and the commands in flight through them.
//!
//! One live connection per agent: a new one replaces the old (which is
//! closed). Each connection gets a small bounded queue of outgoing text
//! frames and a close signal; nothing else is kept per connection, so a
//! thousand idle agents cost little. A command in flight is found by its
//! request id and belongs to one connection: only that connection's
//! frames feed it, and when that connection ends the command ends as an
//! unknown outcome. A revoked agent is refused by the inventory, under the
//! lock that removed it (see [`AgentInventory`]), so neither a handshake
//! nor a frame racing the revocation brings it back.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::{mpsc, oneshot, watch};
use warden_protocol::agent::{ExecOutput, ExecResult, OutputStream};

use super::inventory::{AgentIdentity, AgentInventory};
use warden_protocol::routing::{AgentFacts, Presence};

/// Outgoing frames waiting for one agent's socket.
pub const OUTGOING_QUEUE: usize = 16;

/// Why the server closes an agent's connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloseReason {
    pub code: u16,
    pub reason: &'static str,
}

/// The connection was revoked (spec: 4401).
pub const CLOSE_REVOKED: CloseReason = CloseReason {
    code: warden_protocol::agent::CLOSE_UNAUTHORIZED,
    reason: "revoked",
};
/// A newer connection of the same agent took over.
pub const CLOSE_REPLACED: CloseReason = CloseReason {
    code: 1000,
    reason: "replaced by a newer connection",
};

/// One agent's live connection, as the rest of the server reaches it.
struct LiveConnection {
    conn_id: u64,
    name: String,
    enrolled_at_ms: u64,
    outgoing: mpsc::Sender<String>,
    close: watch::Sender<Option<CloseReason>>,
    /// When the agent last sent anything (ms).
    last_frame_ms: Arc<AtomicU64>,
}

/// How a command in flight ended, as the backend sees it.
#[derive(Debug)]
pub enum ExecEnd {
    Finished {
        result: ExecResult,
        stdout: String,
        stderr: String,
        /// The server dropped output past its own cap.
        clipped: bool,
    },
    /// The connection ended first: the outcome is unknown.
    ConnectionLost,
}

/// One output stream, capped by the server too (an agent could lie).
#[derive(Debug, Default)]
struct Collected {
    text: String,
    clipped: bool,
}

impl Collected {
    fn push(&mut self, data: &str, cap: usize) {
        let room = cap.saturating_sub(self.text.len());
        if data.len() <= room {
            self.text.push_str(data);
            return;
        }
        let mut cut = room;
        while !data.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.push_str(&data[..cut]);
        self.clipped = true;
    }
}

struct PendingExec {
    agent_id: String,
    conn_id: u64,
    cap: usize,
    stdout: Collected,
    stderr: Collected,
    done: Option<oneshot::Sender<ExecEnd>>,
}

/// What a connection task gets when it registers.
pub struct Registration {
    pub conn_id: u64,
    pub outgoing: mpsc::Receiver<String>,
    pub close: watch::Receiver<Option<CloseReason>>,
    pub last_frame_ms: Arc<AtomicU64>,
}

/// A connection to send one command through.
pub struct ExecChannel {
    pub conn_id: u64,
    pub outgoing: mpsc::Sender<String>,
}

/// Connected agents and commands in flight.
pub struct AgentHub {
    live: Mutex<HashMap<String, LiveConnection>>,
    pending: Mutex<HashMap<String, PendingExec>>,
    /// Their resources, and the agents revoked while this server runs (a
    /// handshake that raced the revocation is refused at registration).
    inventory: Arc<AgentInventory>,
    next_conn: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl AgentHub {
    pub fn new(inventory: Arc<AgentInventory>) -> Self {
        AgentHub {
            live: Mutex::new(HashMap::new()),
            pending: Mutex::new(HashMap::new()),
            inventory,
            next_conn: AtomicU64::new(1),
        }
    }

    pub fn inventory(&self) -> &Arc<AgentInventory> {
        &self.inventory
    }

    /// A new authenticated connection of `agent`; an older one is closed.
    /// `None` when the agent was revoked meanwhile.
    pub fn register(&self, agent: AgentIdentity<'_>, now_ms: u64) -> Option<Registration> {
        let AgentIdentity {
            id: agent_id, name, ..
        } = agent;
        let conn_id = self.next_conn.fetch_add(1, Ordering::Relaxed);
        let (outgoing_tx, outgoing_rx) = mpsc::channel(OUTGOING_QUEUE);
        let (close_tx, close_rx) = watch::channel(None);
        let last_frame_ms = Arc::new(AtomicU64::new(now_ms));
        let replaced = {
            let mut live = lock(&self.live);
            if self.inventory.is_revoked(agent_id) {
                return None;
            }
            live.insert(
                agent_id.to_string(),
                LiveConnection {
                    conn_id,
                    name: name.to_string(),
                    enrolled_at_ms: agent.enrolled_at_ms,
                    outgoing: outgoing_tx,
                    close: close_tx,
                    last_frame_ms: Arc::clone(&last_frame_ms),
                },
            )
        };
        if let Some(old) = replaced {
            tracing::info!(
                agent_id,
                name,
                "agent reconnected: the older connection closes"
            );
            old.close.send_replace(Some(CLOSE_REPLACED));
            self.fail_pending(agent_id, old.conn_id);
        }
        if self
            .inventory
            .set_presence(agent, Presence::Connected)
            .is_err()
        {
            // Revoked between the check above and now: the revocation has
            // closed this connection already.
            return None;
        }
        metrics::gauge!("warden_connected_agents").set(self.connected_count() as f64);
        Some(Registration {
            conn_id,
            outgoing: outgoing_rx,
            close: close_rx,
            last_frame_ms,
        })
    }

    /// Connection `conn_id` of `agent_id` ended.
    pub fn unregister(&self, agent_id: &str, conn_id: u64) {
        let removed = {
            let mut live = lock(&self.live);
            match live.get(agent_id) {
                Some(conn) if conn.conn_id == conn_id => live.remove(agent_id),
                Some(_) | None => None,
            }
        };
        self.fail_pending(agent_id, conn_id);
        if let Some(conn) = removed {
            let agent = AgentIdentity {
                id: agent_id,
                name: &conn.name,
                enrolled_at_ms: conn.enrolled_at_ms,
            };
            // A revoked agent's connection ends here too: nothing to mark.
            let _ = self.inventory.set_presence(agent, Presence::Disconnected);
            metrics::gauge!("warden_connected_agents").set(self.connected_count() as f64);
        }
    }

    /// Closes the agent's connection now (revocation) and forgets its
    /// resources; from now on nothing it sends is taken.
    pub fn revoke(&self, agent_id: &str) {
        let removed = {
            let mut live = lock(&self.live);
            self.inventory.revoke(agent_id);
            live.remove(agent_id)
        };
        if let Some(conn) = removed {
            conn.close.send_replace(Some(CLOSE_REVOKED));
            self.fail_pending(agent_id, conn.conn_id);
        }
        metrics::gauge!("warden_connected_agents").set(self.connected_count() as f64);
    }

    pub fn connected_count(&self) -> usize {
        lock(&self.live).len()
    }

    /// When the agent last sent a frame, while it is connected.
    pub fn live_since(&self, agent_id: &str) -> Option<u64> {
        lock(&self.live)
            .get(agent_id)
            .map(|c| c.last_frame_ms.load(Ordering::Relaxed))
    }

    /// Registers a command in flight on `agent_id`'s current connection.
    /// `None` when the agent is not connected.
    pub fn begin_exec(
        &self,
        agent_id: &str,
        request_id: &str,
        cap: usize,
    ) -> Option<(ExecChannel, oneshot::Receiver<ExecEnd>)> {
        let live = lock(&self.live);
        let conn = live.get(agent_id)?;
        let (done_tx, done_rx) = oneshot::channel();
        // Under the `live` lock: `unregister` removes the connection first,
        // then fails its commands, so none is left waiting forever.
        lock(&self.pending).insert(
            request_id.to_string(),
            PendingExec {
                agent_id: agent_id.to_string(),
                conn_id: conn.conn_id,
                cap,
                stdout: Collected::default(),
                stderr: Collected::default(),
                done: Some(done_tx),
            },
        );
        Some((
            ExecChannel {
                conn_id: conn.conn_id,
                outgoing: conn.outgoing.clone(),
            },
            done_rx,
        ))
    }

    /// The command is over for its caller (finished, abandoned or dropped).
    pub fn end_exec(&self, request_id: &str) {
        lock(&self.pending).remove(request_id);
    }

    /// A chunk of output, from connection `conn_id` of `agent_id`.
    pub fn on_output(&self, agent_id: &str, conn_id: u64, chunk: &ExecOutput) {
        let mut pending = lock(&self.pending);
        match pending.get_mut(&chunk.request_id) {
            Some(exec) if exec.agent_id == agent_id && exec.conn_id == conn_id => {
                let cap = exec.cap;
                let stream = match chunk.stream {
                    OutputStream::Stdout => &mut exec.stdout,
                    OutputStream::Stderr => &mut exec.stderr,
                };
                stream.push(&chunk.data, cap);
            }
            Some(_) | None => {
                tracing::debug!(agent_id, request_id = %chunk.request_id, "output for no command of this agent, ignored");
            }
        }
    }

    /// How a command ended, from connection `conn_id` of `agent_id`.
    pub fn on_result(&self, agent_id: &str, conn_id: u64, result: ExecResult) {
        let mut pending = lock(&self.pending);
        let mine = pending
            .get(&result.request_id)
            .is_some_and(|e| e.agent_id == agent_id && e.conn_id == conn_id);
        if !mine {
            tracing::debug!(agent_id, request_id = %result.request_id, "result for no command of this agent, ignored");
            return;
        }
        if let Some(mut exec) = pending.remove(&result.request_id) {
            if let Some(done) = exec.done.take() {
                let clipped = exec.stdout.clipped || exec.stderr.clipped;
                let _ = done.send(ExecEnd::Finished {
                    result,
                    stdout: exec.stdout.text,
                    stderr: exec.stderr.text,
                    clipped,
                });
            }
        }
    }

    /// Every command in flight on connection `conn_id` ends as unknown.
    fn fail_pending(&self, agent_id: &str, conn_id: u64) {
        let mut pending = lock(&self.pending);
        pending.retain(|_, exec| {
            let on_this = exec.agent_id == agent_id && exec.conn_id == conn_id;
            if on_this {
                if let Some(done) = exec.done.take() {
                    let _ = done.send(ExecEnd::ConnectionLost);
                }
            }
            !on_this
        });
    }

    /// Whether `agent_id`'s current connection is `conn_id`.
    pub fn is_current(&self, agent_id: &str, conn_id: u64) -> bool {
        lock(&self.live)
            .get(agent_id)
            .is_some_and(|c| c.conn_id == conn_id)
    }
}

/// Routing facts for the enrolled agents.
pub fn as_facts(agents: Vec<(String, String, Presence)>) -> Vec<AgentFacts> {
    agents
        .into_iter()
        .map(|(id, name, presence)| AgentFacts { id, name, presence })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_protocol::agent::SandboxReport;

    fn result(request_id: &str) -> ExecResult {
        ExecResult {
            request_id: request_id.into(),
            exit_code: Some(0),
            error: None,
            truncated: false,
            duration_ms: 1,
            sandbox: SandboxReport::default(),
        }
    }

    fn chunk(request_id: &str, data: &str) -> ExecOutput {
        ExecOutput {
            request_id: request_id.into(),
            stream: OutputStream::Stdout,
            data: data.into(),
            seq: 0,
        }
    }

    fn agent(id: &'static str, name: &'static str) -> AgentIdentity<'static> {
        AgentIdentity {
            id,
            name,
            enrolled_at_ms: 1,
        }
    }

    /// Frames already in flight when an agent is revoked (inventory
    /// reports, its connection's end, a reconnect) never bring it back:
    /// four threads flood while a fifth revokes, fifty times.
    #[test]
    fn a_flood_of_frames_racing_a_revocation_leaves_nothing() {
        use std::sync::Barrier;
        use warden_core::ports::Inventory;
        use warden_protocol::Resource;

        let report = || {
            vec![
                Resource::new("host:web1".parse().unwrap(), "web1"),
                Resource::new("docker_container:web1:abc".parse().unwrap(), "nginx"),
            ]
        };
        for run in 0..50 {
            let hub = Arc::new(AgentHub::new(Arc::new(AgentInventory::default())));
            let first = hub.register(agent("a1", "web1"), 1).unwrap();
            let start = Arc::new(Barrier::new(5));
            let mut flooders = Vec::new();
            for thread in 0..4u64 {
                let hub = Arc::clone(&hub);
                let start = Arc::clone(&start);
                flooders.push(std::thread::spawn(move || {
                    start.wait();
                    for i in 0..400u64 {
                        let _ = hub.inventory().replace(agent("a1", "web1"), report());
                        match (thread + i) % 50 {
                            // A reconnect racing the revocation, and the end
                            // of the connection it replaced.
                            0 => {
                                if let Some(again) = hub.register(agent("a1", "web1"), i) {
                                    hub.unregister("a1", again.conn_id);
                                }
                            }
                            25 => hub.unregister("a1", first.conn_id),
                            _ => {}
                        }
                    }
                }));
            }
            start.wait();
            std::thread::sleep(std::time::Duration::from_micros(200 + run * 20));
            hub.revoke("a1");
            for flooder in flooders {
                flooder.join().unwrap();
            }
            let left = hub.inventory().snapshot();
            assert!(left.is_empty(), "run {run}: {:?}", left.all());
            assert!(hub.inventory().agents().is_empty(), "run {run}");
            assert_eq!(hub.connected_count(), 0, "run {run}");
        }
    }

    #[tokio::test]
    async fn only_the_owning_connection_feeds_a_command() {
        let hub = AgentHub::new(Arc::new(AgentInventory::default()));
        let a = hub.register(agent("a1", "web1"), 1).unwrap();
        let b = hub.register(agent("a2", "web2"), 1).unwrap();
        let (_, done) = hub.begin_exec("a1", "r1", 8).unwrap();
        hub.on_output("a2", b.conn_id, &chunk("r1", "forged"));
        hub.on_result("a2", b.conn_id, result("r1"));
        hub.on_output("a1", a.conn_id, &chunk("r1", "hello "));
        hub.on_output("a1", a.conn_id, &chunk("r1", "world"));
        hub.on_result("a1", a.conn_id, result("r1"));
        match done.await.unwrap() {
            ExecEnd::Finished {
                stdout, clipped, ..
            } => {
                assert_eq!(stdout, "hello wo");
                assert!(clipped);
            }
            ExecEnd::ConnectionLost => panic!("lost"),
        }
    }

    #[tokio::test]
    async fn a_replaced_or_revoked_connection_loses_its_commands() {
        let hub = AgentHub::new(Arc::new(AgentInventory::default()));
        let first = hub.register(agent("a1", "web1"), 1).unwrap();
        let (_, done) = hub.begin_exec("a1", "r1", 8).unwrap();
        let second = hub.register(agent("a1", "web1"), 2).unwrap();
        assert!(matches!(done.await.unwrap(), ExecEnd::ConnectionLost));
        assert_eq!(*first.close.borrow(), Some(CLOSE_REPLACED));
        assert!(!hub.is_current("a1", first.conn_id));
        // The old connection's end does not unregister the new one.
        hub.unregister("a1", first.conn_id);
        assert_eq!(hub.connected_count(), 1);
        let (_, done) = hub.begin_exec("a1", "r2", 8).unwrap();
        hub.revoke("a1");
        assert!(matches!(done.await.unwrap(), ExecEnd::ConnectionLost));
        assert_eq!(*second.close.borrow(), Some(CLOSE_REVOKED));
        assert!(hub.begin_exec("a1", "r3", 8).is_none());
        assert!(hub.register(agent("a1", "web1"), 3).is_none(), "revoked");
        assert_eq!(hub.connected_count(), 0);
        // The revoked connection's own end changes nothing.
        hub.unregister("a1", second.conn_id);
        assert!(warden_core::ports::Inventory::snapshot(hub.inventory().as_ref()).is_empty());
    }
}
