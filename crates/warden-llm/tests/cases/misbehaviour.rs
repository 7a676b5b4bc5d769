//! Servers that misbehave (issue 12 §1): streams cut short, keep-alives
//! forever, slow trickles, long rate limits, oversized replies, servers
//! that are not there, and callers that give up. Each against a real
//! loopback server, through the real client.

use std::time::Duration;

use warden_llm::{Provider, ProviderConfig, ProviderError, ProviderKind, ToolOffer, connect};
use warden_protocol::CancelFlag;

use crate::support::{FakeServer, Framing, Reply, complete, config, sample_tools, sse_data, user};

fn chunk(delta: &str, finish: &str) -> String {
    format!(
        r#"{{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{delta},"finish_reason":{finish}}}]}}"#
    )
}

fn text(content: &str) -> String {
    chunk(&format!(r#"{{"content":"{content}"}}"#), "null")
}

fn hello_stream() -> Reply {
    Reply::sse([sse_data(&[
        &text("hello"),
        &chunk("{}", r#""stop""#),
        "[DONE]",
    ])])
}

/// A tool call whose arguments stop mid-JSON, then the body ends cleanly
/// (no finish reason, no `[DONE]`): nothing reached the caller.
fn cut_tool_call() -> Reply {
    Reply::sse([sse_data(&[&chunk(
        r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query","arguments":"{\"action\": \"he"}}]}"#,
        "null",
    )])])
}

fn openai(
    server: &FakeServer,
    tweak: impl FnOnce(&mut ProviderConfig),
) -> Box<dyn Provider + Send> {
    let mut config = config(ProviderKind::OpenAi, format!("{}/v1", server.url()));
    tweak(&mut config);
    connect(&config).expect("connect")
}

#[tokio::test]
async fn eof_without_finish_reason_is_retried_once_then_truncated() {
    let no_finish = || Reply::sse([sse_data(&[&chunk(r#"{"role":"assistant"}"#, "null")])]);
    let server = FakeServer::start(vec![no_finish(), no_finish(), hello_stream()]);
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
    let server = FakeServer::start(vec![cut_tool_call(), hello_stream()]);
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
    let server = FakeServer::start(vec![
        Reply::sse([sse_data(&[&text("The disk is ")])]).framing(Framing::Close),
        hello_stream(),
    ]);
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
            &chunk(
                r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query","arguments":"{\"action\": \"he"}}]}"#,
                "null",
            ),
            &chunk("{}", r#""length""#),
            "[DONE]",
        ])])
    };
    let server = FakeServer::start(vec![cut_by_length(), cut_tool_call()]);
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
    let broken = Reply::sse([sse_data(&[&text("Checking")])]).stall(Duration::ZERO);
    let server = FakeServer::start(vec![broken]);
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

