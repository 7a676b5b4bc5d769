//! Colour for status and risk, only on a terminal and never with
//! `NO_COLOR` set (https://no-color.org).

use std::io::IsTerminal;

#[derive(Debug, Clone, Copy)]
pub struct Paint {
    enabled: bool,
}

impl Paint {
    fn for_stream(is_terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Paint {
            enabled: is_terminal && !no_color,
        }
    }

    pub fn stdout() -> Self {
        Paint::for_stream(std::io::stdout().is_terminal())
    }

    pub fn stderr() -> Self {
        Paint::for_stream(std::io::stderr().is_terminal())
    }

    fn wrap(&self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn green(&self, text: &str) -> String {
        self.wrap("32", text)
    }

    pub fn red(&self, text: &str) -> String {
        self.wrap("31", text)
    }

    pub fn yellow(&self, text: &str) -> String {
        self.wrap("33", text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }
}

/// A risk level in its colour: high red, medium yellow, the rest plain.
pub fn risk_paint(paint: &Paint, risk: &str) -> String {
    match risk {
        "high_write" => paint.red(risk),
        "medium_write" => paint.yellow(risk),
        _ => risk.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_when_disabled_coloured_when_enabled() {
        let off = Paint { enabled: false };
        assert_eq!(off.red("x"), "x");
        let on = Paint { enabled: true };
        assert_eq!(on.red("x"), "\x1b[31mx\x1b[0m");
        assert_eq!(risk_paint(&on, "read_only"), "read_only");
    }
}
