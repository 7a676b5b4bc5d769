//! Table tests of the command policy, one module per class of the issue
//! that introduced them: hostile commands that must be refused (in many
//! spellings), and the operator reads that must stay accepted.

mod autonomy;
mod bounded;
mod catastrophic;
mod effects;
mod evaluation;
mod exfiltration;
mod expansion;
mod flags;
mod interactive;
mod operator_reads;
mod recall;
mod recall_platforms;
mod recall_runbooks;
mod two_shells;

use warden_policy::{Classification, classify};

/// Every command must be refused by the read tool.
pub fn refused(commands: &[&str]) {
    let accepted: Vec<String> = commands
        .iter()
        .filter_map(|c| {
            let v = classify(c);
            v.read_allowed().then(|| format!("  `{c}`: {}", v.reason))
        })
        .collect();
    assert!(
        accepted.is_empty(),
        "accepted but should be refused:\n{}",
        accepted.join("\n")
    );
}

/// Every command must be accepted by the read tool.
pub fn accepted(commands: &[&str]) {
    let refused: Vec<String> = commands
        .iter()
        .filter_map(|c| {
            let v = classify(c);
            (!v.read_allowed()).then(|| format!("  `{c}`: {}", v.reason))
        })
        .collect();
    assert!(
        refused.is_empty(),
        "refused but should be accepted:\n{}",
        refused.join("\n")
    );
}

/// Every command must satisfy `check`.
pub fn all(commands: &[&str], what: &str, check: impl Fn(&Classification) -> bool) {
    let wrong: Vec<String> = commands
        .iter()
        .filter_map(|c| {
            let v = classify(c);
            (!check(&v)).then(|| format!("  `{c}`: {v}"))
        })
        .collect();
    assert!(wrong.is_empty(), "not {what}:\n{}", wrong.join("\n"));
}
