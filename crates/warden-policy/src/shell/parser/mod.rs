//! A conservative recursive-descent parser for the shell language as operators
//! write it. It parses what bash would run; anything it does not understand is
//! a [`ParseError`], which the classifier treats as write_or_unknown.

use std::borrow::Cow;
use std::fmt;

use smallvec::SmallVec;

mod compound;

use super::ast::*;
use super::words::{WordScanner, is_name};

/// Why a command line could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: Cow<'static, str>,
    /// Byte offset in the command line.
    pub offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

pub type ParseResult<T> = Result<T, ParseError>;

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 48;

/// Parse one command line (possibly several lines, with heredocs) as bash
/// reads it.
pub fn parse(src: &str) -> ParseResult<Parsed<'_>> {
    parse_as(src, Dialect::Bash)
}

/// Parse one command line as `dialect` reads it.
pub fn parse_as(src: &str, dialect: Dialect) -> ParseResult<Parsed<'_>> {
    let mut parser = Parser::new(src, dialect);
    // Built where it is returned: the tree is large to move.
    let mut parsed = Parsed {
        script: Script::default(),
        heredocs: Vec::new(),
    };
    parser.script_into(&[], &mut parsed.script)?;
    parser.skip_blanks();
    if parser.pos < src.len() {
        return Err(parser.error_here("unexpected token"));
    }
    if let Some(pending) = parser.pending.first() {
        return Err(ParseError {
            message: format!("heredoc `{}` has no body", pending.delimiter).into(),
            offset: src.len(),
        });
    }
    parsed.heredocs = parser.heredocs;
    Ok(parsed)
}

struct PendingHeredoc {
    index: usize,
    delimiter: String,
    strip_tabs: bool,
    expands: bool,
}

pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) dialect: Dialect,
    pub(super) pos: usize,
    pub(super) depth: usize,
    heredocs: Vec<Heredoc<'a>>,
    pending: Vec<PendingHeredoc>,
}

