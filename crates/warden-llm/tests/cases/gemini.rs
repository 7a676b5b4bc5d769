//! Gemini `streamGenerateContent?alt=sse` streams and request shapes.

use serde_json::json;
use warden_llm::{Message, ProviderError, ProviderKind, ToolOffer, Usage, connect};

use crate::support::{TEST_KEY, complete, config, sample_tools, user};
use warden_testkit::model::{FakeModel, Reply, Wire, cut_every};

fn gemini(server: &FakeModel) -> Box<dyn warden_llm::Provider + Send> {
    connect(&config(ProviderKind::Gemini, server.url())).expect("connect")
}

/// Gemini frames its SSE events with CRLF.
fn frames(chunks: &[&str]) -> String {
    chunks
        .iter()
        .map(|c| format!("data: {c}\r\n\r\n"))
        .collect()
}

fn text_stream() -> String {
    frames(&[
        r#"{"candidates": [{"content": {"parts": [{"text": "**Checking** disk usage…","thought": true}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 41,"totalTokenCount": 41},"modelVersion": "gemini-test","responseId": "mAitaLmkHPPlz7IPvtfUqQ4"}"#,
        r#"{"candidates": [{"content": {"parts": [{"text": "Auf pve1 "}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 41,"candidatesTokenCount": 3,"totalTokenCount": 44,"thoughtsTokenCount": 20},"modelVersion": "gemini-test","responseId": "mAitaLmkHPPlz7IPvtfUqQ4"}"#,
        r#"{"candidates": [{"content": {"parts": [{"text": "sind 41 % belegt."}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 41,"candidatesTokenCount": 12,"totalTokenCount": 73,"thoughtsTokenCount": 20},"modelVersion": "gemini-test","responseId": "mAitaLmkHPPlz7IPvtfUqQ4"}"#,
    ])
}

const SIGNATURE: &str = "CiQBVKhc7+8nFQvQyTn5K0gVn3p9mX1tY2Ra2bS1c3d4e5f6g7h8i9j0==";

fn function_call_stream() -> String {
    frames(&[&format!(
        r#"{{"candidates": [{{"content": {{"parts": [{{"functionCall": {{"name": "query","args": {{"action": "list","target": null}}}},"thoughtSignature": "{SIGNATURE}"}},{{"functionCall": {{"name": "metrics","args": {{"target": "pve1"}}}}}}],"role": "model"}},"finishReason": "STOP","index": 0}}],"usageMetadata": {{"promptTokenCount": 120,"candidatesTokenCount": 15,"totalTokenCount": 190,"thoughtsTokenCount": 55}},"modelVersion": "gemini-test","responseId": "abc"}}"#
    )])
}

#[tokio::test]
async fn streams_text_and_thoughts_with_usage() {
    let server = FakeModel::replying(
        Wire::Gemini,
        vec![Reply::sse(cut_every(&text_stream(), 11))],
    );
    let mut provider = gemini(&server);
    assert_eq!(provider.identity(), ("gemini", "test-model"));
    let outcome = complete(&mut *provider, &user("disk?"), &[], ToolOffer::Tools, None).await;
    let reply = outcome.reply();
    assert_eq!(outcome.thinking, vec!["**Checking** disk usage…"]);
    assert_eq!(outcome.texts, vec!["Auf pve1 ", "sind 41 % belegt."]);
    assert_eq!(reply.text.as_deref(), Some("Auf pve1 sind 41 % belegt."));
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 41,
            output_tokens: 32
        })
    );
}

#[tokio::test]
async fn request_shape_url_key_and_sanitised_tools() {
    let server = FakeModel::replying(Wire::Gemini, vec![Reply::sse([text_stream()])]);
    complete(
        &mut *gemini(&server),
        &user("disk?"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await
    .reply();
    let request = &server.requests()[0];
    assert_eq!(
        request.target,
        "/v1beta/models/test-model:streamGenerateContent?alt=sse"
    );
    assert_eq!(request.header("x-goog-api-key"), Some(TEST_KEY));
    assert!(
        !request.target.contains(TEST_KEY),
        "the key is never in the URL"
    );
    let body = &request.body;
    assert_eq!(
        body["systemInstruction"],
        json!({"parts": [{"text": "You are Warden."}]})
    );
    assert_eq!(
        body["contents"],
        json!([{"role": "user", "parts": [{"text": "disk?"}]}])
    );
    assert_eq!(
        body["tools"][0]["functionDeclarations"][0],
        json!({
            "name": "query",
            "description": "Find resources.",
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["search", "get", "list", "health"]},
                    "target": {"type": "string", "nullable": true}
                },
                "required": ["action"]
            }
        })
    );
    assert!(body.get("toolConfig").is_none());
}

