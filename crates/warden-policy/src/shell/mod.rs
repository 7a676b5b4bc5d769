//! The shell language: a syntax tree and a conservative parser.

pub mod ast;
mod parser;
mod words;

pub use parser::{ParseError, parse};
pub use words::{decode_ansi_c, is_name};

#[cfg(test)]
mod tests;
