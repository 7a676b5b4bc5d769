//! Where the web UI is mounted (`/` and `/assets/*`, `spec/ui.md`). Until
//! the UI lands this serves a placeholder page. Everything here gets a
//! strict Content-Security-Policy: no inline script, same-origin only.

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::error::ApiError;

pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const PLACEHOLDER: &str = "<!doctype html>
<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Warden</title></head>
<body><h1>Warden</h1><p>The web UI is not built into this server yet. The HTTP API is at
<a href=\"/api/openapi.json\">/api/openapi.json</a>.</p></body></html>
";

/// An embedded asset: path under `/assets/`, content type, bytes.
type Asset = (&'static str, &'static str, &'static [u8]);

/// The UI's files (empty until the UI is built in).
const ASSETS: &[Asset] = &[];

fn with_csp(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    response
}

async fn index() -> Response {
    with_csp(
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            PLACEHOLDER,
        )
            .into_response(),
    )
}

async fn asset(axum::extract::Path(path): axum::extract::Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == path) {
        Some((_, content_type, bytes)) => with_csp(
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, *content_type)],
                *bytes,
            )
                .into_response(),
        ),
        None => with_csp(ApiError::NotFound(format!("no asset `{path}`")).into_response()),
    }
}

/// The UI's routes, merged beside the API.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/assets/{*path}", get(asset))
}
