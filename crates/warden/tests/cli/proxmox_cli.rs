//! The `warden` binary with a `[[proxmox]]` cluster in its config file: a
//! real `fakepve` (the testkit's launcher), its certificate pinned, the
//! token secret from the environment. What an operator runs: `warden
//! inventory`, `warden config show`, `warden ask`, `warden approvals`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};
use warden_testkit::fixtures::fakepve::{self, FakeOptions, FakePve, TOKEN_SECRET};

const SECRET_VAR: &str = "WARDEN_TEST_PVE_SECRET";

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    /// A home with a config file naming the fake (pinned to `fingerprint`).
    fn new(fake: &FakePve, fingerprint: &str) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "[[proxmox]]\nname = \"lab\"\nurl = \"{}\"\ntoken_id = \"{}\"\ntoken_secret_env = \"{SECRET_VAR}\"\nfingerprint = \"{fingerprint}\"\n\n[proxmox_snapshots]\ndefault = \"config_changes\"\nper_tag = {{ prod = \"always\" }}\n",
            fake.url,
            fakepve::TOKEN_ID
        );
        std::fs::write(dir.path().join("config.toml"), config).unwrap();
        Home { dir }
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    fn warden(&self, args: &[&str]) -> Output {
        self.warden_with(args, Some(TOKEN_SECRET))
    }

    fn warden_with(&self, args: &[&str], secret: Option<&str>) -> Output {
        let home = self.dir.path();
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .args(args)
            .env("WARDEN_CONFIG", self.config())
            .env("WARDEN_DB", home.join("w.db"))
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("USER", "alice")
            .env_remove("WARDEN_PROVIDER")
            .env_remove(SECRET_VAR);
        if let Some(secret) = secret {
            command.env(SECRET_VAR, secret);
        }
        command.output().unwrap()
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn pending_approval(home: &Home) -> Value {
    let list = home.warden(&["approvals", "list", "--json"]);
    let listed: Vec<Value> = serde_json::from_str(&stdout(&list)).unwrap();
    listed.into_iter().next().expect("one pending approval")
}

#[tokio::test]
async fn five_hundred_guests_are_listed_and_the_config_shows_no_secret() {
    let fake = FakePve::start(FakeOptions {
        generate: 500,
        nodes: 3,
        time_scale: 0.0,
    })
    .await;
    let home = Home::new(&fake, &fake.fingerprint);
    let out = home.warden(&["inventory", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let inventory: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let cluster = &inventory["clusters"][0];
    assert_eq!(cluster["ok"], true, "{cluster}");
    assert_eq!(cluster["report"]["guests"], 500);
    assert_eq!(cluster["report"]["nodes"], 3);
    let elapsed = cluster["elapsed_ms"].as_u64().unwrap();
    eprintln!(
        "warden inventory: 500 guests in {elapsed} ms, merged in {} ms",
        inventory["merge_ms"]
    );
    assert!(elapsed <= 2000, "{elapsed} ms");
    let resources = inventory["resources"].as_array().unwrap();
    let lxc = resources
        .iter()
        .find(|r| r["id"] == "lxc:pve3:102")
        .unwrap();
    assert_eq!(lxc["parent"], "node:pve3");
    assert_eq!(lxc["attributes"]["cluster"], "lab");
    let shown = stdout(&home.warden(&["config", "show"]));
    assert!(shown.contains("proxmox `lab`"), "{shown}");
    assert!(
        shown.contains(&format!("secret from env {SECRET_VAR}")),
        "{shown}"
    );
    assert!(shown.contains("config_changes (prod=always)"), "{shown}");
    assert!(!shown.contains(TOKEN_SECRET), "{shown}");
    // The router answers from the merged inventory.
    let out = home.warden(&["ask", "status of vm-250"]);
    assert!(stdout(&out).contains("vm-250"), "{}", stdout(&out));
    assert!(stdout(&out).contains("running"), "{}", stdout(&out));
}

#[tokio::test]
async fn stop_with_approval_runs_through_the_api_and_is_verified() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(101, "web", "running").await;
    let home = Home::new(&fake, &fake.fingerprint);
    let asked = home.warden(&["ask", "stop web"]);
    assert_eq!(asked.status.code(), Some(5), "pending: {}", stderr(&asked));
    let err = stderr(&asked);
    assert!(err.contains("approval needed"), "{err}");
    assert!(err.contains("qm shutdown 101"), "{err}");
    assert!(err.contains("not undoable"), "{err}");
    let approval = pending_approval(&home);
    assert_eq!(approval["target"], "vm:pve1:101");
    // The card says what is undoable: in the description, and as the
    // stored offer the server's card renders.
    assert!(
        approval["description"]
            .as_str()
            .unwrap()
            .contains("not undoable"),
        "{approval}"
    );
    assert_eq!(approval["snapshot"]["guest"], "vm:pve1:101", "{approval}");
    assert_eq!(approval["snapshot"]["take"], false, "{approval}");
    // Nothing reached the cluster yet.
    let before: Vec<_> = fake.requests().await;
    assert!(
        !before
            .iter()
            .any(|(m, p)| m == "POST" && p.contains("/status/"))
    );
    let id = approval["id"].as_str().unwrap();
    let ran = home.warden(&["approvals", "approve", id]);
    let out = stdout(&ran);
    assert!(ran.status.success(), "{out}\n{}", stderr(&ran));
    assert!(out.contains("ran on node:pve1: qm shutdown 101"), "{out}");
    assert!(out.contains("the approved call ran"), "{out}");
    // The verification read shows the guest as the refreshed inventory has it.
    let verification = out.split("verification:").nth(1).unwrap();
    assert!(verification.contains("status: stopped"), "{out}");
    assert!(!out.contains('{'), "summarised, not dumped: {out}");
    let requests = fake.requests().await;
    assert!(
        requests
            .iter()
            .any(|(m, p)| m == "POST" && p.ends_with("/nodes/pve1/qemu/101/status/shutdown"))
    );
    assert!(requests.iter().any(|(_, p)| p.contains("/tasks/UPID:")));
    // Audited as what ran.
    let tail = home.warden(&["audit", "tail", "-n", "5", "--json"]);
    assert!(
        stdout(&tail).contains("qm shutdown 101 --timeout 180"),
        "{}",
        stdout(&tail)
    );
}

#[tokio::test]
async fn a_failing_task_is_reported_with_its_exit_status() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(100, "db", "stopped").await;
    fake.set(
        100,
        json!({"start_error": "unable to open file '/dev/pve/vm-100-disk-0' - No such file"}),
    )
    .await;
    let home = Home::new(&fake, &fake.fingerprint);
    home.warden(&["ask", "start db"]);
    let id = pending_approval(&home)["id"].as_str().unwrap().to_string();
    let ran = home.warden(&["approvals", "approve", &id]);
    let out = stdout(&ran);
    assert_eq!(ran.status.code(), Some(4), "{out}\n{}", stderr(&ran));
    assert!(
        out.contains("ran on node:pve1: qm start 100 (exit 1)"),
        "{out}"
    );
    assert!(out.contains("vm-100-disk-0' - No such file"), "{out}");
    assert!(out.contains("EXECUTION_FAILED"), "{out}");
    let verification = out.split("verification:").nth(1).unwrap();
    assert!(verification.contains("status: stopped"), "{out}");
}

#[tokio::test]
async fn a_routed_history_request_prints_its_sparklines() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(101, "web", "running").await;
    let now = jiff::Timestamp::now().as_second();
    let rows: Vec<Value> = (0..100)
        .map(|i| {
            json!({"time": now - (100 - i) * 3600, "cpu": 0.05,
                   "mem": 1000 + (i % 10) * 100, "maxmem": 5000})
        })
        .collect();
    fake.control(json!({"op": "rrd", "suffix": "/nodes/pve1/qemu/101/rrddata", "rows": rows}))
        .await;
    let home = Home::new(&fake, &fake.fingerprint);
    let out = home.warden(&["ask", "memory of web this week"]);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    // The router's answer, not the tool output of `-v`: the window, then
    // one line per series with its sparkline and numbers.
    assert!(text.contains("web (vm:pve1:101), past week:"), "{text}");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("memory"))
        .unwrap_or_else(|| panic!("no memory line: {text}"));
    assert!(line.contains('▁') && line.contains('█'), "{line}");
    assert!(
        line.contains("min 20.0 %") && line.contains("max 38.0 %"),
        "{line}"
    );
    assert!(!text.contains("\"series\""), "raw tool output: {text}");
    let requests = fake.requests().await;
    assert!(
        requests
            .iter()
            .any(|(_, p)| p.contains("/nodes/pve1/qemu/101/rrddata")),
        "{requests:?}"
    );
}

