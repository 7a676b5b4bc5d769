//! The API's one error shape (`spec/api.md` "Errors"): any status ≥ 400
//! answers `{"error": {"code", "message", "field"?, "state"?}}`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

/// Why a request failed, as the client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiError {
    /// 400 `INVALID_INPUT`, naming the field when one is at fault.
    InvalidInput {
        message: String,
        field: Option<String>,
    },
    /// 401 `UNAUTHENTICATED`.
    Unauthenticated(String),
    /// 403 `FORBIDDEN`: role too low, CSRF missing or wrong, four-eyes rule.
    Forbidden(String),
    /// 403 `PASSWORD_CHANGE_REQUIRED`: a login with a one-time password
    /// must set a new one (`POST /api/auth/password`) first.
    PasswordChangeRequired,
    /// 404 `NOT_FOUND`.
    NotFound(String),
    /// 405: a known path with another method.
    MethodNotAllowed,
    /// 409 `CONFLICT`; `state` says which state was in the way.
    Conflict {
        message: String,
        state: Option<String>,
    },
    /// 413 `PAYLOAD_TOO_LARGE`.
    PayloadTooLarge,
    /// 429 `RATE_LIMITED`, with `Retry-After`.
    RateLimited { retry_after_secs: u64 },
    /// 503 `UNAVAILABLE`: shutting down, or the store failed.
    Unavailable(String),
}

/// The body of every error response.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// `INVALID_INPUT`, `UNAUTHENTICATED`, `FORBIDDEN`,
    /// `PASSWORD_CHANGE_REQUIRED`, `NOT_FOUND`, `CONFLICT`,
    /// `PAYLOAD_TOO_LARGE`, `RATE_LIMITED` or `UNAVAILABLE`.
    pub code: String,
    pub message: String,
    /// The request field at fault (400).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The state that made the request conflict (409).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

