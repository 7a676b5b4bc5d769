//! Values assigned to secret-named keys, in every syntax tool output uses:
//! env dumps (`DB_PASSWORD=x`, `"MYSQL_ROOT_PASSWORD=x"` in `docker inspect`),
//! `.env`/INI/TOML (`password = "x"`), YAML (`password: x`, block scalars),
//! JSON (`"password": "x"`), PHP/Ruby (`'password' => 'x'`), XML
//! (`<password>x</password>`), logfmt and command lines (`--password=x`,
//! `--token x`).
//!
//! Where a value ends: a quoted value at its closing quote; a value inside a
//! quoted string (`"KEY=value"`) at the string's end; a value on a line of its
//! own (`KEY=value`, `key: value`) at the end of the line; any other
//! unquoted value (`ps` command lines, logfmt) at the next space, quote,
//! `&`, `,` or `;`.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::Finding;
use super::key_names::secret_named_by;
use super::kind::SecretKind;
use super::placeholder::is_placeholder;

pub struct AssignmentRules {
    /// Kubernetes/Compose env lists: `- name: DB_PASSWORD` / `value: x`.
    yaml_name_value: Regex,
    /// The same inside a JSON string, newlines escaped.
    escaped_yaml_name_value: Regex,
    json_name_value: Regex,
}

impl AssignmentRules {
    pub fn get() -> Option<&'static AssignmentRules> {
        static RULES: OnceLock<Option<AssignmentRules>> = OnceLock::new();
        RULES.get_or_init(AssignmentRules::compile).as_ref()
    }

    fn compile() -> Option<AssignmentRules> {
        Some(AssignmentRules {
            yaml_name_value: Regex::new(
                r#"(?m)name:[ \t]*["']?([A-Za-z0-9_.\-]+)["']?[ \t]*\r?\n[ \t]*value:[ \t]*("[^"\n]*"|'[^'\n]*'|[^\n]*)"#,
            )
            .ok()?,
            escaped_yaml_name_value: Regex::new(
                r#"name:[ \t]*'?([A-Za-z0-9_.\-]+)'?[ \t]*(?:\\r)?\\n[ \t]*value:[ \t]*((?:[^"\\\n]|\\[^nr])*)"#,
            )
            .ok()?,
            json_name_value: Regex::new(
                r#""name"[ \t]*:[ \t]*"([A-Za-z0-9_.\-]+)"[ \t]*,[ \t\r\n]*"value"[ \t]*:[ \t]*"((?:[^"\\]|\\.)*)""#,
            )
            .ok()?,
        })
    }

    /// `key_fragments`: where [`super::triggers`] found a fragment of a
    /// secret-like key name. The name/value patterns are compiled only for
    /// a text with a key under a `name`.
    pub fn find(
        text: &str,
        key_fragments: &[Range<usize>],
        out: &mut Vec<Finding>,
    ) -> Result<(), super::rule::Unavailable> {
        let bytes = text.as_bytes();
        let mut resume = 0;
        // `name: DB_PASSWORD` / `"name": "DB_PASSWORD"`: the value is on a sibling key.
        let mut named_key = false;
        for fragment in key_fragments {
            if fragment.start < resume {
                continue;
            }
            let key = expand_key(bytes, fragment.clone());
            resume = key.end;
            named_key |= bytes[key.start.saturating_sub(12)..key.start]
                .windows(4)
                .any(|w| w == b"name");
            if let Some(finding) = secret_assigned_to(text, key) {
                resume = resume.max(finding.range.end);
                out.push(finding);
            }
        }
        if named_key {
            AssignmentRules::get()
                .ok_or(super::rule::Unavailable)?
                .find_name_value_pairs(text, out);
        }
        Ok(())
    }

    fn find_name_value_pairs(&self, text: &str, out: &mut Vec<Finding>) {
        for regex in [
            &self.yaml_name_value,
            &self.escaped_yaml_name_value,
            &self.json_name_value,
        ] {
            for caps in regex.captures_iter(text) {
                let (Some(name), Some(value)) = (caps.get(1), caps.get(2)) else {
                    continue;
                };
                let Some(kind) = secret_named_by(name.as_str()) else {
                    continue;
                };
                let value = trim_span(text, value.range());
                if !value.is_empty() && !is_placeholder(unquoted(&text[value.clone()])) {
                    out.push(Finding::new(value, kind));
                }
            }
        }
    }
}

