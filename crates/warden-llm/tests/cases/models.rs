//! Model selection at `connect`: configured wins; otherwise the live list.

use warden_llm::{ProviderError, ProviderKind, connect};

use crate::support::{FakeServer, Reply, TEST_KEY, config};

#[test]
fn a_configured_model_needs_no_network() {
    let server = FakeServer::start(vec![]);
    let provider = connect(&config(ProviderKind::OpenAi, server.url())).unwrap();
    assert_eq!(provider.identity(), ("openai", "test-model"));
    assert!(server.requests().is_empty());
}

#[test]
fn openai_compatible_list_skips_non_chat_models() {
    let list = r#"{"object":"list","data":[
        {"id":"nomic-embed-text:latest","object":"model","created":1733500000,"owned_by":"library"},
        {"id":"whisper-large-v3","object":"model","created":1733500000,"owned_by":"library"},
        {"id":"qwen3:8b","object":"model","created":1733400000,"owned_by":"library"},
        {"id":"llama3.2:3b","object":"model","created":1733300000,"owned_by":"library"}]}"#;
    let server = FakeServer::start(vec![Reply::json(200, list)]);
    let mut config = config(ProviderKind::OpenAi, format!("{}/v1", server.url()));
    config.model = None;
    let provider = connect(&config).unwrap();
    assert_eq!(provider.identity(), ("openai", "qwen3:8b"));
    let request = &server.requests()[0];
    assert_eq!(
        (request.method.as_str(), request.target.as_str()),
        ("GET", "/v1/models")
    );
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TEST_KEY}").as_str())
    );
}

#[test]
fn anthropic_list_uses_its_headers() {
    let list = r#"{"data":[{"type":"model","id":"claude-newest","display_name":"Claude Newest","created_at":"2026-02-24T00:00:00Z"},{"type":"model","id":"claude-older","display_name":"Claude Older","created_at":"2025-05-22T00:00:00Z"}],"has_more":false,"first_id":"claude-newest","last_id":"claude-older"}"#;
    let server = FakeServer::start(vec![Reply::json(200, list)]);
    let mut config = config(ProviderKind::Anthropic, server.url());
    config.model = None;
    let provider = connect(&config).unwrap();
    assert_eq!(provider.identity(), ("anthropic", "claude-newest"));
    let request = &server.requests()[0];
    assert_eq!(request.path(), "/v1/models");
    assert_eq!(request.header("x-api-key"), Some(TEST_KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
}

#[test]
fn gemini_list_needs_generate_content() {
    let list = r#"{"models": [
        {"name": "models/embedding-001","version": "001","displayName": "Embedding 001","supportedGenerationMethods": ["embedContent"]},
        {"name": "models/imagen-x","supportedGenerationMethods": ["predict"]},
        {"name": "models/gemini-test-flash","version": "001","displayName": "Gemini Test Flash","inputTokenLimit": 1048576,"outputTokenLimit": 65536,"supportedGenerationMethods": ["generateContent", "countTokens", "createCachedContent"]}
    ],"nextPageToken": "Ch1tb2RlbHMvZ2VtaW5p"}"#;
    let server = FakeServer::start(vec![Reply::json(200, list)]);
    let mut config = config(ProviderKind::Gemini, server.url());
    config.model = None;
    let provider = connect(&config).unwrap();
    assert_eq!(provider.identity(), ("gemini", "gemini-test-flash"));
    let request = &server.requests()[0];
    assert_eq!(request.path(), "/v1beta/models");
    assert_eq!(request.header("x-goog-api-key"), Some(TEST_KEY));
    assert!(!request.target.contains(TEST_KEY));
}

#[test]
fn no_usable_model_names_the_url_and_the_list() {
    let list = r#"{"object":"list","data":[{"id":"text-embedding-3-large","object":"model"},{"id":"tts-1","object":"model"}]}"#;
    let server = FakeServer::start(vec![
        Reply::json(200, list),
        Reply::json(200, r#"{"object":"list","data":[]}"#),
    ]);
    let mut config = config(ProviderKind::OpenAi, format!("{}/v1", server.url()));
    config.model = None;
    let Err(ProviderError::NoModel(message)) = connect(&config) else {
        panic!("expected NoModel");
    };
    assert!(
        message.contains(&format!("{}/v1/models", server.url())),
        "{message}"
    );
    assert!(
        message.contains("text-embedding-3-large") && message.contains("tts-1"),
        "{message}"
    );
    let Err(ProviderError::NoModel(message)) = connect(&config) else {
        panic!("expected NoModel");
    };
    assert!(message.contains("listed no models"), "{message}");
}

#[test]
fn a_failing_model_list_is_an_http_error() {
    let server = FakeServer::start(vec![Reply::json(
        401,
        r#"{"error":{"message":"invalid x-api-key","type":"authentication_error"},"type":"error"}"#,
    )]);
    let mut config = config(ProviderKind::Anthropic, server.url());
    config.model = None;
    match connect(&config) {
        Err(ProviderError::Http {
            status: 401,
            message,
            ..
        }) => assert!(message.contains("invalid x-api-key")),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("expected an error"),
    }
}

#[test]
fn configuration_errors_are_caught_before_any_request() {
    let mut config = config(ProviderKind::Anthropic, "localhost:1234".into());
    assert!(matches!(connect(&config), Err(ProviderError::Config(_))));
    config.base_url = None;
    config.api_key = None;
    assert!(matches!(connect(&config), Err(ProviderError::Config(_))));
}
