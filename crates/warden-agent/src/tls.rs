//! How the agent trusts the server's certificate (spec/agent.md: system
//! roots, a CA file, or a pinned SHA-256 fingerprint; "accept anything"
//! only with `--insecure` on loopback). One rustls configuration, on the
//! `ring` provider, serves enrollment (reqwest) and the WebSocket.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::server_url::ServerUrl;

/// Where the system's CA bundle usually lives (Debian, Ubuntu, Alpine,
/// Arch; Fedora and RHEL link it too). Added to the built-in web roots.
const SYSTEM_CA_BUNDLES: [&str; 2] = [
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
];

/// The trust decision, stored with the identity so `run` trusts the server
/// the way `enroll` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ServerTrust {
    /// Public roots (built in) plus the system's CA bundle.
    SystemRoots,
    /// Only certificates issued by the CAs in this PEM file.
    CaFile { path: PathBuf },
    /// Exactly the certificate with this SHA-256 (hex, colons optional).
    Fingerprint { sha256: String },
    /// Any certificate; only for loopback servers.
    InsecureLoopback,
}

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("--insecure is accepted only for a loopback server, not {server}")]
    InsecureNotLoopback { server: String },
    #[error("`{0}` is not a SHA-256 fingerprint (64 hex digits, colons allowed)")]
    BadFingerprint(String),
    #[error("cannot read the CA file {}: {message}", path.display())]
    CaFile { path: PathBuf, message: String },
    #[error("the CA file {} holds no usable certificate", path.display())]
    EmptyCaFile { path: PathBuf },
    #[error("TLS configuration: {0}")]
    Rustls(#[from] rustls::Error),
}

/// The fingerprint the server presented in the last handshake checked
/// against a pin, for the error message when it does not match.
#[derive(Debug, Clone, Default)]
pub struct PresentedFingerprint(Arc<Mutex<Option<String>>>);

impl PresentedFingerprint {
    pub fn get(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, fingerprint: String) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(fingerprint);
    }
}

/// A TLS client configuration for `server` under `trust`.
pub fn client_config(
    trust: &ServerTrust,
    server: &ServerUrl,
) -> Result<(Arc<ClientConfig>, PresentedFingerprint), TlsError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()?;
    let presented = PresentedFingerprint::default();
    let config = match trust {
        ServerTrust::SystemRoots => {
            let mut roots = RootCertStore::empty();
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            for bundle in SYSTEM_CA_BUNDLES {
                if let Ok(pem) = std::fs::read(bundle) {
                    // Certificates rustls cannot use are skipped, as browsers do.
                    let certs = CertificateDer::pem_slice_iter(&pem).flatten();
                    roots.add_parsable_certificates(certs);
                }
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        ServerTrust::CaFile { path } => {
            let pem = std::fs::read(path).map_err(|err| TlsError::CaFile {
                path: path.clone(),
                message: err.to_string(),
            })?;
            let mut roots = RootCertStore::empty();
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
                .collect::<Result<_, _>>()
                .map_err(|err| TlsError::CaFile {
                    path: path.clone(),
                    message: err.to_string(),
                })?;
            let (added, _ignored) = roots.add_parsable_certificates(certs);
            if added == 0 {
                return Err(TlsError::EmptyCaFile { path: path.clone() });
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        ServerTrust::Fingerprint { sha256 } => {
            let expected = parse_fingerprint(sha256)?;
            let verifier = PinnedCertificate {
                expected,
                algorithms: provider.signature_verification_algorithms,
                presented: presented.clone(),
            };
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth()
        }
        ServerTrust::InsecureLoopback => {
            if !server.is_loopback() {
                return Err(TlsError::InsecureNotLoopback {
                    server: server.to_string(),
                });
            }
            let verifier = AnyCertificate {
                algorithms: provider.signature_verification_algorithms,
            };
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth()
        }
    };
    Ok((Arc::new(config), presented))
}

/// 32 bytes from 64 hex digits, colons and case ignored, an optional
/// `sha256:` prefix allowed.
pub fn parse_fingerprint(text: &str) -> Result<[u8; 32], TlsError> {
    let trimmed = text.trim();
    let body = trimmed
        .strip_prefix("sha256:")
        .or_else(|| trimmed.strip_prefix("SHA256:"))
        .unwrap_or(trimmed);
    let digits: String = body.chars().filter(|c| *c != ':').collect();
    let bytes = hex::decode(&digits).map_err(|_| TlsError::BadFingerprint(text.to_string()))?;
    bytes
        .try_into()
        .map_err(|_| TlsError::BadFingerprint(text.to_string()))
}

/// `AB:CD:…`, as `openssl x509 -fingerprint -sha256` and Proxmox print it.
pub fn format_fingerprint(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The SHA-256 fingerprint of a DER certificate.
pub fn certificate_fingerprint(der: &[u8]) -> String {
    format_fingerprint(&Sha256::digest(der))
}

/// Trusts exactly one certificate, by the hash of its DER encoding; the
/// handshake signatures are still checked, so the peer must hold its key.
#[derive(Debug)]
struct PinnedCertificate {
    expected: [u8; 32],
    algorithms: WebPkiSupportedAlgorithms,
    presented: PresentedFingerprint,
}

impl ServerCertVerifier for PinnedCertificate {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let actual: [u8; 32] = Sha256::digest(end_entity.as_ref()).into();
        self.presented.set(format_fingerprint(&actual));
        if actual == self.expected {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(format!(
                "certificate fingerprint mismatch: the server presented SHA256 {}, pinned {}",
                format_fingerprint(&actual),
                format_fingerprint(&self.expected)
            )))
        }
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

/// `--insecure` on loopback: any certificate.
#[derive(Debug)]
struct AnyCertificate {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for AnyCertificate {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_parse_in_the_usual_spellings() {
        let hex = "ab".repeat(32);
        let colons = vec!["AB"; 32].join(":");
        for text in [
            hex.clone(),
            colons.clone(),
            format!("sha256:{hex}"),
            format!(" {colons} "),
        ] {
            assert_eq!(parse_fingerprint(&text).unwrap(), [0xab; 32], "{text}");
        }
        for bad in ["", "abcd", &"zz".repeat(32), &"ab".repeat(33)] {
            assert!(parse_fingerprint(bad).is_err(), "{bad}");
        }
        assert_eq!(format_fingerprint(&[0xab; 32]), colons);
    }

    #[test]
    fn insecure_is_refused_off_loopback() {
        let remote = ServerUrl::parse("https://warden.example").unwrap();
        assert!(matches!(
            client_config(&ServerTrust::InsecureLoopback, &remote),
            Err(TlsError::InsecureNotLoopback { .. })
        ));
        let local = ServerUrl::parse("https://127.0.0.1:8443").unwrap();
        assert!(client_config(&ServerTrust::InsecureLoopback, &local).is_ok());
    }

    #[test]
    fn a_missing_or_empty_ca_file_is_an_error() {
        let server = ServerUrl::parse("https://warden.example").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let missing = ServerTrust::CaFile {
            path: dir.path().join("nope.pem"),
        };
        assert!(matches!(
            client_config(&missing, &server),
            Err(TlsError::CaFile { .. })
        ));
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificates here\n").unwrap();
        assert!(matches!(
            client_config(&ServerTrust::CaFile { path: empty }, &server),
            Err(TlsError::EmptyCaFile { .. })
        ));
        assert!(client_config(&ServerTrust::SystemRoots, &server).is_ok());
    }
}
