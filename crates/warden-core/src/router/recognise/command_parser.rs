//! Stage 2: a request that is itself a shell command ("df -h",
//! "systemctl status nginx", "$ uptime", "run docker ps"), recognised by
//! the rules the agentic loop also uses (`crate::text`).

use super::intent::Intent;

pub fn as_command(original: &str) -> Option<Intent> {
    crate::text::command_in(original).map(|command| Intent::Run { command })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixed_and_quoted_commands() {
        assert_eq!(
            as_command("run `journalctl -n 5`"),
            Some(Intent::Run {
                command: "journalctl -n 5".into()
            })
        );
        assert_eq!(
            as_command("$ uptime"),
            Some(Intent::Run {
                command: "uptime".into()
            })
        );
    }
}
