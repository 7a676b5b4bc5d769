//! The executor's gates, in the order of DESIGN.md: profile/toolset →
//! deny list → schema → FSM gate → strict resolution → routing validation
//! → command policy → control level / approval. Nothing here runs
//! anything; `Executor::prepare` acts on the verdict.

use super::*;

impl Executor<'_> {
    /// Every gate, in order. Nothing here runs anything.
    pub(super) fn admit(
        &self,
        session: &mut Session,
        proposed: &ProposedCall,
        kind: ToolKind,
        at: Moment,
        auth: Authorization<'_>,
    ) -> Result<Gate, ToolError> {
        // 1. Profile / toolset.
        if let Some(toolset) = &self.settings.toolset {
            if !toolset.iter().any(|t| t == &proposed.tool) {
                return Err(ToolError::new(
                    ErrorCode::PolicyBlocked,
                    format!("tool `{}` is not in this session's toolset", proposed.tool),
                ));
            }
        }
        // 2. Deny list.
        if self
            .settings
            .denied_tools
            .iter()
            .any(|t| t == &proposed.tool)
        {
            return Err(ToolError::new(
                ErrorCode::PolicyBlocked,
                format!("tool `{}` is denied by configuration", proposed.tool),
            ));
        }
        // 3. Schema.
        let call = ToolCall::parse(&proposed.tool, &proposed.arguments).map_err(invalid_input)?;
        // 4. FSM gate.
        session.fsm.can_execute_tool(kind).map_err(|block| {
            ToolError::new(
                block.code,
                format!("{} (state {})", block.message, block.state),
            )
            .with_hint(block.recovery_hint)
        })?;
        // 5. Strict resolution (writes need a discovered target).
        let target = self.resolve_target(session, &call, kind, at)?;
        // 6. Routing validation (no file/exec on a parent of what the user named).
        if let Some(target) = &target {
            check_routing(session, &call, target, at)?;
        }
        // 7. Command policy (and arguments only the target can judge).
        let plan = commands::plan_with(&call, target.as_ref(), self.guest_api);
        api_dispatch::check_guest_arguments(&call, target.as_ref())?;
        check_command_policy(&call, kind, &plan)?;
        // A locked guest or a template refuses the change: no approval asked.
        self.refuse_by_guest_state(&plan, target.as_ref())?;
        // 8. Control level / approval.
        if kind == ToolKind::Write {
            match (self.settings.control_level, auth) {
                (ControlLevel::ReadOnly, _) => {
                    return Err(ToolError::new(
                        ErrorCode::PolicyBlocked,
                        "the control level is read_only: write tools are refused",
                    )
                    .with_hint(
                        "ask the operator to raise the control level, or answer from reads",
                    ));
                }
                // A note in the user's own words needs no approval: it is
                // what they asked for, and it changes no machine.
                (ControlLevel::Controlled | ControlLevel::Autonomous, Authorization::None)
                    if gates::users_own_note(&call, &session.user_words) => {}
                (ControlLevel::Controlled, Authorization::None) => {
                    let approval = self.request_approval(
                        session,
                        proposed,
                        &call,
                        target.as_ref(),
                        &plan,
                        at,
                    )?;
                    return Ok(Gate::NeedsApproval(approval));
                }
                (
                    ControlLevel::Controlled | ControlLevel::Autonomous,
                    Authorization::Approved(approval),
                ) => {
                    if approval.arguments_hash
                        != arguments_hash(&proposed.tool, &proposed.arguments)
                    {
                        return Err(ToolError::new(
                            ErrorCode::PolicyBlocked,
                            "the approved call differs from this one",
                        ));
                    }
                }
                // No human looks: only what the policy fully understands
                // runs, and only up to medium risk; a high-risk write asks
                // for approval as at the controlled level.
                (ControlLevel::Autonomous, Authorization::None) => {
                    gates::check_understood(&plan)?;
                    if gates::autonomy_for(gates::plan_risk(&plan))
                        == gates::Autonomy::NeedsApproval
                    {
                        let approval = self.request_approval(
                            session,
                            proposed,
                            &call,
                            target.as_ref(),
                            &plan,
                            at,
                        )?;
                        return Ok(Gate::NeedsApproval(approval));
                    }
                }
            }
        }
        Ok(Gate::Admitted(Admitted { call, target, plan }))
    }
}
