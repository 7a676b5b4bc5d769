//! TLS with a self-signed certificate: the fingerprint the server reports
//! is the one it serves, clients can pin it, cookies are `Secure`, and
//! every response asks browsers to stay on HTTPS (HSTS).
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use serde_json::{Value, json};
use warden_infra::tls::{PresentedCertificate, pinned_client_config, ring_provider};
use warden_server::TlsMode;
use warden_server::auth::Role;
use warden_testkit::test_server::{Options, start};

/// A client that trusts exactly the certificate with `pin`, and the slot
/// where a certificate that did not match is reported.
fn pinned_client(pin: &str) -> (reqwest::Client, PresentedCertificate) {
    let presented = PresentedCertificate::default();
    let config =
        pinned_client_config(ring_provider(), pin.parse().unwrap(), presented.clone()).unwrap();
    let client = reqwest::Client::builder()
        .use_preconfigured_tls(config)
        .build()
        .unwrap();
    (client, presented)
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
    let (client, presented) = pinned_client(&fingerprint);
    let health: Value = client
        .get(format!("{https}/api/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["status"], "ok");
    assert!(presented.mismatch().is_none());

    // A client pinned to another certificate refuses the connection, and
    // sees the reported fingerprint served.
    let (wrong, presented) = pinned_client(&["00"; 32].join(":"));
    assert!(
        wrong
            .get(format!("{https}/api/health"))
            .send()
            .await
            .is_err()
    );
    assert_eq!(
        presented.mismatch().unwrap().presented.to_string(),
        fingerprint
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
    for path in ["/api/health", "/", "/api/nope"] {
        let response = client.get(format!("{https}{path}")).send().await.unwrap();
        assert_eq!(
            response.headers()["strict-transport-security"],
            "max-age=31536000",
            "{path}"
        );
    }
}