/// The secret assigned to the key at `key`, if the key names one and is
/// followed by a value that is not a placeholder.
fn secret_assigned_to(text: &str, key: Range<usize>) -> Option<Finding> {
    let name = &text[key.clone()];
    let bare = name.trim_start_matches('-');
    if bare.eq_ignore_ascii_case("pveapitoken") {
        return proxmox_token_secret(text, key.end);
    }
    let header = "authorization";
    if bare.len() >= header.len() && bare[bare.len() - header.len()..].eq_ignore_ascii_case(header)
    {
        return authorization_credentials(text, key);
    }
    // Most fragments in ordinary output (`publickey for`, `sshd:auth)`)
    // are followed by no separator: leave before any further work.
    let bytes = text.as_bytes();
    let mut after = key.end;
    if let Some(quote) = Quote::at(bytes, after) {
        after += quote.text().len();
    }
    let after = skip_blanks(bytes, after);
    let separated = matches!(bytes.get(after), Some(b'=' | b':' | b'>'));
    let spaced_flag_or_directive = after > key.end
        && (name.starts_with("--")
            || ["requirepass", "masterauth", "password"]
                .iter()
                .any(|d| bare.eq_ignore_ascii_case(d)));
    if !separated && !spaced_flag_or_directive {
        return None;
    }
    let (value, kind) = match directive_value(text, &key, bare) {
        Some(value) => (value, SecretKind::Password),
        None => (assigned_value(text, key)?, secret_named_by(name)?),
    };
    if is_placeholder(unquoted(&text[value.clone()])) {
        return None;
    }
    Some(Finding::new(value, kind))
}

/// `Authorization: Bearer X`, `authorization: Basic X`, `Authorization=X`:
/// the scheme stays, the credentials go.
fn authorization_credentials(text: &str, key: Range<usize>) -> Option<Finding> {
    const SCHEMES: &[&str] = &[
        "bearer",
        "basic",
        "digest",
        "token",
        "negotiate",
        "ntlm",
        "apikey",
        "bot",
        "sso-key",
    ];
    let bytes = text.as_bytes();
    let mut at = key.end;
    if let Some(quote) = Quote::at(bytes, at) {
        at += quote.text().len();
    }
    at = skip_blanks(bytes, at);
    if !matches!(bytes.get(at), Some(b':' | b'=')) {
        return None;
    }
    at = skip_blanks(bytes, at + 1);
    if let Some(quote) = Quote::at(bytes, at) {
        at = skip_blanks(bytes, at + quote.text().len());
    }
    let word_end = at
        + text[at..]
            .find(|c: char| !(c.is_ascii_alphabetic() || c == '-'))
            .unwrap_or(text.len() - at);
    let scheme = &text[at..word_end];
    let mut kind = SecretKind::AuthorizationCredentials;
    if SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s)) && blank_at(bytes, word_end) {
        kind = if scheme.eq_ignore_ascii_case("bearer") {
            SecretKind::BearerToken
        } else {
            SecretKind::AuthorizationCredentials
        };
        at = skip_blanks(bytes, word_end);
    }
    if text[at..].starts_with("PVEAPIToken") {
        return None;
    }
    let end = inline_end(bytes, at);
    let credentials = at..end;
    (!credentials.is_empty() && !is_placeholder(&text[credentials.clone()]))
        .then(|| Finding::new(credentials, kind))
}

/// `PVEAPIToken=user@realm!tokenid=SECRET`: the token id stays.
fn proxmox_token_secret(text: &str, after_key: usize) -> Option<Finding> {
    let bytes = text.as_bytes();
    if !matches!(bytes.get(after_key), Some(b'=' | b' ')) {
        return None;
    }
    let id_start = after_key + 1;
    let id_end = id_start + text[id_start..].find(|c: char| c == '=' || c.is_whitespace())?;
    if bytes.get(id_end) != Some(&b'=') || !text[id_start..id_end].contains('!') {
        return None;
    }
    let start = id_end + 1;
    let end = start
        + text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(text.len() - start);
    (end > start).then(|| Finding::new(start..end, SecretKind::ProxmoxTokenSecret))
}

