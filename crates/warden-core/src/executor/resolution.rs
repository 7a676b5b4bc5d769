//! Gate 5, strict resolution: a call's `target` (an id, a name or an
//! alias) becomes a resource. A write needs a target this session
//! discovered; otherwise STRICT_RESOLUTION with suggestions of similar
//! discovered (or known) names. Reads may name anything the inventory knows.

use std::time::Duration;

use serde_json::json;
use warden_protocol::{ErrorCode, Resource, ResourceKind, ToolError, ToolKind};

use super::commands::{self, Plan};
use super::{Executor, Moment, Session};
use crate::context::{Lookup, Registration, ResolvedContext};
use crate::tools::ToolCall;

impl Executor<'_> {
    pub(super) fn resolve_target(
        &self,
        session: &mut Session,
        call: &ToolCall,
        kind: ToolKind,
        at: Moment,
    ) -> Result<Option<Resource>, ToolError> {
        let Some(name) = call.target() else {
            return match commands::plan_with(call, None, self.guest_api) {
                Plan::Internal | Plan::Api(_) => Ok(None),
                Plan::Run(_) | Plan::Replace { .. } => self.default_host().map(Some),
            };
        };
        match session.context.resolve(name, at.session) {
            Lookup::Found(entry) => {
                let found = entry.resource.clone();
                return Ok(Some(self.follow_move(session, found, at)));
            }
            Lookup::Ambiguous(ids) => {
                let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
                return Err(ToolError::new(
                    ErrorCode::StrictResolution,
                    format!("`{name}` matches several resources"),
                )
                .with_hint("use the canonical id")
                .with_detail("candidates", json!(ids)));
            }
            Lookup::Missing => {}
        }
        if kind == ToolKind::Write && self.settings.strict_resolution {
            let mut suggestions = session.context.suggestions(name, 5);
            if suggestions.is_empty() {
                suggestions = self.inventory_suggestions(name);
            }
            return Err(ToolError::new(
                ErrorCode::StrictResolution,
                format!("`{name}` has not been discovered in this session"),
            )
            .with_hint("find it first with query (action get) or discovery, then retry")
            .with_detail("suggestions", json!(suggestions)));
        }
        let inventory = self.ports.inventory.snapshot();
        let found = inventory.find(name);
        match found.as_slice() {
            [resource] => Ok(Some((*resource).clone())),
            [] => Err(ToolError::new(
                ErrorCode::NotFound,
                format!("no resource is called `{name}`"),
            )
            .with_hint("list resources with query (action list or search)")
            .with_detail("suggestions", json!(self.inventory_suggestions(name)))),
            many => Err(ToolError::new(
                ErrorCode::InvalidInput,
                format!("`{name}` matches several resources"),
            )
            .with_hint("use the canonical id")
            .with_detail(
                "candidates",
                json!(many.iter().map(|r| r.id.to_string()).collect::<Vec<_>>()),
            )),
        }
    }

    /// A resource this session discovered that has since moved (a guest
    /// migrated to another node: its id changed) is the resource at its new
    /// id; the session learns the new id, and the move is noted for the
    /// call's result. Anything else is returned as is.
    fn follow_move(&self, session: &mut Session, found: Resource, at: Moment) -> Resource {
        let inventory = self.ports.inventory.snapshot();
        if inventory.get(&found.id).is_some() {
            return found;
        }
        // Only to the same guest: a vmid reused by another is not it (the
        // call then fails on the old id, saying so).
        let Some(moved) = self
            .ports
            .inventory
            .moved_to(&found.id)
            .and_then(|id| inventory.get(&id).cloned())
            .filter(|moved| moved.name.eq_ignore_ascii_case(&found.name))
        else {
            return found;
        };
        for parent in inventory.chain(&moved.id).iter().skip(1) {
            session
                .context
                .register((*parent).clone(), Registration::RoutingParent, at.session);
        }
        session.context.moved(&found.id, moved.clone(), at.session);
        session.note_move(found.id, moved.id.clone());
        moved
    }

    pub(super) fn default_host(&self) -> Result<Resource, ToolError> {
        self.ports
            .inventory
            .snapshot()
            .all()
            .iter()
            .find(|r| r.id.kind == ResourceKind::Host)
            .cloned()
            .ok_or_else(|| ToolError::new(ErrorCode::InvalidInput, "this call needs a `target`"))
    }

    pub(super) fn inventory_suggestions(&self, name: &str) -> Vec<String> {
        let mut scratch = ResolvedContext::new();
        for resource in self.ports.inventory.snapshot().all() {
            scratch.register(resource.clone(), Registration::Bulk, Duration::ZERO);
        }
        scratch.suggestions(name, 5)
    }
}
