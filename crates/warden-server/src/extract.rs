//! Request bodies: JSON (an empty body reads as `{}`), at most 1 MiB,
//! unknown fields refused, and every failure in the API's error shape
//! with the field at fault when serde names one.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::header;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let json_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                let essence = v
                    .split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase();
                essence == "application/json" || essence.ends_with("+json")
            });
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::PayloadTooLarge
                } else {
                    ApiError::invalid(format!("cannot read the body: {rejection}"))
                }
            })?;
        if bytes.len() > MAX_BODY_BYTES {
            return Err(ApiError::PayloadTooLarge);
        }
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            if json_type != Some(true) {
                return Err(ApiError::invalid(
                    "send the body as JSON (Content-Type: application/json)",
                ));
            }
            &bytes
        };
        serde_json::from_slice(text)
            .map(ApiJson)
            .map_err(|e| parse_error(&e))
    }
}

/// The field serde blames, from its message (`unknown field `x``,
/// `missing field `x``).
fn blamed_field(message: &str) -> Option<String> {
    ["unknown field `", "missing field `", "duplicate field `"]
        .iter()
        .find_map(|prefix| {
            let rest = &message[message.find(prefix)? + prefix.len()..];
            Some(rest[..rest.find('`')?].to_string())
        })
}

fn parse_error(error: &serde_json::Error) -> ApiError {
    let message = error.to_string();
    ApiError::InvalidInput {
        field: blamed_field(&message),
        message: format!("invalid request body: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blamed_field_is_named() {
        let table = [
            ("unknown field `colour`, expected `text`", Some("colour")),
            ("missing field `text` at line 1 column 2", Some("text")),
            ("invalid type: integer `3`, expected a string", None),
            ("unknown field `x", None),
        ];
        for (message, expected) in table {
            assert_eq!(blamed_field(message).as_deref(), expected, "{message}");
        }
    }
}
