//! Servers that misbehave (issue 12 §1): keep-alives forever, slow
//! trickles, long rate limits, oversized replies, servers that are not
//! there, and callers that give up. Each against a real loopback server,
//! through the real client. Streams cut short: `truncation.rs`.

use std::time::Duration;

use warden_llm::{Provider, ProviderConfig, ProviderError, ProviderKind, ToolOffer, connect};
use warden_protocol::CancelFlag;

use crate::support::{complete, config, sample_tools, user};
use warden_testkit::model::{
    FakeModel, Reply, Wire, openai_chunk, openai_hello, openai_text, sse_data,
};

fn openai(server: &FakeModel, tweak: impl FnOnce(&mut ProviderConfig)) -> Box<dyn Provider + Send> {
    let mut config = config(ProviderKind::OpenAi, format!("{}/v1", server.url()));
    tweak(&mut config);
    connect(&config).expect("connect")
}

#[tokio::test]
async fn keep_alive_comments_forever_do_not_defeat_the_idle_timeout() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::sse([sse_data(&[&openai_text("hel")])])
                .then_forever(": keep-alive\n\n", Duration::from_millis(100)),
        ],
    );
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
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![Reply::sse([start]).then_forever(
            "event: ping\ndata: {\"type\": \"ping\"}\n\n",
            Duration::from_millis(100),
        )],
    );
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
#[tokio::test]
async fn a_slow_trickle_runs_into_the_overall_deadline() {
    let piece = format!("data: {}\n\n", openai_text("."));
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![Reply::sse(Vec::<Vec<u8>>::new()).then_forever(piece, Duration::from_millis(150))],
    );
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
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(429, RATE_LIMITED).header("Retry-After", "120"),
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
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(503, "busy").header("Retry-After", "2"),
            openai_hello(),
        ],
    );
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
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(429, RATE_LIMITED).header("Retry-After", "1"),
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
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(503, "upstream unavailable").header("Retry-After", "0"),
            openai_hello(),
        ],
    );
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
    let piece = format!("data: {}\n\n", openai_text(&"x".repeat(100)));
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![Reply::sse(Vec::<Vec<u8>>::new()).then_forever(piece, Duration::from_millis(5))],
    );
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
        openai_chunk(
            &format!(
                r#"{{"tool_calls":[{{"index":0,"id":"call_1","type":"function","function":{{"name":"query","arguments":"{arguments}"}}}}]}}"#
            ),
            "null",
        )
    };
    let mut events = vec![fragment(r#"{\"text\": \""#)];
    events.extend((0..20).map(|_| fragment(&"y".repeat(100))));
    let events: Vec<&str> = events.iter().map(String::as_str).collect();
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::sse([sse_data(&events)])]);
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
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::sse([sse_data(&[&openai_text("hello")])])
                .then_forever(": keep-alive\n\n", Duration::from_millis(50)),
        ],
    );
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
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::sse([sse_data(&[&openai_text("hello")])])
                .then_forever(": keep-alive\n\n", Duration::from_millis(50)),
        ],
    );
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
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![openai_hello().delay_head(Duration::from_millis(5600))],
    );
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
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(429, RATE_LIMITED).header("Retry-After", "5"),
            openai_hello(),
        ],
    );
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
