//! OpenAI-compatible Chat Completions streams (OpenAI, vLLM, llama.cpp,
//! Ollama shapes).

use serde_json::json;
use warden_llm::types::MALFORMED_ARGUMENTS;
use warden_llm::{
    Message, ProposedToolCall, ProviderError, ProviderKind, ToolOffer, Usage, connect,
};

use crate::support::{TEST_KEY, complete, config, sample_tools, user};
use warden_testkit::model::{FakeModel, Framing, Reply, Wire, cut_at, cut_every, sse_data};

fn openai(server: &FakeModel) -> Box<dyn warden_llm::Provider + Send> {
    connect(&config(
        ProviderKind::OpenAi,
        format!("{}/v1", server.url()),
    ))
    .expect("connect")
}

const HEAD: &str = r#""id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_eb9dce56a8""#;

fn chunk(delta: &str, finish: &str) -> String {
    format!(
        r#"{{{HEAD},"choices":[{{"index":0,"delta":{delta},"logprobs":null,"finish_reason":{finish}}}],"usage":null}}"#
    )
}

fn usage_chunk(prompt: u64, completion: u64) -> String {
    format!(
        r#"{{{HEAD},"choices":[],"usage":{{"prompt_tokens":{prompt},"completion_tokens":{completion},"total_tokens":{},"prompt_tokens_details":{{"cached_tokens":0,"audio_tokens":0}},"completion_tokens_details":{{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}}}}"#,
        prompt + completion
    )
}

fn text_stream() -> String {
    sse_data(&[
        &chunk(
            r#"{"role":"assistant","content":"","refusal":null}"#,
            "null",
        ),
        &chunk(r#"{"content":"Grüße"}"#, "null"),
        &chunk(r#"{"content":" aus 🦀-Land"}"#, "null"),
        &chunk(r#"{"content":": pve1 läuft."}"#, "null"),
        &chunk("{}", r#""stop""#),
        &usage_chunk(19, 10),
        "[DONE]",
    ])
}

#[tokio::test]
async fn streams_text_split_anywhere_and_captures_usage() {
    let stream = text_stream();
    // A cut inside "ü" (2 bytes), one inside "🦀" (4 bytes), one inside "data:".
    let umlaut = stream.find('ü').unwrap() + 1;
    let crab = stream.find('🦀').unwrap() + 2;
    let field = stream[10..].find("data:").unwrap() + 10 + 3;
    let mut cuts = vec![umlaut, crab, field];
    cuts.sort_unstable();
    for pieces in [cut_at(&stream, &cuts), cut_every(&stream, 7)] {
        let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse(pieces)]);
        let outcome = complete(
            &mut *openai(&server),
            &user("status?"),
            &[],
            ToolOffer::Tools,
            None,
        )
        .await;
        let reply = outcome.reply();
        assert_eq!(
            reply.text.as_deref(),
            Some("Grüße aus 🦀-Land: pve1 läuft.")
        );
        assert_eq!(
            outcome.texts,
            vec!["Grüße", " aus 🦀-Land", ": pve1 läuft."]
        );
        assert!(reply.tool_calls.is_empty());
        assert_eq!(
            reply.usage,
            Some(Usage {
                input_tokens: 19,
                output_tokens: 10
            })
        );
    }
}

#[tokio::test]
async fn request_shape_with_tools_and_key() {
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse([text_stream()])]);
    let mut provider = openai(&server);
    assert_eq!(provider.identity(), ("openai", "test-model"));
    complete(
        &mut *provider,
        &user("status?"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await
    .reply();
    let request = &server.requests()[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.target, "/v1/chat/completions");
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TEST_KEY}").as_str())
    );
    assert!(request.header("user-agent").unwrap().starts_with("warden/"));
    let body = &request.body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You are Warden."})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "status?"})
    );
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "query");
    assert_eq!(
        body["tools"][0]["function"]["parameters"],
        sample_tools()[0].parameters
    );
    assert!(body.get("max_tokens").is_none());
}

