//! People, not credentials, over real HTTP: the four-eyes rule sees the
//! person behind a cookie or a token (a token minted after asking is still
//! its owner), the first admin's password is one-time, roles are checked
//! before bodies are read, logins are throttled per (user, address) and
//! never locked out from everywhere, and plain HTTP stays on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::net::IpAddr;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, SET_COOKIE};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use warden_server::auth::Role;
use warden_testkit::test_server::{Options, Script, TestServer, four_eyes, start};

const WAIT: Duration = Duration::from_secs(20);
const MESSAGE: &str = "zq restart nginx on web1 for alice";

/// A browser login: its cookie and CSRF token.
struct Browser {
    cookie: String,
    csrf: String,
}

async fn login_from(
    client: &Client,
    server: &TestServer,
    user: &str,
    password: &str,
) -> reqwest::Response {
    client
        .post(server.url("/api/auth/login"))
        .json(&json!({"username": user, "password": password}))
        .send()
        .await
        .unwrap()
}

async fn browser_login(server: &TestServer, user: &str, password: &str) -> (Browser, Value) {
    let response = login_from(&server.client, server, user, password).await;
    assert_eq!(response.status(), StatusCode::OK, "{user}");
    let cookie = response.headers()[SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let me: Value = response.json().await.unwrap();
    let csrf = me["csrf_token"].as_str().unwrap().to_string();
    (Browser { cookie, csrf }, me)
}

/// A request with the browser's cookie (and CSRF token).
async fn as_browser(
    server: &TestServer,
    browser: &Browser,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = server
        .client
        .request(method, server.url(path))
        .header("Cookie", &browser.cookie)
        .header("X-CSRF-Token", &browser.csrf);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn restart_script() -> Script {
    Script::new()
        .call("query", json!({"action": "get", "target": "web1"}))
        .call(
            "control",
            json!({"action": "service", "target": "web1", "service": "nginx", "operation": "restart"}),
        )
        .call(
            "read",
            json!({"action": "exec", "target": "web1", "command": "systemctl is-active nginx"}),
        )
        .text("nginx was restarted on web1 and is active.")
}

/// A new token minted through the API by `mint` (a browser or a bearer
/// token), as its creator would: its secret and how the list shows it.
async fn mint_token(
    server: &TestServer,
    mint: Result<&Browser, &str>,
    name: &str,
    role: &str,
) -> (String, Value) {
    let body = json!({"name": name, "role": role});
    let (status, created) = match mint {
        Ok(browser) => as_browser(server, browser, Method::POST, "/api/tokens", Some(body)).await,
        Err(token) => {
            server
                .json(token, Method::POST, "/api/tokens", Some(body))
                .await
        }
    };
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (_, listed) = server
        .json(&server.admin, Method::GET, "/api/tokens", None)
        .await;
    let view = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == created["id"])
        .unwrap()
        .clone();
    (created["token"].as_str().unwrap().to_string(), view)
}

#[tokio::test]
async fn four_eyes_compares_people_a_token_minted_after_asking_cannot_approve() {
    let server = start(Options {
        config: Box::new(four_eyes),
        ..Options::default()
    })
    .await;
    server.add_user("alice", Role::Admin, "alice's long password");
    let (alice, _) = browser_login(&server, "alice", "alice's long password").await;

    // Alice asks for a restart in her browser; it waits for an approval.
    server.book.add(MESSAGE, restart_script());
    let (status, session) = as_browser(
        &server,
        &alice,
        Method::POST,
        "/api/sessions",
        Some(json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{session}");
    let session = session["id"].as_str().unwrap().to_string();
    let mut events = server.events(&server.viewer, &session, None).await;
    let (status, body) = as_browser(
        &server,
        &alice,
        Method::POST,
        &format!("/api/sessions/{session}/messages"),
        Some(json!({"text": MESSAGE})),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let asked = events.until("approval_needed", WAIT).await;
    let id = asked.last().unwrap().data["approval"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let approve = format!("/api/approvals/{id}/approve");

    // Then she mints herself tokens: they are hers.
    let (minted, view) = mint_token(&server, Ok(&alice), "alice-admin", "admin").await;
    assert_eq!(view["owner"], "user:alice");
    assert_eq!(view["created_by"], "user:alice");
    // And a token minted with that token is hers too.
    let (second, view) = mint_token(&server, Err(&minted), "alice-approver", "approver").await;
    assert_eq!(view["owner"], "user:alice");
    assert_eq!(view["created_by"], "token:alice-admin (user:alice)");

    for (credential, token) in [
        ("her login", None),
        ("her minted token", Some(&minted)),
        ("a token of her token", Some(&second)),
    ] {
        let (status, body) = match token {
            None => as_browser(&server, &alice, Method::POST, &approve, Some(json!({}))).await,
            Some(token) => {
                server
                    .json(token, Method::POST, &approve, Some(json!({})))
                    .await
            }
        };
        assert_eq!(status, StatusCode::FORBIDDEN, "{credential}: {body}");
        assert_eq!(body["error"]["code"], "FORBIDDEN");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("four-eyes") && message.contains("user:alice"),
            "{message}"
        );
    }
    // Someone else approves; the audit names the token and its person.
    let (status, decided) = server
        .json(&server.approver, Method::POST, &approve, Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["decided_by"], "token:approver (user:approver)");
    events.until("done", WAIT).await;
    let (_, audit) = server
        .json(&server.viewer, Method::GET, "/api/audit?limit=1000", None)
        .await;
    let actors: Vec<&str> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["decision"] == "approved")
        .map(|r| r["actor"].as_str().unwrap())
        .collect();
    assert_eq!(actors, ["token:approver (user:approver)"]);
}

/// Every operation of the OpenAPI document that takes credentials and is
/// not a read, with its path filled in.
async fn writes(server: &TestServer) -> Vec<(Method, String)> {
    let (_, doc) = server
        .json(&server.viewer, Method::GET, "/api/openapi.json", None)
        .await;
    let mut found = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            if method == "get" || operation.get("security").is_none() {
                continue;
            }
            let concrete = path.replace("{id}", "x-1").replace("{name}", "x-1");
            found.push((method.to_uppercase().parse().unwrap(), concrete));
        }
    }
    assert!(found.len() >= 15, "{found:?}");
    found
}

#[tokio::test]
async fn the_role_is_checked_before_the_body_is_read() {
    let server = start(Options::default()).await;
    // What a viewer may post itself.
    let viewers_own = ["/api/auth/logout", "/api/auth/password"];
    let bodies: [(&str, &str); 3] = [
        ("application/json", r#"{"not_a_field": 1}"#),
        ("application/json", "{"),
        ("text/plain", "hello"),
    ];
    for (method, path) in writes(&server).await {
        if viewers_own.contains(&path.as_str()) {
            continue;
        }
        for (content_type, body) in bodies {
            let response = server
                .client
                .request(method.clone(), server.url(&path))
                .bearer_auth(&server.viewer)
                .header(CONTENT_TYPE, content_type)
                .body(body)
                .send()
                .await
                .unwrap();
            let status = response.status();
            let answer: Value = response.json().await.unwrap();
            assert_eq!(
                status,
                StatusCode::FORBIDDEN,
                "{method} {path} {body}: {answer}"
            );
            assert_eq!(answer["error"]["code"], "FORBIDDEN", "{method} {path}");
            assert!(
                answer["error"].get("field").is_none(),
                "{method} {path}: {answer}"
            );
        }
    }
    // Someone allowed gets the 400 naming the field.
    let (status, answer) = server
        .json(
            &server.admin,
            Method::POST,
            "/api/tokens",
            Some(json!({"not_a_field": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["error"]["field"], "not_a_field");
}

#[tokio::test]
async fn the_first_admin_password_works_once_and_must_be_replaced() {
    let server = start(Options::default()).await;
    let first = server
        .started
        .as_ref()
        .unwrap()
        .bootstrap_admin
        .clone()
        .unwrap();
    assert!(first.password_file.exists());

    // Two logins with the one-time password (a second tab, say).
    let (login, me) = browser_login(&server, "admin", &first.password).await;
    assert_eq!(me["password_change_required"], true, "{me}");
    assert!(
        !first.password_file.exists(),
        "the file goes at the first login"
    );
    let (other_tab, _) = browser_login(&server, "admin", &first.password).await;

    // Nothing but the change, who it is, and logging out.
    for (method, path, body) in [
        (Method::GET, "/api/sessions", None),
        (Method::GET, "/api/audit", None),
        (
            Method::POST,
            "/api/tokens",
            Some(json!({"name": "mine", "role": "admin"})),
        ),
        (Method::POST, "/api/sessions", Some(json!({}))),
    ] {
        let (status, body) = as_browser(&server, &login, method.clone(), path, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{method} {path}: {body}");
        assert_eq!(body["error"]["code"], "PASSWORD_CHANGE_REQUIRED", "{path}");
    }
    let (status, me) = as_browser(&server, &login, Method::GET, "/api/auth/me", None).await;
    assert_eq!(
        (status, me["password_change_required"].clone()),
        (StatusCode::OK, json!(true))
    );

    let change =
        |current: &str, new: &str| json!({"current_password": current, "new_password": new});
    let refused = [
        (change("not it", "a brand new password"), "current_password"),
        (change(&first.password, "short"), "new_password"),
        (change(&first.password, &first.password), "new_password"),
    ];
    for (body, field) in refused {
        let (status, answer) = as_browser(
            &server,
            &login,
            Method::POST,
            "/api/auth/password",
            Some(body),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(answer["error"]["field"], field, "{answer}");
    }
    // A token cannot change its owner's password.
    let (status, _) = server
        .json(
            &server.admin,
            Method::POST,
            "/api/auth/password",
            Some(change(&first.password, "x".repeat(12).as_str())),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let (status, me) = as_browser(
        &server,
        &login,
        Method::POST,
        "/api/auth/password",
        Some(change(&first.password, "the admin's own password")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["password_change_required"], false);
    // This login goes on, with everything; the other tab's ended.
    let (status, _) = as_browser(&server, &login, Method::GET, "/api/sessions", None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = as_browser(&server, &other_tab, Method::GET, "/api/auth/me", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // The one-time password is gone; the new one opens everything at once.
    let old = login_from(&server.client, &server, "admin", &first.password).await;
    assert_eq!(old.status(), StatusCode::UNAUTHORIZED);
    let (_, me) = browser_login(&server, "admin", "the admin's own password").await;
    assert_eq!(me["password_change_required"], false);
    let (_, audit) = server
        .json(&server.viewer, Method::GET, "/api/audit?limit=1000", None)
        .await;
    assert!(
        audit
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["decision"] == "password_changed" && r["actor"] == "user:admin"),
        "{audit}"
    );
}

/// A client whose connections come from `address` (any 127.x on Linux).
fn client_from(address: &str) -> Client {
    Client::builder()
        .tls_backend_preconfigured(warden_testkit::http::no_roots_tls())
        .local_address(address.parse::<IpAddr>().unwrap())
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// The value of the counter line `name` in the Prometheus text.
fn counter(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn logins_wait_longer_per_user_and_address_never_from_everywhere() {
    let server = start(Options::default()).await;
    server.add_user("alice", Role::Viewer, "alice's right password");
    let lockouts = r#"warden_login_lockouts_total{scope="user_address"}"#;
    let metrics = |server: &TestServer| {
        let token = server.viewer.clone();
        let url = server.url("/metrics");
        let client = server.client.clone();
        async move {
            client
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        }
    };
    let before = counter(&metrics(&server).await, lockouts);
    let attacker = client_from("127.0.0.1");
    for _ in 0..5 {
        let response = login_from(&attacker, &server, "alice", "guess").await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    let response = login_from(&attacker, &server, "alice", "alice's right password").await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=5).contains(&retry), "{retry}");
    // Alice from her own address is not kept out.
    let alice = client_from("127.0.0.2");
    let response = login_from(&alice, &server, "alice", "alice's right password").await;
    assert_eq!(response.status(), StatusCode::OK);
    // The lockout was counted.
    let after = counter(&metrics(&server).await, lockouts);
    assert!(after >= before + 1.0, "{before} → {after}");
}

#[tokio::test]
async fn plain_http_beyond_loopback_is_refused_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let store =
        std::sync::Arc::new(warden_store::Store::open(&dir.path().join("warden.db")).unwrap());
    let world = std::sync::Arc::new(
        warden_world::WorldBuilder::new(warden_world::Config::builtin())
            .store(store)
            .server_data_dir(dir.path().to_path_buf())
            .agents(warden_world::agents::AgentSettings::default())
            .simulated(warden_world::Simulated::new(
                std::sync::Arc::new(warden_core::simulated::StaticInventory::new(Vec::new())),
                std::sync::Arc::new(warden_testkit::fixtures::hosts::answering("")),
            ))
            .build()
            .await
            .unwrap(),
    );
    let mut config = warden_server::ServerConfig::new(dir.path().to_path_buf());
    config.listen = "0.0.0.0:0".parse().unwrap();
    let refused = warden_server::start(config.clone(), std::sync::Arc::clone(&world)).await;
    let error = refused.err().unwrap().to_string();
    assert!(
        error.contains("--insecure-http") && error.contains("0.0.0.0"),
        "{error}"
    );
    config.plain_http = warden_server::PlainHttp::AnyAddress;
    let started = warden_server::start(config, world).await.unwrap();
    assert_eq!(started.warnings.len(), 1, "{:?}", started.warnings);
    assert!(started.warnings[0].contains("unencrypted"));
    started.shutdown_handle().shutdown();
    started.wait().await.unwrap();
}
