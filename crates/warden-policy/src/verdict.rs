//! The public result types of classification and the per-command verdict that
//! command rules return.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

/// Whether a command is provably read-only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Non-mutating by construction (the command and every flag are known).
    ReadOnlyCertain,
    /// Read-only, proven by inspecting content (SQL text, Redis command, …).
    ReadOnlyConditional,
    /// Mutating, or not provably read-only. The default for anything unknown.
    WriteOrUnknown,
}

impl Intent {
    pub fn is_read_only(self) -> bool {
        match self {
            Intent::ReadOnlyCertain | Intent::ReadOnlyConditional => true,
            Intent::WriteOrUnknown => false,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Intent::ReadOnlyCertain => "read_only_certain",
            Intent::ReadOnlyConditional => "read_only_conditional",
            Intent::WriteOrUnknown => "write_or_unknown",
        }
    }
}

/// How much damage a command can do. Ordered: a compound command takes the
/// highest risk of its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    ReadOnly,
    /// Creates or touches something easily undone (mkdir, touch, a git tag).
    LowWrite,
    /// Changes state that matters but is recoverable (restart a service, edit a file).
    MediumWrite,
    /// Destroys data or availability (rm -r, reboot, zfs destroy, kubectl delete).
    HighWrite,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::ReadOnly => "read_only",
            Risk::LowWrite => "low_write",
            Risk::MediumWrite => "medium_write",
            Risk::HighWrite => "high_write",
        }
    }
}

impl Risk {
    /// Autonomy has a ceiling: at the autonomous level a high-risk write
    /// (recursive deletion, users, package removal, firewall flushes,
    /// destroying volumes, pools or guests) still needs a human; low and
    /// medium writes (restarts, reloads, starts and stops, an edit of one
    /// file) run unattended.
    pub fn needs_human(self) -> bool {
        self == Risk::HighWrite
    }
}

/// What the autonomous control level does with a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Autonomy {
    /// Catastrophic, or needs a terminal: refused at every level.
    Refused,
    /// Read-only and bounded: the read tool runs it.
    Read,
    /// A low or medium write the policy fully understands: runs unattended.
    Unattended,
    /// A high-risk write, or one the policy does not fully understand: a
    /// human approves it first.
    NeedsHuman,
}

impl Autonomy {
    pub fn as_str(self) -> &'static str {
        match self {
            Autonomy::Refused => "refused",
            Autonomy::Read => "read",
            Autonomy::Unattended => "unattended",
            Autonomy::NeedsHuman => "needs_human",
        }
    }
}

/// Why a command cannot run under the non-interactive (exit-bounded) rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InteractiveCategory {
    /// Asks for a terminal (`-t`, `-it`).
    TtyFlag,
    /// A pager or an editor.
    Pager,
    /// Never exits on its own (`-f`, `--watch`, `top`, `ping` without `-c`).
    UnboundedStream,
    /// A shell, REPL or client waiting for input.
    InteractiveRepl,
}

impl InteractiveCategory {
    pub fn as_str(self) -> &'static str {
        match self {
            InteractiveCategory::TtyFlag => "tty_flag",
            InteractiveCategory::Pager => "pager",
            InteractiveCategory::UnboundedStream => "unbounded_stream",
            InteractiveCategory::InteractiveRepl => "interactive_repl",
        }
    }
}

/// The non-interactive finding for a whole command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Interactive {
    pub category: InteractiveCategory,
    /// A bounded command to run instead, itself read-allowed.
    pub rewrite: Option<String>,
}

/// The verdict on one whole command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Classification {
    pub intent: Intent,
    pub risk: Risk,
    pub interactive: Option<Interactive>,
    /// Catastrophic commands are refused at every control level.
    pub catastrophic: bool,
    /// The line parsed the same under bash and sh, every program it runs is
    /// named literally and known to the tables, and nothing evaluates text
    /// the classifier cannot see (eval, scripts on stdin, arithmetic on
    /// variables, names from expansions). At the autonomous level only
    /// understood writes run without a human.
    pub understood: bool,
    /// Human-readable, naming the part of the command that decided.
    pub reason: String,
}