#[tokio::test]
async fn text_only_sends_no_tools_and_tool_results_are_mapped() {
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse([text_stream()])]);
    let mut messages = user("disk on pve1?");
    messages.push(Message::Assistant {
        text: Some("Checking.".into()),
        tool_calls: vec![ProposedToolCall::new(
            "call_9",
            "metrics",
            json!({"target": "pve1"}),
        )],
    });
    messages.push(Message::Tool {
        call_id: "call_9".into(),
        name: "metrics".into(),
        content: r#"{"ok":true,"data":{"disk":"41%"}}"#.into(),
    });
    messages.push(Message::system("Answer now."));
    complete(
        &mut *openai(&server),
        &messages,
        &sample_tools(),
        ToolOffer::TextOnly,
        None,
    )
    .await
    .reply();
    let body = &server.requests()[0].body;
    assert!(body.get("tools").is_none(), "no tools on a text-only turn");
    assert_eq!(
        body["messages"][2],
        json!({"role": "assistant", "content": "Checking.", "tool_calls": [{
            "id": "call_9", "type": "function",
            "function": {"name": "metrics", "arguments": "{\"target\":\"pve1\"}"}}]})
    );
    assert_eq!(
        body["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_9", "content": "{\"ok\":true,\"data\":{\"disk\":\"41%\"}}"})
    );
    assert_eq!(
        body["messages"][4],
        json!({"role": "system", "content": "Answer now."})
    );
}

#[tokio::test]
async fn interleaved_tool_calls_with_ids_only_on_first_fragments() {
    // vLLM-style: ids and names on the first fragment of each index only.
    let stream = sse_data(&[
        &chunk(r#"{"role":"assistant","content":null}"#, "null"),
        &chunk(
            r#"{"tool_calls":[{"index":0,"id":"chatcmpl-tool-4f1c","type":"function","function":{"name":"query","arguments":""}}]}"#,
            "null",
        ),
        &chunk(
            r#"{"tool_calls":[{"index":1,"id":"chatcmpl-tool-9a2b","type":"function","function":{"name":"metrics","arguments":"{\"tar"}}]}"#,
            "null",
        ),
        &chunk(
            r#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"action\": \"get\", "}}]}"#,
            "null",
        ),
        &chunk(
            r#"{"tool_calls":[{"index":1,"function":{"arguments":"get\": \"pve1\"}"}}]}"#,
            "null",
        ),
        &chunk(
            r#"{"tool_calls":[{"index":0,"function":{"arguments":"\"target\": \"web1\"}"}}]}"#,
            "null",
        ),
        &chunk("{}", r#""tool_calls""#),
        &usage_chunk(310, 42),
        "[DONE]",
    ]);
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse(cut_every(&stream, 13))]);
    let outcome = complete(
        &mut *openai(&server),
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    let reply = outcome.reply();
    assert_eq!(reply.text, None);
    assert_eq!(reply.tool_calls.len(), 2);
    assert_eq!(reply.tool_calls[0].id, "chatcmpl-tool-4f1c");
    assert_eq!(reply.tool_calls[0].name, "query");
    assert_eq!(
        reply.tool_calls[0].arguments,
        json!({"action": "get", "target": "web1"})
    );
    assert_eq!(reply.tool_calls[1].id, "chatcmpl-tool-9a2b");
    assert_eq!(reply.tool_calls[1].arguments, json!({"target": "pve1"}));
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 310,
            output_tokens: 42
        })
    );
}

#[tokio::test]
async fn ollama_whole_calls_with_object_arguments_and_no_ids() {
    let head = r#""id":"chatcmpl-522","object":"chat.completion.chunk","created":1733500000,"model":"qwen3:8b","system_fingerprint":"fp_ollama""#;
    let stream = sse_data(&[
        &format!(
            r#"{{{head},"choices":[{{"index":0,"delta":{{"role":"assistant","content":"","reasoning":"Need the health."}},"finish_reason":null}}]}}"#
        ),
        &format!(
            r#"{{{head},"choices":[{{"index":0,"delta":{{"role":"assistant","content":"","tool_calls":[{{"function":{{"name":"query","arguments":{{"action":"health"}}}}}},{{"function":{{"name":"metrics","arguments":{{"target":"pve1"}}}}}}]}},"finish_reason":null}}]}}"#
        ),
        &format!(
            r#"{{{head},"choices":[{{"index":0,"delta":{{"role":"assistant","content":""}},"finish_reason":"tool_calls"}}],"usage":{{"prompt_tokens":150,"completion_tokens":30,"total_tokens":180}}}}"#
        ),
        "[DONE]",
    ]);
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse([stream])]);
    let outcome = complete(
        &mut *openai(&server),
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    let reply = outcome.reply();
    assert_eq!(outcome.thinking, vec!["Need the health."]);
    assert_eq!(reply.tool_calls.len(), 2);
    assert_eq!(reply.tool_calls[0].name, "query");
    assert_eq!(reply.tool_calls[0].arguments, json!({"action": "health"}));
    assert_eq!(reply.tool_calls[1].arguments, json!({"target": "pve1"}));
    assert!(reply.tool_calls[0].id.starts_with("call_"));
    assert_ne!(reply.tool_calls[0].id, reply.tool_calls[1].id);
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 150,
            output_tokens: 30
        })
    );
}

