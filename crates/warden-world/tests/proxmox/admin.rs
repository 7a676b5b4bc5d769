//! Clusters added and removed by an admin while a server runs, against a
//! real `fakepve`: nothing is kept when the cluster refuses the settings
//! (the error names the field and what the cluster said), a cluster that
//! answers joins the merged inventory at once and is kept 0600 with its
//! secret for the next start, and removing it takes its guests away.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use warden_core::ports::{CompositeInventory, Inventory};
use warden_world::proxmox::clusters::{AddCluster, ClusterAdminError, ClusterOrigin};

use warden_testkit::fixtures::fakepve::{FakeOptions, FakePve, TOKEN_ID, TOKEN_SECRET};
use warden_world::proxmox::ProxmoxWorld;
use warden_world::proxmox::admin::{CLUSTERS_FILE, ProxmoxAdmin, load_added};

fn request(fake: &FakePve, name: &str) -> AddCluster {
    AddCluster {
        name: name.into(),
        url: fake.url.clone(),
        token_id: TOKEN_ID.into(),
        token_secret: TOKEN_SECRET.into(),
        fingerprint: Some(fake.fingerprint.clone()),
        ca_file: None,
        insecure: None,
        refresh_interval_secs: None,
    }
}

fn field_of(error: &ClusterAdminError) -> &'static str {
    match error {
        ClusterAdminError::Invalid { field, .. } => field,
        other => panic!("not a field error: {other:?}"),
    }
}

#[tokio::test]
async fn an_admin_adds_and_removes_a_cluster_while_the_server_runs() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(101, "web", "running").await;
    let dir = tempfile::tempdir().unwrap();
    let world = Arc::new(ProxmoxWorld::none());
    let inventory =
        CompositeInventory::new(vec![Arc::clone(&world.inventories) as Arc<dyn Inventory>]);
    let admin = ProxmoxAdmin::new(Arc::clone(&world), Vec::new(), &[], dir.path());
    assert!(admin.list().is_empty());

    // A wrong secret: refused by the cluster, nothing kept.
    let wrong = AddCluster {
        token_secret: "00000000-1111-4222-8333-944455556666".into(),
        ..request(&fake, "lab")
    };
    let error = admin.add(wrong).await.unwrap_err();
    assert_eq!(field_of(&error), "token_secret", "{error}");
    // A certificate that is not the pinned one: the presented one is named.
    let mismatch = AddCluster {
        fingerprint: Some(["AB"; 32].join(":")),
        ..request(&fake, "lab")
    };
    let error = admin.add(mismatch).await.unwrap_err();
    assert_eq!(field_of(&error), "fingerprint", "{error}");
    assert!(
        error
            .to_string()
            .to_ascii_uppercase()
            .contains(&fake.fingerprint.to_ascii_uppercase()[..8]),
        "{error}"
    );
    let bad_token = AddCluster {
        token_id: "no-realm".into(),
        ..request(&fake, "lab")
    };
    assert_eq!(
        field_of(&admin.add(bad_token).await.unwrap_err()),
        "token_id"
    );
    assert!(world.clusters().is_empty());
    assert!(!dir.path().join(CLUSTERS_FILE).exists());

    // The right settings: connected, merged, kept with the secret, 0600.
    let view = admin.add(request(&fake, "lab")).await.unwrap();
    assert_eq!(view.origin, ClusterOrigin::Api);
    assert!(view.resources > 0, "{view:?}");
    assert!(
        inventory
            .snapshot()
            .get(&"vm:pve1:101".parse().unwrap())
            .is_some(),
        "the guest is in the merged inventory at once"
    );
    let file = dir.path().join(CLUSTERS_FILE);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let kept = load_added(dir.path()).unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].token_secret.as_deref(), Some(TOKEN_SECRET));
    assert_eq!(admin.list().len(), 1);
    let shown = serde_json::to_string(&admin.list()).unwrap();
    assert!(!shown.contains(TOKEN_SECRET), "{shown}");

    // Twice the same name is a conflict.
    let again = admin.add(request(&fake, "lab")).await.unwrap_err();
    assert!(matches!(again, ClusterAdminError::Conflict(_)), "{again:?}");

    // Removed: its guests leave the inventory and the file forgets it.
    admin.remove("lab").unwrap();
    assert!(
        inventory
            .snapshot()
            .get(&"vm:pve1:101".parse().unwrap())
            .is_none(),
        "the guest left with its cluster"
    );
    assert!(load_added(dir.path()).unwrap().is_empty());
    assert!(matches!(
        admin.remove("lab"),
        Err(ClusterAdminError::NotFound(_))
    ));
}

#[tokio::test]
async fn clusters_from_the_configuration_file_are_changed_there() {
    let fake = FakePve::start(FakeOptions::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let configured = fake.config();
    let world = Arc::new(warden_world::proxmox::connect(std::slice::from_ref(&configured)).await);
    let admin = ProxmoxAdmin::new(
        Arc::clone(&world),
        vec![configured.clone()],
        &[],
        dir.path(),
    );
    let listed = admin.list();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].origin, ClusterOrigin::Config);
    assert!(listed[0].problem.is_none(), "{listed:?}");
    assert!(matches!(
        admin.remove(&configured.name),
        Err(ClusterAdminError::Conflict(_))
    ));
    let same_name = admin.add(request(&fake, &configured.name)).await;
    assert!(matches!(same_name, Err(ClusterAdminError::Conflict(_))));
    assert_eq!(world.clusters().len(), 1);
}

#[test]
fn a_corrupt_clusters_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(CLUSTERS_FILE), "[[proxmox]]\nname = 3\n").unwrap();
    let error = load_added(dir.path()).unwrap_err().to_string();
    assert!(error.contains(CLUSTERS_FILE), "{error}");
    assert!(error.contains("not a valid clusters file"), "{error}");
}
