//! The real `warden serve` process: first start (the admin's one-time
//! password, printed once), users and tokens managed offline (a token
//! acts for its `--owner`), plain HTTP only on loopback unless
//! `--insecure-http` (which warns), TLS with a printed
//! fingerprint that matches the served certificate, and SIGTERM during a
//! turn (cancelled and audited, the process exits, the pending approval
//! survives the restart and can then be run).
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use warden_testkit::http;
use warden_testkit::serve_process::{self, ServeProcess};

const WORLD: &str = "name: serve-world
inventory:
  - {id: node:pve1, name: pve1}
  - {id: vm:pve1:101, name: web1, parent: node:pve1, status: running}
exec:
  - match: \".*\"
    stdout: \"ok\"
turns: []
";

fn warden() -> Command {
    serve_process::warden(Path::new(env!("CARGO_BIN_EXE_warden")))
}

/// `warden serve` on the data directory `dir`, a free loopback port, and
/// `extra` flags.
fn start_serve(dir: &Path, extra: &[&str]) -> ServeProcess {
    let mut command = warden();
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir)
        .args(extra);
    ServeProcess::start(command)
}

/// A client with `tls` (none: plain HTTP), 30 s per request.
fn client(tls: Option<rustls::ClientConfig>) -> Client {
    http::client_with(
        tls.unwrap_or_else(http::no_roots_tls),
        Some(Duration::from_secs(30)),
    )
}

fn token(dir: &Path, name: &str, role: &str) -> String {
    let out = warden()
        .args([
            "token",
            "create",
            "--name",
            name,
            "--role",
            role,
            "--expires",
            "1d",
            "--data-dir",
        ])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "the token alone on stdout: {stdout:?}");
    assert!(lines[0].starts_with("wdn_"));
    lines[0].to_string()
}

