//! Rules shared by many command families.

use crate::invocation::Invocation;
use crate::verdict::{Risk, Verdict};

/// The command never changes anything, whatever its arguments.
pub fn always_read(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::Read
}

/// Creates or touches something easily undone.
pub fn low_write(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::write(Risk::LowWrite, "changes files or state")
}

/// Changes state that matters but is recoverable.
pub fn medium_write(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::write(Risk::MediumWrite, "changes system state")
}

/// Destroys data or availability.
pub fn high_write(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::write(Risk::HighWrite, "destroys data or availability")
}
