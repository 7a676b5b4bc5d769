//! The providers against local fake servers that speak each real wire
//! format (recorded stream shapes), through the real HTTP client.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

mod support;

mod cases {
    mod anthropic;
    mod gemini;
    mod misbehaviour;
    mod models;
    mod openai;
    mod tls;
    mod transport;
    mod truncation;
    mod turns;
}
