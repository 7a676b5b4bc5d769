//! A pattern compiled the first time a text could hold what it finds: a
//! one-shot `warden ask` whose output has no `$`, `{` or token prefix pays
//! for none of the password-hash or token patterns. A pattern that does not
//! compile (a defect) must not let secrets through: the caller withholds
//! the whole text.

use std::sync::OnceLock;

use regex::Regex;

/// A rule could not be compiled: nothing may be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unavailable;

pub struct Rule {
    source: &'static str,
    compiled: OnceLock<Option<Regex>>,
}

impl Rule {
    pub const fn new(source: &'static str) -> Self {
        Rule {
            source,
            compiled: OnceLock::new(),
        }
    }

    pub fn get(&self) -> Result<&Regex, Unavailable> {
        self.compiled
            .get_or_init(|| Regex::new(self.source).ok())
            .as_ref()
            .ok_or(Unavailable)
    }

    #[cfg(test)]
    pub fn source(&self) -> &'static str {
        self.source
    }
}
