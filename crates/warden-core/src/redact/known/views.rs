//! The views of a tool's output that [`super::KnownSecrets`] searches:
//! the text without whitespace (`fold`, `cut`, wrapped lines), the bytes
//! of its hex (contiguous runs, `xxd -p`, `od -An -tx1`, and line by line
//! the dumps of `xxd`, `hexdump -C`, `od -x`), the bytes of its base64 runs
//! (lines joined; standard and URL-safe, decoded from each of the four character
//! offsets, so a secret at any byte offset of a larger blob comes out),
//! and the hex and base64 of the reversed text (`base64 | rev`).
//!
//! Decoding is deliberately sloppy: a run of ordinary words decodes to
//! garbage, which matches nothing. Nothing here can fail.

/// Which view a match was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The text itself, whitespace removed.
    Text,
    /// Hex digits decoded (contiguous runs and dump lines).
    Hex,
    /// Dumps of little-endian 16-bit words (`od -x`, `hexdump`), swapped back.
    HexWords,
    /// Base64 runs (standard or URL-safe) decoded.
    Base64,
    /// Hex runs of the reversed text decoded.
    ReversedHex,
    /// Base64 runs of the reversed text decoded.
    ReversedBase64,
}

/// The fewest hex digits or base64 characters worth decoding: a registered
/// secret is at least [`super::MIN_SECRET_LEN`] bytes.
const MIN_HEX_RUN: usize = 2 * super::MIN_SECRET_LEN;
const MIN_BASE64_RUN: usize = (super::MIN_SECRET_LEN * 4).div_ceil(3);

/// Every view of `text`, in the order they are searched.
pub fn views(text: &str) -> Vec<(View, Vec<u8>)> {
    let stripped: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let (mut hex, words) = dump_lines(text);
    hex_runs(&stripped, &mut hex);
    // Base64 is wrapped at line ends, never broken by spaces: joining
    // lines only keeps the runs of ordinary text short (words), which is
    // most of the cost saved.
    let joined: Vec<u8> = text.bytes().filter(|&b| b != b'\n' && b != b'\r').collect();
    let mut base64 = Vec::new();
    base64_runs(&joined, &mut base64);
    let reversed: Vec<u8> = stripped.iter().rev().copied().collect();
    let mut reversed_hex = Vec::new();
    hex_runs(&reversed, &mut reversed_hex);
    let reversed_joined: Vec<u8> = joined.iter().rev().copied().collect();
    let mut reversed_base64 = Vec::new();
    base64_runs(&reversed_joined, &mut reversed_base64);
    vec![
        (View::Text, stripped),
        (View::Hex, hex),
        (View::HexWords, words),
        (View::Base64, base64),
        (View::ReversedHex, reversed_hex),
        (View::ReversedBase64, reversed_base64),
    ]
}

/// Not a digit of the encoding.
const NONE: u8 = 0xff;

/// Byte → value tables (a branch per byte is most of the decoding's cost).
const fn table(alphabet: &[(u8, u8, u8)]) -> [u8; 256] {
    let mut out = [NONE; 256];
    let mut i = 0;
    while i < alphabet.len() {
        let (from, to, value) = alphabet[i];
        let mut b = from;
        while b <= to {
            out[b as usize] = value + (b - from);
            b += 1;
        }
        i += 1;
    }
    out
}

static HEX: [u8; 256] = table(&[(b'0', b'9', 0), (b'a', b'f', 10), (b'A', b'F', 10)]);
static BASE64: [u8; 256] = table(&[
    (b'A', b'Z', 0),
    (b'a', b'z', 26),
    (b'0', b'9', 52),
    (b'+', b'+', 62),
    (b'-', b'-', 62),
    (b'/', b'/', 63),
    (b'_', b'_', 63),
]);

fn hex_value(b: u8) -> Option<u8> {
    let v = HEX[usize::from(b)];
    (v != NONE).then_some(v)
}

/// Decode pairs of hex digits; `digits` must all be hex digits.
fn decode_hex_pairs(digits: &[u8], out: &mut Vec<u8>) {
    for pair in digits.chunks_exact(2) {
        if let (Some(high), Some(low)) = (hex_value(pair[0]), hex_value(pair[1])) {
            out.push(high << 4 | low);
        }
    }
}

/// Every run of hex digits long enough, decoded at both parities (a run
/// may start with an odd digit of something else).
pub fn hex_runs(bytes: &[u8], out: &mut Vec<u8>) {
    for run in bytes.split(|&b| hex_value(b).is_none()) {
        if run.len() < MIN_HEX_RUN {
            continue;
        }
        decode_hex_pairs(run, out);
        decode_hex_pairs(&run[1..], out);
    }
}

/// The bytes of hex dump lines, consecutive lines joined (so a secret
/// across two lines of `xxd` is whole), and the same for dumps of 16-bit
/// words with each word's bytes swapped back (`od -x`).
pub fn dump_lines(text: &str) -> (Vec<u8>, Vec<u8>) {
    let mut bytes = Vec::new();
    let mut words = Vec::new();
    for line in text.lines() {
        let groups = dump_groups(line);
        let before = bytes.len();
        for group in &groups {
            decode_hex_pairs(group.as_bytes(), &mut bytes);
        }
        if groups.iter().all(|g| g.len() == 4) {
            for word in bytes[before..].chunks_exact(2) {
                words.extend([word[1], word[0]]);
            }
        }
    }
    (bytes, words)
}

