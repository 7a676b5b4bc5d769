//! Baseline knowledge of the commands an operator reaches for every day,
//! grouped by family. The family tables registered after these (see
//! `commands/mod.rs`) refine or override individual entries.

use super::Rule;

mod files;
mod infra;
mod net;
mod services;
mod storage;
mod system;
mod text;

pub(super) const TABLES: [&[(&str, Rule)]; 7] = [
    files::RULES,
    text::RULES,
    system::RULES,
    net::RULES,
    infra::RULES,
    storage::RULES,
    services::RULES,
];
