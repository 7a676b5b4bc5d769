//! Who is calling: a bearer token, or a browser login cookie (with the
//! CSRF token on every state-changing request), and the person behind it.
//! Handlers take an [`Authorized`](super::Authorized) caller with the role
//! they need. A login with a one-time password may only change it (and
//! read who it is, or log out) until it has: everything else answers 403
//! `PASSWORD_CHANGE_REQUIRED`.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{Method, header};

use warden_store::PasswordChange;

use super::people::{Person, token_actor};
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
    Cookie { id_hash: String, csrf_token: String },
    Bearer {
        token_id: String,
        /// The token's name.
        name: String,
        /// The person it belongs to (`None`: a token from before owners).
        owner: Option<Person>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The user name; `token:NAME` for API tokens.
    pub user: String,
    pub role: Role,
    pub credential: Credential,
    /// A browser login with a one-time password must change it first.
    pub password_change: PasswordChange,
}

/// What a login with a one-time password may still call.
const WHILE_PASSWORD_CHANGE_REQUIRED: &[&str] =
    &["/api/auth/me", "/api/auth/logout", "/api/auth/password"];

impl Caller {
    /// Who this is in the audit log: `user:alice`, `token:ci-bot
    /// (user:alice)`, `token:old` (a token without an owner).
    pub fn actor(&self) -> String {
        match &self.credential {
            Credential::Cookie { .. } => format!("user:{}", self.user),
            Credential::Bearer { name, owner, .. } => token_actor(name, owner.as_ref()),
        }
    }

    /// The person behind the credential: a browser login's user, a
    /// token's owner. Four-eyes compares these.
    pub fn person(&self) -> Person {
        match &self.credential {
            Credential::Cookie { .. } => Person::user(&self.user),
            Credential::Bearer {
                owner: Some(owner), ..
            } => owner.clone(),
            Credential::Bearer {
                name, owner: None, ..
            } => Person::token(name),
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
                if caller.password_change == PasswordChange::Required
                    && !WHILE_PASSWORD_CHANGE_REQUIRED.contains(&parts.uri.path())
                {
                    return Err(ApiError::PasswordChangeRequired);
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
            name: stored.name,
            owner: stored.owner.as_deref().map(Person::from_stored),
        },
        password_change: PasswordChange::NotRequired,
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
        password_change: user.password_change,
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
    fn actors_and_people_behind_credentials() {
        let cookie = Caller {
            user: "alice".into(),
            role: Role::Admin,
            credential: Credential::Cookie {
                id_hash: "h".into(),
                csrf_token: "c".into(),
            },
            password_change: PasswordChange::NotRequired,
        };
        let bearer = |owner: Option<Person>| Caller {
            user: "token:ci".into(),
            role: Role::Approver,
            credential: Credential::Bearer {
                token_id: "tok-1".into(),
                name: "ci".into(),
                owner,
            },
            password_change: PasswordChange::NotRequired,
        };
        let table = [
            (cookie, "user:alice", "user:alice"),
            (
                bearer(Some(Person::user("alice"))),
                "token:ci (user:alice)",
                "user:alice",
            ),
            (bearer(None), "token:ci", "token:ci"),
        ];
        for (caller, actor, person) in table {
            assert_eq!(caller.actor(), actor);
            assert_eq!(caller.person().as_str(), person);
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
