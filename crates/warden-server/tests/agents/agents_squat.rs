//! Agents cannot squat or come back, against the real server: frames in
//! flight when an agent is revoked never re-create its resources (a flood
//! of inventory frames racing the revocation, fifty times), and an agent's
//! aliases and resource names never take a name this machine's inventory
//! or an earlier agent holds.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use warden_testkit::agent_peer::{key, send};
use warden_testkit::test_server::{Options, TestServer, connect, start};

fn on_machine<'a>(inventory: &'a [Value], machine: &str) -> Vec<&'a Value> {
    inventory
        .iter()
        .filter(|r| r["host"] == machine || r["id"] == format!("host:{machine}"))
        .collect()
}

async fn until_listed(server: &TestServer, id: &str) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let inventory = server.inventory_ids().await;
        if inventory.iter().any(|r| r["id"] == id) {
            return inventory;
        }
        assert!(tokio::time::Instant::now() < deadline, "{id} never listed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn inventory_frames_racing_a_revocation_leave_nothing() {
    let server = start(Options::default()).await;
    for run in 0..50u8 {
        let name = format!("race{run}");
        let id = server.enroll_new(&name, &key(run.wrapping_add(100))).await;
        let socket = connect(&server, &id, &key(run.wrapping_add(100))).await;
        let (mut sink, mut stream) = socket.split();
        let report = json!({"type": "inventory", "resources": [
            {"id": format!("host:{name}"), "name": name},
            {"id": format!("docker_container:{name}:abc"), "name": format!("app-{run}"), "parent": format!("host:{name}")},
        ]})
        .to_string();
        // Floods until the server closes the connection.
        let flood = tokio::spawn(async move {
            let mut sent = 0u64;
            while sink.send(Message::text(report.clone())).await.is_ok() {
                sent += 1;
                if sent % 16 == 0 {
                    tokio::task::yield_now().await;
                }
            }
            sent
        });
        // Reads (and drops) until the close.
        let reader = tokio::spawn(async move {
            let mut code = None;
            while let Some(Ok(message)) = stream.next().await {
                if let Message::Close(frame) = message {
                    code = frame.map(|f| u16::from(f.code));
                    break;
                }
            }
            code
        });
        until_listed(&server, &format!("docker_container:{name}:abc")).await;
        let (status, body) = server
            .json(
                &server.admin,
                Method::DELETE,
                &format!("/api/agents/{id}"),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::NO_CONTENT, "run {run}: {body}");
        let code = tokio::time::timeout(Duration::from_secs(10), reader)
            .await
            .expect("the revoked connection closes")
            .unwrap();
        assert_eq!(code, Some(4401), "run {run}");
        let sent = tokio::time::timeout(Duration::from_secs(10), flood)
            .await
            .expect("the flood ends with the connection")
            .unwrap();
        assert!(sent > 0, "run {run}");
        // Whatever was still in flight has been handled by now.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let inventory = server.inventory_ids().await;
        assert!(
            on_machine(&inventory, &name).is_empty(),
            "run {run}: {:?}",
            on_machine(&inventory, &name)
        );
        assert!(server.agents().await.iter().all(|a| a["id"] != id.as_str()));
    }
}

fn aliases(inventory: &[Value], id: &str) -> Option<Vec<String>> {
    inventory.iter().find(|r| r["id"] == id).map(|r| {
        r["aliases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect()
    })
}

#[tokio::test]
async fn an_agent_cannot_take_names_held_before_it() {
    let server = start(Options::default()).await;
    // An earlier agent with an alias of its own.
    let first = server.enroll_new("db1", &key(1)).await;
    let mut db1 = connect(&server, &first, &key(1)).await;
    send(
        &mut db1,
        json!({"type": "inventory", "resources": [{"id": "host:db1", "name": "db1", "aliases": ["postgres"]}]}),
    )
    .await;
    until_listed(&server, "host:db1").await;

    let later = server.enroll_new("web2", &key(2)).await;
    let mut web2 = connect(&server, &later, &key(2)).await;
    send(
        &mut web2,
        json!({"type": "inventory", "resources": [
            // This server's Proxmox node and guest, the earlier agent's
            // name and alias, and a name of its own.
            {"id": "host:web2", "name": "pve1-new", "aliases": ["pve1", "MEMCACHE", "db1", "postgres", "web2.lan"]},
            {"id": "docker_container:web2:a", "name": "pve1", "parent": "host:web2"},
            {"id": "docker_container:web2:b", "name": "db1", "parent": "host:web2"},
            {"id": "docker_container:web2:c", "name": "shop", "aliases": ["cache", "shop-db"], "parent": "host:web2"},
        ]}),
    )
    .await;
    let inventory = until_listed(&server, "docker_container:web2:c").await;
    let host = inventory.iter().find(|r| r["id"] == "host:web2").unwrap();
    assert_eq!(host["name"], "web2", "called by the name it enrolled with");
    assert_eq!(aliases(&inventory, "host:web2").unwrap(), ["web2.lan"]);
    assert_eq!(
        aliases(&inventory, "docker_container:web2:c").unwrap(),
        ["shop-db"]
    );
    for named_like_a_machine in ["docker_container:web2:a", "docker_container:web2:b"] {
        assert!(
            aliases(&inventory, named_like_a_machine).is_none(),
            "{named_like_a_machine}"
        );
    }
    // The names still lead where they did.
    assert_eq!(aliases(&inventory, "host:db1").unwrap(), ["postgres"]);
    let called = |name: &str| {
        inventory
            .iter()
            .filter(|r| {
                r["name"].as_str().unwrap().eq_ignore_ascii_case(name)
                    || r["aliases"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|a| a.as_str().unwrap().eq_ignore_ascii_case(name))
            })
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(called("pve1"), ["node:pve1"]);
    assert_eq!(called("memcache"), ["lxc:pve1:120"]);
    assert_eq!(called("db1"), ["host:db1"]);
    assert_eq!(called("postgres"), ["host:db1"]);
}