/// Space-separated directives: redis.conf `requirepass X` / `masterauth X`
/// on a line of their own, `.netrc` `machine h login u password X`.
fn directive_value(text: &str, key: &Range<usize>, name: &str) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let start = skip_blanks(bytes, key.end);
    if start == key.end || blank_at(bytes, start) {
        return None;
    }
    let line = text[line_start(text, key.start)..key.start].trim_start();
    let is = |directive: &str| name.eq_ignore_ascii_case(directive);
    let applies = if is("requirepass") || is("masterauth") {
        line.is_empty()
    } else {
        is("password") && (line.starts_with("machine ") || line.starts_with("default"))
    };
    if !applies {
        return None;
    }
    if let Some(quote) = Quote::at(bytes, start) {
        let inner = start + quote.text().len();
        let end = find_closing(text, inner, quote).unwrap_or_else(|| line_end(text, inner));
        return Some(inner..end).filter(|r| !r.is_empty());
    }
    Some(start..inline_end(bytes, start))
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// The whole key around a matched fragment.
fn expand_key(bytes: &[u8], fragment: Range<usize>) -> Range<usize> {
    let mut start = fragment.start;
    while start > 0 && is_key_byte(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = fragment.end;
    while end < bytes.len() && is_key_byte(bytes[end]) {
        end += 1;
    }
    start..end
}

/// How the key is written, which decides where its value ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Only indentation (or `export `, `- `, `#`) before the key: the value runs to the end of the line.
    OwnLine,
    /// Inside a quoted string that opened right before the key (`"KEY=value"`).
    InString(Quote),
    /// Anywhere else: a command line, logfmt, a flow mapping.
    Inline,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    Double,
    Single,
    /// `\"`: a JSON document embedded in a JSON string.
    EscapedDouble,
}

impl Quote {
    fn text(self) -> &'static str {
        match self {
            Quote::Double => "\"",
            Quote::Single => "'",
            Quote::EscapedDouble => "\\\"",
        }
    }

    fn at(bytes: &[u8], i: usize) -> Option<Quote> {
        match bytes.get(i)? {
            b'"' => Some(Quote::Double),
            b'\'' => Some(Quote::Single),
            b'\\' if bytes.get(i + 1) == Some(&b'"') => Some(Quote::EscapedDouble),
            _ => None,
        }
    }

    /// The quote that ends just before `end`, if any.
    fn before(bytes: &[u8], end: usize) -> Option<Quote> {
        let last = *bytes.get(end.checked_sub(1)?)?;
        match last {
            b'"' if end >= 2 && bytes[end - 2] == b'\\' => Some(Quote::EscapedDouble),
            b'"' => Some(Quote::Double),
            b'\'' => Some(Quote::Single),
            _ => None,
        }
    }
}

