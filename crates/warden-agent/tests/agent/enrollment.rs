//! Enrollment against a real HTTP(S) server on loopback: the identity is
//! stored privately, and the server's certificate is trusted only as told.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use crate::support;

use support::{ServerState, TOKEN, TestServer, tls};
use warden_agent::identity::{IDENTITY_FILE, KEY_FILE, StateDir};
use warden_agent::private_files::mode_of;
use warden_agent::tls::{ServerTrust, certificate_fingerprint};
use warden_agent::{EnrollError, EnrollOptions, enroll};

fn options(server: &str, dir: &std::path::Path, trust: ServerTrust) -> EnrollOptions {
    EnrollOptions {
        server: server.into(),
        token: TOKEN.into(),
        trust,
        name: "web1".into(),
        state_dir: dir.join("state"),
    }
}

#[tokio::test]
async fn enrollment_stores_a_private_identity_and_the_server_key() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let identity = enroll(options(&server.url(), dir.path(), ServerTrust::SystemRoots))
        .await
        .unwrap();
    assert_eq!(identity.agent_id, "agt_web1");
    assert_eq!(identity.name, "web1");
    let state = dir.path().join("state");
    assert_eq!(mode_of(&state).unwrap(), 0o700);
    assert_eq!(mode_of(&state.join(KEY_FILE)).unwrap(), 0o600);
    assert_eq!(mode_of(&state.join(IDENTITY_FILE)).unwrap(), 0o600);
    // The server holds the public half of the key stored here.
    let key = StateDir::open(&state).unwrap().load_key().unwrap();
    let agents = server.state.agents.lock().unwrap();
    assert_eq!(agents["agt_web1"].key, key.verifying_key());
    assert_eq!(
        identity.server_key().unwrap(),
        server.state.signing_key.verifying_key()
    );
    // The private key is nowhere but in agent.key.
    let stored = std::fs::read_to_string(state.join(IDENTITY_FILE)).unwrap();
    let secret = warden_protocol::agent::encode_base64(&key.to_bytes());
    assert!(!stored.contains(&secret));
}

#[tokio::test]
async fn a_second_enrollment_a_bad_token_and_a_taken_name_are_refused() {
    let server = TestServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    enroll(options(&server.url(), dir.path(), ServerTrust::SystemRoots))
        .await
        .unwrap();
    let again = enroll(options(&server.url(), dir.path(), ServerTrust::SystemRoots)).await;
    assert!(
        matches!(again, Err(EnrollError::AlreadyEnrolled { .. })),
        "{again:?}"
    );

    let other = tempfile::tempdir().unwrap();
    let taken = enroll(options(
        &server.url(),
        other.path(),
        ServerTrust::SystemRoots,
    ))
    .await;
    assert!(
        matches!(taken, Err(EnrollError::NameTaken { .. })),
        "{taken:?}"
    );

    let mut bad = options(&server.url(), other.path(), ServerTrust::SystemRoots);
    bad.token = "wrong".into();
    bad.name = "web2".into();
    let refused = enroll(bad).await;
    assert!(
        matches!(refused, Err(EnrollError::TokenRefused { status: 401, .. })),
        "{refused:?}"
    );
    // Nothing was stored for the failed attempts but the reusable key.
    assert!(!other.path().join("state").join(IDENTITY_FILE).exists());
}

#[tokio::test]
async fn a_pinned_fingerprint_is_the_only_certificate_trusted() {
    let identity = tls::self_signed();
    let server = TestServer::start_tls(ServerState::new(), &identity).await;
    let url = format!("https://127.0.0.1:{}", server.addr.port());
    let dir = tempfile::tempdir().unwrap();

    // Not in any root store: refused without a pin, naming what it
    // presented and the flag that pins it.
    let unpinned = enroll(options(&url, dir.path(), ServerTrust::SystemRoots)).await;
    let presented = certificate_fingerprint(&identity.leaf_der);
    match &unpinned {
        Err(error @ EnrollError::Untrusted { presented: p, .. }) => {
            assert_eq!(p, &presented);
            assert!(error.to_string().contains("--fingerprint"), "{error}");
        }
        other => panic!("{other:?}"),
    }

    let wrong = ServerTrust::Fingerprint {
        sha256: "00".repeat(32),
    };
    let mismatch = enroll(options(&url, dir.path(), wrong)).await;
    match mismatch {
        Err(EnrollError::FingerprintMismatch { presented: p }) => assert_eq!(p, presented),
        other => panic!("{other:?}"),
    }

    let pinned = ServerTrust::Fingerprint {
        sha256: presented.to_lowercase().replace(':', ""),
    };
    let enrolled = enroll(options(&url, dir.path(), pinned.clone()))
        .await
        .unwrap();
    assert_eq!(enrolled.trust, pinned);
}

#[tokio::test]
async fn a_ca_file_trusts_what_that_ca_issued() {
    let identity = tls::ca_issued();
    let server = TestServer::start_tls(ServerState::new(), &identity).await;
    let url = format!("https://localhost:{}", server.addr.port());
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &identity.ca_pem).unwrap();

    let other_ca = dir.path().join("other.pem");
    std::fs::write(&other_ca, tls::ca_issued().ca_pem).unwrap();
    let refused = enroll(options(
        &url,
        dir.path(),
        ServerTrust::CaFile { path: other_ca },
    ))
    .await;
    assert!(
        matches!(refused, Err(EnrollError::Untrusted { .. })),
        "{refused:?}"
    );

    enroll(options(
        &url,
        dir.path(),
        ServerTrust::CaFile { path: ca_file },
    ))
    .await
    .unwrap();
}

#[tokio::test]
async fn insecure_is_for_loopback_only() {
    let identity = tls::self_signed();
    let server = TestServer::start_tls(ServerState::new(), &identity).await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("https://127.0.0.1:{}", server.addr.port());
    enroll(options(&url, dir.path(), ServerTrust::InsecureLoopback))
        .await
        .unwrap();
    let remote = enroll(options(
        "https://warden.example.invalid",
        dir.path(),
        ServerTrust::InsecureLoopback,
    ))
    .await;
    assert!(matches!(remote, Err(EnrollError::Tls(_))), "{remote:?}");
    let plain = enroll(options(
        "http://192.0.2.1:80",
        dir.path(),
        ServerTrust::SystemRoots,
    ))
    .await;
    assert!(matches!(plain, Err(EnrollError::ServerUrl(_))), "{plain:?}");
}
