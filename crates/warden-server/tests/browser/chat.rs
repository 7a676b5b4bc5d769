//! The chat: routed and model-driven answers, tool cards, streaming
//! Markdown, sessions (new, switch, title), `@` mentions, cancel, and a
//! stream that survives a server restart without showing anything twice.

use serde_json::json;
use thirtyfour::Key;

use crate::fake_model::{call, text};
use crate::harness::{Browser, World};

/// Records whether an answer was ever seen streaming.
const WATCH_STREAMING: &str = "window.__sawStreaming = false;
new MutationObserver(() => {
  if (document.querySelector('[data-testid=message-assistant][data-state=streaming]')) window.__sawStreaming = true;
}).observe(document.body, { subtree: true, childList: true, attributes: true });
return true;";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_routed_question_is_answered_without_the_model() {
    let world = World::start().await;
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    browser.say("status of nginx on web1").await;
    let answer = browser.answer(1).await;
    assert!(!answer.trim().is_empty());
    browser
        .wait(
            "the router's tool card",
            "document.querySelector('[data-testid=tool-card][data-status=ok]')",
        )
        .await;
    browser
        .wait("the route line", "document.querySelector('.route') && document.querySelector('.route').innerText.includes('answered by')")
        .await;
    let route = browser.css(".route").await.text().await.unwrap();
    assert!(
        route.contains("without the model"),
        "a routed question: {route}"
    );
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_model_tool_call_is_a_card_and_the_answer_streams_as_markdown() {
    let world = World::start().await;
    world.model.script(
        "zq check nginx",
        vec![
            call("query", json!({"action": "get", "target": "web1"})),
            call("read", json!({"action": "exec", "target": "web1", "command": "systemctl status nginx"})),
            text("nginx is **active** on web1.\n\n| unit | state |\n|---|---|\n| nginx | active |\n\n- checked with systemctl\n- no restart needed\n\n```\nsystemctl status nginx\n```"),
        ],
    );
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    browser.js(WATCH_STREAMING).await;
    browser.say("zq check nginx on web1").await;
    let answer = browser.answer(1).await;
    assert!(answer.contains("nginx is active on web1"), "{answer}");
    assert_eq!(browser.js("return window.__sawStreaming;").await, true);

    let card = browser
        .css("[data-testid=tool-card][data-tool=read][data-kind=read][data-status=ok]")
        .await;
    assert!(
        card.attr("data-call-id")
            .await
            .unwrap()
            .is_some_and(|id| !id.is_empty())
    );
    let command = card
        .find(thirtyfour::By::Css("[data-testid=tool-command]"))
        .await
        .unwrap();
    assert_eq!(command.text().await.unwrap(), "systemctl status nginx");
    let output = card
        .find(thirtyfour::By::Css("[data-testid=tool-output]"))
        .await
        .unwrap();
    assert!(output.text().await.unwrap().contains("active"));
    assert_eq!(
        browser.count("[data-testid=tool-card]").await,
        2,
        "query and read"
    );
    // Markdown: bold, a table, a list, a code block, as elements.
    for selector in ["strong", "table th", "ul li", "pre code"] {
        let found = browser
            .count(&format!("[data-testid=message-assistant] {selector}"))
            .await;
        assert!(found >= 1, "no {selector} in the answer");
    }
    let fsm = browser.tid("fsm-state").await.text().await.unwrap();
    assert!(["RESOLVING", "READING"].contains(&fsm.as_str()), "{fsm}");
    browser.shot("chat").await;

    // The session is listed with its title; a new one starts empty; switching back shows the first.
    browser
        .wait("the titled session", "[...document.querySelectorAll('[data-testid=session-item]')].some((e) => e.innerText.includes('zq check nginx'))")
        .await;
    let first = browser.tid("session-item").await;
    let first_id = first.attr("data-session-id").await.unwrap().unwrap();
    browser.tid("session-new").await.click().await.unwrap();
    browser
        .wait("a second session", "document.querySelectorAll('[data-testid=session-item]').length === 2 && !document.querySelector('[data-testid=message-user]')")
        .await;
    browser
        .css(&format!(
            "[data-testid=session-item][data-session-id=\"{first_id}\"]"
        ))
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait("the first session again", "document.querySelectorAll('[data-testid=message-user]').length === 1 && document.querySelectorAll('[data-testid=message-assistant]').length === 1")
        .await;
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn at_mentions_complete_with_arrow_keys_and_enter() {
    let world = World::start().await;
    world
        .model
        .script("zq who runs", vec![text("It runs in LXC 141 on pve1.")]);
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    let input = browser.tid("chat-input").await;
    input.send_keys("zq who runs @m").await.unwrap();
    browser
        .wait(
            "mention options",
            "document.querySelectorAll('[data-testid=mention-option]').length >= 2",
        )
        .await;
    let options = browser
        .js("return [...document.querySelectorAll('[data-testid=mention-option]')].map((o) => o.dataset.resourceId);")
        .await;
    assert_eq!(
        options[0], "lxc:pve1:141",
        "media-server by name first: {options}"
    );
    assert_eq!(
        options[1], "docker_container:media-server:abc123",
        "jellyfin by its alias: {options}"
    );
    browser.shot("chat-mentions").await;
    input.send_keys(Key::Down).await.unwrap();
    browser
        .wait("the second option selected", "document.querySelectorAll('[data-testid=mention-option]')[1].getAttribute('aria-selected') === 'true'")
        .await;
    input.send_keys(Key::Enter).await.unwrap();
    let value = input.prop("value").await.unwrap().unwrap();
    assert_eq!(value, "zq who runs @jellyfin ");
    assert_eq!(
        browser.count("[data-testid=mention-option]").await,
        0,
        "closed after the pick"
    );
    input.send_keys(Key::Enter).await.unwrap();
    let answer = browser.answer(1).await;
    assert!(answer.contains("LXC 141"), "{answer}");
    // The mention went as a structured mention (the server adds its id) and shows as one chip.
    let chips = browser
        .js("return [...document.querySelectorAll('[data-testid=message-user] .mention')].map((c) => c.innerText);")
        .await;
    assert_eq!(chips, json!(["@jellyfin"]));
    let stored = browser
        .js("return fetch('/api/sessions/' + document.querySelector('[data-testid=session-item]').dataset.sessionId).then((r) => r.json());")
        .await;
    let said = stored["messages"][0]["text"].as_str().unwrap();
    assert!(
        said.contains("@docker_container:media-server:abc123"),
        "{said}"
    );
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cancel_stops_the_running_turn() {
    let world = World::start().await;
    let long = "word ".repeat(400);
    world.model.script("zq ramble", vec![text(&long)]);
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    browser.say("zq ramble on").await;
    browser
        .wait(
            "the answer streaming",
            "document.querySelector('[data-testid=message-assistant][data-state=streaming]')",
        )
        .await;
    browser.tid("chat-cancel").await.click().await.unwrap();
    browser
        .wait("the turn to end", "document.querySelector('[data-testid=chat-cancel]').disabled && !document.querySelector('[data-state=streaming]')")
        .await;
    let page = browser
        .js("return document.querySelector('.turns').innerText;")
        .await;
    assert!(page.as_str().unwrap().contains("Cancelled"), "{page}");
    browser.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_stream_resumes_after_a_server_restart_without_duplicates() {
    let mut world = World::start().await;
    world.model.script("zq first", vec![text("first answer")]);
    world.model.script("zq second", vec![text("second answer")]);
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    browser.say("zq first question").await;
    assert!(browser.answer(1).await.contains("first answer"));

    world.restart().await;
    browser
        .wait(
            "the page to notice",
            "document.querySelector('.connection').innerText.includes('Reconnecting')",
        )
        .await;
    browser
        .wait(
            "the stream to come back",
            "document.querySelector('.connection').innerText === ''",
        )
        .await;
    browser.say("zq second question").await;
    let second = browser.answer(2).await;
    assert!(second.contains("second answer"), "{second}");
    // Settle: any late replay would show up as a third message.
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert_eq!(browser.count("[data-testid=message-user]").await, 2);
    assert_eq!(browser.count("[data-testid=message-assistant]").await, 2);
    // A reload draws the same conversation from the store.
    browser.driver.refresh().await.unwrap();
    browser.answer(2).await;
    assert_eq!(browser.count("[data-testid=message-user]").await, 2);
    assert_eq!(browser.count("[data-testid=message-assistant]").await, 2);
    browser.quit().await;
}
