//! How the agent trusts the server's certificate (spec/agent.md: system
//! roots, a CA file, or a pinned SHA-256 fingerprint; "accept anything"
//! only with `--insecure` on loopback). One rustls configuration, on the
//! `ring` provider, serves enrollment (reqwest) and the WebSocket.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};
use serde::{Deserialize, Serialize};
use warden_infra::tls::{
    CaFileError, CertFingerprint, insecure_client_config, pinned_client_config, ring_provider,
    roots_client_config, roots_from_pem_file,
};

pub use warden_infra::tls::PresentedCertificate;

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
    #[error("`{text}` is not a SHA-256 fingerprint: {reason}")]
    BadFingerprint { text: String, reason: String },
    #[error("the CA file {}: {reason}", path.display())]
    CaFile { path: PathBuf, reason: CaFileError },
    #[error("TLS configuration: {0}")]
    Rustls(#[from] rustls::Error),
}

/// A TLS client configuration for `server` under `trust`, and where a
/// pinned verifier reports a certificate that did not match.
pub fn client_config(
    trust: &ServerTrust,
    server: &ServerUrl,
) -> Result<(Arc<ClientConfig>, PresentedCertificate), TlsError> {
    let provider = ring_provider();
    let presented = PresentedCertificate::default();
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
            roots_client_config(provider, roots, presented.clone())?
        }
        ServerTrust::CaFile { path } => {
            let roots = roots_from_pem_file(path).map_err(|reason| TlsError::CaFile {
                path: path.clone(),
                reason,
            })?;
            roots_client_config(provider, roots, presented.clone())?
        }
        ServerTrust::Fingerprint { sha256 } => {
            pinned_client_config(provider, parse_fingerprint(sha256)?, presented.clone())?
        }
        ServerTrust::InsecureLoopback => {
            if !server.is_loopback() {
                return Err(TlsError::InsecureNotLoopback {
                    server: server.to_string(),
                });
            }
            insecure_client_config(provider)?
        }
    };
    Ok((Arc::new(config), presented))
}

/// A pin as the operator typed it (`AB:CD:…`, bare hex, `sha256:` prefix).
pub fn parse_fingerprint(text: &str) -> Result<CertFingerprint, TlsError> {
    text.parse().map_err(|reason| TlsError::BadFingerprint {
        text: text.to_string(),
        reason,
    })
}

/// The SHA-256 fingerprint of a DER certificate, `AB:CD:…`.
pub fn certificate_fingerprint(der: &[u8]) -> String {
    CertFingerprint::of_der(der).to_string()
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
            assert_eq!(parse_fingerprint(&text).unwrap().0, [0xab; 32], "{text}");
        }
        for bad in ["", "abcd", &"zz".repeat(32), &"ab".repeat(33)] {
            assert!(parse_fingerprint(bad).is_err(), "{bad}");
        }
        assert_eq!(CertFingerprint([0xab; 32]).to_string(), colons);
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
            Err(TlsError::CaFile {
                reason: CaFileError::Unreadable(_),
                ..
            })
        ));
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificates here\n").unwrap();
        assert!(matches!(
            client_config(&ServerTrust::CaFile { path: empty }, &server),
            Err(TlsError::CaFile {
                reason: CaFileError::NoCertificate,
                ..
            })
        ));
        assert!(client_config(&ServerTrust::SystemRoots, &server).is_ok());
    }
}
