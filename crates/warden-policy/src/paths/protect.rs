//! Whether a command names one of Warden's protected paths (issue 17 §1):
//! its data directory, configuration that holds a secret, an agent's state,
//! and its own processes' entries in `/proc`.
//!
//! Pure: the filesystem is read through [`Filesystem`] (symbolic links,
//! directory listings for globs), so the rules are table-tested with an
//! in-memory tree. Where namespaces hide the paths this is defence in
//! depth; where they cannot ([`Strictness::PolicyOnly`]) it is the only
//! guard, and it also refuses what it cannot see through: recursive reads
//! above a protected path and paths computed at run time.

use super::{Mention, Mentions, Pattern, Tok};

/// What a protected entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtectedKind {
    /// A directory: it and everything below it.
    Tree,
    /// One file.
    File,
    /// A Warden process (or one of its threads): `/proc/PID` below it,
    /// except the harmless status files `ps` and `top` read.
    Process(u32),
}

/// One protected path, canonical (absolute, symbolic links resolved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protected {
    pub path: String,
    pub kind: ProtectedKind,
    /// What it is, for the refusal ("Warden's data directory").
    pub label: String,
}

impl Protected {
    pub fn tree(path: impl Into<String>, label: impl Into<String>) -> Protected {
        Protected {
            path: path.into(),
            kind: ProtectedKind::Tree,
            label: label.into(),
        }
    }

    pub fn file(path: impl Into<String>, label: impl Into<String>) -> Protected {
        Protected {
            path: path.into(),
            kind: ProtectedKind::File,
            label: label.into(),
        }
    }

    pub fn process(pid: u32, label: impl Into<String>) -> Protected {
        Protected {
            path: format!("/proc/{pid}"),
            kind: ProtectedKind::Process(pid),
            label: label.into(),
        }
    }
}

/// Files of `/proc/PID` that say what a process is, not what it holds.
const HARMLESS_PROCESS_FILES: &[&str] = &[
    "stat",
    "status",
    "statm",
    "comm",
    "cgroup",
    "oom_score",
    "oom_score_adj",
    "oom_adj",
    "sched",
    "schedstat",
    "wchan",
    "limits",
    "io",
    "task",
];

/// How the filesystem looks to the check.
pub trait Filesystem {
    /// `path` (absolute, normalized) with the symbolic links of its existing
    /// part resolved; the missing rest kept as written.
    fn canonical(&self, path: &str) -> String;
    /// The names in directory `dir`; empty when it is not one.
    fn list(&self, dir: &str) -> Vec<String>;
}

/// How much the check must catch by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// Protected paths are hidden by a mount namespace: refuse what names
    /// them, as defence in depth.
    Namespaces,
    /// Nothing else hides them: also refuse recursive reads above a
    /// protected path and paths computed at run time.
    PolicyOnly,
}

/// Which rule refused a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// It names a protected path (after `..`, symbolic links and globs).
    ProtectedPath,
    /// It names a Warden process's `/proc` entry.
    ProcessEntry,
    /// It reads recursively a directory that holds a protected path.
    RecursiveAbove,
    /// A path computed at run time cannot be checked (policy-only mode).
    ComputedPath,
    /// It reaches a filesystem through another process (`/proc/N/root`,
    /// `/proc/N/cwd`, `/proc/N/fd`), where no path can be checked.
    ProcessHandle,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::ProtectedPath => "protected-path",
            Rule::ProcessEntry => "protected-process",
            Rule::RecursiveAbove => "protected-path-recursive",
            Rule::ComputedPath => "computed-path",
            Rule::ProcessHandle => "process-handle",
        }
    }
}

/// Why a command was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub rule: Rule,
    /// The path as the command names it (normalized).
    pub named: String,
    /// What it reaches, when a protected entry ("Warden's data directory
    /// (/var/lib/warden)").
    pub protected: Option<String>,
}

impl std::fmt::Display for Hit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let named = &self.named;
        match (self.rule, &self.protected) {
            (Rule::ComputedPath, _) => write!(
                f,
                "rule {}: `{named}` is computed when the command runs, and commands cannot be confined here; write the path out",
                self.rule.as_str()
            ),
            (Rule::ProcessHandle, _) => write!(
                f,
                "rule {}: `{named}` reaches files through another process, where protected paths cannot be checked",
                self.rule.as_str()
            ),
            (Rule::RecursiveAbove, Some(what)) => write!(
                f,
                "rule {}: reading `{named}` recursively would read {what}, which commands cannot read",
                self.rule.as_str()
            ),
            (_, Some(what)) => write!(
                f,
                "rule {}: `{named}` is {what}, which commands cannot read or change",
                self.rule.as_str()
            ),
            (_, None) => write!(f, "rule {}: `{named}` is protected", self.rule.as_str()),
        }
    }
}

