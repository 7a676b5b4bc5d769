//! The approval prompt on a terminal: the exact command, its target, risk
//! and expiry (relative), then y/N. The elapsed-time line is taken off the
//! terminal first and comes back after the answer. Ctrl-C at the prompt
//! cancels the prompt and the turn (the request stays pending, decidable
//! later); without a terminal nobody can answer, so it stays pending. The
//! same card and the same question serve a turn run here and one a server
//! runs (`--server`).

use std::io::IsTerminal;

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use warden_core::agent::{Approver, Decision};
use warden_core::ports::{Approval, BoxFuture};
use warden_protocol::CancelFlag;
use warden_protocol::views::ApprovalView;

use crate::style::{Paint, risk_paint};
use crate::ticker::Ticker;

/// What the person at the terminal said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Approve,
    Deny(String),
    /// Ctrl-C: nothing decided, and the turn is to be cancelled.
    Interrupted,
    /// No answer could be read, or it came too late.
    Unanswered,
}

/// The card of an approval request, on stderr.
pub fn print_card(approval: &ApprovalView, now_ms: u64) {
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
    if let Some(snapshot) = &approval.snapshot {
        eprintln!("  undo:    {}", snapshot.undoable);
    }
    if let Some(diff) = crate::edit_diff::file_edit_diff(
        &approval.tool,
        &approval.arguments,
        approval.file_before.as_ref(),
    ) {
        const SHOWN: usize = 80;
        eprintln!("  change:");
        for line in diff.iter().take(SHOWN) {
            let painted = match line.chars().next() {
                Some('-') if !line.starts_with("---") => paint.red(line),
                Some('+') if !line.starts_with("+++") => paint.green(line),
                Some('@') => paint.dim(line),
                _ => line.clone(),
            };
            eprintln!("    {painted}");
        }
        if diff.len() > SHOWN {
            eprintln!("    … ({} more lines)", diff.len() - SHOWN);
        }
    }
    let expires = match approval.expires_at_ms() {
        Some(ms) => crate::time_fmt::when(ms, now_ms),
        None => approval.expires_at.clone(),
    };
    eprintln!("  expires: {expires}");
}

/// Ask y/N (and a reason for a no) with the elapsed-time line off.
pub fn ask(ticker: &Ticker, approval: &ApprovalView) -> Answer {
    let _paused = ticker.pause();
    print_card(approval, crate::time_fmt::now_ms());
    // A line editor reads the answer: in raw mode Ctrl-C is a key, so it
    // cancels the prompt instead of being lost in a blocked read.
    let Ok(mut editor) = DefaultEditor::new() else {
        return Answer::Unanswered;
    };
    let answer = match editor.readline("Run it? [y/N] ") {
        Ok(answer) => answer,
        Err(ReadlineError::Interrupted) => return Answer::Interrupted,
        Err(_) => return Answer::Unanswered,
    };
    if approval
        .expires_at_ms()
        .is_some_and(|at| crate::time_fmt::now_ms() >= at)
    {
        eprintln!("  too late: the request expired while waiting; nothing ran.");
        return Answer::Unanswered;
    }
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Answer::Approve,
        _ => {
            let reason = match editor.readline("Reason (optional): ") {
                Ok(reason) => reason,
                Err(ReadlineError::Interrupted) => return Answer::Interrupted,
                Err(_) => String::new(),
            };
            let reason = reason.trim();
            Answer::Deny(if reason.is_empty() {
                "the operator said no".into()
            } else {
                reason.to_string()
            })
        }
    }
}

/// The approver of a turn run here.
pub struct TerminalApprover {
    interactive: bool,
    /// The turn's flag: Ctrl-C at the prompt cancels the turn too.
    cancel: CancelFlag,
    ticker: Ticker,
}

impl TerminalApprover {
    pub fn for_stdin(cancel: &CancelFlag, ticker: &Ticker) -> Self {
        TerminalApprover {
            interactive: std::io::stdin().is_terminal(),
            cancel: cancel.clone(),
            ticker: ticker.clone(),
        }
    }
}

impl Approver for TerminalApprover {
    fn decide<'a>(&'a mut self, approval: &'a Approval) -> BoxFuture<'a, Decision> {
        // The terminal is this process's only client: reading the answer
        // may hold the CLI's one thread.
        let decision = self.decide_here(approval);
        Box::pin(std::future::ready(decision))
    }
}

impl TerminalApprover {
    fn decide_here(&mut self, approval: &Approval) -> Decision {
        let view = ApprovalView::of(approval, crate::time_fmt::now_ms());
        if !self.interactive {
            let _paused = self.ticker.pause();
            print_card(&view, crate::time_fmt::now_ms());
            eprintln!(
                "  nobody can answer here: it stays pending. Decide with `warden approvals approve {id}` or `warden approvals deny {id} --reason …`.",
                id = approval.id
            );
            return Decision::Pending;
        }
        match ask(&self.ticker, &view) {
            Answer::Approve => Decision::Approve,
            Answer::Deny(reason) => Decision::Deny(reason),
            Answer::Unanswered => Decision::Pending,
            Answer::Interrupted => {
                eprintln!(
                    "  cancelled: nothing ran; the request stays pending (`warden approvals approve {}` to run it later).",
                    approval.id
                );
                self.cancel.cancel();
                Decision::Pending
            }
        }
    }
}