#[tokio::test]
async fn keep_alive_comments_forever_do_not_defeat_the_idle_timeout() {
    let server = FakeServer::start(vec![
        Reply::sse([sse_data(&[&text("hel")])])
            .then_forever(": keep-alive\n\n", Duration::from_millis(100)),
    ]);
    let outcome = complete(
        &mut *openai(&server, |c| c.idle_timeout = Duration::from_millis(600)),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert!(
        matches!(outcome.error(), ProviderError::IdleTimeout { provider, .. } if provider == "openai"),
        "{:?}",
        outcome.error()
    );
    assert!(
        outcome.elapsed < Duration::from_secs(3),
        "{:?}",
        outcome.elapsed
    );
    assert!(
        server.wait_for_hang_ups(1, Duration::from_secs(3)).await,
        "the connection was closed"
    );
}

#[tokio::test]
async fn anthropic_pings_forever_do_not_defeat_the_idle_timeout() {
    let start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n";
    let server = FakeServer::start(vec![Reply::sse([start]).then_forever(
        "event: ping\ndata: {\"type\": \"ping\"}\n\n",
        Duration::from_millis(100),
    )]);
    let mut short = config(ProviderKind::Anthropic, server.url());
    short.idle_timeout = Duration::from_millis(600);
    let mut provider = connect(&short).unwrap();
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    assert!(
        matches!(outcome.error(), ProviderError::IdleTimeout { .. }),
        "{:?}",
        outcome.error()
    );
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
    let server = FakeServer::start(vec![Reply::sse([cut.clone()]), Reply::sse([cut])]);
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
    let server = FakeServer::start(vec![Reply::sse([stream])]);
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
    let server = FakeServer::start(vec![Reply::sse([cut]), Reply::sse([complete_reply])]);
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

#[tokio::test]
async fn a_slow_trickle_runs_into_the_overall_deadline() {
    let piece = format!("data: {}\n\n", text("."));
    let server = FakeServer::start(vec![
        Reply::sse(Vec::<Vec<u8>>::new()).then_forever(piece, Duration::from_millis(150)),
    ]);
    let outcome = complete(
        &mut *openai(&server, |c| c.request_timeout = Duration::from_secs(1)),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(
        outcome.error(),
        &ProviderError::Deadline {
            provider: "openai".into(),
            seconds: 1
        }
    );
    assert!(!outcome.texts.is_empty(), "text did arrive, slowly");
    assert!(
        outcome.elapsed >= Duration::from_millis(950) && outcome.elapsed < Duration::from_secs(3),
        "{:?}",
        outcome.elapsed
    );
    assert!(server.wait_for_hang_ups(1, Duration::from_secs(3)).await);
}

const RATE_LIMITED: &str =
    r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;

#[tokio::test]
async fn retry_after_longer_than_the_cap_is_reported_at_once() {
    let server = FakeServer::start(vec![
        Reply::json(429, RATE_LIMITED).header("Retry-After", "120"),
        hello_stream(),
    ]);
    let outcome = complete(
        &mut *openai(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(
        outcome.error(),
        &ProviderError::RateLimited {
            provider: "openai".into(),
            retry_after_secs: 120
        }
    );
    assert!(outcome.error().to_string().contains("120 s"));
    assert_eq!(server.requests().len(), 1, "no wait, no retry");
    assert!(
        outcome.elapsed < Duration::from_secs(1),
        "{:?}",
        outcome.elapsed
    );
}

#[tokio::test]
async fn the_retry_after_cap_is_configurable() {
    let server = FakeServer::start(vec![
        Reply::json(503, "busy").header("Retry-After", "2"),
        hello_stream(),
    ]);
    let outcome = complete(
        &mut *openai(&server, |c| c.max_retry_after = Duration::from_secs(1)),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert!(
        matches!(
            outcome.error(),
            ProviderError::RateLimited {
                retry_after_secs: 2,
                ..
            }
        ),
        "{:?}",
        outcome.error()
    );
}

#[tokio::test]
async fn a_short_retry_after_is_waited_out_with_a_notice() {
    let server = FakeServer::start(vec![
        Reply::json(429, RATE_LIMITED).header("Retry-After", "1"),
        hello_stream(),
    ]);
    let outcome = complete(
        &mut *openai(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    assert_eq!(
        outcome.notices,
        vec!["rate-limited by openai: retrying in 1 s"]
    );
    assert!(
        outcome.elapsed >= Duration::from_millis(950),
        "{:?}",
        outcome.elapsed
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_with_attempt_notices() {
    let server = FakeServer::start(vec![
        Reply::json(503, "upstream unavailable").header("Retry-After", "0"),
        hello_stream(),
    ]);
    let outcome = complete(
        &mut *openai(&server, |c| c.max_retries = 3),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    assert_eq!(
        outcome.notices,
        vec!["openai answered 503: retrying in 0 s (attempt 2 of 4)"]
    );
}

#[tokio::test]
async fn an_oversized_reply_stops_reading() {
    let piece = format!("data: {}\n\n", text(&"x".repeat(100)));
    let server = FakeServer::start(vec![
        Reply::sse(Vec::<Vec<u8>>::new()).then_forever(piece, Duration::from_millis(5)),
    ]);
    let outcome = complete(
        &mut *openai(&server, |c| c.max_reply_bytes = 1000),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(
        outcome.error(),
        &ProviderError::ReplyTooLarge {
            provider: "openai".into(),
            limit_bytes: 1000
        }
    );
    assert!(outcome.texts.len() <= 11, "{}", outcome.texts.len());
    assert!(server.wait_for_hang_ups(1, Duration::from_secs(3)).await);
}

#[tokio::test]
async fn oversized_tool_call_arguments_count_too() {
    let fragment = |arguments: &str| {
        chunk(
            &format!(
                r#"{{"tool_calls":[{{"index":0,"id":"call_1","type":"function","function":{{"name":"query","arguments":"{arguments}"}}}}]}}"#
            ),
            "null",
        )
    };
    let mut events = vec![fragment(r#"{\"text\": \""#)];
    events.extend((0..20).map(|_| fragment(&"y".repeat(100))));
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = FakeServer::start(vec![Reply::sse([sse_data(&events)])]);
    let outcome = complete(
        &mut *openai(&server, |c| c.max_reply_bytes = 1000),
        &user("x"),
        &sample_tools(),
        ToolOffer::Tools,
        None,
    )
    .await;
    assert!(
        matches!(
            outcome.error(),
            ProviderError::ReplyTooLarge {
                limit_bytes: 1000,
                ..
            }
        ),
        "{:?}",
        outcome.error()
    );
}

#[tokio::test]
async fn an_unreachable_server_is_named_by_its_configured_kind() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = config(ProviderKind::Ollama, format!("http://127.0.0.1:{port}/v1"));
    config.max_retries = 1;
    let mut provider = connect(&config).unwrap();
    assert_eq!(provider.identity().0, "ollama");
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    match outcome.error() {
        ProviderError::Transport { provider, message } => {
            assert_eq!(provider, "ollama");
            assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(!outcome.error().to_string().contains("openai"));
    assert_eq!(outcome.notices.len(), 1, "{:?}", outcome.notices);
    assert!(
        outcome.notices[0].starts_with("cannot reach ollama: retrying in"),
        "{:?}",
        outcome.notices
    );
}

#[tokio::test]
async fn cancellation_mid_stream_returns_promptly_and_closes_the_connection() {
    let server = FakeServer::start(vec![
        Reply::sse([sse_data(&[&text("hello")])])
            .then_forever(": keep-alive\n\n", Duration::from_millis(50)),
    ]);
    let flag = CancelFlag::new();
    let canceller = flag.clone();
    let timer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        canceller.cancel();
    });
    let outcome = complete(
        &mut *openai(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        Some(&flag),
    )
    .await;
    timer.join().unwrap();
    assert_eq!(outcome.error(), &ProviderError::Cancelled);
    assert_eq!(outcome.texts, vec!["hello"]);
    assert!(
        outcome.elapsed < Duration::from_millis(800),
        "{:?}",
        outcome.elapsed
    );
    assert!(
        server.wait_for_hang_ups(1, Duration::from_secs(3)).await,
        "the server saw the client hang up"
    );
}

#[tokio::test]
async fn dropping_the_call_closes_the_connection() {
    let server = FakeServer::start(vec![
        Reply::sse([sse_data(&[&text("hello")])])
            .then_forever(": keep-alive\n\n", Duration::from_millis(50)),
    ]);
    let mut provider = openai(&server, |_| {});
    let messages = user("x");
    let abandoned = tokio::time::timeout(
        Duration::from_millis(300),
        complete(&mut *provider, &messages, &[], ToolOffer::Tools, None),
    )
    .await;
    assert!(abandoned.is_err(), "the call was still streaming");
    assert!(server.wait_for_hang_ups(1, Duration::from_secs(3)).await);
}

#[tokio::test]
async fn a_long_wait_shows_progress() {
    let server = FakeServer::start(vec![hello_stream().delay_head(Duration::from_millis(5600))]);
    let outcome = complete(
        &mut *openai(&server, |c| c.idle_timeout = Duration::from_secs(20)),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    assert_eq!(outcome.notices, vec!["waiting for the model… 5 s"]);
}

#[tokio::test]
async fn a_retry_that_cannot_finish_before_the_deadline_is_not_waited_for() {
    let server = FakeServer::start(vec![
        Reply::json(429, RATE_LIMITED).header("Retry-After", "5"),
        hello_stream(),
    ]);
    let outcome = complete(
        &mut *openai(&server, |c| c.request_timeout = Duration::from_secs(2)),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert!(
        matches!(
            outcome.error(),
            ProviderError::RateLimited {
                retry_after_secs: 5,
                ..
            }
        ),
        "{:?}",
        outcome.error()
    );
    assert!(outcome.elapsed < Duration::from_secs(1));
}
