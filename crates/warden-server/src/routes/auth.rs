//! Browser login and logout, who the caller is, and a login changing its
//! own password (which a one-time password must do first).

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use warden_store::{LoginSession, PasswordChange};

use crate::api::{ChangePassword, Empty, LoginRequest, Me};
use crate::auth::secrets::{new_secret, sha256_hex};
use crate::auth::{
    AccountError, Authorized, Caller, Credential, FIRST_ADMIN, PasswordError, Role, SESSION_COOKIE,
    Throttle, hash_password, needs, remove_admin_password_file, set_password, verify_password,
};
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::state::{AppState, HumanAction, Transport, now_ms};

/// A hash to check unknown users against, so that a missing user takes as
/// long as a wrong password.
fn dummy_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| hash_password("not-a-real-password").unwrap_or_default())
}

fn cookie(app: &AppState, value: &str, max_age_secs: u64) -> Option<HeaderValue> {
    let secure = match app.transport {
        Transport::Tls => "; Secure",
        Transport::Plain => "",
    };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_secs}{secure}"
    ))
    .ok()
}

/// 429 while this user name from this address (or this address) waits.
fn throttled(app: &AppState, address: &str, user: &str) -> Result<(), ApiError> {
    match app.limiter.check(address, user, now_ms()) {
        Throttle::Allowed => Ok(()),
        Throttle::Blocked { retry_after_secs } => {
            crate::metrics::login("throttled");
            Err(ApiError::RateLimited { retry_after_secs })
        }
    }
}

/// A wrong password: counted, and any wait it starts logged and counted.
fn failed(app: &AppState, address: &str, user: &str) {
    crate::metrics::login("failed");
    for lockout in app.limiter.record_failure(address, user, now_ms()) {
        tracing::warn!(
            user,
            address,
            scope = lockout.scope.as_str(),
            failures = lockout.failures,
            wait_secs = lockout.wait_secs,
            "login throttled after repeated failures"
        );
        crate::metrics::login_lockout(lockout.scope);
    }
}

/// The user's role and whether their password is one-time, if `password`
/// is theirs (argon2id, off the async workers).
async fn check_password(
    app: &Arc<AppState>,
    username: &str,
    password: String,
) -> Result<Option<(Role, PasswordChange)>, ApiError> {
    let lookup = Arc::clone(app);
    let username = username.to_string();
    tokio::task::spawn_blocking(move || -> Result<_, ApiError> {
        let user = lookup.store.user(&username).map_err(ApiError::store)?;
        let hash = user
            .as_ref()
            .map_or(dummy_hash(), |u| u.password_hash.as_str());
        let matches = verify_password(&password, hash);
        Ok(match (user, matches) {
            (Some(user), true) => user
                .role
                .parse::<Role>()
                .ok()
                .map(|role| (role, user.password_change)),
            _ => None,
        })
    })
    .await
    .map_err(|e| ApiError::Unavailable(format!("checking the password failed: {e}")))?
}

/// Log in with a user name and password: sets the `warden_session` cookie
/// and returns the CSRF token for state-changing requests. A one-time
/// password (the first admin's) works once: its file in the data directory
/// is removed now, and this login may only set a new password.
#[utoipa::path(post, path = "/api/auth/login", tag = "auth", request_body = LoginRequest,
    responses(
        (status = 200, description = "Logged in; cookie set", body = Me),
        (status = 401, description = "Wrong user name or password", body = ErrorBody),
        (status = 429, description = "Too many failures from this address", body = ErrorBody),
    ))]
pub async fn login(
    State(app): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    ApiJson(body): ApiJson<LoginRequest>,
) -> Result<Response, ApiError> {
    let address = peer.ip().to_string();
    throttled(&app, &address, &body.username)?;
    let Some((role, password_change)) = check_password(&app, &body.username, body.password).await?
    else {
        failed(&app, &address, &body.username);
        return Err(ApiError::Unauthenticated(
            "wrong user name or password".into(),
        ));
    };
    app.limiter.record_success(&address, &body.username);
    crate::metrics::login("ok");
    if password_change == PasswordChange::Required && body.username == FIRST_ADMIN {
        match remove_admin_password_file(&app.config.data_dir) {
            Ok(true) => tracing::warn!(
                "the first admin logged in with the one-time password: its file is removed, and a new password must be set"
            ),
            Ok(false) => {}
            Err(error) => tracing::error!(%error, "cannot remove the one-time password file"),
        }
    }
    let secret = new_secret().map_err(|e| ApiError::Unavailable(e.to_string()))?;
    let csrf_token = new_secret().map_err(|e| ApiError::Unavailable(e.to_string()))?;
    let now = now_ms();
    let ttl_ms = u64::try_from(app.config.login_ttl.as_millis()).unwrap_or(u64::MAX);
    app.store
        .add_login_session(&LoginSession {
            id_hash: sha256_hex(&secret),
            username: body.username.clone(),
            csrf_token: csrf_token.clone(),
            created_at_ms: now,
            expires_at_ms: now.saturating_add(ttl_ms),
        })
        .map_err(ApiError::store)?;
    let mut response = Json(Me {
        user: body.username,
        role,
        csrf_token: Some(csrf_token),
        password_change_required: password_change == PasswordChange::Required,
    })
    .into_response();
    if let Some(value) = cookie(&app, &secret, app.config.login_ttl.as_secs()) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    Ok(response)
}

