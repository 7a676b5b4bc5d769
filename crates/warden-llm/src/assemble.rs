//! Tool-call assembly from streamed fragments (OpenAI-style `delta.tool_calls`,
//! and Anthropic `tool_use` blocks keyed by block index).
//!
//! Fragments are grouped by `index`, never by `id`: vLLM and llama.cpp send
//! the id only on a call's first fragment. The name and id come from
//! whichever fragment carries them; argument strings are concatenated; an
//! arguments *object* (Ollama) is taken as-is. Arguments are parsed once, at
//! the end; text that is not JSON becomes `{"_malformed_arguments": raw}` so
//! the executor refuses that call with a clear error instead of the stream
//! failing.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use crate::types::{MALFORMED_ARGUMENTS, ProposedToolCall};

#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    /// In order of first appearance.
    calls: Vec<PartialCall>,
}

#[derive(Debug)]
struct PartialCall {
    index: u64,
    id: Option<String>,
    name: Option<String>,
    arguments: Arguments,
    provider_data: Option<Value>,
}

#[derive(Debug)]
enum Arguments {
    Text(String),
    Value(Value),
}

/// One fragment, whatever the wire format.
#[derive(Debug, Default, Clone, Copy)]
pub struct Fragment<'a> {
    pub index: Option<u64>,
    pub id: Option<&'a str>,
    pub name: Option<&'a str>,
    /// A string piece to append, or a whole value (object) to take.
    pub arguments: Option<&'a Value>,
}

impl ToolCallAssembler {
    pub fn new() -> Self {
        ToolCallAssembler::default()
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Bytes of argument text received so far (objects: their JSON size).
    pub fn argument_bytes(&self) -> usize {
        self.calls
            .iter()
            .map(|call| match &call.arguments {
                Arguments::Text(text) => text.len(),
                Arguments::Value(value) => value.to_string().len(),
            })
            .sum()
    }

    /// Whether some call's arguments stop in the middle of their JSON (the
    /// stream was cut inside the call). Arguments that are complete but not
    /// JSON are a model mistake, not a cut: see [`parse_argument_text`].
    pub fn has_incomplete_arguments(&self) -> bool {
        self.calls.iter().any(|call| match &call.arguments {
            Arguments::Text(text) if !text.trim().is_empty() => {
                serde_json::from_str::<Value>(text).is_err_and(|e| e.is_eof())
            }
            Arguments::Text(_) | Arguments::Value(_) => false,
        })
    }

    /// One element of an OpenAI-style `delta.tool_calls` array.
    pub fn push_openai(&mut self, fragment: &Value) {
        let function = &fragment["function"];
        self.push(Fragment {
            index: fragment["index"].as_u64(),
            id: non_empty(fragment["id"].as_str()),
            name: non_empty(function["name"].as_str()),
            arguments: function.get("arguments"),
        });
    }

    pub fn push(&mut self, fragment: Fragment<'_>) {
        let slot = self.slot_for(&fragment);
        let call = &mut self.calls[slot];
        if call.id.is_none() {
            call.id = fragment.id.map(str::to_string);
        }
        if call.name.is_none() {
            call.name = fragment.name.map(str::to_string);
        }
        match fragment.arguments {
            None | Some(Value::Null) => {}
            Some(Value::String(piece)) => match &mut call.arguments {
                Arguments::Text(text) => text.push_str(piece),
                Arguments::Value(_) => call.arguments = Arguments::Text(piece.clone()),
            },
            Some(whole) => call.arguments = Arguments::Value(whole.clone()),
        }
    }

    /// Opaque provider data to echo back with the call at `index`.
    pub fn set_provider_data(&mut self, index: u64, data: Value) {
        if let Some(call) = self.calls.iter_mut().find(|c| c.index == index) {
            call.provider_data = Some(data);
        }
    }

    /// Which call a fragment belongs to, creating it when new.
    fn slot_for(&mut self, fragment: &Fragment<'_>) -> usize {
        if let Some(index) = fragment.index {
            if let Some(slot) = self.calls.iter().position(|c| c.index == index) {
                return slot;
            }
            return self.open(index);
        }
        // No index (some servers omit it for a single call): an id names the
        // call; otherwise the fragment continues the last open call, unless
        // that call is already complete and this fragment starts a new one.
        if let Some(id) = fragment.id {
            if let Some(slot) = self.calls.iter().position(|c| c.id.as_deref() == Some(id)) {
                return slot;
            }
            if let Some(last) = self.calls.last()
                && last.id.is_none()
                && last.name.is_none()
            {
                return self.calls.len() - 1;
            }
            return self.open(self.next_index());
        }
        match self.calls.last() {
            None => self.open(0),
            Some(last)
                if fragment.name.is_some() && last.name.is_some() && last.has_arguments() =>
            {
                self.open(self.next_index())
            }
            Some(_) => self.calls.len() - 1,
        }
    }

    fn next_index(&self) -> u64 {
        self.calls.iter().map(|c| c.index + 1).max().unwrap_or(0)
    }

    fn open(&mut self, index: u64) -> usize {
        self.calls.push(PartialCall {
            index,
            id: None,
            name: None,
            arguments: Arguments::Text(String::new()),
            provider_data: None,
        });
        self.calls.len() - 1
    }

    /// The finished calls, ordered by index. Calls without a name cannot be
    /// executed or answered and are dropped.
    pub fn finish(self) -> Vec<ProposedToolCall> {
        let mut calls = self.calls;
        calls.sort_by_key(|c| c.index);
        calls
            .into_iter()
            .filter_map(|call| {
                let name = call.name?;
                Some(ProposedToolCall {
                    id: call.id.unwrap_or_else(synthetic_call_id),
                    name,
                    arguments: parse_arguments(call.arguments),
                    provider_data: call.provider_data,
                })
            })
            .collect()
    }
}

impl PartialCall {
    fn has_arguments(&self) -> bool {
        match &self.arguments {
            Arguments::Text(text) => !text.trim().is_empty(),
            Arguments::Value(_) => true,
        }
    }
}

fn non_empty(text: Option<&str>) -> Option<&str> {
    text.filter(|t| !t.is_empty())
}

fn parse_arguments(arguments: Arguments) -> Value {
    match arguments {
        Arguments::Value(value) => value,
        Arguments::Text(text) => parse_argument_text(&text),
    }
}

/// Arguments as JSON: empty means `{}`; text that is not JSON is kept,
/// marked, for the executor to refuse.
pub fn parse_argument_text(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Null) => Value::Object(Map::new()),
        Ok(value) => value,
        Err(_) => {
            let mut marked = Map::new();
            marked.insert(
                MALFORMED_ARGUMENTS.to_string(),
                Value::String(text.to_string()),
            );
            Value::Object(marked)
        }
    }
}

