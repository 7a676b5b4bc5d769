//! Does a configuration key, environment variable, header or flag name a
//! secret? `DB_PASSWORD`, `clientSecret`, `client-key-data`, `X-Auth-Token`
//! and `--api-key` do; `password_min_length`, `PasswordAuthentication`,
//! `token_ttl`, `MYSQL_ROOT_PASSWORD_FILE` and `PWD` do not.
//!
//! The rule: split the name into words (on `_ - .` and camelCase); it names
//! a secret when one word is a secret word, unless its last word qualifies
//! the setting (`length`, `file`, `ttl`, `algorithm`, …): such a key holds a
//! setting about the secret, not the secret. When neither the last word is a
//! qualifier nor a secret word (`client-key-data`, `secret_key_base`), the key
//! still names a secret: when in doubt, redact.

use super::kind::SecretKind;

/// Words that are a secret on their own, and the kind they name.
const SECRET_WORDS: &[(&str, SecretKind)] = &[
    ("pass", SecretKind::Password),
    ("pwd", SecretKind::Password),
    ("pw", SecretKind::Password),
    ("creds", SecretKind::Password),
    ("requirepass", SecretKind::Password),
    ("masterauth", SecretKind::Password),
    ("auth", SecretKind::Token),
    ("pat", SecretKind::Token),
    ("psk", SecretKind::Secret),
    ("dockercfg", SecretKind::Secret),
    ("dockerconfigjson", SecretKind::Secret),
];

/// Fragments that make any word containing them a secret word
/// (`PGPASSWORD`, `accessToken` split as one word, `apikey`).
const SECRET_FRAGMENTS: &[(&str, SecretKind)] = &[
    ("password", SecretKind::Password),
    ("passwd", SecretKind::Password),
    ("passphrase", SecretKind::Password),
    ("credential", SecretKind::Password),
    ("privatekey", SecretKind::PrivateKey),
    ("presharedkey", SecretKind::PrivateKey),
    ("apikey", SecretKind::ApiKey),
    ("accesskey", SecretKind::ApiKey),
    ("secretkey", SecretKind::ApiKey),
    ("authkey", SecretKind::ApiKey),
    ("token", SecretKind::Token),
    ("secret", SecretKind::Secret),
    ("cookie", SecretKind::Cookie),
];

/// Words that make a following `key` a secret (`api_key`, `PrivateKey`,
/// `client-key-data`, `tls.key`). A bare `key` is not: Kubernetes selectors
/// and tolerations are full of `key: app`.
const KEY_QUALIFIERS: &[(&str, SecretKind)] = &[
    ("private", SecretKind::PrivateKey),
    ("preshared", SecretKind::PrivateKey),
    ("client", SecretKind::PrivateKey),
    ("tls", SecretKind::PrivateKey),
    ("ssl", SecretKind::PrivateKey),
    ("ssh", SecretKind::PrivateKey),
    ("signing", SecretKind::PrivateKey),
    ("encryption", SecretKind::Secret),
    ("master", SecretKind::Secret),
    ("shared", SecretKind::Secret),
    ("hmac", SecretKind::Secret),
    ("jwt", SecretKind::Secret),
    ("session", SecretKind::Secret),
    ("csrf", SecretKind::Secret),
    ("api", SecretKind::ApiKey),
    ("access", SecretKind::ApiKey),
    ("secret", SecretKind::ApiKey),
    ("auth", SecretKind::ApiKey),
    ("account", SecretKind::ApiKey),
    ("storage", SecretKind::ApiKey),
    ("license", SecretKind::ApiKey),
    ("app", SecretKind::ApiKey),
    ("service", SecretKind::ApiKey),
    ("deploy", SecretKind::ApiKey),
    ("webhook", SecretKind::ApiKey),
];

