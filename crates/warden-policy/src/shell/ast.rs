//! The syntax tree of a shell command line, as far as classification needs it.
//! Everything borrows from the source text; quote removal allocates only when
//! a word actually has quotes or escapes.

use std::borrow::Cow;
use std::ops::Range;

use smallvec::SmallVec;

use crate::invocation::ArgShape;

/// A list of and-or lists, separated by `;`, `&` or newlines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Script<'a> {
    /// Inline: most lines are one and-or list.
    pub items: SmallVec<[AndOr<'a>; 1]>,
}

/// `pipeline && pipeline || pipeline …`, optionally sent to the background.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AndOr<'a> {
    /// Inline: most and-or lists are one pipeline.
    pub pipelines: SmallVec<[Pipeline<'a>; 1]>,
    pub background: Background,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Background {
    Foreground,
    /// Ended by `&`: runs detached, not bounded by the caller's wait.
    Background,
}

/// `[!] command | command …`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pipeline<'a> {
    /// Inline: most pipelines are one or two commands.
    pub commands: SmallVec<[Command<'a>; 2]>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command<'a> {
    Simple(SimpleCommand<'a>),
    /// `( … )`, `{ …; }`, `if`, `for`, `while`, `until`, `case`: the bodies,
    /// the words they expand (loop lists, case subjects and patterns), and
    /// redirects on the whole construct.
    Compound(Compound<'a>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compound<'a> {
    pub kind: CompoundKind,
    /// The variable a `for` or `select` loop sets.
    pub var: Option<&'a str>,
    pub bodies: Vec<Script<'a>>,
    pub words: Vec<Word<'a>>,
    pub redirects: Vec<Redirect<'a>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompoundKind {
    Subshell,
    Group,
    If,
    For,
    While,
    Until,
    Case,
    /// `(( … ))` or `for (( … ))`: arithmetic in bash, nested subshells in sh.
    Arithmetic,
    /// `select NAME in …`: a menu that reads choices from standard input.
    Select,
}

impl CompoundKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CompoundKind::Subshell => "( … )",
            CompoundKind::Group => "{ …; }",
            CompoundKind::If => "if",
            CompoundKind::For => "for",
            CompoundKind::While => "while",
            CompoundKind::Until => "until",
            CompoundKind::Case => "case",
            CompoundKind::Arithmetic => "(( … ))",
            CompoundKind::Select => "select",
        }
    }
}

/// `NAME=value … word … redirect …`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand<'a> {
    pub assignments: Vec<Assignment<'a>>,
    pub words: Vec<Word<'a>>,
    pub redirects: Vec<Redirect<'a>>,
    /// Byte range of the whole command in the source line.
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment<'a> {
    pub name: &'a str,
    pub value: Word<'a>,
}

/// One shell word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<'a> {
    /// As written.
    pub raw: &'a str,
    /// After quote removal; expansions keep their source spelling.
    pub text: Cow<'a, str>,
    pub shape: ArgShape,
    /// Command and process substitutions inside the word, in order.
    pub substitutions: Vec<Substitution<'a>>,
    /// Why expanding the word evaluates text the classifier cannot see
    /// (arithmetic on variables, array subscripts, indirect or prompt
    /// expansion), if it does.
    pub evaluates: Option<&'static str>,
    /// Unquoted brace expansion (`{a,b}`, `{1..3}`): bash makes several
    /// words of it, sh keeps it as written.
    pub braces: bool,
}

/// `$(…)`, `` `…` ``, `<(…)` or `>(…)`: a script the shell runs while expanding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Substitution<'a> {
    /// Boxed: a script is large and most words hold none.
    Parsed(Box<Script<'a>>),
    /// Backquoted text with escapes to undo before it can be parsed.
    Unparsed(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect<'a> {
    /// An explicit file descriptor (`2>`), or `None` for the default.
    pub fd: Option<u32>,
    pub op: RedirectOp,
    /// The file, descriptor or heredoc delimiter.
    pub target: Word<'a>,
    /// For heredocs, the index of its body in [`Parsed::heredocs`].
    pub heredoc: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOp {
    /// `<`
    Input,
    /// `>`
    Output,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`: opens for reading and writing (creates the file).
    ReadWrite,
    /// `<&`
    DupInput,
    /// `>&` (a number or `-` duplicates or closes; a file name writes)
    DupOutput,
    /// `&>`
    OutputAll,
    /// `&>>`
    AppendAll,
    /// `<<` and `<<-`
    Heredoc,
    /// `<<<`
    Herestring,
}

/// A heredoc body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heredoc<'a> {
    pub body: &'a str,
    /// Substitutions in an unquoted-delimiter body (they run).
    pub substitutions: Vec<Substitution<'a>>,
    /// Why expanding the body evaluates hidden text, if it does.
    pub evaluates: Option<&'static str>,
}

/// Which shell reads the line. Bash runs commands on the local host; `/bin/sh`
/// (dash, busybox ash) in containers and on other hosts. They differ on
/// `[[`, `((`, `$'…'`, `$"…"`, `&>`, `|&` and brace expansion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Bash,
    Posix,
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<'a> {
    pub script: Script<'a>,
    pub heredocs: Vec<Heredoc<'a>>,
}
