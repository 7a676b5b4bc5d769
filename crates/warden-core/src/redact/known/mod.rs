//! The known-secret canary (issue 17): Warden's own secrets (the model's
//! API key, Proxmox token secrets, the agents' grant-signing key, the TLS
//! private key, the generated admin password), registered by value with a
//! label each, are looked for in every tool output in the encodings a read
//! command can produce: as is, hex (`xxd`, `xxd -p`, `od`, `hexdump -C`),
//! base64 (standard or URL-safe, wrapped or not, at any offset of a larger
//! blob), reversed (`rev`), and cut into lines (`fold`, `cut -c`). Redaction
//! by shape cannot be complete against encodings; this is the second,
//! independent layer behind confinement (the files made unreadable).
//!
//! How: the output is turned into a few views (whitespace removed;
//! hex decoded; base64 decoded at each alignment; the same for the reversed
//! text) and each view is searched with one Aho-Corasick automaton for
//! every [`WINDOW`]-byte window of every secret, forwards and reversed. So
//! any [`WINDOW`] consecutive bytes of a secret trip it (`head -c 20` of a
//! key does); a secret shorter than the window must appear whole. Secrets
//! shorter than [`MIN_SECRET_LEN`] bytes are not registered: they would be
//! found in ordinary output.
//!
//! Public material (a certificate, the public half of a key) can be given
//! with [`KnownSecrets::add_public`]: windows of a secret that also occur in
//! it are dropped, so reading the certificate does not trip the private
//! key's canary. Common DER headers of private keys are public material
//! from the start.
//!
//! Pure: no IO. `aho-corasick` (already the redaction's literal searcher)
//! is the only dependency.

mod pem;
mod views;

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use serde_json::Value;

pub use pem::pem_blocks;
use views::View;

/// How many consecutive bytes of a secret count as the secret.
pub const WINDOW: usize = 16;
/// Secrets shorter than this are not registered (too many false hits).
pub const MIN_SECRET_LEN: usize = 8;
/// Up to this many patterns the searcher is a DFA (at most ~16 MiB).
const MAX_DFA_PATTERNS: usize = 1_000;

/// Why a secret was not registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KnownSecretError {
    #[error(
        "the {label} is shorter than {MIN_SECRET_LEN} bytes: it would be found in ordinary output, so it is not watched for"
    )]
    TooShort { label: String },
    #[error("the {label} holds no PEM private key block")]
    NoPrivateKey { label: String },
}

/// How a secret was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Raw,
    Reversed,
    Hex,
    ReversedHex,
    Base64,
    ReversedBase64,
    /// The searcher could not be built: the output was not checked.
    Unchecked,
}

impl Encoding {
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Raw => "raw",
            Encoding::Reversed => "reversed",
            Encoding::Hex => "hex",
            Encoding::ReversedHex => "reversed hex",
            Encoding::Base64 => "base64",
            Encoding::ReversedBase64 => "reversed base64",
            Encoding::Unchecked => "unchecked",
        }
    }

    fn of(view: View, reversed_pattern: bool) -> Encoding {
        match (view, reversed_pattern) {
            (View::Text, false) => Encoding::Raw,
            (View::Text, true) => Encoding::Reversed,
            (View::Hex | View::HexWords, false) => Encoding::Hex,
            (View::Hex | View::HexWords, true) | (View::ReversedHex, _) => Encoding::ReversedHex,
            (View::Base64, false) => Encoding::Base64,
            (View::Base64, true) | (View::ReversedBase64, _) => Encoding::ReversedBase64,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One of Warden's secrets found in an output: its label and how it was
/// encoded, never the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub label: String,
    pub encoding: Encoding,
}

impl Found {
    /// What the withheld output's error says.
    pub fn message(&self) -> String {
        if self.encoding == Encoding::Unchecked {
            return format!(
                "the output could not be checked for Warden's own {}; it was withheld",
                self.label
            );
        }
        format!(
            "the output contained Warden's {} ({}); it was withheld",
            self.label, self.encoding
        )
    }
}

/// A registered secret: its label and the byte strings it is looked for as.
#[derive(Clone, PartialEq, Eq)]
struct Entry {
    label: String,
    forms: Vec<Vec<u8>>,
}

/// Which entry a pattern belongs to, and whether it is reversed.
#[derive(Clone, Copy)]
struct PatternOf {
    entry: usize,
    reversed: bool,
}

/// The registry: secrets with a label each, and the searcher built from
/// them. Cheap to search; each addition rebuilds the searcher.
#[derive(Clone, Default)]
pub struct KnownSecrets {
    entries: Vec<Entry>,
    public: Vec<Vec<u8>>,
    /// Built when first searched (a registry is filled in a few steps);
    /// `Err` when it cannot be, and then every output is withheld.
    searcher: OnceLock<Result<Option<Searcher>, String>>,
}

/// The automaton of every pattern and whose each pattern is.
type Searcher = (AhoCorasick, Vec<PatternOf>);

impl fmt::Debug for KnownSecrets {
    /// Labels only, never a secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KnownSecrets")
            .field("labels", &self.labels())
            .finish()
    }
}

