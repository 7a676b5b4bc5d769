//! TLS with a self-signed certificate: the fingerprint the server reports
//! is the one it serves, clients can pin it, and cookies are `Secure`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

mod support;

use std::sync::{Arc, Mutex};

use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use serde_json::{Value, json};
use support::{Options, start};
use warden_server::TlsMode;
use warden_server::auth::Role;

/// Accepts exactly the certificate with `pin` as its fingerprint, and
/// remembers what the server presented.
#[derive(Debug)]
struct Pinned {
    pin: String,
    seen: Mutex<Vec<String>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let fingerprint = warden_server::tls::fingerprint(end_entity.as_ref());
        self.seen.lock().unwrap().push(fingerprint.clone());
        if fingerprint == self.pin {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General("fingerprint mismatch".into()))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

fn pinned_client(pin: &str) -> (reqwest::Client, Arc<Pinned>) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = Arc::new(Pinned {
        pin: pin.to_string(),
        seen: Mutex::new(Vec::new()),
        provider: Arc::clone(&provider),
    });
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(verifier.clone())
        .with_no_client_auth();
    let client = reqwest::Client::builder()
        .use_preconfigured_tls(config)
        .build()
        .unwrap();
    (client, verifier)
}

#[tokio::test]
async fn the_reported_fingerprint_is_the_served_certificate() {
    let server = start(Options {
        config: Box::new(|c| c.tls = TlsMode::SelfSigned),
        ..Options::default()
    })
    .await;
    let fingerprint = server
        .started
        .as_ref()
        .unwrap()
        .tls_fingerprint
        .clone()
        .expect("a fingerprint under TLS");
    let https = server.base.replace("http://", "https://");
    let (client, verifier) = pinned_client(&fingerprint);
    let health: Value = client
        .get(format!("{https}/api/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["status"], "ok");
    assert_eq!(*verifier.seen.lock().unwrap(), vec![fingerprint.clone()]);

    // A client pinned to another certificate refuses the connection.
    let (wrong, _) = pinned_client("00:11");
    assert!(
        wrong
            .get(format!("{https}/api/health"))
            .send()
            .await
            .is_err()
    );
    // Plain HTTP on the TLS port gets nothing useful.
    assert!(
        server
            .client
            .get(format!("{}/api/health", server.base))
            .send()
            .await
            .map(|r| !r.status().is_success())
            .unwrap_or(true)
    );

    // Under TLS the login cookie is Secure.
    server.add_user("tess", Role::Viewer, "a long password");
    let login = client
        .post(format!("{https}/api/auth/login"))
        .json(&json!({"username": "tess", "password": "a long password"}))
        .send()
        .await
        .unwrap();
    let cookie = login.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.contains("; Secure"), "{cookie}");
}
