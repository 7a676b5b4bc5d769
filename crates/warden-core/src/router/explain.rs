//! Answers that need no tool: what the command policy says about a
//! command, and what the router understands.

/// The policy's verdict on `command`, in words.
pub fn policy_answer(command: &str) -> String {
    let c = warden_policy::classify(command);
    let verdict = if c.catastrophic {
        "catastrophic: refused at every control level, even with approval"
    } else if c.read_allowed() {
        "read-only and bounded: the read tool runs it without asking"
    } else if c.intent.is_read_only() {
        "read-only but not bounded: the read tool refuses it"
    } else {
        "a write (or unknown): it needs the control tool and, at the controlled level, your approval"
    };
    let mut lines = vec![
        format!("`{command}` is {verdict}."),
        format!("  why:    {}", c.reason),
        format!("  intent: {}, risk: {}", c.intent.as_str(), c.risk.as_str()),
    ];
    if let Some(interactive) = &c.interactive {
        lines.push(format!(
            "  needs a terminal or never ends: {}",
            interactive.category.as_str()
        ));
        if let Some(rewrite) = &interactive.rewrite {
            lines.push(format!("  bounded alternative: {rewrite}"));
        }
    }
    lines.join("\n")
}

/// What the router answers without a model.
pub const HELP: &str = "\
Without a language model I understand requests like these (add \"on HOST\" for another host):
  disk usage · memory · cpu · load · network
  is ssh running · status of nginx · status of web1
  logs of nginx · last 20 lines of the syslog · nginx logs with \"timeout\" since 1h
  list services · list containers · list resources
  restart nginx · stop jellyfin · start web1   (changes ask for your approval)
  remember the backup runs at 02:00 · recall backup
  explain `journalctl -f` · or type a read-only command such as `df -h`
With a model configured (WARDEN_PROVIDER, WARDEN_BASE_URL, WARDEN_MODEL) anything else goes to it.";

/// The answer when nothing matched and no model is configured.
pub fn unmatched(text: &str) -> String {
    format!(
        "I can't answer \"{}\" without a language model, and it matches none of the requests I know.\n{HELP}",
        text.trim()
    )
}
