//! The policy gates of the pipeline that need no IO: schema errors as
//! envelopes, routing validation (invariant 8) and the command policy
//! (invariant 4), plus the hash that binds an approval to its exact call.

use serde_json::{Value, json};
use warden_protocol::{ErrorCode, Resource, ToolError, ToolKind};

use super::Moment;
use super::Session;
use super::commands::{Plan, quote, write_file_command};
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
    if let Some(rewrite) = &interactive.rewrite {
        error = error
            .with_hint(format!("run `{rewrite}` instead"))
            .with_detail("rewrite", json!(rewrite))
            .auto_recoverable();
    }
    Err(error)
}
