//! The HTTP API: every endpoint of `spec/api.md`, registered together with
//! its OpenAPI description (utoipa-axum), so the router and the document
//! are built from the same list and cannot drift.

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use utoipa::OpenApi;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, Required, ResponseBuilder};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{self, ApiError};
use crate::extract::MAX_BODY_BYTES;
use crate::state::{AppState, Transport};

mod agents;
mod approvals;
mod audit;
mod auth;
mod events;
mod inventory;
mod proxmox;
mod sessions;
mod system;
mod tokens;
mod usage;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Warden",
        version = "1",
        description = "The HTTP API of `warden serve` (spec/api.md)."
    ),
    components(schemas(error::ErrorBody, error::ErrorDetail))
)]
struct ApiDoc;

/// Operations anyone may call.
/// (Agents enroll with an enrollment token and connect with their key.)
const PUBLIC: &[&str] = &[
    "/api/health",
    "/api/openapi.json",
    "/api/auth/login",
    "/api/agents/enroll",
    "/api/agents/connect",
];

/// The API routes with their OpenAPI description.
fn api() -> OpenApiRouter<Arc<AppState>> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(system::health))
        .routes(routes!(system::openapi))
        .routes(routes!(system::metrics))
        .routes(routes!(auth::login))
        .routes(routes!(auth::logout))
        .routes(routes!(auth::me))
        .routes(routes!(auth::change_password))
        .routes(routes!(inventory::list))
        .routes(routes!(inventory::get))
        .routes(routes!(sessions::create, sessions::list))
        .routes(routes!(sessions::get, sessions::patch))
        .routes(routes!(sessions::post_message))
        .routes(routes!(sessions::cancel))
        .routes(routes!(sessions::reset))
        .routes(routes!(events::stream))
        .routes(routes!(events::installation))
        .routes(routes!(approvals::list))
        .routes(routes!(approvals::get))
        .routes(routes!(approvals::approve))
        .routes(routes!(approvals::deny))
        .routes(routes!(approvals::run))
        .routes(routes!(audit::list))
        .routes(routes!(audit::verify))
        .routes(routes!(usage::list))
        .routes(routes!(tokens::create, tokens::list))
        .routes(routes!(tokens::revoke))
        .routes(routes!(proxmox::list, proxmox::add))
        .routes(routes!(proxmox::remove))
        .routes(routes!(agents::create_token))
        .routes(routes!(agents::enroll))
        .routes(routes!(agents::list))
        .routes(routes!(agents::revoke))
        .routes(routes!(agents::connect))
}

/// The standard error responses, documented on every operation.
fn error_responses(openapi: &mut utoipa::openapi::OpenApi) {
    let error_body = || {
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name("ErrorBody")))
            .build()
    };
    let statuses: &[(&str, &str)] = &[
        ("400", "INVALID_INPUT"),
        ("401", "UNAUTHENTICATED"),
        (
            "403",
            "FORBIDDEN, or PASSWORD_CHANGE_REQUIRED (a one-time password must be changed first)",
        ),
        ("404", "NOT_FOUND"),
        ("405", "METHOD_NOT_ALLOWED"),
        ("409", "CONFLICT"),
        ("413", "PAYLOAD_TOO_LARGE"),
        ("429", "RATE_LIMITED (see Retry-After)"),
        ("503", "UNAVAILABLE"),
    ];
    openapi
        .components
        .get_or_insert_with(Default::default)
        .add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("An API token (`warden token create`)"))
                    .build(),
            ),
        );
    if let Some(components) = openapi.components.as_mut() {
        components.add_security_scheme(
            "cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                "warden_session",
                "A browser login; state-changing requests also send X-CSRF-Token",
            ))),
        );
    }
    for (path, item) in openapi.paths.paths.iter_mut() {
        let public = PUBLIC.contains(&path.as_str());
        for operation in [
            item.get.as_mut(),
            item.post.as_mut(),
            item.put.as_mut(),
            item.patch.as_mut(),
            item.delete.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            for (status, code) in statuses {
                operation
                    .responses
                    .responses
                    .entry((*status).to_string())
                    .or_insert_with(|| {
                        ResponseBuilder::new()
                            .description(*code)
                            .content("application/json", error_body())
                            .build()
                            .into()
                    });
            }
            if !public {
                operation.security = Some(vec![
                    utoipa::openapi::security::SecurityRequirement::new(
                        "bearer",
                        Vec::<String>::new(),
                    ),
                    utoipa::openapi::security::SecurityRequirement::new(
                        "cookie",
                        Vec::<String>::new(),
                    ),
                ]);
            }
            if let Some(utoipa::openapi::RefOr::T(body)) = operation.request_body.as_mut() {
                if body.required.is_none() {
                    body.required = Some(Required::True);
                }
            }
        }
    }
}

/// The API router and its OpenAPI document.
pub fn build() -> (Router<Arc<AppState>>, utoipa::openapi::OpenApi) {
    let (router, mut openapi) = api().split_for_parts();
    error_responses(&mut openapi);
    (router, openapi)
}

/// Every error in the API's shape: axum's own rejections and the fallback
/// answer bare statuses; they are rewritten here.
async fn json_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if status.as_u16() < 400 || is_json {
        return response;
    }
    let csp = response
        .headers()
        .get(header::CONTENT_SECURITY_POLICY)
        .cloned();
    match error::for_status(status) {
        Some(error) => {
            let mut rewritten = error.into_response();
            if let Some(csp) = csp {
                rewritten
                    .headers_mut()
                    .insert(header::CONTENT_SECURITY_POLICY, csp);
            }
            rewritten
        }
        None => response,
    }
}

/// A year; no `includeSubDomains`: other names under this host's domain
/// are not Warden's to decide.
const HSTS: &str = "max-age=31536000";

/// Headers on every response (HSTS under TLS).
async fn security_headers(
    State(app): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    match app.transport {
        Transport::Tls => {
            headers.insert(
                header::STRICT_TRANSPORT_SECURITY,
                HeaderValue::from_static(HSTS),
            );
        }
        Transport::Plain => {}
    }
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if api && !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

async fn not_found() -> ApiError {
    ApiError::NotFound("no such endpoint".into())
}

/// The whole application: API, UI, limits, error shapes, headers, metrics.
pub fn app(router: Router<Arc<AppState>>, state: Arc<AppState>) -> Router {
    router
        .merge(crate::ui::router())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(json_errors))
        .layer(middleware::from_fn(crate::metrics::track_requests))
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            security_headers,
        ))
        .with_state(state)
}
