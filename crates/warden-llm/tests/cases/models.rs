//! Model selection: a configured model wins; otherwise the live list is
//! read on the first call (never at `connect`) and the choice is kept.

use std::time::Duration;

use warden_llm::{ProviderError, ProviderKind, ToolOffer, connect, connect_or_unavailable};

use crate::support::{TEST_KEY, complete, config, user};
use warden_testkit::model::{FakeModel, Reply, Wire, sse_data};

const OPENAI_HELLO: &str = r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hello"},"finish_reason":"stop"}]}"#;

fn openai_hello() -> Reply {
    Reply::sse([sse_data(&[OPENAI_HELLO, "[DONE]"])])
}

/// A plain test: `connect` needs neither the network nor a runtime.
#[test]
fn a_configured_model_needs_no_network() {
    let server = FakeModel::start(Wire::OpenAi);
    let provider = connect(&config(ProviderKind::OpenAi, server.url())).unwrap();
    assert_eq!(provider.identity(), ("openai", "test-model"));
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn openai_compatible_list_is_read_on_the_first_call_and_kept() {
    let list = r#"{"object":"list","data":[
        {"id":"nomic-embed-text:latest","object":"model","created":1733500000,"owned_by":"library"},
        {"id":"whisper-large-v3","object":"model","created":1733500000,"owned_by":"library"},
        {"id":"qwen3:8b","object":"model","created":1733400000,"owned_by":"library"},
        {"id":"llama3.2:3b","object":"model","created":1733300000,"owned_by":"library"}]}"#;
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![Reply::json(200, list), openai_hello(), openai_hello()],
    );
    let mut config = config(ProviderKind::Ollama, format!("{}/v1", server.url()));
    config.model = None;
    let mut provider = connect(&config).unwrap();
    assert_eq!(provider.identity(), ("ollama", "auto"));
    assert!(
        server.requests().is_empty(),
        "connect stays off the network"
    );

    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hello"));
    assert_eq!(provider.identity(), ("ollama", "qwen3:8b"));
    complete(&mut *provider, &user("y"), &[], ToolOffer::Tools, None)
        .await
        .reply();

    let requests = server.requests();
    assert_eq!(requests.len(), 3, "the list is read once");
    assert_eq!(
        (requests[0].method.as_str(), requests[0].target.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {TEST_KEY}").as_str())
    );
    assert_eq!(requests[1].body["model"], "qwen3:8b");
    assert_eq!(requests[2].body["model"], "qwen3:8b");
}

#[tokio::test]
async fn anthropic_list_uses_its_headers() {
    let list = r#"{"data":[{"type":"model","id":"claude-newest","display_name":"Claude Newest","created_at":"2026-02-24T00:00:00Z"},{"type":"model","id":"claude-older","display_name":"Claude Older","created_at":"2025-05-22T00:00:00Z"}],"has_more":false,"first_id":"claude-newest","last_id":"claude-older"}"#;
    let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![Reply::json(200, list), Reply::sse([stream])],
    );
    let mut config = config(ProviderKind::Anthropic, server.url());
    config.model = None;
    let mut provider = connect(&config).unwrap();
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    assert_eq!(outcome.reply().text.as_deref(), Some("hi"));
    assert_eq!(provider.identity(), ("anthropic", "claude-newest"));
    let requests = server.requests();
    assert_eq!(requests[0].path(), "/v1/models");
    assert_eq!(requests[0].header("x-api-key"), Some(TEST_KEY));
    assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(requests[1].body["model"], "claude-newest");
}

#[tokio::test]
async fn gemini_list_needs_generate_content() {
    let list = r#"{"models": [
        {"name": "models/embedding-001","version": "001","displayName": "Embedding 001","supportedGenerationMethods": ["embedContent"]},
        {"name": "models/imagen-x","supportedGenerationMethods": ["predict"]},
        {"name": "models/gemini-test-flash","version": "001","displayName": "Gemini Test Flash","inputTokenLimit": 1048576,"outputTokenLimit": 65536,"supportedGenerationMethods": ["generateContent", "countTokens", "createCachedContent"]}
    ],"nextPageToken": "Ch1tb2RlbHMvZ2VtaW5p"}"#;
    let stream = sse_data(&[
        r#"{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}]}"#,
    ]);
    let server = FakeModel::replying(
        Wire::Gemini,
        vec![Reply::json(200, list), Reply::sse([stream])],
    );
    let mut config = config(ProviderKind::Gemini, server.url());
    config.model = None;
    let mut provider = connect(&config).unwrap();
    complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None)
        .await
        .reply();
    assert_eq!(provider.identity(), ("gemini", "gemini-test-flash"));
    let requests = server.requests();
    assert_eq!(requests[0].path(), "/v1beta/models");
    assert_eq!(requests[0].header("x-goog-api-key"), Some(TEST_KEY));
    assert!(!requests[0].target.contains(TEST_KEY));
    assert_eq!(
        requests[1].path(),
        "/v1beta/models/gemini-test-flash:streamGenerateContent"
    );
}

