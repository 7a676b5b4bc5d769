//! The role an endpoint needs, checked while the request's head is read:
//! before its body is parsed, so a viewer posting to an operator's endpoint
//! gets 403, never a 400 that lists the fields the body should have. A
//! handler takes `Authorized<needs::Operator>` before its body extractor
//! (axum runs head extractors first, the body's last).

use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::caller::Caller;
use super::role::Role;
use crate::error::ApiError;
use crate::state::AppState;

/// A role an endpoint needs, as a type.
pub trait RoleNeeded {
    const ROLE: Role;
}

/// The four roles as types, for [`Authorized`].
pub mod needs {
    use super::{Role, RoleNeeded};

    /// Reads inventory, sessions, audit, approvals, usage.
    pub struct Viewer;
    /// Creates sessions, posts messages, cancels turns.
    pub struct Operator;
    /// Approves, denies and runs approvals.
    pub struct Approver;
    /// Users, tokens, agents, settings.
    pub struct Admin;

    impl RoleNeeded for Viewer {
        const ROLE: Role = Role::Viewer;
    }
    impl RoleNeeded for Operator {
        const ROLE: Role = Role::Operator;
    }
    impl RoleNeeded for Approver {
        const ROLE: Role = Role::Approver;
    }
    impl RoleNeeded for Admin {
        const ROLE: Role = Role::Admin;
    }
}

/// A caller whose role includes `R` (else 401 or 403 before the body).
pub struct Authorized<R> {
    pub caller: Caller,
    role: PhantomData<fn() -> R>,
}

impl<R> Deref for Authorized<R> {
    type Target = Caller;

    fn deref(&self) -> &Caller {
        &self.caller
    }
}

impl<R: RoleNeeded> FromRequestParts<Arc<AppState>> for Authorized<R> {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        app: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        let caller = Caller::from_request_parts(parts, app).await?;
        caller.require(R::ROLE)?;
        Ok(Authorized {
            caller,
            role: PhantomData,
        })
    }
}
