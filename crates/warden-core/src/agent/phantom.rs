//! Phantom detection (invariant 9): a final answer that claims actions or
//! live values with no successful tool call this turn is replaced.

/// Phrases that claim something was done or observed.
const CLAIMS: &[&str] = &[
    "i have ",
    "i've ",
    "i restarted",
    "i started",
    "i stopped",
    "i rebooted",
    "i deleted",
    "i removed",
    "i updated",
    "i changed",
    "i edited",
    "i added",
    "i installed",
    "i fixed",
    "i applied",
    "i ran ",
    "i checked",
    "i verified",
    "has been ",
    "have been ",
    "was restarted",
    "was stopped",
    "was started",
    "successfully",
    "is now ",
    "are now ",
    "is running",
    "are running",
    "is active",
    "is up",
    "is down",
    "is healthy",
    "is stopped",
    "uptime",
    "load average",
    "cpu usage",
    "memory usage",
    "disk usage",
    "added.",
    "done.",
    "restarted.",
    "fixed.",
    "the logs show",
    "logs show",
];

/// Does `text` claim actions or live values?
pub fn makes_claims(text: &str) -> bool {
    let lower = text.to_lowercase();
    CLAIMS.iter().any(|c| lower.contains(c)) || has_measurement(&lower)
}

/// A number with a unit of a live value: `93%`, `12 GB`, `3.2 GiB`.
fn has_measurement(lower: &str) -> bool {
    let bytes = lower.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if !b.is_ascii_digit() {
            continue;
        }
        let rest = lower[i + 1..]
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
            .trim_start();
        if ["%", "gb", "gib", "mb", "mib", "tb", "tib", "ms", "°c"]
            .iter()
            .any(|u| rest.starts_with(u))
        {
            return true;
        }
    }
    false
}

/// What the user sees instead of a phantom answer.
pub const PHANTOM_REPLACEMENT: &str = "I can't confirm that: no tool call succeeded in this turn, so I have no evidence for \
claims about actions taken or the live state of your systems. Nothing was changed by me. Ask me to check or to act, \
and I will run the tools and show you what they return.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims() {
        for text in [
            "I have restarted nginx on web1 and it is now running.",
            "Added.",
            "CPU is at 93%",
            "The disk has 12 GB free",
            "nginx is active",
        ] {
            assert!(makes_claims(text), "{text}");
        }
        for text in [
            "I can't reach web1.",
            "Which host do you mean?",
            "Restarting needs your approval.",
        ] {
            assert!(!makes_claims(text), "{text}");
        }
    }
}
