//! Retries, timeouts, cancellation and error texts, through the
//! OpenAI-compatible provider (the transport is shared by all three).

use std::time::Duration;

use warden_llm::{ProviderError, ProviderKind, ToolOffer, connect};
use warden_protocol::CancelFlag;

use crate::support::{TEST_KEY, complete, config, user};
use warden_testkit::model::{FakeModel, Reply, Wire, sse_data};

const HELLO: &str = r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741570283,"model":"m","choices":[{"index":0,"delta":{"content":"hello"},"finish_reason":null}]}"#;

fn hello_stream() -> Reply {
    Reply::sse([sse_data(&[HELLO, "[DONE]"])])
}

fn provider(
    server: &FakeModel,
    tweak: impl FnOnce(&mut warden_llm::ProviderConfig),
) -> Box<dyn warden_llm::Provider + Send> {
    let mut config = config(ProviderKind::OpenAi, format!("{}/v1", server.url()));
    tweak(&mut config);
    connect(&config).expect("connect")
}

const RATE_LIMITED: &str = r#"{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#;

#[tokio::test]
async fn rate_limit_with_retry_after_zero_then_success() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(429, RATE_LIMITED).header("Retry-After", "0"),
            hello_stream(),
        ],
    );
    let outcome = complete(
        &mut *provider(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    assert_eq!(server.requests().len(), 2);
    assert!(outcome.elapsed < Duration::from_secs(1));
}

#[tokio::test]
async fn rate_limit_forever_gives_up_after_max_retries() {
    let server = FakeModel::start(Wire::OpenAi);
    server.set_fallback(Reply::json(429, RATE_LIMITED).header("Retry-After", "0"));
    let outcome = complete(
        &mut *provider(&server, |c| c.max_retries = 2),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    match outcome.error() {
        ProviderError::Http {
            provider,
            status,
            message,
        } => {
            assert_eq!((provider.as_str(), *status), ("openai", 429));
            assert!(message.contains("Rate limit reached"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.requests().len(), 3, "one try and two retries");
}

#[tokio::test]
async fn server_error_then_success_with_backoff() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(
                500,
                r#"{"error":{"message":"internal","type":"server_error"}}"#,
            ),
            Reply::json(503, "<html>upstream unavailable</html>").header("Retry-After", "0"),
            hello_stream(),
        ],
    );
    let outcome = complete(
        &mut *provider(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    assert_eq!(server.requests().len(), 3);
    // One jittered backoff (at most 500 ms), one Retry-After: 0.
    assert!(
        outcome.elapsed < Duration::from_millis(1000),
        "{:?}",
        outcome.elapsed
    );
}

#[tokio::test]
async fn client_errors_are_not_retried_and_carry_the_message() {
    let body = r#"{"error":{"message":"Incorrect API key provided: sk-test-0123456789abcdef. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
    let server = FakeModel::replying(Wire::OpenAi, vec![Reply::json(401, body)]);
    let outcome = complete(
        &mut *provider(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    let error = outcome.error();
    let text = format!("{error} {error:?}");
    assert!(matches!(error, ProviderError::Http { status: 401, .. }));
    assert!(text.contains("Incorrect API key provided"), "{text}");
    assert!(
        !text.contains(TEST_KEY),
        "the key never appears in errors: {text}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn idle_timeout_when_the_stream_stalls() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![Reply::sse([format!("data: {HELLO}\n\n")]).stall(Duration::from_secs(3))],
    );
    let outcome = complete(
        &mut *provider(&server, |c| c.idle_timeout = Duration::from_millis(300)),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert!(
        matches!(outcome.error(), ProviderError::IdleTimeout { .. }),
        "{:?}",
        outcome.error()
    );
    assert_eq!(
        outcome.texts,
        vec!["hello"],
        "text before the stall was streamed"
    );
    assert!(
        outcome.elapsed < Duration::from_millis(900),
        "{:?}",
        outcome.elapsed
    );
}

#[tokio::test]
async fn idle_timeout_while_waiting_for_the_response_head() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![hello_stream().delay_head(Duration::from_secs(3))],
    );
    let outcome = complete(
        &mut *provider(&server, |c| c.idle_timeout = Duration::from_millis(300)),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert!(matches!(outcome.error(), ProviderError::IdleTimeout { .. }));
    assert!(outcome.elapsed < Duration::from_millis(900));
    assert_eq!(server.requests().len(), 1, "a timeout is not retried");
}

#[tokio::test]
async fn cancellation_mid_stream_returns_promptly() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![Reply::sse([format!("data: {HELLO}\n\n")]).stall(Duration::from_secs(3))],
    );
    let flag = CancelFlag::new();
    let canceller = flag.clone();
    let timer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(250));
        canceller.cancel();
    });
    let outcome = complete(
        &mut *provider(&server, |_| {}),
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
        outcome.elapsed < Duration::from_millis(500),
        "{:?}",
        outcome.elapsed
    );
}

#[tokio::test]
async fn cancellation_during_backoff() {
    let server = FakeModel::start(Wire::OpenAi);
    server.set_fallback(Reply::json(429, RATE_LIMITED).header("Retry-After", "30"));
    let flag = CancelFlag::new();
    let canceller = flag.clone();
    let timer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        canceller.cancel();
    });
    let outcome = complete(
        &mut *provider(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        Some(&flag),
    )
    .await;
    timer.join().unwrap();
    assert_eq!(outcome.error(), &ProviderError::Cancelled);
    assert!(outcome.elapsed < Duration::from_millis(500));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn connection_refused_is_a_transport_error() {
    // Bind then drop: the port is (almost certainly) closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = config(ProviderKind::OpenAi, format!("http://127.0.0.1:{port}/v1"));
    config.max_retries = 0;
    let mut provider = connect(&config).unwrap();
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    match outcome.error() {
        ProviderError::Transport { provider, message } => {
            assert_eq!(provider, "openai");
            assert!(!message.contains(TEST_KEY));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn transport_failure_before_the_body_is_retried() {
    // The first response promises a chunked body and closes at once.
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::sse(Vec::<Vec<u8>>::new()).stall(Duration::ZERO),
            hello_stream(),
        ],
    );
    let outcome = complete(
        &mut *provider(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn redirects_are_reported_not_followed() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(301, "")
                .header("Location", "https://elsewhere.example/v1/chat/completions"),
            hello_stream(),
        ],
    );
    let outcome = complete(
        &mut *provider(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert!(
        matches!(outcome.error(), ProviderError::Http { status: 301, .. }),
        "{:?}",
        outcome.error()
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn already_cancelled_sends_nothing() {
    let server = FakeModel::replying(Wire::OpenAi, vec![hello_stream()]);
    let flag = CancelFlag::new();
    flag.cancel();
    let outcome = complete(
        &mut *provider(&server, |_| {}),
        &user("x"),
        &[],
        ToolOffer::Tools,
        Some(&flag),
    )
    .await;
    assert_eq!(outcome.error(), &ProviderError::Cancelled);
    std::thread::sleep(Duration::from_millis(50));
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_body_that_is_not_a_stream_is_an_error() {
    let not_streamed = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}"#;
    let error_document = r#"{"error":{"message":"upstream model crashed","type":"server_error"}}"#;
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(200, not_streamed),
            Reply::json(200, error_document),
            Reply::json(200, ""),
        ],
    );
    let mut provider = provider(&server, |_| {});
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    assert!(
        matches!(outcome.error(), ProviderError::Malformed { .. }),
        "{:?}",
        outcome.error()
    );
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    match outcome.error() {
        ProviderError::Stream { message, .. } => {
            assert!(message.contains("upstream model crashed"))
        }
        other => panic!("{other:?}"),
    }
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    assert!(
        outcome.error().to_string().contains("empty"),
        "{}",
        outcome.error()
    );
}

#[tokio::test]
async fn huge_configured_timeouts_do_not_overflow_the_clock() {
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(429, RATE_LIMITED).header("Retry-After", "0"),
            hello_stream(),
        ],
    );
    let outcome = complete(
        &mut *provider(&server, |c| {
            c.request_timeout = Duration::MAX;
            c.idle_timeout = Duration::MAX;
            c.max_retry_after = Duration::MAX;
        }),
        &user("x"),
        &[],
        ToolOffer::Tools,
        None,
    )
    .await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
}

/// A waiting call is a future, not a thread: fifty calls whose server
/// answers after half a second all finish together on one runtime thread
/// (one by one they would take 25 s).
#[tokio::test(flavor = "current_thread")]
async fn waiting_calls_share_one_thread() {
    let server = FakeModel::start(Wire::OpenAi);
    server.set_fallback(hello_stream().delay_head(Duration::from_millis(500)));
    let mut providers: Vec<_> = (0..50).map(|_| provider(&server, |_| {})).collect();
    let messages = user("x");
    let started = std::time::Instant::now();
    let outcomes = futures_util::future::join_all(
        providers
            .iter_mut()
            .map(|p| complete(&mut **p, &messages, &[], ToolOffer::Tools, None)),
    )
    .await;
    for outcome in &outcomes {
        assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    }
    assert_eq!(server.requests().len(), 50);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}
