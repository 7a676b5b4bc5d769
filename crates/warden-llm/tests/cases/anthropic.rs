//! Anthropic Messages API streams and request shapes.

use serde_json::json;
use warden_llm::{
    Message, ProposedToolCall, ProviderError, ProviderKind, ToolOffer, Usage, connect,
};

use crate::support::{TEST_KEY, complete, config, sample_tools, user};
use warden_testkit::model::{FakeModel, Reply, Wire, cut_every};

fn anthropic(server: &FakeModel) -> Box<dyn warden_llm::Provider + Send> {
    connect(&config(ProviderKind::Anthropic, server.url())).expect("connect")
}

/// `event:` + `data:` frames, as Anthropic sends them.
fn frames(events: &[(&str, &str)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

const MESSAGE_START: &str = r#"{"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":2}}}"#;

fn text_then_tools_stream() -> String {
    frames(&[
        ("message_start", MESSAGE_START),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        ("ping", r#"{"type": "ping"}"#),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Ich prüfe "}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"pve1 …"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"query","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"action\": \"g"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"et\", \"target\": \"pve1\"}"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_02","name":"metrics","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"target\": \"pve1\"}"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":2}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ])
}

fn short_text_stream(text: &str) -> String {
    frames(&[
        ("message_start", MESSAGE_START),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            &format!(
                r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{text}"}}}}"#
            ),
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ])
}

#[tokio::test]
async fn streams_text_and_tool_use_blocks_with_usage() {
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![Reply::sse(cut_every(&text_then_tools_stream(), 9))],
    );
    let mut provider = anthropic(&server);
    assert_eq!(provider.identity(), ("anthropic", "test-model"));
    let outcome = complete(
        &mut *provider,
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    let reply = outcome.reply();
    assert_eq!(outcome.texts, vec!["Ich prüfe ", "pve1 …"]);
    assert_eq!(reply.text.as_deref(), Some("Ich prüfe pve1 …"));
    assert_eq!(reply.tool_calls.len(), 2);
    assert_eq!(reply.tool_calls[0].id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
    assert_eq!(
        reply.tool_calls[0].arguments,
        json!({"action": "get", "target": "pve1"})
    );
    assert_eq!(reply.tool_calls[1].name, "metrics");
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 572,
            output_tokens: 89
        })
    );
}

#[tokio::test]
async fn request_shape_headers_system_merging_and_tools() {
    let server = FakeModel::replying(Wire::Anthropic, vec![Reply::sse([short_text_stream("ok")])]);
    let messages = vec![
        Message::system("You are Warden."),
        Message::system("Inventory: pve1."),
        Message::user("restart nginx on web1"),
        Message::Assistant {
            text: Some("Looking.".into()),
            tool_calls: vec![
                ProposedToolCall::new(
                    "toolu_a",
                    "query",
                    json!({"action": "get", "target": "web1"}),
                ),
                ProposedToolCall::new("toolu_b", "metrics", json!({"target": "web1"})),
            ],
        },
        Message::Tool {
            call_id: "toolu_a".into(),
            name: "query".into(),
            content: r#"{"ok":true}"#.into(),
        },
        Message::Tool {
            call_id: "toolu_b".into(),
            name: "metrics".into(),
            content: "cpu 3%".into(),
        },
        Message::system("A write needs verification."),
        Message::user("and?"),
    ];
    complete(
        &mut *anthropic(&server),
        &messages,
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await
    .reply();
    let request = &server.requests()[0];
    assert_eq!(request.target, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(TEST_KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    let body = &request.body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(body["stream"], true);
    assert_eq!(body["system"], "You are Warden.\n\nInventory: pve1.");
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "restart nginx on web1"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_a", "name": "query", "input": {"action": "get", "target": "web1"}},
                {"type": "tool_use", "id": "toolu_b", "name": "metrics", "input": {"target": "web1"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "{\"ok\":true}"},
                {"type": "tool_result", "tool_use_id": "toolu_b", "content": "cpu 3%"},
                {"type": "text", "text": "[Warden] A write needs verification."},
                {"type": "text", "text": "and?"}
            ]}
        ])
    );
    assert_eq!(
        body["tools"][0],
        json!({"name": "query", "description": "Find resources.", "input_schema": sample_tools()[0].parameters})
    );
    assert!(body.get("tool_choice").is_none());
}

#[tokio::test]
async fn text_only_turns() {
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![
            Reply::sse([short_text_stream("a")]),
            Reply::sse([short_text_stream("b")]),
        ],
    );
    let mut provider = anthropic(&server);
    // No tool history: no tools at all.
    complete(
        &mut *provider,
        &user("hi"),
        &sample_tools(),
        ToolOffer::TextOnly,
        None,
    )
    .await
    .reply();
    // Tool history: tools declared (the API demands it), their use forbidden.
    let mut messages = user("hi");
    messages.push(Message::Assistant {
        text: None,
        tool_calls: vec![ProposedToolCall::new(
            "toolu_x",
            "query",
            json!({"action": "health"}),
        )],
    });
    messages.push(Message::Tool {
        call_id: "toolu_x".into(),
        name: "query".into(),
        content: "{}".into(),
    });
    complete(
        &mut *provider,
        &messages,
        &sample_tools(),
        ToolOffer::TextOnly,
        None,
    )
    .await
    .reply();
    let requests = server.requests();
    assert!(requests[0].body.get("tools").is_none());
    assert!(requests[0].body.get("tool_choice").is_none());
    assert_eq!(requests[1].body["tools"].as_array().map(Vec::len), Some(2));
    assert_eq!(requests[1].body["tool_choice"], json!({"type": "none"}));
}

#[tokio::test]
async fn overloaded_error_before_content_is_retried() {
    let overloaded = frames(&[
        ("message_start", MESSAGE_START),
        (
            "error",
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
        ),
    ]);
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![
            Reply::sse([overloaded]),
            Reply::sse([short_text_stream("fine")]),
        ],
    );
    let outcome = complete(
        &mut *anthropic(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("fine"));
    assert_eq!(outcome.texts, vec!["fine"]);
    assert_eq!(server.requests().len(), 2);
    assert_eq!(outcome.notices.len(), 1, "{:?}", outcome.notices);
    assert!(
        outcome.notices[0].starts_with("anthropic is overloaded: retrying in"),
        "{:?}",
        outcome.notices
    );
}

#[tokio::test]
async fn error_event_after_content_is_an_error() {
    let failing = frames(&[
        ("message_start", MESSAGE_START),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Part"}}"#,
        ),
        (
            "error",
            r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#,
        ),
    ]);
    let server = FakeModel::replying(Wire::Anthropic, vec![Reply::sse([failing])]);
    let outcome = complete(
        &mut *anthropic(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Stream { provider, message } => {
            assert_eq!(provider, "anthropic");
            assert_eq!(message, "overloaded_error: Overloaded");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 1, "no retry once text was shown");
}

#[tokio::test]
async fn overloaded_status_529_is_retried() {
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CTKQdfw3P7aHjH88Wn2LC"}"#;
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![
            Reply::json(529, body).header("retry-after", "0"),
            Reply::sse([short_text_stream("ok")]),
        ],
    );
    let outcome = complete(
        &mut *anthropic(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("ok"));
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        outcome.notices,
        vec!["anthropic answered 529: retrying in 0 s (attempt 2 of 3)"]
    );
}

#[tokio::test]
async fn invalid_request_message_is_extracted() {
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x."},"request_id":"req_1"}"#;
    let server = FakeModel::replying(Wire::Anthropic, vec![Reply::json(400, body)]);
    let outcome = complete(
        &mut *anthropic(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Http {
            status: 400,
            message,
            ..
        } => {
            assert!(
                message.starts_with("invalid_request_error: messages.1:"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn thinking_deltas_are_streamed_separately() {
    let stream = frames(&[
        ("message_start", MESSAGE_START),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Check disk first."}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Disk is fine."}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":40}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ]);
    let server = FakeModel::replying(Wire::Anthropic, vec![Reply::sse(cut_every(&stream, 31))]);
    let outcome = complete(
        &mut *anthropic(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.thinking, vec!["Check disk first."]);
    assert_eq!(outcome.reply().text.as_deref(), Some("Disk is fine."));
}