impl PartialEq for KnownSecrets {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries && self.public == other.public
    }
}

impl KnownSecrets {
    pub fn new() -> Self {
        KnownSecrets::default()
    }

    /// The labels registered, in order.
    pub fn labels(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.label.as_str()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Register `secret` under `label` (`model API key`, …). A secret with
    /// whitespace is also looked for without it (wrapped lines).
    pub fn add(&mut self, label: &str, secret: &[u8]) -> Result<(), KnownSecretError> {
        // As given, and (text read from a file) without surrounding or
        // inner whitespace.
        let trimmed = secret.trim_ascii();
        if trimmed.len() < MIN_SECRET_LEN {
            return Err(KnownSecretError::TooShort {
                label: label.to_string(),
            });
        }
        let stripped: Vec<u8> = trimmed
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        let mut forms = vec![secret.to_vec()];
        for form in [trimmed.to_vec(), stripped] {
            if form.len() >= MIN_SECRET_LEN && !forms.contains(&form) {
                forms.push(form);
            }
        }
        self.push(label, forms)
    }

    /// Register the private keys of a PEM text: the DER bytes of each
    /// private key block and its base64 body (without the BEGIN/END lines,
    /// which every key shares).
    pub fn add_private_key_pem(&mut self, label: &str, pem: &str) -> Result<(), KnownSecretError> {
        let mut forms = Vec::new();
        for block in pem_blocks(pem).into_iter().filter(|b| b.private) {
            forms.push(block.der);
            forms.push(block.body.into_bytes());
        }
        if forms.is_empty() {
            return Err(KnownSecretError::NoPrivateKey {
                label: label.to_string(),
            });
        }
        self.push(label, forms)
    }

    /// Material that may appear in output (a certificate, a public key):
    /// windows of a secret found in it are not looked for. A PEM text
    /// counts with its DER bytes and base64 bodies.
    pub fn add_public(&mut self, public: &[u8]) -> Result<(), KnownSecretError> {
        self.public.push(public.to_vec());
        if let Ok(text) = std::str::from_utf8(public) {
            for block in pem_blocks(text) {
                self.public.push(block.der);
                self.public.push(block.body.into_bytes());
            }
        }
        self.searcher = OnceLock::new();
        Ok(())
    }

    fn push(&mut self, label: &str, forms: Vec<Vec<u8>>) -> Result<(), KnownSecretError> {
        self.entries.push(Entry {
            label: label.to_string(),
            forms,
        });
        self.searcher = OnceLock::new();
        Ok(())
    }

    fn build(&self) -> Result<Option<Searcher>, String> {
        let headers: Vec<Vec<u8>> = pem::COMMON_DER_HEADERS
            .iter()
            .flat_map(|h| {
                let whole_groups = &h[..h.len() / 3 * 3];
                [h.to_vec(), pem::encode_base64(whole_groups).into_bytes()]
            })
            .collect();
        let public = public_windows(self.public.iter().chain(&headers));
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut owners = Vec::new();
        let mut seen = HashSet::new();
        for (entry, e) in self.entries.iter().enumerate() {
            for form in &e.forms {
                for window in windows(form) {
                    if public.contains(window) {
                        continue;
                    }
                    let reversed: Vec<u8> = window.iter().rev().copied().collect();
                    for (pattern, is_reversed) in [(window.to_vec(), false), (reversed, true)] {
                        if seen.insert(pattern.clone()) {
                            patterns.push(pattern);
                            owners.push(PatternOf {
                                entry,
                                reversed: is_reversed,
                            });
                        }
                    }
                }
            }
        }
        if patterns.is_empty() {
            return Ok(None);
        }
        {
            // A DFA while it stays small: decoded views are random-looking
            // bytes, on which prefilters do not help and an NFA's
            // transitions are slower. A large key (RSA 4096: ~11,000
            // patterns) would make it hundreds of megabytes: an NFA then.
            let kind = if patterns.len() <= MAX_DFA_PATTERNS {
                AhoCorasickKind::DFA
            } else {
                AhoCorasickKind::ContiguousNFA
            };
            let searcher = AhoCorasick::builder()
                .kind(Some(kind))
                .build(&patterns)
                .map_err(|e| e.to_string())?;
            Ok(Some((searcher, owners)))
        }
    }

    /// The first registered secret found in `text`, in any encoding.
    /// A registry whose searcher cannot be built finds a problem in every
    /// output ([`Encoding::Unchecked`]): nothing unchecked gets through.
    pub fn find(&self, text: &str) -> Option<Found> {
        let (searcher, owners) = match self.searcher.get_or_init(|| self.build()) {
            Ok(searcher) => searcher.as_ref()?,
            Err(why) => {
                return Some(Found {
                    label: format!("secrets (they cannot be searched for: {why})"),
                    encoding: Encoding::Unchecked,
                });
            }
        };
        for (view, bytes) in views::views(text) {
            if let Some(m) = searcher.find(bytes.as_slice()) {
                let owner = owners.get(m.pattern().as_usize())?;
                let entry = self.entries.get(owner.entry)?;
                return Some(Found {
                    label: entry.label.clone(),
                    encoding: Encoding::of(view, owner.reversed),
                });
            }
        }
        None
    }

    /// The first registered secret found in any string (or key) of `value`,
    /// the strings searched together, one per line.
    pub fn find_in_json(&self, value: &Value) -> Option<Found> {
        if self.entries.is_empty() {
            return None;
        }
        let mut text = String::new();
        collect_strings(value, &mut text);
        self.find(&text)
    }
}

fn collect_strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => {
            for (key, v) in map {
                out.push_str(key);
                out.push('\n');
                collect_strings(v, out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Every [`WINDOW`]-byte window of `form`, or the whole when shorter.
fn windows(form: &[u8]) -> impl Iterator<Item = &[u8]> {
    let size = WINDOW.min(form.len());
    form.windows(size)
}

/// Windows of public material, at every size a secret's pattern can have.
fn public_windows<'p>(public: impl Iterator<Item = &'p Vec<u8>>) -> HashSet<&'p [u8]> {
    let mut set = HashSet::new();
    for material in public {
        for size in MIN_SECRET_LEN..=WINDOW {
            set.extend(material.windows(size));
        }
    }
    set
}

/// The registry shared by every executor of a process, which the server
/// completes after the world is built (its TLS key, the first admin's
/// password). Searching takes a snapshot; adding replaces it.
#[derive(Default)]
pub struct SharedKnownSecrets {
    current: RwLock<Arc<KnownSecrets>>,
}

impl fmt::Debug for SharedKnownSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.snapshot().fmt(f)
    }
}

impl PartialEq for SharedKnownSecrets {
    fn eq(&self, other: &Self) -> bool {
        *self.snapshot() == *other.snapshot()
    }
}

impl SharedKnownSecrets {
    pub fn new(secrets: KnownSecrets) -> Self {
        SharedKnownSecrets {
            current: RwLock::new(Arc::new(secrets)),
        }
    }

    /// The registry as it is now.
    pub fn snapshot(&self) -> Arc<KnownSecrets> {
        match self.current.read() {
            Ok(current) => Arc::clone(&current),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Change the registry (add a secret, public material).
    pub fn update(
        &self,
        change: impl FnOnce(&mut KnownSecrets) -> Result<(), KnownSecretError>,
    ) -> Result<(), KnownSecretError> {
        let mut guard = match self.current.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut next = KnownSecrets::clone(&guard);
        change(&mut next)?;
        *guard = Arc::new(next);
        Ok(())
    }
}
