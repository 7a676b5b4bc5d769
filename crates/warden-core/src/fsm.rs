//! The session FSM: RESOLVING → READING → WRITING → VERIFYING → READING.
//!
//! - Nothing may be written before something was discovered (RESOLVING).
//! - After a successful write, no further write and no final answer until a
//!   read or resolve call succeeds (VERIFYING). A write tool always moves the
//!   session to VERIFYING, whatever its command; a read tool never does.

use warden_protocol::{ErrorCode, FsmState, ToolKind};

/// Why the FSM refuses a tool call or a final answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsmBlock {
    pub state: FsmState,
    pub code: ErrorCode,
    pub message: &'static str,
    /// What the model should do instead.
    pub recovery_hint: &'static str,
}

/// A state change, for events and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub from: FsmState,
    pub to: FsmState,
}

impl Transition {
    pub fn changed(self) -> bool {
        self.from != self.to
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionFsm {
    state: FsmState,
}

impl SessionFsm {
    pub fn new() -> Self {
        SessionFsm::default()
    }

    pub fn state(&self) -> FsmState {
        self.state
    }

    /// Gate 1: may a tool of this kind run now?
    pub fn can_execute_tool(&self, kind: ToolKind) -> Result<(), FsmBlock> {
        let block = |message, recovery_hint| {
            Err(FsmBlock {
                state: self.state,
                code: ErrorCode::FsmBlocked,
                message,
                recovery_hint,
            })
        };
        match (self.state, kind) {
            (_, ToolKind::Resolve | ToolKind::Read) => Ok(()),
            (FsmState::Reading, ToolKind::Write) => Ok(()),
            (FsmState::Resolving, ToolKind::Write) => block(
                "nothing has been discovered yet: a write needs a discovered target",
                "find the target with query (action get or search) or discovery first",
            ),
            (FsmState::Writing, ToolKind::Write) => block(
                "another write is still in progress",
                "wait for the running write to finish, then verify it with a read",
            ),
            (FsmState::Verifying, ToolKind::Write) => block(
                "the last write has not been verified yet",
                "verify the last change with a read (e.g. check the service status) before writing again",
            ),
        }
    }

    /// Gate 2: may the model give its final answer now?
    pub fn can_final_answer(&self) -> Result<(), FsmBlock> {
        match self.state {
            FsmState::Resolving | FsmState::Reading => Ok(()),
            FsmState::Writing | FsmState::Verifying => Err(FsmBlock {
                state: self.state,
                code: ErrorCode::FsmBlocked,
                message: "the last write has not been verified yet",
                recovery_hint: "verify the change with a read tool before answering",
            }),
        }
    }

    /// A resolved `@mention` counts as discovery.
    pub fn on_discovery(&mut self) -> Transition {
        let from = self.state;
        if self.state == FsmState::Resolving {
            self.state = FsmState::Reading;
        }
        Transition {
            from,
            to: self.state,
        }
    }

    /// A write passed every gate and is being dispatched.
    pub fn on_write_dispatched(&mut self) -> Transition {
        self.go(FsmState::Writing)
    }

    /// A tool call succeeded.
    pub fn on_tool_success(&mut self, kind: ToolKind) -> Transition {
        match kind {
            ToolKind::Write => self.go(FsmState::Verifying),
            ToolKind::Resolve => match self.state {
                FsmState::Resolving | FsmState::Verifying => self.go(FsmState::Reading),
                FsmState::Reading | FsmState::Writing => self.go(self.state),
            },
            ToolKind::Read => self.complete_verification(),
        }
    }

    /// A write's command reached a host but did not succeed (a non-zero
    /// exit, a timeout, an interruption): the world may have changed, so it
    /// must be verified like a successful one.
    pub fn on_write_reached_host(&mut self) -> Transition {
        self.go(FsmState::Verifying)
    }

    /// A tool call failed (or was refused after dispatch began).
    pub fn on_tool_failure(&mut self, kind: ToolKind) -> Transition {
        match (kind, self.state) {
            // A write that never reached a host changed nothing: back to reading.
            (ToolKind::Write, FsmState::Writing) => self.go(FsmState::Reading),
            _ => self.go(self.state),
        }
    }

    /// A successful read verifies the last write.
    pub fn complete_verification(&mut self) -> Transition {
        match self.state {
            FsmState::Verifying => self.go(FsmState::Reading),
            FsmState::Resolving | FsmState::Reading | FsmState::Writing => self.go(self.state),
        }
    }

    /// Back to the start (the caller resets the ResolvedContext with it).
    pub fn reset(&mut self) -> Transition {
        self.go(FsmState::Resolving)
    }

    fn go(&mut self, to: FsmState) -> Transition {
        let from = self.state;
        self.state = to;
        Transition { from, to }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KINDS: [ToolKind; 3] = [ToolKind::Resolve, ToolKind::Read, ToolKind::Write];

    #[test]
    fn gate_table() {
        use FsmState::*;
        let allowed = [
            (Resolving, [true, true, false]),
            (Reading, [true, true, true]),
            (Writing, [true, true, false]),
            (Verifying, [true, true, false]),
        ];
        for (state, expected) in allowed {
            let fsm = SessionFsm { state };
            for (kind, ok) in KINDS.into_iter().zip(expected) {
                assert_eq!(fsm.can_execute_tool(kind).is_ok(), ok, "{state:?} {kind:?}");
            }
            assert_eq!(
                fsm.can_final_answer().is_ok(),
                matches!(state, Resolving | Reading),
                "{state:?}"
            );
        }
    }

    #[test]
    fn write_read_write() {
        let mut fsm = SessionFsm::new();
        assert!(fsm.can_execute_tool(ToolKind::Write).is_err());
        fsm.on_tool_success(ToolKind::Resolve);
        assert_eq!(fsm.state(), FsmState::Reading);
        fsm.on_write_dispatched();
        fsm.on_tool_success(ToolKind::Write);
        assert_eq!(fsm.state(), FsmState::Verifying);
        assert!(fsm.can_execute_tool(ToolKind::Write).is_err());
        fsm.on_tool_success(ToolKind::Read);
        assert_eq!(fsm.state(), FsmState::Reading);
        assert!(fsm.can_execute_tool(ToolKind::Write).is_ok());
    }

    /// Regression: a read-only command sent through a write tool still lands
    /// in VERIFYING, and a following read must clear it (no deadlock).
    #[test]
    fn read_through_a_write_tool_does_not_deadlock_in_verifying() {
        let mut fsm = SessionFsm::new();
        fsm.on_discovery();
        fsm.on_write_dispatched();
        fsm.on_tool_success(ToolKind::Write);
        assert_eq!(fsm.state(), FsmState::Verifying);
        assert!(fsm.can_execute_tool(ToolKind::Read).is_ok());
        fsm.on_tool_success(ToolKind::Read);
        assert!(fsm.can_final_answer().is_ok());
    }

    /// Regression: VERIFYING clears on the first successful read or resolve.
    #[test]
    fn verifying_clears_on_read_or_resolve() {
        for kind in [ToolKind::Read, ToolKind::Resolve] {
            let mut fsm = SessionFsm {
                state: FsmState::Verifying,
            };
            fsm.on_tool_success(kind);
            assert_eq!(fsm.state(), FsmState::Reading, "{kind:?}");
        }
    }

    /// Regression: the read-after-write requirement is not sticky: once
    /// verified, the next write is allowed, and it needs its own verification.
    #[test]
    fn read_after_write_flag_is_not_sticky() {
        let mut fsm = SessionFsm {
            state: FsmState::Reading,
        };
        for _ in 0..3 {
            assert!(fsm.can_execute_tool(ToolKind::Write).is_ok());
            fsm.on_write_dispatched();
            fsm.on_tool_success(ToolKind::Write);
            assert!(fsm.can_final_answer().is_err());
            fsm.on_tool_success(ToolKind::Read);
            assert!(fsm.can_final_answer().is_ok());
        }
    }

    #[test]
    fn a_failed_write_needs_no_verification() {
        let mut fsm = SessionFsm {
            state: FsmState::Reading,
        };
        fsm.on_write_dispatched();
        fsm.on_tool_failure(ToolKind::Write);
        assert_eq!(fsm.state(), FsmState::Reading);
    }

    #[test]
    fn a_read_is_not_discovery() {
        let mut fsm = SessionFsm::new();
        fsm.on_tool_success(ToolKind::Read);
        assert_eq!(fsm.state(), FsmState::Resolving);
    }

    fn event() -> impl Strategy<Value = u8> {
        0u8..6
    }

    proptest! {
        /// Whatever happened before, a successful write is always followed by
        /// a state that refuses writes and final answers, and a read clears it.
        #[test]
        fn writes_always_need_verification(events in prop::collection::vec(event(), 0..40)) {
            let mut fsm = SessionFsm::new();
            for e in events {
                match e {
                    0 => { fsm.on_tool_success(ToolKind::Resolve); }
                    1 => { fsm.on_tool_success(ToolKind::Read); }
                    2 => if fsm.can_execute_tool(ToolKind::Write).is_ok() {
                        fsm.on_write_dispatched();
                        fsm.on_tool_success(ToolKind::Write);
                        prop_assert!(fsm.can_execute_tool(ToolKind::Write).is_err());
                        prop_assert!(fsm.can_final_answer().is_err());
                    },
                    3 => { fsm.on_discovery(); }
                    4 => { fsm.on_tool_failure(ToolKind::Read); }
                    _ => { fsm.reset(); }
                }
                prop_assert!(fsm.state() != FsmState::Writing);
            }
            fsm.on_tool_success(ToolKind::Read);
            prop_assert!(fsm.can_final_answer().is_ok());
        }
    }
}