/// Most relative bases tried for one command (`/` and the absolute
/// directories it names, as `cd DIR && cat file` would use).
const MAX_BASES: usize = 16;
/// Most paths one glob is expanded to.
const MAX_EXPANSIONS: usize = 512;

/// Refuse `mentions` if one reaches a `protected` entry.
pub fn check(
    mentions: &Mentions,
    protected: &[Protected],
    fs: &dyn Filesystem,
    strictness: Strictness,
) -> Result<(), Hit> {
    if protected.is_empty() {
        return Ok(());
    }
    // Commands start in `/`; a relative path may also be read from a
    // directory the command changes into.
    let mut bases: Vec<Pattern> = vec![Pattern::literal_path("/")];
    for dir in mentions.dirs.iter().take(MAX_BASES) {
        if dir.is_wholly_computed() {
            if strictness == Strictness::PolicyOnly {
                return Err(Hit {
                    rule: Rule::ComputedPath,
                    named: text_of(dir),
                    protected: None,
                });
            }
            continue;
        }
        bases.push(dir.rooted("/").normalized());
    }
    for mention in &mentions.paths {
        if mention.pattern.is_wholly_computed() {
            if strictness == Strictness::PolicyOnly {
                return Err(Hit {
                    rule: Rule::ComputedPath,
                    named: text_of(&mention.pattern),
                    protected: None,
                });
            }
            continue;
        }
        let relative = !mention.pattern.starts_with_slash();
        for base in bases.iter().take(if relative { MAX_BASES + 1 } else { 1 }) {
            let rooted = mention.pattern.rooted_at(base).normalized();
            check_one(mention, &rooted, protected, fs, strictness)?;
        }
    }
    Ok(())
}

fn check_one(
    mention: &Mention,
    rooted: &Pattern,
    protected: &[Protected],
    fs: &dyn Filesystem,
    strictness: Strictness,
) -> Result<(), Hit> {
    let named = text_of(rooted);
    let through = through_process_root(rooted);
    let rooted = through.as_ref().unwrap_or(rooted);
    if through.is_none() && reaches_through_process(rooted) {
        return Err(Hit {
            rule: Rule::ProcessHandle,
            named,
            protected: None,
        });
    }
    // As written, then as the filesystem resolves it.
    let mut candidates = vec![rooted.clone()];
    if let Some(literal) = rooted.literal() {
        if !names_the_command_itself(&literal) {
            candidates.push(Pattern::literal_path(&fs.canonical(&literal)));
        }
    } else if !rooted.has_any() {
        for path in expand(rooted, fs) {
            candidates.push(Pattern::literal_path(&fs.canonical(&path)));
        }
    }
    for candidate in &candidates {
        for entry in protected {
            if let Some(rule) = reaches(candidate, entry) {
                return Err(Hit {
                    rule,
                    named,
                    protected: Some(format!("{} ({})", entry.label, entry.path)),
                });
            }
            if strictness == Strictness::PolicyOnly
                && mention.recursive
                && holds(candidate, &entry.path)
            {
                return Err(Hit {
                    rule: Rule::RecursiveAbove,
                    named,
                    protected: Some(format!("{} ({})", entry.label, entry.path)),
                });
            }
        }
    }
    Ok(())
}

/// The rule by which `pattern` reaches `entry`, if it does.
fn reaches(pattern: &Pattern, entry: &Protected) -> Option<Rule> {
    let rests = pattern.rests_after(&entry.path);
    match &entry.kind {
        ProtectedKind::Tree => rests
            .iter()
            .any(|rest| rest.toks.is_empty() || rest.toks.first() == Some(&Tok::Lit('/')))
            .then_some(Rule::ProtectedPath),
        ProtectedKind::File => rests
            .iter()
            .any(|rest| rest.toks.is_empty())
            .then_some(Rule::ProtectedPath),
        ProtectedKind::Process(_) => rests
            .iter()
            .any(|rest| match rest.toks.split_first() {
                // `/proc/PID` itself: `ls -d`, `test -e`.
                None => false,
                Some((Tok::Lit('/'), inner)) => !is_harmless_process_file(inner),
                Some(_) => false,
            })
            .then_some(Rule::ProcessEntry),
    }
}

