//! Calls answered from Warden's own state: query, discovery, knowledge and
//! alerts. Resolve calls register what they find in the ResolvedContext.

use serde_json::{Value, json};
use warden_protocol::{ErrorCode, Resource, ResourceKind, ToolError};

use super::{Executor, Moment, Session};
use crate::context::Registration;
use crate::ports::{Note, Unreadable, notes_matching};
use crate::tools::ToolCall;
use crate::tools::args::{DiscoveryArgs, KnowledgeArgs, QueryArgs};

impl Executor<'_> {
    pub(super) fn internal(
        &self,
        session: &mut Session,
        call: &ToolCall,
        target: Option<&Resource>,
        at: Moment,
    ) -> Result<Value, ToolError> {
        let inventory = self.ports.inventory.snapshot();
        // The session's copy may be older than the inventory (a status
        // changed since it was discovered, e.g. by the write being verified).
        let current = target.map(|t| inventory.get(&t.id).cloned().unwrap_or_else(|| t.clone()));
        let target = current.as_ref();
        match call {
            ToolCall::Query(QueryArgs::Get { .. })
            | ToolCall::Discovery(DiscoveryArgs::Get { .. }) => {
                let target =
                    target.ok_or_else(|| ToolError::new(ErrorCode::NotFound, "no target"))?;
                let chain = inventory.chain(&target.id);
                for parent in chain.iter().skip(1) {
                    session.context.register(
                        (*parent).clone(),
                        Registration::RoutingParent,
                        at.session,
                    );
                }
                session
                    .context
                    .register(target.clone(), Registration::Explicit, at.session);
                Ok(
                    json!({"resource": target, "routing_chain": chain.iter().map(|r| r.id.to_string()).collect::<Vec<_>>()}),
                )
            }
            ToolCall::Query(QueryArgs::Search { text, kind }) => {
                let lower = text.to_lowercase();
                let found: Vec<Resource> = inventory
                    .all()
                    .iter()
                    .filter(|r| kind.is_none_or(|k| r.id.kind == k))
                    .filter(|r| {
                        r.name.to_lowercase().contains(&lower)
                            || r.id.to_string().contains(&lower)
                            || r.aliases.iter().any(|a| a.to_lowercase().contains(&lower))
                    })
                    .cloned()
                    .collect();
                let listed = self.register_bulk(session, found, at);
                complete_or_failed(listed, inventory.unreadable(), *kind)
            }
            ToolCall::Query(QueryArgs::List { kind }) => {
                let found: Vec<Resource> = inventory
                    .all()
                    .iter()
                    .filter(|r| kind.is_none_or(|k| r.id.kind == k))
                    .cloned()
                    .collect();
                let listed = self.register_bulk(session, found, at);
                complete_or_failed(listed, inventory.unreadable(), *kind)
            }
            ToolCall::Query(QueryArgs::Topology {})
            | ToolCall::Query(QueryArgs::Health { target: None }) => {
                let listed = self.register_bulk(session, inventory.all().to_vec(), at);
                complete_or_failed(listed, inventory.unreadable(), None)
            }
            ToolCall::Query(QueryArgs::Health { target: Some(_) }) => {
                let resource =
                    target.ok_or_else(|| ToolError::new(ErrorCode::NotFound, "no target"))?;
                Ok(json!({"resource": resource, "status": resource.status}))
            }
            ToolCall::Knowledge(KnowledgeArgs::Remember { note, target }) => {
                let note = Note {
                    target: target.clone(),
                    text: note.clone(),
                    created_at_ms: at.wall_ms,
                };
                self.ports
                    .notes
                    .add(note.clone())
                    .map_err(|e| ToolError::new(ErrorCode::Internal, e.to_string()))?;
                Ok(json!({"remembered": note.text, "target": note.target}))
            }
            ToolCall::Knowledge(KnowledgeArgs::Recall { query, target }) => {
                let all = self
                    .ports
                    .notes
                    .all()
                    .map_err(|e| ToolError::new(ErrorCode::Unavailable, e.to_string()))?;
                let found: Vec<&str> = notes_matching(&all, query, target.as_deref())
                    .into_iter()
                    .take(50)
                    .map(|n| n.text.as_str())
                    .collect();
                Ok(json!({"notes": found}))
            }
            ToolCall::Alerts(_) => Err(ToolError::new(
                ErrorCode::Unavailable,
                "no alert source is connected",
            )),
            ToolCall::Read(_)
            | ToolCall::Metrics(_)
            | ToolCall::Storage(_)
            | ToolCall::Kubernetes(_)
            | ToolCall::Control(_)
            | ToolCall::Docker(_)
            | ToolCall::FileEdit(_)
            | ToolCall::Snapshot(_) => Err(ToolError::new(
                ErrorCode::Internal,
                format!("`{}` has no internal answer", call.name()),
            )),
        }
    }

    fn register_bulk(&self, session: &mut Session, found: Vec<Resource>, at: Moment) -> Value {
        for resource in &found {
            session
                .context
                .register(resource.clone(), Registration::Bulk, at.session);
        }
        json!({"count": found.len(), "resources": found})
    }
}

/// A listing that misses the resources of a source that cannot be read is
/// a failed call naming it ("Proxmox cluster `lab` cannot be read: …"),
/// not a short or empty list; what could be read goes with the error.
fn complete_or_failed(
    listed: Value,
    unreadable: &[Unreadable],
    kind: Option<ResourceKind>,
) -> Result<Value, ToolError> {
    let missing: Vec<&Unreadable> = unreadable.iter().filter(|u| u.concerns(kind)).collect();
    if missing.is_empty() {
        return Ok(listed);
    }
    let sentences: Vec<String> = missing.iter().map(|u| u.sentence()).collect();
    Err(ToolError::failed(
        ErrorCode::Unavailable,
        format!(
            "{}; the inventory lacks its resources, so this list is incomplete",
            sentences.join("; ")
        ),
    )
    .with_hint(
        "tell the user which cluster cannot be read and why; the operator must fix its [[proxmox]] settings (token secret, fingerprint, URL) or its network; `warden config show` checks them",
    )
    .with_detail("unreadable", json!(missing))
    .with_detail("partial", listed))
}
