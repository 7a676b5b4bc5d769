//! The executor: the one choke point every tool call goes through, whoever
//! proposed it (model, router, UI, CLI, MCP). `Executor::execute` reads top
//! to bottom as the ordered pipeline of DESIGN.md:
//!
//! profile/toolset → deny list → schema → FSM gate → strict resolution →
//! routing validation → command policy → control level / approval → audit →
//! dispatch → known-secret canary on the result (`SECRET_IN_OUTPUT`).

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde_json::json;
use warden_protocol::{ControlLevel, ErrorCode, ToolError, ToolKind, ToolResponse};

use crate::knowledge::KnowledgeAccumulator;
use crate::ports::{
    Approval, ApprovalStore, AuditSink, ExecClass, GuestApi, HostBackend, Inventory, NoGuestApi,
    NotesStore,
};
use crate::telemetry;
use crate::tools::{ToolCall, classify_call};

mod admit;
mod api_dispatch;
mod bookkeeping;
mod canary;
pub mod commands;
mod dispatch;
mod gates;
mod guest_state;
pub mod host_metrics;
mod internal;
mod resolution;
pub mod snapshot_first;
mod stages;
mod stored;
mod types;

pub use api_dispatch::valid_snapshot_name;
use stages::{Admitted, Gate};
pub use stages::{Performed, Prepared, Ready};
pub use stored::{StoredRun, verification_for};
pub use types::{ExecRecord, Moment, Outcome, ProposedCall, Session, Settings};

use bookkeeping::{AuditLine, call_command, plan_command};
use commands::Plan;
use dispatch::{Dispatch, shape_result};
pub use gates::arguments_hash;
use gates::{check_command_policy, check_routing, invalid_input};

/// The world the executor acts on.
pub struct Ports<'a> {
    pub inventory: &'a dyn Inventory,
    pub hosts: &'a dyn HostBackend,
    pub approvals: &'a dyn ApprovalStore,
    pub audit: &'a dyn AuditSink,
    pub notes: &'a dyn NotesStore,
}

pub struct Executor<'a> {
    settings: Settings,
    ports: Ports<'a>,
    /// Answers API-backed plans (Proxmox); none unless one is attached.
    guest_api: &'a dyn GuestApi,
}

/// Whether a human already approved this exact call.
#[derive(Clone, Copy)]
pub(super) enum Authorization<'x> {
    None,
    Approved(&'x Approval),
}

impl<'a> Executor<'a> {
    pub fn new(settings: Settings, ports: Ports<'a>) -> Self {
        Executor {
            settings,
            ports,
            guest_api: &NoGuestApi,
        }
    }

    /// Serve guest power, snapshots, history, storage and VM commands of the
    /// resources `api` serves through it (see [`commands::plan_with`]).
    pub fn with_guest_api(mut self, api: &'a dyn GuestApi) -> Self {
        self.guest_api = api;
        self
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn inventory(&self) -> &'a dyn Inventory {
        self.ports.inventory
    }