/// End the browser login (a no-op for bearer tokens).
#[utoipa::path(post, path = "/api/auth/logout", tag = "auth", request_body = Empty,
    responses((status = 204, description = "Logged out")))]
pub async fn logout(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Viewer>,
    ApiJson(_empty): ApiJson<Empty>,
) -> Result<Response, ApiError> {
    let mut response = StatusCode::NO_CONTENT.into_response();
    if let Credential::Cookie { id_hash, .. } = &caller.credential {
        app.store
            .delete_login_session(id_hash)
            .map_err(ApiError::store)?;
        if let Some(value) = cookie(&app, "", 0) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
    }
    Ok(response)
}

fn me_of(caller: &Caller) -> Me {
    Me {
        csrf_token: caller.csrf_token().map(str::to_string),
        user: caller.user.clone(),
        role: caller.role,
        password_change_required: caller.password_change == PasswordChange::Required,
    }
}

/// Who is calling, with the CSRF token of a browser login.
#[utoipa::path(get, path = "/api/auth/me", tag = "auth",
    responses((status = 200, description = "The caller", body = Me)))]
pub async fn me(caller: Authorized<needs::Viewer>) -> Json<Me> {
    Json(me_of(&caller))
}

fn password_error(error: AccountError) -> ApiError {
    match error {
        AccountError::Password(PasswordError::TooShort | PasswordError::TooLong) => {
            ApiError::invalid_field("new_password", error.to_string())
        }
        AccountError::Store(e) => ApiError::store(e),
        other => ApiError::Unavailable(other.to_string()),
    }
}

/// A browser login sets a new password for its user, giving the current
/// one (throttled as logins are). Every other login of the user ends; this
/// one stays. Bearer tokens cannot (`warden user passwd NAME` can).
#[utoipa::path(post, path = "/api/auth/password", tag = "auth", request_body = ChangePassword,
    responses(
        (status = 200, description = "Changed; the user's other logins ended", body = Me),
        (status = 400, description = "The current password is wrong, or the new one unusable", body = ErrorBody),
        (status = 429, description = "Too many wrong current passwords", body = ErrorBody),
    ))]
pub async fn change_password(
    State(app): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    caller: Authorized<needs::Viewer>,
    ApiJson(body): ApiJson<ChangePassword>,
) -> Result<Json<Me>, ApiError> {
    let Credential::Cookie { id_hash, .. } = &caller.credential else {
        return Err(ApiError::Forbidden(
            "a browser login changes its own password; a token cannot (use `warden user passwd NAME`)"
                .into(),
        ));
    };
    let address = peer.ip().to_string();
    let user = caller.user.clone();
    throttled(&app, &address, &user)?;
    if check_password(&app, &user, body.current_password.clone())
        .await?
        .is_none()
    {
        failed(&app, &address, &user);
        return Err(ApiError::invalid_field(
            "current_password",
            "the current password is wrong",
        ));
    }
    app.limiter.record_success(&address, &user);
    if body.new_password == body.current_password {
        return Err(ApiError::invalid_field(
            "new_password",
            "choose a password other than the current one",
        ));
    }
    let store = Arc::clone(&app.store);
    let data_dir = app.config.data_dir.clone();
    let keep = id_hash.clone();
    let name = user.clone();
    tokio::task::spawn_blocking(move || {
        set_password(
            &store,
            &data_dir,
            &name,
            &body.new_password,
            Some(&keep),
            now_ms(),
        )
    })
    .await
    .map_err(|e| ApiError::Unavailable(format!("changing the password failed: {e}")))?
    .map_err(password_error)?;
    app.audit_human(HumanAction {
        session_id: "",
        actor: &caller.actor(),
        tool: "auth",
        target: None,
        decision: "password_changed",
        detail: "the user set a new password; their other logins ended",
    });
    let mut me = me_of(&caller);
    me.password_change_required = false;
    Ok(Json(me))
}
