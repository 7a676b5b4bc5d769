//! The envelope every tool call returns (DESIGN invariant 6):
//! `{ok, data?, error?{code, message, blocked, failed, retryable,
//! details{recovery_hint, auto_recoverable, …}}, meta?}`. Absent optional
//! parts are omitted rather than `null`, so the model sees only what is there.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::codes::ErrorCode;
pub use crate::tool_error::{ErrorDetails, ToolError};

/// What every tool returns, whoever called it (LLM, router, UI, CLI, MCP).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResponse {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ResponseMeta>,
}

impl ToolResponse {
    /// `{ok: true, data}`.
    pub fn success(data: Value) -> Self {
        ToolResponse {
            ok: true,
            data: Some(data),
            error: None,
            meta: None,
        }
    }

    /// `{ok: false, error}`.
    pub fn failure(error: ToolError) -> Self {
        ToolResponse {
            ok: false,
            data: None,
            error: Some(error),
            meta: None,
        }
    }

    pub fn with_meta(mut self, meta: ResponseMeta) -> Self {
        self.meta = Some(meta);
        self
    }

    /// The error's code, if the call did not succeed.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(|e| e.code)
    }

    /// A gate refused the call: nothing ran, so the FSM must not move.
    pub fn is_blocked(&self) -> bool {
        self.error.as_ref().is_some_and(|e| e.blocked)
    }
}

impl From<ToolError> for ToolResponse {
    fn from(error: ToolError) -> Self {
        ToolResponse::failure(error)
    }
}

/// How the call was answered. `cached` and `truncated` are always present
/// because the model must not mistake a cached or cut answer for a full live one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResponseMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Answered from the knowledge cache instead of running again.
    #[serde(default)]
    pub cached: bool,
    /// How old a cached answer is, in seconds (answers from it say so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_age_secs: Option<u64>,
    /// The canonical id of the resource the call acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Output was cut to the size limit (head and tail kept).
    #[serde(default)]
    pub truncated: bool,
    /// The call ran but its audit record could not be written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn success_omits_absent_fields() {
        let r = ToolResponse::success(json!({"stdout": "ok"}));
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"ok": true, "data": {"stdout": "ok"}})
        );
        assert!(!r.is_blocked());
        assert_eq!(r.error_code(), None);
    }

    #[test]
    fn errors_have_the_documented_shape() {
        let e = ToolError::new(ErrorCode::StrictResolution, "web1 was never discovered")
            .with_hint("call query get first")
            .with_detail("suggestions", json!(["web-1"]));
        let r = ToolResponse::failure(e);
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({
                "ok": false,
                "error": {
                    "code": "STRICT_RESOLUTION",
                    "message": "web1 was never discovered",
                    "blocked": true,
                    "failed": false,
                    "retryable": false,
                    "details": {"recovery_hint": "call query get first", "auto_recoverable": false, "suggestions": ["web-1"]}
                }
            })
        );
        let back: ToolResponse = serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.error_code(), Some(ErrorCode::StrictResolution));
        assert!(back.is_blocked());
    }

    #[test]
    fn meta_is_serialised_with_its_flags() {
        let r = ToolResponse::success(json!("up 3 days")).with_meta(ResponseMeta {
            duration_ms: Some(12),
            target: Some("host:web1".into()),
            ..ResponseMeta::default()
        });
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({
                "ok": true,
                "data": "up 3 days",
                "meta": {"duration_ms": 12, "cached": false, "target": "host:web1", "truncated": false}
            })
        );
        assert_eq!(serde_json::from_value::<ToolResponse>(v).unwrap(), r);
        let full = ResponseMeta {
            duration_ms: None,
            cached: true,
            cached_age_secs: Some(42),
            target: None,
            truncated: true,
            audit_error: Some("disk full".into()),
        };
        let v = serde_json::to_value(&full).unwrap();
        assert_eq!(
            v,
            json!({"cached": true, "cached_age_secs": 42, "truncated": true, "audit_error": "disk full"})
        );
        assert_eq!(serde_json::from_value::<ResponseMeta>(v).unwrap(), full);
        assert_eq!(
            serde_json::from_value::<ResponseMeta>(json!({})).unwrap(),
            ResponseMeta::default()
        );
    }

    #[test]
    fn a_failed_call_is_not_blocked() {
        let r: ToolResponse = ToolError::unavailable("pve1 unreachable").into();
        assert!(!r.ok && !r.is_blocked());
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({
                "ok": false,
                "error": {
                    "code": "UNAVAILABLE",
                    "message": "pve1 unreachable",
                    "blocked": false,
                    "failed": true,
                    "retryable": true,
                    "details": {"auto_recoverable": false}
                }
            })
        );
    }
}
