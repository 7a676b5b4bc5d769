//! Upgrades end to end: today's `warden` on copies of databases written by
//! earlier releases (`crates/warden-store/tests/fixtures/upgrade/`, see
//! the README there) lists their sessions and transcripts, resumes an old
//! conversation, lists and expires their approvals, sums their usage, knows
//! their users and tokens, serves them to a user logging in with the
//! password set under the old release, and verifies the audit chain (also
//! offline, from an export) after all of that appended to it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};
use warden_testkit::serve_process::ServeProcess;

/// A copy of a fixture's files in a temporary data directory.
fn copy_fixture(release: &str) -> (tempfile::TempDir, PathBuf) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../warden-store/tests/fixtures/upgrade")
        .join(release);
    let dir = tempfile::tempdir().unwrap();
    for name in ["warden.db", "warden.db.audit-head"] {
        if source.join(name).exists() {
            std::fs::copy(source.join(name), dir.path().join(name)).unwrap();
        }
    }
    let db = dir.path().join("warden.db");
    assert!(db.exists(), "fixture {release}");
    (dir, db)
}

/// Today's binary, isolated from this machine's configuration.
fn warden(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("USER", "tester")
        .env_remove("WARDEN_PROVIDER")
        .env_remove("WARDEN_CONFIG")
        .env_remove("WARDEN_DB")
        .env_remove("WARDEN_DATA_DIR");
    command
}

fn run(home: &Path, args: &[&str]) -> Output {
    let out = warden(home).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "warden {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json_out(home: &Path, args: &[&str]) -> Value {
    serde_json::from_slice(&run(home, args).stdout).unwrap()
}

fn text_out(home: &Path, args: &[&str]) -> String {
    String::from_utf8(run(home, args).stdout).unwrap()
}

fn field<'a>(values: &'a Value, key: &str) -> Vec<&'a str> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v[key].as_str().unwrap())
        .collect()
}

/// `audit verify --json` on the database, then on its export, offline.
fn audit_verifies(home: &Path, db: &str) -> Value {
    let report = json_out(home, &["audit", "verify", "--db", db, "--json"]);
    assert_eq!(report["intact"], true, "{report}");
    let export = home.join("audit.jsonl");
    // `export --file` writes a new file only.
    let _ = std::fs::remove_file(&export);
    let export_str = export.to_str().unwrap();
    run(home, &["audit", "export", "--db", db, "--file", export_str]);
    let offline = json_out(home, &["audit", "verify", "--file", export_str, "--json"]);
    assert_eq!(offline["intact"], true, "{offline}");
    assert_eq!(offline["records"], report["records"]);
    report
}

#[test]
fn the_first_release_database_through_todays_cli() {
    let (dir, db) = copy_fixture("stop05");
    let home = dir.path();
    let db = db.to_str().unwrap();

    let listed = run(home, &["sessions", "--db", db, "-n", "50", "--json"]);
    // The first release's file was world-readable: private now, and said.
    let said = String::from_utf8_lossy(&listed.stderr);
    assert!(
        said.contains("made private") && said.contains("warden.db was 0644, now 0600"),
        "{said}"
    );
    let sessions: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(
        field(&sessions, "title"),
        [
            "restart cron",
            "remember the web server is nginx",
            "remember the cron job is at 03:00",
            "remember the nightly backup runs at 02:00",
            "hello, what can you do?",
            "uptime",
            "disk usage"
        ]
    );
    let uptime = "s-1795825556405-0176";
    let shown = json_out(home, &["sessions", "--db", db, "show", uptime, "--json"]);
    let shown = shown.as_array().unwrap();
    assert_eq!(shown.len(), 9);
    assert_eq!(shown[5]["text"], "memory usage");
    assert_eq!(
        shown[8]["text"],
        "Memory on vm (host:vm): 2.9% used (705.1 MiB of 23.5 GiB, 22.9 GiB available); no swap."
    );

    // Before anything appends: exactly the release's records.
    let report = audit_verifies(home, db);
    assert_eq!(
        (&report["records"], &report["legacy_records"]),
        (&json!(21), &json!(21))
    );

    // Listing expires what waited past its expiry (audited as `system`);
    // the denial stays as it was.
    let denied = json_out(
        home,
        &[
            "approvals",
            "list",
            "--db",
            db,
            "--state",
            "denied",
            "--json",
        ],
    );
    assert_eq!(field(&denied, "id"), ["appr-1795825556531-1"]);
    assert_eq!(denied[0]["reason"], "not now");
    let expired = json_out(
        home,
        &[
            "approvals",
            "list",
            "--db",
            db,
            "--state",
            "expired",
            "--json",
        ],
    );
    assert_eq!(
        field(&expired, "id"),
        ["appr-1795825556507-1", "appr-1795825556555-1"]
    );
    assert_eq!(expired[1]["command"], "systemctl restart 'cron'");

    let usage = json_out(home, &["usage", "--db", db, "--json"]);
    assert_eq!(
        (
            &usage[0]["calls"],
            &usage[0]["input_tokens"],
            &usage[0]["output_tokens"]
        ),
        (&json!(1), &json!(321), &json!(17))
    );

    // The old conversation resumes (a read on this machine).
    run(home, &["ask", "--db", db, "--session", uptime, "uptime"]);
    let shown = json_out(home, &["sessions", "--db", db, "show", uptime, "--json"]);
    assert_eq!(shown.as_array().unwrap().len(), 13);
    assert_eq!(shown[9]["text"], "uptime");

    let report = audit_verifies(home, db);
    assert_eq!(report["legacy_records"], 21);
    let records = report["records"].as_u64().unwrap();
    assert!(records >= 21 + 2 + 2, "{report}");
    let tail = text_out(home, &["audit", "--db", db, "tail", "-n", "100"]);
    assert!(
        tail.contains("#23 ") && tail.contains("system expired control host:vm"),
        "{tail}"
    );
}

