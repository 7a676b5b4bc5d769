//! SHA-256 certificate fingerprints as PVE and `openssl x509 -fingerprint
//! -sha256` show them (`AB:CD:…`).

use std::fmt;
use std::str::FromStr;

/// A SHA-256 certificate fingerprint. Parsed from `AB:CD:…` (PVE's GUI
/// form) or 64 bare hex digits, any case, with an optional `sha256:`
/// prefix; shown as upper-case with colons.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CertFingerprint(pub [u8; 32]);

impl CertFingerprint {
    /// The fingerprint of a DER-encoded certificate.
    pub fn of_der(der: &[u8]) -> Self {
        use sha2::Digest;
        CertFingerprint(sha2::Sha256::digest(der).into())
    }
}

impl fmt::Display for CertFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, byte) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{byte:02X}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for CertFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CertFingerprint({self})")
    }
}

impl FromStr for CertFingerprint {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let text = text
            .strip_prefix("sha256:")
            .or_else(|| text.strip_prefix("SHA256:"))
            .unwrap_or(text);
        let digits: String = if text.contains(':') {
            let parts: Vec<&str> = text.split(':').collect();
            if parts.iter().any(|p| p.len() != 2) {
                return Err("with colons, every byte must be two hex digits".into());
            }
            parts.concat()
        } else {
            text.to_string()
        };
        if digits.len() != 64 {
            return Err(format!(
                "expected 32 bytes (64 hex digits), got {} hex digits{}",
                digits.len(),
                if digits.len() == 40 {
                    " (a SHA-1 fingerprint?)"
                } else {
                    ""
                }
            ));
        }
        let bytes = hex::decode(&digits).map_err(|e| format!("not hex: {e}"))?;
        let mut out = [0u8; 32];
        out.copy_from_slice(&bytes);
        Ok(CertFingerprint(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn malformed_fingerprints_are_refused_with_a_reason() {
        let sha1 = "ab".repeat(20);
        assert!(
            sha1.parse::<CertFingerprint>()
                .unwrap_err()
                .contains("SHA-1")
        );
        for bad in ["", "abcd", &"zz".repeat(32), &"ab".repeat(33), "A:BC"] {
            assert!(bad.parse::<CertFingerprint>().is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn fingerprints_round_trip(bytes in proptest::array::uniform32(any::<u8>())) {
            let fp = CertFingerprint(bytes);
            let shown = fp.to_string();
            prop_assert_eq!(shown.len(), 95);
            prop_assert_eq!(shown.parse::<CertFingerprint>(), Ok(fp));
            prop_assert_eq!(shown.to_lowercase().parse::<CertFingerprint>(), Ok(fp));
            prop_assert_eq!(shown.replace(':', "").parse::<CertFingerprint>(), Ok(fp));
            prop_assert_eq!(format!("sha256:{shown}").parse::<CertFingerprint>(), Ok(fp));
        }

        #[test]
        fn fingerprint_parsing_never_panics(text in "\\PC{0,120}") {
            let _ = text.parse::<CertFingerprint>();
        }
    }
}
