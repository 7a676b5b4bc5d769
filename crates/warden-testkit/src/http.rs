//! reqwest clients for tests. reqwest is built here without a default
//! crypto provider (one TLS stack: rustls on `ring`), so even a client for
//! plain HTTP gets an explicit TLS configuration.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Client;

/// A rustls client configuration on `ring` that trusts no certificate at
/// all (for plain HTTP on loopback).
pub fn no_roots_tls() -> rustls::ClientConfig {
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth()
}

/// A client for plain HTTP, with a 60 s overall timeout.
pub fn client() -> Client {
    client_with(no_roots_tls(), Some(Duration::from_secs(60)))
}

/// A client with this TLS configuration and overall timeout.
pub fn client_with(tls: rustls::ClientConfig, timeout: Option<Duration>) -> Client {
    let mut builder = Client::builder().tls_backend_preconfigured(tls);
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder.build().expect("a reqwest client")
}

/// A client configuration that trusts exactly the certificate with this
/// SHA-256 pin (`AB:CD:…`); an unparsable pin trusts nothing.
#[cfg(feature = "warden-infra")]
pub fn pinned_tls(pin: &str) -> rustls::ClientConfig {
    use warden_infra::tls::{
        CertFingerprint, PresentedCertificate, pinned_client_config, ring_provider,
    };
    let pin = pin.parse().unwrap_or(CertFingerprint([0; 32]));
    pinned_client_config(ring_provider(), pin, PresentedCertificate::default())
        .expect("a pinned client configuration")
}

/// A client that trusts exactly the certificate with this pin.
#[cfg(feature = "warden-infra")]
pub fn pinned_client(pin: &str, timeout: Option<Duration>) -> Client {
    client_with(pinned_tls(pin), timeout)
}