impl ApiError {
    pub fn invalid(message: impl Into<String>) -> Self {
        ApiError::InvalidInput {
            message: message.into(),
            field: None,
        }
    }

    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        ApiError::InvalidInput {
            message: message.into(),
            field: Some(field.to_string()),
        }
    }

    pub fn conflict(message: impl Into<String>, state: Option<&str>) -> Self {
        ApiError::Conflict {
            message: message.into(),
            state: state.map(str::to_string),
        }
    }

    /// The store failed: the client may retry later.
    pub fn store(error: impl std::fmt::Display) -> Self {
        tracing::error!(%error, "store failure");
        ApiError::Unavailable("the store is unavailable".to_string())
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::InvalidInput { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) | ApiError::PasswordChangeRequired => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            ApiError::InvalidInput { .. } => "INVALID_INPUT",
            ApiError::Unauthenticated(_) => "UNAUTHENTICATED",
            ApiError::Forbidden(_) => "FORBIDDEN",
            ApiError::PasswordChangeRequired => "PASSWORD_CHANGE_REQUIRED",
            ApiError::NotFound(_) => "NOT_FOUND",
            ApiError::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ApiError::Conflict { .. } => "CONFLICT",
            ApiError::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ApiError::RateLimited { .. } => "RATE_LIMITED",
            ApiError::Unavailable(_) => "UNAVAILABLE",
        }
    }

    fn body(&self) -> ErrorBody {
        let (message, field, state) = match self {
            ApiError::InvalidInput { message, field } => (message.clone(), field.clone(), None),
            ApiError::Unauthenticated(m)
            | ApiError::Forbidden(m)
            | ApiError::NotFound(m)
            | ApiError::Unavailable(m) => (m.clone(), None, None),
            ApiError::MethodNotAllowed => (
                "this endpoint does not take that method".to_string(),
                None,
                None,
            ),
            ApiError::PasswordChangeRequired => (
                "this login used a one-time password: set a new one with POST /api/auth/password first"
                    .to_string(),
                None,
                None,
            ),
            ApiError::Conflict { message, state } => (message.clone(), None, state.clone()),
            ApiError::PayloadTooLarge => (
                "the request body is larger than 1 MiB".to_string(),
                None,
                None,
            ),
            ApiError::RateLimited { retry_after_secs } => (
                format!("too many attempts; retry in {retry_after_secs} s"),
                None,
                None,
            ),
        };
        ErrorBody {
            error: ErrorDetail {
                code: self.code().to_string(),
                message,
                field,
                state,
            },
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let body = self.body();
        write!(f, "{}: {}", body.error.code, body.error.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), axum::Json(self.body())).into_response();
        if let ApiError::RateLimited { retry_after_secs } = self {
            if let Ok(value) = HeaderValue::from_str(&retry_after_secs.max(1).to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

/// The API error for a bare status produced outside our handlers (axum's
/// own rejections, the fallback), so every error has the same shape.
pub fn for_status(status: StatusCode) -> Option<ApiError> {
    Some(match status.as_u16() {
        400 | 411 | 415 | 422 => ApiError::invalid("the request is malformed"),
        401 => ApiError::Unauthenticated("credentials are required".into()),
        403 => ApiError::Forbidden("not allowed".into()),
        404 => ApiError::NotFound("no such endpoint".into()),
        405 => ApiError::MethodNotAllowed,
        413 => ApiError::PayloadTooLarge,
        429 => ApiError::RateLimited {
            retry_after_secs: 1,
        },
        s if s >= 400 => ApiError::Unavailable("the server could not answer".into()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_of(error: ApiError) -> (StatusCode, serde_json::Value, Option<String>) {
        let response = error.into_response();
        let status = response.status();
        let retry = response
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        (status, serde_json::from_slice(&bytes).unwrap(), retry)
    }

    #[tokio::test]
    async fn every_error_has_the_spec_shape() {
        let cases = [
            (
                ApiError::invalid_field("text", "missing"),
                400,
                "INVALID_INPUT",
            ),
            (
                ApiError::Unauthenticated("x".into()),
                401,
                "UNAUTHENTICATED",
            ),
            (ApiError::Forbidden("x".into()), 403, "FORBIDDEN"),
            (
                ApiError::PasswordChangeRequired,
                403,
                "PASSWORD_CHANGE_REQUIRED",
            ),
            (ApiError::NotFound("x".into()), 404, "NOT_FOUND"),
            (ApiError::conflict("x", Some("approved")), 409, "CONFLICT"),
            (ApiError::PayloadTooLarge, 413, "PAYLOAD_TOO_LARGE"),
            (
                ApiError::RateLimited {
                    retry_after_secs: 42,
                },
                429,
                "RATE_LIMITED",
            ),
            (ApiError::Unavailable("x".into()), 503, "UNAVAILABLE"),
        ];
        for (error, status, code) in cases {
            let (got_status, body, retry) = body_of(error).await;
            assert_eq!(got_status.as_u16(), status);
            assert_eq!(body["error"]["code"], code);
            assert!(body["error"]["message"].is_string());
            match status {
                400 => assert_eq!(body["error"]["field"], "text"),
                409 => assert_eq!(body["error"]["state"], "approved"),
                429 => assert_eq!(retry.as_deref(), Some("42")),
                _ => assert!(body["error"].get("field").is_none() && retry.is_none()),
            }
        }
    }

    #[test]
    fn bare_statuses_map_to_spec_codes() {
        assert_eq!(
            for_status(StatusCode::UNSUPPORTED_MEDIA_TYPE)
                .unwrap()
                .code(),
            "INVALID_INPUT"
        );
        assert_eq!(
            for_status(StatusCode::PAYLOAD_TOO_LARGE).unwrap().code(),
            "PAYLOAD_TOO_LARGE"
        );
        assert_eq!(
            for_status(StatusCode::NOT_FOUND).unwrap().code(),
            "NOT_FOUND"
        );
        assert!(for_status(StatusCode::OK).is_none());
    }
}
