//! API tokens (admin): create (the secret shown once), list, revoke.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;

use crate::api::{CreateToken, CreatedToken, TokenView, rfc3339};
use crate::auth::{
    AccountError, Authorized, TokenExpiry, TokenRequest, create_token, needs, revoke_token,
};
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::state::{AppState, now_ms};

fn account_error(error: AccountError) -> ApiError {
    match error {
        AccountError::InvalidName(_) | AccountError::ReservedName(_) => {
            ApiError::invalid_field("name", error.to_string())
        }
        AccountError::Store(e) => ApiError::store(e),
        other => ApiError::Unavailable(other.to_string()),
    }
}

/// Create a token; its secret is in this response only. It belongs to the
/// person who creates it (a token's owner for a token made with a token).
#[utoipa::path(post, path = "/api/tokens", tag = "tokens", request_body = CreateToken,
    responses((status = 201, description = "Created", body = CreatedToken)))]
pub async fn create(
    State(app): State<Arc<AppState>>,
    caller: Authorized<needs::Admin>,
    ApiJson(body): ApiJson<CreateToken>,
) -> Result<(StatusCode, Json<CreatedToken>), ApiError> {
    let expiry = match body.expires_in_days {
        None => TokenExpiry::Never,
        Some(days) if (1..=3650).contains(&days) => {
            TokenExpiry::After(Duration::from_secs(u64::from(days) * 86_400))
        }
        Some(_) => {
            return Err(ApiError::invalid_field(
                "expires_in_days",
                "must be between 1 and 3650",
            ));
        }
    };
    let owner = caller.person();
    let created_by = caller.actor();
    let token = create_token(
        &app.store,
        &TokenRequest {
            name: &body.name,
            role: body.role,
            expiry,
            owner: &owner,
            created_by: &created_by,
        },
        now_ms(),
    )
    .map_err(account_error)?;
    Ok((
        StatusCode::CREATED,
        Json(CreatedToken {
            id: token.id,
            token: token.secret,
        }),
    ))
}

/// Every token, newest first (never the secret).
#[utoipa::path(get, path = "/api/tokens", tag = "tokens",
    responses((status = 200, description = "Tokens", body = Vec<TokenView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Admin>,
) -> Result<Json<Vec<TokenView>>, ApiError> {
    let tokens = app.store.api_tokens().map_err(ApiError::store)?;
    Ok(Json(
        tokens
            .into_iter()
            .map(|t| TokenView {
                id: t.id,
                name: t.name,
                role: t.role,
                created_at: rfc3339(t.created_at_ms),
                created_by: t.created_by,
                owner: t.owner,
                expires_at: t.expires_at_ms.map(rfc3339),
                revoked_at: t.revoked_at_ms.map(rfc3339),
                last_used_at: t.last_used_at_ms.map(rfc3339),
            })
            .collect(),
    ))
}

/// Revoke a token: it stops working at once.
#[utoipa::path(delete, path = "/api/tokens/{id}", tag = "tokens",
    params(("id" = String, Path, description = "Token id")),
    responses((status = 204, description = "Revoked")))]
pub async fn revoke(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Admin>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if revoke_token(&app.store, &id, now_ms()).map_err(account_error)? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::NotFound(format!("no token `{id}`")))
    }
}
