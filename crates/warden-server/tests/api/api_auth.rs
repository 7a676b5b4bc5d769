//! Authentication and roles over real HTTP: nothing but health and the
//! OpenAPI document answers without credentials, roles gate every
//! endpoint, cookies are HttpOnly/SameSite=Strict with CSRF on state
//! changes, expired and revoked tokens fail, login is throttled, errors
//! have one shape, bodies are limited, security headers are everywhere.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, RETRY_AFTER, SET_COOKIE};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use warden_server::auth::{Person, Role, TokenExpiry, TokenRequest, create_token};
use warden_testkit::test_server::{Options, TestServer, start};
use warden_testkit::time::now_ms;

/// Every operation of the OpenAPI document, with `{…}` parameters filled.
async fn operations(server: &TestServer) -> Vec<(Method, String, String)> {
    let doc: Value = server
        .client
        .get(server.url("/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut ops = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let concrete = path.replace("{id}", "x-1");
            ops.push((
                method.to_uppercase().parse().unwrap(),
                concrete,
                path.clone(),
            ));
        }
    }
    assert!(ops.len() >= 25, "{ops:?}");
    ops
}

#[tokio::test]
async fn nothing_but_health_and_openapi_answers_without_credentials() {
    let server = start(Options::default()).await;
    for (method, path, template) in operations(&server).await {
        for auth in [
            None,
            Some("Bearer wdn_not-a-token"),
            Some("Basic YWRtaW46YWRtaW4="),
        ] {
            let mut request = server.client.request(method.clone(), server.url(&path));
            if let Some(auth) = auth {
                request = request.header("Authorization", auth);
            }
            if method != Method::GET && method != Method::DELETE {
                request = request.json(&json!({"username": "admin", "password": "wrong-password"}));
            }
            let response = request.send().await.unwrap();
            let status = response.status();
            match template.as_str() {
                "/api/health" | "/api/openapi.json" => assert_eq!(status, StatusCode::OK),
                // Login is how one gets credentials: it answers 401 to a wrong password.
                "/api/auth/login" => assert_eq!(status, StatusCode::UNAUTHORIZED),
                // Agents authenticate with an enrollment token in the body
                // (this one is malformed) or with their key over the WebSocket.
                "/api/agents/enroll" | "/api/agents/connect" => {
                    assert_eq!(status, StatusCode::BAD_REQUEST, "{method} {path}")
                }
                _ => {
                    assert_eq!(
                        status,
                        StatusCode::UNAUTHORIZED,
                        "{method} {path} with {auth:?}"
                    );
                    let body: Value = response.json().await.unwrap();
                    assert_eq!(body["error"]["code"], "UNAUTHENTICATED");
                }
            }
        }
    }
}

