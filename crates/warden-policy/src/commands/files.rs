//! Files and directories: listing, reading, finding, copying, deleting, permissions, archives.

use super::Rule;
#[allow(unused_imports)]
use super::common::*;

pub(crate) const RULES: &[(&str, Rule)] = &[];