/// Last words that turn a key into a setting *about* a secret.
const SETTING_QUALIFIERS: &[&str] = &[
    "length",
    "len",
    "min",
    "max",
    "minimum",
    "maximum",
    "policy",
    "policies",
    "file",
    "files",
    "path",
    "paths",
    "dir",
    "directory",
    "expiry",
    "expires",
    "expiration",
    "expire",
    "age",
    "ttl",
    "lifetime",
    "timeout",
    "count",
    "attempts",
    "retries",
    "enabled",
    "enable",
    "disabled",
    "disable",
    "required",
    "optional",
    "type",
    "types",
    "algorithm",
    "algorithms",
    "algo",
    "method",
    "methods",
    "mode",
    "url",
    "uri",
    "endpoint",
    "id",
    "name",
    "names",
    "user",
    "username",
    "prefix",
    "header",
    "env",
    "var",
    "field",
    "format",
    "hint",
    "reset",
    "changed",
    "change",
    "last",
    "date",
    "time",
    "created",
    "updated",
    "authentication",
    "authenticated",
    "authorization",
    "command",
    "cmd",
    "prompt",
    "level",
    "strength",
    "size",
    "limit",
    "store",
    "backend",
    "provider",
    "source",
    "location",
    "helper",
    "manager",
    "server",
    "host",
    "port",
    "realm",
    "scheme",
    "scope",
    "scopes",
    "version",
    "encryption",
    "encoding",
    "mechanism",
    "mechanisms",
    "plugin",
    "plugins",
    "cache",
    "socket",
    "sock",
    "ref",
    "rounds",
    "iterations",
    "complexity",
    "history",
    "reuse",
    "warn",
    "inactive",
    "validity",
    "valid",
    "check",
    "rotation",
    "interval",
    "duration",
    "lock",
    "lockout",
    "digits",
    "chars",
    "characters",
    "uppercase",
    "lowercase",
    "special",
    "numbers",
    "strategy",
    "status",
    "state",
    "tokenid",
    "tokenname",
];

/// Whole names that look like secrets and are not (the shell's working directory).
const NOT_SECRETS: &[&str] = &["pwd", "oldpwd"];

/// The kind of secret `name` names, if it names one.
pub fn secret_named_by(name: &str) -> Option<SecretKind> {
    let trimmed = name.trim_matches(|c: char| matches!(c, '-' | '_' | '.' | '"' | '\''));
    if trimmed.is_empty() || NOT_SECRETS.iter().any(|n| trimmed.eq_ignore_ascii_case(n)) {
        return None;
    }
    let words = split_words(trimmed);
    let last = words.last()?;
    if SETTING_QUALIFIERS.contains(&last.as_str()) {
        // `secret_id` (Vault AppRole) is the one qualified name that is a secret.
        let vault_secret_id =
            words.len() >= 2 && last == "id" && words[words.len() - 2] == "secret";
        if !vault_secret_id {
            return None;
        }
    }
    // The last secret word decides the kind: `db_password` is a password,
    // `password_token` a token.
    let mut kind = None;
    for (i, word) in words.iter().enumerate() {
        if let Some(k) = word_kind(word) {
            kind = Some(k);
        }
        let qualifier = (word == "key" && i > 0)
            .then(|| KEY_QUALIFIERS.iter().find(|(q, _)| *q == words[i - 1]))
            .flatten();
        if let Some((_, k)) = qualifier {
            kind = Some(*k);
        }
    }
    let aws = words.first().is_some_and(|w| w == "aws");
    kind.map(|k| if aws { SecretKind::CloudCredential } else { k })
}

fn word_kind(word: &str) -> Option<SecretKind> {
    if let Some((_, k)) = SECRET_WORDS.iter().find(|(w, _)| *w == word) {
        return Some(*k);
    }
    SECRET_FRAGMENTS
        .iter()
        .find(|(f, _)| word.contains(f))
        .map(|(_, k)| *k)
}

/// Lower-case words of a name: `MYSQL_ROOT_PASSWORD` → mysql root password,
/// `PrivateKey` → private key, `XAuthToken` → x auth token.
pub fn split_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        let camel_start = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
            });
        if camel_start && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}