#[tokio::test]
async fn each_role_reaches_exactly_its_endpoints() {
    let server = start(Options::default()).await;
    let session = server.create_session(&server.operator).await;
    // (method, path, body, least role)
    let table: Vec<(Method, String, Option<Value>, Role)> = vec![
        (Method::GET, "/api/inventory".into(), None, Role::Viewer),
        (Method::GET, "/api/sessions".into(), None, Role::Viewer),
        (Method::GET, "/api/approvals".into(), None, Role::Viewer),
        (Method::GET, "/api/audit".into(), None, Role::Viewer),
        (Method::GET, "/api/audit/verify".into(), None, Role::Viewer),
        (Method::GET, "/api/usage".into(), None, Role::Viewer),
        (Method::GET, "/metrics".into(), None, Role::Viewer),
        (
            Method::POST,
            "/api/sessions".into(),
            Some(json!({})),
            Role::Operator,
        ),
        (
            Method::PATCH,
            format!("/api/sessions/{session}"),
            Some(json!({"control_level": "read_only"})),
            Role::Operator,
        ),
        (
            Method::POST,
            format!("/api/sessions/{session}/cancel"),
            None,
            Role::Operator,
        ),
        (
            Method::POST,
            "/api/approvals/missing/approve".into(),
            Some(json!({})),
            Role::Approver,
        ),
        (
            Method::POST,
            "/api/approvals/missing/deny".into(),
            Some(json!({"reason": "no"})),
            Role::Approver,
        ),
        (
            Method::POST,
            "/api/approvals/missing/run".into(),
            None,
            Role::Approver,
        ),
        (Method::GET, "/api/tokens".into(), None, Role::Admin),
        (Method::GET, "/api/agents".into(), None, Role::Viewer),
        (
            Method::POST,
            "/api/agents/enrollment-tokens".into(),
            Some(json!({})),
            Role::Admin,
        ),
        (
            Method::DELETE,
            "/api/agents/missing".into(),
            None,
            Role::Admin,
        ),
        (
            Method::POST,
            "/api/tokens".into(),
            Some(json!({"name": "t", "role": "viewer"})),
            Role::Admin,
        ),
        (
            Method::DELETE,
            "/api/tokens/missing".into(),
            None,
            Role::Admin,
        ),
    ];
    let tokens = [
        (Role::Viewer, &server.viewer),
        (Role::Operator, &server.operator),
        (Role::Approver, &server.approver),
        (Role::Admin, &server.admin),
    ];
    for (method, path, body, least) in &table {
        for (role, token) in tokens {
            let (status, answer) = server.json(token, method.clone(), path, body.clone()).await;
            if role.allows(*least) {
                assert_ne!(
                    status,
                    StatusCode::FORBIDDEN,
                    "{role} on {method} {path}: {answer}"
                );
                assert!(status.as_u16() < 500, "{method} {path}: {status} {answer}");
            } else {
                assert_eq!(
                    status,
                    StatusCode::FORBIDDEN,
                    "{role} on {method} {path}: {answer}"
                );
                assert_eq!(answer["error"]["code"], "FORBIDDEN");
            }
        }
    }
    // A viewer cannot post messages.
    let (status, _) = server.post(&server.viewer, &session, "hello").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

fn session_cookie(response: &reqwest::Response) -> (String, String) {
    let header = response
        .headers()
        .get(SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let value = header.split(';').next().unwrap().to_string();
    (value, header)
}

async fn login(server: &TestServer, user: &str, password: &str) -> reqwest::Response {
    server
        .client
        .post(server.url("/api/auth/login"))
        .json(&json!({"username": user, "password": password}))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn browser_logins_use_strict_cookies_and_csrf_tokens() {
    let server = start(Options::default()).await;
    server.add_user("olga", Role::Operator, "correct horse battery");
    let response = login(&server, "olga", "correct horse battery").await;
    assert_eq!(response.status(), StatusCode::OK);
    let (cookie, header) = session_cookie(&response);
    assert!(cookie.starts_with("warden_session="));
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(header.contains(attribute), "{header}");
    }
    assert!(!header.contains("Secure"), "plain HTTP: {header}");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["user"], "olga");
    assert_eq!(body["role"], "operator");
    let csrf = body["csrf_token"].as_str().unwrap().to_string();

    let me: Value = server
        .client
        .get(server.url("/api/auth/me"))
        .header("Cookie", &cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["csrf_token"], csrf.as_str(), "reads need no CSRF token");

    let create = |token: Option<&str>| {
        let mut request = server
            .client
            .post(server.url("/api/sessions"))
            .header("Cookie", &cookie)
            .json(&json!({}));
        if let Some(token) = token {
            request = request.header("X-CSRF-Token", token);
        }
        request.send()
    };
    for bad in [None, Some(""), Some("wrong"), Some(&csrf[..csrf.len() - 1])] {
        let response = create(bad).await.unwrap();
        assert_eq!(
            response.status(),
            StatusCode::FORBIDDEN,
            "CSRF token {bad:?}"
        );
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "FORBIDDEN");
    }
    assert_eq!(
        create(Some(&csrf)).await.unwrap().status(),
        StatusCode::CREATED
    );

    // Bearer requests need no CSRF token, and have none.
    let (_, me) = server
        .json(&server.viewer, Method::GET, "/api/auth/me", None)
        .await;
    assert_eq!(
        me,
        json!({"user": "token:viewer", "role": "viewer", "csrf_token": null, "password_change_required": false})
    );

    // Logout needs the CSRF token too; afterwards the cookie is dead.
    let logout = server
        .client
        .post(server.url("/api/auth/logout"))
        .header("Cookie", &cookie)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), StatusCode::FORBIDDEN);
    let logout = server
        .client
        .post(server.url("/api/auth/logout"))
        .header("Cookie", &cookie)
        .header("X-CSRF-Token", &csrf)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), StatusCode::NO_CONTENT);
    let after = server
        .client
        .get(server.url("/api/auth/me"))
        .header("Cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn login_is_throttled_per_user() {
    let server = start(Options::default()).await;
    server.add_user("alice", Role::Viewer, "the right password");
    for _ in 0..5 {
        let response = login(&server, "alice", "guess").await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "UNAUTHENTICATED");
    }
    let response = login(&server, "alice", "the right password").await;
    assert_eq!(
        response.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "even the right password waits"
    );
    let retry: u64 = response.headers()[RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "RATE_LIMITED");
    // Unknown users fail the same way.
    assert_eq!(
        login(&server, "nobody", "x").await.status(),
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn expired_and_revoked_tokens_are_rejected() {
    let server = start(Options::default()).await;
    let expired = create_token(
        &server.store,
        &TokenRequest {
            name: "old",
            role: Role::Admin,
            expiry: TokenExpiry::After(Duration::from_secs(1)),
            owner: &Person::user("admin"),
            created_by: "user:admin",
        },
        now_ms() - 10_000,
    )
    .unwrap();
    let (status, body) = server
        .json(&expired.secret, Method::GET, "/api/sessions", None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );

    // Created through the API, used, listed without its secret, revoked.
    let (status, created) = server
        .json(
            &server.admin,
            Method::POST,
            "/api/tokens",
            Some(json!({"name": "ci", "role": "operator", "expires_in_days": 30})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let secret = created["token"].as_str().unwrap();
    let id = created["id"].as_str().unwrap();
    let (status, _) = server
        .json(secret, Method::POST, "/api/sessions", Some(json!({})))
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "an operator token creates sessions"
    );
    let (_, listed) = server
        .json(&server.admin, Method::GET, "/api/tokens", None)
        .await;
    let text = listed.to_string();
    assert!(text.contains(id) && !text.contains(secret), "{text}");
    let ci = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap();
    assert_eq!(ci["role"], "operator");
    // Made with the admin's token: it belongs to the admin's owner.
    assert_eq!(ci["created_by"], "token:admin (user:admin)");
    assert_eq!(ci["owner"], "user:admin");
    assert!(ci["expires_at"].is_string());
    let (status, _) = server
        .json(
            &server.admin,
            Method::DELETE,
            &format!("/api/tokens/{id}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = server
        .json(secret, Method::GET, "/api/sessions", None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("revoked")
    );
    let (status, _) = server
        .json(
            &server.admin,
            Method::DELETE,
            "/api/tokens/tok-missing",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = server
        .json(
            &server.admin,
            Method::POST,
            "/api/tokens",
            Some(json!({"name": "x", "role": "viewer", "expires_in_days": 0})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["field"], "expires_in_days");
}

#[tokio::test]
async fn bad_requests_get_the_spec_error_shape() {
    let server = start(Options::default()).await;
    let session = server.create_session(&server.operator).await;
    let path = format!("/api/sessions/{session}/messages");
    // Unknown field.
    let (status, body) = server
        .json(
            &server.operator,
            Method::POST,
            &path,
            Some(json!({"text": "hi", "colour": "red"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["code"], "INVALID_INPUT");
    assert_eq!(body["error"]["field"], "colour");
    // Missing field.
    let (status, body) = server
        .json(&server.operator, Method::POST, &path, Some(json!({})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["field"], "text");
    // Not JSON.
    let response = server
        .client
        .post(server.url(&path))
        .bearer_auth(&server.operator)
        .header(CONTENT_TYPE, "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let response = server
        .client
        .post(server.url(&path))
        .bearer_auth(&server.operator)
        .header(CONTENT_TYPE, "text/plain")
        .body("{\"text\": \"hi\"}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    // Over 1 MiB.
    let big = json!({"text": "x".repeat(1024 * 1024 + 10)});
    let (status, body) = server
        .json(&server.operator, Method::POST, &path, Some(big))
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(body["error"]["code"], "PAYLOAD_TOO_LARGE");
    // Unknown endpoint, wrong method, bad query.
    let (status, body) = server
        .json(&server.viewer, Method::GET, "/api/nope", None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"]["code"], "NOT_FOUND");
    let (status, body) = server
        .json(&server.viewer, Method::PUT, "/api/sessions", None)
        .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(body["error"]["code"].is_string());
    for query in ["limit=0", "limit=5000", "after=-1", "limit=abc", "bogus=1"] {
        let (status, body) = server
            .json(
                &server.viewer,
                Method::GET,
                &format!("/api/audit?{query}"),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["error"]["code"], "INVALID_INPUT");
    }
    let (status, _) = server
        .json(
            &server.viewer,
            Method::GET,
            "/api/approvals?state=maybe",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = server
        .json(&server.viewer, Method::GET, "/api/usage?since=7w", None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn security_headers_are_on_every_response() {
    let server = start(Options::default()).await;
    for path in [
        "/api/health",
        "/api/sessions",
        "/api/nope",
        "/",
        "/assets/app.js",
    ] {
        let response = server.client.get(server.url(path)).send().await.unwrap();
        let headers = response.headers();
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["referrer-policy"], "no-referrer", "{path}");
        // HSTS only under TLS: over plain HTTP it would mean nothing.
        assert!(headers.get("strict-transport-security").is_none(), "{path}");
    }
    let page = server.client.get(server.url("/")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
}
