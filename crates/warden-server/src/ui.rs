//! The web UI (`spec/ui.md`): plain HTML, one stylesheet and a handful of
//! JavaScript modules from `ui/`, embedded in the binary and served at `/`
//! and `/assets/*`. No build step and nothing from elsewhere: the page
//! runs under a strict Content-Security-Policy (no inline script or style,
//! same origin only). The page learns the server's control-level ceiling
//! from a `meta` element filled in here.

use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::state::AppState;

pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const INDEX: &str = include_str!("../ui/index.html");
const MAX_LEVEL_SLOT: &str = "{{MAX_CONTROL_LEVEL}}";

/// An embedded asset: path under `/assets/`, content type, bytes.
type Asset = (&'static str, &'static str, &'static [u8]);

const JS: &str = "text/javascript; charset=utf-8";

macro_rules! js {
    ($name:literal) => {
        (
            concat!("js/", $name),
            JS,
            include_bytes!(concat!("../ui/js/", $name)),
        )
    };
}

/// The UI's files.
const ASSETS: &[Asset] = &[
    (
        "app.css",
        "text/css; charset=utf-8",
        include_bytes!("../ui/app.css"),
    ),
    js!("app.js"),
    js!("api.js"),
    js!("dom.js"),
    js!("markdown.js"),
    js!("sse.js"),
    js!("chat.js"),
    js!("transcript.js"),
    js!("toolcard.js"),
    js!("mentions.js"),
    js!("approvals.js"),
    js!("diff.js"),
    js!("inventory.js"),
    js!("audit.js"),
    js!("usage.js"),
];

/// Each asset's ETag (a hash of its bytes), computed once.
fn etags() -> &'static [String] {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    TAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|(_, _, bytes)| format!("\"{}\"", &hex::encode(Sha256::digest(bytes))[..20]))
            .collect()
    })
}

fn with_csp(mut response: Response) -> Response {
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    response
}

/// The page, with the server's control-level ceiling filled in.
fn index_html(app: &AppState) -> String {
    INDEX.replace(MAX_LEVEL_SLOT, app.config.max_control_level.as_str())
}

async fn index(State(app): State<Arc<AppState>>) -> Response {
    with_csp(
        (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            index_html(&app),
        )
            .into_response(),
    )
}

async fn asset(Path(path): Path<String>, headers: HeaderMap) -> Response {
    let Some(index) = ASSETS.iter().position(|(name, _, _)| *name == path) else {
        return with_csp(ApiError::NotFound(format!("no asset `{path}`")).into_response());
    };
    let (_, content_type, bytes) = ASSETS[index];
    let etag = &etags()[index];
    // Revalidated on every load (no-cache), answered 304 when unchanged.
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == etag));
    let status = if unchanged {
        StatusCode::NOT_MODIFIED
    } else {
        StatusCode::OK
    };
    let body: &'static [u8] = if unchanged { &[] } else { bytes };
    let mut response = (
        status,
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    with_csp(response)
}

/// The UI's routes, merged beside the API.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(index))
        .route("/assets/{*path}", get(asset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8]) -> &str {
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    #[test]
    fn the_first_load_stays_under_200_kb() {
        let total: usize = INDEX.len() + ASSETS.iter().map(|(_, _, b)| b.len()).sum::<usize>();
        assert!(total <= 200 * 1024, "the UI weighs {total} bytes");
    }

    #[test]
    fn every_file_is_small_and_has_one_purpose_comment() {
        for (name, _, bytes) in ASSETS {
            let lines = text(bytes).lines().count();
            assert!(lines < 600, "{name} has {lines} lines");
            assert!(
                text(bytes).starts_with("//") || text(bytes).starts_with("/*"),
                "{name} should open with what it is for"
            );
        }
    }

    /// Every `/assets/…` the page names and every module a module imports
    /// is embedded.
    #[test]
    fn every_referenced_asset_is_embedded() {
        let embedded: Vec<&str> = ASSETS.iter().map(|(name, _, _)| *name).collect();
        let mut referenced = Vec::new();
        for part in INDEX.split("\"/assets/").skip(1) {
            referenced.push(part.split('"').next().unwrap_or_default().to_string());
        }
        for (name, _, bytes) in ASSETS.iter().filter(|(n, _, _)| n.ends_with(".js")) {
            for line in text(bytes).lines().filter(|l| l.starts_with("import ")) {
                let module = line.split('\'').nth(1).unwrap_or_default();
                let module = module.trim_start_matches("./");
                assert!(!module.is_empty(), "{name}: {line}");
                referenced.push(format!("js/{module}"));
            }
        }
        assert!(referenced.len() > ASSETS.len());
        for path in referenced {
            assert!(embedded.contains(&path.as_str()), "{path} is not embedded");
        }
    }

    /// The CSP forbids inline code; the page must not need any.
    #[test]
    fn the_page_has_no_inline_script_or_style() {
        let lower = INDEX.to_lowercase();
        assert!(!lower.contains("<style"));
        assert!(!lower.contains(" style="));
        assert!(!lower.contains(" onclick=") && !lower.contains(" onload="));
        for script in lower.split("<script").skip(1) {
            assert!(script.trim_start().contains("src=\"/assets/"), "{script}");
            let body = script.split('>').nth(1).unwrap_or_default();
            assert!(body.starts_with("</script"), "inline script: {script}");
        }
    }

    /// Text from the model, tools and the inventory only ever becomes text
    /// nodes: no module parses HTML or evaluates strings.
    #[test]
    fn no_module_parses_html_or_evaluates_strings() {
        let forbidden = [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
            "createContextualFragment",
            "DOMParser",
            "srcdoc",
        ];
        for (name, _, bytes) in ASSETS {
            for word in forbidden {
                assert!(!text(bytes).contains(word), "{name} uses {word}");
            }
        }
    }

    #[test]
    fn the_ceiling_slot_is_in_the_page() {
        assert_eq!(INDEX.matches(MAX_LEVEL_SLOT).count(), 1);
    }
}
