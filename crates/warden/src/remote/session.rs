//! A conversation on a server: create (or reuse) a session, post a message,
//! follow the session's event stream (typed, the one vocabulary of
//! `warden-protocol`) until the turn is done, answering approval prompts on
//! the way when this caller may; plus `approvals` over the API.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::json;
use warden_core::turn::{Verdict, verdict};
use warden_protocol::views::{ApprovalView, SessionView, TurnAccepted};
use warden_protocol::{CancelFlag, ControlLevel, EventEnvelope, RouteSummary, StreamEvent};

use super::client::RemoteClient;
use crate::approver::Answer;
use crate::display::{JsonLines, TerminalDisplay};
use crate::repl::{ChatBackend, Finished};
use crate::ticker::Ticker;

/// How a remote turn is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Terminal,
    /// The server's events as JSON lines, as `warden ask --json` prints them.
    JsonLines,
}

/// Reconnects to a broken event stream before giving up.
const RECONNECTS: u32 = 10;

/// Roles that may decide approvals.
fn can_approve(role: &str) -> bool {
    matches!(role, "approver" | "admin")
}

/// One server session, driven from this terminal.
pub struct RemoteChat {
    client: RemoteClient,
    runtime: tokio::runtime::Runtime,
    session: SessionView,
    /// This caller's role on the server (`operator`, `approver`, …).
    role: String,
    cancel: CancelFlag,
    ticker: Ticker,
    output: Output,
    interactive: bool,
}

/// How a turn on the server went, as seen from here.
pub struct RemoteTurn {
    pub final_text: Option<String>,
    pub verdict: Verdict,
    pub route: Option<RouteSummary>,
    /// The turn waits on the server for a decision nobody here can give.
    pub left_waiting: bool,
}

impl RemoteChat {
    /// The session `resume`, or a new one at `level`.
    pub fn open(
        client: RemoteClient,
        resume: Option<&str>,
        level: Option<ControlLevel>,
        title: &str,
        output: Output,
        ticker: &Ticker,
    ) -> Result<RemoteChat> {
        let runtime = crate::common::runtime()?;
        let me = runtime.block_on(client.get("/api/auth/me"))?;
        let role = me["role"].as_str().unwrap_or("viewer").to_string();
        let session: SessionView = match resume {
            Some(id) => runtime.block_on(client.get_as(&format!("/api/sessions/{id}")))?,
            None => {
                let mut body = json!({"title": title.chars().take(60).collect::<String>()});
                if let Some(level) = level {
                    body["control_level"] = json!(level);
                }
                runtime.block_on(client.post_as("/api/sessions", &body))?
            }
        };
        let cancel = CancelFlag::new();
        crate::common::cancel_on_ctrl_c(&cancel)?;
        Ok(RemoteChat {
            client,
            runtime,
            session,
            role,
            cancel,
            ticker: ticker.clone(),
            output,
            interactive: output == Output::Terminal && std::io::stdin().is_terminal(),
        })
    }

    pub fn session_id(&self) -> &str {
        &self.session.id
    }

    /// Post `text` and follow the turn to its end.
    pub fn run_turn(&mut self, text: &str, display: &mut TerminalDisplay) -> Result<RemoteTurn> {
        self.cancel.reset();
        self.runtime.block_on(self.follow(text, display))
    }

    async fn follow(&self, text: &str, display: &mut TerminalDisplay) -> Result<RemoteTurn> {
        let id = &self.session.id;
        let accepted: TurnAccepted = self
            .client
            .post_as(
                &format!("/api/sessions/{id}/messages"),
                &json!({"text": text}),
            )
            .await?;
        let mut last_seq: Option<u64> = None;
        let mut in_turn = false;
        let mut cancel_sent = false;
        let mut reconnects = 0;
        let mut said_waiting = false;
        'stream: loop {
            let mut events = match self.client.events(id, last_seq).await {
                Ok(events) => events,
                Err(error) if reconnects < RECONNECTS => {
                    reconnects += 1;
                    eprintln!("  … reconnecting to the server ({error:#})");
                    tokio::time::sleep(Duration::from_millis(500 * u64::from(reconnects))).await;
                    continue;
                }
                Err(error) => return Err(error),
            };
            loop {
                let next = tokio::select! {
                    next = events.next() => next,
                    () = self.cancel.cancelled(), if !cancel_sent => {
                        cancel_sent = true;
                        self.client.post(&format!("/api/sessions/{id}/cancel"), &json!({})).await?;
                        continue;
                    }
                };
                let sse = match next {
                    Ok(Some(event)) => event,
                    // The server went away mid-turn: resume where we were.
                    Ok(None) | Err(_) if reconnects < RECONNECTS => {
                        reconnects += 1;
                        tokio::time::sleep(Duration::from_millis(500 * u64::from(reconnects)))
                            .await;
                        continue 'stream;
                    }
                    Ok(None) => bail!("the server closed the event stream before the turn ended"),
                    Err(error) => return Err(error),
                };
                // An event this client does not know (a newer server) is
                // skipped, not fatal.
                let Ok(envelope) = serde_json::from_str::<EventEnvelope>(&sse.data) else {
                    continue;
                };
                if last_seq.is_some_and(|last| envelope.seq <= last) {
                    continue; // replayed after a reconnect
                }
                last_seq = Some(envelope.seq);
                if let StreamEvent::TurnStart { turn, .. } = &envelope.event {
                    in_turn = *turn == accepted.turn;
                }
                if !in_turn {
                    continue;
                }
                match self.output {
                    Output::JsonLines => println!("{}", sse.data),
                    Output::Terminal => display.show(&envelope.event),
                }
                match envelope.event {
                    StreamEvent::ApprovalNeeded { approval } => {
                        if self.output == Output::Terminal && !self.interactive {
                            print_pending(&approval);
                        }
                        if !self.interactive {
                            // Nobody here can answer: the turn waits on the server.
                            return Ok(RemoteTurn {
                                final_text: None,
                                verdict: Verdict::ApprovalPending,
                                route: None,
                                left_waiting: true,
                            });
                        }
                        if can_approve(&self.role) {
                            self.decide_here(&approval).await?;
                        } else if !said_waiting {
                            said_waiting = true;
                            let _paused = self.ticker.pause();
                            crate::approver::print_card(&approval, crate::time_fmt::now_ms());
                            eprintln!(
                                "  waiting for an approver (you are {}); Ctrl-C stops waiting and cancels the turn",
                                self.role
                            );
                        }
                    }
                    StreamEvent::Done {
                        turn,
                        final_text,
                        route,
                        outcome,
                    } if turn == accepted.turn => {
                        let verdict = match &outcome {
                            Some(outcome) => verdict(outcome, route.as_ref()),
                            None => Verdict::ToolFailed,
                        };
                        return Ok(RemoteTurn {
                            final_text,
                            verdict,
                            route,
                            left_waiting: false,
                        });
                    }
                    _ => {}
                }
            }
        }
    }

    /// Ask on the terminal and post the decision; Ctrl-C leaves it pending
    /// and cancels the turn.
    async fn decide_here(&self, approval: &ApprovalView) -> Result<()> {
        let id = &approval.id;
        match crate::approver::ask(&self.ticker, approval) {
            Answer::Approve => {
                self.client
                    .post(&format!("/api/approvals/{id}/approve"), &json!({}))
                    .await?;
            }
            Answer::Deny(reason) => {
                self.client
                    .post(
                        &format!("/api/approvals/{id}/deny"),
                        &json!({"reason": reason}),
                    )
                    .await?;
            }
            Answer::Interrupted => self.cancel.cancel(),
            Answer::Unanswered => {}
        }
        Ok(())
    }
}

