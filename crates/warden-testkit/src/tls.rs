//! TLS for loopback test servers: certificates made on the fly (rcgen, on
//! `ring`), the rustls server configuration, and an axum listener that
//! completes the handshake before serving.

use std::net::SocketAddr;
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// A server certificate chain and its key, and the CA that issued it.
pub struct ServerIdentity {
    pub chain: Vec<CertificateDer<'static>>,
    pub key_der: Vec<u8>,
    /// PEM of the issuing CA (the certificate itself when self-signed).
    pub ca_pem: String,
    /// DER of the end-entity certificate.
    pub leaf_der: Vec<u8>,
}

const NAMES: [&str; 2] = ["localhost", "127.0.0.1"];

fn names() -> Vec<String> {
    NAMES.iter().map(|s| s.to_string()).collect()
}

/// A self-signed certificate for localhost and 127.0.0.1.
pub fn self_signed() -> ServerIdentity {
    let certified = rcgen::generate_simple_self_signed(names()).unwrap();
    let der = certified.cert.der().clone();
    ServerIdentity {
        chain: vec![der.clone()],
        key_der: certified.signing_key.serialize_der(),
        ca_pem: certified.cert.pem(),
        leaf_der: der.to_vec(),
    }
}

/// A leaf certificate for localhost and 127.0.0.1 issued by a fresh CA.
pub fn ca_issued() -> ServerIdentity {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "warden test CA");
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let leaf_params = rcgen::CertificateParams::new(names()).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = leaf_params.signed_by(&leaf_key, &ca).unwrap();
    ServerIdentity {
        chain: vec![leaf.der().clone(), ca.der().clone()],
        key_der: leaf_key.serialize_der(),
        ca_pem: ca.pem(),
        leaf_der: leaf.der().to_vec(),
    }
}

/// A rustls server configuration (on `ring`) serving `identity`.
pub fn server_config(identity: &ServerIdentity) -> Arc<ServerConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(identity.key_der.clone()));
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(identity.chain.clone(), key)
        .unwrap();
    Arc::new(config)
}

/// Accepts TCP connections on loopback and completes TLS before handing
/// them to axum; handshakes that fail (a client rejecting the certificate)
/// are skipped.
pub struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    pub addr: SocketAddr,
}

impl TlsListener {
    pub async fn bind(identity: &ServerIdentity) -> TlsListener {
        let tcp = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let addr = tcp.local_addr().unwrap();
        TlsListener {
            tcp,
            acceptor: TlsAcceptor::from(server_config(identity)),
            addr,
        }
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, addr)) = self.tcp.accept().await else {
                continue;
            };
            if let Ok(tls) = self.acceptor.accept(tcp).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.addr)
    }
}
