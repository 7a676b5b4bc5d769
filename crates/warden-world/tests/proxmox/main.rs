//! Warden's executor on a real `fakepve` (the testkit's launcher): the
//! clusters connected by `proxmox::connect`, their inventory merged, the guest API
//! answering API-backed plans. Every gate runs as in `warden ask`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use warden_core::executor::{Executor, Moment, Outcome, Ports, ProposedCall, Session, Settings};
use warden_core::ports::{
    ApprovalState, BoxFuture, CompositeInventory, ExecOutput, ExecRequest, HostBackend, HostError,
    Inventory, MemoryApprovals, MemoryAudit, MemoryNotes,
};
use warden_protocol::{ControlLevel, ErrorCode};

use warden_testkit::fixtures::fakepve::{FakeOptions, FakePve};
use warden_world::proxmox::{ProxmoxWorld, connect};

mod admin;
mod quirks;
mod reads;
mod unreadable;
mod writes;

/// No agents anywhere: every command is unreachable by a host backend.
struct NoAgents;

impl HostBackend for NoAgents {
    fn route_facts<'a>(
        &'a self,
        _target: &'a warden_protocol::Resource,
    ) -> BoxFuture<'a, warden_protocol::routing::RouteFacts> {
        use warden_protocol::routing::{RouteFacts, ThisMachine};
        Box::pin(std::future::ready(RouteFacts::only(ThisMachine::nothing())))
    }

    fn exec<'a>(
        &'a self,
        request: ExecRequest<'a>,
    ) -> BoxFuture<'a, Result<ExecOutput, HostError>> {
        let id = request.target.id.to_string();
        Box::pin(std::future::ready(Err(HostError::Unreachable(
            id,
            "no agent is connected".into(),
        ))))
    }
}

pub(crate) struct Rig {
    pub(crate) fake: FakePve,
    pub(crate) proxmox: ProxmoxWorld,
    pub(crate) inventory: CompositeInventory,
    pub(crate) approvals: MemoryApprovals,
    pub(crate) audit: MemoryAudit,
    pub(crate) notes: MemoryNotes,
}

impl Rig {
    pub(crate) async fn start(options: FakeOptions, setup: impl AsyncFnOnce(&FakePve)) -> Rig {
        let fake = FakePve::start(options).await;
        setup(&fake).await;
        let proxmox = connect(&[fake.config()]).await;
        assert!(proxmox.problems().is_empty(), "{:?}", proxmox.problems());
        let inventory =
            CompositeInventory::new(vec![Arc::clone(&proxmox.inventories) as Arc<dyn Inventory>]);
        Rig {
            fake,
            proxmox,
            inventory,
            approvals: MemoryApprovals::default(),
            audit: MemoryAudit::default(),
            notes: MemoryNotes::default(),
        }
    }

    pub(crate) fn executor(&self, level: ControlLevel) -> Executor<'_> {
        self.executor_with(Settings {
            control_level: level,
            ..Settings::default()
        })
    }

    pub(crate) fn executor_with(&self, settings: Settings) -> Executor<'_> {
        Executor::new(
            settings,
            Ports {
                inventory: &self.inventory,
                hosts: &NoAgents,
                approvals: &self.approvals,
                audit: &self.audit,
                notes: &self.notes,
            },
        )
        .with_guest_api(&self.proxmox.api)
    }

    pub(crate) async fn sent(&self, method: &str, suffix: &str) -> usize {
        self.fake
            .requests()
            .await
            .iter()
            .filter(|(m, p)| m == method && p.ends_with(suffix))
            .count()
    }
}

pub(crate) fn at(secs: u64) -> Moment {
    Moment {
        session: Duration::from_secs(secs),
        wall_ms: jiff::Timestamp::now().as_millisecond().unsigned_abs() + secs * 1000,
    }
}

pub(crate) fn call(tool: &str, arguments: Value) -> ProposedCall {
    ProposedCall {
        tool: tool.into(),
        arguments,
    }
}

pub(crate) async fn run(
    executor: &Executor<'_>,
    session: &mut Session,
    tool: &str,
    args: Value,
) -> Outcome {
    executor.execute(session, &call(tool, args), at(1)).await
}

/// Propose, approve as the operator, run the stored call.
pub(crate) async fn approve_and_run(
    executor: &Executor<'_>,
    session: &mut Session,
    tool: &str,
    args: Value,
) -> (warden_protocol::Approval, Outcome) {
    let asked = run(executor, session, tool, args).await;
    assert_eq!(
        asked.response.error_code(),
        Some(ErrorCode::ApprovalRequired),
        "{:?}",
        asked.response
    );
    let approval = asked.approval.unwrap();
    executor
        .approvals()
        .decide(&approval.id, ApprovalState::Approved, None, at(2).wall_ms)
        .unwrap();
    let ran = executor
        .execute_approved(session, &approval.id, at(3))
        .await;
    (approval, ran)
}

pub(crate) fn data(outcome: &Outcome) -> Value {
    assert!(outcome.response.ok, "{:?}", outcome.response);
    outcome.response.data.clone().unwrap()
}