impl Classification {
    /// The read tool accepts a command iff it is read-only and bounded.
    pub fn read_allowed(&self) -> bool {
        self.intent.is_read_only() && self.interactive.is_none() && !self.catastrophic
    }
}

impl Classification {
    /// What the autonomous level does with this command.
    pub fn autonomy(&self) -> Autonomy {
        if self.catastrophic || self.interactive.is_some() {
            Autonomy::Refused
        } else if self.read_allowed() {
            Autonomy::Read
        } else if self.risk.needs_human() || !self.understood {
            Autonomy::NeedsHuman
        } else {
            Autonomy::Unattended
        }
    }

    /// The autonomous level's decision, in words.
    pub fn autonomy_text(&self) -> &'static str {
        match self.autonomy() {
            Autonomy::Refused if self.catastrophic => "refused at every level, even with approval",
            Autonomy::Refused => "refused: it needs a terminal or never ends",
            Autonomy::Read => "runs through the read tool, unattended",
            Autonomy::Unattended => {
                "runs unattended (a low or medium write the policy understands)"
            }
            Autonomy::NeedsHuman if self.risk.needs_human() => {
                "needs a human: a high-risk write is approved first, even at autonomous"
            }
            Autonomy::NeedsHuman => "needs a human: the policy does not fully understand it",
        }
    }
}

impl fmt::Display for Classification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.intent.as_str(), self.risk.as_str())?;
        if let Some(i) = &self.interactive {
            write!(f, ", interactive: {}", i.category.as_str())?;
        }
        if self.catastrophic {
            write!(f, ", CATASTROPHIC")?;
        }
        write!(f, ": {}", self.reason)
    }
}

pub type Reason = Cow<'static, str>;

/// What a per-command rule decides about one simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Read-only by construction.
    Read,
    /// Read-only, proven by inspecting content (SQL, Redis).
    Conditional(Reason),
    /// Mutates state.
    Write(Risk, Reason),
    /// Not provably read-only (unknown subcommand, uninspectable input, …).
    Unknown(Reason),
    /// Needs a terminal, pages, or never exits. `intent` says whether the
    /// command would also be read-only (an editor is not).
    Interactive(InteractiveVerdict),
    /// A wrapper that runs another command: classify that one.
    Wrap(Wrap),
    /// A wrapper that is a write by itself (`sudo`, `nohup`, `chroot`): the
    /// inner command is still classified, for catastrophic and interactive
    /// findings, but the whole command is write_or_unknown for `reason`.
    Guarded(Wrap, Reason),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InteractiveVerdict {
    pub category: InteractiveCategory,
    pub intent: Intent,
    /// A rewrite of this simple command alone (the engine splices it into the line).
    pub rewrite: Option<String>,
    pub reason: Reason,
    /// An endless producer (`yes`, `seq inf`) that stops when its reader
    /// does: piped into `head -n N` it is bounded. A follow or watch waits
    /// for new data instead, and stays unbounded whatever reads it.
    pub ends_with_reader: bool,
}

/// A wrapper around another command (`timeout 5 cmd`, `sh -c '…'`, `docker exec c cmd`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrap {
    pub inner: Inner,
    /// `timeout` bounds an unbounded inner command.
    pub bound: Bound,
    /// The wrapper itself asks for a terminal (`docker exec -it`).
    pub interactive: Option<InteractiveVerdict>,
    /// Names the wrapper in reasons ("docker exec", "ssh").
    pub via: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The wrapper adds no time limit.
    None,
    /// The wrapper kills the inner command after a time limit.
    TimeLimited,
}

