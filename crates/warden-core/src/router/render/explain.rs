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
        format!("  at the autonomous level: {}", c.autonomy_text()),
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
  disk usage · memory · cpu · load · network · disk usage including containers
  top processes by cpu · top processes by memory · open ports · who is logged in
  kernel version · pending updates · failed units · errors in the last hour
  certificate expiry of example.com:443
  is ssh running · status of nginx · why did nginx exit
  logs of nginx · last 20 lines of the syslog · nginx logs with \"timeout\" since 1h
  list services · list containers · list resources
  list vms · list guests · list nodes · status of vm 101 · snapshots of web
  memory of web this week · cpu of pve1 today · network of ct 141 this month
  restart nginx · stop jellyfin and redis · start web1   (changes ask for your approval)
  stop web (a clean shutdown, forced after 180 s) · kill web · reboot ct 141
  take a snapshot of web named before-upgrade · roll back web to before-upgrade
  remember the backup runs at 02:00 · recall backup
  explain `journalctl -f` · or type a read-only command such as `df -h`
With a model configured (WARDEN_PROVIDER, WARDEN_BASE_URL, WARDEN_MODEL) anything else goes to it.";

/// The answer when nothing matched and no model is configured: the
/// nearest phrasings when some are close, else everything understood.
pub fn unmatched(text: &str, suggestions: &[String]) -> String {
    let text = text.trim();
    if suggestions.is_empty() {
        return format!(
            "I don't understand \"{text}\": it matches none of the requests I know, and no language model is configured.\n{HELP}"
        );
    }
    format!(
        "I don't understand \"{text}\", and no language model is configured. Did you mean:\n{}\n(\"help\" lists everything I understand.)",
        suggestions
            .iter()
            .map(|s| format!("  {s}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// Host answers for a dry run (`warden explain`): the check before a
/// service change finds the unit, so the rest of the plan shows. Every
/// other command answers with empty output.
pub fn dry_run_answers() -> Vec<crate::simulated::Answer> {
    vec![crate::simulated::Answer {
        target: None,
        matches: Box::new(|command: &str| command.contains(crate::router::markers::UNIT_CHECK)),
        output: crate::ports::ExecOutput {
            stdout: format!(
                "{}\nLoadState=loaded\nActiveState=active\nSubState=running\n",
                crate::router::markers::UNIT_CHECK
            ),
            stderr: String::new(),
            exit_code: 0,
            truncated: false,
        },
    }]
}
