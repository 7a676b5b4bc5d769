//! A full tool-using conversation through `warden ask`, with the model
//! behind a local fake server speaking each real wire format over HTTP and
//! SSE: the model proposes a read, Warden's executor runs it on this
//! machine, the result goes back to the model, and its answer is printed.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a panic is a failed test

use std::process::Command;

use serde_json::Value;
use warden_testkit::model::{FakeModel, Recorded, Reply, Wire, cut_every, sse_data};

const COMMAND: &str = "cat /proc/loadavg";

fn ask(provider: &str, base_url: &str, db: &std::path::Path, extra: &[&str]) -> (String, String) {
    let home = db.parent().unwrap();
    let mut args = vec!["ask"];
    args.extend_from_slice(extra);
    args.push("why is the load high?");
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(&args)
        .env("WARDEN_DB", db)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("WARDEN_PROVIDER", provider)
        .env("WARDEN_BASE_URL", base_url)
        .env("WARDEN_MODEL", "test-model")
        .env("WARDEN_API_KEY", "test-key-123")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn arguments() -> String {
    serde_json::json!({"action": "exec", "target": "localhost", "command": COMMAND}).to_string()
}

/// The loadavg line the tool returned, as the model received it.
fn tool_result_in(request: &Recorded) -> String {
    request.raw_body.clone()
}

fn check_conversation(requests: &[Recorded], out: &str, err: &str) {
    assert_eq!(requests.len(), 2, "{err}");
    assert!(
        out.contains("The load is fine."),
        "stdout: {out}\nstderr: {err}"
    );
    assert!(
        err.contains("→ read exec localhost: cat /proc/loadavg"),
        "{err}"
    );
    assert!(err.contains("✓ read"), "{err}");
    // The second request carries the executor's envelope for the call.
    let second = tool_result_in(&requests[1]);
    assert!(second.contains("exit_code"), "{second}");
    assert!(
        second.contains("ok\\\":true") || second.contains("\"ok\":true"),
        "{second}"
    );
    // The tools were offered, generated from Warden's catalogue.
    assert!(
        requests[0].raw_body.contains("\"read\""),
        "{}",
        requests[0].raw_body
    );
}

fn usage_recorded(db: &std::path::Path, provider: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["usage", "--json"])
        .env("WARDEN_DB", db)
        .env("HOME", db.parent().unwrap())
        .output()
        .unwrap();
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let row = rows.iter().find(|r| r["provider"] == provider).unwrap();
    assert_eq!(row["model"], "test-model");
    assert_eq!(row["calls"], 2);
    assert!(row["input_tokens"].as_u64().unwrap() > 0);
}

#[test]
fn openai_compatible_full_conversation() {
    let call = serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "test-model",
        "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
        "function": {"name": "read", "arguments": ""}}]}, "finish_reason": null}]});
    let args = arguments();
    let (head, tail) = args.split_at(args.len() / 2);
    let fragment = |text: &str| {
        serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "test-model",
            "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": text}}]}, "finish_reason": null}]})
        .to_string()
    };
    let finish = r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#;
    let usage = r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":812,"completion_tokens":31,"total_tokens":843}}"#;
    let first = sse_data(&[
        &call.to_string(),
        &fragment(head),
        &fragment(tail),
        finish,
        usage,
        "[DONE]",
    ]);
    let text = |t: &str| {
        serde_json::json!({"id": "chatcmpl-2", "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": t}, "finish_reason": null}]})
        .to_string()
    };
    let second = sse_data(&[
        &text("The load "),
        &text("is fine."),
        r#"{"id":"chatcmpl-2","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":5,"total_tokens":905}}"#,
    ]);
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::sse(cut_every(&first, 37)),
            Reply::sse(cut_every(&second, 11)),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let (out, err) = ask("openai", &format!("{}/v1", server.url()), &db, &[]);
    let requests = server.requests();
    check_conversation(&requests, &out, &err);
    assert_eq!(requests[0].path(), "/v1/chat/completions");
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer test-key-123")
    );
    let messages = requests[1].body["messages"].as_array().unwrap();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "call_1");
    usage_recorded(&db, "openai");
}

