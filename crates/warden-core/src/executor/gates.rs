//! The policy gates of the pipeline that need no IO: schema errors as
//! envelopes, routing validation (invariant 8) and the command policy
//! (invariant 4), plus the hash that binds an approval to its exact call.

use serde_json::{Value, json};
use warden_policy::Risk;
use warden_protocol::{ErrorCode, Resource, ToolError, ToolKind};

use super::Moment;
use super::Session;
use super::commands::{Plan, quote, write_file_command};
use crate::ports::ApiCall;
use crate::tools::{CallError, ToolCall};

pub(super) fn invalid_input(error: CallError) -> ToolError {
    let field = match &error {
        CallError::Invalid { field, .. } => field.clone(),
        CallError::SystemOnlyArgument(key) => Some(key.clone()),
        CallError::UnknownTool(_) | CallError::NotAnObject(_) => None,
    };
    let code = match error {
        CallError::UnknownTool(_) => ErrorCode::PolicyBlocked,
        _ => ErrorCode::InvalidInput,
    };
    let mut tool_error = ToolError::new(code, error.to_string())
        .with_hint("fix the arguments to match the tool's schema");
    if let Some(field) = field {
        tool_error = tool_error.with_detail("field", json!(field));
    }
    tool_error
}

/// A stable hash of the exact call (FNV-1a over tool and canonical JSON:
/// key order never changes it).
pub fn arguments_hash(tool: &str, arguments: &Value) -> String {
    let text = format!("{tool}\u{0}{}", warden_protocol::canonical_json(arguments));
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Tools that run commands or touch files on their target.
fn touches_the_target(call: &ToolCall) -> bool {
    matches!(
        call,
        ToolCall::Read(_)
            | ToolCall::FileEdit(_)
            | ToolCall::Control(crate::tools::args::ControlArgs::Command { .. })
            | ToolCall::Control(crate::tools::args::ControlArgs::Service { .. })
    )
}

/// Invariant 8: a file or command aimed at a parent while the user
/// explicitly referred to a child on it is refused, naming the child.
pub(super) fn check_routing(
    session: &Session,
    call: &ToolCall,
    target: &Resource,
    at: Moment,
) -> Result<(), ToolError> {
    if !touches_the_target(call) {
        return Ok(());
    }
    let children = session
        .context
        .explicit_descendants_of(&target.id, at.session);
    let Some(child) = children.first() else {
        return Ok(());
    };
    let child = &child.resource;
    crate::telemetry::routing_mismatch_block(call.name(), target.id.kind, child.id.kind);
    Err(ToolError::new(
        ErrorCode::RoutingMismatch,
        format!(
            "you referred to {} ({} {}), which runs on {}; target {} instead",
            child.name,
            child.id.kind.label(),
            child.id,
            target.name,
            child.name
        ),
    )
    .with_hint(format!("retry with target `{}`", child.id))
    .with_detail("suggested_target", json!(child.id.to_string())))
}

/// The commands a plan runs, as far as they are known before dispatch
/// (a replace writes content only known after its read; dispatch checks
/// that command again).
fn planned_commands(plan: &Plan) -> Vec<String> {
    match plan {
        // An API call sends no shell command (a VM command through the guest
        // agent is a `Run` plan, checked like any other).
        Plan::Internal | Plan::Api(_) => Vec::new(),
        Plan::Run(planned) => vec![planned.command.clone()],
        Plan::Replace { path, .. } => vec![
            format!("cat -- {}", quote(path)),
            write_file_command(path, ""),
        ],
    }
}

/// Every command any plan runs: catastrophic commands are refused at every
/// control level, and a command that needs a terminal, pages or never ends
/// is refused whatever the tool (writes included). The read tool runs only
/// provably read-only commands.
pub(super) fn check_command_policy(
    call: &ToolCall,
    kind: ToolKind,
    plan: &Plan,
) -> Result<(), ToolError> {
    for command in planned_commands(plan) {
        let verdict = warden_policy::classify(&command);
        check_catastrophic(&verdict)?;
        check_bounded(&command, &verdict)?;
        if kind == ToolKind::Read
            && !matches!(call, ToolCall::FileEdit(_))
            && !verdict.intent.is_read_only()
        {
            return Err(ToolError::new(
                ErrorCode::ReadOnlyViolation,
                format!(
                    "the read tool runs only read-only commands: {}",
                    verdict.reason
                ),
            )
            .with_hint("use the control tool (action command) for changes; it asks for approval"));
        }
    }
    Ok(())
}

/// At the autonomous level no human looks at a write: a command the policy
/// cannot fully parse or does not know is not run on its own.
pub(super) fn check_understood(plan: &Plan) -> Result<(), ToolError> {
    for command in planned_commands(plan) {
        let verdict = warden_policy::classify(&command);
        if !verdict.understood {
            return Err(ToolError::new(
                ErrorCode::PolicyBlocked,
                format!(
                    "`{command}` cannot be verified ({}); at the autonomous level it needs a human",
                    verdict.reason
                ),
            )
            .with_hint(
                "ask the operator to run it at the controlled level, where it is approved first",
            ));
        }
    }
    Ok(())
}

/// A note in the user's own words (`remember …` typed this turn) is
/// theirs to keep: stored and audited without an approval (the read_only
/// level still refuses it, as every write), since it changes no machine. Most of the message must be the note, so
/// a model cannot pass off a fragment of it as what the user asked for.
pub(super) fn users_own_note(call: &ToolCall, user_words: &str) -> bool {
    let ToolCall::Knowledge(crate::tools::args::KnowledgeArgs::Remember { note, .. }) = call else {
        return false;
    };
    let words = |text: &str| {
        text.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (note, said) = (words(note), words(user_words));
    !note.is_empty() && said.contains(&note) && note.len() * 2 >= said.len()
}

/// What the autonomous level does with a write no human has approved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Autonomy {
    /// Low and medium writes (restarts, reloads, starts and stops, an edit
    /// of one file) run unattended.
    Unattended,
    /// A high-risk write (recursive deletion, users, package removal,
    /// firewall flushes, destroying volumes, pools or guests, a rollback)
    /// waits for a human, exactly as at the controlled level.
    NeedsApproval,
}

/// Autonomy has a ceiling: the decision for a write of `risk`.
pub(super) fn autonomy_for(risk: Risk) -> Autonomy {
    if risk.needs_human() {
        Autonomy::NeedsApproval
    } else {
        Autonomy::Unattended
    }
}

/// The highest risk of what a plan does: the policy's risk of each command
/// it runs; for an API call, what the call destroys.
pub(super) fn plan_risk(plan: &Plan) -> Risk {
    match plan {
        Plan::Api(call) => api_risk(call),
        Plan::Internal => Risk::LowWrite,
        Plan::Run(_) | Plan::Replace { .. } => planned_commands(plan)
            .iter()
            .map(|command| warden_policy::classify(command).risk)
            .max()
            .unwrap_or(Risk::LowWrite),
    }
}

/// A rollback throws away everything since the snapshot; power, snapshots
/// and reads are recoverable; a command in a VM is classified like any.
fn api_risk(call: &ApiCall) -> Risk {
    match call {
        ApiCall::Rollback { .. } => Risk::HighWrite,
        ApiCall::VmShell { command, .. } => warden_policy::classify(command).risk,
        ApiCall::Power { .. } => Risk::MediumWrite,
        ApiCall::CreateSnapshot { .. } | ApiCall::SnapshotBeforeChange { .. } => Risk::LowWrite,
        ApiCall::ListSnapshots
        | ApiCall::History { .. }
        | ApiCall::StoragePools
        | ApiCall::Backups => Risk::ReadOnly,
    }
}

/// The last check before a command leaves for a host, whatever built it.
pub(super) fn check_dispatch(command: &str) -> Result<(), ToolError> {
    let verdict = warden_policy::classify(command);
    check_catastrophic(&verdict)?;
    check_bounded(command, &verdict)
}

fn check_catastrophic(verdict: &warden_policy::Classification) -> Result<(), ToolError> {
    if verdict.catastrophic {
        return Err(ToolError::new(
            ErrorCode::PolicyBlocked,
            format!("refused at every control level: {}", verdict.reason),
        ));
    }
    Ok(())
}

fn check_bounded(command: &str, verdict: &warden_policy::Classification) -> Result<(), ToolError> {
    let Some(interactive) = &verdict.interactive else {
        return Ok(());
    };
    let mut error = ToolError::new(
        ErrorCode::NonInteractive,
        format!(
            "`{command}` is {}: {}",
            interactive.category.as_str(),
            verdict.reason
        ),
    )
    .with_detail("category", json!(interactive.category.as_str()));
    match &interactive.rewrite {
        // Rewrites are for reads: the loop runs a read's bounded form on
        // its own. A write runs exactly as proposed or not at all, so its
        // bounded form is only a hint for a new proposal.
        Some(rewrite) if verdict.intent.is_read_only() => {
            error = error
                .with_hint(format!("run `{rewrite}` instead"))
                .with_detail("rewrite", json!(rewrite))
                .auto_recoverable();
        }
        Some(rewrite) => {
            error = error.with_hint(format!(
                "it contains a write, which is never rewritten; propose a bounded command \
                 yourself, e.g. `{rewrite}`"
            ));
        }
        None => {}
    }
    Err(error)
}

#[cfg(test)]
mod autonomy_tests {
    use std::time::Duration;

    use super::{Autonomy, autonomy_for, plan_risk};
    use crate::executor::commands::{Plan, PlannedCommand};
    use crate::ports::{ApiCall, ExecClass};
    use crate::tools::args::GuestOperation;

    fn run(command: &str) -> Plan {
        Plan::Run(PlannedCommand {
            on_parent: false,
            command: command.to_string(),
        })
    }

    #[test]
    fn autonomy_has_a_ceiling() {
        // (plan, unattended at the autonomous level)
        let rows: Vec<(Plan, bool)> = vec![
            (run("systemctl restart nginx"), true),
            (run("systemctl reload nginx"), true),
            (run("systemctl stop nginx"), true),
            (run("docker restart web"), true),
            (
                Plan::Replace {
                    path: "/etc/nginx/nginx.conf".into(),
                    old: "a".into(),
                    new: "b".into(),
                },
                true,
            ),
            (Plan::Internal, true),
            (run("rm -rf /srv/app/cache"), false),
            (run("find /srv -name '*.tmp' -delete"), false),
            (run("find /srv -name '*.tmp' | xargs rm"), false),
            (run("chmod -R 755 /srv"), false),
            (run("chown -R www-data /srv"), false),
            (run("iptables -F"), false),
            (run("nft flush ruleset"), false),
            (run("useradd bob"), false),
            (run("usermod -aG sudo bob"), false),
            (run("passwd bob"), false),
            (run("apt-get remove -y nginx"), false),
            (run("dnf remove nginx"), false),
            (run("apk del nginx"), false),
            (run("pip uninstall -y requests"), false),
            (run("parted /dev/sdb rm 1"), false),
            (run("lvremove -y vg/lv"), false),
            (run("zfs destroy tank/old"), false),
            (run("zpool destroy tank"), false),
            (run("ceph osd purge 3 --yes-i-really-mean-it"), false),
            (run("pveceph pool destroy p"), false),
            (run("qm destroy 100"), false),
            (run("pct destroy 101"), false),
            (
                Plan::Api(ApiCall::Rollback {
                    name: "before".into(),
                }),
                false,
            ),
            (
                Plan::Api(ApiCall::Power {
                    operation: GuestOperation::Stop,
                    shutdown: None,
                }),
                true,
            ),
            (
                Plan::Api(ApiCall::VmShell {
                    command: "rm -rf /var/lib/app".into(),
                    class: ExecClass::Write,
                    timeout: Duration::from_secs(5),
                }),
                false,
            ),
        ];
        for (plan, unattended) in rows {
            let expected = if unattended {
                Autonomy::Unattended
            } else {
                Autonomy::NeedsApproval
            };
            assert_eq!(autonomy_for(plan_risk(&plan)), expected, "{plan:?}");
        }
    }
}

#[cfg(test)]
mod note_tests {
    use serde_json::json;

    use super::users_own_note;
    use crate::tools::ToolCall;

    #[test]
    fn only_the_users_own_words_are_a_note_without_approval() {
        let remember = |note: &str| {
            ToolCall::parse("knowledge", &json!({"action": "remember", "note": note})).unwrap()
        };
        let rows = [
            ("remember backups run at 3am", "backups run at 3am", true),
            (
                "Remember that  the NAS is on UPS 2",
                "the nas is on ups 2",
                true,
            ),
            ("remember the NAS is on UPS 2", "the NAS is on UPS 3", false),
            (
                "remember the NAS is on UPS 2 and restarts weekly after updates",
                "NAS",
                false,
            ),
            ("restart nginx", "restart nginx is approved", false),
            ("remember x", "", false),
        ];
        for (said, note, own) in rows {
            assert_eq!(
                users_own_note(&remember(note), said),
                own,
                "{said} / {note}"
            );
        }
        let recall = ToolCall::parse(
            "knowledge",
            &json!({"action": "recall", "query": "backups"}),
        )
        .unwrap();
        assert!(!users_own_note(&recall, "backups"));
    }
}
