//! Approval cards: a write approved from the keyboard on its card runs and
//! is verified while a second browser sees the decision live; a denial
//! needs and carries a reason; a file edit shows its diff.

use serde_json::json;
use thirtyfour::Key;

use crate::fake_model::{call, text};
use crate::harness::{Browser, World};
use warden_testkit::model::Turn;

fn restart_script() -> Vec<Turn> {
    vec![
        call("query", json!({"action": "get", "target": "jellyfin"})),
        call(
            "docker",
            json!({"action": "control", "target": "jellyfin", "operation": "restart"}),
        ),
        call("docker", json!({"action": "inspect", "target": "jellyfin"})),
        text("jellyfin was restarted and is **active**."),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_approved_write_runs_and_is_verified_while_another_browser_watches() {
    let world = World::start().await;
    world.model.script("zq restart jellyfin", restart_script());
    let alice = Browser::open(&world).await;
    let bob = Browser::open(&world).await;
    alice.login("alice").await;
    bob.login("bob").await;
    bob.goto("/#/approvals").await;
    bob.css("h1").await;

    alice.say("zq restart jellyfin please").await;
    let card = alice
        .css("[data-testid=approval-card][data-state=pending]")
        .await;
    let id = card.attr("data-approval-id").await.unwrap().unwrap();
    let within = |testid: &str| {
        let card = card.clone();
        let selector = format!("[data-testid={testid}]");
        async move {
            card.find(thirtyfour::By::Css(selector))
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        }
    };
    let command = within("approval-command").await;
    assert!(
        command.contains("restart") && command.contains("abc123"),
        "{command}"
    );
    let target = within("approval-target").await;
    assert!(
        target.contains("jellyfin → media-server (LXC 141) → node pve1"),
        "{target}"
    );
    assert!(!within("approval-risk").await.trim().is_empty());
    assert!(
        world
            .hosts
            .received()
            .iter()
            .all(|(_, c)| !c.contains("restart")),
        "nothing ran yet"
    );
    alice.shot("chat-approval").await;

    // The other browser lists it, live.
    let on_bob = format!("[data-testid=approval-card][data-approval-id=\"{id}\"]");
    bob.wait(
        "the pending card on the Approvals page",
        &format!("document.querySelector('{on_bob}[data-state=pending]')"),
    )
    .await;
    bob.shot("approvals").await;
    crate::pages::assert_labelled(&bob, "approvals").await;

    // Keyboard: from the reason box, Tab reaches Approve; Enter presses it.
    let reason = card
        .find(thirtyfour::By::Css("[data-testid=approval-reason]"))
        .await
        .unwrap();
    reason.send_keys("maintenance window").await.unwrap();
    reason.send_keys(Key::Tab).await.unwrap();
    let focused = alice
        .js("return document.activeElement.dataset.testid;")
        .await;
    assert_eq!(focused, "approval-approve");
    alice
        .driver
        .active_element()
        .await
        .unwrap()
        .send_keys(Key::Enter)
        .await
        .unwrap();

    alice
        .wait(
            "the card approved",
            &format!(
                "document.querySelector('[data-approval-id=\"{id}\"]').dataset.state === 'approved'"
            ),
        )
        .await;
    let answer = alice.answer(1).await;
    assert!(answer.contains("restarted"), "{answer}");
    alice
        .css("[data-testid=tool-card][data-tool=docker][data-kind=write][data-status=ok]")
        .await;
    // Verified: the read after the write succeeded and the FSM left VERIFYING.
    assert_eq!(
        alice
            .count("[data-testid=tool-card][data-tool=docker][data-kind=read][data-status=ok]")
            .await,
        1
    );
    let fsm = alice.tid("fsm-state").await.text().await.unwrap();
    assert_ne!(fsm, "VERIFYING");
    assert!(
        world
            .hosts
            .received()
            .iter()
            .any(|(_, c)| c.contains("restart") && c.contains("abc123"))
    );

    bob.wait(
        "the decision on the other browser",
        &format!("document.querySelector('{on_bob}').dataset.state === 'approved'"),
    )
    .await;
    let outcome = bob
        .js(&format!(
            "return document.querySelector('{on_bob} .outcome').innerText;"
        ))
        .await;
    assert!(
        outcome.as_str().unwrap().contains("by user:alice"),
        "{outcome}"
    );
    alice.quit().await;
    bob.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_denial_needs_a_reason_and_the_model_is_told() {
    let world = World::start().await;
    world.model.script(
        "zq stop db1",
        vec![
            call("query", json!({"action": "get", "target": "db1"})),
            call(
                "control",
                json!({"action": "guest", "target": "db1", "operation": "stop"}),
            ),
            text("Understood: db1 stays up."),
        ],
    );
    world.model.script(
        "zq tune nginx",
        vec![
            call("query", json!({"action": "get", "target": "web1"})),
            call(
                "file_edit",
                json!({"action": "replace", "target": "web1", "path": "/etc/nginx/nginx.conf",
                       "old": "worker_processes 1;", "new": "worker_processes auto;"}),
            ),
            text("Left the configuration as it was."),
        ],
    );
    let browser = Browser::open(&world).await;
    browser.login("alice").await;
    browser.say("zq stop db1 now").await;
    let card = browser
        .css("[data-testid=approval-card][data-state=pending]")
        .await;
    let target = browser.tid("approval-target").await.text().await.unwrap();
    assert!(target.contains("db1 → node pve1"), "{target}");
    // No reason: refused in the page, still pending.
    browser.tid("approval-deny").await.click().await.unwrap();
    browser
        .wait("the reason prompt", "document.querySelector('[data-testid=approval-card] .error').innerText.includes('Say why')")
        .await;
    assert_eq!(card.attr("data-state").await.unwrap().unwrap(), "pending");
    browser
        .tid("approval-reason")
        .await
        .send_keys("the nightly backup is running")
        .await
        .unwrap();
    browser.tid("approval-deny").await.click().await.unwrap();
    browser
        .wait(
            "the card denied",
            "document.querySelector('[data-testid=approval-card]').dataset.state === 'denied'",
        )
        .await;
    let answer = browser.answer(1).await;
    assert!(answer.contains("db1 stays up"), "{answer}");
    let outcome = browser
        .css("[data-testid=approval-card] .outcome")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        outcome.contains("the nightly backup is running"),
        "{outcome}"
    );
    assert!(
        world
            .hosts
            .received()
            .iter()
            .all(|(_, c)| !c.contains("stop"))
    );

    // A file edit shows the change as a diff.
    browser.say("zq tune nginx on web1").await;
    let diff = browser.tid("approval-diff").await.text().await.unwrap();
    assert!(diff.contains("--- /etc/nginx/nginx.conf"), "{diff}");
    assert!(diff.contains("-worker_processes 1;"), "{diff}");
    assert!(diff.contains("+worker_processes auto;"), "{diff}");
    browser.shot("chat-file-edit").await;
    browser
        .css("[data-testid=approval-card][data-state=pending] [data-testid=approval-reason]")
        .await
        .send_keys("not today")
        .await
        .unwrap();
    browser
        .css("[data-testid=approval-card][data-state=pending] [data-testid=approval-deny]")
        .await
        .click()
        .await
        .unwrap();
    browser.answer(2).await;

    // The audit page shows both decisions; the denied filter narrows to them.
    browser.tid("nav-audit").await.click().await.unwrap();
    browser
        .wait(
            "the verification",
            "document.querySelector('[data-testid=audit-verify]').innerText.includes('intact')",
        )
        .await;
    browser
        .wait(
            "audit rows",
            "document.querySelectorAll('[data-testid=audit-row]').length > 3",
        )
        .await;
    browser
        .js("const s = document.getElementById('audit-decision'); s.value = 'denied'; s.dispatchEvent(new Event('change')); return true;")
        .await;
    let decisions = browser
        .js("return [...document.querySelectorAll('[data-testid=audit-row]')].map((r) => r.children[6].innerText);")
        .await;
    let decisions = decisions.as_array().unwrap();
    assert!(decisions.len() >= 2, "{decisions:?}");
    assert!(decisions.iter().all(|d| d == "denied"), "{decisions:?}");
    browser.quit().await;
}

/// A change to a Proxmox guest: its card says whether a snapshot is taken
/// first (undoable) or not, naming the guest as the inventory knows it;
/// the executor's words are shown as text, never as markup. Cards are made
/// in the page by the UI's own module, as the chat and the Approvals page
/// make them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_guest_snapshot_offer_shows_on_the_card() {
    let world = World::start().await;
    let alice = Browser::open(&world).await;
    alice.login("alice").await;
    alice.goto("/#/approvals").await;
    alice
        .wait(
            "the approvals and the inventory loaded",
            "document.querySelector('#view [role=status]').textContent.includes('pending')",
        )
        .await;
    let shown = alice
        .js(r#"
        return import('/assets/js/approvals.js').then(({ approvalCard }) => {
          const base = { session_id: 's', tool: 'control', command: 'pct shutdown 141', risk: 'medium',
            description: 'control on media-server', arguments: {}, state: 'pending',
            created_at: new Date().toISOString(), expires_at: new Date(Date.now() + 600000).toISOString() };
          const me = { role: 'admin' };
          const cards = [
            approvalCard({ ...base, id: 'offer-taken', target: 'lxc:pve1:141', snapshot: {
              guest: 'lxc:pve1:141', take: true, undoable: '<img src=x onerror="window.pwned=1"> undoable' } }, me),
            approvalCard({ ...base, id: 'offer-none', target: 'vm:pve2:300', snapshot: {
              guest: 'vm:pve2:300', take: false, undoable: 'not undoable by Warden: no snapshot is taken first' } }, me),
            approvalCard({ ...base, id: 'no-offer', target: 'host:web1' }, me),
          ];
          document.querySelector('#view').append(...cards);
          return cards.map((card) => {
            const offer = card.querySelector('[data-testid=approval-snapshot]');
            return offer && { text: offer.textContent, take: offer.dataset.take, markup: offer.querySelectorAll('img').length };
          });
        });"#)
        .await;
    let taken = &shown[0];
    assert!(
        taken["text"]
            .as_str()
            .unwrap()
            .starts_with("A snapshot of media-server (LXC 141) is taken first: undoable."),
        "{shown}"
    );
    assert_eq!(taken["take"], "true");
    assert_eq!(taken["markup"], 0, "the offer's words are text: {shown}");
    let none = shown[1]["text"].as_str().unwrap();
    assert!(
        none.starts_with("No snapshot of VM 300 on node pve2 is taken first: not undoable.")
            && none.contains("no snapshot is taken first"),
        "{shown}"
    );
    assert_eq!(shown[1]["take"], "false");
    assert!(shown[2].is_null(), "no offer, no line: {shown}");
    assert_eq!(alice.js("return window.pwned === undefined;").await, true);
    alice.shot("approval-snapshot-offer").await;
}
