//! Bounded rewrites of unbounded commands (`tail -f F` → `tail -n 200 F`):
//! the arguments as written, minus the follow option, plus the words that
//! bound the output. Everything else stays: the engine splices the new
//! arguments in place of the old ones, keeping the command name, its
//! variable prefixes, its redirects and the rest of the line.

use crate::invocation::Invocation;
use crate::options::{Options, Tok, walk_sets};

/// The arguments rewritten: tokens `drop` matches are taken out (a short
/// one out of its cluster: `-fn50` becomes `-n50`), and `added` go after
/// argument `after` (or first, when `None`). `None` when a dropped option
/// cannot be taken out faithfully (it sits in a quoted word), or when the
/// arguments cannot be read with `sets`.
pub(crate) fn rewrite_args(
    inv: &Invocation<'_, '_>,
    sets: &[&Options],
    drop: impl Fn(&Tok<'_>) -> bool,
    added: &[&str],
    after: Option<usize>,
) -> Option<String> {
    // Per argument: how many short flags it holds, and which are dropped.
    let mut shorts: Vec<Vec<(char, bool)>> = vec![Vec::new(); inv.args.len()];
    let mut dropped_whole = vec![false; inv.args.len()];
    for tok in walk_sets(sets, inv.args) {
        match tok {
            Tok::Short { index, flag, .. } => {
                let dropped = drop(&tok);
                shorts.get_mut(index)?.push((flag, dropped));
            }
            Tok::Long { index, .. } if drop(&tok) => *dropped_whole.get_mut(index)? = true,
            Tok::Unknown { .. } | Tok::Dynamic { .. } => return None,
            Tok::Long { .. } | Tok::Operand { .. } => {}
        }
    }
    let mut words: Vec<String> = Vec::with_capacity(inv.args.len() + added.len());
    if after.is_none() {
        words.extend(added.iter().map(|w| w.to_string()));
    }
    for (index, arg) in inv.args.iter().enumerate() {
        let flags = &shorts[index];
        if dropped_whole[index] {
            // A dropped long option's value is glued (`--follow=name`).
        } else if flags.iter().any(|&(_, dropped)| dropped) {
            if arg.raw != &*arg.text {
                return None;
            }
            let text: &str = &arg.text;
            let used: usize = 1 + flags.iter().map(|(c, _)| c.len_utf8()).sum::<usize>();
            let mut rebuilt = String::from("-");
            rebuilt.extend(flags.iter().filter(|(_, d)| !d).map(|(c, _)| c));
            let rest = text.get(used..).unwrap_or_default();
            if rebuilt.len() > 1 {
                rebuilt.push_str(rest);
                words.push(rebuilt);
            } else if !rest.is_empty() {
                // `-f=true` (pflag): the value goes with the flag.
                if !rest.starts_with('=') {
                    return None;
                }
            }
        } else {
            words.push(arg.raw.to_string());
        }
        if after == Some(index) {
            words.extend(added.iter().map(|w| w.to_string()));
        }
    }
    Some(words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invocation::Arg;

    const TAIL: Options = Options {
        short_flags: "fFqv",
        short_values: "nc",
        long_flags: &["--quiet"],
        long_optional: &["--follow"],
        long_values: &["--lines"],
        ..Options::GNU
    };

    fn rewrite(words: &[&'static str], added: &[&str]) -> Option<String> {
        let args: Vec<Arg<'static>> = words.iter().map(|w| Arg::literal(w)).collect();
        let inv = Invocation::new("tail", &args);
        rewrite_args(
            &inv,
            &[&TAIL],
            |t| {
                matches!(
                    t,
                    Tok::Short {
                        flag: 'f' | 'F',
                        ..
                    } | Tok::Long {
                        name: "--follow",
                        ..
                    }
                )
            },
            added,
            None,
        )
    }

    #[test]
    fn takes_out_only_the_follow_option() {
        assert_eq!(
            rewrite(&["-f", "x"], &["-n", "200"]).as_deref(),
            Some("-n 200 x")
        );
        assert_eq!(rewrite(&["-fn50", "x"], &[]).as_deref(), Some("-n50 x"));
        assert_eq!(
            rewrite(&["-qfn", "5", "x"], &[]).as_deref(),
            Some("-qn 5 x")
        );
        assert_eq!(rewrite(&["--follow=name", "x"], &[]).as_deref(), Some("x"));
        // An abbreviation is `--follow`, taken out whole.
        assert_eq!(rewrite(&["--foll", "x"], &[]).as_deref(), Some("x"));
        assert_eq!(rewrite(&["--fo=name", "x"], &[]).as_deref(), Some("x"));
        // `-n -f`: the `-f` is the value of `-n`, not a follow.
        assert_eq!(rewrite(&["-n", "-f", "x"], &[]).as_deref(), Some("-n -f x"));
        assert_eq!(rewrite(&["--bogus", "-f", "x"], &[]), None);
    }
}