/// An id for a call the provider sent without one: `call_<nonce>_<n>`,
/// unique within the process and, thanks to the time-derived nonce, not
/// repeated by a later process that continues a stored conversation.
pub fn synthetic_call_id() -> String {
    static NONCE: OnceLock<u32> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(1);
    let nonce = NONCE.get_or_init(|| {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        // Fold the clock into 24 bits: short ids, still distinct per run.
        ((nanos ^ (nanos >> 24) ^ (nanos >> 48)) & 0xff_ffff) as u32
    });
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("call_{nonce:06x}_{n}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assemble(fragments: &[Value]) -> Vec<ProposedToolCall> {
        let mut assembler = ToolCallAssembler::new();
        for fragment in fragments {
            assembler.push_openai(fragment);
        }
        assembler.finish()
    }

    #[test]
    fn interleaved_by_index_with_ids_only_first() {
        let calls = assemble(&[
            json!({"index":0,"id":"call_a","type":"function","function":{"name":"query","arguments":""}}),
            json!({"index":1,"id":"call_b","type":"function","function":{"name":"metrics","arguments":"{\"tar"}}),
            json!({"index":0,"function":{"arguments":"{\"action\":"}}),
            json!({"index":1,"function":{"arguments":"get\":\"pve1\"}"}}),
            json!({"index":0,"function":{"arguments":"\"list\"}"}}),
        ]);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].id, "call_a");
        assert_eq!(calls[0].name, "query");
        assert_eq!(calls[0].arguments, json!({"action":"list"}));
        assert_eq!(calls[1].id, "call_b");
        assert_eq!(calls[1].arguments, json!({"target":"pve1"}));
    }

    #[test]
    fn object_arguments_and_missing_index() {
        let calls = assemble(&[
            json!({"function":{"name":"query","arguments":{"action":"health"}}}),
            json!({"function":{"name":"metrics","arguments":{"target":"web1"}}}),
        ]);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments, json!({"action":"health"}));
        assert_eq!(calls[1].name, "metrics");
        assert_ne!(calls[0].id, calls[1].id);
        assert!(calls[0].id.starts_with("call_"));
    }

    #[test]
    fn missing_index_continues_the_open_call() {
        let calls = assemble(&[
            json!({"id":"x1","function":{"name":"query","arguments":"{\"a\""}}),
            json!({"function":{"arguments":":1}"}}),
            json!({"id":"x2","function":{"name":"read","arguments":"{}"}}),
        ]);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments, json!({"a":1}));
        assert_eq!(calls[1].id, "x2");
    }

    #[test]
    fn malformed_and_empty_arguments() {
        let calls = assemble(&[
            json!({"index":0,"id":"a","function":{"name":"query","arguments":"{\"action\": lis"}}),
            json!({"index":1,"id":"b","function":{"name":"query","arguments":""}}),
            json!({"index":2,"id":"c","function":{"arguments":"{}"}}),
        ]);
        assert_eq!(calls.len(), 2, "a call without a name is dropped");
        assert_eq!(
            calls[0].arguments,
            json!({MALFORMED_ARGUMENTS: "{\"action\": lis"})
        );
        assert_eq!(calls[1].arguments, json!({}));
    }

    #[test]
    fn incomplete_arguments_are_told_from_malformed_ones() {
        let mut cut = ToolCallAssembler::new();
        cut.push_openai(&json!({"index":0,"id":"a","function":{"name":"query","arguments":"{\"action\": \"li"}}));
        assert!(cut.has_incomplete_arguments());
        assert_eq!(cut.argument_bytes(), 14);
        let mut malformed = ToolCallAssembler::new();
        malformed.push_openai(&json!({"index":0,"id":"a","function":{"name":"query","arguments":"{\"action\": list}"}}));
        assert!(!malformed.has_incomplete_arguments());
        let mut whole = ToolCallAssembler::new();
        whole.push_openai(&json!({"function":{"name":"query","arguments":{"action":"health"}}}));
        whole.push_openai(&json!({"index":1,"id":"b","function":{"name":"read","arguments":""}}));
        assert!(!whole.has_incomplete_arguments());
    }

    #[test]
    fn synthetic_ids_are_unique() {
        let a = synthetic_call_id();
        let b = synthetic_call_id();
        assert_ne!(a, b);
    }
}
