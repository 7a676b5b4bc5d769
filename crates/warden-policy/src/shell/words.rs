//! Word scanning: quoting, escapes, expansions and the substitutions they hide.
//!
//! Quote removal builds the word's text lazily: a word without quotes or
//! escapes borrows from the source. Expansions keep their source spelling in
//! the text and mark the word `Dynamic`; the scripts inside `$(…)`, `` `…` ``,
//! `<(…)` and `>(…)` are parsed and kept for the classifier.

use std::borrow::Cow;

use super::ansi_c::decode_ansi_c;
use super::ast::{Dialect, Substitution, Word};
use super::evaluation::{ARITHMETIC, arithmetic_evaluates, parameter_evaluates};
use super::parser::{ParseError, ParseResult, Parser, is_delimiter};
use crate::invocation::ArgShape;

/// A shell variable name.
pub fn is_name(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

pub(super) struct WordScanner<'p, 'a> {
    p: &'p mut Parser<'a>,
    start: usize,
    owned: Option<String>,
    flushed: usize,
    shape: ArgShape,
    evaluates: Option<&'static str>,
    braces: bool,
}

impl<'p, 'a> WordScanner<'p, 'a> {
    pub(super) fn new(p: &'p mut Parser<'a>, start: usize) -> Self {
        WordScanner {
            p,
            start,
            owned: None,
            flushed: start,
            shape: ArgShape::Literal,
            evaluates: None,
            braces: false,
        }
    }

    fn evaluates(&mut self, reason: &'static str) {
        self.evaluates.get_or_insert(reason);
    }

    /// Why the scanned text evaluates hidden text, if it does.
    pub(super) fn evaluation(&self) -> Option<&'static str> {
        self.evaluates
    }

    fn src(&self) -> &'a str {
        self.p.src
    }

    fn error(&self, message: &'static str) -> ParseError {
        self.p.error_here(message)
    }

    /// Replace `src[from..to]` by `with` in the word's text.
    fn replace(&mut self, from: usize, to: usize, with: &str) {
        let src = self.p.src;
        // Room for most words at once: no regrowing as the text is built.
        let owned = self
            .owned
            .get_or_insert_with(|| String::with_capacity((src.len() - self.start).min(64)));
        owned.push_str(&src[self.flushed..from]);
        owned.push_str(with);
        self.flushed = to;
    }

    fn mark(&mut self, shape: ArgShape) {
        // Dynamic dominates Glob dominates Literal.
        self.shape = match (self.shape, shape) {
            (ArgShape::Dynamic, _) | (_, ArgShape::Dynamic) => ArgShape::Dynamic,
            (ArgShape::Glob, _) | (_, ArgShape::Glob) => ArgShape::Glob,
            _ => ArgShape::Literal,
        };
    }

    /// Move past bytes that `special` does not mark.
    fn skip_plain(&mut self, special: &[bool; 256]) {
        let bytes = self.p.src.as_bytes();
        let mut pos = self.p.pos;
        while let Some(&b) = bytes.get(pos) {
            if special[usize::from(b)] {
                break;
            }
            pos += 1;
        }
        self.p.pos = pos;
    }

    /// Scan one whole word starting at the parser's position.
    #[inline(always)]
    pub(super) fn word(mut self) -> ParseResult<Word<'a>> {
        let mut substitutions = Vec::new();
        loop {
            self.skip_plain(&WORD_SPECIAL);
            let Some(b) = self.p.peek() else {
                break;
            };
            let pos = self.p.pos;
            match b {
                b'<' | b'>' if pos == self.start && self.p.peek_at(1) == Some(b'(') => {
                    self.p.pos += 2;
                    substitutions
                        .push(self.parenthesised_script("unterminated process substitution")?);
                    self.mark(ArgShape::Dynamic);
                }
                _ if is_delimiter(b) => break,
                b'\\' => match self.src()[pos + 1..].chars().next() {
                    Some('\n') => {
                        self.replace(pos, pos + 2, "");
                        self.p.pos += 2;
                    }
                    Some(c) => {
                        self.replace(pos, pos + 1, "");
                        self.p.pos += 1 + c.len_utf8();
                    }
                    None => self.p.pos += 1,
                },
                b'\'' => {
                    let close = self.src()[pos + 1..]
                        .find('\'')
                        .map(|i| pos + 1 + i)
                        .ok_or_else(|| self.error("unterminated single quote"))?;
                    self.replace(pos, pos + 1, "");
                    self.replace(close, close + 1, "");
                    self.p.pos = close + 1;
                }
                b'"' => {
                    self.replace(pos, pos + 1, "");
                    self.p.pos += 1;
                    self.double_quoted(&mut substitutions)?;
                }
                b'$' => match self.p.peek_at(1) {
                    // In sh, `$'…'` and `$"…"` are a `$` and a quoted string.
                    Some(b'\'' | b'"') if self.p.dialect == Dialect::Posix => self.p.pos += 1,
                    Some(b'\'') => self.ansi_c_quoted()?,
                    Some(b'"') => {
                        self.replace(pos, pos + 2, "");
                        self.p.pos += 2;
                        self.double_quoted(&mut substitutions)?;
                    }
                    _ => {
                        if self.dollar(&mut substitutions, Quoting::Unquoted)? {
                            self.mark(ArgShape::Dynamic);
                        }
                    }
                },
                b'`' => {
                    substitutions.push(self.backquoted()?);
                    self.mark(ArgShape::Dynamic);
                }
                b'*' | b'?' => {
                    self.mark(ArgShape::Glob);
                    self.p.pos += 1;
                }
                b'[' => {
                    if self.rest_of_word_has(b']') {
                        self.mark(ArgShape::Glob);
                    }
                    self.p.pos += 1;
                }
                b'{' => {
                    if self.p.dialect == Dialect::Bash && self.is_brace_expansion() {
                        self.braces = true;
                        self.mark(ArgShape::Glob);
                    }
                    self.p.pos += 1;
                }
                _ => self.p.pos += 1,
            }
        }
        let end = self.p.pos;
        if end == self.start {
            return Err(self.error("expected a word"));
        }
        let src = self.p.src;
        let text = match self.owned {
            Some(mut owned) => {
                owned.push_str(&src[self.flushed..end]);
                Cow::Owned(owned)
            }
            None => Cow::Borrowed(&src[self.start..end]),
        };
        Ok(Word {
            raw: &src[self.start..end],
            text,
            shape: self.shape,
            substitutions,
            evaluates: self.evaluates,
            braces: self.braces,
        })
    }

    fn rest_of_word_has(&self, wanted: u8) -> bool {
        self.p.src.as_bytes()[self.p.pos..]
            .iter()
            .take_while(|&&b| !is_delimiter(b))
            .any(|&b| b == wanted)
    }

    /// `{a,b}` and `{1..3}` expand to several words.
    fn is_brace_expansion(&self) -> bool {
        let rest = &self.p.src.as_bytes()[self.p.pos + 1..];
        let Some(close) = rest
            .iter()
            .take_while(|&&b| !is_delimiter(b))
            .position(|&b| b == b'}')
        else {
            return false;
        };
        let inner = &rest[..close];
        inner.contains(&b',') || inner.windows(2).any(|w| w == b"..")
    }

    /// After an opening `"`: up to and including the closing `"`.
    fn double_quoted(&mut self, subs: &mut Vec<Substitution<'a>>) -> ParseResult<()> {
        loop {
            self.skip_plain(&DOUBLE_QUOTED_SPECIAL);
            let pos = self.p.pos;
            match self.p.peek() {
                None => return Err(self.error("unterminated double quote")),
                Some(b'"') => {
                    self.replace(pos, pos + 1, "");
                    self.p.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => match self.p.peek_at(1) {
                    Some(b'\n') => {
                        self.replace(pos, pos + 2, "");
                        self.p.pos += 2;
                    }
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        self.replace(pos, pos + 1, "");
                        self.p.pos += 2;
                    }
                    _ => self.p.pos += 1,
                },
                Some(b'$') => {
                    if self.dollar(subs, Quoting::Double)? {
                        self.mark(ArgShape::Dynamic);
                    }
                }
                Some(b'`') => {
                    subs.push(self.backquoted()?);
                    self.mark(ArgShape::Dynamic);
                }
                Some(_) => self.p.pos += 1,
            }
        }
    }

    /// At a `$`: scan an expansion. Returns whether it was one (a lone `$` is literal).
    fn dollar(&mut self, subs: &mut Vec<Substitution<'a>>, quoting: Quoting) -> ParseResult<bool> {
        let next = self.p.peek_at(1);
        match next {
            Some(b'(') if self.p.peek_at(2) == Some(b'(') => {
                self.p.pos += 3;
                if let Some(reason) = self.scan_arithmetic_body(subs)? {
                    self.evaluates(reason);
                }
            }
            // bash's old `$[ expr ]` arithmetic.
            Some(b'[') => {
                self.p.pos += 2;
                if let Some(reason) = self.scan_bracket_arithmetic(subs)? {
                    self.evaluates(reason);
                }
            }
            Some(b'(') => {
                self.p.pos += 2;
                subs.push(self.parenthesised_script("unterminated `$(`")?);
            }
            Some(b'{') => {
                self.p.pos += 2;
                self.scan_parameter(subs)?;
            }
            Some(b'\'') if quoting == Quoting::Nested => {
                let from = self.p.pos + 2;
                let close = self.find_ansi_c_end(from)?;
                self.p.pos = close + 1;
            }
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
                self.p.pos += 1;
                while self
                    .p
                    .peek()
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    self.p.pos += 1;
                }
            }
            Some(b'0'..=b'9' | b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-') => self.p.pos += 2,
            _ => {
                self.p.pos += 1;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// After `$(` or `<(`: a script up to and including `)`.
    fn parenthesised_script(
        &mut self,
        unterminated: &'static str,
    ) -> ParseResult<Substitution<'a>> {
        let script = self.p.script(&[")"])?;
        if self.p.peek() != Some(b')') {
            return Err(self.error(unterminated));
        }
        self.p.pos += 1;
        Ok(Substitution::Parsed(Box::new(script)))
    }

    /// After `${`: up to and including the matching `}`.
    fn scan_parameter(&mut self, subs: &mut Vec<Substitution<'a>>) -> ParseResult<()> {
        self.p.enter()?;
        if let Some(reason) = parameter_evaluates(&self.p.src.as_bytes()[self.p.pos..]) {
            self.evaluates(reason);
        }
        loop {
            match self.p.peek() {
                None => return Err(self.error("unterminated `${`")),
                Some(b'}') => {
                    self.p.pos += 1;
                    break;
                }
                Some(b'\\') => self.p.pos += 2,
                Some(b'\'') => {
                    let from = self.p.pos + 1;
                    let close = self.src()[from..]
                        .find('\'')
                        .map(|i| from + i)
                        .ok_or_else(|| self.error("unterminated single quote"))?;
                    self.p.pos = close + 1;
                }
                Some(b'"') => {
                    self.p.pos += 1;
                    self.scan_double_quoted(subs)?;
                }
                Some(b'$') => {
                    self.dollar(subs, Quoting::Nested)?;
                }
                Some(b'`') => subs.push(self.backquoted()?),
                Some(_) => self.p.pos += 1,
            }
        }
        self.p.leave();
        Ok(())
    }

    /// Like `double_quoted` without building text (inside `${…}` and `$((…))`).
    fn scan_double_quoted(&mut self, subs: &mut Vec<Substitution<'a>>) -> ParseResult<()> {
        loop {
            match self.p.peek() {
                None => return Err(self.error("unterminated double quote")),
                Some(b'"') => {
                    self.p.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => self.p.pos += 2,
                Some(b'$') => {
                    self.dollar(subs, Quoting::Double)?;
                }
                Some(b'`') => subs.push(self.backquoted()?),
                Some(_) => self.p.pos += 1,
            }
        }
    }

    /// After `$((` or `((`: up to and including the closing `))`.
    pub(super) fn scan_arithmetic_body(
        &mut self,
        subs: &mut Vec<Substitution<'a>>,
    ) -> ParseResult<Option<&'static str>> {
        self.p.enter()?;
        let from = self.p.pos;
        let mut depth = 0usize;
        loop {
            match self.p.peek() {
                None => return Err(self.error("unterminated arithmetic expression")),
                Some(b'(') => {
                    depth += 1;
                    self.p.pos += 1;
                }
                Some(b')') if depth == 0 => {
                    if self.p.peek_at(1) != Some(b')') {
                        return Err(self.error("bad arithmetic expression"));
                    }
                    let to = self.p.pos;
                    self.p.pos += 2;
                    self.p.leave();
                    let body = &self.p.src.as_bytes()[from..to];
                    return Ok(arithmetic_evaluates(body).then_some(ARITHMETIC));
                }
                Some(b')') => {
                    depth -= 1;
                    self.p.pos += 1;
                }
                Some(b'\\') => self.p.pos += 2,
                Some(b'"') => {
                    self.p.pos += 1;
                    self.scan_double_quoted(subs)?;
                }
                Some(b'$') => {
                    self.dollar(subs, Quoting::Nested)?;
                }
                Some(b'`') => subs.push(self.backquoted()?),
                Some(_) => self.p.pos += 1,
            }
        }
    }

    /// After `$[`: up to and including the closing `]`.
    fn scan_bracket_arithmetic(
        &mut self,
        subs: &mut Vec<Substitution<'a>>,
    ) -> ParseResult<Option<&'static str>> {
        let from = self.p.pos;
        loop {
            match self.p.peek() {
                None => return Err(self.error("unterminated `$[`")),
                Some(b']') => {
                    let to = self.p.pos;
                    self.p.pos += 1;
                    let body = &self.p.src.as_bytes()[from..to];
                    return Ok(arithmetic_evaluates(body).then_some(ARITHMETIC));
                }
                Some(b'$') => {
                    self.dollar(subs, Quoting::Nested)?;
                }
                Some(b'`') => subs.push(self.backquoted()?),
                Some(_) => self.p.pos += 1,
            }
        }
    }

    /// Substitutions in a heredoc body with an unquoted delimiter.
    pub(super) fn scan_expansions_until(
        &mut self,
        end: usize,
        subs: &mut Vec<Substitution<'a>>,
    ) -> ParseResult<()> {
        while self.p.pos < end {
            match self.p.peek() {
                Some(b'\\') => self.p.pos += 2,
                Some(b'$') => {
                    self.dollar(subs, Quoting::Double)?;
                }
                Some(b'`') => subs.push(self.backquoted()?),
                _ => self.p.pos += 1,
            }
        }
        if self.p.pos > end {
            return Err(self.error("substitution runs past the end of its heredoc"));
        }
        Ok(())
    }

    /// At a backquote: the text up to the closing one, with `\$`, `` \` `` and
    /// `\\` unescaped, to be parsed by the classifier.
    fn backquoted(&mut self) -> ParseResult<Substitution<'a>> {
        let open = self.p.pos;
        let bytes = self.p.src.as_bytes();
        let mut at = open + 1;
        let mut body = String::new();
        let mut copied = at;
        loop {
            match bytes.get(at) {
                None => return Err(self.error("unterminated backquote")),
                Some(b'`') => break,
                Some(b'\\') if matches!(bytes.get(at + 1), Some(b'$' | b'`' | b'\\')) => {
                    body.push_str(&self.p.src[copied..at]);
                    copied = at + 1;
                    at += 2;
                }
                Some(_) => at += 1,
            }
        }
        body.push_str(&self.p.src[copied..at]);
        self.p.pos = at + 1;
        Ok(Substitution::Unparsed(body))
    }

    fn find_ansi_c_end(&self, from: usize) -> ParseResult<usize> {
        let bytes = self.p.src.as_bytes();
        let mut at = from;
        loop {
            match bytes.get(at) {
                None => return Err(self.error("unterminated $'…' string")),
                Some(b'\\') => at += 2,
                Some(b'\'') => return Ok(at),
                Some(_) => at += 1,
            }
        }
    }

    /// `$'…'`: decoded into the text, so `$'\x72m'` is seen as `rm`.
    fn ansi_c_quoted(&mut self) -> ParseResult<()> {
        let open = self.p.pos;
        let close = self.find_ansi_c_end(open + 2)?;
        let decoded = decode_ansi_c(&self.p.src[open + 2..close]);
        self.replace(open, close + 1, &decoded);
        self.p.pos = close + 1;
        Ok(())
    }
}

/// A table marking `special`.
const fn byte_table(special: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
}

/// Bytes a word scan stops at: delimiters, quotes, escapes, expansions and
/// the characters of globs and braces. Every other byte is plain text.
const WORD_SPECIAL: [bool; 256] = byte_table(b" \t\n;&|()<>\\'\"$`*?[{");

/// Bytes a double-quoted string stops at.
const DOUBLE_QUOTED_SPECIAL: [bool; 256] = byte_table(b"\"\\$`");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quoting {
    Unquoted,
    Double,
    /// Inside `${…}` or `$((…))`, where `$'…'` is skipped, not decoded.
    Nested,
}
