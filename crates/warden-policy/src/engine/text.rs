//! The line's text: where a command's arguments are (rewrites are spliced
//! there), program names from paths, and how redirects are spelled.

use crate::shell::ast::*;

/// Directories whose programs are the ones the bare name would find.
const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin/",
    "/usr/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
];

/// Where `part` (a slice of `src`) starts in `src`.
pub(super) fn offset_in(src: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(src.as_ptr() as usize)?;
    (start + part.len() <= src.len()).then_some(start)
}

/// The source range of a command's arguments (empty, after the name, when
/// it has none), or `None` when a redirect sits among them: a rewrite could
/// not keep it where it was.
pub(super) fn arguments_range(
    src: &str,
    simple: &SimpleCommand<'_>,
) -> Option<std::ops::Range<usize>> {
    let (name, args) = simple.words.split_first()?;
    let name_end = offset_in(src, name.raw)? + name.raw.len();
    let Some((first, last)) = args.first().zip(args.last()) else {
        return Some(name_end..name_end);
    };
    let start = offset_in(src, first.raw)?;
    let end = offset_in(src, last.raw)? + last.raw.len();
    let inside = simple
        .redirects
        .iter()
        .any(|r| offset_in(src, r.target.raw).is_none_or(|at| at > name_end && at < end));
    (!inside).then_some(start..end)
}

/// `/dev/null` and the standard streams.
pub(super) fn is_harmless_sink(target: &str) -> bool {
    matches!(
        target,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/fd/1" | "/dev/fd/2"
    )
}

pub(super) fn redirect_op_str(op: RedirectOp) -> &'static str {
    match op {
        RedirectOp::Input => "<",
        RedirectOp::Output => ">",
        RedirectOp::Append => ">>",
        RedirectOp::Clobber => ">|",
        RedirectOp::ReadWrite => "<>",
        RedirectOp::DupInput => "<&",
        RedirectOp::DupOutput => ">&",
        RedirectOp::OutputAll => "&>",
        RedirectOp::AppendAll => "&>>",
        RedirectOp::Heredoc => "<<",
        RedirectOp::Herestring => "<<<",
    }
}

/// The command's name as the registry knows it: a bare name, or a path in a
/// system binary directory (`/usr/bin/ls` is `ls`). Other paths are unknown.
pub(super) fn program_name(text: &str) -> Option<&str> {
    if !text.contains('/') {
        return (!text.is_empty()).then_some(text);
    }
    SYSTEM_BIN_DIRS.iter().find_map(|dir| {
        text.strip_prefix(dir)
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
    })
}