/// Bytes that end a bare word: delimiters, quotes, escapes, expansions.
const BARE_WORD_END: [bool; 256] = {
    let mut table = [false; 256];
    let bytes = b" \t\n;&|()<>\"'\\$`";
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Bytes that end a word.
pub(super) fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, dialect: Dialect) -> Self {
        Parser {
            src,
            dialect,
            pos: 0,
            depth: 0,
            heredocs: Vec::new(),
            pending: Vec::new(),
        }
    }

    pub(super) fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.bytes().get(self.pos + ahead).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        self.src.as_bytes()[self.pos..].starts_with(s.as_bytes())
    }

    pub(super) fn error_here(&self, message: &'static str) -> ParseError {
        ParseError {
            message: message.into(),
            offset: self.pos,
        }
    }

    pub(super) fn enter(&mut self) -> ParseResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here("nesting too deep"));
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skip spaces, tabs, line continuations and comments (not newlines).
    pub(super) fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                Some(b'#') => {
                    while let Some(b) = self.peek() {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Consume one newline, then any heredoc bodies that were waiting for it.
    fn newline(&mut self) -> ParseResult<()> {
        self.pos += 1;
        let pending = std::mem::take(&mut self.pending);
        for heredoc in pending {
            self.read_heredoc_body(heredoc)?;
        }
        Ok(())
    }

    fn skip_blanks_and_newlines(&mut self) -> ParseResult<()> {
        loop {
            self.skip_blanks();
            if self.peek() == Some(b'\n') {
                self.newline()?;
            } else {
                return Ok(());
            }
        }
    }

    fn read_heredoc_body(&mut self, heredoc: PendingHeredoc) -> ParseResult<()> {
        let start = self.pos;
        let mut end = self.src.len();
        let mut resume = self.src.len();
        let mut line_start = start;
        while line_start < self.src.len() {
            let line_end = self.src[line_start..]
                .find('\n')
                .map_or(self.src.len(), |i| line_start + i);
            let mut line = &self.src[line_start..line_end];
            if heredoc.strip_tabs {
                line = line.trim_start_matches('\t');
            }
            if line == heredoc.delimiter {
                end = line_start;
                resume = (line_end + 1).min(self.src.len());
                break;
            }
            line_start = line_end + 1;
        }
        // Like bash, a body that reaches the end of input without its
        // delimiter still counts (bash only warns).
        let body = &self.src[start..end];
        let mut substitutions = Vec::new();
        let mut evaluates = None;
        if heredoc.expands {
            let mut scanner = WordScanner::new(self, start);
            scanner.scan_expansions_until(end, &mut substitutions)?;
            evaluates = scanner.evaluation();
        }
        self.pos = resume;
        if let Some(slot) = self.heredocs.get_mut(heredoc.index) {
            *slot = Heredoc {
                body,
                substitutions,
                evaluates,
            };
        }
        Ok(())
    }

    /// The next token if it is an unquoted literal word (for reserved words).
    fn peek_bare_word(&self) -> Option<&'a str> {
        let bytes = self.bytes();
        let mut end = self.pos;
        while let Some(&b) = bytes.get(end) {
            if BARE_WORD_END[usize::from(b)] {
                break;
            }
            end += 1;
        }
        match bytes.get(end) {
            None => {}
            Some(&b) if is_delimiter(b) => {}
            Some(_) => return None,
        }
        (end > self.pos).then(|| &self.src[self.pos..end])
    }

    fn at_reserved(&self, word: &str) -> bool {
        self.peek_bare_word() == Some(word)
    }

    fn expect_reserved(&mut self, word: &'static str, message: &'static str) -> ParseResult<()> {
        self.skip_blanks_and_newlines()?;
        if self.at_reserved(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.error_here(message))
        }
    }

    /// Is the parser looking at one of `closers` (operators or reserved words)?
    fn at_closer(&self, closers: &[&str]) -> bool {
        closers.iter().any(|closer| match *closer {
            ")" => self.peek() == Some(b')'),
            ";;" | ";&" | ";;&" => self.starts_with(closer),
            word => self.at_reserved(word),
        })
    }

    /// A list of and-or lists up to end of input or one of `closers`.
    /// The list inside a compound command: bash and sh refuse an empty
    /// one (`if then fi`, `while do done`, `{ }`).
    fn compound_list(&mut self, closers: &[&str]) -> ParseResult<Script<'a>> {
        let list = self.script(closers)?;
        if list.items.is_empty() {
            return Err(self.error_here("an empty command list"));
        }
        Ok(list)
    }

    pub(super) fn script(&mut self, closers: &[&str]) -> ParseResult<Script<'a>> {
        let mut script = Script::default();
        self.script_into(closers, &mut script)?;
        Ok(script)
    }

    /// [`Parser::script`] into `script` (which starts empty).
    fn script_into(&mut self, closers: &[&str], script: &mut Script<'a>) -> ParseResult<()> {
        self.enter()?;
        loop {
            self.skip_blanks_and_newlines()?;
            if self.pos >= self.src.len() || self.at_closer(closers) {
                break;
            }
            // Built in place: the inline lists are not moved again.
            script.items.push(AndOr {
                pipelines: SmallVec::new(),
                background: Background::Foreground,
            });
            let Some(item) = script.items.last_mut() else {
                break;
            };
            self.and_or(&mut item.pipelines)?;
            self.skip_blanks();
            item.background = match self.peek() {
                Some(b';') if self.peek_at(1) != Some(b';') && self.peek_at(1) != Some(b'&') => {
                    self.pos += 1;
                    Background::Foreground
                }
                Some(b'&') => {
                    self.pos += 1;
                    Background::Background
                }
                Some(b'\n') => {
                    self.newline()?;
                    Background::Foreground
                }
                None => Background::Foreground,
                Some(_) if self.at_closer(closers) => Background::Foreground,
                Some(_) => return Err(self.error_here("unexpected token")),
            };
        }
        self.leave();
        Ok(())
    }

    fn and_or(&mut self, pipelines: &mut SmallVec<[Pipeline<'a>; 1]>) -> ParseResult<()> {
        loop {
            pipelines.push(Pipeline {
                commands: SmallVec::new(),
            });
            if let Some(pipeline) = pipelines.last_mut() {
                self.pipeline(&mut pipeline.commands)?;
            }
            self.skip_blanks();
            if self.starts_with("&&") || self.starts_with("||") {
                self.pos += 2;
                self.skip_blanks_and_newlines()?;
            } else {
                return Ok(());
            }
        }
    }

    fn pipeline(&mut self, commands: &mut SmallVec<[Command<'a>; 2]>) -> ParseResult<()> {
        self.skip_blanks();
        if self.at_reserved("!") {
            self.pos += 1;
            self.skip_blanks();
        }
        commands.push(self.command()?);
        loop {
            self.skip_blanks();
            if self.peek() == Some(b'|') && self.peek_at(1) != Some(b'|') {
                if self.peek_at(1) == Some(b'&') && self.dialect == Dialect::Posix {
                    return Err(self.error_here("`|&` is bash only"));
                }
                self.pos += if self.peek_at(1) == Some(b'&') { 2 } else { 1 };
                self.skip_blanks_and_newlines()?;
                commands.push(self.command()?);
            } else {
                return Ok(());
            }
        }
    }

    fn command(&mut self) -> ParseResult<Command<'a>> {
        self.skip_blanks();
        if self.peek() == Some(b'(') {
            if self.peek_at(1) == Some(b'(') && self.dialect == Dialect::Bash {
                return self.arithmetic_command();
            }
            self.pos += 1;
            let body = self.compound_list(&[")"])?;
            if self.peek() != Some(b')') {
                return Err(self.error_here("unterminated `(`"));
            }
            self.pos += 1;
            return self.compound(CompoundKind::Subshell, vec![body], Vec::new());
        }
        match self.peek_bare_word() {
            Some("{") => {
                self.pos += 1;
                let body = self.compound_list(&["}"])?;
                self.expect_reserved("}", "unterminated `{`")?;
                self.compound(CompoundKind::Group, vec![body], Vec::new())
            }
            Some("if") => self.if_command(),
            Some("for" | "select") => self.for_command(),
            Some("while") => self.loop_command(CompoundKind::While, "while"),
            Some("until") => self.loop_command(CompoundKind::Until, "until"),
            Some("case") => self.case_command(),
            Some("[[") if self.dialect == Dialect::Bash => self.conditional_command(),
            Some("function") => Err(self.error_here("function definitions are not accepted")),
            Some("coproc") => Err(self.error_here("coproc is not accepted")),
            Some("then" | "elif" | "else" | "fi" | "do" | "done" | "esac" | "}" | "in") => {
                Err(self.error_here("unexpected reserved word"))
            }
            Some("]]") if self.dialect == Dialect::Bash => {
                Err(self.error_here("unexpected reserved word"))
            }
            _ => self.simple_command().map(Command::Simple),
        }
    }

    fn simple_command(&mut self) -> ParseResult<SimpleCommand<'a>> {
        let start = self.pos;
        let mut end = start;
        let mut assignments = Vec::new();
        // One allocation for most commands, none regrown.
        let mut words = Vec::with_capacity(8);
        let mut redirects = Vec::new();
        loop {
            self.skip_blanks();
            if let Some(r) = self.redirect()? {
                redirects.push(r);
                end = self.pos;
                continue;
            }
            match self.peek() {
                None => break,
                Some(b'<' | b'>') if self.peek_at(1) == Some(b'(') => {
                    words.push(self.word()?);
                }
                Some(b) if is_delimiter(b) => break,
                Some(_) => {
                    let word = self.word()?;
                    // Only words before the command name assign.
                    match words.is_empty().then(|| split_assignment(&word)).flatten() {
                        Some(assignment) => assignments.push(assignment),
                        None => words.push(word),
                    }
                }
            }
            end = self.pos;
        }
        if words.is_empty() && assignments.is_empty() && redirects.is_empty() {
            return Err(self.error_here("expected a command"));
        }
        if words.len() == 1 && self.peek() == Some(b'(') {
            return Err(self.error_here("function definitions are not accepted"));
        }
        Ok(SimpleCommand {
            assignments,
            words,
            redirects,
            span: start..end,
        })
    }

    /// A redirect at the current position, if there is one.
    #[inline]
    fn redirect(&mut self) -> ParseResult<Option<Redirect<'a>>> {
        // Every redirect starts with a descriptor number, `<`, `>` or `&`.
        if !matches!(self.peek(), Some(b'0'..=b'9' | b'<' | b'>' | b'&')) {
            return Ok(None);
        }
        self.redirect_at()
    }

    fn redirect_at(&mut self) -> ParseResult<Option<Redirect<'a>>> {
        let bytes = self.bytes();
        let mut at = self.pos;
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let fd = if at > self.pos {
            match bytes.get(at) {
                Some(b'<' | b'>') => self.src[self.pos..at].parse().ok(),
                _ => return Ok(None),
            }
        } else {
            None
        };
        let rest = &bytes[at..];
        let (op, len) = match rest {
            [b'&', b'>', b'>', ..] if fd.is_none() && self.dialect == Dialect::Bash => {
                (RedirectOp::AppendAll, 3)
            }
            [b'&', b'>', ..] if fd.is_none() && self.dialect == Dialect::Bash => {
                (RedirectOp::OutputAll, 2)
            }
            [b'<', b'<', b'<', ..] => (RedirectOp::Herestring, 3),
            [b'<', b'<', b'-', ..] => (RedirectOp::Heredoc, 3),
            [b'<', b'<', ..] => (RedirectOp::Heredoc, 2),
            [b'<', b'>', ..] => (RedirectOp::ReadWrite, 2),
            [b'<', b'&', ..] => (RedirectOp::DupInput, 2),
            [b'<', b'(', ..] => return Ok(None),
            [b'<', ..] => (RedirectOp::Input, 1),
            [b'>', b'>', ..] => (RedirectOp::Append, 2),
            [b'>', b'|', ..] => (RedirectOp::Clobber, 2),
            [b'>', b'&', ..] => (RedirectOp::DupOutput, 2),
            [b'>', b'(', ..] => return Ok(None),
            [b'>', ..] => (RedirectOp::Output, 1),
            _ => return Ok(None),
        };
        let strip_tabs = rest.starts_with(b"<<-");
        self.pos = at + len;
        self.skip_blanks();
        match self.peek() {
            Some(b)
                if !is_delimiter(b)
                    || (b == b'<' || b == b'>') && self.peek_at(1) == Some(b'(') => {}
            _ => return Err(self.error_here("redirect without a target")),
        }
        let target = self.word()?;
        let heredoc = if op == RedirectOp::Heredoc {
            let index = self.heredocs.len();
            self.heredocs.push(Heredoc {
                body: "",
                substitutions: Vec::new(),
                evaluates: None,
            });
            self.pending.push(PendingHeredoc {
                index,
                delimiter: target.text.to_string(),
                strip_tabs,
                expands: !target.raw.contains(['\'', '"', '\\']),
            });
            Some(index)
        } else {
            None
        };
        Ok(Some(Redirect {
            fd,
            op,
            target,
            heredoc,
        }))
    }

    pub(super) fn word(&mut self) -> ParseResult<Word<'a>> {
        let start = self.pos;
        WordScanner::new(self, start).word()
    }
}

/// `NAME=value` or `NAME+=value` with a literal name becomes an assignment.
fn split_assignment<'a>(word: &Word<'a>) -> Option<Assignment<'a>> {
    // The name's bytes, then `=` or `+=` (no searcher for the `=`).
    let bytes = word.raw.as_bytes();
    let name_len = bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let eq = match bytes.get(name_len..) {
        Some([b'=', ..]) => name_len,
        Some([b'+', b'=', ..]) => name_len + 1,
        _ => return None,
    };
    let name = &word.raw[..name_len];
    if !is_name(name) {
        return None;
    }
    let text_eq = word.text.find('=')?;
    let text = match &word.text {
        Cow::Borrowed(s) => Cow::Borrowed(&s[text_eq + 1..]),
        Cow::Owned(s) => Cow::Owned(s[text_eq + 1..].to_string()),
    };
    Some(Assignment {
        name,
        value: Word {
            raw: &word.raw[eq + 1..],
            text,
            shape: word.shape,
            substitutions: word.substitutions.clone(),
            evaluates: word.evaluates,
            braces: word.braces,
        },
    })
}
