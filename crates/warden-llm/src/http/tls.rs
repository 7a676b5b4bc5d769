//! TLS for model APIs: rustls on the `ring` provider (the workspace's one
//! crypto stack; aws-lc-rs needs cmake) with the Mozilla roots from
//! `webpki-roots`, built once per process and shared by every client.

use std::sync::{Arc, OnceLock};

use rustls::{ClientConfig, RootCertStore};

/// The client TLS configuration, with ALPN for HTTP/2 and HTTP/1.1 (a
/// preconfigured config is used by reqwest as it is).
pub fn client_config() -> Result<ClientConfig, rustls::Error> {
    static SHARED: OnceLock<Result<Arc<ClientConfig>, rustls::Error>> = OnceLock::new();
    let shared = SHARED.get_or_init(|| build().map(Arc::new));
    match shared {
        Ok(config) => Ok(ClientConfig::clone(config)),
        Err(error) => Err(error.clone()),
    }
}

fn build() -> Result<ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_on_ring_with_alpn() {
        let config = client_config().unwrap();
        assert_eq!(config.alpn_protocols[0], b"h2");
        assert_eq!(
            config.crypto_provider().cipher_suites,
            rustls::crypto::ring::default_provider().cipher_suites
        );
    }
}