fn print_pending(approval: &ApprovalView) {
    crate::approver::print_card(approval, crate::time_fmt::now_ms());
    eprintln!(
        "  it waits on the server: `warden approvals approve {id} --server …` or deny it.",
        id = approval.id
    );
}

impl ChatBackend for RemoteChat {
    fn banner(&self) -> Vec<String> {
        vec![format!(
            "Warden at {} (you are {})",
            self.client.server(),
            self.role
        )]
    }

    fn session_id(&self) -> String {
        self.session.id.clone()
    }

    fn level(&self) -> ControlLevel {
        self.session.control_level
    }

    fn set_level(&mut self, level: ControlLevel) -> Result<ControlLevel> {
        let path = format!("/api/sessions/{}", self.session.id);
        let body = json!({"control_level": level});
        let value = self.runtime.block_on(self.client.patch(&path, &body))?;
        self.session = serde_json::from_value(value).context("the server's session")?;
        Ok(self.session.control_level)
    }

    fn reset(&mut self) -> Result<()> {
        let path = format!("/api/sessions/{}/reset", self.session.id);
        self.runtime
            .block_on(self.client.post(&path, &json!({})))
            .map(|_| ())
    }

    fn turn(&mut self, text: &str, display: &mut TerminalDisplay) -> Result<Finished> {
        let turn = self.run_turn(text, display)?;
        if turn.left_waiting {
            eprintln!("the turn waits on the server for the approval");
        }
        Ok(Finished {
            final_text: turn.final_text,
            route: turn.route,
            elapsed: None,
        })
    }

    fn resume_hint(&self) -> String {
        format!(
            "session {id} is kept on the server; resume with `warden chat --server {} --session {id}`",
            self.client.server(),
            id = self.session.id
        )
    }
}

/// `warden approvals list --server`.
pub async fn approvals_list(client: &RemoteClient, state: &str, as_json: bool) -> Result<()> {
    let listed: Vec<ApprovalView> = client
        .get_as(&format!("/api/approvals?state={state}"))
        .await?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&listed)?);
        return Ok(());
    }
    if listed.is_empty() {
        println!("no {state} approvals");
    }
    let now = crate::time_fmt::now_ms();
    for a in listed {
        let expires = a.expires_at_ms().map_or(a.expires_at.clone(), |ms| {
            crate::time_fmt::relative(ms, now)
        });
        println!(
            "{}  {}  on {}  risk {}  expires {expires}\n    {}",
            a.id, a.tool, a.target, a.risk, a.command
        );
    }
    Ok(())
}

/// Approve or deny on the server; the approval as it is now.
pub async fn approvals_decide(
    client: &RemoteClient,
    id: &str,
    approve: bool,
    reason: Option<&str>,
) -> Result<ApprovalView> {
    let (path, body) = match (approve, reason) {
        (true, None) => (format!("/api/approvals/{id}/approve"), json!({})),
        (true, Some(reason)) => (
            format!("/api/approvals/{id}/approve"),
            json!({"reason": reason}),
        ),
        (false, reason) => (
            format!("/api/approvals/{id}/deny"),
            json!({"reason": reason.unwrap_or("denied by the operator")}),
        ),
    };
    client.post_as(&path, &body).await
}

/// The JSON lines of a failure before any turn (for `ask --json`).
pub fn json_failure(session_id: &str, code: &str, error: &anyhow::Error) {
    let mut out = JsonLines::new(session_id);
    out.write(StreamEvent::Error {
        code: code.to_string(),
        message: format!("{error:#}"),
    });
    out.write(StreamEvent::Done {
        turn: 0,
        final_text: None,
        route: None,
        outcome: None,
    });
}