#[tokio::test]
async fn function_calls_keep_signatures_and_echo_them_back() {
    let server = FakeModel::replying(
        Wire::Gemini,
        vec![
            Reply::sse([function_call_stream()]),
            Reply::sse([text_stream()]),
        ],
    );
    let mut provider = gemini(&server);
    let mut messages = user("what runs on pve1?");
    let first = complete(
        &mut *provider,
        &messages,
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    let reply = first.reply().clone();
    assert_eq!(reply.tool_calls.len(), 2);
    let (query, metrics) = (&reply.tool_calls[0], &reply.tool_calls[1]);
    assert_eq!(query.name, "query");
    assert_eq!(query.arguments, json!({"action": "list", "target": null}));
    assert_eq!(
        query.provider_data,
        Some(json!({"thoughtSignature": SIGNATURE}))
    );
    assert_eq!(metrics.provider_data, None);
    assert!(query.id.starts_with("call_") && query.id != metrics.id);
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 120,
            output_tokens: 70
        })
    );

    messages.push(Message::Assistant {
        text: None,
        tool_calls: reply.tool_calls.clone(),
    });
    messages.push(Message::Tool {
        call_id: query.id.clone(),
        name: "query".into(),
        content: r#"{"ok":true,"data":["lxc:pve1:141"]}"#.into(),
    });
    messages.push(Message::Tool {
        call_id: metrics.id.clone(),
        name: "metrics".into(),
        content: "[1,2]".into(),
    });
    messages.push(Message::system("Verify."));
    complete(
        &mut *provider,
        &messages,
        &sample_tools(),
        ToolOffer::TextOnly,
        None,
    )
    .await
    .reply();

    let body = &server.requests()[1].body;
    assert_eq!(
        body["contents"][1],
        json!({"role": "model", "parts": [
            {"functionCall": {"name": "query", "args": {"action": "list", "target": null}}, "thoughtSignature": SIGNATURE},
            {"functionCall": {"name": "metrics", "args": {"target": "pve1"}}}
        ]})
    );
    assert_eq!(
        body["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "query", "response": {"ok": true, "data": ["lxc:pve1:141"]}}},
            {"functionResponse": {"name": "metrics", "response": {"result": [1, 2]}}},
            {"text": "[Warden] Verify."}
        ]})
    );
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "NONE"}})
    );
    assert!(body["tools"][0]["functionDeclarations"].is_array());
}

#[tokio::test]
async fn server_ids_are_used_and_echoed() {
    let stream = frames(&[
        r#"{"candidates": [{"content": {"parts": [{"functionCall": {"id": "fc-7q2", "name": "metrics","args": {"target": "web1"}}}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 10,"candidatesTokenCount": 5,"totalTokenCount": 15}}"#,
    ]);
    let server = FakeModel::replying(
        Wire::Gemini,
        vec![Reply::sse([stream]), Reply::sse([text_stream()])],
    );
    let mut provider = gemini(&server);
    let mut messages = user("cpu on web1?");
    let reply = complete(
        &mut *provider,
        &messages,
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await
    .reply()
    .clone();
    assert_eq!(reply.tool_calls[0].id, "fc-7q2");
    messages.push(Message::Assistant {
        text: None,
        tool_calls: reply.tool_calls.clone(),
    });
    messages.push(Message::Tool {
        call_id: "fc-7q2".into(),
        name: "metrics".into(),
        content: "{}".into(),
    });
    complete(
        &mut *provider,
        &messages,
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await
    .reply();
    let body = &server.requests()[1].body;
    assert_eq!(
        body["contents"][1]["parts"][0]["functionCall"]["id"],
        "fc-7q2"
    );
    assert_eq!(
        body["contents"][2]["parts"][0]["functionResponse"]["id"],
        "fc-7q2"
    );
}

#[tokio::test]
async fn safety_stop_without_content_is_a_clear_error() {
    let stream = frames(&[
        r#"{"candidates": [{"finishReason": "SAFETY","index": 0,"safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT","probability": "HIGH","blocked": true}]}],"usageMetadata": {"promptTokenCount": 30,"totalTokenCount": 30},"modelVersion": "gemini-test"}"#,
    ]);
    let server = FakeModel::replying(Wire::Gemini, vec![Reply::sse([stream])]);
    let outcome = complete(
        &mut *gemini(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Stream { provider, message } => {
            assert_eq!(provider, "gemini");
            assert!(message.contains("SAFETY"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn blocked_prompt_is_a_clear_error() {
    let stream = frames(&[
        r#"{"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},"usageMetadata": {"promptTokenCount": 30,"totalTokenCount": 30},"modelVersion": "gemini-test"}"#,
    ]);
    let server = FakeModel::replying(Wire::Gemini, vec![Reply::sse([stream])]);
    let outcome = complete(
        &mut *gemini(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert!(outcome.error().to_string().contains("PROHIBITED_CONTENT"));
}

#[tokio::test]
async fn api_errors_do_not_leak_the_key() {
    let body = format!(
        r#"{{"error": {{"code": 400,"message": "API key not valid: {TEST_KEY}. Please pass a valid API key.","status": "INVALID_ARGUMENT","details": [{{"@type": "type.googleapis.com/google.rpc.ErrorInfo","reason": "API_KEY_INVALID","domain": "googleapis.com"}}]}}}}"#
    );
    let server = FakeModel::replying(Wire::Gemini, vec![Reply::json(400, &body)]);
    let outcome = complete(
        &mut *gemini(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    let text = outcome.error().to_string();
    assert!(
        text.contains("INVALID_ARGUMENT: API key not valid"),
        "{text}"
    );
    assert!(!text.contains(TEST_KEY), "{text}");
}
