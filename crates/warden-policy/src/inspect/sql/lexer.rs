//! A SQL lexer that knows where each dialect's strings, quoted names and
//! comments end, so a statement hidden in one dialect's string is not
//! missed in another's: SQLite has no backslash escapes; PostgreSQL has
//! dollar quoting and nested comments; MySQL has `#` comments, `--`
//! comments only before a space, and `/*! … */` comments it executes.

use super::Dialect;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    /// A keyword or plain name, upper-cased.
    Word(String),
    /// A quoted name (`"x"`, `` `x` ``, `[x]`), lower-cased.
    Quoted(String),
    /// A string literal (its text does not matter).
    Str,
    /// Numbers, operators, punctuation (one character).
    Punct(char),
    /// `;`: the end of a statement.
    End,
    /// A backslash command of the client (`\d`, `\!`, `\g`), name included.
    Meta(String),
}

/// Why the text cannot be lexed safely.
pub(super) type LexError = &'static str;

/// The tokens of `sql` in `dialect`.
pub(super) fn lex(sql: &str, dialect: Dialect) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let next = chars.get(i + 1).copied();
        match c {
            _ if c.is_whitespace() => i += 1,
            '-' if next == Some('-') => {
                // MySQL needs a space (or the end) after `--`.
                let comment =
                    dialect != Dialect::Mysql || chars.get(i + 2).is_none_or(|c| c.is_whitespace());
                if comment {
                    i = line_end(&chars, i);
                } else {
                    out.push(Token::Punct('-'));
                    i += 1;
                }
            }
            '#' if dialect == Dialect::Mysql => i = line_end(&chars, i),
            '/' if next == Some('*') => {
                if dialect == Dialect::Mysql && matches!(chars.get(i + 2), Some('!' | '+')) {
                    // `/*!…*/` runs its text; optimizer hints are harmless
                    // but read the same way.
                    return Err("MySQL runs the text of `/*! … */` comments");
                }
                i = block_comment_end(&chars, i, dialect == Dialect::Postgres)?;
            }
            '\'' => {
                i = string_end(&chars, i, dialect, false)?;
                out.push(Token::Str);
            }
            'E' | 'e' if next == Some('\'') && dialect == Dialect::Postgres => {
                i = string_end(&chars, i + 1, dialect, true)?;
                out.push(Token::Str);
            }
            'U' | 'u' if next == Some('&') && dialect == Dialect::Postgres => {
                return Err("Unicode-escaped names and strings are not read");
            }
            '"' if dialect == Dialect::Mysql => {
                i = quoted_end(&chars, i, '"', true)?.0;
                out.push(Token::Str);
            }
            '"' => {
                let (end, name) = quoted_end(&chars, i, '"', false)?;
                out.push(Token::Quoted(name.to_lowercase()));
                i = end;
            }
            '`' if dialect != Dialect::Postgres => {
                let (end, name) = quoted_end(&chars, i, '`', false)?;
                out.push(Token::Quoted(name.to_lowercase()));
                i = end;
            }
            '[' if dialect == Dialect::Sqlite => {
                let close = chars[i..]
                    .iter()
                    .position(|&c| c == ']')
                    .ok_or("unterminated `[`")?;
                let name: String = chars[i + 1..i + close].iter().collect();
                out.push(Token::Quoted(name.to_lowercase()));
                i += close + 1;
            }
            '$' if dialect == Dialect::Postgres => match dollar_tag(&chars, i) {
                Some(tag) => {
                    let body = i + tag.len();
                    let end = find(&chars, body, &tag).ok_or("unterminated dollar quote")?;
                    out.push(Token::Str);
                    i = end + tag.len();
                }
                None => {
                    out.push(Token::Punct('$'));
                    i += 1;
                }
            },
            '\\' if dialect != Dialect::Sqlite => {
                let name: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| !c.is_whitespace() && **c != '\\' && **c != ';')
                    .collect();
                let name = if name.is_empty() {
                    chars.get(i + 1).map(|c| c.to_string()).unwrap_or_default()
                } else {
                    name
                };
                i += 1 + name.chars().count().max(1);
                out.push(Token::Meta(name));
            }
            ';' => {
                out.push(Token::End);
                i += 1;
            }
            _ if c.is_alphabetic() || c == '_' => {
                let word: String = chars[i..]
                    .iter()
                    .take_while(|c| c.is_alphanumeric() || **c == '_' || **c == '$')
                    .collect();
                i += word.chars().count();
                out.push(Token::Word(word.to_uppercase()));
            }
            _ if c.is_ascii_digit() => {
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '.' || *c == '_')
                {
                    i += 1;
                }
                out.push(Token::Punct('0'));
            }
            _ => {
                out.push(Token::Punct(c));
                i += 1;
            }
        }
    }
    Ok(out)
}

