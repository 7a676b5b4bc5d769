//! bash's `$'…'` quoting: its escapes decoded to the text a program receives.

/// Decode the escapes of bash's `$'…'` quoting.
pub fn decode_ansi_c(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            continue;
        }
        let (radix, max) = match e {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 2),
            'c' => {
                if let Some(ctl) = chars.next() {
                    out.push(char::from((ctl as u8) & 0x1f));
                }
                continue;
            }
            _ => {
                out.push('\\');
                out.push(e);
                continue;
            }
        };
        let mut value = if radix == 8 {
            e.to_digit(8).unwrap_or(0)
        } else {
            0
        };
        let mut digits = 0;
        while digits < max {
            match chars.peek().and_then(|d| d.to_digit(radix)) {
                Some(d) => {
                    value = value.saturating_mul(radix).saturating_add(d);
                    chars.next();
                    digits += 1;
                }
                None => break,
            }
        }
        if radix == 16 && digits == 0 {
            out.push('\\');
            out.push(e);
            continue;
        }
        out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
    }
    out
}
