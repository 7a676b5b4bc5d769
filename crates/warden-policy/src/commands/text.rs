//! Text processing: grep, sed, awk, sort, jq, and the other filters.

use super::Rule;
#[allow(unused_imports)]
use super::common::*;

pub(crate) const RULES: &[(&str, Rule)] = &[];
