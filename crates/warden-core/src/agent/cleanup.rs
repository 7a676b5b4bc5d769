//! Provider artifact cleanup: markup some models leak into their text
//! (reasoning blocks, DeepSeek's and ChatML's special tokens) is removed
//! before the user sees an answer.

/// Remove `<think>…</think>` blocks and special tokens like
/// `<｜tool▁calls▁begin｜>` or `<|im_end|>`.
pub fn clean(text: &str) -> String {
    let mut out = strip_blocks(text, "<think>", "</think>");
    out = strip_blocks(&out, "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>");
    out = strip_tokens(&out, "<｜", "｜>");
    out = strip_tokens(&out, "<|", "|>");
    out.trim().to_string()
}

fn strip_blocks(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        out.push_str(&rest[..start]);
        match rest[start..].find(close) {
            Some(end) => rest = &rest[start + end + close.len()..],
            // An unclosed block runs to the end.
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

fn strip_tokens(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let after = &rest[start + open.len()..];
        match after.find(close) {
            // Special tokens are short and have no spaces.
            Some(end) if end <= 48 && !after[..end].contains(char::is_whitespace) => {
                out.push_str(&rest[..start]);
                rest = &after[end + close.len()..];
            }
            _ => {
                out.push_str(&rest[..start + open.len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn artifacts_are_removed() {
        assert_eq!(
            clean("<think>planning…</think>nginx is active."),
            "nginx is active."
        );
        assert_eq!(clean("Done.<|im_end|>"), "Done.");
        assert_eq!(
            clean(
                "Result<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>x<｜tool▁calls▁end｜> ok"
            ),
            "Result ok"
        );
        assert_eq!(clean("a <| b |> c"), "a <| b |> c");
        assert_eq!(clean("<think>never closed"), "");
    }
}