#[tokio::test]
async fn eof_without_done_keeps_the_last_frame() {
    // llama.cpp-style: the last event has no blank line and no [DONE]; the
    // body ends when the server closes the connection.
    let last = format!(
        r#"{{{HEAD},"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"call_z","function":{{"name":"query","arguments":"{{\"action\":\"health\"}}"}}}}]}},"finish_reason":"tool_calls"}}],"usage":{{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}}}"#
    );
    let stream = format!(
        "data: {}\n\ndata: {}\n\ndata: {last}",
        chunk(r#"{"content":"It is "}"#, "null"),
        chunk(r#"{"content":"up."}"#, "null"),
    );
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![Reply::sse(cut_every(&stream, 50)).framing(Framing::Close)],
    );
    let outcome = complete(
        &mut *openai(&server),
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    let reply = outcome.reply();
    assert_eq!(reply.text.as_deref(), Some("It is up."));
    assert_eq!(reply.tool_calls.len(), 1);
    assert_eq!(reply.tool_calls[0].arguments, json!({"action": "health"}));
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 5,
            output_tokens: 3
        })
    );
}

#[tokio::test]
async fn malformed_tool_json_is_marked_not_fatal() {
    let stream = sse_data(&[
        &chunk(
            r#"{"tool_calls":[{"index":0,"id":"call_m","type":"function","function":{"name":"query","arguments":"{\"action\": \"li"}}]}"#,
            "null",
        ),
        &chunk(
            r#"{"tool_calls":[{"index":0,"function":{"arguments":"st\", target: web1}"}}]}"#,
            "null",
        ),
        &chunk("{}", r#""tool_calls""#),
        "[DONE]",
    ]);
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse([stream])]);
    let outcome = complete(
        &mut *openai(&server),
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    let call = &outcome.reply().tool_calls[0];
    assert_eq!(call.id, "call_m");
    assert_eq!(
        call.arguments,
        json!({MALFORMED_ARGUMENTS: "{\"action\": \"list\", target: web1}"})
    );
}

#[tokio::test]
async fn error_object_mid_stream_is_an_error() {
    let stream = sse_data(&[
        &chunk(r#"{"content":"Partial"}"#, "null"),
        r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#,
    ]);
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse([stream])]);
    let outcome = complete(
        &mut *openai(&server),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Stream { provider, message } => {
            assert_eq!(provider, "openai");
            assert!(message.contains("error while processing"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome.texts, vec!["Partial"]);
}

#[tokio::test]
async fn stream_options_rejection_is_retried_once_and_remembered() {
    let rejection = r#"{"object":"error","message":"[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted'}]","type":"BadRequestError","param":null,"code":400}"#;
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(400, rejection),
            Reply::sse([text_stream()]),
            Reply::sse([text_stream()]),
        ],
    );
    let mut provider = openai(&server);
    complete(&mut *provider, &user("a"), &[], ToolOffer::Tools, None)
        .await
        .reply();
    complete(&mut *provider, &user("b"), &[], ToolOffer::Tools, None)
        .await
        .reply();
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[0].body.get("stream_options").is_some());
    assert!(requests[1].body.get("stream_options").is_none());
    assert!(
        requests[2].body.get("stream_options").is_none(),
        "remembered"
    );
}

#[tokio::test]
async fn no_key_means_no_authorization_header() {
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse([text_stream()])]);
    let mut config = config(ProviderKind::OpenAi, format!("{}/v1/", server.url()));
    config.api_key = None;
    config.max_output_tokens = Some(512);
    let mut provider = connect(&config).unwrap();
    complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None)
        .await
        .reply();
    let request = &server.requests()[0];
    assert_eq!(
        request.target, "/v1/chat/completions",
        "trailing slash tolerated"
    );
    assert_eq!(request.header("authorization"), None);
    assert_eq!(request.body["max_tokens"], 512);
}