/// The span of the value assigned to the key at `key`, if the key is
/// followed by an assignment.
fn assigned_value(text: &str, key: Range<usize>) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    let opening = Quote::before(bytes, key.start);
    let mut at = key.end;
    // A quoted key: `"password": …`, `'password' => …`.
    let key_quoted = match (opening, Quote::at(bytes, at)) {
        (Some(open), Some(close)) if open == close => {
            at += close.text().len();
            true
        }
        _ => false,
    };
    if bytes.get(key.start.wrapping_sub(1)) == Some(&b'<') && bytes.get(at) == Some(&b'>') {
        return xml_element_value(text, at + 1);
    }
    at = skip_blanks(bytes, at);
    let flag = text[key.clone()].starts_with("--");
    let after_separator = match bytes.get(at) {
        // `--password secret`: after a flag that names a secret and a
        // blank, the next word is the value, whatever it starts with
        // (`--token ==x`, `--password -x`); when in doubt, redact.
        Some(_) if flag && at > key.end => at,
        Some(b'=') if bytes.get(at + 1) == Some(&b'>') => at + 2,
        // `token == null` compares; `KEY==x` assigns `=x`.
        Some(b'=')
            if bytes.get(at + 1) == Some(&b'=') && (at > key.end || blank_at(bytes, at + 2)) =>
        {
            return None;
        }
        Some(b'=') => at + 1,
        Some(b':') if bytes.get(at + 1) == Some(&b'=') => at + 2,
        // YAML needs a blank after the colon; JSON quotes its keys.
        Some(b':')
            if key_quoted
                || matches!(bytes.get(at + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n')) =>
        {
            at + 1
        }
        _ => return None,
    };
    let start = skip_blanks(bytes, after_separator);
    let context = if !key_quoted && opening.is_some() {
        opening.map_or(Context::Inline, Context::InString)
    } else if only_indentation_before(text, key.start) {
        Context::OwnLine
    } else {
        Context::Inline
    };
    if let Some(quote) = Quote::at(bytes, start) {
        let inner = start + quote.text().len();
        let end = find_closing(text, inner, quote).unwrap_or_else(|| line_end(text, inner));
        return Some(inner..end).filter(|r| !r.is_empty());
    }
    if let Some(block) = yaml_block_scalar(text, key.start, start) {
        return Some(block);
    }
    let end = match context {
        Context::OwnLine => line_end(text, start),
        Context::InString(quote) => {
            find_closing(text, start, quote).unwrap_or_else(|| line_end(text, start))
        }
        Context::Inline => inline_end(bytes, start),
    };
    let value = trim_span(text, start..end);
    Some(value).filter(|r| !r.is_empty())
}

fn blank_at(bytes: &[u8], at: usize) -> bool {
    matches!(bytes.get(at), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

fn skip_blanks(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    at
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// Is the key the first thing on its line (after indentation, `export `,
/// a YAML list dash or a comment sign)?
fn only_indentation_before(text: &str, key_start: usize) -> bool {
    let before = text[line_start(text, key_start)..key_start].trim_start();
    let before = before.strip_prefix("export ").unwrap_or(before);
    before
        .trim_start_matches(['#', ';', '-', ' ', '\t'])
        .is_empty()
}

/// The end of a quoted value: the first unescaped closing quote on the line.
fn find_closing(text: &str, from: usize, quote: Quote) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        match (bytes[i], quote) {
            (b'\n', _) => return None,
            (b'\\', Quote::EscapedDouble) if bytes.get(i + 1) == Some(&b'"') => return Some(i),
            (b'\\', Quote::EscapedDouble) if bytes.get(i + 1) == Some(&b'\\') => i += 1,
            (b'\\', Quote::Double) => i += 1,
            (b'"', Quote::Double) | (b'\'', Quote::Single) => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// An unquoted value in running text ends at a space, a quote or a
/// separator of the surrounding syntax.
fn inline_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'\'' | b'&' | b',' | b';' => break,
            // `\"` ends a string, `\n` a line, inside a JSON document's text.
            b'\\' if matches!(bytes.get(i + 1), Some(b'"' | b'n' | b'r' | b't')) => break,
            _ => i += 1,
        }
    }
    i
}

/// `<password>x</password>`.
fn xml_element_value(text: &str, from: usize) -> Option<Range<usize>> {
    let end = text[from..].find("</").map_or(text.len(), |i| from + i);
    Some(trim_span(text, from..end)).filter(|r| !r.is_empty())
}

/// `password: |` followed by lines indented deeper than the key.
fn yaml_block_scalar(text: &str, key_start: usize, value_start: usize) -> Option<Range<usize>> {
    let indicator = text[value_start..line_end(text, value_start)].trim_end();
    let is_block = indicator.starts_with(['|', '>'])
        && indicator[1..]
            .chars()
            .all(|c| matches!(c, '-' | '+' | '0'..='9'));
    if !is_block {
        return None;
    }
    let key_line = line_start(text, key_start);
    let key_indent = indentation(&text[key_line..]);
    let first = line_end(text, value_start) + 1;
    let mut end = first;
    let mut at = first;
    while at < text.len() {
        let line = &text[at..line_end(text, at)];
        if !line.trim().is_empty() && indentation(line) <= key_indent {
            break;
        }
        end = at + line.len();
        at = end + 1;
    }
    Some(value_start..end.max(value_start + indicator.len()))
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

fn trim_span(text: &str, span: Range<usize>) -> Range<usize> {
    let value = &text[span.clone()];
    let start = span.start + (value.len() - value.trim_start().len());
    let end = span.start + value.trim_end().len();
    start..end.max(start)
}

fn unquoted(value: &str) -> &str {
    value.trim_matches(['"', '\''])
}
