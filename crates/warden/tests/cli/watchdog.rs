//! The watchdog (`warden __warden-watchdog`), which stops Warden's commands
//! when Warden is killed outright: it follows the `+PGID [TAG]` / `-PGID`
//! announcements on its stdin and, when the pipe ends (as it does when the
//! kernel closes a dead Warden's descriptors), stops every command still
//! announced, and only those. Real processes; the container case with the
//! real engine. (`signals.rs` kills a real `warden ask` with SIGKILL.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use warden_infra::runner::{EXEC_TAG_VAR, WATCHDOG_ARG};

const IMAGE: &str = "warden-test-base:1";

/// Live (not zombie) processes of group `pgid`, from /proc.
fn live_members_of_group(pgid: u32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string()
        })
        .count()
}

/// Polls `done` for up to `limit`; whether it became true.
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// A watchdog whose announcement pipe this test holds, as Warden would.
struct Watchdog {
    child: Child,
    announce: Option<std::fs::File>,
}

impl Watchdog {
    fn start(grace_ms: u64) -> Watchdog {
        let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .args([WATCHDOG_ARG, "--grace-ms", &grace_ms.to_string()])
            .stdin(Stdio::from(read))
            .process_group(0)
            .spawn()
            .unwrap();
        Watchdog {
            child,
            announce: Some(std::fs::File::from(write)),
        }
    }

    fn say(&mut self, line: &str) {
        self.announce
            .as_mut()
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
    }

    /// What the kernel does when Warden dies; then waits (bounded) for the
    /// watchdog to finish its work and exit.
    fn lose_warden(&mut self) {
        self.announce = None;
        assert!(
            eventually(Duration::from_secs(10), || self
                .child
                .try_wait()
                .unwrap()
                .is_some()),
            "the watchdog did not exit"
        );
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A command tree as the executor starts one: its own process group.
struct Tree(Child);

impl Tree {
    fn start(script: &str, started: &Path) -> Tree {
        let script = format!("{script} & touch {}; wait", started.display());
        let child = Command::new("/bin/sh")
            .args(["-c", &script])
            .process_group(0)
            .spawn()
            .unwrap();
        assert!(eventually(Duration::from_secs(10), || started.exists()));
        Tree(child)
    }

    fn group(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let group = rustix::process::Pid::from_raw(i32::try_from(self.0.id()).unwrap()).unwrap();
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        let _ = self.0.wait();
    }
}

#[test]
fn a_dead_warden_s_announced_commands_are_stopped_and_only_those() {
    let dir = tempfile::tempdir().unwrap();
    let mut watchdog = Watchdog::start(300);
    // Ignores SIGTERM (the shell and its sleeps): SIGKILL after the grace.
    let stubborn = Tree::start("trap '' TERM; sleep 310 & sleep 311", &dir.path().join("a"));
    let polite = Tree::start("sleep 312", &dir.path().join("b"));
    let finished = Tree::start("sleep 313", &dir.path().join("c"));
    watchdog.say(&format!("+{}\n", stubborn.group()));
    watchdog.say(&format!("+{}\n", polite.group()));
    watchdog.say(&format!("+{}\n-{}\n", finished.group(), finished.group()));
    // While Warden lives, nothing happens.
    std::thread::sleep(Duration::from_millis(300));
    assert!(live_members_of_group(stubborn.group()) >= 3);

    watchdog.lose_warden();
    assert_eq!(live_members_of_group(stubborn.group()), 0);
    assert_eq!(live_members_of_group(polite.group()), 0);
    // A command Warden said was over is not the watchdog's business.
    assert!(live_members_of_group(finished.group()) >= 2);
}

fn engine_reachable(test: &str) -> bool {
    let ok = Command::new("docker")
        .args(["version", "--format", "{{.Server.Version}}"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("!!! DOCKER ENGINE UNREACHABLE: {test} did not run");
    }
    ok
}

/// Removed when dropped, even when an assertion fails.
struct Container(String);

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Command::new("docker").args(["rm", "-f", &self.0]).output();
    }
}

fn container_processes(name: &str) -> usize {
    let out = Command::new("docker")
        .args(["top", name, "-o", "pid"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).lines().count() - 1
}

#[test]
fn a_dead_warden_s_command_inside_a_container_is_stopped_there() {
    if !engine_reachable("a_dead_warden_s_command_inside_a_container_is_stopped_there") {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../warden-infra/tests/support/build-test-image.sh");
    let built = Command::new("sh").arg(script).arg(IMAGE).output().unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let container = Container(format!("warden-test-watchdog-{}", std::process::id()));
    let run = Command::new("docker")
        .args([
            "run",
            "-d",
            "--name",
            &container.0,
            IMAGE,
            "/bin/sleep",
            "300",
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let dir = tempfile::tempdir().unwrap();
    let mut watchdog = Watchdog::start(500);
    let tag = format!("watchdog-test-{}", std::process::id());
    // The local side (the docker client) as the executor starts it.
    let client = Tree::start(
        &format!(
            "docker exec -e {EXEC_TAG_VAR}={tag} {} /bin/sh -c \
             \"trap '' TERM; sleep 314 & sleep 315; wait\"",
            container.0
        ),
        &dir.path().join("started"),
    );
    watchdog.say(&format!("+{} {tag}\n", client.group()));
    // The container's own sleep, plus the exec's shell and two sleeps.
    assert!(eventually(Duration::from_secs(10), || {
        container_processes(&container.0) == 4
    }));
    watchdog.lose_warden();
    assert_eq!(container_processes(&container.0), 1);
    assert_eq!(live_members_of_group(client.group()), 0);
}