#[test]
fn the_previous_release_database_through_todays_cli() {
    let (dir, db) = copy_fixture("stop14");
    let home = dir.path();
    let data = dir.path().to_str().unwrap();
    let db = db.to_str().unwrap();

    let sessions = json_out(home, &["sessions", "--db", db, "-n", "50", "--json"]);
    assert_eq!(sessions.as_array().unwrap().len(), 10);
    assert_eq!(sessions[2]["title"], "alice notes");
    let alice = "s-d89585638ad27ac9ba07da282e43a361";
    let shown = json_out(home, &["sessions", "--db", db, "show", alice, "--json"]);
    assert_eq!(shown.as_array().unwrap().len(), 15);
    assert_eq!(shown[9]["text"], "remember the proxy is haproxy");

    let report = audit_verifies(home, db);
    assert_eq!(
        (&report["records"], &report["head_hash"]),
        (
            &json!(42),
            &json!("cf88a3bb7e7349d4774f3ad2499a9e8a71307049a26f7d087cd845677635464a")
        )
    );

    let consumed = json_out(
        home,
        &[
            "approvals",
            "list",
            "--db",
            db,
            "--state",
            "consumed",
            "--json",
        ],
    );
    assert_eq!(
        field(&consumed, "id"),
        [
            "369d408bd15c234405f607c237fd2b5c",
            "ea85e1bce51069dbbe65dc05990cbebd"
        ]
    );
    assert_eq!(consumed[0]["decided_by"], "user:ops");
    assert_eq!(consumed[0]["snapshot"]["guest"], "vm:pve1:100");
    assert_eq!(consumed[0]["snapshot"]["take"], true);
    assert_eq!(consumed[1]["decided_by"], "user:bob");
    let denied = json_out(
        home,
        &[
            "approvals",
            "list",
            "--db",
            db,
            "--state",
            "denied",
            "--json",
        ],
    );
    assert_eq!(field(&denied, "decided_by"), ["user:ops", "user:bob"]);
    assert_eq!(
        field(&denied, "reason"),
        ["it is /dev/sdc now", "we are moving to caddy"]
    );
    let expired = json_out(
        home,
        &[
            "approvals",
            "list",
            "--db",
            db,
            "--state",
            "expired",
            "--json",
        ],
    );
    assert_eq!(field(&expired, "id"), ["5174d5f746c307e8908b45ef46b863a3"]);

    let usage = json_out(home, &["usage", "--db", db, "--json"]);
    assert_eq!(
        (&usage[0]["calls"], &usage[0]["input_tokens"]),
        (&json!(2), &json!(642))
    );
    assert_eq!(
        text_out(home, &["user", "list", "--data-dir", data]),
        "alice\tadmin\nbob\tapprover\ncarol\tviewer\n"
    );
    let tokens = text_out(home, &["token", "list", "--data-dir", data]);
    assert!(
        tokens.contains("tok-8e664c7fbd82edc2890d182961eca721\tci\toperator\tno expiry"),
        "{tokens}"
    );
    assert!(tokens.contains("\told\tviewer\trevoked "), "{tokens}");
    assert!(tokens.contains("\tdashboard\tviewer\texpires "), "{tokens}");

    run(home, &["ask", "--db", db, "--session", alice, "uptime"]);
    let shown = json_out(home, &["sessions", "--db", db, "show", alice, "--json"]);
    assert_eq!(shown.as_array().unwrap().len(), 19);

    let report = audit_verifies(home, db);
    assert!(
        report["records"].as_u64().unwrap() >= 42 + 1 + 2,
        "{report}"
    );
}

