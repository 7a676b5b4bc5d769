//! The two custom certificate verifiers. Both still verify the handshake
//! signature against the presented certificate, so the peer must hold the
//! certificate's private key.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

use super::CertFingerprint;

/// A presented certificate whose fingerprint is not the pinned one. Carried
/// inside rustls' error so a client can report both fingerprints.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("certificate fingerprint {presented} does not match the pinned {expected}")]
pub struct FingerprintMismatch {
    pub expected: CertFingerprint,
    pub presented: CertFingerprint,
}

/// A certificate the trusted roots do not vouch for (self-signed, an
/// unknown CA, the wrong name), with what the server presented, so the
/// error can name the fingerprint to pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedCertificate {
    pub presented: CertFingerprint,
    /// rustls' reason.
    pub reason: String,
}

/// What the last handshake's verifier rejected, for clients whose
/// transport loses the error chain (the WebSocket handshake flattens it to
/// text): a certificate that did not match the pin, or one the roots do
/// not trust.
#[derive(Debug, Clone, Default)]
pub struct PresentedCertificate {
    mismatch: Arc<Mutex<Option<FingerprintMismatch>>>,
    untrusted: Arc<Mutex<Option<UntrustedCertificate>>>,
}

impl PresentedCertificate {
    /// The last mismatch seen, if the last handshake failed on the pin.
    pub fn mismatch(&self) -> Option<FingerprintMismatch> {
        self.mismatch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The certificate the roots refused, if the last handshake failed so.
    pub fn untrusted(&self) -> Option<UntrustedCertificate> {
        self.untrusted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn record(&self, mismatch: Option<FingerprintMismatch>) {
        *self.mismatch.lock().unwrap_or_else(PoisonError::into_inner) = mismatch;
    }

    fn record_untrusted(&self, untrusted: Option<UntrustedCertificate>) {
        *self
            .untrusted
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = untrusted;
    }
}

/// The roots' own verification (`WebPkiServerVerifier`), recording the
/// certificate it refused.
#[derive(Debug)]
pub struct RecordingRootsVerifier {
    inner: Arc<rustls::client::WebPkiServerVerifier>,
    presented: PresentedCertificate,
}

impl RecordingRootsVerifier {
    pub fn new(
        inner: Arc<rustls::client::WebPkiServerVerifier>,
        presented: PresentedCertificate,
    ) -> Self {
        RecordingRootsVerifier { inner, presented }
    }
}

impl ServerCertVerifier for RecordingRootsVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verdict = self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        );
        self.presented
            .record_untrusted(verdict.as_ref().err().map(|error| UntrustedCertificate {
                presented: CertFingerprint::of_der(end_entity.as_ref()),
                reason: error.to_string(),
            }));
        verdict
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// Accepts exactly the certificate with the pinned SHA-256 fingerprint
/// (self-signed node and server certificates have no name or chain worth
/// checking; the pin is the trust).
pub struct PinnedCertVerifier {
    pinned: CertFingerprint,
    algorithms: WebPkiSupportedAlgorithms,
    presented: PresentedCertificate,
}

impl fmt::Debug for PinnedCertVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PinnedCertVerifier({})", self.pinned)
    }
}

impl PinnedCertVerifier {
    pub fn new(
        pinned: CertFingerprint,
        provider: &CryptoProvider,
        presented: PresentedCertificate,
    ) -> Self {
        PinnedCertVerifier {
            pinned,
            algorithms: provider.signature_verification_algorithms,
            presented,
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
            self.presented.record(None);
            return Ok(ServerCertVerified::assertion());
        }
        let mismatch = FingerprintMismatch {
            expected: self.pinned,
            presented,
        };
        self.presented.record(Some(mismatch.clone()));
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

/// Accepts any certificate. Only where the caller's rules allow it
/// (`insecure = true` for a cluster; `--insecure` on loopback).
#[derive(Debug)]
pub struct AnyCertVerifier {
    algorithms: WebPkiSupportedAlgorithms,
}

impl AnyCertVerifier {
    pub fn new(provider: &CryptoProvider) -> Self {
        AnyCertVerifier {
            algorithms: provider.signature_verification_algorithms,
        }
    }
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