/// The command a wrapper runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inner {
    /// `args[start..]` form the inner command (name first).
    Argv { start: usize },
    /// Like `Argv`, and the wrapper appends unknown arguments (`xargs`).
    ArgvAppendingDynamic { start: usize },
    /// Like `Argv`, and the wrapper replaces `marker` in the arguments with
    /// unknown text (`xargs -I {}`): those arguments are dynamic.
    ArgvReplacing { start: usize, marker: String },
    /// Each range of arguments is a command, run once per file found, with
    /// `{}` replaced by the file's name (`find DIR -exec CMD {} ;`). The
    /// names are known to be plain paths when `paths` says so.
    EachFile {
        ranges: Vec<std::ops::Range<usize>>,
        paths: bool,
    },
    /// A shell script to parse and classify (`sh -c '…'`, `ssh host '…'`).
    Script(String),
    /// The wrapper runs a script we cannot see (a file, stdin, an expansion).
    Opaque(Reason),
    /// The wrapper was given no command: it starts an interactive shell.
    Shell,
}

impl Verdict {
    pub fn write(risk: Risk, reason: impl Into<Reason>) -> Verdict {
        Verdict::Write(risk, reason.into())
    }

    pub fn unknown(reason: impl Into<Reason>) -> Verdict {
        Verdict::Unknown(reason.into())
    }

    pub fn conditional(reason: impl Into<Reason>) -> Verdict {
        Verdict::Conditional(reason.into())
    }

    /// A read-only command that runs forever or needs a terminal.
    pub fn interactive(category: InteractiveCategory, reason: impl Into<Reason>) -> Verdict {
        Verdict::Interactive(InteractiveVerdict {
            ends_with_reader: false,
            category,
            intent: Intent::ReadOnlyCertain,
            rewrite: None,
            reason: reason.into(),
        })
    }

    /// A read-only command that prints forever unless its reader stops it
    /// (`yes`, `seq inf`): bounded when piped into `head -n N`.
    pub fn generator(reason: impl Into<Reason>) -> Verdict {
        Verdict::Interactive(InteractiveVerdict {
            ends_with_reader: true,
            category: InteractiveCategory::UnboundedStream,
            intent: Intent::ReadOnlyCertain,
            rewrite: None,
            reason: reason.into(),
        })
    }

    /// A read-only command that never exits, with a bounded replacement.
    pub fn unbounded_with_rewrite(rewrite: String, reason: impl Into<Reason>) -> Verdict {
        Verdict::Interactive(InteractiveVerdict {
            ends_with_reader: false,
            category: InteractiveCategory::UnboundedStream,
            intent: Intent::ReadOnlyCertain,
            rewrite: Some(rewrite),
            reason: reason.into(),
        })
    }

    /// A read-only command that pages (a manual page), with a bounded
    /// replacement that prints instead (`git log -h` for `git log --help`).
    pub fn pager_with_rewrite(rewrite: String, reason: impl Into<Reason>) -> Verdict {
        Verdict::Interactive(InteractiveVerdict {
            ends_with_reader: false,
            category: InteractiveCategory::Pager,
            intent: Intent::ReadOnlyCertain,
            rewrite: Some(rewrite),
            reason: reason.into(),
        })
    }

    /// An interactive program that can also change things (editors, shells, REPLs).
    pub fn interactive_writer(category: InteractiveCategory, reason: impl Into<Reason>) -> Verdict {
        Verdict::Interactive(InteractiveVerdict {
            ends_with_reader: false,
            category,
            intent: Intent::WriteOrUnknown,
            rewrite: None,
            reason: reason.into(),
        })
    }

    /// Look through a wrapper to `args[start..]`.
    pub fn wrap_argv(via: &'static str, start: usize) -> Verdict {
        Verdict::Wrap(Wrap {
            inner: Inner::Argv { start },
            bound: Bound::None,
            interactive: None,
            via,
        })
    }

    /// Look through a wrapper to a script given as text.
    pub fn wrap_script(via: &'static str, script: String) -> Verdict {
        Verdict::Wrap(Wrap {
            inner: Inner::Script(script),
            bound: Bound::None,
            interactive: None,
            via,
        })
    }
}
