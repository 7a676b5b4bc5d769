//! What the router proposes to the loop: a [`Call`] (one tool call), a
//! [`Step`] (calls, or the answer), and the arguments most calls share.

use serde_json::{Value, json};
use warden_protocol::Resource;

/// One tool call the router proposes.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub tool: &'static str,
    pub arguments: Value,
}

impl Call {
    pub fn new(tool: &'static str, arguments: Value) -> Self {
        Call { tool, arguments }
    }
}

/// What the router does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Calls(Vec<Call>),
    Answer(String),
    /// The answer to a change that cannot be made, found out before it
    /// was proposed (no service manager, no such unit): the turn counts
    /// it as a refused write.
    Decline(String),
}

/// `{"action": …, "target": …}` plus more fields.
pub fn args(action: &str, target: &Resource, more: Value) -> Value {
    let mut value = json!({"action": action, "target": target.id.to_string()});
    if let (Some(object), Value::Object(extra)) = (value.as_object_mut(), more) {
        object.extend(extra);
    }
    value
}
