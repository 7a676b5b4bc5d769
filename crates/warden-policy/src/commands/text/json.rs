//! jq and yq: their filters cannot write files or run programs; yq's
//! `-i` edits files in place and `-s` splits output into files.

use crate::commands::common::{Globs, read_rule, walk_checked};
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::*;

const JQ: Options = Options {
    short_flags: "cnrjasSeCMRhV0",
    short_values: "fL",
    long_flags: &[
        "--compact-output",
        "--null-input",
        "--raw-output",
        "--raw-output0",
        "--join-output",
        "--ascii-output",
        "--slurp",
        "--sort-keys",
        "--exit-status",
        "--color-output",
        "--monochrome-output",
        "--raw-input",
        "--tab",
        "--unbuffered",
        "--stream",
        "--stream-errors",
        "--seq",
        "--args",
        "--jsonargs",
        "--help",
        "--version",
        "--build-configuration",
    ],
    long_values: &[
        "--from-file",
        "--indent",
        "--arg",
        "--argjson",
        "--slurpfile",
        "--rawfile",
        "--argfile",
    ],
    ..Options::GNU
};
read_rule!(jq, JQ, Globs::Harmless);

const YQ: Options = Options {
    short_flags: "CMPejnNrVhia",
    short_values: "oIpsd",
    long_flags: &[
        "--colors",
        "--no-colors",
        "--prettyPrint",
        "--exit-status",
        "--null-input",
        "--no-doc",
        "--unwrapScalar",
        "--raw-output",
        "--version",
        "--help",
        "--inplace",
        "--in-place",
        "--tojson",
        "--toyaml",
        "--yaml-output",
        "--yaml-roundtrip",
        "--compact-output",
        "--sort-keys",
        "--no-colors",
        "--front-matter",
        "--header-preprocess",
        "--verbose",
        "--slurp",
    ],
    long_values: &[
        "--output-format",
        "--input-format",
        "--indent",
        "--split-exp",
        "--expression",
        "--from-file",
        "--arg",
        "--argjson",
        "--xml-attribute-prefix",
        "--xml-content-name",
        "--csv-separator",
        "--lua-prefix",
        "--properties-separator",
    ],
    ..Options::GNU
};

/// `yq -i` edits files; `-s`/`--split-exp` writes one file per document.
pub(super) fn yq(inv: &Invocation<'_, '_>) -> Verdict {
    walk_checked(inv, &[&YQ], Globs::Refused, |tok| match tok {
        Tok::Short { flag: 'i', .. }
        | Tok::Long {
            name: "--inplace" | "--in-place",
            ..
        } => Some(Verdict::write(
            Risk::MediumWrite,
            "`-i` edits files in place",
        )),
        Tok::Short { flag: 's', .. }
        | Tok::Long {
            name: "--split-exp",
            ..
        } => Some(Verdict::write(
            Risk::LowWrite,
            "`--split-exp` writes a file per document",
        )),
        _ => None,
    })
}

/// `xmllint` checks and prints XML; `--output` writes a file, and the
/// interactive `--shell` is not listed.
pub(super) fn xmllint(inv: &Invocation<'_, '_>) -> Verdict {
    const XMLLINT: Options = Options {
        long_flags: &[
            "--format",
            "--noout",
            "--noblanks",
            "--valid",
            "--recover",
            "--nonet",
            "--nowarning",
            "--c14n",
            "--c14n11",
            "--exc-c14n",
            "--html",
            "--xinclude",
            "--noent",
            "--nocdata",
            "--nsclean",
            "--debug",
            "--timing",
            "--version",
            "--huge",
            "--quiet",
        ],
        long_values: &[
            "--xpath",
            "--schema",
            "--relaxng",
            "--encode",
            "--pretty",
            "--dtdvalid",
        ],
        style: crate::options::Style::Gnu,
        ..Options::GNU
    };
    walk_checked(inv, &[&XMLLINT], Globs::Harmless, |_| None)
}
