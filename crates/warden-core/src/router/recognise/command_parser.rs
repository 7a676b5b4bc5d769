//! Stage 2: a request that is itself a shell command ("df -h",
//! "systemctl status nginx", "$ uptime", "run docker ps"), recognised by
//! the rules the agentic loop also uses (`crate::text`), with the host or
//! guest it is aimed at ("uptime on h2", "uptime @h2", "on h2: uptime").

use super::intent::Intent;

pub fn as_command(original: &str) -> Option<Intent> {
    crate::text::typed_command(original).map(|typed| Intent::Run {
        command: typed.command,
        on: typed.on,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixed_and_quoted_commands() {
        assert_eq!(
            as_command("run `journalctl -n 5`"),
            Some(Intent::Run {
                command: "journalctl -n 5".into(),
                on: None,
            })
        );
        assert_eq!(
            as_command("$ uptime"),
            Some(Intent::Run {
                command: "uptime".into(),
                on: None,
            })
        );
    }
}
