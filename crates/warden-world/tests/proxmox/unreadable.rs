//! A cluster that cannot be read (a wrong or unset token secret, a
//! certificate that does not match its pin) is not an empty cluster: the
//! inventory says so and a listing fails naming it.

use std::sync::Arc;

use serde_json::json;
use warden_core::executor::{Executor, Ports, Session, Settings};
use warden_core::ports::{
    CompositeInventory, Inventory, MemoryApprovals, MemoryAudit, MemoryNotes,
};
use warden_infra::proxmox::ProxmoxConfig;
use warden_protocol::{ControlLevel, ErrorCode};

use super::{NoAgents, run};
use warden_testkit::fixtures::fakepve::{FakeOptions, FakePve};
use warden_world::proxmox::connect;

/// `query list` with `arguments` on a world connected with `config`.
async fn list_with(
    config: ProxmoxConfig,
    arguments: serde_json::Value,
) -> warden_core::executor::Outcome {
    let world = connect(&[config]).await;
    let inventory =
        CompositeInventory::new(vec![Arc::clone(&world.inventories) as Arc<dyn Inventory>]);
    let (approvals, audit, notes) = (
        MemoryApprovals::default(),
        MemoryAudit::default(),
        MemoryNotes::default(),
    );
    let executor = Executor::new(
        Settings {
            control_level: ControlLevel::ReadOnly,
            ..Settings::default()
        },
        Ports {
            inventory: &inventory,
            hosts: &NoAgents,
            approvals: &approvals,
            audit: &audit,
            notes: &notes,
        },
    )
    .with_guest_api(&world.api);
    let mut session = Session::new("s");
    run(&executor, &mut session, "query", arguments).await
}

#[tokio::test]
async fn a_cluster_that_cannot_be_read_is_not_an_empty_cluster() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "web", "running").await;
    let wrong_secret = ProxmoxConfig {
        token_secret: Some("00000000-0000-4000-8000-000000000000".into()),
        ..fake.config()
    };
    let unset_secret = ProxmoxConfig {
        token_secret: None,
        token_secret_env: Some("WARDEN_TEST_SECRET_NOBODY_SETS".into()),
        ..fake.config()
    };
    let wrong_pin = ProxmoxConfig {
        fingerprint: Some(vec!["AB"; 32].join(":")),
        ..fake.config()
    };
    for (config, why) in [
        (wrong_secret, "401"),
        (unset_secret, "WARDEN_TEST_SECRET_NOBODY_SETS"),
        (wrong_pin, "fingerprint"),
    ] {
        for arguments in [
            json!({"action": "list", "kind": "vm"}),
            json!({"action": "list"}),
            json!({"action": "search", "text": "web"}),
        ] {
            let listed = list_with(config.clone(), arguments.clone()).await;
            let error = listed
                .response
                .error
                .clone()
                .unwrap_or_else(|| panic!("{why} {arguments}: {:?}", listed.response));
            assert_eq!(error.code, ErrorCode::Unavailable, "{why}: {error:?}");
            assert!(
                error
                    .message
                    .contains("Proxmox cluster `fake` cannot be read"),
                "{why}: {}",
                error.message
            );
            assert!(
                error.message.to_lowercase().contains(&why.to_lowercase()),
                "{why}: {}",
                error.message
            );
        }
    }
    // Readable: the same list answers.
    let listed = list_with(fake.config(), json!({"action": "list", "kind": "vm"})).await;
    assert!(listed.response.ok, "{:?}", listed.response);
    assert_eq!(listed.response.data.unwrap()["count"], 1);
}
