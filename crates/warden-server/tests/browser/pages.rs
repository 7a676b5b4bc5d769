//! The other pages and the page as a whole: the inventory tree with
//! search and "ask about this", usage, the audit log intact and broken,
//! every control labelled, phone width and dark theme, and a session of a
//! thousand messages.

use serde_json::{Value, json};

use crate::fake_model::{call, text};
use crate::harness::{Browser, World};

/// Controls without an accessible name (label, aria-label, text).
const UNLABELLED: &str = "return [...document.querySelectorAll('#shell:not([hidden]) button, #shell:not([hidden]) input, #shell:not([hidden]) select, #shell:not([hidden]) textarea, #login:not([hidden]) input, #login:not([hidden]) button')]
  .filter((e) => !e.hidden && e.offsetParent !== null)
  .filter((e) => !((e.labels && e.labels.length) || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || (e.tagName === 'BUTTON' && e.innerText.trim())))
  .map((e) => e.outerHTML.slice(0, 120));";

pub async fn assert_labelled(browser: &Browser, page: &str) {
    let unlabelled = browser.js(UNLABELLED).await;
    assert_eq!(unlabelled, json!([]), "unlabelled controls on {page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_inventory_is_a_searchable_tree_and_asks_about_a_resource() {
    let world = World::start().await;
    world.enroll_backup_agent();
    let browser = Browser::open(&world).await;
    browser.login("vic").await;
    browser.tid("nav-inventory").await.click().await.unwrap();
    browser
        .wait(
            "the tree",
            "document.querySelectorAll('[data-testid=inventory-item]').length === 9",
        )
        .await;
    // Nesting: jellyfin inside media-server inside pve1.
    let chain = browser
        .js("let e = document.querySelector('[data-resource-id=\"docker_container:media-server:abc123\"]'); const up = []; while ((e = e.parentElement.closest('[data-testid=inventory-item]'))) up.push(e.dataset.resourceId); return up;")
        .await;
    assert_eq!(chain, json!(["lxc:pve1:141", "node:pve1"]));
    let statuses = browser
        .js("return Object.fromEntries([...document.querySelectorAll('[data-testid=inventory-item]')].map((e) => [e.dataset.resourceId, e.dataset.status]));")
        .await;
    assert_eq!(statuses["vm:pve1:102"], "stopped");
    assert_eq!(statuses["host:backup"], "disconnected");
    // The host's agent on its row, and in the table of agents.
    browser
        .wait(
            "the agents",
            "document.querySelector('[data-testid=agent-row]')",
        )
        .await;
    let badge = browser
        .js("const b = document.querySelector('[data-resource-id=\"host:backup\"] [data-testid=inventory-agent]'); return [b.innerText, b.dataset.connected, b.title];")
        .await;
    assert_eq!(
        badge[0], "agent disconnected · last seen 3 min ago",
        "{badge}"
    );
    assert_eq!(badge[1], "false");
    assert!(badge[2].as_str().unwrap().contains("0.9.0"), "{badge}");
    let rows = browser
        .js("return [...document.querySelectorAll('[data-testid=agent-row]')].map((r) => [...r.cells].map((c) => c.innerText));")
        .await;
    assert_eq!(
        rows,
        json!([[
            "backup",
            "host:backup",
            "0.9.0",
            "disconnected",
            "3 min ago"
        ]])
    );
    assert_labelled(&browser, "inventory").await;
    browser.shot("inventory").await;

    let search = browser.css("#inventory-search").await;
    search.send_keys("jelly").await.unwrap();
    browser
        .wait("the search", "!document.querySelector('[data-resource-id=\"vm:pve1:102\"]') && document.querySelector('[data-resource-id=\"docker_container:media-server:abc123\"]')")
        .await;
    browser
        .css("[data-resource-id=\"docker_container:media-server:abc123\"] [data-testid=inventory-ask]")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait("the chat with the mention", "document.querySelector('[data-testid=chat-input]') && document.querySelector('[data-testid=chat-input]').value === '@jellyfin '")
        .await;
    // A viewer reads but does not post or change levels.
    let disabled = browser
        .js("return ['chat-input', 'chat-send', 'control-level', 'session-new'].map((t) => document.querySelector('[data-testid=' + t + ']').disabled);")
        .await;
    assert_eq!(disabled, json!([true, true, true, true]));
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn usage_and_audit_show_what_happened_and_a_broken_chain_says_where() {
    let world = World::start().await;
    world.model.script(
        "zq hello",
        vec![
            call(
                "read",
                json!({"action": "exec", "target": "web1", "command": "uptime"}),
            ),
            text("Hello from the model."),
        ],
    );
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    browser.say("zq hello there").await;
    browser.answer(1).await;
    // The control-level selector stops at the server's ceiling.
    let levels = browser
        .js("return [...document.querySelector('[data-testid=control-level]').options].map((o) => [o.value, o.disabled]);")
        .await;
    assert_eq!(
        levels,
        json!([
            ["read_only", false],
            ["controlled", false],
            ["autonomous", true]
        ])
    );
    assert_labelled(&browser, "chat").await;

    browser.tid("nav-usage").await.click().await.unwrap();
    browser
        .wait("the usage tables", "document.querySelector('table.usage td') && document.querySelector('table.usage').innerText.includes('openai')")
        .await;
    let table = browser.css("table.usage").await.text().await.unwrap();
    assert!(
        table.contains("test") && table.contains("240") && table.contains("$0.0012"),
        "{table}"
    );
    browser.css(".chart svg rect").await;
    browser.shot("usage").await;

    browser.tid("nav-audit").await.click().await.unwrap();
    browser
        .wait(
            "intact",
            "document.querySelector('[data-testid=audit-verify]').innerText.includes('intact')",
        )
        .await;
    browser
        .wait(
            "rows",
            "document.querySelectorAll('[data-testid=audit-row]').length > 0",
        )
        .await;
    assert_labelled(&browser, "audit").await;
    browser.shot("audit").await;

    // Someone edits record 1 in the database: the page says where it broke.
    let db = world.dir.path().join("warden.db");
    let conn = rusqlite::Connection::open(db).unwrap();
    let changed = conn
        .execute(
            "UPDATE audit SET command = command || ' ' WHERE seq = 1",
            [],
        )
        .unwrap();
    assert_eq!(changed, 1);
    browser.driver.refresh().await.unwrap();
    browser
        .wait("broken", "document.querySelector('[data-testid=audit-verify]').innerText.includes('broken at record 1')")
        .await;
    browser.shot("audit-broken").await;
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pages_work_at_phone_width_and_in_the_dark_theme() {
    let world = World::start().await;
    world
        .model
        .script("zq tiny", vec![text("Fits on a **phone**.")]);
    let dark = Browser::open_with(&world, &["--blink-settings=preferredColorScheme=0"]).await;
    dark.login("alice").await;
    dark.say("zq tiny screen").await;
    dark.answer(1).await;
    let background = dark
        .js("return getComputedStyle(document.body).backgroundColor;")
        .await;
    assert_eq!(
        background, "rgb(15, 18, 22)",
        "the dark theme follows the system"
    );
    dark.shot("chat-dark").await;
    dark.viewport(390, 844).await;
    let overflow = dark
        .js("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
        .await;
    assert_eq!(overflow, 0, "no sideways scrolling at phone width");
    dark.shot("chat-phone").await;
    for page in ["approvals", "inventory", "audit", "usage"] {
        dark.goto(&format!("/#/{page}")).await;
        dark.css("h1").await;
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let overflow = dark
            .js("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
            .await;
        assert_eq!(overflow, 0, "{page} scrolls sideways at phone width");
        assert_labelled(&dark, page).await;
    }
    dark.shot("usage-phone").await;
    dark.quit().await;
}

fn thousand_messages() -> Vec<Value> {
    (0..1000)
        .map(|i| {
            if i % 2 == 0 {
                json!({"role": "user", "text": format!("question {i}: how is web{i} doing?")})
            } else {
                json!({"role": "assistant", "tool_calls": [], "text": format!("Answer {i}: **fine**.\n\n- load 0.{i}\n- memory ok\n\n```\nuptime {i}\n```")})
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_message_session_opens_fast_and_scrolls_smoothly() {
    let world = World::start().await;
    world.seed_session("s-long", "a long conversation", &thousand_messages());
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    let started = std::time::Instant::now();
    browser.goto("/#/chat/s-long").await;
    browser
        .wait("the last answer", "[...document.querySelectorAll('[data-testid=message-assistant]')].some((m) => m.innerText.includes('Answer 999'))")
        .await;
    let opened = started.elapsed();
    assert!(opened.as_millis() < 3000, "opening took {opened:?}");
    // Paged: the newest messages first, the rest on request.
    let drawn = browser
        .count("[data-testid=message-user], [data-testid=message-assistant]")
        .await;
    assert!((100..1000).contains(&drawn), "{drawn} drawn");
    for _ in 0..20 {
        if browser.count(".load-earlier:not([hidden])").await == 0 {
            break;
        }
        browser.css(".load-earlier").await.click().await.unwrap();
    }
    assert_eq!(
        browser
            .count("[data-testid=message-user], [data-testid=message-assistant]")
            .await,
        1000
    );
    // Scroll from the bottom to the top in steps; time every frame.
    let frames = browser
        .js("return new Promise((resolve) => {
  const box = document.querySelector('.transcript');
  box.scrollTop = box.scrollHeight;
  const times = [];
  let last = performance.now();
  let step = 0;
  const next = () => {
    const now = performance.now();
    times.push(now - last);
    last = now;
    step += 1;
    box.scrollTop = box.scrollHeight * (1 - step / 60);
    if (step < 60) requestAnimationFrame(next); else resolve(times.slice(1));
  };
  requestAnimationFrame(next);
});")
        .await;
    let mut times: Vec<f64> = frames
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = times[times.len() / 2];
    let p90 = times[times.len() * 9 / 10];
    eprintln!("1,000 messages: opened in {opened:?}; frame median {median:.1} ms, p90 {p90:.1} ms");
    assert!(median < 50.0, "median frame {median} ms");
    assert!(p90 < 120.0, "p90 frame {p90} ms");
    browser.shot("chat-long").await;
    browser.quit().await;
}

/// The inventory page is live: what an agent reports appears without a
/// reload, and when the agent goes away its resources show `unknown`,
/// not the last status they had.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_inventory_page_follows_an_agent_live() {
    use warden_testkit::agent_peer::{self, key, send};
    let world = World::start().await;
    let admin = warden_testkit::test_server::mint(
        &world.store,
        "ops",
        warden_server::auth::Role::Admin,
        &warden_server::auth::Person::user("alice"),
    );
    let http = warden_testkit::http::client();
    let created: Value = http
        .post(format!("{}/api/agents/enrollment-tokens", world.base))
        .bearer_auth(&admin)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = created["token"].as_str().unwrap();
    let (_, enrolled) = agent_peer::enroll(&http, &world.base, token, "edge7", &key(7)).await;
    let agent_id = enrolled["agent_id"].as_str().unwrap().to_string();

    let browser = Browser::open(&world).await;
    browser.login("vic").await;
    browser.tid("nav-inventory").await.click().await.unwrap();
    browser
        .wait(
            "the tree",
            "document.querySelector('[data-testid=inventory-item]')",
        )
        .await;
    let mut socket = agent_peer::connect(&world.base, &agent_id, &key(7)).await;
    send(
        &mut socket,
        json!({"type": "inventory", "resources": [
            {"id": "host:edge7", "name": "edge7", "status": "up"},
            {"id": "docker_container:edge7:feed01", "name": "live-box",
             "parent": "host:edge7", "status": "running"},
        ]}),
    )
    .await;
    let row = "document.querySelector('[data-resource-id=\"docker_container:edge7:feed01\"]')";
    browser
        .wait(
            "the reported container, without a reload",
            &format!("{row} && {row}.dataset.status === 'running'"),
        )
        .await;
    drop(socket);
    browser
        .wait(
            "the container unknown once its agent is gone",
            &format!("{row} && {row}.dataset.status === 'unknown'"),
        )
        .await;
    let host = browser
        .js("return document.querySelector('[data-resource-id=\"host:edge7\"]').dataset.status;")
        .await;
    assert_eq!(host, "disconnected");
}
