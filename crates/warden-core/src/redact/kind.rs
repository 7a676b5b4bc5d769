//! What a redaction removed. The labels are part of the marker the model and
//! the store see (`[redacted: private key]`), so they never change once
//! released: dashboards and tests match on them.

/// One class of secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SecretKind {
    /// PEM/OpenSSH/PGP private key blocks, WireGuard and TLS private keys.
    PrivateKey,
    /// Crypt-style hashes (`$6$…`, `$2b$…`, `$argon2id$…`), `{SSHA}`, MySQL `*HEX`.
    PasswordHash,
    /// A value assigned to a password-like key (`DB_PASSWORD=…`).
    Password,
    /// A value assigned to a token-like key (`token: …`, `X-Auth-Token: …`).
    Token,
    /// A value assigned to an API-key-like key (`api_key`, `access_key`).
    ApiKey,
    /// A value assigned to any other secret-like key (`client_secret`, `psk`).
    Secret,
    /// The credentials of an `Authorization: Bearer …` header (or a bare `Bearer …`).
    BearerToken,
    /// The credentials of an `Authorization: Basic …` (or other scheme) header.
    AuthorizationCredentials,
    /// A cookie header value.
    Cookie,
    /// AWS access key ids (`AKIA…`) and secret access keys, Google API keys.
    CloudCredential,
    /// GitHub tokens (`ghp_`, `gho_`, `github_pat_`, …).
    GithubToken,
    /// GitLab personal/project/deploy tokens (`glpat-`, …).
    GitlabToken,
    /// Slack tokens (`xoxb-`, `xoxp-`, …).
    SlackToken,
    /// OpenAI and Anthropic API keys (`sk-…`, `sk-ant-…`).
    AiProviderKey,
    /// Stripe secret and restricted keys (`sk_live_…`, `rk_live_…`).
    StripeKey,
    /// Other registries' access tokens (npm, Hugging Face, Docker Hub).
    RegistryToken,
    /// A JSON Web Token (`eyJ….eyJ….…`), e.g. a Kubernetes service account token.
    Jwt,
    /// The password part of a URL (`postgres://user:PASSWORD@host`).
    UrlPassword,
    /// The secret of a Proxmox VE API token.
    ProxmoxTokenSecret,
    /// The whole text: the redaction rules were unavailable, so nothing was let through.
    WholeOutput,
}

impl SecretKind {
    /// Every kind, in marker order.
    pub const ALL: [SecretKind; 20] = [
        SecretKind::PrivateKey,
        SecretKind::PasswordHash,
        SecretKind::Password,
        SecretKind::Token,
        SecretKind::ApiKey,
        SecretKind::Secret,
        SecretKind::BearerToken,
        SecretKind::AuthorizationCredentials,
        SecretKind::Cookie,
        SecretKind::CloudCredential,
        SecretKind::GithubToken,
        SecretKind::GitlabToken,
        SecretKind::SlackToken,
        SecretKind::AiProviderKey,
        SecretKind::StripeKey,
        SecretKind::RegistryToken,
        SecretKind::Jwt,
        SecretKind::UrlPassword,
        SecretKind::ProxmoxTokenSecret,
        SecretKind::WholeOutput,
    ];

    /// The stable, human-readable name used in the marker.
    pub const fn label(self) -> &'static str {
        match self {
            SecretKind::PrivateKey => "private key",
            SecretKind::PasswordHash => "password hash",
            SecretKind::Password => "password",
            SecretKind::Token => "token",
            SecretKind::ApiKey => "api key",
            SecretKind::Secret => "secret",
            SecretKind::BearerToken => "bearer token",
            SecretKind::AuthorizationCredentials => "authorization credentials",
            SecretKind::Cookie => "cookie",
            SecretKind::CloudCredential => "cloud credential",
            SecretKind::GithubToken => "github token",
            SecretKind::GitlabToken => "gitlab token",
            SecretKind::SlackToken => "slack token",
            SecretKind::AiProviderKey => "ai provider key",
            SecretKind::StripeKey => "stripe key",
            SecretKind::RegistryToken => "registry token",
            SecretKind::Jwt => "jwt",
            SecretKind::UrlPassword => "url password",
            SecretKind::ProxmoxTokenSecret => "proxmox token secret",
            SecretKind::WholeOutput => "whole output",
        }
    }

    /// The text that replaces a secret of this kind.
    pub fn marker(self) -> String {
        format!("{MARKER_PREFIX}{}]", self.label())
    }
}

/// How every marker begins; a value that already is a marker is left alone,
/// so redacting twice changes nothing.
pub const MARKER_PREFIX: &str = "[redacted: ";
