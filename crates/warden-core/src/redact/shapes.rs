//! Secrets recognised by their shape, wherever they appear: private key
//! blocks, password hashes, bearer tokens, well-known token formats,
//! passwords in URLs and Proxmox token secrets. Patterns whose literals
//! are in [`super::triggers`] run only on the lines where those literals
//! were found; the hash and Proxmox patterns start with a rare literal of
//! their own (`$`, `{`, `*`, `!`) and run over the whole text (argon2 after
//! any character, the other crypt hashes after a separator). All use
//! ASCII word boundaries: Unicode ones would push the regex engine off its
//! fast path.

use std::ops::Range;
use std::sync::OnceLock;

use super::Finding;
use super::kind::SecretKind;
use super::placeholder::is_placeholder;
use super::rule::{Rule, Unavailable};
use super::triggers::{Hits, ShapeFamily, Triggers};

/// A crypt(3) hash starts after one of these (or at the start of the text).
const HASH_LEFT_BOUNDARY: &[u8] = b" \t\r\n:;,=!*([{\"'|";

/// The patterns, each compiled when a text first needs it; the literal
/// searchers ([`Triggers`]) at once. `None` when the triggers failed to
/// compile, and then [`super::redact`] withholds the whole text rather than
/// leak it.
pub struct ShapeRules {
    pub triggers: Triggers,
}

static PEM_BEGIN: Rule = Rule::new(r"-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----");
/// shadow, htpasswd (apr1, bcrypt), yescrypt, scrypt, argon2 …
static CRYPT_HASH: Rule = Rule::new(
    r"\$(?:1|2[abxy]?|5|6|7|y|gy|sha1|md5|apr1|argon2(?:id|i|d)|pbkdf2(?:-sha(?:1|256|512))?|scrypt)\$[A-Za-z0-9./+=,$\-]{8,}",
);
/// Argon2 (PHC string format: Warden's own users, Vaultwarden, Nextcloud,
/// Authelia …): unmistakable, so found after any character (a `sqlite3`
/// row's `|`, a box-drawing `│`, an escaped quote).
static ARGON2_HASH: Rule = Rule::new(
    r"\$argon2(?:id|i|d)\$(?:v=[0-9]+\$)?m=[0-9]+,t=[0-9]+,p=[0-9]+(?:,[a-z]+=[A-Za-z0-9+/=]*)*\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}",
);
/// LDAP userPassword and htpasswd scheme prefixes.
static SCHEME_HASH: Rule = Rule::new(
    r"\{(?:SSHA512|SSHA256|SSHA|SHA512|SHA256|SHA|SMD5|MD5|CRYPT|PBKDF2[-A-Z0-9]*|ARGON2|ssha|sha|crypt)\}[A-Za-z0-9+/=.$,\-]{4,}",
);
static MYSQL_HASH: Rule = Rule::new(r"\*[0-9A-Fa-f]{40}(?-u:\b)");
static SCRAM_HASH: Rule =
    Rule::new(r"SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+");
static BARE_BEARER: Rule = Rule::new(r"(?-u:\b)[Bb]earer[ \t]+([A-Za-z0-9._~+/\-]{16,}=*)");
static TOKEN: Rule = Rule::new(concat!(
    r"(?-u:\b)(?:",
    r"(gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,242})",
    r"|(gl(?:pat|dt|ptt|rt)-[A-Za-z0-9_\-]{20,})",
    r"|(xox[baprse]-[A-Za-z0-9\-]{10,})",
    r"|((?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)|AIza[0-9A-Za-z_\-]{35})",
    r"|(sk-[A-Za-z0-9_\-]{20,})",
    r"|((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
    r"|(npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|dckr_pat_[A-Za-z0-9_\-]{20,})",
    r"|(eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*)",
    // a Docker config (`.dockerconfigjson`): base64 of `{"auths":`
    r"|(eyJhdXRocyI6[A-Za-z0-9+/=]+)",
    r")",
));
static PROXMOX_VALUE: Rule = Rule::new(concat!(
    r#"(?:"value"[ \t]*:[ \t]*"|[│|][ \t]*value[ \t]*[│|][ \t]*)"#,
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})",
));
/// /etc/pve/priv/token.cfg: `user@realm!tokenid SECRET`, matched from the `!`.
static PROXMOX_TOKEN_FILE: Rule = Rule::new(
    r"![A-Za-z0-9._\-]+[ \t]+([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})",
);