#[tokio::test]
async fn an_unusable_cluster_is_reported_once_and_warden_goes_on() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(101, "web", "running").await;
    let wrong = "AA:".repeat(31) + "AA";
    let home = Home::new(&fake, &wrong);
    let out = home.warden(&["ask", "list vms"]);
    // A cluster that cannot be read is not an empty cluster: the listing
    // fails naming it (exit 4), after one warning at start.
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Proxmox cluster `lab` cannot be read"),
        "{}",
        stdout(&out)
    );
    let err = stderr(&out);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("proxmox `lab`"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("fingerprint"), "{err}");
    assert!(lines[0].contains("continuing without it"), "{err}");
    // A missing secret is named, and Warden still answers.
    let home = Home::new(&fake, &fake.fingerprint);
    let out = home.warden_with(&["inventory"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!("`{SECRET_VAR}`")), "{err}");
    assert!(stdout(&out).contains("NOT CONNECTED"), "{}", stdout(&out));
}

#[tokio::test]
async fn config_show_connects_and_a_cluster_that_cannot_be_read_is_not_empty() {
    let fake = FakePve::start(FakeOptions::default()).await;
    fake.add_vm(101, "web", "running").await;
    let home = Home::new(&fake, &fake.fingerprint);
    let shown = home.warden(&["config", "show"]);
    let text = stdout(&shown);
    assert!(
        text.contains("proxmox `lab`: OK, PVE") && text.contains("1 guest"),
        "{text}"
    );
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    for (secret, why) in [(Some("wrong-secret"), "401"), (None, SECRET_VAR)] {
        let shown = home.warden_with(&["config", "show"], secret);
        let text = stdout(&shown);
        assert!(text.contains("proxmox `lab`: cannot be read: "), "{text}");
        assert!(text.contains(why), "{why}: {text}");
        assert_eq!(shown.status.code(), Some(4), "{why}");
        // `list vms` is not "no VMs": the answer names the cluster.
        let listed = home.warden_with(&["ask", "list vms"], secret);
        let answer = format!("{}{}", stdout(&listed), stderr(&listed));
        assert!(!answer.contains("has no VMs"), "{why}: {answer}");
        assert!(
            answer.contains("Proxmox cluster `lab` cannot be read"),
            "{why}: {answer}"
        );
    }
    // A pin that does not match the certificate.
    let pinned_wrong = Home::new(&fake, &vec!["AB"; 32].join(":"));
    let shown = pinned_wrong.warden(&["config", "show"]);
    let text = stdout(&shown);
    assert!(
        text.contains("cannot be read") && text.contains("fingerprint"),
        "{text}"
    );
}
