//! One output stream of a running command, capped at a byte budget that
//! keeps the head and the tail. A command may print gigabytes; the model
//! and the operator need the beginning (headers, the first error) and the
//! end (the summary, the last error). The first half of the budget is the
//! head and goes out as it arrives (an agent streams it); what follows waits
//! in a ring buffer the size of the other half, and at the end goes out
//! whole when nothing was dropped, or after a marker line saying how much
//! was.
//!
//! Text is UTF-8 that never splits a character: an incomplete sequence at
//! the end of one read waits for the next, and the cuts fall on character
//! boundaries (the cut bytes count as omitted). Invalid bytes are rendered
//! lossily.

use std::collections::VecDeque;

use crate::utf8_edges::{complete_prefix_len, continuation_prefix_len};

/// The capped, streaming view of one stream.
#[derive(Debug)]
pub struct StreamCap {
    head_limit: usize,
    tail_limit: usize,
    head_len: usize,
    total: u64,
    /// Bytes of an incomplete character at the end of the head so far.
    pending: Vec<u8>,
    tail: VecDeque<u8>,
    /// Whether the head text sent so far ends a line (or is empty), so the
    /// marker starts on a line of its own.
    head_ends_line: bool,
}

/// What [`StreamCap::finish`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEnd {
    /// The rest of the output (the tail, after a marker when bytes were dropped).
    pub text: Option<String>,
    pub truncated: bool,
}

impl StreamCap {
    /// `limit` bytes in all: the first half streams at once, the second half
    /// is the tail.
    pub fn new(limit: usize) -> Self {
        let head_limit = limit / 2;
        StreamCap {
            head_limit,
            tail_limit: limit - head_limit,
            head_len: 0,
            total: 0,
            pending: Vec::new(),
            tail: VecDeque::new(),
            head_ends_line: true,
        }
    }

