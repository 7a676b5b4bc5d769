//! Secrets recognised by their shape, wherever they appear: private key
//! blocks, password hashes, authorization headers, well-known token formats,
//! passwords in URLs, Proxmox token secrets and a few directive formats.
//! All patterns use ASCII word boundaries (`(?-u:\b)`): Unicode ones would
//! push the regex engine off its fast path.

use std::sync::OnceLock;

use regex::Regex;

use super::kind::SecretKind;
use super::placeholder::is_placeholder;
use super::{Finding, RuleSet};

/// The compiled patterns, or `None` when one failed to compile (then
/// [`super::redact`] withholds the whole text rather than leak it).
pub struct ShapeRules {
    pem_begin: Regex,
    password_hash: Regex,
    authorization: Regex,
    bare_bearer: Regex,
    token: Regex,
    url_password: Regex,
    proxmox_header: Regex,
    proxmox_value: Regex,
    proxmox_token_file: Regex,
    directive: Regex,
}

impl ShapeRules {
    pub fn get() -> Option<&'static ShapeRules> {
        static RULES: OnceLock<Option<ShapeRules>> = OnceLock::new();
        RULES.get_or_init(ShapeRules::compile).as_ref()
    }

    fn compile() -> Option<ShapeRules> {
        let re = |source: &str| Regex::new(source).ok();
        Some(ShapeRules {
            pem_begin: re(r"-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----")?,
            password_hash: re(concat!(
                // crypt(3) hashes: shadow, htpasswd (apr1, bcrypt), yescrypt, argon2 …
                r"(?-u)(?:^|[\s:;,=!*(\[{]|\x22|')(\$(?:1|2[abxy]?|5|6|7|y|gy|sha1|md5|apr1|argon2(?:id|i|d)|pbkdf2(?:-sha(?:1|256|512))?|scrypt)\$[A-Za-z0-9./+=,$\-]{8,})",
                // LDAP/htpasswd scheme prefixes
                r"|(\{(?i:SSHA512|SSHA256|SSHA|SHA512|SHA256|SHA|SMD5|MD5|CRYPT|PBKDF2[-A-Z0-9]*|ARGON2)\}[A-Za-z0-9+/=.$,\-]{4,})",
                // MySQL native, PostgreSQL SCRAM and md5
                r"|(\*[0-9A-Fa-f]{40})(?-u:\b)",
                r"|(SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+)",
                r"|(?-u:\b)(md5[0-9a-f]{32})(?-u:\b)",
            ))?,
            authorization: re(
                r#"(?i)(?:^|[^a-z0-9_-])(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?(?:(bearer|basic|digest|token|negotiate|ntlm|apikey|bot|sso-key)[ \t]+)?([^\s"'<>,;\\]+)"#,
            )?,
            bare_bearer: re(r"(?-u:\b)[Bb]earer[ \t]+([A-Za-z0-9._~+/\-]{16,}=*)")?,
            token: re(concat!(
                r"(?-u:\b)(?:",
                r"(gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,242})",
                r"|(gl(?:pat|dt|ptt|rt|cbt|imt|oas)-[A-Za-z0-9_\-]{20,})",
                r"|(xox[baprse]-[A-Za-z0-9\-]{10,})",
                r"|((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?-u:\b)|AIza[0-9A-Za-z_\-]{35})",
                r"|(sk-ant-[A-Za-z0-9_\-]{20,}|sk-(?:proj-|svcacct-|admin-)[A-Za-z0-9_\-]{20,}|sk-[A-Za-z0-9_\-]{20,})",
                r"|((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
                r"|(npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|dckr_pat_[A-Za-z0-9_\-]{20,})",
                r"|(eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*)",
                r")",
            ))?,
            url_password: re(
                r#"(?i)(?-u:\b)[a-z][a-z0-9+.\-]{1,20}://[^\s:/?#@"'<>]*:([^\s/@"'<>]+)@"#,
            )?,
            proxmox_header: re(r"PVEAPIToken[= ][^\s=]+=([A-Za-z0-9\-]+)")?,
            proxmox_value: re(concat!(
                r#"(?:"value"[ \t]*:[ \t]*"|[│|][ \t]*value[ \t]*[│|][ \t]*)"#,
                r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})",
            ))?,
            // /etc/pve/priv/token.cfg: `user@realm!tokenid SECRET`
            proxmox_token_file: re(
                r"(?m)^[^\s:@]+@[A-Za-z0-9._\-]+![A-Za-z0-9._\-]+[ \t]+([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})",
            )?,
            directive: re(concat!(
                // redis.conf, .netrc: `requirepass X`, `machine h login u password X`
                r#"(?im)^[ \t]*(?:requirepass|masterauth|(?:machine|default)(?-u:\b)[^\n]*?(?-u:\b)password)[ \t]+("[^"\n]*"|[^\s]+)"#,
            ))?,
        })
    }
}

