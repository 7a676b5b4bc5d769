//! Bounded capture of one output stream. A command may print gigabytes; the
//! model and the operator need the beginning (headers, the first error) and
//! the end (the summary, the last error), so the first half of the budget
//! keeps the head, the second half is a ring buffer over the tail, and what
//! fell in between is replaced by a marker line that says how much.

use crate::utf8_edges::{complete_prefix_len, continuation_prefix_len};
use std::collections::VecDeque;

/// What a stream produced, rendered for people: lossy UTF-8, with a marker
/// where bytes were dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RenderedStream {
    pub text: String,
    pub truncated: bool,
}

#[derive(Debug)]
pub(crate) struct CappedStream {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_limit: usize,
    tail_limit: usize,
    total: u64,
}

impl CappedStream {
    /// `limit` bytes in all: half for the head, half for the tail.
    pub fn new(limit: usize) -> Self {
        let head_limit = limit / 2;
        CappedStream {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_limit,
            tail_limit: limit - head_limit,
            total: 0,
        }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.total = self.total.saturating_add(bytes.len() as u64);
        let room = self.head_limit.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        if rest.len() >= self.tail_limit {
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - self.tail_limit..]);
        } else {
            let overflow = (self.tail.len() + rest.len()).saturating_sub(self.tail_limit);
            self.tail.drain(..overflow);
            self.tail.extend(rest);
        }
    }

    fn kept(&self) -> u64 {
        (self.head.len() + self.tail.len()) as u64
    }

    pub fn render(&self) -> RenderedStream {
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let omitted = self.total.saturating_sub(self.kept());
        if omitted == 0 {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return RenderedStream {
                text: String::from_utf8_lossy(&all).into_owned(),
                truncated: false,
            };
        }
        // Cut on character boundaries so the edges do not show U+FFFD for a
        // character that was merely split; the cut bytes count as omitted.
        let head = &self.head[..complete_prefix_len(&self.head)];
        let tail_start = continuation_prefix_len(&tail);
        let tail = &tail[tail_start..];
        let omitted = omitted + (self.head.len() - head.len()) as u64 + tail_start as u64;
        let mut text = String::from_utf8_lossy(head).into_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("… [{omitted} bytes omitted] …\n"));
        text.push_str(&String::from_utf8_lossy(tail));
        RenderedStream {
            text,
            truncated: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_kept_whole() {
        let mut s = CappedStream::new(16);
        s.push(b"hello ");
        s.push(b"world");
        assert_eq!(
            s.render(),
            RenderedStream {
                text: "hello world".into(),
                truncated: false
            }
        );
    }

    #[test]
    fn exactly_the_limit_is_not_truncated() {
        let mut s = CappedStream::new(10);
        s.push(b"0123456789");
        let r = s.render();
        assert_eq!(r.text, "0123456789");
        assert!(!r.truncated);
    }

    #[test]
    fn large_output_keeps_head_and_tail() {
        let mut s = CappedStream::new(10);
        for chunk in [b"abc".as_slice(), b"defghij", b"klmnop", b"qrstuvwxyz"] {
            s.push(chunk);
        }
        let r = s.render();
        assert!(r.truncated);
        assert_eq!(r.text, "abcde\n… [16 bytes omitted] …\nvwxyz");
    }

    #[test]
    fn one_huge_chunk() {
        let mut s = CappedStream::new(4);
        s.push(&[b'x'; 1000]);
        assert_eq!(s.render().text, "xx\n… [996 bytes omitted] …\nxx");
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        // "é" is 2 bytes, "€" 3: the head ends mid-"€", the tail starts mid-"é".
        let mut s = CappedStream::new(8);
        s.push("ab€".as_bytes()); // 5 bytes: head keeps "ab" + 2 of "€"
        s.push(&[b'-'; 20]);
        s.push("éxyz".as_bytes()); // tail keeps 1 byte of "é" + "xyz"
        let r = s.render();
        assert!(r.truncated);
        assert!(!r.text.contains('\u{fffd}'), "{:?}", r.text);
        assert_eq!(r.text, "ab\n… [25 bytes omitted] …\nxyz");
    }

    #[test]
    fn invalid_utf8_is_rendered_lossily() {
        let mut s = CappedStream::new(64);
        s.push(&[b'a', 0xff, b'b']);
        assert_eq!(s.render().text, "a\u{fffd}b");
    }

    #[test]
    fn zero_limit_keeps_only_the_count() {
        let mut s = CappedStream::new(0);
        s.push(b"abc");
        assert_eq!(s.render().text, "… [3 bytes omitted] …\n");
    }
}