/// `warden serve` on the data directory `data`, a free loopback port.
fn start_serve(home: &Path, data: &Path) -> ServeProcess {
    let mut command = warden(home);
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data);
    ServeProcess::start(command)
}

#[tokio::test]
async fn the_previous_release_database_served_to_a_user_of_that_release() {
    let (dir, db) = copy_fixture("stop14");
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&db), 0o644, "as the release left it");
    let serve = start_serve(dir.path(), dir.path());
    // The start made the old files private, and said so.
    for file in ["warden.db", "warden.db.audit-head"] {
        assert_eq!(mode(&dir.path().join(file)), 0o600, "{file}");
        assert!(
            serve
                .lines
                .iter()
                .any(|l| l.contains("made private")
                    && l.contains(&format!("{file} was 0644, now 0600"))),
            "{file}: {:?}",
            serve.lines
        );
    }
    // Plain HTTP on loopback.
    let http = warden_testkit::http::client_with(
        warden_testkit::http::no_roots_tls(),
        Some(Duration::from_secs(30)),
    );
    let url = |path: &str| format!("{}{path}", serve.base);

    // The password alice was given under the old release still works.
    let wrong = http
        .post(url("/api/auth/login"))
        .json(&json!({"username": "alice", "password": "not her password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), reqwest::StatusCode::UNAUTHORIZED);
    let login = http
        .post(url("/api/auth/login"))
        .json(&json!({"username": "alice", "password": "alice-fixture-pw"}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), reqwest::StatusCode::OK);
    let cookie = login
        .headers()
        .get(reqwest::header::SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let me: Value = login.json().await.unwrap();
    assert_eq!(me["role"], "admin");
    let get = |path: &str| {
        http.get(url(path))
            .header(reqwest::header::COOKIE, cookie.clone())
            .send()
    };
    let json = |response: reqwest::Response| async move {
        assert_eq!(response.status(), reqwest::StatusCode::OK);
        response.json::<Value>().await.unwrap()
    };

    let sessions = json(get("/api/sessions").await.unwrap()).await;
    assert_eq!(sessions.as_array().unwrap().len(), 10);
    let alice = json(
        get("/api/sessions/s-d89585638ad27ac9ba07da282e43a361")
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(alice["title"], "alice notes");
    let texts: Vec<&str> = alice["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        texts,
        [
            "remember the web server is nginx",
            "Noted: \"the web server is nginx\".",
            "remember the proxy is haproxy",
            "Not done: remember \"the proxy is haproxy\" was denied. Command denied: we are moving to caddy"
        ]
    );
    let approval = json(
        get("/api/approvals/369d408bd15c234405f607c237fd2b5c")
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(approval["state"], "consumed");
    assert_eq!(approval["decided_by"], "user:ops");
    assert_eq!(approval["snapshot"]["guest"], "vm:pve1:100");
    let agents = json(get("/api/agents").await.unwrap()).await;
    assert_eq!(field(&agents, "name"), ["fixture-agent"]);
    let verify = json(get("/api/audit/verify").await.unwrap()).await;
    assert_eq!(verify["intact"], true, "{verify}");
    assert!(verify["records"].as_u64().unwrap() >= 42, "{verify}");
    let first = json(get("/api/audit?after=0&limit=1").await.unwrap()).await;
    assert_eq!(
        first[0]["hash"],
        "7ea3ff81cd41098e368362d791d3ad54c390a57782a17a2c8c4eea11adf5efd8"
    );
}
