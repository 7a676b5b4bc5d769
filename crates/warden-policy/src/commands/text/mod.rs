//! Text filters: counting, cutting, sorting, searching, and the programs
//! that embed a language (sed scripts and awk programs are inspected; jq
//! and yq filters cannot write or run anything).

mod awk;
mod filters;
mod grep;
mod json;
mod sed;

use super::Rule;

pub(crate) const RULES: &[(&str, Rule)] = &[
    ("wc", filters::wc),
    ("cut", filters::cut),
    ("tr", filters::tr),
    ("paste", filters::paste),
    ("column", filters::column),
    ("rev", filters::rev),
    ("fold", filters::fold),
    ("fmt", filters::fmt),
    ("expand", filters::expand),
    ("unexpand", filters::expand),
    ("comm", filters::comm),
    ("join", filters::join),
    ("numfmt", filters::numfmt),
    ("pr", filters::pr),
    ("tsort", filters::tsort),
    ("shuf", filters::shuf),
    ("sort", filters::sort),
    ("uniq", filters::uniq),
    ("seq", filters::seq),
    ("expr", filters::expr),
    ("factor", filters::factor),
    ("iconv", filters::iconv),
    ("look", filters::look),
    ("grep", grep::grep),
    ("egrep", grep::grep),
    ("fgrep", grep::grep),
    ("zgrep", grep::grep),
    ("zegrep", grep::grep),
    ("zfgrep", grep::grep),
    ("bzgrep", grep::grep),
    ("xzgrep", grep::grep),
    ("zstdgrep", grep::grep),
    ("rg", grep::ripgrep),
    ("sed", sed::sed),
    ("awk", awk::awk),
    ("gawk", awk::awk),
    ("mawk", awk::awk),
    ("nawk", awk::awk),
    ("jq", json::jq),
    ("yq", json::yq),
    ("xmllint", json::xmllint),
];
