//! API keys. A key only ever leaves this type as a request header value;
//! `Debug` and `Display` print `***` so a key cannot end up in logs, error
//! texts or a `{config:?}` by accident.

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Surrounding whitespace is dropped: keys read from files or
    /// environment variables often carry a trailing newline.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into().trim().to_string())
    }

    /// The key itself, for building a request header. Nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret::new(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret::new(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints_the_key() {
        let key = Secret::new(" sk-very-secret\n");
        assert_eq!(key.expose(), "sk-very-secret");
        assert_eq!(format!("{key:?} {key}"), "*** ***");
        assert!(!format!("{:?}", Some(key)).contains("secret"));
    }
}