#[tokio::test]
async fn no_usable_model_names_the_url_and_the_list_and_is_looked_up_again() {
    let list = r#"{"object":"list","data":[{"id":"text-embedding-3-large","object":"model"},{"id":"tts-1","object":"model"}]}"#;
    let server = FakeModel::replying(
        Wire::OpenAi,
        vec![
            Reply::json(200, list),
            Reply::json(200, r#"{"object":"list","data":[]}"#),
        ],
    );
    let mut config = config(ProviderKind::OpenAi, format!("{}/v1", server.url()));
    config.model = None;
    let mut provider = connect(&config).unwrap();
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    let ProviderError::NoModel(message) = outcome.error() else {
        panic!("expected NoModel, got {:?}", outcome.error());
    };
    assert!(
        message.contains(&format!("{}/v1/models", server.url())),
        "{message}"
    );
    assert!(
        message.contains("text-embedding-3-large") && message.contains("tts-1"),
        "{message}"
    );
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    let ProviderError::NoModel(message) = outcome.error() else {
        panic!("expected NoModel, got {:?}", outcome.error());
    };
    assert!(message.contains("listed no models"), "{message}");
    assert_eq!(provider.identity().1, "auto");
}

#[tokio::test]
async fn a_failing_model_list_is_an_http_error_at_the_call() {
    let server = FakeModel::replying(
        Wire::Anthropic,
        vec![Reply::json(
            401,
            r#"{"error":{"message":"invalid x-api-key","type":"authentication_error"},"type":"error"}"#,
        )],
    );
    let mut config = config(ProviderKind::Anthropic, server.url());
    config.model = None;
    let mut provider = connect(&config).unwrap();
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    match outcome.error() {
        ProviderError::Http {
            provider,
            status: 401,
            message,
        } => {
            assert_eq!(provider, "anthropic");
            assert!(message.contains("invalid x-api-key"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_unreachable_server_fails_the_lookup_naming_the_configured_kind() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = config(ProviderKind::Ollama, format!("http://127.0.0.1:{port}/v1"));
    config.model = None;
    config.max_retries = 0;
    let mut provider = connect(&config).expect("connect never touches the network");
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    match outcome.error() {
        ProviderError::Transport { provider, message } => {
            assert_eq!(provider, "ollama");
            assert!(message.contains("/v1/models"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        outcome
            .error()
            .to_string()
            .starts_with("cannot reach ollama"),
        "{}",
        outcome.error()
    );
    assert!(outcome.elapsed < Duration::from_secs(2));
}

#[tokio::test]
async fn configuration_errors_are_caught_before_any_request() {
    let mut config = config(ProviderKind::Anthropic, "localhost:1234".into());
    assert!(matches!(connect(&config), Err(ProviderError::Config(_))));
    config.base_url = None;
    config.api_key = None;
    assert!(matches!(connect(&config), Err(ProviderError::Config(_))));
}

#[tokio::test]
async fn a_provider_without_its_key_fails_each_call_naming_its_kind() {
    let mut config = config(ProviderKind::Anthropic, "http://127.0.0.1:9".into());
    config.api_key = None;
    let mut provider = connect_or_unavailable(&config);
    assert_eq!(provider.identity(), ("anthropic", "test-model"));
    for _ in 0..2 {
        let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
        let message = outcome.error().to_string();
        assert!(message.contains("anthropic needs an API key"), "{message}");
    }
    let mut gemini = config.clone();
    gemini.kind = ProviderKind::Gemini;
    gemini.model = None;
    let provider = connect_or_unavailable(&gemini);
    assert_eq!(provider.identity(), ("gemini", "auto"));
}
