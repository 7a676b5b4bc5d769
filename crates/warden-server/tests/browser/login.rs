//! Signing in and out: a wrong password and throttling say so plainly;
//! the cookie login carries the CSRF token; signing out ends the login; a
//! one-time password must be replaced before the app opens.

use thirtyfour::Key;
use thirtyfour::prelude::*;
use warden_server::auth::{Role, add_user};
use warden_testkit::time::now_ms;

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

/// Type `text` into the `index`-th element matching `selector`.
async fn type_into(browser: &Browser, selector: &str, index: usize, text: &str) {
    browser.css(selector).await;
    let inputs = browser.driver.find_all(By::Css(selector)).await.unwrap();
    inputs[index].clear().await.unwrap();
    inputs[index].send_keys(text).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_one_time_password_must_be_replaced_before_the_app_opens() {
    const ONE_TIME: &str = "the one-time password";
    const NEW: &str = "the admin's own password";
    let world = World::start().await;
    // The first admin as a first start leaves it.
    add_user(&world.store, "admin", Role::Admin, ONE_TIME, now_ms()).unwrap();
    world.store.require_password_change("admin").unwrap();
    let file = world.dir.path().join("admin-password");
    std::fs::write(&file, format!("{ONE_TIME}\n")).unwrap();

    let browser = Browser::open(&world).await;
    browser.goto("/").await;
    try_login(&browser, "admin", ONE_TIME).await;
    browser
        .wait(
            "the password form",
            "!document.getElementById('password-change').hidden",
        )
        .await;
    assert!(!file.exists(), "the file goes at the first login");
    let shell_hidden = browser
        .js("return document.getElementById('shell').hidden;")
        .await;
    assert_eq!(shell_hidden, true);
    assert_eq!(browser.count("[data-testid=password-new]").await, 2);
    browser.shot("password-change").await;
    // Nothing else answers this login meanwhile.
    let status = browser
        .js("return fetch('/api/sessions').then((r) => r.status);")
        .await;
    assert_eq!(status, 403);

    // After a reload the form asks for the one-time password too.
    browser.goto("/").await;
    browser
        .wait(
            "the password form again",
            "!document.getElementById('password-change').hidden && !document.getElementById('password-current-row').hidden",
        )
        .await;
    type_into(&browser, "#password-current", 0, ONE_TIME).await;
    type_into(&browser, "[data-testid=password-new]", 0, NEW).await;
    type_into(&browser, "[data-testid=password-new]", 1, "something else").await;
    browser.tid("password-submit").await.click().await.unwrap();
    browser
        .wait(
            "the mismatch explained",
            "document.getElementById('password-error').innerText.includes('differ')",
        )
        .await;
    type_into(&browser, "[data-testid=password-new]", 1, NEW).await;
    browser.tid("password-submit").await.click().await.unwrap();
    browser
        .wait("the app", "!document.getElementById('shell').hidden")
        .await;
    assert_eq!(browser.tid("nav-chat").await.text().await.unwrap(), "Chat");
    let me = browser
        .js("return fetch('/api/auth/me').then((r) => r.json());")
        .await;
    assert_eq!(me["password_change_required"], false, "{me}");

    // The new password opens the app at once; the one-time one is dead.
    browser.tid("logout").await.click().await.unwrap();
    browser
        .wait("the login form", "!document.getElementById('login').hidden")
        .await;
    try_login(&browser, "admin", ONE_TIME).await;
    error_text(&browser, "Wrong user name or password").await;
    try_login(&browser, "admin", NEW).await;
    browser
        .wait("the app", "!document.getElementById('shell').hidden")
        .await;
    browser.quit().await;
}
