//! Shared helpers for the corpus tests: where `shared/` is, and labelled rows.
#![allow(dead_code)]

use std::path::PathBuf;

use warden_policy::{Classification, classify};

/// `shared/` beside the repository (override with `WARDEN_SHARED`).
pub fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("WARDEN_SHARED") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    Read,
    Write,
    Interactive,
}

pub struct Row {
    pub line: usize,
    pub label: Label,
    pub command: String,
}

/// Rows of a `LABEL<TAB>command` file.
pub fn load_labelled(relative: &str) -> Vec<Row> {
    let path = shared_dir().join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e} (set WARDEN_SHARED)", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let (label, command) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("{relative}:{}: no tab", i + 1));
            let label = match label {
                "READ" => Label::Read,
                "WRITE" => Label::Write,
                "INTERACTIVE" => Label::Interactive,
                other => panic!("{relative}:{}: unknown label {other}", i + 1),
            };
            Row {
                line: i + 1,
                label,
                command: command.to_string(),
            }
        })
        .collect()
}

/// Does the classification match the label?
pub fn agrees(label: Label, c: &Classification) -> bool {
    match label {
        Label::Read => c.read_allowed(),
        Label::Write => !c.read_allowed(),
        Label::Interactive => !c.read_allowed() && c.interactive.is_some(),
    }
}

pub fn classify_row(row: &Row) -> Classification {
    classify(&row.command)
}
