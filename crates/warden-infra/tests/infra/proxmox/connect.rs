//! Connection: token auth, named privileges, TLS pinning (match and
//! mismatch), CA file, public roots, quorum loss, offline nodes.

use serde_json::json;
use warden_infra::proxmox::{PowerOperation, ProxmoxError};

use warden_testkit::fixtures::fakepve::{FakeOptions, FakePve, TOKEN_ID};

#[tokio::test]
async fn a_pinned_certificate_and_the_token_connect() {
    let fake = FakePve::start(FakeOptions::default()).await;
    let status = fake.cluster().check().await.unwrap();
    assert_eq!(status.version.as_deref(), Some("9.0.10"));
    assert_eq!(status.quorate, Some(true));
    assert_eq!(status.nodes.len(), 1);
    assert!(status.nodes[0].online);
}

#[tokio::test]
async fn a_wrong_secret_is_a_401_naming_the_token() {
    let fake = FakePve::start(FakeOptions::default()).await;
    let mut config = fake.config();
    config.token_secret = Some("not-the-secret".into());
    let err = fake.cluster_with(&config).check().await.unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::Unauthorized { token_id, .. } if token_id == TOKEN_ID),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("check the token id and its secret"),
        "{err}"
    );
    let mut config = fake.config();
    config.token_id = "someone@pve!other".into();
    let err = fake.cluster_with(&config).check().await.unwrap_err();
    assert!(matches!(err, ProxmoxError::Unauthorized { .. }), "{err:?}");
}

#[tokio::test]
async fn a_missing_privilege_is_named() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "stopped").await;
    // The first grant turns permissions on: the token may look, not act.
    fake.control(json!({"op": "grant", "user": TOKEN_ID, "path": "/vms", "privs": ["VM.Audit"]}))
        .await;
    let cluster = fake.cluster();
    cluster.refresh().await.unwrap();
    let err = cluster
        .power(&"vm:pve1:100".parse().unwrap(), PowerOperation::Start)
        .await
        .unwrap_err();
    let ProxmoxError::Forbidden(denied) = &err else {
        panic!("expected a 403, got {err:?}");
    };
    assert_eq!(denied.privilege.as_deref(), Some("VM.PowerMgmt"));
    assert_eq!(denied.acl_path, "/vms/100");
    assert!(
        err.to_string()
            .contains("lacks privilege `VM.PowerMgmt` on `/vms/100`"),
        "{err}"
    );
}

#[tokio::test]
async fn a_different_certificate_is_refused_showing_its_fingerprint() {
    let fake = FakePve::start(FakeOptions::default()).await;
    let pinned = "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF";
    let mut config = fake.config();
    config.fingerprint = Some(pinned.into());
    let err = fake.cluster_with(&config).check().await.unwrap_err();
    match &err {
        ProxmoxError::CertificateMismatch {
            expected,
            presented,
            ..
        } => {
            assert_eq!(expected, pinned);
            assert_eq!(presented, &fake.fingerprint);
        }
        other => panic!("expected a certificate mismatch, got {other:?}"),
    }
    assert!(err.to_string().contains(&fake.fingerprint), "{err}");
    // The pin in lower case and without colons is the same pin.
    let mut config = fake.config();
    config.fingerprint = Some(fake.fingerprint.replace(':', "").to_lowercase());
    fake.cluster_with(&config).check().await.unwrap();
}

#[tokio::test]
async fn a_ca_file_verifies_and_public_roots_do_not() {
    let fake = FakePve::start(FakeOptions::default()).await;
    let mut config = fake.config();
    config.fingerprint = None;
    config.ca_file = Some(fake.ca_file.clone());
    fake.cluster_with(&config).check().await.unwrap();

    config.ca_file = None;
    let err = fake.cluster_with(&config).check().await.unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::Tls { reason, .. } if reason.contains("UnknownIssuer")),
        "{err:?}"
    );

    config.insecure = true;
    fake.cluster_with(&config).check().await.unwrap();
}

#[tokio::test]
async fn nothing_listening_is_unreachable() {
    let fake = FakePve::start(FakeOptions::default()).await;
    let mut config = fake.config();
    // A port nobody listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    config.url = format!("https://127.0.0.1:{port}");
    let err = fake.cluster_with(&config).check().await.unwrap_err();
    assert!(matches!(err, ProxmoxError::Unreachable { .. }), "{err:?}");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn quorum_loss_allows_reads_and_refuses_changes() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "running").await;
    fake.control(json!({"op": "quorum", "quorate": false}))
        .await;
    let cluster = fake.cluster();
    assert_eq!(cluster.check().await.unwrap().quorate, Some(false));
    cluster.refresh().await.unwrap();
    let err = cluster
        .power(&"vm:pve1:100".parse().unwrap(), PowerOperation::Stop)
        .await
        .unwrap_err();
    assert!(matches!(err, ProxmoxError::NoQuorum { .. }), "{err:?}");
    assert!(err.to_string().contains("no quorum"), "{err}");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn an_offline_node_is_named() {
    let fake = FakePve::start(FakeOptions {
        generate: 4,
        nodes: 2,
        time_scale: 0.0,
    })
    .await;
    let cluster = fake.cluster();
    cluster.refresh().await.unwrap();
    fake.control(json!({"op": "node_online", "node": "pve2", "online": false}))
        .await;
    // Straight to the API: PVE's 595 from the node.
    let history = cluster
        .history(
            &"node:pve2".parse().unwrap(),
            &[],
            warden_infra::proxmox::Timeframe::Hour,
            10,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&history, ProxmoxError::NodeOffline { node, .. } if node == "pve2"),
        "{history:?}"
    );
    // After a refresh the inventory knows, and control refuses before sending.
    cluster.refresh().await.unwrap();
    assert!(!cluster.inventory().node("pve2").unwrap().is_online());
    let on_pve2 = cluster
        .inventory()
        .guests()
        .iter()
        .find(|g| g.node == "pve2")
        .unwrap()
        .resource_id();
    let err = cluster
        .power(&on_pve2, PowerOperation::Stop)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProxmoxError::NodeOffline { node, .. } if node == "pve2"),
        "{err:?}"
    );
    assert!(err.nothing_changed());
}
