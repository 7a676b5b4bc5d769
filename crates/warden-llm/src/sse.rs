//! An incremental Server-Sent-Events decoder (the WHATWG event-stream
//! rules). It is fed whatever byte slices the socket delivers: a chunk may
//! end mid-line, mid-field-name or mid-UTF-8 sequence, so bytes are buffered
//! and only complete lines are decoded. `id` and `retry` fields are ignored:
//! no model API resumes streams.

/// One dispatched event: the `event:` name (if any) and the `data:` lines
/// joined with `\n`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of a line whose terminator has not arrived yet.
    partial_line: Vec<u8>,
    /// The previous line ended in `\r`: a `\n` that follows belongs to it.
    after_cr: bool,
    /// The stream's first line is still ahead (a leading BOM is dropped).
    at_start: bool,
    event: Option<String>,
    data: Option<String>,
    /// A comment or a known field arrived: this is an event stream, even
    /// if no event was dispatched yet.
    saw_stream_line: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        SseDecoder {
            at_start: true,
            ..SseDecoder::default()
        }
    }

    /// Feed the next bytes; returns the events completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in bytes {
            let after_cr = std::mem::replace(&mut self.after_cr, false);
            match byte {
                b'\n' if after_cr => {}
                b'\n' => self.end_line(&mut events),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                other => self.partial_line.push(other),
            }
        }
        events
    }

    /// The stream ended: a last line without terminator and a last event
    /// without the closing blank line still count (servers do end that way).
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.partial_line.is_empty() {
            self.end_line(&mut events);
        }
        self.dispatch(&mut events);
        events
    }

    /// Whether the bytes so far were an event stream (comments or fields),
    /// as opposed to some other document.
    pub fn saw_stream_line(&self) -> bool {
        self.saw_stream_line
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let bytes = std::mem::take(&mut self.partial_line);
        let mut line = String::from_utf8_lossy(&bytes).into_owned();
        if std::mem::replace(&mut self.at_start, false) && line.starts_with('\u{feff}') {
            line.remove(0);
        }
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        if line.starts_with(':') {
            self.saw_stream_line = true;
            return; // a comment (often a keep-alive)
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        if matches!(field, "event" | "data" | "id" | "retry") {
            self.saw_stream_line = true;
        }
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            _ => {} // id, retry and unknown fields
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if let Some(data) = self.data.take() {
            events.push(SseEvent { event, data });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(decoder.feed(chunk));
        }
        events.extend(decoder.finish());
        events
    }

    fn data(text: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: text.to_string(),
        }
    }

    #[test]
    fn all_line_endings_and_optional_space() {
        let events = decode_all(&[b"data: a\n\ndata:b\r\n\r\ndata: c\r\rdata:  d\n\n"]);
        assert_eq!(events, vec![data("a"), data("b"), data("c"), data(" d")]);
    }

    #[test]
    fn multi_line_data_event_names_and_comments() {
        let events = decode_all(&[
            b": keep-alive\n\nevent: message_start\ndata: {\"a\":\ndata: 1}\n\n",
            b"event: ping\n\n",
            b"event: x\ndata\n\n",
        ]);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: Some("message_start".into()),
                    data: "{\"a\":\n1}".into()
                },
                SseEvent {
                    event: Some("x".into()),
                    data: String::new()
                },
            ]
        );
    }

    #[test]
    fn splits_inside_field_names_crlf_and_utf8() {
        let stream = "data: Grüße 🦀\r\n\r\ndata: [DONE]\n\n".as_bytes();
        let whole = decode_all(&[stream]);
        assert_eq!(whole, vec![data("Grüße 🦀"), data("[DONE]")]);
        for split in 0..stream.len() {
            let (a, b) = stream.split_at(split);
            assert_eq!(decode_all(&[a, b]), whole, "split at {split}");
        }
    }

    #[test]
    fn finish_flushes_an_event_without_blank_line() {
        assert_eq!(decode_all(&[b"data: {\"x\":1}"]), vec![data("{\"x\":1}")]);
        assert_eq!(decode_all(&[b"data: {\"x\":1}\n"]), vec![data("{\"x\":1}")]);
        assert_eq!(decode_all(&[b"event: only-a-name\n"]), vec![]);
    }

    #[test]
    fn comments_alone_make_a_stream_but_json_does_not() {
        let mut decoder = SseDecoder::new();
        assert!(decoder.feed(b": keep-alive\n\n").is_empty());
        assert!(decoder.saw_stream_line());
        let mut decoder = SseDecoder::new();
        decoder.feed(b"{\"error\": \"x\"}\n");
        assert!(!decoder.saw_stream_line());
    }

    #[test]
    fn leading_bom_is_dropped() {
        assert_eq!(
            decode_all(&["\u{feff}data: a\n\n".as_bytes()]),
            vec![data("a")]
        );
    }

    fn line_ending() -> impl Strategy<Value = &'static str> {
        prop_oneof![Just("\n"), Just("\r\n"), Just("\r")]
    }

    fn event_text() -> impl Strategy<Value = String> {
        // Data lines without line breaks; any Unicode, including ':'.
        (
            proptest::option::of("[a-z_]{1,12}"),
            proptest::collection::vec("[^\r\n]{0,20}", 1..4),
            line_ending(),
            proptest::bool::ANY,
        )
            .prop_map(|(name, lines, eol, comment)| {
                let mut text = String::new();
                if comment {
                    text.push_str(": note");
                    text.push_str(eol);
                }
                if let Some(name) = name {
                    text.push_str(&format!("event: {name}{eol}"));
                }
                for line in lines {
                    text.push_str(&format!("data: {line}{eol}"));
                }
                text.push_str(eol);
                text
            })
    }

    proptest! {
        #[test]
        fn any_split_yields_the_same_events(
            events in proptest::collection::vec(event_text(), 1..6),
            cuts in proptest::collection::vec(0usize..400, 0..12),
        ) {
            let stream = events.concat().into_bytes();
            let whole = decode_all(&[&stream]);
            prop_assert_eq!(whole.len(), events.len());
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (stream.len() + 1)).collect();
            cuts.sort_unstable();
            let mut pieces: Vec<&[u8]> = Vec::new();
            let mut start = 0;
            for cut in cuts {
                pieces.push(&stream[start..cut]);
                start = cut;
            }
            pieces.push(&stream[start..]);
            prop_assert_eq!(decode_all(&pieces), whole);
        }
    }
}