async fn call(
    client: &Client,
    serve: &ServeProcess,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = client
        .request(method.parse().unwrap(), serve.url(path))
        .bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[tokio::test]
async fn first_start_prints_the_admin_password_once_and_users_work_offline() {
    let dir = tempfile::tempdir().unwrap();
    let serve = start_serve(dir.path(), &[]);
    let password = serve
        .line_after("with password: ")
        .expect("the first start prints the admin's password");
    let file = dir.path().join("admin-password");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), password);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let http = client(None);
    let health: Value = http
        .get(serve.url("/api/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["status"], "ok");
    let login = |user: &'static str, password: String| {
        http.post(serve.url("/api/auth/login"))
            .json(&json!({"username": user, "password": password}))
            .send()
    };
    let response = login("admin", password.clone()).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let me: Value = response.json().await.unwrap();
    assert_eq!(me["role"], "admin");
    assert_eq!(me["password_change_required"], true, "a one-time password");
    assert!(
        !file.exists(),
        "the one-time password's file goes at its first login"
    );

    // Offline, while the server runs: a new user, a new admin password.
    let mut add = warden()
        .args(["user", "add", "olga", "--role", "operator", "--data-dir"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    add.stdin
        .take()
        .unwrap()
        .write_all(b"olga's password\n")
        .unwrap();
    assert!(add.wait_with_output().unwrap().status.success());
    assert_eq!(
        login("olga", "olga's password".into())
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    let mut passwd = warden()
        .args(["user", "passwd", "admin", "--data-dir"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    passwd
        .stdin
        .take()
        .unwrap()
        .write_all(b"a brand new password\n")
        .unwrap();
    assert!(passwd.wait_with_output().unwrap().status.success());
    assert!(!file.exists());
    assert_eq!(
        login("admin", password).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    let response = login("admin", "a brand new password".into()).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let me: Value = response.json().await.unwrap();
    assert_eq!(
        me["password_change_required"], false,
        "set offline: not one-time"
    );
    let list = warden()
        .args(["user", "list", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(list.stdout).unwrap(),
        "admin\tadmin\nolga\toperator\n"
    );
    drop(serve);
    // A second start creates nobody and prints no password.
    let again = start_serve(dir.path(), &[]);
    assert_eq!(again.line_after("with password: "), None);
}

#[tokio::test]
async fn tokens_created_offline_work_until_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let viewer = token(dir.path(), "dash", "viewer");
    let serve = start_serve(dir.path(), &[]);
    let http = client(None);
    let (status, _) = call(&http, &serve, &viewer, "GET", "/api/sessions", None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(
        &http,
        &serve,
        &viewer,
        "POST",
        "/api/sessions",
        Some(json!({})),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a viewer cannot create sessions"
    );
    let list = warden()
        .args(["token", "list", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    assert!(!list.contains(&viewer), "never the secret: {list}");
    let id = list.split('\t').next().unwrap().to_string();
    let revoke = warden()
        .args(["token", "revoke", &id, "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(revoke.status.success());
    let (status, body) = call(&http, &serve, &viewer, "GET", "/api/sessions", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
}

#[test]
fn tokens_act_for_their_owner() {
    let dir = tempfile::tempdir().unwrap();
    for (args, owner) in [
        (vec!["--owner", "alice"], "user:alice"),
        (vec!["--owner", "user:bob"], "user:bob"),
        (vec![], "user:tester"),
    ] {
        let out = warden()
            .env("USER", "tester")
            .args(["token", "create", "--name", owner, "--role", "approver"])
            .args(&args)
            .arg("--data-dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("acting for {owner}")));
    }
    let refused = warden()
        .args([
            "token",
            "create",
            "--name",
            "x",
            "--role",
            "admin",
            "--owner",
            "system",
            "--data-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("names Warden itself"));
    let list = warden()
        .args(["token", "list", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    for owner in ["user:alice", "user:bob", "user:tester"] {
        assert!(
            list.lines().any(|l| l.ends_with(&format!("\t{owner}"))),
            "{list}"
        );
    }
    let reserved = warden()
        .args(["user", "add", "assistant", "--role", "viewer", "--data-dir"])
        .arg(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!reserved.status.success());
}

/// Waits for `child` to exit, for at most 30 s (then kills it).
fn exit_within(child: &mut std::process::Child) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    None
}

#[test]
fn plain_http_beyond_loopback_needs_insecure_http_and_warns() {
    let dir = tempfile::tempdir().unwrap();
    let mut refused = warden()
        .args(["serve", "--listen", "0.0.0.0:0", "--data-dir"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = exit_within(&mut refused).expect("refused at once");
    assert!(!status.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut refused.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.contains("--insecure-http") && stderr.contains("refusing"),
        "{stderr}"
    );

    let mut insecure = warden()
        .args([
            "serve",
            "--listen",
            "0.0.0.0:0",
            "--insecure-http",
            "--data-dir",
        ])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = std::io::BufRead::lines(std::io::BufReader::new(insecure.stderr.take().unwrap()));
    let warned = lines
        .map_while(Result::ok)
        .find(|line| line.contains("WARNING"))
        .unwrap_or_default();
    let _ = insecure.kill();
    let _ = insecure.wait();
    assert!(
        warned.contains("plain HTTP") && warned.contains("unencrypted"),
        "{warned}"
    );
}

#[tokio::test]
async fn the_printed_tls_fingerprint_is_the_served_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let serve = start_serve(dir.path(), &["--tls-self-signed"]);
    assert!(serve.base.starts_with("https://"), "{}", serve.base);
    let printed = serve
        .line_after("TLS certificate SHA-256 fingerprint: ")
        .expect("the fingerprint is printed");
    let pinned = client(Some(http::pinned_tls(&printed)));
    let health = pinned.get(serve.url("/api/health")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let other = client(Some(http::pinned_tls(&["AA"; 32].join(":"))));
    assert!(other.get(serve.url("/api/health")).send().await.is_err());
    drop(serve);
    // Generated once, kept in the data directory.
    let again = start_serve(dir.path(), &["--tls-self-signed"]);
    assert_eq!(
        again
            .line_after("TLS certificate SHA-256 fingerprint: ")
            .as_deref(),
        Some(printed.as_str())
    );
}

#[tokio::test]
async fn sigterm_cancels_the_waiting_turn_and_the_approval_survives_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world.yaml");
    std::fs::write(&world, WORLD).unwrap();
    let world = world.to_str().unwrap().to_string();
    let args = ["--simulate", world.as_str(), "--shutdown-grace-secs", "1"];
    let admin = token(dir.path(), "ops", "admin");
    let mut serve = start_serve(dir.path(), &args);
    let http = client(None);
    let (status, session) = call(
        &http,
        &serve,
        &admin,
        "POST",
        "/api/sessions",
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let session = session["id"].as_str().unwrap().to_string();
    let (status, _) = call(
        &http,
        &serve,
        &admin,
        "POST",
        &format!("/api/sessions/{session}/messages"),
        Some(json!({"text": "stop web1"})),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let approval = loop {
        let (_, pending) = call(
            &http,
            &serve,
            &admin,
            "GET",
            "/api/approvals?state=pending",
            None,
        )
        .await;
        if let Some(first) = pending.as_array().and_then(|a| a.first()) {
            break first.clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // The approval is stored just before the session reports waiting.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, detail) = call(
            &http,
            &serve,
            &admin,
            "GET",
            &format!("/api/sessions/{session}"),
            None,
        )
        .await;
        if detail["state"] == "waiting_approval" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the session never reported waiting_approval: {detail}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let status = serve.terminate();
    assert!(status.success(), "{status:?}");
    drop(serve);
    let store = warden_store::Store::open(&dir.path().join("warden.db")).unwrap();
    let cancelled: Vec<_> = store
        .audit_page(0, 1000)
        .unwrap()
        .into_iter()
        .filter(|e| e.record.decision == "cancelled" && e.record.session_id == session)
        .collect();
    assert_eq!(cancelled.len(), 1, "the cancelled turn is audited");
    drop(store);

    let serve = start_serve(dir.path(), &args);
    let id = approval["id"].as_str().unwrap();
    let (_, still) = call(
        &http,
        &serve,
        &admin,
        "GET",
        &format!("/api/approvals/{id}"),
        None,
    )
    .await;
    assert_eq!(still["state"], "pending");
    let (status, _) = call(
        &http,
        &serve,
        &admin,
        "POST",
        &format!("/api/approvals/{id}/approve"),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, ran) = call(
        &http,
        &serve,
        &admin,
        "POST",
        &format!("/api/approvals/{id}/run"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{ran}");
    assert_eq!(ran["outcome"]["ok"], true, "{ran}");
    let (_, messages) = call(
        &http,
        &serve,
        &admin,
        "GET",
        &format!("/api/sessions/{session}"),
        None,
    )
    .await;
    assert_eq!(
        messages["messages"][0]["text"], "stop web1",
        "the turn was stored"
    );
}

/// A certificate the client does not trust is named by its fingerprint,
/// with the flag that pins it: the CLI's `--server-fingerprint` and the
/// agent's `--fingerprint`, for an unpinned client and a wrong pin.
#[test]
fn tls_trust_errors_name_the_presented_fingerprint_and_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let serve = start_serve(dir.path(), &["--tls-self-signed"]);
    let printed = serve
        .line_after("TLS certificate SHA-256 fingerprint: ")
        .expect("the fingerprint is printed");
    let admin = token(dir.path(), "ops", "admin");
    let wrong = ["AA"; 32].join(":");
    for pin in [None, Some(wrong.as_str())] {
        let mut command = warden();
        command.args([
            "approvals",
            "list",
            "--server",
            &serve.base,
            "--token",
            &admin,
        ]);
        if let Some(pin) = pin {
            command.args(["--server-fingerprint", pin]);
        }
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains(&printed), "{pin:?}: {stderr}");
        assert!(stderr.contains("--server-fingerprint"), "{pin:?}: {stderr}");
    }
    let pinned = warden()
        .args([
            "approvals",
            "list",
            "--server",
            &serve.base,
            "--token",
            &admin,
        ])
        .args(["--server-fingerprint", &printed])
        .output()
        .unwrap();
    assert!(
        pinned.status.success(),
        "{}",
        String::from_utf8_lossy(&pinned.stderr)
    );
    // The agent, enrolling: the same facts under its own flag.
    let state = tempfile::tempdir().unwrap();
    for pin in [None, Some(wrong.as_str())] {
        let mut command = warden();
        command
            .args([
                "agent",
                "enroll",
                "--server",
                &serve.base,
                "--token",
                "wdn_enroll_x",
            ])
            .args(["--name", "edge9", "--state-dir"])
            .arg(state.path());
        if let Some(pin) = pin {
            command.args(["--fingerprint", pin]);
        }
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains(&printed), "{pin:?}: {stderr}");
        assert!(stderr.contains("--fingerprint"), "{pin:?}: {stderr}");
    }
}
