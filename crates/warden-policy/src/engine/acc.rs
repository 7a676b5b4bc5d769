//! The accumulated verdict of a whole line: the highest intent and risk of
//! its parts, the first interactive finding, the first catastrophic one.

use crate::verdict::{Classification, Intent, Interactive, Risk};

#[derive(Default)]
pub(super) struct Acc {
    intent: Option<Intent>,
    risk: Option<Risk>,
    interactive: Option<(Interactive, String)>,
    catastrophic: Option<String>,
    write_reason: Option<String>,
    /// Some part is not known to the tables, could not be parsed, or
    /// evaluates text the classifier cannot see.
    unknown: bool,
    conditional_reason: Option<String>,
    /// `read-only: a, b`: the first four programs that read, built as the
    /// walk meets them (one allocation for the line).
    read_reason: String,
    read_count: u8,
}

const READ_PREFIX: &str = "read-only: ";

impl Acc {
    fn raise(&mut self, intent: Intent, risk: Risk) {
        self.intent = Some(self.intent.map_or(intent, |i| i.max(intent)));
        self.risk = Some(self.risk.map_or(risk, |r| r.max(risk)));
    }

    pub(super) fn write(&mut self, risk: Risk, reason: impl FnOnce() -> String) {
        self.raise(Intent::WriteOrUnknown, risk);
        if self.write_reason.is_none() {
            self.write_reason = Some(reason());
        }
    }

    /// A part the policy does not understand: not provably read-only, and
    /// not a write Warden can name either.
    pub(super) fn unknown(&mut self, reason: impl FnOnce() -> String) {
        self.unknown = true;
        self.write(Risk::MediumWrite, reason);
    }

    pub(super) fn read(&mut self, name: &str) {
        self.raise(Intent::ReadOnlyCertain, Risk::ReadOnly);
        if self.read_count >= 4 {
            return;
        }
        if self.read_reason.is_empty() {
            self.read_reason.reserve(64);
            self.read_reason.push_str(READ_PREFIX);
        } else if listed(&self.read_reason[READ_PREFIX.len()..], name) {
            return;
        } else {
            self.read_reason.push_str(", ");
        }
        self.read_reason.push_str(name);
        self.read_count += 1;
    }

    pub(super) fn conditional(&mut self, reason: impl FnOnce() -> String) {
        self.raise(Intent::ReadOnlyConditional, Risk::ReadOnly);
        if self.conditional_reason.is_none() {
            self.conditional_reason = Some(reason());
        }
    }

    pub(super) fn interactive(
        &mut self,
        interactive: Interactive,
        reason: impl FnOnce() -> String,
    ) {
        if self.interactive.is_none() {
            self.interactive = Some((interactive, reason()));
        }
    }

    pub(super) fn catastrophic(&mut self, reason: impl FnOnce() -> String) {
        if self.catastrophic.is_none() {
            self.catastrophic = Some(reason());
        }
    }

    pub(super) fn finish(self) -> Classification {
        let intent = self.intent.unwrap_or(Intent::ReadOnlyCertain);
        let risk = self.risk.unwrap_or(Risk::ReadOnly);
        let catastrophic = self.catastrophic.is_some();
        let (interactive, interactive_reason) = match self.interactive {
            Some((i, r)) => (Some(i), Some(r)),
            None => (None, None),
        };
        let reason = if let Some(reason) = self.catastrophic {
            format!("catastrophic: {reason}")
        } else if intent == Intent::WriteOrUnknown {
            self.write_reason
                .unwrap_or_else(|| "not provably read-only".to_string())
        } else if let Some(reason) = interactive_reason {
            reason
        } else if let Some(reason) = self.conditional_reason {
            reason
        } else if self.read_reason.is_empty() {
            "nothing runs".to_string()
        } else {
            self.read_reason
        };
        Classification {
            intent: if catastrophic {
                Intent::WriteOrUnknown
            } else {
                intent
            },
            risk: if catastrophic { Risk::HighWrite } else { risk },
            interactive,
            catastrophic,
            understood: !self.unknown,
            reason,
        }
    }
}

/// Is `name` one of the names of `list` (`a, b, c`)?
fn listed(list: &str, name: &str) -> bool {
    let bytes = list.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b',' && bytes[i + 1] == b' ' {
            if list.get(start..i) == Some(name) {
                return true;
            }
            i += 2;
            start = i;
        } else {
            i += 1;
        }
    }
    list.get(start..) == Some(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn listed_names() {
        assert!(super::listed("cat", "cat"));
        assert!(super::listed("cat, grep, wc", "grep"));
        assert!(super::listed("cat, grep, wc", "wc"));
        assert!(!super::listed("cat, grep, wc", "gre"));
        assert!(!super::listed("cat, grep", "cat, grep"));
        assert!(!super::listed("", "cat"));
        assert!(super::listed("", ""));
    }
}
