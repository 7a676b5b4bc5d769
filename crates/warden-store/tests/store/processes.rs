//! The store shared by real processes: ten opening a new database at once,
//! parallel appenders, and writers killed with SIGKILL in the middle of an
//! append loop. The helper processes are this test binary run again with
//! `WARDEN_STORE_HELPER` set (see `helper_process`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use warden_protocol::AuditRecord;
use warden_store::{Store, StoreError};
use warden_testkit::time::now_ms;

const HELPER: &str = "WARDEN_STORE_HELPER";

fn record(writer: &str, i: u64) -> AuditRecord {
    AuditRecord {
        session_id: writer.to_string(),
        actor: "assistant".into(),
        tool: "read".into(),
        target: None,
        decision: "executed".into(),
        code: None,
        command: format!("{writer} {i}"),
        reason: None,
        duration_ms: i,
    }
}

/// Wait for the start signal (a file), so that helpers collide.
fn wait_for(go: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !go.exists() {
        assert!(Instant::now() < deadline, "no start signal");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Not a test: the body of the helper processes. Tasks (in `$WARDEN_STORE_HELPER`,
/// tab-separated): `open DB GO WRITER` opens the database and appends one
/// record; `append DB GO WRITER N` appends N records (N = 0: forever),
/// printing `seq N` for each once committed.
#[test]
#[ignore = "a helper process, run by the other tests"]
fn helper_process() {
    let Ok(task) = std::env::var(HELPER) else {
        return;
    };
    let parts: Vec<&str> = task.split('\t').collect();
    let (db, go, writer) = (Path::new(parts[1]), Path::new(parts[2]), parts[3]);
    wait_for(go);
    let result = (|| -> Result<(), StoreError> {
        let store = Store::open(db)?;
        match parts[0] {
            "open" => {
                store.append_audit(&record(writer, 1), now_ms())?;
            }
            "append" => {
                let count: u64 = parts[4].parse().unwrap();
                let mut i = 1;
                while count == 0 || i <= count {
                    let entry = store.append_audit(&record(writer, i), now_ms())?;
                    println!("seq {}", entry.seq);
                    i += 1;
                }
            }
            other => panic!("unknown helper task {other}"),
        }
        Ok(())
    })();
    if let Err(error) = result {
        eprintln!("HELPER FAILED: {error}");
        std::process::exit(3);
    }
}

fn spawn(task: &[&str]) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "processes::helper_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env(HELPER, task.join("\t"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

struct Scene {
    _dir: tempfile::TempDir,
    db: PathBuf,
    go: PathBuf,
}

fn scene() -> Scene {
    let dir = tempfile::tempdir().unwrap();
    Scene {
        db: dir.path().join("warden.db"),
        go: dir.path().join("go"),
        _dir: dir,
    }
}

impl Scene {
    fn db(&self) -> &str {
        self.db.to_str().unwrap()
    }
    fn go(&self) -> &str {
        self.go.to_str().unwrap()
    }
    fn start(&self) {
        std::fs::write(&self.go, "").unwrap();
    }
}

fn finish(child: Child) {
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "helper failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Records per writer, in log order.
fn commands_by_writer(store: &Store) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut by_writer = std::collections::BTreeMap::<String, Vec<String>>::new();
    for entry in store.audit_page(0, usize::MAX).unwrap() {
        by_writer
            .entry(entry.record.session_id.clone())
            .or_default()
            .push(entry.record.command);
    }
    by_writer
}

#[test]
fn ten_processes_open_a_new_database_at_once() {
    let scene = scene();
    let writers: Vec<String> = (0..10).map(|i| format!("opener{i}")).collect();
    let children: Vec<Child> = writers
        .iter()
        .map(|w| spawn(&["open", scene.db(), scene.go(), w]))
        .collect();
    // Let every helper start and wait at the line.
    std::thread::sleep(Duration::from_millis(300));
    scene.start();
    for child in children {
        finish(child);
    }
    let store = Store::open(&scene.db).unwrap();
    let report = store.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(report.records, 10);
    assert_eq!(commands_by_writer(&store).len(), 10);
}

#[test]
fn parallel_appenders_lose_nothing() {
    let scene = scene();
    Store::open(&scene.db).unwrap();
    let per_writer = 25u64;
    let writers: Vec<String> = (0..10).map(|i| format!("writer{i}")).collect();
    let children: Vec<Child> = writers
        .iter()
        .map(|w| spawn(&["append", scene.db(), scene.go(), w, &per_writer.to_string()]))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    scene.start();
    for child in children {
        finish(child);
    }
    let store = Store::open(&scene.db).unwrap();
    let report = store.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    assert_eq!(report.records, 10 * per_writer);
    assert_eq!(report.anchor_lag, 0);
    let by_writer = commands_by_writer(&store);
    for writer in &writers {
        let expected: Vec<String> = (1..=per_writer).map(|i| format!("{writer} {i}")).collect();
        assert_eq!(by_writer[writer], expected, "{writer}'s records, in order");
    }
}

/// Read a writer's committed sequence numbers until it has written `n`.
fn wait_for_records(child: &mut Child, n: usize) -> (BufReader<std::process::ChildStdout>, u64) {
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut last = 0;
    let mut seen = 0;
    let mut line = String::new();
    while seen < n {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the writer stopped early"
        );
        // The test harness prints its own lines too.
        if let Some(seq) = line.trim().strip_prefix("seq ") {
            last = seq.parse().unwrap();
            seen += 1;
        }
    }
    (reader, last)
}

#[test]
fn a_writer_killed_mid_append_leaves_a_log_that_verifies() {
    let scene = scene();
    scene.start();
    Store::open(&scene.db).unwrap();
    let mut reported_lag = 0;
    for round in 0..6u64 {
        let mut child = spawn(&[
            "append",
            scene.db(),
            scene.go(),
            &format!("round{round}"),
            "0",
        ]);
        let (mut reader, mut last_seen) = wait_for_records(&mut child, 5 + 7 * round as usize);
        child.kill().unwrap(); // SIGKILL: no destructor, no flush
        child.wait().unwrap();
        // The writer went on between the line read last and the kill: what
        // it printed before dying is still in the pipe.
        let mut rest = String::new();
        reader.read_to_string(&mut rest).unwrap();
        for line in rest.lines() {
            if let Some(seq) = line.trim().strip_prefix("seq ") {
                last_seen = seq.parse().unwrap();
            }
        }
        let store = Store::open(&scene.db).unwrap();
        let report = store.verify_audit().unwrap();
        assert!(report.intact, "round {round}: {report:?}");
        // Printed only after the commit: at least that many, perhaps one more.
        assert!(
            report.head_seq >= last_seen && report.head_seq <= last_seen + 1,
            "round {round}: the writer reported record {last_seen}, the log ends at {}",
            report.head_seq
        );
        assert!(report.anchor_lag <= 1, "{report:?}");
        reported_lag += report.anchor_lag;
        assert_eq!(
            store.verify_audit().unwrap().anchor_lag,
            0,
            "the lag is repaired"
        );
    }
    // Whatever the kills hit, every record is there once.
    let store = Store::open(&scene.db).unwrap();
    let report = store.verify_audit().unwrap();
    assert_eq!(report.records, report.head_seq);
    eprintln!("kills that left the anchor one record behind: {reported_lag}");
}

#[test]
fn killing_one_of_several_writers_loses_nothing_of_the_others() {
    let scene = scene();
    Store::open(&scene.db).unwrap();
    let survivors: Vec<Child> = (0..3)
        .map(|i| {
            spawn(&[
                "append",
                scene.db(),
                scene.go(),
                &format!("survivor{i}"),
                "40",
            ])
        })
        .collect();
    let mut victim = spawn(&["append", scene.db(), scene.go(), "victim", "0"]);
    scene.start();
    let (_reader, _) = wait_for_records(&mut victim, 10);
    victim.kill().unwrap();
    victim.wait().unwrap();
    for child in survivors {
        finish(child);
    }
    let store = Store::open(&scene.db).unwrap();
    let report = store.verify_audit().unwrap();
    assert!(report.intact, "{report:?}");
    let by_writer = commands_by_writer(&store);
    for i in 0..3 {
        assert_eq!(by_writer[&format!("survivor{i}")].len(), 40);
    }
    assert!(by_writer["victim"].len() >= 10);
}
