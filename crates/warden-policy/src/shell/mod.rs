//! The shell language: a syntax tree and a conservative parser.

mod ansi_c;
pub mod ast;
pub mod braces;
mod evaluation;
mod parser;
mod words;

pub use ansi_c::decode_ansi_c;
pub use parser::{ParseError, parse, parse_as};
pub use words::is_name;

#[cfg(test)]
mod tests;
