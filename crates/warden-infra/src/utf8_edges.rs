//! Where a byte buffer cut at an arbitrary point stops being whole UTF-8
//! text, for output capped by size (the local executor's buffered capture
//! and the agent's streamed one): a cut never shows a broken character.

/// The length of `bytes` without a UTF-8 sequence cut short at its end.
pub fn complete_prefix_len(bytes: &[u8]) -> usize {
    // A sequence is at most 4 bytes: look back at most 3 for its lead byte.
    for back in 1..=bytes.len().min(4) {
        let index = bytes.len() - back;
        let byte = bytes[index];
        if byte & 0b1100_0000 == 0b1000_0000 {
            continue; // continuation byte: keep looking for the lead
        }
        let needed = match byte {
            0x00..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => return bytes.len(), // not UTF-8 at all: lossy rendering copes
        };
        return if back < needed { index } else { bytes.len() };
    }
    bytes.len()
}

/// How many continuation bytes (the rest of a character cut at its start)
/// begin `bytes`; at most 3.
pub fn continuation_prefix_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|b| **b & 0b1100_0000 == 0b1000_0000)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_inside_a_character_are_found_at_both_ends() {
        let text = "aé€😀".as_bytes(); // 1 + 2 + 3 + 4 bytes
        assert_eq!(complete_prefix_len(text), text.len());
        for cut in 0..=text.len() {
            let head = complete_prefix_len(&text[..cut]);
            assert!(std::str::from_utf8(&text[..head]).is_ok(), "cut at {cut}");
            assert!(cut - head < 4, "cut at {cut}");
            let skip = continuation_prefix_len(&text[cut..]);
            assert!(
                std::str::from_utf8(&text[cut + skip..]).is_ok(),
                "cut at {cut}"
            );
        }
        assert_eq!(complete_prefix_len(b""), 0);
        assert_eq!(complete_prefix_len(&[0xff]), 1);
        assert_eq!(continuation_prefix_len(&[0x80, 0x80, 0x80, 0x80]), 3);
    }
}
