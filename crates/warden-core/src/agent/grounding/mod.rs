//! Answers grounded in evidence (invariant 9, issue 18 §4). The concrete
//! facts of a final answer — numbers with or without units, sizes,
//! percentages, versions, ports, PIDs, dates and times, names with a
//! state, the items of a list of live things, actions in any tense or
//! voice — must be found in this turn's tool results or the user's own
//! words:
//! - with no successful tool call, an unsupported fact retracts the answer
//!   ([`Judgement::Retract`]);
//! - with tool calls, it marks the answer unverified
//!   ([`Judgement::Unverified`]), and the answer stays as the model gave it.
//!
//! Which clauses state facts at all is [`crate::agent::phantom`]'s
//! decision (negatives, offers, plans, questions, general knowledge and
//! commands in code spans state none); this module takes each such clause
//! apart ([`facts`]) and looks for every part in the [`Evidence`].
//! Numbers match across spellings and units ([`quantity`]).
//!
//! Pure: no IO; the turn records the evidence as calls finish.

mod evidence;
mod facts;
mod quantity;
mod vocab;

pub use evidence::{CallEvidence, Evidence};

use warden_protocol::ToolKind;

use crate::agent::phantom;

/// A clause of the answer whose facts the evidence does not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported {
    /// The clause, lower case, as the detector cut it.
    pub clause: String,
    /// What of it is missing ("the number 312", "`traefik`").
    pub missing: Vec<String>,
}

impl Unsupported {
    /// `"the mail queue holds 312 messages." (the number 312)`.
    pub fn summary(&self) -> String {
        let mut clause: String = self.clause.chars().take(120).collect();
        if clause.len() < self.clause.len() {
            clause.push('…');
        }
        format!("\"{clause}\" ({})", self.missing.join(", "))
    }
}

/// What to do with an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    /// Every fact is in the evidence (or the answer states none).
    Grounded,
    /// No tool call succeeded and some fact is not in the evidence.
    Retract(Vec<Unsupported>),
    /// Tool calls succeeded, but some fact is not in what they returned.
    Unverified(Vec<Unsupported>),
}

/// Judge `answer` against this turn's `evidence`.
pub fn judge(answer: &str, evidence: &Evidence) -> Judgement {
    let gaps = unsupported(answer, evidence);
    if gaps.is_empty() {
        Judgement::Grounded
    } else if evidence.any_success() {
        Judgement::Unverified(gaps)
    } else {
        Judgement::Retract(gaps)
    }
}

/// The clauses of `answer` whose facts `evidence` does not hold.
pub fn unsupported(answer: &str, evidence: &Evidence) -> Vec<Unsupported> {
    let known = evidence.quantities();
    phantom::claims(answer)
        .iter()
        .filter_map(|claim| {
            let fact = facts::fact_of(claim);
            let mut missing = fact.missing(evidence, &known);
            if missing.is_empty() && !fact.has_anchors() && !evidence.any_success() {
                // A live value with nothing to look up only a tool could know.
                missing.push("no tool call succeeded this turn".to_string());
            }
            (!missing.is_empty()).then(|| Unsupported {
                clause: claim.clause.clone(),
                missing,
            })
        })
        .collect()
}

/// What the user is told when the turn ends while a write is unverified
/// (Gate 2 still holds the answer): a failed write is named with its exit
/// status and the first line of its error; only a write that succeeded is
/// called a change.
pub fn unverified_write_text(evidence: &Evidence) -> String {
    let writes: Vec<&CallEvidence> = evidence
        .calls()
        .iter()
        .filter(|c| c.kind == ToolKind::Write && !c.blocked)
        .collect();
    let Some(last) = writes.last() else {
        return UNVERIFIED_CHANGE.to_string();
    };
    if last.ok {
        return UNVERIFIED_CHANGE.to_string();
    }
    let line = last
        .first_error_line
        .as_deref()
        .map(|l| l.trim_end_matches(['.', ':']));
    let how = match (last.exit_code, line) {
        (Some(code), Some(line)) => format!("exited with status {code}: {line}"),
        (Some(code), None) => format!("exited with status {code}"),
        (None, Some(line)) => format!("failed: {line}"),
        (None, None) => "failed".to_string(),
    };
    let mut text = format!("The change failed: `{}` {how}.", last.described);
    let earlier: Vec<&str> = writes
        .iter()
        .filter(|c| c.ok)
        .map(|c| c.described.as_str())
        .collect();
    if !earlier.is_empty() {
        text.push_str(&format!(
            " Before it, `{}` ran and was not verified either.",
            earlier.join("`, `")
        ));
    }
    text.push_str(
        " It may have left things half done, and nothing has checked them since; ask me to check the current state.",
    );
    text
}

/// The Gate-2 text after a write that succeeded but was never read back.
pub const UNVERIFIED_CHANGE: &str = "I made a change but could not verify it yet; nothing confirms it worked. Please check it, or ask me to verify.";

#[cfg(test)]
mod tests;
