//! What flows between the parts of a pipeline or a loop: what feeds a
//! command's standard input, whether a reader stops after N lines, whether a
//! loop ends with its input.

use super::args::Stdin;
use super::text::program_name;
use crate::devices;
use crate::invocation::ArgShape;
use crate::shell::ast::*;

/// What the redirects feed standard input, if they feed it (the last one
/// wins): `< /dev/null` is the end of input at once.
pub(super) fn stdin_from(redirects: &[Redirect<'_>]) -> Option<Stdin> {
    redirects
        .iter()
        .rev()
        .filter(|r| r.fd.is_none_or(|fd| fd == 0))
        .find_map(|r| match r.op {
            RedirectOp::Input
                if r.target.shape == ArgShape::Literal && r.target.text == "/dev/null" =>
            {
                Some(Stdin::Null)
            }
            RedirectOp::Input
            | RedirectOp::Heredoc
            | RedirectOp::Herestring
            | RedirectOp::DupInput
            | RedirectOp::ReadWrite => Some(Stdin::Data),
            _ => None,
        })
}

/// What a pipeline stage gives the next one.
pub(super) fn output_of(command: &Command<'_>) -> Stdin {
    match command {
        Command::Simple(simple) if prints_file_names(simple) => Stdin::Paths,
        Command::Simple(simple) if prints_nothing(simple) => Stdin::Null,
        _ => Stdin::Data,
    }
}

/// `echo`, `echo -n`, `printf ''`, `true`: at most an empty line, then the
/// end of input (`echo | openssl s_client …` sends the server nothing).
fn prints_nothing(simple: &SimpleCommand<'_>) -> bool {
    let Some((name, args)) = simple.words.split_first() else {
        return false;
    };
    if name.shape != ArgShape::Literal || !simple.redirects.is_empty() {
        return false;
    }
    let literal = |w: &Word<'_>| w.shape == ArgShape::Literal && !w.braces;
    match program_name(&name.text) {
        Some("echo") => args
            .iter()
            .all(|w| literal(w) && matches!(&*w.text, "" | "-n")),
        Some("printf") => {
            matches!(args, [format] if literal(format) && matches!(&*format.text, "" | "\\n"))
        }
        Some("true" | ":") => args.is_empty(),
        _ => false,
    }
}

/// `find DIR… [tests]` prints names under literal directories, one per line
/// (its actions and `-print0`/`-printf` print something else).
pub(super) fn prints_file_names(simple: &SimpleCommand<'_>) -> bool {
    let Some((name, args)) = simple.words.split_first() else {
        return false;
    };
    if program_name(&name.text) != Some("find") || name.shape != ArgShape::Literal {
        return false;
    }
    let mut in_expression = false;
    for arg in args {
        if arg.shape != ArgShape::Literal {
            return false;
        }
        let text: &str = &arg.text;
        if matches!(text, "-H" | "-L" | "-P") && !in_expression {
            continue;
        }
        in_expression |= text.starts_with('-') || text == "(" || text == "!";
        if in_expression {
            let prints_other = (text.starts_with("-print") && text != "-print")
                || text.starts_with("-fprint")
                || matches!(
                    text,
                    "-ls" | "-fls" | "-exec" | "-execdir" | "-ok" | "-okdir" | "-delete"
                );
            if prints_other {
                return false;
            }
        } else if !text.starts_with(['/', '.']) || devices::literal_kind(text).is_some() {
            // A start directory that could print names starting with `-`,
            // or one under /dev.
            return false;
        }
    }
    true
}

/// Does this pipeline stage exit after a bounded amount of input whatever
/// it is fed (`head`, `head -n 5`, `head -c 100`)?
pub(super) fn stops_reading(command: &Command<'_>) -> bool {
    let Command::Simple(simple) = command else {
        return false;
    };
    let Some((name, args)) = simple.words.split_first() else {
        return false;
    };
    if program_name(&name.text) != Some("head") || name.shape != ArgShape::Literal {
        return false;
    }
    let mut words = args
        .iter()
        .map(|w| (w.shape == ArgShape::Literal, &*w.text));
    while let Some((literal, text)) = words.next() {
        if !literal {
            return false;
        }
        let count = match text {
            "-n" | "-c" | "--lines" | "--bytes" => match words.next() {
                Some((true, value)) => value,
                _ => return false,
            },
            "-q" | "-v" | "--quiet" | "--silent" | "--verbose" => continue,
            _ => match text
                .strip_prefix("--lines=")
                .or_else(|| text.strip_prefix("--bytes="))
                .or_else(|| text.strip_prefix("-n"))
                .or_else(|| text.strip_prefix("-c"))
                .or_else(|| text.strip_prefix('-'))
            {
                Some(value) => value,
                None => return false,
            },
        };
        // A count of eight digits or more bounds nothing useful.
        if count.is_empty() || count.len() > 7 || !count.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    }
    true
}

/// `while read line; do …; done` ends with its input.
pub(super) fn loop_reads_input(compound: &Compound<'_>) -> bool {
    let Some(condition) = compound.bodies.first() else {
        return false;
    };
    let Some(last) = condition.items.last() else {
        return false;
    };
    let Some(pipeline) = last.pipelines.last() else {
        return false;
    };
    matches!(
        pipeline.commands.last(),
        Some(Command::Simple(s)) if s.words.first().is_some_and(|w| w.text == "read")
    )
}
