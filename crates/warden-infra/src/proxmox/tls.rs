//! The rustls client configuration for one cluster: a pinned SHA-256
//! fingerprint, a CA file, the public roots, or no verification at all
//! (the verifiers themselves are [`crate::tls`]'s).

use rustls::{ClientConfig, RootCertStore};

use super::config::{ConfigError, TlsTrust};
use crate::tls::{
    PresentedCertificate, insecure_client_config, pinned_client_config, ring_provider,
    roots_client_config, roots_from_pem_file,
};

pub use crate::tls::{FingerprintMismatch, find_fingerprint_mismatch, find_tls_error};

/// The rustls configuration for `trust`.
pub fn client_config(cluster: &str, trust: &TlsTrust) -> Result<ClientConfig, ConfigError> {
    let provider = ring_provider();
    let setup_failed = |e: rustls::Error| ConfigError::BadCaFile {
        cluster: cluster.to_string(),
        path: Default::default(),
        reason: format!("TLS setup: {e}"),
    };
    match trust {
        TlsTrust::PinnedFingerprint(pinned) => {
            // The client finds the mismatch in the error chain; no need to
            // keep the presented certificate aside.
            pinned_client_config(provider, *pinned, PresentedCertificate::default())
                .map_err(setup_failed)
        }
        TlsTrust::Insecure => insecure_client_config(provider).map_err(setup_failed),
        TlsTrust::PublicRoots => {
            let roots = RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            roots_client_config(provider, roots, PresentedCertificate::default())
                .map_err(setup_failed)
        }
        TlsTrust::CaFile(path) => {
            let roots = roots_from_pem_file(path).map_err(|e| ConfigError::BadCaFile {
                cluster: cluster.to_string(),
                path: path.clone(),
                reason: e.to_string(),
            })?;
            roots_client_config(provider, roots, PresentedCertificate::default())
                .map_err(setup_failed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::CertFingerprint;

    #[test]
    fn a_missing_ca_file_is_a_config_error_naming_the_cluster() {
        let err = client_config(
            "lab",
            &TlsTrust::CaFile("/nonexistent/warden-ca.pem".into()),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("cannot read it") && text.contains("`lab`"),
            "{text}"
        );
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificates here\n").unwrap();
        let err = client_config("lab", &TlsTrust::CaFile(empty)).unwrap_err();
        assert!(err.to_string().contains("no usable certificate"), "{err}");
    }

    #[test]
    fn every_trust_mode_builds() {
        for trust in [
            TlsTrust::PinnedFingerprint(CertFingerprint([7; 32])),
            TlsTrust::PublicRoots,
            TlsTrust::Insecure,
        ] {
            client_config("lab", &trust).unwrap();
        }
    }
}
