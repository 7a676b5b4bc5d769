//! Signing in and out: a wrong password and throttling say so plainly;
//! the cookie login carries the CSRF token; signing out ends the login.

use thirtyfour::Key;

use crate::harness::{Browser, PASSWORD, World};

async fn try_login(browser: &Browser, user: &str, password: &str) {
    let name = browser.tid("login-username").await;
    name.clear().await.unwrap();
    name.send_keys(user).await.unwrap();
    let secret = browser.tid("login-password").await;
    secret.clear().await.unwrap();
    secret.send_keys(password).await.unwrap();
    // Enter in the form submits it: the form works from the keyboard.
    secret.send_keys(Key::Enter).await.unwrap();
}

async fn error_text(browser: &Browser, containing: &str) -> String {
    browser
        .wait(
            &format!("the login error `{containing}`"),
            &format!(
                "document.querySelector('[data-testid=login-error]').innerText.includes({})",
                serde_json::to_string(containing).unwrap()
            ),
        )
        .await;
    browser.tid("login-error").await.text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn wrong_passwords_and_throttling_are_explained_then_login_and_logout_work() {
    let world = World::start().await;
    let browser = Browser::open(&world).await;
    browser.goto("/").await;
    browser.tid("login-username").await;
    browser.shot("login").await;

    try_login(&browser, "alice", "not the password").await;
    let wrong = error_text(&browser, "Wrong user name or password").await;
    assert!(!wrong.contains("alice"), "{wrong}");

    // Five failures for one name: the sixth attempt is throttled.
    for _ in 0..4 {
        try_login(&browser, "mallory", "guess").await;
        browser
            .wait(
                "the attempt to end",
                "!document.querySelector('[data-testid=login-submit]').disabled",
            )
            .await;
    }
    try_login(&browser, "mallory", "guess").await;
    browser
        .wait(
            "the fifth attempt to end",
            "!document.querySelector('[data-testid=login-submit]').disabled",
        )
        .await;
    try_login(&browser, "mallory", "guess").await;
    let throttled = error_text(&browser, "Too many failed sign-ins").await;
    assert!(throttled.contains("seconds"), "{throttled}");
    browser.shot("login-throttled").await;

    try_login(&browser, "alice", PASSWORD).await;
    browser
        .wait("the navigation", "!document.getElementById('shell').hidden")
        .await;
    assert_eq!(browser.tid("nav-chat").await.text().await.unwrap(), "Chat");
    let me = browser
        .js("return fetch('/api/auth/me').then((r) => r.json());")
        .await;
    assert_eq!(me["user"], "alice");
    assert!(me["csrf_token"].is_string());
    // The session cookie is HttpOnly: the page cannot read it.
    let cookies = browser.js("return document.cookie;").await;
    assert!(
        !cookies.as_str().unwrap().contains("warden_session"),
        "{cookies}"
    );

    browser.tid("logout").await.click().await.unwrap();
    browser
        .wait("the login form", "!document.getElementById('login').hidden")
        .await;
    let status = browser
        .js("return fetch('/api/auth/me').then((r) => r.status);")
        .await;
    assert_eq!(status, 401, "the login ended on the server too");
    browser.quit().await;
}