/// `/stat`, `/status`, …: one harmless file name (a thread's `task/TID`
/// directory is itself protected as a process).
fn is_harmless_process_file(inner: &[Tok]) -> bool {
    let Some(name) = Pattern::from_toks(inner).literal() else {
        return false;
    };
    let name = name.trim_end_matches('/');
    HARMLESS_PROCESS_FILES.contains(&name)
}

/// Whether `pattern` names a directory that `path` is below (a proper
/// ancestor, `/` included).
fn holds(pattern: &Pattern, path: &str) -> bool {
    let ancestors = path
        .char_indices()
        .filter(|(_, c)| *c == '/')
        .map(|(at, _)| if at == 0 { "/" } else { &path[..at] });
    ancestors
        .into_iter()
        .any(|ancestor| pattern.matches(ancestor) || pattern.matches(&format!("{ancestor}/")))
}

/// `/proc/self/…` and `/proc/thread-self/…` are the command's own: they are
/// not resolved from Warden's point of view.
fn names_the_command_itself(path: &str) -> bool {
    let rest = path.strip_prefix("/proc/").unwrap_or("");
    let first = rest.split('/').next().unwrap_or("");
    matches!(first, "self" | "thread-self")
}

/// `/proc/N/root/REST` is `REST` as process N sees the filesystem: checked
/// as `/REST`.
fn through_process_root(pattern: &Pattern) -> Option<Pattern> {
    let components = proc_components(pattern)?;
    let (_, second, rest) = components;
    if second != [Tok::Lit('r'), Tok::Lit('o'), Tok::Lit('o'), Tok::Lit('t')] {
        return None;
    }
    let mut toks = vec![Tok::Lit('/')];
    toks.extend(rest.iter().cloned());
    Some(Pattern::from_toks(&toks).normalized())
}

/// `/proc/N/cwd/…`, `/proc/N/fd/…`, `/proc/N/map_files/…`: a path inside
/// another process's view.
fn reaches_through_process(pattern: &Pattern) -> bool {
    let Some((first, second, rest)) = proc_components(pattern) else {
        return false;
    };
    let own = matches!(
        Pattern::from_toks(first).literal().as_deref(),
        Some("self" | "thread-self")
    );
    let handle = ["cwd", "fd", "map_files"]
        .iter()
        .any(|name| Pattern::from_toks(second).matches(name));
    handle && !own && !rest.is_empty()
}

/// `/proc/FIRST/SECOND/REST…` split (REST without its leading `/`).
fn proc_components(pattern: &Pattern) -> Option<(&[Tok], &[Tok], &[Tok])> {
    let prefix: Vec<Tok> = "/proc/".chars().map(Tok::Lit).collect();
    let after = pattern.toks.strip_prefix(prefix.as_slice())?;
    let slash = after.iter().position(|t| *t == Tok::Lit('/'))?;
    let (first, after) = (&after[..slash], &after[slash + 1..]);
    let (second, rest) = match after.iter().position(|t| *t == Tok::Lit('/')) {
        Some(at) => (&after[..at], &after[at + 1..]),
        None => (after, &after[after.len()..]),
    };
    Some((first, second, rest))
}

/// The paths a glob (without computed text) matches on `fs`, at most
/// [`MAX_EXPANSIONS`].
fn expand(pattern: &Pattern, fs: &dyn Filesystem) -> Vec<String> {
    let mut found = vec![String::new()];
    let components: Vec<&[Tok]> = pattern
        .toks
        .split(|t| *t == Tok::Lit('/'))
        .filter(|c| !c.is_empty())
        .collect();
    for component in components {
        let piece = Pattern::from_toks(component);
        let mut next = Vec::new();
        for dir in &found {
            match piece.literal() {
                Some(name) => next.push(format!("{dir}/{name}")),
                None => {
                    let listed = if dir.is_empty() { "/" } else { dir.as_str() };
                    for name in fs.list(listed) {
                        if piece.matches(&name) && (name != "." && name != "..") {
                            next.push(format!("{dir}/{name}"));
                        }
                    }
                }
            }
            if next.len() >= MAX_EXPANSIONS {
                break;
            }
        }
        next.truncate(MAX_EXPANSIONS);
        found = next;
        if found.is_empty() {
            break;
        }
    }
    found
}

/// Text for messages: wildcards as written.
fn text_of(pattern: &Pattern) -> String {
    pattern
        .toks
        .iter()
        .map(|t| match t {
            Tok::Lit(c) => c.to_string(),
            Tok::Star => "*".to_string(),
            Tok::One => "?".to_string(),
            Tok::Class { .. } => "[…]".to_string(),
            Tok::Any => "$(…)".to_string(),
        })
        .collect()
}