#[test]
fn anthropic_full_conversation() {
    let args = arguments();
    let (head, tail) = args.split_at(args.len() / 3);
    let delta = |partial: &str| {
        serde_json::json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": partial}})
        .to_string()
    };
    let events = |pairs: &[(&str, String)]| -> String {
        pairs
            .iter()
            .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
            .collect()
    };
    let first = events(&[
        ("message_start", r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"test-model","content":[],"stop_reason":null,"usage":{"input_tokens":700,"output_tokens":1}}}"#.into()),
        ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}"#.into()),
        ("ping", r#"{"type":"ping"}"#.into()),
        ("content_block_delta", delta(head)),
        ("content_block_delta", delta(tail)),
        ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#.into()),
        ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}"#.into()),
        ("message_stop", r#"{"type":"message_stop"}"#.into()),
    ]);
    let second = events(&[
        ("message_start", r#"{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","model":"test-model","content":[],"usage":{"input_tokens":800,"output_tokens":1}}}"#.into()),
        ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#.into()),
        ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The load is fine."}}"#.into()),
        ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#.into()),
        ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":6}}"#.into()),
        ("message_stop", r#"{"type":"message_stop"}"#.into()),
    ]);
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![
            Reply::sse(cut_every(&first, 29)),
            Reply::sse(cut_every(&second, 13)),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let (out, err) = ask("anthropic", &server.url(), &db, &[]);
    let requests = server.requests();
    check_conversation(&requests, &out, &err);
    assert_eq!(requests[0].path(), "/v1/messages");
    assert_eq!(requests[0].header("x-api-key"), Some("test-key-123"));
    assert!(
        requests[0].body["system"]
            .as_str()
            .unwrap()
            .contains("You are Warden")
    );
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][0]["tool_use_id"], "toolu_1");
    usage_recorded(&db, "anthropic");
}

#[test]
fn gemini_full_conversation() {
    let call = serde_json::json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "read", "args": serde_json::from_str::<Value>(&arguments()).unwrap()}, "thoughtSignature": "c2lnbmF0dXJl"}]},
        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 650, "candidatesTokenCount": 20, "totalTokenCount": 670}, "modelVersion": "test-model"});
    let first = format!("data: {call}\r\n\r\n");
    let text = |t: &str, last: bool| {
        let mut v = serde_json::json!({"candidates": [{"content": {"role": "model", "parts": [{"text": t}]}, "index": 0}],
            "modelVersion": "test-model"});
        if last {
            v["candidates"][0]["finishReason"] = "STOP".into();
            v["usageMetadata"] = serde_json::json!({"promptTokenCount": 700, "candidatesTokenCount": 6, "totalTokenCount": 706});
        }
        format!("data: {v}\r\n\r\n")
    };
    let second = format!("{}{}", text("The load ", false), text("is fine.", true));
    let server = FakeModel::replying(
        Wire::Gemini,
        vec![
            Reply::sse(cut_every(&first, 41)),
            Reply::sse(cut_every(&second, 17)),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let (out, err) = ask("gemini", &server.url(), &db, &[]);
    let requests = server.requests();
    check_conversation(&requests, &out, &err);
    assert_eq!(
        requests[0].path(),
        "/v1beta/models/test-model:streamGenerateContent"
    );
    assert_eq!(requests[0].header("x-goog-api-key"), Some("test-key-123"));
    assert!(!requests[0].target.contains("test-key-123"));
    let contents = requests[1].body["contents"].as_array().unwrap();
    let model_turn = &contents[contents.len() - 2];
    assert_eq!(model_turn["parts"][0]["thoughtSignature"], "c2lnbmF0dXJl");
    let response = &contents[contents.len() - 1]["parts"][0]["functionResponse"];
    assert_eq!(response["name"], "read");
    usage_recorded(&db, "gemini");
}

#[test]
fn an_unreachable_model_is_a_clear_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 9 of loopback (discard is not served here).
    let (out, err) = ask(
        "openai",
        "http://127.0.0.1:9/v1",
        &dir.path().join("w.db"),
        &[],
    );
    let text = format!("{out}{err}");
    assert!(
        text.contains("model could not answer") || text.contains("cannot reach"),
        "{text}"
    );
}

#[test]
fn a_token_budget_stops_the_loop_with_a_clear_message() {
    let call = serde_json::json!({"id": "c", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
        "function": {"name": "read", "arguments": arguments()}}]}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 800, "completion_tokens": 43, "total_tokens": 843}});
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![Reply::sse(cut_every(
            &sse_data(&[&call.to_string(), "[DONE]"]),
            50,
        ))],
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["ask", "why is the load high?"])
        .env("WARDEN_DB", &db)
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("WARDEN_PROVIDER", "openai")
        .env("WARDEN_BASE_URL", format!("{}/v1", server.url()))
        .env("WARDEN_MODEL", "test-model")
        .env("WARDEN_BUDGET_TOKENS", "500")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Stopped: this conversation used 843 tokens, its budget is 500"),
        "{stdout}"
    );
    // Only one model call was made; the proposed read still ran through the executor.
    assert_eq!(server.requests().len(), 1);
}