    pub fn approvals(&self) -> &'a dyn ApprovalStore {
        self.ports.approvals
    }

    pub fn set_control_level(&mut self, level: ControlLevel) {
        self.settings.control_level = level;
    }

    /// Run a proposed call through every gate, then dispatch it.
    pub async fn execute(&self, session: &mut Session, call: &ProposedCall, at: Moment) -> Outcome {
        self.run(session, call, at, Authorization::None).await
    }

    pub(super) async fn run(
        &self,
        session: &mut Session,
        proposed: &ProposedCall,
        at: Moment,
        auth: Authorization<'_>,
    ) -> Outcome {
        match self.prepare_with(session, proposed, at, auth) {
            Prepared::Done(outcome) => outcome,
            Prepared::Ready(ready) => {
                let performed = self.perform(&ready).await;
                self.finish(session, ready, performed, at)
            }
        }
    }

    /// Every gate and the knowledge gate; a call that passes is audited as
    /// allowed and returned ready to run.
    pub fn prepare(&self, session: &mut Session, proposed: &ProposedCall, at: Moment) -> Prepared {
        self.prepare_with(session, proposed, at, Authorization::None)
    }

    pub(super) fn prepare_with(
        &self,
        session: &mut Session,
        proposed: &ProposedCall,
        at: Moment,
        auth: Authorization<'_>,
    ) -> Prepared {
        let started = Instant::now();
        let kind = classify_call(&proposed.tool, &proposed.arguments);
        match self.admit(session, proposed, kind, at, auth) {
            Err(error) => {
                match error.code {
                    ErrorCode::FsmBlocked => {
                        telemetry::fsm_tool_block(session.fsm.state(), &proposed.tool, kind)
                    }
                    ErrorCode::StrictResolution => {
                        telemetry::strict_resolution_block(&proposed.tool, &proposed.arguments)
                    }
                    // Counted where both kinds are known.
                    ErrorCode::RoutingMismatch => {}
                    other => telemetry::gate_block(other, &proposed.tool),
                }
                let named = proposed.arguments.get("target").and_then(|t| t.as_str());
                let command = call_command(&proposed.tool, &proposed.arguments);
                Prepared::Done(self.blocked(session, &proposed.tool, named, &command, kind, error))
            }
            Ok(Gate::NeedsApproval(approval)) => {
                // An approval request nobody can trace is not handed out.
                if let Err(error) = self.audit(
                    session,
                    AuditLine {
                        tool: &proposed.tool,
                        target: Some(&approval.target),
                        decision: "approval_required",
                        code: Some(ErrorCode::ApprovalRequired),
                        command: &approval.command,
                        reason: None,
                    },
                    started,
                ) {
                    let error = ToolError::new(
                        ErrorCode::Internal,
                        format!("{error}; refusing to request approval"),
                    );
                    return Prepared::Done(self.blocked(
                        session,
                        &proposed.tool,
                        None,
                        &approval.command,
                        kind,
                        error,
                    ));
                }
                let error = ToolError::new(
                    ErrorCode::ApprovalRequired,
                    format!("waiting for approval: {}", approval.description),
                )
                .with_hint("a human must approve this exact call; it runs when approved")
                .with_detail("approval_id", json!(approval.id))
                .with_detail("command", json!(approval.command))
                .with_detail("target", json!(approval.target))
                .with_detail("risk", json!(approval.risk))
                .with_detail("description", json!(approval.description));
                Prepared::Done(Outcome {
                    kind,
                    response: ToolResponse::failure(error),
                    execs: Vec::new(),
                    approval: Some(approval),
                    transition: None,
                })
            }
            Ok(Gate::Admitted(admitted)) => {
                let target_id = admitted.target.as_ref().map(|t| t.id.to_string());
                let command = plan_command(&admitted.plan, proposed, admitted.target.as_ref());
                // Knowledge gate: an identical read already answered this session.
                let cache_key = (kind == ToolKind::Read).then(|| {
                    KnowledgeAccumulator::key(
                        &proposed.tool,
                        target_id.as_deref(),
                        &proposed.arguments,
                    )
                });
                let cached = cache_key.as_ref().and_then(|k| {
                    session
                        .knowledge
                        .get(k, at.session, self.settings.knowledge_ttl)
                        .map(|c| (c.response.clone(), c.age))
                        // Kept before a secret was registered (a cluster
                        // added since): run again, and be withheld.
                        .filter(|(response, _)| {
                            !canary::holds_known_secret(
                                &self.settings.known_secrets.snapshot(),
                                response,
                            )
                        })
                });
                if let Some((mut response, age)) = cached {
                    let meta = response.meta.get_or_insert_with(Default::default);
                    meta.cached = true;
                    meta.cached_age_secs = Some(age.as_secs());
                    let _ = self.audit(
                        session,
                        AuditLine {
                            tool: &proposed.tool,
                            target: target_id.as_deref(),
                            decision: "cached",
                            code: None,
                            command: &command,
                            reason: None,
                        },
                        started,
                    );
                    return Prepared::Done(Outcome {
                        kind,
                        response,
                        execs: Vec::new(),
                        approval: None,
                        transition: None,
                    });
                }
                // Nothing runs unaudited.
                if let Err(error) = self.audit(
                    session,
                    AuditLine {
                        tool: &proposed.tool,
                        target: target_id.as_deref(),
                        decision: "allowed",
                        code: None,
                        command: &command,
                        reason: None,
                    },
                    started,
                ) {
                    let error = ToolError::new(
                        ErrorCode::Internal,
                        format!("{error}; refusing to run the call"),
                    );
                    return Prepared::Done(Outcome {
                        kind,
                        response: ToolResponse::failure(error),
                        execs: Vec::new(),
                        approval: None,
                        transition: None,
                    });
                }
                if kind == ToolKind::Write {
                    session.fsm.on_write_dispatched();
                }
                Prepared::Ready(Ready {
                    admitted,
                    kind,
                    tool: proposed.tool.clone(),
                    arguments: proposed.arguments.clone(),
                    target_id,
                    cache_key,
                    started,
                    approval: match auth {
                        Authorization::Approved(approval) => Some(approval.clone()),
                        Authorization::None => None,
                    },
                    cancel: session.cancel.clone(),
                })
            }
        }
    }

    /// The IO of a ready call (no session: reads can run in parallel).
    /// Calls answered from Warden's own state are left to `finish`.
    pub async fn perform(&self, ready: &Ready) -> Performed {
        let mut execs = Vec::new();
        let admitted = &ready.admitted;
        let reached_host = AtomicBool::new(false);
        let dispatch = Dispatch {
            class: match ready.kind {
                ToolKind::Write => ExecClass::Write,
                ToolKind::Read | ToolKind::Resolve => ExecClass::Read,
            },
            approval: ready.approval.as_ref(),
            cancel: &ready.cancel,
            reached_host: &reached_host,
        };
        // Snapshot first (an approved change to a Proxmox guest); when it
        // fails, the change does not run.
        let snapshot = match self
            .snapshot_before_change(admitted, ready.approval.as_ref(), dispatch, &mut execs)
            .await
        {
            Ok(snapshot) => snapshot,
            Err(error) => {
                return Performed {
                    result: Some(Err(error)),
                    execs,
                    reached_host: reached_host.into_inner(),
                };
            }
        };
        let result = match &admitted.plan {
            Plan::Internal => None,
            Plan::Api(call) => Some(
                self.run_api(admitted.target.as_ref(), call, dispatch, &mut execs)
                    .await,
            ),
            Plan::Run(planned) => Some(
                self.run_command(
                    admitted.target.as_ref(),
                    planned.on_parent,
                    &planned.command,
                    dispatch,
                    &mut execs,
                )
                .await
                .map(|data| shape_result(&admitted.call, data)),
            ),
            Plan::Replace { path, old, new } => Some(
                self.replace(
                    admitted.target.as_ref(),
                    path,
                    old,
                    new,
                    dispatch,
                    &mut execs,
                )
                .await,
            ),
        };
        Performed {
            result: result.map(|r| api_dispatch::with_snapshot(r, snapshot)),
            execs,
            reached_host: reached_host.into_inner(),
        }
    }

    /// Post-processing, in call order: FSM transition, knowledge, audit.
    pub fn finish(
        &self,
        session: &mut Session,
        ready: Ready,
        performed: Performed,
        at: Moment,
    ) -> Outcome {
        let Ready {
            admitted,
            kind,
            tool,
            arguments,
            target_id,
            cache_key,
            started,
            approval,
            cancel: _,
        } = ready;
        let result = match performed.result {
            Some(result) => result,
            None => self.internal(session, &admitted.call, admitted.target.as_ref(), at),
        };
        // Before anything keeps, shows, streams or sends it.
        let known = self.settings.known_secrets.snapshot();
        let (result, withheld) = canary::withhold(&known, result, &session.id, &tool);
        // A write that reached a host is verified whatever its exit code:
        // a failed restart may have left the service down.
        let write_reached_host = kind == ToolKind::Write && performed.reached_host;
        let (response, transition) = match result {
            Ok(data) => (
                ToolResponse::success(data),
                session.fsm.on_tool_success(kind),
            ),
            Err(error) if write_reached_host => (
                ToolResponse::failure(error),
                session.fsm.on_write_reached_host(),
            ),
            Err(error) => (
                ToolResponse::failure(error),
                session.fsm.on_tool_failure(kind),
            ),
        };
        let mut outcome = Outcome {
            kind,
            response,
            execs: performed.execs,
            approval: None,
            transition: Some(transition),
        };
        for (from, to) in std::mem::take(&mut session.moves) {
            api_dispatch::tell_move(&mut outcome.response, &from, &to);
        }
        // What a read learned is kept, failures included (negative
        // knowledge: "no such file"), except transient ones.
        let transient = matches!(
            outcome.response.error_code(),
            Some(ErrorCode::Unavailable | ErrorCode::Timeout | ErrorCode::Internal)
        );
        session.knowledge.learn(crate::knowledge::extract::extract(
            &tool,
            &arguments,
            &outcome.response,
        ));
        match (kind, outcome.response.ok, cache_key) {
            (ToolKind::Read, _, Some(key)) if !transient => {
                session
                    .knowledge
                    .put(key, outcome.response.clone(), at.session)
            }
            (ToolKind::Write, true, _) => session.knowledge.forget_all(),
            (ToolKind::Write, false, _) if write_reached_host => session.knowledge.forget_all(),
            _ => {}
        }
        outcome.approval = approval;
        let decision = match (outcome.response.ok, outcome.response.error_code()) {
            (true, _) => "executed",
            (false, _) if withheld.is_some() => canary::WITHHELD,
            (false, Some(ErrorCode::Cancelled | ErrorCode::Timeout)) if write_reached_host => {
                "interrupted"
            }
            (false, _) => "failed",
        };
        // What actually reached a host, else what was planned.
        let command = if outcome.execs.is_empty() {
            plan_command(
                &admitted.plan,
                &ProposedCall {
                    tool: tool.clone(),
                    arguments: arguments.clone(),
                },
                admitted.target.as_ref(),
            )
        } else {
            outcome
                .execs
                .iter()
                .map(|e| e.command.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        };
        let failure = outcome.response.error.as_ref().map(|e| e.message.clone());
        // The call already ran: a failed record cannot undo it, so it is
        // reported in the result instead.
        if let Err(error) = self.audit(
            session,
            AuditLine {
                tool: &tool,
                target: target_id.as_deref(),
                decision,
                code: outcome.response.error_code(),
                command: &command,
                reason: failure.as_deref(),
            },
            started,
        ) {
            outcome
                .response
                .meta
                .get_or_insert_with(Default::default)
                .audit_error = Some(error.to_string());
        }
        outcome
    }
}

#[cfg(test)]
mod api_tests;
#[cfg(test)]
pub(crate) mod tests;
