//! Fuzz the parser and classifier: no input may panic, and an accepted
//! command must be consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = warden_policy::shell::parse(text);
        let c = warden_policy::classify(text);
        if c.read_allowed() {
            assert!(c.intent.is_read_only() && c.interactive.is_none() && !c.catastrophic);
        }
    }
});
