//! Client-side TLS pieces shared by every outbound connection Warden makes
//! (Proxmox API, agent → server, CLI → server), on rustls' `ring` provider:
//! certificate fingerprints, the pinned-certificate and accept-anything
//! verifiers, roots from a PEM file, and finding why a handshake failed
//! inside an error chain.
//!
//! One mechanism on purpose: each connection decides *which* trust it uses
//! (its own configuration and rules, e.g. "insecure only on loopback"), but
//! a pin is checked the same way everywhere.

mod fingerprint;
mod verifiers;

pub use fingerprint::CertFingerprint;
pub use verifiers::{
    AnyCertVerifier, FingerprintMismatch, PinnedCertVerifier, PresentedCertificate,
    RecordingRootsVerifier, UntrustedCertificate,
};

use std::path::Path;
use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};

/// The crypto provider every Warden client uses.
pub fn ring_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Why a CA file gave no roots.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CaFileError {
    #[error("cannot read it: {0}")]
    Unreadable(String),
    #[error("not a PEM certificate file: {0}")]
    NotPem(String),
    #[error("it holds no usable certificate")]
    NoCertificate,
}

/// The CA certificates in a PEM file, as roots. Certificates rustls cannot
/// use are skipped; a file with none usable is an error.
pub fn roots_from_pem_file(path: &Path) -> Result<RootCertStore, CaFileError> {
    let pem = std::fs::read(path).map_err(|e| CaFileError::Unreadable(e.to_string()))?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<_, _>>()
        .map_err(|e| CaFileError::NotPem(e.to_string()))?;
    let mut roots = RootCertStore::empty();
    let (added, _unusable) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(CaFileError::NoCertificate);
    }
    Ok(roots)
}

/// A client configuration that trusts exactly the certificate `pin`,
/// reporting what the server presented into `presented`.
pub fn pinned_client_config(
    provider: Arc<CryptoProvider>,
    pin: CertFingerprint,
    presented: PresentedCertificate,
) -> Result<ClientConfig, rustls::Error> {
    let verifier = PinnedCertVerifier::new(pin, &provider, presented);
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}

/// A client configuration that accepts any certificate (handshake
/// signatures are still checked). Callers decide when that is allowed.
pub fn insecure_client_config(
    provider: Arc<CryptoProvider>,
) -> Result<ClientConfig, rustls::Error> {
    let verifier = AnyCertVerifier::new(&provider);
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}

/// A client configuration that trusts `roots`, recording into `presented`
/// a certificate they refuse (so the error can name its fingerprint).
pub fn roots_client_config(
    provider: Arc<CryptoProvider>,
    roots: RootCertStore,
    presented: PresentedCertificate,
) -> Result<ClientConfig, rustls::Error> {
    if roots.is_empty() {
        // Nothing to verify against: every certificate is refused.
        return Ok(ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth());
    }
    let inner = rustls::client::WebPkiServerVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .map_err(|error| rustls::Error::General(error.to_string()))?;
    let verifier = RecordingRootsVerifier::new(inner, presented);
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth())
}

/// The fingerprint mismatch inside an error chain (reqwest → hyper → io →
/// rustls, or tungstenite → rustls), if that is why the connection failed.
pub fn find_fingerprint_mismatch(
    err: &(dyn std::error::Error + 'static),
) -> Option<FingerprintMismatch> {
    find_in_chain(err, &|e| match e.downcast_ref::<rustls::Error>()? {
        rustls::Error::InvalidCertificate(rustls::CertificateError::Other(other)) => {
            other.0.downcast_ref::<FingerprintMismatch>().cloned()
        }
        _ => None,
    })
}

/// A rustls error in the chain, as text.
pub fn find_tls_error(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    find_in_chain(err, &|e| {
        e.downcast_ref::<rustls::Error>().map(ToString::to_string)
    })
}

fn find_in_chain<T>(
    err: &(dyn std::error::Error + 'static),
    probe: &dyn Fn(&(dyn std::error::Error + 'static)) -> Option<T>,
) -> Option<T> {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(found) = probe(e) {
            return Some(found);
        }
        // io::Error::source() skips the error it wraps; look inside it.
        if let Some(found) = e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| find_in_chain(inner, probe))
        {
            return Some(found);
        }
        current = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mismatch_is_found_through_io_errors() {
        let mismatch = FingerprintMismatch {
            expected: CertFingerprint([1; 32]),
            presented: CertFingerprint([2; 32]),
        };
        let tls = rustls::Error::InvalidCertificate(rustls::CertificateError::Other(
            rustls::OtherError(Arc::new(mismatch.clone())),
        ));
        let io = std::io::Error::new(std::io::ErrorKind::InvalidData, tls);
        assert_eq!(find_fingerprint_mismatch(&io), Some(mismatch));
        let text = find_tls_error(&io).unwrap();
        assert!(text.contains("invalid peer certificate"), "{text}");
        let unrelated = std::io::Error::other("refused");
        assert_eq!(find_fingerprint_mismatch(&unrelated), None);
        assert_eq!(find_tls_error(&unrelated), None);
    }

    #[test]
    fn a_missing_empty_or_garbled_ca_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.pem");
        assert!(matches!(
            roots_from_pem_file(&missing),
            Err(CaFileError::Unreadable(_))
        ));
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificates here\n").unwrap();
        assert!(matches!(
            roots_from_pem_file(&empty),
            Err(CaFileError::NoCertificate)
        ));
        let garbled = dir.path().join("garbled.pem");
        std::fs::write(
            &garbled,
            "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        assert!(roots_from_pem_file(&garbled).is_err());
    }

    #[test]
    fn every_kind_of_configuration_builds() {
        pinned_client_config(
            ring_provider(),
            CertFingerprint([7; 32]),
            PresentedCertificate::default(),
        )
        .unwrap();
        insecure_client_config(ring_provider()).unwrap();
        roots_client_config(
            ring_provider(),
            RootCertStore::empty(),
            PresentedCertificate::default(),
        )
        .unwrap();
    }
}
