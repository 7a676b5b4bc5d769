//! The fleet's model: the testkit's OpenAI-compatible fake server, each
//! script chosen by a phrase of the last user message; a message no script
//! names is answered "Done.".

use serde_json::{Value, json};
use warden_testkit::model::{FakeModel, Turn, Wire};

/// The server, listing the one model `warden serve` is configured with.
pub fn start() -> FakeModel {
    let model = FakeModel::start(Wire::OpenAi);
    model.serve_models(&["test-model"]);
    model.set_unscripted(text("Done."));
    model
}

pub fn text(words: &str) -> Turn {
    Turn::text(words).usage(100, 20)
}

/// Tool calls in one reply: (tool, arguments).
pub fn calls(calls: Vec<(String, Value)>) -> Turn {
    Turn::calls(calls).usage(100, 20)
}

pub fn call(tool: &str, arguments: Value) -> Turn {
    Turn::call(tool, arguments).usage(100, 20)
}

/// `read exec COMMAND` on `target`.
pub fn read(target: &str, command: &str) -> Turn {
    call(
        "read",
        json!({"action": "exec", "target": target, "command": command}),
    )
}

/// `control command COMMAND` on `target` (a write).
pub fn write(target: &str, command: &str) -> Turn {
    call(
        "control",
        json!({"action": "command", "target": target, "command": command}),
    )
}
