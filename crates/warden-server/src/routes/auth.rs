//! Browser login and logout, and who the caller is.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use warden_store::LoginSession;

use crate::api::{Empty, LoginRequest, Me};
use crate::auth::secrets::{new_secret, sha256_hex};
use crate::auth::{
    Caller, Credential, Role, SESSION_COOKIE, Throttle, hash_password, verify_password,
};
use crate::error::{ApiError, ErrorBody};
use crate::extract::ApiJson;
use crate::state::{AppState, CookieSecurity, now_ms};

/// A hash to check unknown users against, so that a missing user takes as
/// long as a wrong password.
fn dummy_hash() -> &'static str {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| hash_password("not-a-real-password").unwrap_or_default())
}

fn cookie(app: &AppState, value: &str, max_age_secs: u64) -> Option<HeaderValue> {
    let secure = match app.cookies {
        CookieSecurity::Secure => "; Secure",
        CookieSecurity::Plain => "",
    };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={value}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_secs}{secure}"
    ))
    .ok()
}

/// Log in with a user name and password: sets the `warden_session` cookie
/// and returns the CSRF token for state-changing requests.
#[utoipa::path(post, path = "/api/auth/login", tag = "auth", request_body = LoginRequest,
    responses(
        (status = 200, description = "Logged in; cookie set", body = Me),
        (status = 401, description = "Wrong user name or password", body = ErrorBody),
        (status = 429, description = "Too many failures", body = ErrorBody),
    ))]
pub async fn login(
    State(app): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    ApiJson(body): ApiJson<LoginRequest>,
) -> Result<Response, ApiError> {
    let ip = peer.ip().to_string();
    if let Throttle::Blocked { retry_after_secs } = app.limiter.check(&ip, &body.username, now_ms())
    {
        crate::metrics::login("throttled");
        return Err(ApiError::RateLimited { retry_after_secs });
    }
    let lookup = Arc::clone(&app);
    let username = body.username.clone();
    let verified = tokio::task::spawn_blocking(move || -> Result<Option<Role>, ApiError> {
        let user = lookup.store.user(&username).map_err(ApiError::store)?;
        let hash = user
            .as_ref()
            .map_or(dummy_hash(), |u| u.password_hash.as_str());
        let matches = verify_password(&body.password, hash);
        Ok(match (user, matches) {
            (Some(user), true) => user.role.parse::<Role>().ok(),
            _ => None,
        })
    })
    .await
    .map_err(|e| ApiError::Unavailable(format!("login failed: {e}")))??;
    let Some(role) = verified else {
        app.limiter.record_failure(&ip, &body.username, now_ms());
        crate::metrics::login("failed");
        return Err(ApiError::Unauthenticated(
            "wrong user name or password".into(),
        ));
    };
    app.limiter.record_success(&body.username);
    crate::metrics::login("ok");
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
    caller: Caller,
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

/// Who is calling, with the CSRF token of a browser login.
#[utoipa::path(get, path = "/api/auth/me", tag = "auth",
    responses((status = 200, description = "The caller", body = Me)))]
pub async fn me(caller: Caller) -> Json<Me> {
    Json(Me {
        csrf_token: caller.csrf_token().map(str::to_string),
        user: caller.user,
        role: caller.role,
    })
}
