//! The command launcher (`warden __warden-exec-launcher …`), which the
//! executor puts between Warden and every command so that none outlives
//! Warden: it must be invisible while Warden lives (same output, exit
//! status, environment, stdin from /dev/null, no extra descriptors), and
//! stop everything when Warden's lifeline breaks, as when Warden is killed
//! with SIGKILL. Real processes; the container case with the real engine.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use warden_infra::local_exec::{EXEC_TAG_VAR, LAUNCHER_ARG};
use warden_infra::{ExecError, ExecOptions, Launcher, LocalExecutor};
use warden_protocol::CancelFlag;

const IMAGE: &str = "warden-test-base:1";

fn launched() -> LocalExecutor {
    LocalExecutor::new().with_launcher(Launcher::new(env!("CARGO_BIN_EXE_warden")))
}

/// Live (not zombie) processes of group `pgid`, from /proc.
fn live_members_of_group(pgid: i32) -> usize {
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

#[test]
fn the_launcher_is_invisible_to_the_command() {
    let out = launched().run("echo out; echo err >&2; exit 3").unwrap();
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str(), out.exit_code),
        ("out\n", "err\n", 3)
    );
    // Death by a signal is passed on as such.
    let out = launched().run("kill -KILL $$").unwrap();
    assert_eq!((out.exit_code, out.signal), (137, Some(9)));
    let out = launched().run("kill -TERM $$").unwrap();
    assert_eq!((out.exit_code, out.signal), (143, Some(15)));
    // The same clean environment as without it.
    let env = |exec: LocalExecutor| {
        let out = exec.run("env | grep -v '^_=' | sort").unwrap().stdout;
        out.lines()
            .filter(|l| !l.starts_with("SHLVL="))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(env(launched()), env(LocalExecutor::new()));
    // stdin is /dev/null, not the lifeline (`cat` would wait for Warden's
    // death), and the lifeline (the launcher's stdin: the shell's parent is
    // the launcher) is none of the command's descriptors, or the command
    // would keep it alive.
    let out = launched()
        .run(
            "cat; echo \"lifeline $(readlink /proc/$PPID/fd/0)\"; \
             for fd in /proc/$$/fd/*; do echo \"${fd##*/} $(readlink $fd)\"; done",
        )
        .unwrap();
    let mut lines = out.stdout.lines();
    let lifeline = lines.next().unwrap().strip_prefix("lifeline ").unwrap();
    assert!(lifeline.starts_with("pipe:"), "{lifeline}");
    let fds: Vec<&str> = lines.collect();
    assert_eq!(fds[0], "0 /dev/null");
    assert!(
        fds.iter().all(|fd| !fd.ends_with(lifeline)),
        "{lifeline} in {fds:?}"
    );
}

#[test]
fn cancel_and_timeout_stop_the_launched_tree() {
    let exec = launched();
    let cancel = CancelFlag::new();
    let trigger = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        trigger.cancel();
    });
    // The group is the launcher's (field 5 of the shell's stat).
    let err = exec
        .run_cancellable(
            "cut -d' ' -f5 /proc/$$/stat; sleep 300 & sleep 301; wait",
            &cancel,
        )
        .unwrap_err();
    canceller.join().unwrap();
    let ExecError::Cancelled { partial, .. } = &err else {
        panic!("{err:?}");
    };
    let group: i32 = partial.stdout.trim().parse().unwrap();
    // The shell and both sleeps are gone (the shell, orphaned when the
    // launcher died first, may linger as a zombie until init reaps it).
    assert_eq!(live_members_of_group(group), 0);

    let exec = LocalExecutor::with_options(
        ExecOptions::default()
            .with_timeout(Duration::from_millis(300))
            .with_kill_grace(Duration::from_millis(200)),
    )
    .with_launcher(Launcher::new(env!("CARGO_BIN_EXE_warden")));
    let err = exec
        .run("trap '' TERM; cut -d' ' -f5 /proc/$$/stat; sleep 302 & sleep 303; wait")
        .unwrap_err();
    let partial = err.partial_output().unwrap();
    if let Ok(pgid) = partial.stdout.trim().parse::<i32>() {
        assert_eq!(live_members_of_group(pgid), 0);
    } else {
        panic!("no process group printed: {partial:?}");
    }
}

/// A launcher started as the executor starts it, but with a lifeline this
/// test holds: dropping the write end is what the kernel does when Warden
/// dies (SIGKILL included).
struct Launched {
    child: std::process::Child,
    lifeline: Option<OwnedFd>,
}

fn launch(tag: Option<&str>, grace_ms: u64, program: &[&str]) -> Launched {
    use std::os::unix::process::CommandExt;
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command.args([LAUNCHER_ARG, "--grace-ms", &grace_ms.to_string()]);
    if let Some(tag) = tag {
        command.args(["--tag", tag]);
    }
    let child = command
        .arg("--")
        .args(program)
        .stdin(Stdio::from(read))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    Launched {
        child,
        lifeline: Some(write),
    }
}

impl Launched {
    fn cut_lifeline(&mut self) {
        self.lifeline = None;
    }

    /// Waits (bounded) for the launcher to end; its exit status.
    fn end(&mut self) -> std::process::ExitStatus {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < until, "the launcher did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_broken_lifeline_stops_the_whole_local_tree() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let started = dir.path().join("started");
    let script = format!(
        "trap '' TERM; sleep 304 & sleep 305 & touch {}; wait",
        started.display()
    );
    let mut launched = launch(None, 300, &["/bin/sh", "-c", &script]);
    let group = i32::try_from(launched.child.id()).unwrap();
    assert!(eventually(Duration::from_secs(10), || started.exists()));
    // The launcher, the shell and both sleeps; while the line holds, they run.
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(live_members_of_group(group), 4);

    launched.cut_lifeline();
    // Killed after the grace (the command ignores SIGTERM), launcher last.
    assert_eq!(launched.end().signal(), Some(9));
    assert_eq!(live_members_of_group(group), 0);
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
fn a_broken_lifeline_stops_the_command_inside_its_container() {
    if !engine_reachable("a_broken_lifeline_stops_the_command_inside_its_container") {
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
    let container = Container(format!("warden-test-lifeline-{}", std::process::id()));
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

    let tag = format!("lifeline-test-{}", std::process::id());
    let env = format!("{EXEC_TAG_VAR}={tag}");
    let mut launched = launch(
        Some(&tag),
        500,
        &[
            "docker",
            "exec",
            "-e",
            &env,
            &container.0,
            "/bin/sh",
            "-c",
            "trap '' TERM; sleep 306 & sleep 307; wait",
        ],
    );
    // The container's own sleep, plus the exec's shell and two sleeps.
    assert!(eventually(Duration::from_secs(10), || {
        container_processes(&container.0) == 4
    }));
    launched.cut_lifeline();
    launched.end();
    assert_eq!(container_processes(&container.0), 1);
}
