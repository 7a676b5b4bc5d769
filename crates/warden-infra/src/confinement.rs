//! What keeps Warden's own secrets out of a command's reach (issue 17 §1),
//! as one object per process: the protected paths, how commands are
//! confined here (probed once: a mount namespace per command, or the
//! policy alone), the launcher that hides them for the next command, and
//! the policy's refusal of commands that name them.
//!
//! Warden's processes are protected live: its pid and every thread it has
//! when a command starts (a thread is reachable as `/proc/TID` too).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use warden_confine::{Hidden, Mode};
use warden_policy::paths::Mentions;
use warden_policy::paths::protect::{self, Filesystem, Hit, Protected, ProtectedKind, Strictness};
use warden_policy::shell::ast::Dialect;

use crate::runner::Launcher;

/// Most directory entries read to expand one glob component.
const MAX_LISTED: usize = 4096;

/// Whether commands go through the confinement launcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launching {
    /// Through this program (`warden`, whose `main` becomes the launcher
    /// when asked to), if the probe says namespaces work here.
    Program(PathBuf),
    /// Never: a library user or a test whose program cannot launch. The
    /// policy's refusal still applies.
    Off,
}

/// The protected paths and processes of this Warden, and how commands are
/// kept from them.
#[derive(Debug)]
pub struct Confinement {
    launching: Launching,
    protected: Vec<Protected>,
    mode: OnceLock<Mode>,
}

impl Confinement {
    /// `protected` files and directories (made canonical here; missing ones
    /// are kept as written, so that they stay protected once created).
    pub fn new(launching: Launching, protected: Vec<Protected>) -> Self {
        let protected = protected
            .into_iter()
            .map(|mut entry| {
                if !matches!(entry.kind, ProtectedKind::Process(_)) {
                    entry.path = RealFilesystem.canonical(&entry.path);
                }
                entry
            })
            .collect();
        Confinement {
            launching,
            protected,
            mode: OnceLock::new(),
        }
    }

    /// No launcher and nothing protected beyond Warden's own process.
    pub fn off() -> Self {
        Confinement::new(Launching::Off, Vec::new())
    }

    /// Protect one more file or directory.
    pub fn protect(&mut self, entry: Protected) {
        let mut entry = entry;
        if !matches!(entry.kind, ProtectedKind::Process(_)) {
            entry.path = RealFilesystem.canonical(&entry.path);
        }
        if !self.protected.contains(&entry) {
            self.protected.push(entry);
        }
    }

    /// The protected files and directories.
    pub fn protected(&self) -> &[Protected] {
        &self.protected
    }

    /// How commands are confined here: probed on first use (one run of the
    /// launcher), then fixed for the life of the process.
    pub fn mode(&self) -> &Mode {
        self.mode.get_or_init(|| match &self.launching {
            Launching::Program(program) => warden_confine::probe(program),
            Launching::Off => Mode::Off,
        })
    }

    /// How strict the policy's check must be in this mode: by itself
    /// where nothing else hides the paths (`Off` is for tests and library
    /// users, which keep the direct refusal only).
    pub fn strictness(&self) -> Strictness {
        match self.mode() {
            Mode::Namespaces | Mode::Off => Strictness::Namespaces,
            Mode::PolicyOnly { .. } => Strictness::PolicyOnly,
        }
    }

    /// Refuse `command` if it names a protected path or a Warden process's
    /// `/proc` entry (every mode: defence in depth where namespaces hide
    /// them).
    pub fn admit(&self, command: &str) -> Result<(), Hit> {
        let mentions = Mentions::of(command, Dialect::Bash);
        let mut protected = self.protected.clone();
        protected.extend(
            own_processes()
                .into_iter()
                .map(|pid| Protected::process(pid, "a process of Warden itself")),
        );
        protect::check(&mentions, &protected, &RealFilesystem, self.strictness())
    }

    /// The launcher for the next command, hiding the protected paths and
    /// Warden's processes as they are now; `None` when namespaces are not
    /// available here.
    pub fn launcher(&self) -> Option<Launcher> {
        let Launching::Program(program) = &self.launching else {
            return None;
        };
        match self.mode() {
            Mode::Namespaces => {}
            Mode::PolicyOnly { .. } | Mode::Off => return None,
        }
        let hidden = Hidden {
            paths: self
                .protected
                .iter()
                .filter(|entry| !matches!(entry.kind, ProtectedKind::Process(_)))
                .map(|entry| PathBuf::from(&entry.path))
                .collect(),
            processes: own_processes(),
        };
        Some(Launcher {
            program: program.clone(),
            args: warden_confine::launcher_args(&hidden),
        })
    }
}

/// This process, its threads and its commands' watchdog, as `/proc` names
/// them now.
fn own_processes() -> Vec<u32> {
    let mut pids = vec![std::process::id()];
    pids.extend(crate::runner::watchdog_pid());
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            if let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok())
                && !pids.contains(&tid)
            {
                pids.push(tid);
            }
        }
    }
    pids
}

/// The filesystem as this process sees it.
#[derive(Debug, Clone, Copy)]
pub struct RealFilesystem;

impl Filesystem for RealFilesystem {
    fn canonical(&self, path: &str) -> String {
        let path = Path::new(path);
        // The longest existing prefix resolved, the rest kept as written.
        let mut missing = Vec::new();
        let mut existing = path;
        loop {
            if let Ok(resolved) = std::fs::canonicalize(existing) {
                let mut full = resolved;
                for part in missing.iter().rev() {
                    full.push(part);
                }
                return full.to_string_lossy().into_owned();
            }
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    missing.push(name.to_os_string());
                    existing = parent;
                }
                _ => return path.to_string_lossy().into_owned(),
            }
        }
    }

    fn list(&self, dir: &str) -> Vec<String> {
        match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .flatten()
                .take(MAX_LISTED)
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect(),
            Err(_) => Vec::new(),
        }
    }
}
