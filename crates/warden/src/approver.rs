//! The approval prompt on a terminal: the exact command, its target, risk
//! and expiry, then y/N. Ctrl-C at the prompt cancels the prompt and the
//! turn (the request stays pending, decidable later); without a terminal
//! nobody can answer, so it stays pending.

use std::io::IsTerminal;

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use warden_core::agent::{Approver, Decision};
use warden_core::ports::{Approval, BoxFuture};
use warden_protocol::CancelFlag;

use crate::style::{Paint, risk_paint};

pub struct TerminalApprover {
    interactive: bool,
    /// The turn's flag: Ctrl-C at the prompt cancels the turn too.
    cancel: CancelFlag,
}

impl TerminalApprover {
    pub fn for_stdin(cancel: &CancelFlag) -> Self {
        TerminalApprover {
            interactive: std::io::stdin().is_terminal(),
            cancel: cancel.clone(),
        }
    }
}

impl Approver for TerminalApprover {
    fn decide<'a>(&'a mut self, approval: &'a Approval) -> BoxFuture<'a, Decision> {
        // The terminal is this process's only client: reading the answer
        // may hold the CLI's one thread.
        let decision = self.ask(approval);
        Box::pin(std::future::ready(decision))
    }
}

impl TerminalApprover {
    fn ask(&mut self, approval: &Approval) -> Decision {
        let now = crate::storage::now_ms();
        let paint = Paint::stderr();
        eprintln!();
        eprintln!(
            "{} ({}): {}",
            paint.bold("approval needed"),
            risk_paint(&paint, &approval.risk),
            approval.description
        );
        eprintln!("  target:  {}", approval.target);
        eprintln!("  command: {}", paint.bold(&approval.command));
        eprintln!(
            "  expires: {}",
            crate::time_fmt::when(approval.expires_at_ms, now)
        );
        if !self.interactive {
            eprintln!(
                "  nobody can answer here: it stays pending. Decide with `warden approvals approve {id}` or `warden approvals deny {id} --reason …`.",
                id = approval.id
            );
            return Decision::Pending;
        }
        // A line editor reads the answer: in raw mode Ctrl-C is a key, so
        // it cancels the prompt instead of being lost in a blocked read.
        let Ok(mut editor) = DefaultEditor::new() else {
            return Decision::Pending;
        };
        let answer = match editor.readline("Run it? [y/N] ") {
            Ok(answer) => answer,
            Err(ReadlineError::Interrupted) => return self.cancelled(approval),
            Err(_) => return Decision::Pending,
        };
        if crate::storage::now_ms() >= approval.expires_at_ms {
            eprintln!("  too late: the request expired while waiting; nothing ran.");
            return Decision::Pending;
        }
        match answer.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => Decision::Approve,
            _ => {
                let reason = match editor.readline("Reason (optional): ") {
                    Ok(reason) => reason,
                    Err(ReadlineError::Interrupted) => return self.cancelled(approval),
                    Err(_) => String::new(),
                };
                let reason = reason.trim();
                Decision::Deny(if reason.is_empty() {
                    "the operator said no".into()
                } else {
                    reason.to_string()
                })
            }
        }
    }

    fn cancelled(&self, approval: &Approval) -> Decision {
        eprintln!(
            "  cancelled: nothing ran; the request stays pending (`warden approvals approve {}` to run it later).",
            approval.id
        );
        self.cancel.cancel();
        Decision::Pending
    }
}
