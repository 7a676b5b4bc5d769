//! The rustls client configuration for one cluster (on the `ring`
//! provider): a pinned SHA-256 fingerprint, a CA file, the public roots, or
//! no verification at all.
//!
//! The pinned verifier compares the end-entity certificate's SHA-256 with
//! the pin and nothing else (PVE's self-signed node certificates have no
//! name or chain worth checking); it still verifies the handshake
//! signature, so the server must hold the certificate's key.

use std::fmt;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

use super::config::{CertFingerprint, ConfigError, TlsTrust};

/// A presented certificate whose fingerprint is not the pinned one. Carried
/// inside rustls' error so the client can report both fingerprints.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("certificate fingerprint {presented} does not match the pinned {expected}")]
pub struct FingerprintMismatch {
    pub expected: CertFingerprint,
    pub presented: CertFingerprint,
}

/// Accepts exactly the certificate with the pinned SHA-256 fingerprint.
pub struct PinnedCertVerifier {
    pinned: CertFingerprint,
    algorithms: WebPkiSupportedAlgorithms,
}

impl fmt::Debug for PinnedCertVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PinnedCertVerifier({})", self.pinned)
    }
}

impl PinnedCertVerifier {
    pub fn new(pinned: CertFingerprint, provider: &CryptoProvider) -> Self {
        PinnedCertVerifier {
            pinned,
            algorithms: provider.signature_verification_algorithms,
        }
    }
}

impl ServerCertVerifier for PinnedCertVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let presented = CertFingerprint::of_der(end_entity.as_ref());
        if presented == self.pinned {
            return Ok(ServerCertVerified::assertion());
        }
        let mismatch = FingerprintMismatch {
            expected: self.pinned,
            presented,
        };
        Err(rustls::Error::InvalidCertificate(
            rustls::CertificateError::Other(rustls::OtherError(Arc::new(mismatch))),
        ))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// Accepts any certificate (`insecure = true`); still checks signatures.
#[derive(Debug)]
struct AnyCertVerifier {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for AnyCertVerifier {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// The rustls configuration for `trust`, on the `ring` provider.
pub fn client_config(cluster: &str, trust: &TlsTrust) -> Result<ClientConfig, ConfigError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| ConfigError::BadCaFile {
            cluster: cluster.to_string(),
            path: Default::default(),
            reason: format!("TLS setup: {e}"),
        })?;
    let config = match trust {
        TlsTrust::PinnedFingerprint(pinned) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(PinnedCertVerifier::new(*pinned, &provider)))
            .with_no_client_auth(),
        TlsTrust::Insecure => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertVerifier {
                algorithms: provider.signature_verification_algorithms,
            }))
            .with_no_client_auth(),
        TlsTrust::PublicRoots => {
            let roots = RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        TlsTrust::CaFile(path) => {
            let bad = |reason: String| ConfigError::BadCaFile {
                cluster: cluster.to_string(),
                path: path.clone(),
                reason,
            };
            let mut roots = RootCertStore::empty();
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| bad(format!("cannot read it: {e}")))?;
            for cert in certs {
                let cert = cert.map_err(|e| bad(format!("not a PEM certificate file: {e}")))?;
                roots
                    .add(cert)
                    .map_err(|e| bad(format!("a certificate in it is not usable: {e}")))?;
            }
            if roots.is_empty() {
                return Err(bad("it holds no certificate".into()));
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    Ok(config)
}

/// The fingerprint mismatch inside an error chain (reqwest → hyper → io →
/// rustls), if that is why the connection failed.
pub fn find_fingerprint_mismatch(
    err: &(dyn std::error::Error + 'static),
) -> Option<FingerprintMismatch> {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(found) = mismatch_in(e) {
            return Some(found);
        }
        // io::Error::source() skips the error it wraps; look inside it.
        if let Some(found) = e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| find_fingerprint_mismatch(inner))
        {
            return Some(found);
        }
        current = e.source();
    }
    None
}

fn mismatch_in(e: &(dyn std::error::Error + 'static)) -> Option<FingerprintMismatch> {
    match e.downcast_ref::<rustls::Error>()? {
        rustls::Error::InvalidCertificate(rustls::CertificateError::Other(other)) => {
            other.0.downcast_ref::<FingerprintMismatch>().cloned()
        }
        _ => None,
    }
}

/// A rustls error in the chain, as text (for the `Tls` error's reason).
pub fn find_tls_error(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(tls.to_string());
        }
        if let Some(found) = e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| find_tls_error(inner))
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
    fn a_missing_ca_file_is_a_config_error() {
        let err = client_config(
            "lab",
            &TlsTrust::CaFile("/nonexistent/warden-ca.pem".into()),
        )
        .unwrap_err();
        assert!(err.to_string().contains("cannot read it"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificates here\n").unwrap();
        let err = client_config("lab", &TlsTrust::CaFile(empty)).unwrap_err();
        assert!(err.to_string().contains("holds no certificate"), "{err}");
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
