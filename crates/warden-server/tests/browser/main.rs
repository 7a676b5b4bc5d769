//! Browser tests of the web UI (spec/ui.md hooks): Debian's headless
//! Chromium over WebDriver against a real server on loopback with a fake
//! OpenAI-compatible model server. They need `chromium` and
//! `chromium-driver` (scripts/browser/setup.sh installs them) and fail
//! with that message when either is missing. Screenshots of every page go
//! to `target/ui-screenshots/`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests: a panic is a failed test

mod approvals;
mod chat;
mod fake_model;
mod harness;
mod login;
mod pages;
mod security;