fn line_end(chars: &[char], from: usize) -> usize {
    chars[from..]
        .iter()
        .position(|&c| c == '\n')
        .map_or(chars.len(), |p| from + p + 1)
}

fn find(chars: &[char], from: usize, needle: &[char]) -> Option<usize> {
    (from..=chars.len().saturating_sub(needle.len())).find(|&i| chars[i..].starts_with(needle))
}

/// The end of a block comment starting at `from` (nested in PostgreSQL).
fn block_comment_end(chars: &[char], from: usize, nests: bool) -> Result<usize, LexError> {
    let mut depth = 0usize;
    let mut i = from;
    while i + 1 < chars.len() {
        match (chars[i], chars[i + 1]) {
            ('/', '*') if nests || depth == 0 => {
                depth += 1;
                i += 2;
            }
            ('*', '/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => i += 1,
        }
    }
    Err("unterminated comment")
}

/// The end of a `'…'` string at `from`. MySQL (and PostgreSQL's `E'…'`)
/// take backslash escapes; SQLite and standard PostgreSQL strings do not.
/// A backslash in a string whose reading depends on server settings
/// (MySQL's `NO_BACKSLASH_ESCAPES`, PostgreSQL's
/// `standard_conforming_strings`) is refused.
fn string_end(
    chars: &[char],
    from: usize,
    dialect: Dialect,
    escapes: bool,
) -> Result<usize, LexError> {
    let mut i = from + 1;
    loop {
        match chars.get(i) {
            None => return Err("unterminated string"),
            Some('\'') if chars.get(i + 1) == Some(&'\'') => i += 2,
            Some('\'') => return Ok(i + 1),
            Some('\\') if escapes => i += 2,
            Some('\\') if dialect != Dialect::Sqlite => {
                return Err(
                    "a backslash in a string means different things under different server settings",
                );
            }
            Some(_) => i += 1,
        }
    }
}

/// The end of a quoted name or MySQL double-quoted string, and its text.
fn quoted_end(
    chars: &[char],
    from: usize,
    quote: char,
    escapes: bool,
) -> Result<(usize, String), LexError> {
    let mut i = from + 1;
    let mut text = String::new();
    loop {
        match chars.get(i) {
            None => return Err("unterminated quoted name"),
            Some(&c) if c == quote && chars.get(i + 1) == Some(&quote) => {
                text.push(quote);
                i += 2;
            }
            Some(&c) if c == quote => return Ok((i + 1, text)),
            Some('\\') if escapes => {
                return Err(
                    "a backslash in a string means different things under different server settings",
                );
            }
            Some(&c) => {
                text.push(c);
                i += 1;
            }
        }
    }
}

/// `$tag$` or `$$` at `from` (PostgreSQL dollar quoting), or `None` for a
/// `$1` parameter.
fn dollar_tag(chars: &[char], from: usize) -> Option<Vec<char>> {
    let rest = &chars[from + 1..];
    let len = rest
        .iter()
        .take_while(|c| c.is_alphanumeric() || **c == '_')
        .count();
    if rest.first().is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    (rest.get(len) == Some(&'$')).then(|| chars[from..from + len + 2].to_vec())
}
