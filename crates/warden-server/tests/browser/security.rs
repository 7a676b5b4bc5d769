//! No XSS: hostile model text, command output and resource names are
//! shown as text. The headers (CSP, frames, cookies) and the weight and
//! speed of the first load.

use serde_json::json;

use crate::fake_model::{call, text};
use crate::harness::{Browser, HOSTILE, World};
use warden_testkit::http::client;

/// Nothing ran: no injected element, no flag set by injected code.
async fn assert_nothing_ran(browser: &Browser, page: &str) {
    let report = browser
        .js("return {
  flag: window.__xss === undefined ? null : window.__xss,
  imgs: document.querySelectorAll('#view img').length,
  scripts: document.querySelectorAll('#view script, #view iframe, #view object').length,
  jsLinks: document.querySelectorAll('a[href^=\"javascript\"]').length,
  handlers: [...document.querySelectorAll('#view *')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
};")
        .await;
    assert_eq!(
        report,
        json!({"flag": null, "imgs": 0, "scripts": 0, "jsLinks": 0, "handlers": 0}),
        "on {page}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hostile_text_from_the_model_tools_and_inventory_stays_text() {
    let world = World::start().await;
    world.model.script(
        "zq hostile",
        vec![
            call("read", json!({"action": "exec", "target": "web1", "command": "echo hostile"})),
            text(&format!(
                "{HOSTILE} **done** [click](javascript:window.__xss=7) `<b>code</b>`\n\n| <i>x</i> | y |\n|---|---|\n| {HOSTILE} | 1 |"
            )),
        ],
    );
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    browser
        .say("zq hostile <script>window.__xss=9</script>")
        .await;
    let answer = browser.answer(1).await;
    assert!(
        answer.contains("<script>window.__xss=2</script>"),
        "shown as text: {answer}"
    );
    let output = browser.tid("tool-output").await.text().await.unwrap();
    assert!(output.contains("<b>not bold</b>"), "{output}");
    let user = browser.tid("message-user").await.text().await.unwrap();
    assert!(user.contains("<script>window.__xss=9</script>"), "{user}");
    assert_nothing_ran(&browser, "chat").await;
    browser.shot("chat-hostile").await;

    // A resource named like markup, in the tree and in the mention list.
    browser.tid("nav-inventory").await.click().await.unwrap();
    let item = browser
        .css("[data-resource-id=\"host:evil\"] .res-name")
        .await
        .text()
        .await
        .unwrap();
    assert!(item.starts_with("<img src=x"), "{item}");
    assert_nothing_ran(&browser, "inventory").await;
    browser.tid("nav-chat").await.click().await.unwrap();
    browser
        .tid("chat-input")
        .await
        .send_keys("@evi")
        .await
        .unwrap();
    let option = browser
        .css("[data-testid=mention-option][data-resource-id=\"host:evil\"]")
        .await
        .text()
        .await
        .unwrap();
    assert!(option.contains("<img"), "{option}");
    assert_nothing_ran(&browser, "mentions").await;
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn strict_headers_a_light_first_load_and_an_interactive_page_in_300_ms() {
    let world = World::start().await;
    let http = client();
    let csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
    for path in ["/", "/assets/app.css", "/assets/js/app.js"] {
        let response = http
            .get(format!("{}{path}", world.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers();
        assert_eq!(headers["content-security-policy"], csp, "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
    }
    let login = http
        .post(format!("{}/api/auth/login", world.base))
        .json(&json!({"username": "alice", "password": crate::harness::PASSWORD}))
        .send()
        .await
        .unwrap();
    let cookie = login.headers()["set-cookie"].to_str().unwrap().to_string();
    for part in ["warden_session=", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(part), "{cookie}");
    }

    let browser = Browser::open(&world).await;
    // Warm the browser (its renderer, the connection), not the page: the
    // page's files are fetched for the first time below.
    browser.goto("/api/health").await;
    browser.goto("/").await;
    browser
        .wait(
            "the page to be ready",
            "document.documentElement.dataset.ready",
        )
        .await;
    let load = browser
        .js("const nav = performance.getEntriesByType('navigation')[0];
const resources = performance.getEntriesByType('resource').filter((r) => !r.name.includes('/api/'));
return {
  ready: Number(document.documentElement.dataset.ready),
  html: Math.round(nav.responseEnd),
  dom: Math.round(nav.domContentLoadedEventEnd),
  bytes: nav.decodedBodySize + resources.reduce((sum, r) => sum + r.decodedBodySize, 0),
  files: resources.length + 1,
};")
        .await;
    eprintln!("first load: {load}");
    let bytes = load["bytes"].as_u64().unwrap();
    assert!(bytes > 10_000 && bytes <= 200 * 1024, "{bytes} bytes");
    // Two more loads (files revalidated, 304): the median is the number,
    // so one hiccup of a busy machine does not decide.
    let mut ready = vec![load["ready"].as_u64().unwrap()];
    for _ in 0..2 {
        browser.goto("/api/health").await;
        browser.goto("/").await;
        browser
            .wait(
                "the page to be ready",
                "document.documentElement.dataset.ready",
            )
            .await;
        ready.push(
            browser
                .js("return Number(document.documentElement.dataset.ready);")
                .await
                .as_u64()
                .unwrap(),
        );
    }
    ready.sort_unstable();
    eprintln!("interactive after {ready:?} ms");
    assert!(ready[1] <= 300, "interactive after {ready:?} ms");
    browser.quit().await;
}
