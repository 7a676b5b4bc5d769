//! An output holding one of Warden's own secrets leaves the executor as a
//! `SECRET_IN_OUTPUT` error before anything keeps or shows it, and is
//! audited as `secret_withheld`.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::ports::ExecOutput;
use crate::redact::known::{KnownSecrets, SharedKnownSecrets};
use crate::simulated::Answer;

const KEY: &str = "sk-test-Zq8vK2mLx9RtYw4PbN7cJd";

fn world_answering_the_encoded_key() -> World {
    let mut world = World::new();
    world.hosts = SimulatedHosts::new(vec![Answer {
        target: None,
        matches: Box::new(|c| c.contains("base64")),
        // `base64 key.txt` of the key
        output: ExecOutput {
            stdout: "c2stdGVzdC1acTh2SzJtTHg5UnRZdzRQYk43Y0pk\n".into(),
            stderr: String::new(),
            exit_code: 0,
            truncated: false,
        },
    }]);
    world
}

#[test]
fn a_known_secret_in_output_is_withheld_and_audited() {
    let world = world_answering_the_encoded_key();
    let mut known = KnownSecrets::new();
    known.add("model API key", KEY.as_bytes()).unwrap();
    let executor = Executor::new(
        Settings {
            control_level: ControlLevel::ReadOnly,
            known_secrets: Arc::new(SharedKnownSecrets::new(known)),
            ..Settings::default()
        },
        Ports {
            inventory: &world.inventory,
            hosts: &world.hosts,
            approvals: &world.approvals,
            audit: &world.audit,
            notes: &world.notes,
        },
    );
    let mut session = Session::new("s");
    let read = call(
        "read",
        json!({"action": "exec", "target": "web1", "command": "base64 /tmp/key.txt"}),
    );
    let outcome = executor.execute_now(&mut session, &read, at(0));
    assert_eq!(code(&outcome), Some(ErrorCode::SecretInOutput));
    let text = serde_json::to_string(&outcome.response).unwrap();
    assert!(!text.contains("c2stdGVzdC1acTh2"), "{text}");
    assert!(
        text.contains("the output contained Warden's model API key (base64); it was withheld"),
        "{text}"
    );
    // Asked again (served from knowledge or run again): still withheld.
    let again = executor.execute_now(&mut session, &read, at(1));
    assert_eq!(code(&again), Some(ErrorCode::SecretInOutput));
    assert!(
        !serde_json::to_string(&again.response)
            .unwrap()
            .contains("c2stdGVzdC1acTh2")
    );
    let records = world.audit.records();
    let withheld: Vec<_> = records
        .iter()
        .filter(|r| r.decision == "secret_withheld")
        .collect();
    assert_eq!(withheld.len(), 1, "{records:?}");
    assert_eq!(withheld[0].code.as_deref(), Some("SECRET_IN_OUTPUT"));
    assert!(
        withheld[0]
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("model API key")),
        "{records:?}"
    );
    assert!(!format!("{records:?}").contains(KEY));
}

/// A read kept by the knowledge gate before the secret was registered (a
/// cluster added since) is not served again: it runs, and is withheld.
#[test]
fn a_kept_read_holding_a_secret_registered_since_is_not_served() {
    let world = world_answering_the_encoded_key();
    let shared = Arc::new(SharedKnownSecrets::default());
    let executor = Executor::new(
        Settings {
            control_level: ControlLevel::ReadOnly,
            known_secrets: Arc::clone(&shared),
            ..Settings::default()
        },
        Ports {
            inventory: &world.inventory,
            hosts: &world.hosts,
            approvals: &world.approvals,
            audit: &world.audit,
            notes: &world.notes,
        },
    );
    let mut session = Session::new("s");
    let read = call(
        "read",
        json!({"action": "exec", "target": "web1", "command": "base64 /tmp/key.txt"}),
    );
    assert!(executor.execute_now(&mut session, &read, at(0)).response.ok);
    shared
        .update(|known| known.add("Proxmox token secret of cluster lab", KEY.as_bytes()))
        .unwrap();
    let again = executor.execute_now(&mut session, &read, at(1));
    assert_eq!(code(&again), Some(ErrorCode::SecretInOutput));
    assert_eq!(world.hosts.received().len(), 2, "run again, not served");
}
