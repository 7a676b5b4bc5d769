//! The agents' WebSocket endpoint (`spec/agent.md`, "Connection"): the
//! handshake, heartbeats, frames in and out. The hub of connections, the
//! agents' inventory, grants and the routing of commands through agents
//! are the world's (`warden_world::agents`).

pub mod connection;
