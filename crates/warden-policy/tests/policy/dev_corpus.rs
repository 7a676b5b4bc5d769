//! Every row of `shared/corpus/commands-dev.tsv` must pass.

use crate::support;

use support::{Label, agrees, classify_row, load_labelled};

#[test]
fn every_dev_corpus_row_passes() {
    let rows = load_labelled("corpus/commands-dev.tsv");
    assert!(rows.len() > 100, "corpus looks truncated");
    let mut failures = Vec::new();
    for row in &rows {
        let c = classify_row(row);
        if !agrees(row.label, &c) {
            failures.push(format!(
                "  line {}: {:?} `{}` → intent={} read_allowed={} interactive={:?} reason={}",
                row.line,
                row.label,
                row.command,
                c.intent.as_str(),
                c.read_allowed(),
                c.interactive.as_ref().map(|i| i.category.as_str()),
                c.reason
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows fail:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn no_write_or_interactive_row_is_accepted() {
    for row in load_labelled("corpus/commands-dev.tsv") {
        if row.label != Label::Read {
            assert!(
                !classify_row(&row).read_allowed(),
                "accepted: {}",
                row.command
            );
        }
    }
}
