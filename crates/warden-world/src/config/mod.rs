//! Configuration: built-in defaults, then a TOML file
//! (`~/.config/warden/config.toml`, `$WARDEN_CONFIG` or `--config`), then
//! `WARDEN_*` environment variables, then command-line flags. Every value
//! remembers where it came from, for `warden config show`. Secrets are never
//! printed.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use warden_core::agent::usage::Prices;
use warden_core::executor::snapshot_first::{SnapshotMode, SnapshotPolicy};
use warden_core::turn::TurnConfig;
use warden_infra::proxmox::ProxmoxConfig;
use warden_llm::{ProviderConfig, ProviderKind, Secret};
use warden_protocol::ControlLevel;

/// Why the configuration cannot be used. Every message names the file,
/// the key or the variable at fault.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A value that makes no sense, with the key's name.
    #[error("{0}")]
    Invalid(String),
}

type Result<T, E = ConfigError> = std::result::Result<T, E>;

fn invalid<T>(message: String) -> Result<T> {
    Err(ConfigError::Invalid(message))
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    File(PathBuf),
    Env(&'static str),
    Flag(&'static str),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(path) => write!(f, "file {}", path.display()),
            Source::Env(name) => write!(f, "env {name}"),
            Source::Flag(name) => write!(f, "flag {name}"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Sourced<T> {
    fn new(value: T, source: Source) -> Self {
        Sourced { value, source }
    }

    fn set(&mut self, value: T, source: Source) {
        self.value = value;
        self.source = source;
    }
}

/// The file's shape. Unknown keys are refused with their name.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    control_level: Option<String>,
    /// How long a cached read answers an identical one (0: never).
    knowledge_ttl_secs: Option<u64>,
    /// How long an approval request waits for a human.
    approval_ttl_secs: Option<u64>,
    db: Option<PathBuf>,
    #[serde(default)]
    provider: FileProvider,
    #[serde(default)]
    budget: FileBudget,
    #[serde(default)]
    exec: FileExec,
    #[serde(default, rename = "loop")]
    agent_loop: FileLoop,
    /// Prices per million tokens, by model name.
    #[serde(default)]
    pricing: BTreeMap<String, FilePrice>,
    /// Proxmox VE clusters (`[[proxmox]]`, one table per cluster).
    #[serde(default)]
    proxmox: Vec<ProxmoxConfig>,
    /// When a snapshot is taken before an approved change to a guest.
    #[serde(default)]
    proxmox_snapshots: Option<FileSnapshots>,
}

/// `[proxmox_snapshots]`: `default = "config_changes"` (or `always`, `never`),
/// `per_tag = { prod = "always", scratch = "never" }`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSnapshots {
    default: Option<SnapshotMode>,
    #[serde(default)]
    per_tag: BTreeMap<String, SnapshotMode>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileProvider {
    kind: Option<String>,
    base_url: Option<String>,
    api_key: Option<String>,
    /// Read the key from this environment variable instead.
    api_key_env: Option<String>,
    model: Option<String>,
    max_retries: Option<u32>,
    idle_timeout_secs: Option<u64>,
    connect_timeout_secs: Option<u64>,
    max_output_tokens: Option<u32>,
    request_timeout_secs: Option<u64>,
    max_retry_after_secs: Option<u64>,
    max_reply_bytes: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileLoop {
    max_model_calls: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBudget {
    max_tokens: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileExec {
    timeout_secs: Option<u64>,
    max_output_bytes: Option<usize>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilePrice {
    pub input: f64,
    pub output: f64,
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub file: Option<PathBuf>,
    /// Every config location looked at, in order, and what was found there.
    pub searched: Vec<(PathBuf, Found)>,
    pub control_level: Sourced<ControlLevel>,
    pub db: Sourced<Option<PathBuf>>,
    pub provider: Sourced<Option<ProviderKind>>,
    pub base_url: Sourced<Option<String>>,
    pub api_key: Sourced<Option<Secret>>,
    pub model: Sourced<Option<String>>,
    pub max_retries: Sourced<u32>,
    pub idle_timeout: Sourced<Duration>,
    pub connect_timeout: Sourced<Duration>,
    pub request_timeout: Sourced<Duration>,
    pub max_retry_after: Sourced<Duration>,
    pub max_reply_bytes: Sourced<usize>,
    pub max_output_tokens: Sourced<Option<u32>>,
    pub max_model_calls: Sourced<usize>,
    pub knowledge_ttl: Sourced<Duration>,
    pub approval_ttl: Sourced<Duration>,
    pub budget_tokens: Sourced<Option<u64>>,
    pub exec_timeout: Sourced<Duration>,
    pub exec_max_output: Sourced<usize>,
    pub pricing: BTreeMap<String, FilePrice>,
    /// `[[proxmox]]` clusters as written (validated when Warden connects).
    pub proxmox: Vec<ProxmoxConfig>,
    pub snapshots: Sourced<SnapshotPolicy>,
}

/// Flags that override everything else.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    pub db: Option<PathBuf>,
    pub level: Option<ControlLevel>,
}

impl Config {
    /// The built-in defaults alone: no file, no environment, no flags.
    pub fn builtin() -> Config {
        Config::defaults()
    }

    fn defaults() -> Config {
        let defaults = ProviderConfig::new(ProviderKind::OpenAi);
        Config {
            file: None,
            searched: Vec::new(),
            control_level: Sourced::new(ControlLevel::Controlled, Source::Default),
            db: Sourced::new(None, Source::Default),
            provider: Sourced::new(None, Source::Default),
            base_url: Sourced::new(None, Source::Default),
            api_key: Sourced::new(None, Source::Default),
            model: Sourced::new(None, Source::Default),
            max_retries: Sourced::new(defaults.max_retries, Source::Default),
            idle_timeout: Sourced::new(defaults.idle_timeout, Source::Default),
            connect_timeout: Sourced::new(defaults.connect_timeout, Source::Default),
            request_timeout: Sourced::new(defaults.request_timeout, Source::Default),
            max_retry_after: Sourced::new(defaults.max_retry_after, Source::Default),
            max_reply_bytes: Sourced::new(defaults.max_reply_bytes, Source::Default),
            max_output_tokens: Sourced::new(defaults.max_output_tokens, Source::Default),
            max_model_calls: Sourced::new(DEFAULT_MAX_MODEL_CALLS, Source::Default),
            knowledge_ttl: Sourced::new(DEFAULT_KNOWLEDGE_TTL, Source::Default),
            approval_ttl: Sourced::new(DEFAULT_APPROVAL_TTL, Source::Default),
            budget_tokens: Sourced::new(None, Source::Default),
            exec_timeout: Sourced::new(Duration::from_secs(30), Source::Default),
            exec_max_output: Sourced::new(64 * 1024, Source::Default),
            pricing: BTreeMap::new(),
            proxmox: Vec::new(),
            snapshots: Sourced::new(SnapshotPolicy::default(), Source::Default),
        }
    }

    /// Load with the real environment.
    pub fn load(overrides: &Overrides) -> Result<Config> {
        Config::load_with(overrides, &|name| std::env::var(name).ok())
    }

    /// Load with `env` as the environment (tests pass a map).
    pub fn load_with(
        overrides: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config> {
        let mut config = Config::defaults();
        // An explicit file must exist; otherwise the first of the usual
        // places that exists is read (each is listed by `config show`).
        let (candidates, explicit) = match (&overrides.config, env("WARDEN_CONFIG")) {
            (Some(path), _) => (vec![path.clone()], true),
            (None, Some(path)) => (vec![PathBuf::from(path)], true),
            (None, None) => (default_config_paths(env), false),
        };
        for path in candidates {
            if config.file.is_some() {
                config.searched.push((path, Found::NotRead));
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    let file: FileConfig =
                        toml::from_str(&text).map_err(|e| ConfigError::Parse {
                            path: path.clone(),
                            message: e.to_string(),
                        })?;
                    config.apply_file(file, &path, env)?;
                    config.file = Some(path.clone());
                    config.searched.push((path, Found::Read));
                }
                Err(error) if error.kind() == std::io::ErrorKind::NotFound && !explicit => {
                    config.searched.push((path, Found::Missing));
                }
                Err(error) => {
                    return Err(ConfigError::Read {
                        path,
                        source: error,
                    });
                }
            }
        }
        config.apply_env(env)?;
        if let Some(level) = overrides.level {
            config.control_level.set(level, Source::Flag("--level"));
        }
        if let Some(db) = &overrides.db {
            config.db.set(Some(db.clone()), Source::Flag("--db"));
        }
        Ok(config)
    }

    fn apply_file(
        &mut self,
        file: FileConfig,
        path: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<()> {
        let src = || Source::File(path.to_path_buf());
        if let Some(level) = file.control_level {
            self.control_level.set(parse_level(&level)?, src());
        }
        if let Some(s) = file.knowledge_ttl_secs {
            self.knowledge_ttl.set(Duration::from_secs(s), src());
        }
        if let Some(s) = file.approval_ttl_secs {
            self.set_approval_ttl(s, src())?;
        }
        if let Some(n) = file.agent_loop.max_model_calls {
            self.max_model_calls
                .set(positive("loop.max_model_calls", n)?, src());
        }
        if let Some(db) = file.db {
            self.db.set(Some(db), src());
        }
        let p = file.provider;
        if let Some(kind) = p.kind {
            self.set_provider(&kind, src())?;
        }
        if let Some(url) = p.base_url {
            self.base_url.set(Some(url), src());
        }
        if let Some(key) = p.api_key {
            self.api_key.set(Some(Secret::new(key)), src());
        }
        if let Some(var) = p.api_key_env {
            let Some(key) = env(&var) else {
                return invalid(format!(
                    "{}: provider.api_key_env names `{var}`, which is not set",
                    path.display()
                ));
            };
            self.api_key.set(Some(Secret::new(key)), src());
        }
        if let Some(model) = p.model {
            self.model.set(Some(model), src());
        }
        if let Some(n) = p.max_retries {
            self.max_retries.set(n, src());
        }
        if let Some(s) = p.idle_timeout_secs {
            self.idle_timeout
                .set(seconds("provider.idle_timeout_secs", s)?, src());
        }
        if let Some(s) = p.connect_timeout_secs {
            self.connect_timeout
                .set(seconds("provider.connect_timeout_secs", s)?, src());
        }
        if let Some(s) = p.request_timeout_secs {
            self.request_timeout
                .set(seconds("provider.request_timeout_secs", s)?, src());
        }
        if let Some(s) = p.max_retry_after_secs {
            self.max_retry_after
                .set(seconds("provider.max_retry_after_secs", s)?, src());
        }
        if let Some(n) = p.max_reply_bytes {
            self.max_reply_bytes
                .set(positive("provider.max_reply_bytes", n)?, src());
        }
        if let Some(n) = p.max_output_tokens {
            self.max_output_tokens.set(Some(n), src());
        }
        if let Some(n) = file.budget.max_tokens {
            self.budget_tokens
                .set(Some(positive("budget.max_tokens", n)?), src());
        }
        if let Some(s) = file.exec.timeout_secs {
            self.exec_timeout
                .set(seconds("exec.timeout_secs", s)?, src());
        }
        if let Some(n) = file.exec.max_output_bytes {
            self.exec_max_output
                .set(positive("exec.max_output_bytes", n)?, src());
        }
        self.pricing = file.pricing;
        let mut names = std::collections::HashSet::new();
        for cluster in &file.proxmox {
            if !names.insert(cluster.name.as_str()) {
                return invalid(format!(
                    "{}: two [[proxmox]] clusters are named `{}`; names must be unique",
                    path.display(),
                    cluster.name
                ));
            }
        }
        self.proxmox = file.proxmox;
        if let Some(snapshots) = file.proxmox_snapshots {
            self.snapshots.set(
                SnapshotPolicy {
                    default: snapshots.default.unwrap_or(SnapshotMode::ConfigChanges),
                    per_tag: snapshots.per_tag,
                },
                src(),
            );
        }
        Ok(())
    }

    fn apply_env(&mut self, env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
        let get = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        if let Some(v) = get("WARDEN_PROVIDER") {
            self.set_provider(&v, Source::Env("WARDEN_PROVIDER"))?;
        }
        if let Some(v) = get("WARDEN_BASE_URL") {
            self.base_url.set(Some(v), Source::Env("WARDEN_BASE_URL"));
        }
        if let Some(v) = get("WARDEN_API_KEY") {
            self.api_key
                .set(Some(Secret::new(v)), Source::Env("WARDEN_API_KEY"));
        }
        if let Some(v) = get("WARDEN_MODEL") {
            self.model.set(Some(v), Source::Env("WARDEN_MODEL"));
        }
        if let Some(v) = get("WARDEN_CONTROL_LEVEL") {
            self.control_level
                .set(parse_level(&v)?, Source::Env("WARDEN_CONTROL_LEVEL"));
        }
        if let Some(v) = get("WARDEN_DB") {
            self.db
                .set(Some(PathBuf::from(v)), Source::Env("WARDEN_DB"));
        }
        if let Some(v) = get("WARDEN_BUDGET_TOKENS") {
            let Ok(n) = v.trim().parse() else {
                return invalid(format!("WARDEN_BUDGET_TOKENS must be a number, got `{v}`"));
            };
            self.budget_tokens
                .set(Some(n), Source::Env("WARDEN_BUDGET_TOKENS"));
        }
        Ok(())
    }

    fn set_provider(&mut self, name: &str, source: Source) -> Result<()> {
        let name = name.trim().to_ascii_lowercase();
        if matches!(name.as_str(), "none" | "router" | "off") {
            self.provider.set(None, source);
            return Ok(());
        }
        let kind: ProviderKind = name.parse().map_err(|e: warden_llm::ProviderError| {
            ConfigError::Invalid(format!("{e} (or `none`)"))
        })?;
        if name == "ollama" && self.base_url.value.is_none() {
            self.base_url.set(
                Some(warden_llm::config::OLLAMA_BASE_URL.to_string()),
                source.clone(),
            );
        }
        self.provider.set(Some(kind), source);
        Ok(())
    }

    /// What the turn runner reads: the same for `warden ask` and `warden
    /// serve`.
    pub fn turn_config(&self) -> TurnConfig {
        let mut prices = Prices::default();
        for (model, price) in &self.pricing {
            prices.set_for_any_provider(model, price.input, price.output);
        }
        TurnConfig {
            control_level: self.control_level.value,
            knowledge_ttl: self.knowledge_ttl.value,
            approval_ttl: self.approval_ttl.value,
            snapshots: self.snapshots.value.clone(),
            max_model_calls: self.max_model_calls.value,
            budget_tokens: self.budget_tokens.value,
            max_reply_bytes: self.max_reply_bytes.value,
            prices,
            // Filled by the world builder, which collects the secrets.
            known_secrets: Default::default(),
        }
    }

    /// How long approval requests wait (`approval_ttl_secs`, or a flag).
    pub fn set_approval_ttl(&mut self, secs: u64, source: Source) -> Result<()> {
        self.approval_ttl
            .set(seconds("approval_ttl_secs", secs)?, source);
        Ok(())
    }

    /// How this machine runs commands (`[exec]`).
    pub fn exec_options(&self) -> warden_infra::ExecOptions {
        warden_infra::ExecOptions::default()
            .with_timeout(self.exec_timeout.value)
            .with_output_limit(self.exec_max_output.value)
            // Commands for containers go through `docker exec`: keep the socket.
            .pass_env("DOCKER_HOST")
    }

    /// The provider to connect to, if one is configured.
    pub fn provider_config(&self) -> Option<ProviderConfig> {
        let kind = self.provider.value?;
        let mut config = ProviderConfig::new(kind);
        config.base_url = self.base_url.value.clone();
        config.api_key = self.api_key.value.clone();
        config.model = self.model.value.clone();
        config.max_retries = self.max_retries.value;
        config.idle_timeout = self.idle_timeout.value;
        config.connect_timeout = self.connect_timeout.value;
        config.request_timeout = self.request_timeout.value;
        config.max_retry_after = self.max_retry_after.value;
        config.max_reply_bytes = self.max_reply_bytes.value;
        config.max_output_tokens = self.max_output_tokens.value;
        Some(config)
    }
}

pub use warden_core::turn::config::{
    DEFAULT_APPROVAL_TTL, DEFAULT_KNOWLEDGE_TTL, DEFAULT_MAX_MODEL_CALLS,
};

/// A count or size that must not be zero.
fn positive<T: PartialEq + Default + fmt::Display>(key: &str, value: T) -> Result<T> {
    if value == T::default() {
        return invalid(format!("{key} = 0 makes no sense: it must be at least 1"));
    }
    Ok(value)
}

/// A duration in whole seconds that must not be zero.
fn seconds(key: &str, value: u64) -> Result<Duration> {
    positive(key, value).map(Duration::from_secs)
}

fn parse_level(text: &str) -> Result<ControlLevel> {
    match text.trim().to_ascii_lowercase().as_str() {
        "read_only" | "read-only" | "readonly" => Ok(ControlLevel::ReadOnly),
        "controlled" => Ok(ControlLevel::Controlled),
        "autonomous" => Ok(ControlLevel::Autonomous),
        other => invalid(format!(
            "unknown control level `{other}`: expected read_only, controlled or autonomous"
        )),
    }
}

pub fn parse_level_arg(text: &str) -> std::result::Result<ControlLevel, String> {
    parse_level(text).map_err(|e| e.to_string())
}

/// The user's config file, then the system-wide one.
fn default_config_paths(env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let user = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|dir| dir.join("warden").join("config.toml"));
    user.into_iter()
        .chain(std::iter::once(PathBuf::from("/etc/warden/config.toml")))
        .collect()
}

/// What a searched config location held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Read,
    Missing,
    /// An earlier location was read; this one was not looked at further.
    NotRead,
}

mod show;
#[cfg(test)]
mod tests;
