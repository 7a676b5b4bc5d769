//! The command policy against its tables, corpora and properties, as one
//! test binary (built and linked once): a module per former test file.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod support;

mod abbreviations;
mod dev_corpus;
mod engine;
mod nl2bash;
mod peers;
mod properties;
mod rewrites;
mod tables;
mod understood;
