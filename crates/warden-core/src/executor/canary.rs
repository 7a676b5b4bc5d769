//! The last step of every call's result, before anything keeps, shows,
//! streams or sends it: an output holding one of Warden's own secrets (in
//! any encoding [`crate::redact::known`] knows) is replaced, whole, by a
//! `SECRET_IN_OUTPUT` error naming the secret's label; the call is audited
//! as `secret_withheld`, a security event.

use serde_json::Value;
use warden_protocol::{ToolError, ToolResponse};

use crate::redact::known::{Found, KnownSecrets};

/// The audit decision of a call whose output was withheld.
pub(super) const WITHHELD: &str = "secret_withheld";

/// `result`, or the error that replaces it and what was found (counted
/// and logged: which secret, never its value).
pub(super) fn withhold(
    known: &KnownSecrets,
    result: Result<Value, ToolError>,
    session: &str,
    tool: &str,
) -> (Result<Value, ToolError>, Option<Found>) {
    if known.is_empty() {
        return (result, None);
    }
    let found = match &result {
        Ok(data) => known.find_in_json(data),
        // An error's message and details may quote the output too.
        Err(error) => serde_json::to_value(error)
            .map_or_else(|_| known.find(&error.message), |v| known.find_in_json(&v)),
    };
    match found {
        None => (result, None),
        Some(found) => {
            crate::telemetry::secret_withheld(tool);
            tracing::warn!(
                session,
                tool,
                secret = %found.label,
                encoding = %found.encoding,
                "a tool output held one of Warden's own secrets: withheld"
            );
            let error = ToolError::secret_in_output(found.message()).with_hint(
                "Warden's own secrets are never shown: answer without this output, and do not try to read them another way",
            );
            (Err(error), Some(found))
        }
    }
}

/// Does a kept response hold a secret registered since?
pub(super) fn holds_known_secret(known: &KnownSecrets, response: &ToolResponse) -> bool {
    !known.is_empty()
        && serde_json::to_value(response).is_ok_and(|v| known.find_in_json(&v).is_some())
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use warden_protocol::ErrorCode;

    use super::*;

    #[test]
    fn an_output_with_a_known_secret_is_replaced_whole() {
        let mut known = KnownSecrets::new();
        known
            .add("model API key", b"sk-test-0123456789abcdefXYZ")
            .unwrap();
        let (result, found) = withhold(
            &known,
            Ok(json!({"stdout": "c2stdGVzdC0wMTIzNDU2Nzg5YWJjZGVmWFla\n", "exit_code": 0})),
            "s",
            "read",
        );
        let error = result.unwrap_err();
        assert_eq!(error.code, ErrorCode::SecretInOutput);
        assert_eq!(
            error.message,
            "the output contained Warden's model API key (base64); it was withheld"
        );
        assert!(error.failed && !error.blocked);
        assert_eq!(found.unwrap().label, "model API key");
        let failed = Err(ToolError::execution_failed(
            "exit 1: sk-test-0123456789abcdefXYZ",
        ));
        assert!(withhold(&known, failed, "s", "read").1.is_some());
        let fine = Ok(json!({"stdout": "hello"}));
        assert_eq!(withhold(&known, fine.clone(), "s", "read").0, fine);
        assert_eq!(
            withhold(&KnownSecrets::new(), fine.clone(), "s", "read").0,
            fine
        );
    }
}
