//! Secret redaction (issue 7 §7). Tool output is redacted before it goes to
//! the model and before it is stored; the operator's own terminal still shows
//! the real output. Pure: no IO, no allocation when nothing matched.
//!
//! Every removed secret leaves a marker naming its class
//! (`[redacted: private key]`), so the model can still say "the config sets
//! a database password" without ever seeing it. The parts around a secret
//! stay: the user name and other fields of a shadow line, the user and host
//! of a URL, the token id of a Proxmox API token, the key of an assignment.
//!
//! What stays on purpose: public keys and certificates, checksums, UUIDs,
//! commit hashes, empty values, masks (`****`), references (`${DB_PASSWORD}`),
//! booleans, and settings *about* secrets (`password_min_length = 8`). When
//! in doubt a value is redacted: `changeme` and numeric PINs are.
//!
//! Redaction by shape cannot be complete against encodings (`base64`,
//! `xxd`, `rev` of a key): Warden's *own* secrets are known by value
//! instead, and an output holding one in any common encoding is withheld
//! whole by the executor ([`known`], the known-secret canary).
//!
//! Known gaps (no reliable shape): traditional DES crypt hashes in
//! htpasswd, `.pgpass` lines, arbitrary key names in `kubectl get secret`
//! `data:` maps, secrets on a line after a multi-line `.netrc` `machine`.

mod assignment;
mod json;
mod key_names;
mod kind;
pub mod known;
mod placeholder;
mod rule;
mod shapes;
mod triggers;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

pub use json::redact_json;
pub use key_names::secret_named_by;
pub use kind::{MARKER_PREFIX, SecretKind};

use assignment::AssignmentRules;
use shapes::ShapeRules;

/// Redacted text and what was removed from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted<'a> {
    /// The text with every secret replaced by its marker; borrowed when
    /// nothing was found.
    pub text: Cow<'a, str>,
    /// How many secrets of each kind were removed.
    pub removed: BTreeMap<SecretKind, usize>,
}

impl Redacted<'_> {
    /// Was anything removed?
    pub fn is_redacted(&self) -> bool {
        !self.removed.is_empty()
    }

    /// How many secrets were removed, all kinds together.
    pub fn total(&self) -> usize {
        self.removed.values().sum()
    }
}

/// Replace every secret in `text` by a marker naming its kind.
pub fn redact(text: &str) -> Redacted<'_> {
    let Some(shapes) = ShapeRules::get() else {
        // A rule that does not compile must not let secrets through: withhold everything.
        return whole_output_withheld();
    };
    let hits = shapes.triggers.scan(text);
    let mut findings = Vec::new();
    if shapes.find(text, &hits, &mut findings).is_err()
        || AssignmentRules::find(text, &hits.key_fragments, &mut findings).is_err()
    {
        return whole_output_withheld();
    }
    if findings.is_empty() {
        return Redacted {
            text: Cow::Borrowed(text),
            removed: BTreeMap::new(),
        };
    }
    render(text, merge(findings))
}

/// One secret: where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    range: Range<usize>,
    kind: SecretKind,
}

impl Finding {
    fn new(range: Range<usize>, kind: SecretKind) -> Self {
        Finding { range, kind }
    }
}

/// Sort by position; overlapping findings become one covering both, named
/// by the one that starts first (or, at the same start, the longest, then
/// the most specific kind). A union never lets a byte of either through.
fn merge(mut findings: Vec<Finding>) -> Vec<Finding> {
    findings.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
            .then(specificity(b.kind).cmp(&specificity(a.kind)))
    });
    let mut merged: Vec<Finding> = Vec::with_capacity(findings.len());
    for finding in findings {
        match merged.last_mut() {
            Some(last) if finding.range.start < last.range.end => {
                last.range.end = last.range.end.max(finding.range.end);
            }
            _ => merged.push(finding),
        }
    }
    merged
}

/// Shape-recognised kinds say more than the generic key-named ones.
fn specificity(kind: SecretKind) -> u8 {
    match kind {
        SecretKind::Password
        | SecretKind::Token
        | SecretKind::ApiKey
        | SecretKind::Secret
        | SecretKind::Cookie
        | SecretKind::AuthorizationCredentials
        | SecretKind::WholeOutput => 0,
        SecretKind::PrivateKey
        | SecretKind::PasswordHash
        | SecretKind::BearerToken
        | SecretKind::CloudCredential
        | SecretKind::GithubToken
        | SecretKind::GitlabToken
        | SecretKind::SlackToken
        | SecretKind::AiProviderKey
        | SecretKind::StripeKey
        | SecretKind::RegistryToken
        | SecretKind::Jwt
        | SecretKind::UrlPassword
        | SecretKind::ProxmoxTokenSecret => 1,
    }
}

fn render(text: &str, findings: Vec<Finding>) -> Redacted<'_> {
    let mut out = String::with_capacity(text.len());
    let mut removed = BTreeMap::new();
    let mut at = 0;
    for finding in findings {
        out.push_str(&text[at..finding.range.start]);
        out.push_str(&finding.kind.marker());
        *removed.entry(finding.kind).or_insert(0) += 1;
        at = finding.range.end;
    }
    out.push_str(&text[at..]);
    Redacted {
        text: Cow::Owned(out),
        removed,
    }
}

fn whole_output_withheld() -> Redacted<'static> {
    Redacted {
        text: Cow::Owned(SecretKind::WholeOutput.marker()),
        removed: BTreeMap::from([(SecretKind::WholeOutput, 1)]),
    }
}
