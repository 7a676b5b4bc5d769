//! One model reply, independent of the wire format: text (streamed in
//! chunks, optionally paced), tool calls with their arguments, usage and
//! how the stream ends. The server renders it in its [`Wire`] format.
//!
//! [`Wire`]: super::Wire

use std::time::Duration;

use serde_json::Value;

/// A tool call the model proposes.
#[derive(Debug, Clone)]
pub struct Call {
    /// The call's id; one is made up from the request number when `None`.
    pub id: Option<String>,
    pub name: String,
    pub arguments: Value,
}

/// Tokens counted for the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
}

/// How the stream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// As a complete reply ends: `stop`/`end_turn`/`STOP` after text,
    /// `tool_calls`/`tool_use` after calls, then the wire's end marker.
    Complete,
    /// The model ran out of output tokens (`length`, `max_tokens`,
    /// `MAX_TOKENS`).
    Length,
    /// Cut off: no finish reason and no end marker; the body just ends.
    CutOff,
}

#[derive(Debug, Clone)]
pub struct Turn {
    /// Text chunks, one stream event each.
    pub text: Vec<String>,
    pub calls: Vec<Call>,
    pub usage: Option<Usage>,
    pub finish: Finish,
    /// Wait before each text chunk (a model that really streams).
    pub pace: Duration,
}

impl Turn {
    fn empty() -> Turn {
        Turn {
            text: Vec::new(),
            calls: Vec::new(),
            usage: None,
            finish: Finish::Complete,
            pace: Duration::ZERO,
        }
    }

    /// A text answer in one chunk.
    pub fn text(text: &str) -> Turn {
        Turn {
            text: vec![text.to_string()],
            ..Turn::empty()
        }
    }

    /// A text answer streamed word by word (each chunk a word and the
    /// space after it).
    pub fn words(text: &str) -> Turn {
        Turn {
            text: text.split_inclusive(' ').map(str::to_string).collect(),
            ..Turn::empty()
        }
    }

    /// A text answer in these chunks.
    pub fn chunks(chunks: &[&str]) -> Turn {
        Turn {
            text: chunks.iter().map(|c| c.to_string()).collect(),
            ..Turn::empty()
        }
    }

    /// One tool call.
    pub fn call(name: &str, arguments: Value) -> Turn {
        Turn::empty().and_call(name, arguments)
    }

    /// Several tool calls in one reply.
    pub fn calls(calls: Vec<(String, Value)>) -> Turn {
        calls
            .into_iter()
            .fold(Turn::empty(), |turn, (name, arguments)| {
                turn.and_call(&name, arguments)
            })
    }

    /// One more tool call (after any text).
    pub fn and_call(mut self, name: &str, arguments: Value) -> Turn {
        self.calls.push(Call {
            id: None,
            name: name.to_string(),
            arguments,
        });
        self
    }

    /// The id of the last call added.
    pub fn call_id(mut self, id: &str) -> Turn {
        if let Some(call) = self.calls.last_mut() {
            call.id = Some(id.to_string());
        }
        self
    }

    pub fn usage(mut self, input: u64, output: u64) -> Turn {
        self.usage = Some(Usage { input, output });
        self
    }

    pub fn finish(mut self, finish: Finish) -> Turn {
        self.finish = finish;
        self
    }

    /// The stream ends without a finish reason or end marker.
    pub fn cut_off(self) -> Turn {
        self.finish(Finish::CutOff)
    }

    /// Wait `pace` before each text chunk.
    pub fn paced(mut self, pace: Duration) -> Turn {
        self.pace = pace;
        self
    }
}
