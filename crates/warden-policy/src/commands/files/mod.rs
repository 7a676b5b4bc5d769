//! Files and directories: listing, reading, finding, archives, pagers and
//! editors, and the common file writes.

use super::Rule;
use super::common::{always_read, high_write, low_write, medium_write};
use super::follow::{FollowSpec, rewrite, strip_follow};
use crate::invocation::{Invocation, OptSpec};
use crate::verdict::*;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("cat", always_read),
    ("tac", always_read),
    ("nl", always_read),
    ("head", always_read),
    ("ls", always_read),
    ("dir", always_read),
    ("du", always_read),
    ("df", always_read),
    ("stat", always_read),
    ("tree", always_read),
    ("basename", always_read),
    ("dirname", always_read),
    ("realpath", always_read),
    ("readlink", always_read),
    ("which", always_read),
    ("whereis", always_read),
    ("file", always_read),
    ("md5sum", always_read),
    ("sha1sum", always_read),
    ("sha256sum", always_read),
    ("sha512sum", always_read),
    ("cmp", always_read),
    ("diff", always_read),
    ("zcat", always_read),
    ("tail", tail),
    ("sort", sort),
    ("uniq", uniq),
    ("base64", base64),
    ("tee", tee),
    ("find", find),
    ("tar", tar),
    ("less", pager),
    ("more", pager),
    ("most", pager),
    ("vi", editor),
    ("vim", editor),
    ("nvim", editor),
    ("nano", editor),
    ("emacs", editor),
    ("ed", editor),
    ("man", pager),
    ("touch", low_write),
    ("mkdir", low_write),
    ("cp", medium_write),
    ("mv", medium_write),
    ("ln", medium_write),
    ("install", medium_write),
    ("rsync", medium_write),
    ("scp", medium_write),
    ("chmod", medium_write),
    ("chown", medium_write),
    ("chgrp", medium_write),
    ("chattr", medium_write),
    ("setfacl", medium_write),
    ("truncate", medium_write),
    ("rm", high_write),
    ("rmdir", high_write),
    ("unlink", high_write),
    ("shred", high_write),
    ("dd", high_write),
];

const TAIL_FOLLOW: FollowSpec = FollowSpec {
    follow_short: "fF",
    value_short: "cns",
    follow_long: &["--follow"],
};

fn obsolete_follow(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(['-', '+'])?;
    let without_f = rest.strip_suffix(['f', 'F']).filter(|w| !w.is_empty())?;
    let digits = without_f.trim_end_matches(['b', 'c', 'l']);
    (digits.bytes().all(|b| b.is_ascii_digit()) && without_f.len() <= digits.len() + 1)
        .then(|| &text[..text.len() - 1])
}

fn tail(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(arg) = inv
        .args
        .iter()
        .find(|a| obsolete_follow(a.as_str()).is_some())
    {
        let count = obsolete_follow(arg.as_str()).unwrap_or_default();
        let kept: Vec<String> = inv
            .args
            .iter()
            .filter_map(|a| match obsolete_follow(a.as_str()) {
                Some(c) if c.len() > 1 => Some(c.to_string()),
                Some(_) => None,
                None => Some(a.raw.to_string()),
            })
            .collect();
        let added: &[&str] = if count.len() > 1 { &[] } else { &["-n", "200"] };
        return Verdict::unbounded_with_rewrite(
            rewrite("tail", added, &kept),
            "`f` follows the file forever",
        );
    }
    let Some(kept) = strip_follow(inv, &TAIL_FOLLOW) else {
        return Verdict::Read;
    };
    let has_lines = inv.has_short('n')
        || inv.has_long_abbrev("--lines")
        || inv.has_short('c')
        || inv.has_long_abbrev("--bytes")
        || inv.args.iter().any(|a| {
            a.as_str().len() > 1
                && a.as_str().starts_with('-')
                && a.as_str()[1..].bytes().all(|b| b.is_ascii_digit())
        });
    let added: &[&str] = if has_lines { &[] } else { &["-n", "200"] };
    Verdict::unbounded_with_rewrite(
        rewrite("tail", added, &kept),
        "`-f` follows the file forever",
    )
}

fn sort(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('o') || inv.has_long_abbrev("--output") {
        return Verdict::write(Risk::MediumWrite, "`-o` writes the output to a file");
    }
    if inv.has_short('T')
        || inv.has_long_abbrev("--temporary-directory")
        || inv.has_long_abbrev("--compress-program")
    {
        return Verdict::unknown("writes temporary files or runs a compressor");
    }
    if inv.any_variable() {
        return Verdict::unknown("an argument from an expansion could be `-o`");
    }
    Verdict::Read
}

fn uniq(inv: &Invocation<'_, '_>) -> Verdict {
    let spec = OptSpec {
        short_with_value: "fsw",
        long_with_value: &[
            "--skip-fields",
            "--skip-chars",
            "--check-chars",
            "--all-repeated",
            "--group",
        ],
    };
    if inv.positionals(spec).nth(1).is_some() {
        return Verdict::write(Risk::MediumWrite, "a second operand is an output file");
    }
    Verdict::Read
}

fn base64(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_short('o') || inv.has_long_abbrev("--output") {
        return Verdict::write(Risk::MediumWrite, "`-o` writes a file");
    }
    Verdict::Read
}

fn tee(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.positionals(OptSpec::NONE).next().is_some() {
        return Verdict::write(Risk::MediumWrite, "writes its input to files");
    }
    Verdict::Read
}

fn find(inv: &Invocation<'_, '_>) -> Verdict {
    const WRITERS: &[&str] = &["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];
    const RUNNERS: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];
    if let Some(a) = inv.args.iter().find(|a| WRITERS.contains(&a.as_str())) {
        return Verdict::write(
            Risk::HighWrite,
            format!("`{}` deletes or writes files", a.as_str()),
        );
    }
    if let Some(a) = inv.args.iter().find(|a| RUNNERS.contains(&a.as_str())) {
        return Verdict::unknown(format!("`{}` runs a command on every match", a.as_str()));
    }
    if inv.any_variable()
        && inv
            .args
            .iter()
            .any(|a| a.shape == crate::invocation::ArgShape::Dynamic)
    {
        return Verdict::unknown("an argument from an expansion could be `-delete` or `-exec`");
    }
    Verdict::Read
}

fn tar(inv: &Invocation<'_, '_>) -> Verdict {
    let first = inv.arg(0).unwrap_or("");
    let lists = inv.has_short('t')
        || inv.has_long_abbrev("--list")
        || (!first.starts_with('-') && first.contains('t'));
    let modes = ['x', 'c', 'r', 'u', 'A'];
    let other_mode = modes
        .iter()
        .any(|&m| inv.has_short(m) || (!first.starts_with('-') && first.contains(m)))
        || inv.has_long_abbrev("--extract")
        || inv.has_long_abbrev("--create")
        || inv.has_long_abbrev("--append")
        || inv.has_long_abbrev("--delete");
    if lists
        && !other_mode
        && !inv.has_long_abbrev("--to-command")
        && !inv.has_short('I')
        && !inv.has_long_abbrev("--use-compress-program")
        && !inv.has_short('F')
        && !inv.has_long_abbrev("--checkpoint-action")
    {
        return Verdict::Read;
    }
    Verdict::write(Risk::MediumWrite, "creates or extracts an archive")
}

fn pager(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive(InteractiveCategory::Pager, "pages its output on a terminal")
}

fn editor(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(InteractiveCategory::Pager, "an interactive editor")
}