/// The hex groups of one dump line: the offset (`00000010:`, `0000020`)
/// and the character column (`|text|` of `hexdump -C`, the text after
/// `xxd`'s groups) left out. Stops at the first group that is not hex.
fn dump_groups(line: &str) -> Vec<&str> {
    let mut rest = line.trim();
    if rest.ends_with('|') {
        if let Some(bar) = rest.find("  |") {
            rest = &rest[..bar];
        }
    }
    let mut tokens = rest.split_ascii_whitespace().peekable();
    let mut xxd = false;
    if let Some(first) = tokens.peek().copied() {
        let has_more = rest.len() > first.len();
        let digits = first.trim_end_matches(':');
        let offset = has_more
            && (6..=16).contains(&digits.len())
            && digits.bytes().all(|b| b.is_ascii_hexdigit());
        if offset {
            xxd = first.ends_with(':');
            tokens.next();
            rest = rest[first.len()..].trim_start();
        }
    }
    if xxd {
        if let Some(groups) = xxd_groups(rest) {
            return groups;
        }
    }
    tokens
        .take_while(|t| t.len() % 2 == 0 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .collect()
}

/// `xxd`'s groups, then two or more spaces, then one character per byte:
/// the split where the character column is exactly as long as the groups
/// hold bytes.
fn xxd_groups(rest: &str) -> Option<Vec<&str>> {
    let mut from = 0;
    while let Some(at) = rest[from..].find("  ") {
        let split = from + at;
        let head = &rest[..split];
        let tail = rest[split..].trim_start_matches(' ');
        let groups: Vec<&str> = head.split_ascii_whitespace().collect();
        let hex = groups
            .iter()
            .all(|t| t.len() % 2 == 0 && t.bytes().all(|b| b.is_ascii_hexdigit()));
        let count: usize = groups.iter().map(|g| g.len() / 2).sum();
        if hex && count > 0 && tail.chars().count() == count {
            return Some(groups);
        }
        from = split + 2;
    }
    None
}

fn is_base64(b: u8) -> bool {
    BASE64[usize::from(b)] != NONE
}

/// Decode base64 characters (both alphabets); a final partial group
/// gives the bytes it holds.
pub(super) fn decode_base64(chars: &[u8], out: &mut Vec<u8>) {
    let value = |c: u8| u32::from(BASE64[usize::from(c)] & 63);
    let mut groups = chars.chunks_exact(4);
    out.reserve(chars.len() / 4 * 3 + 2);
    for g in &mut groups {
        let acc = value(g[0]) << 18 | value(g[1]) << 12 | value(g[2]) << 6 | value(g[3]);
        let [_, b0, b1, b2] = acc.to_be_bytes();
        out.extend_from_slice(&[b0, b1, b2]);
    }
    let last = groups.remainder();
    let mut acc: u32 = 0;
    for &c in last {
        acc = acc << 6 | value(c);
    }
    let [_, b0, b1, b2] = (acc << (6 * (4 - last.len()))).to_be_bytes();
    out.extend_from_slice(&[b0, b1, b2][..last.len() * 6 / 8]);
}

/// Every run of base64 characters long enough (padding ends a run),
/// decoded from each of the four character offsets.
pub fn base64_runs(bytes: &[u8], out: &mut Vec<u8>) {
    for run in bytes.split(|&b| !is_base64(b)) {
        if run.len() < MIN_BASE64_RUN {
            continue;
        }
        for offset in 0..4 {
            decode_base64(&run[offset..], out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_of(text: &str) -> Vec<u8> {
        let (mut out, _) = dump_lines(text);
        let stripped: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        hex_runs(&stripped, &mut out);
        out
    }

    fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    #[test]
    fn dump_lines_of_each_tool() {
        let cases = [
            // xxd
            "00000000: 6865 6c6c 6f2d 7365 6372 6574 2d77 6f72  hello-secret-wor\n00000010: 6c64 0a                                  ld.\n",
            // xxd whose text column is hex itself
            "00000000: 6361 6665 6361 6665 6361 6665 6361 6665  cafecafecafecafe\n",
            // hexdump -C
            "00000000  68 65 6c 6c 6f 2d 73 65  63 72 65 74 2d 77 6f 72  |hello-secret-wor|\n00000010  6c 64 0a                                          |ld.|\n00000013\n",
            // od -An -tx1
            " 68 65 6c 6c 6f 2d 73 65 63 72 65 74 2d 77 6f 72\n 6c 64 0a\n",
        ];
        for case in cases {
            let bytes = hex_of(case);
            let found = contains(&bytes, b"hello-secret-world") || contains(&bytes, b"cafecafe");
            assert!(found, "{case}: {:?}", String::from_utf8_lossy(&bytes));
        }
    }

    #[test]
    fn od_words_are_swapped_back() {
        let od = "0000000 6568 6c6c 2d6f 6573 7263 7465 772d 726f\n0000020 646c 000a\n0000023\n";
        let (_, words) = dump_lines(od);
        assert!(contains(&words, b"hello-secret-world"), "{words:?}");
    }

    #[test]
    fn base64_at_every_offset() {
        // "xhello-secret-world" cut at each of four character offsets.
        let encoded = "eGhlbGxvLXNlY3JldC13b3JsZA==";
        for cut in 0..4 {
            let mut out = Vec::new();
            base64_runs(&encoded.as_bytes()[cut..], &mut out);
            assert!(contains(&out, b"secret-wor"), "cut {cut}: {out:?}");
        }
    }
}
