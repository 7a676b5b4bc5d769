use super::*;
use std::collections::HashMap;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn defaults_need_no_file_and_no_model() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_str().unwrap();
    let config = Config::load_with(&Overrides::default(), &env(&[("HOME", home)])).unwrap();
    assert!(config.provider_config().is_none());
    assert_eq!(config.control_level.value, ControlLevel::Controlled);
    assert_eq!(config.control_level.source, Source::Default);
}

#[test]
fn file_then_env_then_flags_with_sources() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "control_level = \"read_only\"\n[provider]\nkind = \"anthropic\"\nmodel = \"from-file\"\napi_key_env = \"MY_KEY\"\n[pricing.from-file]\ninput = 3.0\noutput = 15.0\n",
    )
    .unwrap();
    let overrides = Overrides {
        config: Some(path.clone()),
        level: Some(ControlLevel::Autonomous),
        ..Overrides::default()
    };
    let config = Config::load_with(
        &overrides,
        &env(&[("MY_KEY", "sk-secret-123\n"), ("WARDEN_MODEL", "from-env")]),
    )
    .unwrap();
    assert_eq!(config.control_level.value, ControlLevel::Autonomous);
    assert_eq!(config.control_level.source, Source::Flag("--level"));
    assert_eq!(config.model.value.as_deref(), Some("from-env"));
    assert_eq!(config.model.source, Source::Env("WARDEN_MODEL"));
    assert_eq!(config.provider.value, Some(ProviderKind::Anthropic));
    assert_eq!(config.provider.source, Source::File(path.clone()));
    let provider = config.provider_config().unwrap();
    assert_eq!(provider.api_key.as_ref().unwrap().expose(), "sk-secret-123");
    let shown = config.show();
    assert!(!shown.contains("sk-secret"), "{shown}");
    assert!(shown.contains("set (hidden)"), "{shown}");
    assert!(shown.contains("env WARDEN_MODEL"), "{shown}");
    assert_eq!(config.pricing["from-file"].output, 15.0);
}

#[test]
fn ollama_gets_its_local_url_and_bad_values_are_named() {
    let config = Config::load_with(
        &Overrides::default(),
        &env(&[("WARDEN_PROVIDER", "ollama"), ("WARDEN_MODEL", "llama3.2")]),
    )
    .unwrap();
    assert_eq!(
        config.base_url.value.as_deref(),
        Some("http://localhost:11434/v1")
    );
    let err = Config::load_with(
        &Overrides::default(),
        &env(&[("WARDEN_PROVIDER", "skynet")]),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("skynet"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, "[provider]\nkynd = \"openai\"\n").unwrap();
    let err = Config::load_with(
        &Overrides {
            config: Some(path),
            ..Overrides::default()
        },
        &env(&[]),
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("kynd"), "{err:#}");
    let missing = Config::load_with(
        &Overrides {
            config: Some(dir.path().join("nope.toml")),
            ..Overrides::default()
        },
        &env(&[]),
    );
    assert!(missing.is_err());
}