impl RuleSet for ShapeRules {
    fn find(&self, text: &str, out: &mut Vec<Finding>) {
        self.find_private_keys(text, out);
        self.find_password_hashes(text, out);
        self.find_authorization(text, out);
        self.find_tokens(text, out);
        self.find_url_passwords(text, out);
        self.find_proxmox(text, out);
        for caps in self.directive.captures_iter(text) {
            push_group(&caps, 1, SecretKind::Password, out);
        }
    }
}

impl ShapeRules {
    /// A block runs to its END line, or to the end of the text when the
    /// output was cut short inside it.
    fn find_private_keys(&self, text: &str, out: &mut Vec<Finding>) {
        let mut from = 0;
        while let Some(caps) = self.pem_begin.captures_at(text, from) {
            let (Some(whole), Some(label)) = (caps.get(0), caps.get(1)) else {
                break;
            };
            let end_marker = format!("-----END {}-----", label.as_str());
            let end = text[whole.end()..]
                .find(&end_marker)
                .map_or(text.len(), |i| whole.end() + i + end_marker.len());
            out.push(Finding::new(whole.start()..end, SecretKind::PrivateKey));
            from = end;
        }
    }

    fn find_password_hashes(&self, text: &str, out: &mut Vec<Finding>) {
        for caps in self.password_hash.captures_iter(text) {
            for group in 1..caps.len() {
                push_group(&caps, group, SecretKind::PasswordHash, out);
            }
        }
    }

    fn find_authorization(&self, text: &str, out: &mut Vec<Finding>) {
        for caps in self.authorization.captures_iter(text) {
            let Some(credentials) = caps.get(2) else {
                continue;
            };
            // The Proxmox rule keeps the token id and removes only the secret.
            if credentials.as_str().starts_with("PVEAPIToken") {
                continue;
            }
            let bearer = caps
                .get(1)
                .is_some_and(|s| s.as_str().eq_ignore_ascii_case("bearer"));
            let kind = if bearer {
                SecretKind::BearerToken
            } else {
                SecretKind::AuthorizationCredentials
            };
            push_group(&caps, 2, kind, out);
        }
        for caps in self.bare_bearer.captures_iter(text) {
            push_group(&caps, 1, SecretKind::BearerToken, out);
        }
    }

    fn find_tokens(&self, text: &str, out: &mut Vec<Finding>) {
        const KINDS: [SecretKind; 8] = [
            SecretKind::GithubToken,
            SecretKind::GitlabToken,
            SecretKind::SlackToken,
            SecretKind::CloudCredential,
            SecretKind::AiProviderKey,
            SecretKind::StripeKey,
            SecretKind::RegistryToken,
            SecretKind::Jwt,
        ];
        for caps in self.token.captures_iter(text) {
            for (group, kind) in KINDS.iter().enumerate() {
                let Some(m) = caps.get(group + 1) else {
                    continue;
                };
                if *kind == SecretKind::AiProviderKey && !looks_like_ai_key(m.as_str()) {
                    continue;
                }
                out.push(Finding::new(m.range(), *kind));
            }
        }
    }

    fn find_url_passwords(&self, text: &str, out: &mut Vec<Finding>) {
        for caps in self.url_password.captures_iter(text) {
            push_group(&caps, 1, SecretKind::UrlPassword, out);
        }
    }

    fn find_proxmox(&self, text: &str, out: &mut Vec<Finding>) {
        for caps in self.proxmox_header.captures_iter(text) {
            push_group(&caps, 1, SecretKind::ProxmoxTokenSecret, out);
        }
        for caps in self.proxmox_token_file.captures_iter(text) {
            push_group(&caps, 1, SecretKind::ProxmoxTokenSecret, out);
        }
        // A bare `value` UUID is a token secret only in token output
        // (`pveum user token add`, `pvesh create …/token`); elsewhere UUIDs
        // name disks and VMs and must survive.
        if text.contains("tokenid") {
            for caps in self.proxmox_value.captures_iter(text) {
                push_group(&caps, 1, SecretKind::ProxmoxTokenSecret, out);
            }
        }
    }
}

/// `sk-` prefixes also start host and pod names (`sk-prod-db-01`); real keys
/// mix upper case, lower case and digits, or carry a provider prefix.
fn looks_like_ai_key(candidate: &str) -> bool {
    let tail = candidate.trim_start_matches("sk-");
    let prefixed = ["ant-", "proj-", "svcacct-", "admin-"]
        .iter()
        .any(|p| tail.starts_with(p));
    prefixed
        || (tail.bytes().any(|b| b.is_ascii_uppercase())
            && tail.bytes().any(|b| b.is_ascii_lowercase())
            && tail.bytes().any(|b| b.is_ascii_digit()))
}

fn push_group(caps: &regex::Captures<'_>, group: usize, kind: SecretKind, out: &mut Vec<Finding>) {
    if let Some(m) = caps.get(group) {
        if !is_placeholder(m.as_str().trim_matches('"')) {
            out.push(Finding::new(m.range(), kind));
        }
    }
}
