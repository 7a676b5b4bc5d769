//! The TLS path: rustls on `ring` really handshakes, and a certificate no
//! trusted root vouches for is reported at once, not retried (a retry
//! cannot fix it).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use warden_llm::{ProviderError, ProviderKind, ToolOffer, connect};

use crate::support::{complete, config, user};

/// A TLS server with a self-signed certificate for localhost, counting
/// the connections it accepts.
fn self_signed_server() -> (u16, Arc<AtomicUsize>) {
    let server_config = warden_testkit::tls::server_config(&warden_testkit::tls::self_signed());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&accepted);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            counter.fetch_add(1, Ordering::SeqCst);
            let config = Arc::clone(&server_config);
            std::thread::spawn(move || {
                let Ok(mut tls) = rustls::ServerConnection::new(config) else {
                    return;
                };
                let mut session = rustls::Stream::new(&mut tls, &mut stream);
                let mut buffer = [0u8; 1024];
                // The client rejects the certificate during the handshake.
                if session.read(&mut buffer).is_ok() {
                    let _ = session.write_all(b"HTTP/1.1 500 Unexpected\r\n\r\n");
                }
            });
        }
    });
    (port, accepted)
}

#[tokio::test]
async fn an_untrusted_certificate_is_reported_and_not_retried() {
    let (port, accepted) = self_signed_server();
    let mut config = config(ProviderKind::OpenAi, format!("https://localhost:{port}/v1"));
    config.max_retries = 2;
    let mut provider = connect(&config).unwrap();
    let outcome = complete(&mut *provider, &user("x"), &[], ToolOffer::Tools, None).await;
    match outcome.error() {
        ProviderError::Transport { provider, message } => {
            assert_eq!(provider, "openai");
            assert!(
                message.to_ascii_lowercase().contains("certificate"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(outcome.notices.is_empty(), "{:?}", outcome.notices);
    assert_eq!(accepted.load(Ordering::SeqCst), 1, "not retried");
}