impl ShapeRules {
    pub fn get() -> Option<&'static ShapeRules> {
        static RULES: OnceLock<Option<ShapeRules>> = OnceLock::new();
        RULES
            .get_or_init(|| {
                Some(ShapeRules {
                    triggers: Triggers::compile()?,
                })
            })
            .as_ref()
    }

    pub fn find(&self, text: &str, hits: &Hits, out: &mut Vec<Finding>) -> Result<(), Unavailable> {
        find_private_keys(text, &hits.block_starts, out)?;
        for line in &hits.shape_lines {
            let end = text[line.start..]
                .find('\n')
                .map_or(text.len(), |i| line.start + i);
            find_on_line(text, line.start..end, line.family, out)?;
        }
        for &separator in &hits.url_separators {
            if let Some(password) = url_password(text, separator) {
                out.push(Finding::new(password, SecretKind::UrlPassword));
            }
        }
        find_password_hashes(text, out)?;
        // `full-tokenid`: the fragment `token` followed by `id`.
        let token_id = hits
            .key_fragments
            .iter()
            .any(|f| text.as_bytes().get(f.end..f.end + 2) == Some(b"id"));
        find_proxmox_secrets(text, token_id, out)
    }
}

/// A block runs to its END line, or to the end of the text when the
/// output was cut short inside it.
fn find_private_keys(
    text: &str,
    starts: &[usize],
    out: &mut Vec<Finding>,
) -> Result<(), Unavailable> {
    let mut covered = 0;
    for &start in starts {
        if start < covered {
            continue;
        }
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let Some(caps) = PEM_BEGIN.get()?.captures(&text[start..line_end]) else {
            continue;
        };
        let (Some(begin), Some(label)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        if begin.start() != 0 {
            continue;
        }
        let after_begin = start + begin.end();
        let end_marker = format!("-----END {}-----", label.as_str());
        let end = text[after_begin..]
            .find(&end_marker)
            .map_or(text.len(), |i| after_begin + i + end_marker.len());
        out.push(Finding::new(start..end, SecretKind::PrivateKey));
        covered = end;
    }
    Ok(())
}

fn find_on_line(
    text: &str,
    line: Range<usize>,
    family: ShapeFamily,
    out: &mut Vec<Finding>,
) -> Result<(), Unavailable> {
    let slice = &text[line.clone()];
    let at = |m: regex::Match<'_>| line.start + m.start()..line.start + m.end();
    match family {
        ShapeFamily::Token => find_tokens(slice, line.start, out)?,
        ShapeFamily::Bearer => {
            for caps in BARE_BEARER.get()?.captures_iter(slice) {
                if let Some(m) = caps.get(1).filter(|m| !is_placeholder(m.as_str())) {
                    out.push(Finding::new(at(m), SecretKind::BearerToken));
                }
            }
        }
    }
    Ok(())
}

fn find_tokens(slice: &str, offset: usize, out: &mut Vec<Finding>) -> Result<(), Unavailable> {
    let at = |m: regex::Match<'_>| offset + m.start()..offset + m.end();
    const TOKEN_KINDS: [SecretKind; 9] = [
        SecretKind::GithubToken,
        SecretKind::GitlabToken,
        SecretKind::SlackToken,
        SecretKind::CloudCredential,
        SecretKind::AiProviderKey,
        SecretKind::StripeKey,
        SecretKind::RegistryToken,
        SecretKind::Jwt,
        SecretKind::Secret,
    ];
    for caps in TOKEN.get()?.captures_iter(slice) {
        for (group, kind) in TOKEN_KINDS.iter().enumerate() {
            let Some(m) = caps.get(group + 1) else {
                continue;
            };
            if *kind == SecretKind::AiProviderKey && !looks_like_ai_key(m.as_str()) {
                continue;
            }
            out.push(Finding::new(at(m), *kind));
        }
    }
    Ok(())
}

/// Each hash pattern starts with a rare literal: a text without it is
/// not searched (and the pattern not compiled).
fn find_password_hashes(text: &str, out: &mut Vec<Finding>) -> Result<(), Unavailable> {
    let bytes = text.as_bytes();
    if text.contains('$') {
        if text.contains("$argon2") {
            for m in ARGON2_HASH.get()?.find_iter(text) {
                out.push(Finding::new(m.range(), SecretKind::PasswordHash));
            }
        }
        for m in CRYPT_HASH.get()?.find_iter(text) {
            let left = m.start().checked_sub(1).map(|i| bytes[i]);
            if left.is_none_or(|b| HASH_LEFT_BOUNDARY.contains(&b)) {
                out.push(Finding::new(m.range(), SecretKind::PasswordHash));
            }
        }
    }
    let others = [
        (&SCHEME_HASH, text.contains('{')),
        (&MYSQL_HASH, text.contains('*')),
        (&SCRAM_HASH, text.contains("SCRAM-SHA-256$")),
    ];
    for (rule, possible) in others {
        if !possible {
            continue;
        }
        for m in rule.get()?.find_iter(text) {
            out.push(Finding::new(m.range(), SecretKind::PasswordHash));
        }
    }
    Ok(())
}

fn find_proxmox_secrets(
    text: &str,
    token_id: bool,
    out: &mut Vec<Finding>,
) -> Result<(), Unavailable> {
    if text.contains('!') {
        for caps in PROXMOX_TOKEN_FILE.get()?.captures_iter(text) {
            let (Some(whole), Some(secret)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            // `user@realm` from the line start up to the `!`.
            let line = text[..whole.start()].rfind('\n').map_or(0, |i| i + 1);
            let user = &text[line..whole.start()];
            if user.contains('@') && !user.contains(char::is_whitespace) {
                out.push(Finding::new(secret.range(), SecretKind::ProxmoxTokenSecret));
            }
        }
    }
    // A bare `value` UUID is a token secret only in token output
    // (`pveum user token add`, `pvesh create …/token`); elsewhere UUIDs
    // name disks and VMs and must survive.
    if token_id && text.contains("value") {
        for caps in PROXMOX_VALUE.get()?.captures_iter(text) {
            if let Some(m) = caps.get(1) {
                out.push(Finding::new(m.range(), SecretKind::ProxmoxTokenSecret));
            }
        }
    }
    Ok(())
}

/// The password of `scheme://user:PASSWORD@host`, given the position of
/// its `://`; the user and host stay.
fn url_password(text: &str, separator: usize) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let is_scheme_byte = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-');
    let mut scheme = separator;
    while scheme > 0 && is_scheme_byte(bytes[scheme - 1]) {
        scheme -= 1;
    }
    if separator - scheme < 2 || !bytes[scheme].is_ascii_alphabetic() {
        return None;
    }
    let mut colon = None;
    for (i, &b) in bytes.iter().enumerate().skip(separator + 3) {
        match b {
            b'@' => {
                let password = colon? + 1..i;
                let value = &text[password.clone()];
                return (!password.is_empty() && !is_placeholder(value)).then_some(password);
            }
            b'/' | b'"' | b'\'' | b'<' | b'>' => return None,
            b'?' | b'#' if colon.is_none() => return None,
            b':' if colon.is_none() => colon = Some(i),
            _ if b.is_ascii_whitespace() => return None,
            _ => {}
        }
    }
    None
}

/// `sk-` also starts host and pod names (`sk-prod-db-01`); real keys mix
/// upper case, lower case and digits, or carry a provider prefix.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiled lazily, so a broken pattern would show only when a text
    /// needs it: every one compiles.
    #[test]
    fn every_rule_compiles() {
        for rule in [
            &PEM_BEGIN,
            &CRYPT_HASH,
            &ARGON2_HASH,
            &SCHEME_HASH,
            &MYSQL_HASH,
            &SCRAM_HASH,
            &BARE_BEARER,
            &TOKEN,
            &PROXMOX_VALUE,
            &PROXMOX_TOKEN_FILE,
        ] {
            assert!(rule.get().is_ok(), "{}", rule.source());
        }
        assert!(ShapeRules::get().is_some());
        assert!(super::super::assignment::AssignmentRules::get().is_some());
    }
}
