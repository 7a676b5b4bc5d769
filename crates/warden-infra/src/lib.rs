//! Warden's backends: where inventory comes from and where commands run.
#![forbid(unsafe_code)]
