//! Who is calling: a bearer token, or a browser login cookie (with the
//! CSRF token on every state-changing request). Handlers take a [`Caller`]
//! and check the role they need.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{Method, header};

use super::role::Role;
use super::secrets::{constant_time_eq, sha256_hex};
use crate::error::ApiError;
use crate::state::{AppState, now_ms};

pub const SESSION_COOKIE: &str = "warden_session";
pub const CSRF_HEADER: &str = "x-csrf-token";

/// How the caller proved who they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// A browser login: the stored hash of the cookie and its CSRF token.
    Cookie {
        id_hash: String,
        csrf_token: String,
    },
    Bearer {
        token_id: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The user name; `token:NAME` for API tokens.
    pub user: String,
    pub role: Role,
    pub credential: Credential,
}

impl Caller {
    /// Who this is in the audit log: `user:alice`, `token:ci-bot`.
    pub fn actor(&self) -> String {
        if self.user.starts_with("token:") {
            self.user.clone()
        } else {
            format!("user:{}", self.user)
        }
    }

    /// 403 unless the caller's role includes `required`.
    pub fn require(&self, required: Role) -> Result<(), ApiError> {
        if self.role.allows(required) {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "this needs the {required} role; you are {}",
                self.role
            )))
        }
    }

    pub fn csrf_token(&self) -> Option<&str> {
        match &self.credential {
            Credential::Cookie { csrf_token, .. } => Some(csrf_token),
            Credential::Bearer { .. } => None,
        }
    }
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name).then_some(value)
    })
}

fn state_changing(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

impl FromRequestParts<Arc<AppState>> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        app: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        if let Some(value) = parts.headers.get(header::AUTHORIZATION) {
            let text = value
                .to_str()
                .map_err(|_| ApiError::Unauthenticated("malformed Authorization header".into()))?;
            let token = text
                .strip_prefix("Bearer ")
                .or_else(|| text.strip_prefix("bearer "))
                .ok_or_else(|| {
                    ApiError::Unauthenticated("use `Authorization: Bearer <token>`".into())
                })?;
            return bearer(app, token.trim());
        }
        let cookies = parts
            .headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|h| cookie_value(h, SESSION_COOKIE).map(str::to_string));
        match cookies {
            Some(cookie) => {
                let caller = browser(app, &cookie)?;
                if state_changing(&parts.method) {
                    check_csrf(parts, &caller)?;
                }
                Ok(caller)
            }
            None => Err(ApiError::Unauthenticated(
                "log in, or send `Authorization: Bearer <token>`".into(),
            )),
        }
    }
}

/// Seconds between two `last_used` updates of a token.
const TOUCH_EVERY_MS: u64 = 60_000;

fn bearer(app: &AppState, token: &str) -> Result<Caller, ApiError> {
    let now = now_ms();
    let stored = app
        .store
        .api_token_by_hash(&sha256_hex(token))
        .map_err(ApiError::store)?
        .ok_or_else(|| ApiError::Unauthenticated("unknown token".into()))?;
    if stored.revoked_at_ms.is_some() {
        return Err(ApiError::Unauthenticated("the token was revoked".into()));
    }
    if stored.expires_at_ms.is_some_and(|at| now >= at) {
        return Err(ApiError::Unauthenticated("the token expired".into()));
    }
    let role: Role = stored
        .role
        .parse()
        .map_err(|_| ApiError::Unauthenticated("the token has an unknown role".into()))?;
    if stored
        .last_used_at_ms
        .is_none_or(|at| now.saturating_sub(at) >= TOUCH_EVERY_MS)
    {
        if let Err(error) = app.store.touch_api_token(&stored.id, now) {
            tracing::warn!(%error, "cannot record token use");
        }
    }
    Ok(Caller {
        user: format!("token:{}", stored.name),
        role,
        credential: Credential::Bearer {
            token_id: stored.id,
        },
    })
}

fn browser(app: &AppState, cookie: &str) -> Result<Caller, ApiError> {
    let id_hash = sha256_hex(cookie);
    let session = app
        .store
        .login_session(&id_hash, now_ms())
        .map_err(ApiError::store)?
        .ok_or_else(|| ApiError::Unauthenticated("the login expired; log in again".into()))?;
    let user = app
        .store
        .user(&session.username)
        .map_err(ApiError::store)?
        .ok_or_else(|| ApiError::Unauthenticated("the user no longer exists".into()))?;
    let role: Role = user
        .role
        .parse()
        .map_err(|_| ApiError::Unauthenticated("the user has an unknown role".into()))?;
    Ok(Caller {
        user: user.username,
        role,
        credential: Credential::Cookie {
            id_hash,
            csrf_token: session.csrf_token,
        },
    })
}

fn check_csrf(parts: &Parts, caller: &Caller) -> Result<(), ApiError> {
    let expected = caller.csrf_token().unwrap_or_default();
    let sent = parts
        .headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !sent.is_empty() && constant_time_eq(sent.as_bytes(), expected.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError::Forbidden(
            "missing or wrong X-CSRF-Token header".into(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_found_by_name() {
        let table = [
            ("warden_session=abc", Some("abc")),
            ("a=1; warden_session=abc; b=2", Some("abc")),
            ("warden_session_x=abc", None),
            ("other=1", None),
            ("", None),
        ];
        for (header, expected) in table {
            assert_eq!(cookie_value(header, SESSION_COOKIE), expected, "{header}");
        }
    }

    #[test]
    fn only_safe_methods_skip_csrf() {
        for (method, expected) in [
            (Method::GET, false),
            (Method::HEAD, false),
            (Method::OPTIONS, false),
            (Method::POST, true),
            (Method::PATCH, true),
            (Method::DELETE, true),
            (Method::PUT, true),
        ] {
            assert_eq!(state_changing(&method), expected, "{method}");
        }
    }
}
