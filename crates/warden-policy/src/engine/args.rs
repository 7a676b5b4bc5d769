//! From shell words to the arguments a program receives: brace expansion
//! (bash), quote removal (done by the parser), and what the shell hands a
//! command through `xargs`.

use std::borrow::Cow;

use smallvec::SmallVec;

use crate::invocation::{Arg, ArgShape};
use crate::shell::ast::Word;
use crate::shell::braces::expand_braces;

/// Add to `out` the arguments of `words` (filled in place: the list is
/// large to move), brace-expanded when bash would expand them. A
/// brace expansion whose result cannot be known (it also has `$…`) becomes
/// one word that can be anything.
pub(super) fn expand_words<'w>(words: &'w [Word<'_>], out: &mut Args<'w>) {
    out.reserve(words.len());
    for word in words {
        if !word.braces {
            // Borrowed: the words outlive the walk of their command.
            out.push(Arg {
                text: Cow::Borrowed(&*word.text),
                raw: word.raw,
                shape: word.shape,
            });
            continue;
        }
        match expand_braces(word.raw) {
            Some(expanded) => out.extend(expanded.into_iter().map(|e| Arg {
                text: Cow::Owned(e.text),
                raw: word.raw,
                shape: if e.glob {
                    ArgShape::Glob
                } else {
                    ArgShape::Literal
                },
            })),
            None => out.push(unknowable(word.raw)),
        }
    }
}

/// A command's arguments: on the stack for most commands.
pub(super) type Args<'w> = SmallVec<[Arg<'w>; 8]>;

/// An argument whose text cannot be known: it may be any words, options
/// included.
pub(super) fn unknowable(raw: &str) -> Arg<'_> {
    Arg {
        text: Cow::Borrowed("$…"),
        raw,
        shape: ArgShape::Dynamic,
    }
}

/// What feeds a command's standard input.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Stdin {
    /// Whatever the line itself gets (a terminal, for all we know).
    Terminal,
    /// `< /dev/null`: end of input at once.
    Null,
    /// File names under literal directories (`find /etc -name …`): words
    /// that are not options and name no devices.
    Paths,
    /// Data the line provides: a pipe, a redirect, a heredoc.
    Data,
}

impl Stdin {
    pub(super) fn provided(self) -> bool {
        self != Stdin::Terminal
    }
}

/// The argument `xargs` appends from its input.
pub(super) fn xargs_input(stdin: Stdin) -> Arg<'static> {
    match stdin {
        Stdin::Paths => Arg {
            text: Cow::Borrowed("FILE"),
            raw: "FILE",
            shape: ArgShape::Inert,
        },
        Stdin::Terminal | Stdin::Data | Stdin::Null => Arg {
            text: Cow::Borrowed("$INPUT"),
            raw: "$INPUT",
            shape: ArgShape::Dynamic,
        },
    }
}

/// An argument that `xargs -I` rewrites takes the input's shape: a word
/// that is exactly the marker becomes the input; one that contains it
/// becomes unknown text.
pub(super) fn mark_replaced<'a>(arg: &Arg<'a>, marker: &str, input: &Arg<'static>) -> Arg<'a> {
    if arg.text == marker {
        return Arg {
            text: input.text.clone(),
            raw: arg.raw,
            shape: input.shape,
        };
    }
    if arg.text.contains(marker) {
        return unknowable(arg.raw);
    }
    arg.clone()
}
