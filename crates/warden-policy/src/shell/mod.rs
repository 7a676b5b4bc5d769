//! The shell language: a syntax tree and a conservative parser.

pub mod ast;
pub mod braces;
mod parser;
mod words;

pub use parser::{ParseError, parse, parse_as};
pub use words::{decode_ansi_c, is_name};

#[cfg(test)]
mod tests;
