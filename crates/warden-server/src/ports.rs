//! What the server runs on, given by whoever starts it (the binary builds
//! these from the local machine and the configuration; tests from a static
//! inventory and simulated hosts). The server keeps them for the whole
//! process: they are leaked once at start so that every session's executor
//! and router can borrow them for `'static`.

use std::sync::Arc;

use warden_core::ports::{ApprovalStore, AuditSink, GuestApi, HostBackend, Inventory, NotesStore};
use warden_llm::Provider;

/// Connects the configured model for a new session, or `None` for the
/// router alone. May block (it can ask the provider for its models): the
/// server calls it on the blocking pool.
pub type ModelFactory =
    Arc<dyn Fn() -> Result<Option<Box<dyn Provider + Send>>, String> + Send + Sync>;

/// A price per million tokens, for cost accounting.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPrice {
    pub provider: String,
    pub model: String,
    pub input_per_million: f64,
    pub output_per_million: f64,
}

pub struct ServerPorts {
    pub inventory: Arc<dyn Inventory>,
    pub hosts: Arc<dyn HostBackend>,
    /// Guest power, snapshots, history and storage through a cluster's API.
    pub guest_api: Arc<dyn GuestApi>,
    /// Must be backed by the same store the server is given.
    pub approvals: Arc<dyn ApprovalStore>,
    pub audit: Arc<dyn AuditSink>,
    pub notes: Arc<dyn NotesStore>,
    pub model: ModelFactory,
    pub prices: Vec<ModelPrice>,
    /// The Proxmox clusters an admin manages through the API.
    pub clusters: Arc<dyn crate::clusters::ClusterAdmin>,
}

/// The ports, borrowed for the life of the process.
#[derive(Clone, Copy)]
pub struct StaticPorts {
    pub inventory: &'static dyn Inventory,
    pub hosts: &'static dyn HostBackend,
    pub guest_api: &'static dyn GuestApi,
    pub approvals: &'static dyn ApprovalStore,
    pub audit: &'static dyn AuditSink,
    pub notes: &'static dyn NotesStore,
}

impl StaticPorts {
    /// Leak the `Arc`s once (a server lives as long as its process).
    pub fn leak(ports: &ServerPorts) -> StaticPorts {
        let inventory: &'static Arc<dyn Inventory> =
            Box::leak(Box::new(Arc::clone(&ports.inventory)));
        let hosts: &'static Arc<dyn HostBackend> = Box::leak(Box::new(Arc::clone(&ports.hosts)));
        let guest_api: &'static Arc<dyn GuestApi> =
            Box::leak(Box::new(Arc::clone(&ports.guest_api)));
        let approvals: &'static Arc<dyn ApprovalStore> =
            Box::leak(Box::new(Arc::clone(&ports.approvals)));
        let audit: &'static Arc<dyn AuditSink> = Box::leak(Box::new(Arc::clone(&ports.audit)));
        let notes: &'static Arc<dyn NotesStore> = Box::leak(Box::new(Arc::clone(&ports.notes)));
        StaticPorts {
            inventory: &**inventory,
            hosts: &**hosts,
            guest_api: &**guest_api,
            approvals: &**approvals,
            audit: &**audit,
            notes: &**notes,
        }
    }

    pub fn executor_ports(&self) -> warden_core::executor::Ports<'static> {
        warden_core::executor::Ports {
            inventory: self.inventory,
            hosts: self.hosts,
            approvals: self.approvals,
            audit: self.audit,
            notes: self.notes,
        }
    }
}
