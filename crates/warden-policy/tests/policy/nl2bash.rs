//! Every line of the NL2Bash corpus classifies without a panic, and the
//! verdicts are internally consistent.

use crate::support;

use warden_policy::classify;

#[test]
fn every_nl2bash_line_classifies() {
    let path = support::shared_dir().join("corpus/nl2bash-commands.txt");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = String::from_utf8_lossy(&bytes);
    let mut count = 0;
    let mut accepted = 0;
    for line in text.lines() {
        let c = classify(line);
        count += 1;
        if c.read_allowed() {
            accepted += 1;
            assert!(
                c.intent.is_read_only() && c.interactive.is_none() && !c.catastrophic,
                "{line}"
            );
        }
        assert!(!c.reason.is_empty(), "no reason for {line}");
        if let Some(rewrite) = c.interactive.as_ref().and_then(|i| i.rewrite.as_deref()) {
            // A rewrite is bounded, and read-allowed when the line is read-only.
            let r = classify(rewrite);
            assert!(
                r.interactive.is_none() && !r.catastrophic,
                "rewrite of `{line}` is not bounded: {rewrite}"
            );
            assert!(
                !c.intent.is_read_only() || r.read_allowed(),
                "rewrite of `{line}` is not read-allowed: {rewrite}"
            );
        }
    }
    assert!(count > 12_000, "corpus truncated: {count}");
    println!("nl2bash: {count} commands, {accepted} read-allowed");
}
