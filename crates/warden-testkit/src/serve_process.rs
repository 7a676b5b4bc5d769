//! `warden serve` as a separate process, as an operator starts it: the
//! binary with none of this machine's configuration, started on a data
//! directory, its address read from what it prints, stopped with SIGTERM,
//! killed if the test ends first.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// How long `warden serve` may take to print where it listens, and to
/// exit after SIGTERM.
const WITHIN: Duration = Duration::from_secs(30);

/// The `warden` binary at `binary` with no configuration of this machine
/// (no provider, config file, data directory or Docker host from the
/// environment; an XDG config home that does not exist).
pub fn warden(binary: &Path) -> Command {
    let mut command = Command::new(binary);
    command
        .env_remove("WARDEN_PROVIDER")
        .env_remove("WARDEN_CONFIG")
        .env_remove("WARDEN_DATA_DIR")
        .env_remove("DOCKER_HOST")
        .env("XDG_CONFIG_HOME", "/nonexistent-warden-test");
    command
}

/// `warden token create` on the data directory `dir`: the secret.
pub fn offline_token(binary: &Path, dir: &Path, name: &str, role: &str) -> String {
    let out = warden(binary)
        .args(["token", "create", "--name", name, "--role", role])
        .args(["--expires", "1d", "--data-dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A running `warden serve` and what it printed at start.
pub struct ServeProcess {
    child: Child,
    /// `http://IP:PORT` or `https://…`, as printed.
    pub base: String,
    /// Every line printed so far that was read.
    pub lines: Vec<String>,
    stdout: Receiver<String>,
}

impl ServeProcess {
    /// Starts `serve` (a `warden serve …` command, stdout left to this) and
    /// waits for "listening on ADDRESS"; the lines that follow at once
    /// (the fingerprint, the first admin) are read too.
    pub fn start(mut serve: Command) -> ServeProcess {
        let mut child = serve
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, stdout) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut serve = ServeProcess {
            child,
            base: String::new(),
            lines: Vec::new(),
            stdout,
        };
        let address = serve
            .wait_line_after("listening on ", WITHIN)
            .expect("warden serve printed where it listens");
        serve.base = address.split_whitespace().next().unwrap().to_string();
        while let Ok(line) = serve.stdout.recv_timeout(Duration::from_millis(300)) {
            serve.lines.push(line);
        }
        serve
    }

    /// What follows `marker` on the first line read so far that has it.
    pub fn line_after(&self, marker: &str) -> Option<String> {
        self.lines
            .iter()
            .find_map(|l| l.split(marker).nth(1).map(|s| s.trim().to_string()))
    }

    /// The same, reading further lines for up to `within` until one has it.
    pub fn wait_line_after(&mut self, marker: &str, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(found) = self.line_after(marker) {
                return Some(found);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            self.lines.push(self.stdout.recv_timeout(left).ok()?);
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGTERM, then its exit status (it must exit within 30 s).
    pub fn terminate(&mut self) -> ExitStatus {
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&self.child),
            rustix::process::Signal::TERM,
        )
        .unwrap();
        let deadline = Instant::now() + WITHIN;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "warden serve did not exit after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
