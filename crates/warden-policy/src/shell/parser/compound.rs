//! Compound commands: `if`, `for`, `while`/`until`, `case`, `[[ … ]]` and
//! `(( … ))`, with the redirects that may follow them.

use std::borrow::Cow;

use super::super::ast::*;
use super::super::words::{WordScanner, is_name};
use super::{ParseResult, Parser, is_delimiter};
use crate::invocation::ArgShape;

impl<'a> Parser<'a> {
    pub(super) fn compound(
        &mut self,
        kind: CompoundKind,
        bodies: Vec<Script<'a>>,
        words: Vec<Word<'a>>,
    ) -> ParseResult<Command<'a>> {
        let mut redirects = Vec::new();
        loop {
            self.skip_blanks();
            match self.redirect()? {
                Some(r) => redirects.push(r),
                None => break,
            }
        }
        Ok(Command::Compound(Compound {
            kind,
            var: None,
            bodies,
            words,
            redirects,
        }))
    }

    pub(super) fn if_command(&mut self) -> ParseResult<Command<'a>> {
        self.pos += 2;
        let mut bodies = Vec::new();
        loop {
            bodies.push(self.compound_list(&["then"])?);
            self.expect_reserved("then", "`if` without `then`")?;
            bodies.push(self.compound_list(&["elif", "else", "fi"])?);
            self.skip_blanks_and_newlines()?;
            if self.at_reserved("elif") {
                self.pos += 4;
                continue;
            }
            if self.at_reserved("else") {
                self.pos += 4;
                bodies.push(self.compound_list(&["fi"])?);
            }
            self.expect_reserved("fi", "`if` without `fi`")?;
            return self.compound(CompoundKind::If, bodies, Vec::new());
        }
    }

    pub(super) fn do_done(&mut self) -> ParseResult<Script<'a>> {
        self.expect_reserved("do", "loop without `do`")?;
        let body = self.compound_list(&["done"])?;
        self.expect_reserved("done", "loop without `done`")?;
        Ok(body)
    }

    pub(super) fn for_command(&mut self) -> ParseResult<Command<'a>> {
        let keyword = self.peek_bare_word().unwrap_or("for");
        self.pos += keyword.len();
        self.skip_blanks();
        let mut words = Vec::new();
        let mut var = None;
        let arithmetic = self.starts_with("((");
        if arithmetic && self.dialect == Dialect::Posix {
            return Err(self.error_here("`for ((` is bash only"));
        }
        if arithmetic {
            words.push(self.arithmetic_word()?);
        } else {
            match self.peek_bare_word() {
                Some(name) if is_name(name) => {
                    var = Some(name);
                    self.pos += name.len();
                }
                _ => return Err(self.error_here("`for` needs a variable name")),
            }
            self.skip_blanks_and_newlines()?;
            if self.at_reserved("in") {
                self.pos += 2;
                loop {
                    self.skip_blanks();
                    match self.peek() {
                        None | Some(b';' | b'\n') => break,
                        Some(b) if is_delimiter(b) => {
                            return Err(self.error_here("unexpected token in `for` list"));
                        }
                        Some(_) => words.push(self.word()?),
                    }
                }
            }
        }
        self.skip_blanks();
        if self.peek() == Some(b';') {
            self.pos += 1;
        }
        let body = self.do_done()?;
        let kind = if arithmetic {
            CompoundKind::Arithmetic
        } else if keyword == "select" {
            CompoundKind::Select
        } else {
            CompoundKind::For
        };
        let mut command = self.compound(kind, vec![body], words)?;
        if let Command::Compound(compound) = &mut command {
            compound.var = var;
        }
        Ok(command)
    }

    pub(super) fn loop_command(
        &mut self,
        kind: CompoundKind,
        keyword: &str,
    ) -> ParseResult<Command<'a>> {
        self.pos += keyword.len();
        let condition = self.compound_list(&["do"])?;
        let body = self.do_done()?;
        self.compound(kind, vec![condition, body], Vec::new())
    }

    pub(super) fn case_command(&mut self) -> ParseResult<Command<'a>> {
        self.pos += 4;
        self.skip_blanks();
        let mut words = vec![self.word()?];
        self.expect_reserved("in", "`case` without `in`")?;
        let mut bodies = Vec::new();
        loop {
            self.skip_blanks_and_newlines()?;
            if self.at_reserved("esac") {
                self.pos += 4;
                break;
            }
            if self.peek() == Some(b'(') {
                self.pos += 1;
            }
            loop {
                self.skip_blanks();
                words.push(self.word()?);
                self.skip_blanks();
                match self.peek() {
                    Some(b'|') => self.pos += 1,
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.error_here("bad `case` pattern")),
                }
            }
            bodies.push(self.script(&[";;", ";&", ";;&", "esac"])?);
            for terminator in [";;&", ";;", ";&"] {
                if self.starts_with(terminator) {
                    self.pos += terminator.len();
                    break;
                }
            }
        }
        self.compound(CompoundKind::Case, bodies, words)
    }

    /// `[[ … ]]`: its words are operands, and `<`, `>`, `&&`, `||`, `(`, `)`
    /// inside it are operators of the test, not redirects or lists.
    pub(super) fn conditional_command(&mut self) -> ParseResult<Command<'a>> {
        let start = self.pos;
        self.pos += 2;
        let mut words = vec![Word {
            raw: &self.src[start..self.pos],
            text: Cow::Borrowed("[["),
            shape: ArgShape::Literal,
            substitutions: Vec::new(),
            evaluates: None,
            braces: false,
        }];
        loop {
            self.skip_blanks_and_newlines()?;
            if self.at_reserved("]]") {
                let at = self.pos;
                self.pos += 2;
                words.push(Word {
                    raw: &self.src[at..self.pos],
                    text: Cow::Borrowed("]]"),
                    shape: ArgShape::Literal,
                    substitutions: Vec::new(),
                    evaluates: None,
                    braces: false,
                });
                break;
            }
            match self.peek() {
                None => return Err(self.error_here("unterminated `[[`")),
                Some(b'<' | b'>' | b'(' | b')' | b'&' | b'|') => {
                    let at = self.pos;
                    let len = if matches!(self.peek_at(1), Some(b'&' | b'|'))
                        && self.peek() == self.peek_at(1)
                    {
                        2
                    } else {
                        1
                    };
                    self.pos += len;
                    let raw = &self.src[at..self.pos];
                    words.push(Word {
                        raw,
                        text: Cow::Borrowed(raw),
                        shape: ArgShape::Literal,
                        substitutions: Vec::new(),
                        evaluates: None,
                        braces: false,
                    });
                }
                Some(b';') => return Err(self.error_here("unexpected `;` in `[[`")),
                Some(_) => words.push(self.word()?),
            }
        }
        let end = self.pos;
        let mut redirects = Vec::new();
        loop {
            self.skip_blanks();
            match self.redirect()? {
                Some(r) => redirects.push(r),
                None => break,
            }
        }
        Ok(Command::Simple(SimpleCommand {
            assignments: Vec::new(),
            words,
            redirects,
            span: start..end,
        }))
    }

    /// `(( expr ))`: arithmetic in bash (nested subshells in sh).
    pub(super) fn arithmetic_command(&mut self) -> ParseResult<Command<'a>> {
        let word = self.arithmetic_word()?;
        self.compound(CompoundKind::Arithmetic, Vec::new(), vec![word])
    }

    pub(super) fn arithmetic_word(&mut self) -> ParseResult<Word<'a>> {
        let start = self.pos;
        self.pos += 2;
        let mut substitutions = Vec::new();
        let mut scanner = WordScanner::new(self, start);
        let evaluates = scanner.scan_arithmetic_body(&mut substitutions)?;
        Ok(Word {
            raw: &self.src[start..self.pos],
            text: Cow::Borrowed(&self.src[start..self.pos]),
            shape: ArgShape::Dynamic,
            substitutions,
            evaluates,
            braces: false,
        })
    }
}
