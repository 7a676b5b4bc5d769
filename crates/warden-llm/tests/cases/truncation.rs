//! Streams cut short (issue 12 §1): no finish reason, a tool call cut
//! mid-JSON, a connection broken mid-answer, in each wire format. Tried
//! once more when nothing reached the caller yet; otherwise truncated.

use std::time::Duration;

use warden_llm::{Provider, ProviderConfig, ProviderError, ProviderKind, ToolOffer, connect};

use crate::support::{complete, config, sample_tools, user};
use warden_testkit::model::{
    FakeModel, Framing, Reply, Wire, openai_chunk, openai_hello, openai_text, sse_data,
};

/// A tool call whose arguments stop mid-JSON, then the body ends cleanly
/// (no finish reason, no `[DONE]`): nothing reached the caller.
fn cut_tool_call() -> Reply {
    Reply::sse([sse_data(&[&openai_chunk(
        r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query","arguments":"{\"action\": \"he"}}]}"#,
        "null",
    )])])
}

fn openai(server: &FakeModel, tweak: impl FnOnce(&mut ProviderConfig)) -> Box<dyn Provider + Send> {
    let mut config = config(ProviderKind::OpenAi, format!("{}/v1", server.url()));
    tweak(&mut config);
    connect(&config).expect("connect")
}

#[tokio::test]
async fn eof_without_finish_reason_is_retried_once_then_truncated() {
    let no_finish = || {
        Reply::sse([sse_data(&[&openai_chunk(
            r#"{"role":"assistant"}"#,
            "null",
        )])])
    };
    let server = FakeModel::replying(Wire::OpenAi, vec![no_finish(), no_finish(), openai_hello()]);
    let outcome = complete(
        &mut *openai(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Truncated { provider, message } => {
            assert_eq!(provider, "openai");
            assert!(message.contains("without a finish reason"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 2, "one retry, not more");
    assert_eq!(outcome.notices.len(), 1, "{:?}", outcome.notices);
    assert!(outcome.notices[0].contains("ended its answer early"));
}

#[tokio::test]
async fn a_cut_stream_is_retried_once_and_the_retry_can_succeed() {
    let server = FakeModel::replying(Wire::OpenAi, vec![cut_tool_call(), openai_hello()]);
    let outcome = complete(
        &mut *openai(&server, |_| {}),
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    assert!(
        outcome.reply().tool_calls.is_empty(),
        "the cut call is gone"
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn text_already_shown_is_not_retried_but_reported_truncated() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::sse([sse_data(&[&openai_text("The disk is ")])]).framing(Framing::Close),
            openai_hello(),
        ],
    );
    let outcome = complete(
        &mut *openai(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Truncated { message, .. } => {
            assert!(
                message.contains("part of the answer was shown"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome.texts, vec!["The disk is "]);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn eof_mid_tool_call_is_truncated_even_with_a_finish_reason() {
    // `finish_reason: length` inside a call: the arguments are cut.
    let cut_by_length = || {
        Reply::sse([sse_data(&[
            &openai_chunk(
                r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query","arguments":"{\"action\": \"he"}}]}"#,
                "null",
            ),
            &openai_chunk("{}", r#""length""#),
            "[DONE]",
        ])])
    };
    let server = FakeModel::replying(Wire::OpenAi, vec![cut_by_length(), cut_tool_call()]);
    let outcome = complete(
        &mut *openai(&server, |_| {}),
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Truncated { message, .. } => {
            assert!(message.contains("inside a tool call"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_connection_broken_mid_answer_is_truncated() {
    // Chunked body that stops without its terminating chunk.
    let broken = Reply::sse([sse_data(&[&openai_text("Checking")])]).stall(Duration::ZERO);
    let server = FakeModel::replying(Wire::OpenAi, vec![broken]);
    let outcome = complete(
        &mut *openai(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Truncated { message, .. } => {
            assert!(message.contains("broke mid-answer"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome.texts, vec!["Checking"]);
}

/// Anthropic frames: `event:` + `data:`.
fn frames(events: &[(&str, &str)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

const MESSAGE_START: &str =
    r#"{"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}"#;

#[tokio::test]
async fn anthropic_without_message_stop_is_truncated_inside_a_tool_call() {
    let cut = frames(&[
        ("message_start", MESSAGE_START),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"query","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"action\": \"ge"}}"#,
        ),
    ]);
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![Reply::sse([cut.clone()]), Reply::sse([cut])],
    );
    let mut provider = connect(&config(ProviderKind::Anthropic, server.url())).unwrap();
    let outcome = complete(
        &mut *provider,
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Truncated { provider, message } => {
            assert_eq!(provider, "anthropic");
            assert!(message.contains("inside a tool call"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn anthropic_stop_reason_without_message_stop_is_complete() {
    let stream = frames(&[
        ("message_start", MESSAGE_START),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}"#,
        ),
    ]);
    let server = FakeModel::replying(Wire::Anthropic, vec![Reply::sse([stream])]);
    let mut provider = connect(&config(ProviderKind::Anthropic, server.url())).unwrap();
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    assert_eq!(outcome.reply().text.as_deref(), Some("Done."));
}

#[tokio::test]
async fn gemini_without_a_final_finish_reason_is_truncated() {
    let part = |text: &str| {
        format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"text":"{text}"}}],"role":"model"}},"index":0}}]}}"#
        )
    };
    let cut = sse_data(&[&part("Checking")]);
    let complete_reply = sse_data(&[
        &part("All"),
        r#"{"candidates":[{"content":{"parts":[{"text":" good."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2}}"#,
    ]);
    let server = FakeModel::replying(
        Wire::Gemini,
        vec![Reply::sse([cut]), Reply::sse([complete_reply])],
    );
    let mut provider = connect(&config(ProviderKind::Gemini, server.url())).unwrap();
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    match outcome.error() {
        ProviderError::Truncated { provider, .. } => assert_eq!(provider, "gemini"),
        other => panic!("{other:?}"),
    }
    assert_eq!(outcome.texts, vec!["Checking"]);
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    assert_eq!(outcome.reply().text.as_deref(), Some("All good."));
}
