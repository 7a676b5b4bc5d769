//! The model of the browser tests: the testkit's OpenAI-compatible fake
//! server, each script chosen by a phrase of the user's message. Text
//! streams word by word, paced, so the page really sees a streaming
//! answer.

use std::time::Duration;

use serde_json::Value;
use warden_testkit::model::{FakeModel, Turn, Wire};

/// Pause before each streamed word.
const PACE: Duration = Duration::from_millis(15);

/// The server, listing the one model the world is configured with.
pub fn start() -> FakeModel {
    let model = FakeModel::start(Wire::OpenAi);
    model.serve_models(&["test"]);
    model
}

/// A text answer, streamed word by word.
pub fn text(words: &str) -> Turn {
    Turn::words(words).paced(PACE).usage(120, 30)
}

/// One tool call.
pub fn call(tool: &str, arguments: Value) -> Turn {
    Turn::call(tool, arguments).usage(120, 30)
}
