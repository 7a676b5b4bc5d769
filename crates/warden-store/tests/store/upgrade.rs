//! Upgrades keep everything: databases written by earlier releases' own
//! binaries (`tests/fixtures/upgrade/<release>/`, made by
//! `scripts/upgrade-fixtures.sh`, described in the README there) open with
//! today's store, migrate to today's schema, and hold every session,
//! message, approval, note, usage row, user, token, agent and audit record
//! they were written with; the audit chain verifies against its anchor, and
//! the database takes new writes. One module per fixture; the values
//! asserted were recorded when the fixture was made (its `views.txt` is
//! what that release itself showed).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod private;
mod stop05;
mod stop14;
mod support;
