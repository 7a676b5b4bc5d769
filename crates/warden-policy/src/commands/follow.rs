//! Follow flags (`-f`, `--follow`) and the bounded rewrites that replace them.

use crate::invocation::{Invocation, is_short_cluster, long_matches_abbrev};

/// How a program spells "follow forever".
pub(crate) struct FollowSpec {
    /// Short flags that follow (`"fF"` for tail).
    pub follow_short: &'static str,
    /// Short options that take a value: in a cluster, what follows them is the value.
    pub value_short: &'static str,
    /// Long options that follow (GNU abbreviations count).
    pub follow_long: &'static [&'static str],
}

/// The arguments without their follow flags, as written, or `None` when
/// nothing follows. A follow flag inside a cluster is taken out of it
/// (`-fu nginx` becomes `-u nginx`).
pub(crate) fn strip_follow(inv: &Invocation<'_, '_>, spec: &FollowSpec) -> Option<Vec<String>> {
    let mut follows = false;
    let mut kept = Vec::with_capacity(inv.args.len());
    let mut options_ended = false;
    for arg in inv.args {
        let text = arg.as_str();
        if options_ended || !arg.is_literal() {
            kept.push(arg.raw.to_string());
            continue;
        }
        if text == "--" {
            options_ended = true;
            kept.push(arg.raw.to_string());
            continue;
        }
        if text.starts_with("--") {
            if spec
                .follow_long
                .iter()
                .any(|l| long_matches_abbrev(text, l))
            {
                follows = true;
            } else {
                kept.push(arg.raw.to_string());
            }
            continue;
        }
        if !is_short_cluster(text) {
            kept.push(arg.raw.to_string());
            continue;
        }
        let mut rebuilt = String::from("-");
        let mut removed = false;
        for (pos, c) in text[1..].char_indices() {
            if spec.value_short.contains(c) {
                rebuilt.push_str(&text[1 + pos..]);
                break;
            }
            if spec.follow_short.contains(c) {
                removed = true;
            } else {
                rebuilt.push(c);
            }
        }
        if removed {
            follows = true;
            if rebuilt.len() > 1 {
                kept.push(rebuilt);
            }
        } else {
            kept.push(arg.raw.to_string());
        }
    }
    follows.then_some(kept)
}

/// `program` + the flags to add + the kept arguments, joined by spaces.
pub(crate) fn rewrite(program: &str, added: &[&str], kept: &[String]) -> String {
    let mut out = String::from(program);
    for part in added.iter().copied().chain(kept.iter().map(String::as_str)) {
        out.push(' ');
        out.push_str(part);
    }
    out
}