    /// Takes `bytes` just read; returns the text to send now, if any.
    pub fn push(&mut self, bytes: &[u8]) -> Option<String> {
        self.total = self.total.saturating_add(bytes.len() as u64);
        let room = self.head_limit - self.head_len;
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head_len += to_head.len();
        if rest.len() >= self.tail_limit {
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - self.tail_limit..]);
        } else if !rest.is_empty() {
            let overflow = (self.tail.len() + rest.len()).saturating_sub(self.tail_limit);
            self.tail.drain(..overflow);
            self.tail.extend(rest);
        }
        if to_head.is_empty() {
            return None;
        }
        self.pending.extend_from_slice(to_head);
        let complete = complete_prefix_len(&self.pending);
        if complete == 0 {
            return None;
        }
        let rest = self.pending.split_off(complete);
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending = rest;
        self.head_ends_line = text.ends_with('\n');
        Some(text)
    }

    /// Everything not sent yet, once the stream has closed.
    pub fn finish(self) -> StreamEnd {
        let kept = (self.head_len + self.tail.len()) as u64;
        let omitted = self.total.saturating_sub(kept);
        let tail: Vec<u8> = self.tail.into_iter().collect();
        if omitted == 0 {
            let mut rest = self.pending;
            rest.extend_from_slice(&tail);
            return StreamEnd {
                text: (!rest.is_empty()).then(|| String::from_utf8_lossy(&rest).into_owned()),
                truncated: false,
            };
        }
        // The head's unfinished character and the tail's leading fragment
        // are cut, and counted as omitted.
        let skip = continuation_prefix_len(&tail);
        let omitted = omitted + self.pending.len() as u64 + skip as u64;
        let mut text = String::new();
        if !self.head_ends_line {
            text.push('\n');
        }
        text.push_str(&format!("… [{omitted} bytes omitted] …\n"));
        text.push_str(&String::from_utf8_lossy(&tail[skip..]));
        StreamEnd {
            text: Some(text),
            truncated: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run(limit: usize, chunks: &[&[u8]]) -> (String, bool) {
        let mut cap = StreamCap::new(limit);
        let mut text = String::new();
        for chunk in chunks {
            if let Some(sent) = cap.push(chunk) {
                text.push_str(&sent);
            }
        }
        let end = cap.finish();
        text.push_str(end.text.as_deref().unwrap_or(""));
        (text, end.truncated)
    }

    #[test]
    fn output_within_the_limit_arrives_whole() {
        assert_eq!(
            run(16, &[b"hello ", b"world"]),
            ("hello world".into(), false)
        );
        assert_eq!(run(10, &[b"0123456789"]), ("0123456789".into(), false));
        assert_eq!(run(10, &[]), (String::new(), false));
    }

    #[test]
    fn the_head_streams_before_the_end() {
        let mut cap = StreamCap::new(8);
        assert_eq!(cap.push(b"ab").as_deref(), Some("ab"));
        assert_eq!(cap.push(b"cdef").as_deref(), Some("cd"));
        assert_eq!(cap.push(b"gh"), None);
        assert_eq!(
            cap.finish(),
            StreamEnd {
                text: Some("efgh".into()),
                truncated: false
            }
        );
    }

    #[test]
    fn long_output_keeps_head_and_tail_with_a_marker() {
        let (text, truncated) = run(10, &[b"abc", b"defghij", b"klmnop", b"qrstuvwxyz"]);
        assert!(truncated);
        assert_eq!(text, "abcde\n… [16 bytes omitted] …\nvwxyz");
    }

    #[test]
    fn one_huge_chunk() {
        assert_eq!(
            run(4, &[&[b'x'; 1000]]),
            ("xx\n… [996 bytes omitted] …\nxx".into(), true)
        );
    }

    #[test]
    fn characters_are_never_split_between_chunks() {
        let mut cap = StreamCap::new(64);
        let euro = "€".as_bytes();
        assert_eq!(cap.push(&[b'a', euro[0]]).as_deref(), Some("a"));
        assert_eq!(cap.push(&euro[1..2]), None);
        assert_eq!(cap.push(&euro[2..]).as_deref(), Some("€"));
    }

    #[test]
    fn cuts_drop_partial_characters() {
        // "é" is 2 bytes, "€" 3: the head ends mid-"€", the tail starts mid-"é".
        let (text, truncated) = run(8, &["ab€".as_bytes(), &[b'-'; 20], "éxyz".as_bytes()]);
        assert!(truncated);
        assert!(!text.contains('\u{fffd}'), "{text:?}");
        assert_eq!(text, "ab\n… [25 bytes omitted] …\nxyz");
    }

    #[test]
    fn a_head_ending_a_line_needs_no_extra_newline() {
        let (text, _) = run(6, &[b"ab\n", b"0123456789", b"xyz"]);
        assert_eq!(text, "ab\n… [10 bytes omitted] …\nxyz");
        // Also when a partial character after the line end is cut.
        let (text, _) = run(8, &[b"ab\n", &"€".as_bytes()[..1], &[b'-'; 20], b"wxyz"]);
        assert_eq!(text, "ab\n… [21 bytes omitted] …\nwxyz");
    }

    #[test]
    fn invalid_utf8_is_rendered_lossily() {
        assert_eq!(run(64, &[&[b'a', 0xff, b'b']]).0, "a\u{fffd}b");
    }

    #[test]
    fn zero_budget_keeps_only_the_count() {
        assert_eq!(run(0, &[b"abc"]), ("… [3 bytes omitted] …\n".into(), true));
    }

    proptest! {
        /// Whatever the chunking: short output arrives exactly; long output
        /// keeps exactly its first and last bytes around one marker.
        #[test]
        fn head_and_tail_survive_any_chunking(
            data in prop::collection::vec(b'a'..=b'z', 0..200),
            cuts in prop::collection::vec(1usize..40, 0..20),
            limit in 0usize..80,
        ) {
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut rest = data.as_slice();
            for cut in cuts {
                let (chunk, more) = rest.split_at(cut.min(rest.len()));
                chunks.push(chunk);
                rest = more;
            }
            chunks.push(rest);
            let (text, truncated) = run(limit, &chunks);
            let all = String::from_utf8(data.clone()).unwrap();
            if data.len() <= limit {
                prop_assert!(!truncated);
                prop_assert_eq!(text, all);
            } else {
                prop_assert!(truncated);
                let head = &all[..limit / 2];
                let tail = &all[all.len() - (limit - limit / 2)..];
                prop_assert!(text.starts_with(head));
                prop_assert!(text.ends_with(tail));
                let omitted = format!("[{} bytes omitted]", data.len() - limit);
                prop_assert!(text.contains(&omitted), "{}", text);
            }
        }
    }
}
