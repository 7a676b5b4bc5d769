//! Turns run on this machine: the effective configuration loaded once, the
//! world built by the one world builder on the CLI's one-thread runtime,
//! Ctrl-C wired to the running turn, and a conversation ([`LocalChat`])
//! that `ask` and `chat` drive through the one turn runner.

use anyhow::{Context, Result};
use warden_core::ports::AuditRecord;
use warden_core::turn::{TurnReport, TurnRunner, TurnSink};
use warden_protocol::{CancelFlag, ControlLevel};
use warden_world::world::new_session_id;
use warden_world::{Config, World, WorldBuilder};

use crate::approver::TerminalApprover;
use crate::display::TerminalDisplay;
use crate::repl::{ChatBackend, Finished};
use crate::ticker::Ticker;

/// The world of this machine, for one command.
pub struct Local {
    pub world: World,
    pub runtime: tokio::runtime::Runtime,
    /// Set by Ctrl-C; re-armed before every turn.
    pub cancel: CancelFlag,
}

impl Local {
    /// Build the world of `config`; what cannot be used (a cluster that
    /// does not answer) is said once on stderr, and Warden goes on.
    pub fn open(config: Config) -> Result<Local> {
        let runtime = crate::common::runtime()?;
        let world = runtime
            .block_on(
                WorldBuilder::new(config)
                    .launching(crate::common::this_program_launches())
                    .build(),
            )
            .context("building the world")?;
        crate::common::say_tightened(&world.store);
        for problem in world.problems() {
            eprintln!("warden: {problem}");
        }
        Ok(Local {
            world,
            runtime,
            cancel: CancelFlag::new(),
        })
    }

    /// A new conversation, or the stored one with `resume`, at the
    /// configured level; Ctrl-C cancels its turns.
    pub fn runner(&self, resume: Option<&str>) -> Result<TurnRunner> {
        let level = self.world.config.control_level.value;
        let mut runner = match resume {
            Some(id) => self.world.resume_runner(id.to_string(), level)?,
            None => self.world.new_runner(new_session_id(), level),
        };
        runner.session.cancel = self.cancel.clone();
        Ok(runner)
    }

    /// One user message through the runner.
    pub fn turn(
        &self,
        runner: &mut TurnRunner,
        text: &str,
        sink: &mut dyn TurnSink,
        approver: &mut TerminalApprover,
    ) -> TurnReport {
        self.cancel.reset();
        self.runtime
            .block_on(runner.run(&self.world.backends, text, approver, sink))
    }
}

/// `warden chat` on this machine.
pub struct LocalChat {
    local: Local,
    runner: TurnRunner,
    approver: TerminalApprover,
}

impl LocalChat {
    pub fn new(local: Local, runner: TurnRunner, ticker: &Ticker) -> Self {
        let approver = TerminalApprover::for_stdin(&local.cancel, ticker);
        LocalChat {
            local,
            runner,
            approver,
        }
    }
}

impl ChatBackend for LocalChat {
    fn banner(&self) -> Vec<String> {
        let snapshot = self.local.world.backends.inventory.snapshot();
        let resources = snapshot.all();
        let host = resources
            .first()
            .map(|r| r.id.to_string())
            .unwrap_or_else(|| "no host".into());
        let model = match self.runner.model_identity() {
            Some((provider, model)) => format!("{provider}/{model}"),
            None => "none (the router answers; set WARDEN_PROVIDER to add one)".into(),
        };
        vec![
            format!("Warden on {host} ({} resources known)", resources.len()),
            format!("model: {model}"),
        ]
    }

    fn session_id(&self) -> String {
        self.runner.id().to_string()
    }

    fn level(&self) -> ControlLevel {
        self.runner.level()
    }

    /// Audited as the local operator's decision, and not changed when it
    /// cannot be audited.
    fn set_level(&mut self, level: ControlLevel) -> Result<ControlLevel> {
        let before = self.runner.level();
        self.local
            .world
            .backends
            .audit
            .append(AuditRecord {
                session_id: self.runner.id().to_string(),
                actor: self.local.world.local_operator(),
                tool: "session".into(),
                target: None,
                decision: "level_changed".into(),
                code: None,
                command: format!("/level {level}"),
                reason: Some(format!("from {before} to {level}")),
                duration_ms: 0,
            })
            .context("the change could not be audited")?;
        self.runner.set_level(&self.local.world.backends, level);
        Ok(level)
    }

    fn reset(&mut self) -> Result<()> {
        self.runner.reset();
        Ok(())
    }

    fn turn(&mut self, text: &str, display: &mut TerminalDisplay) -> Result<Finished> {
        let report = self
            .local
            .turn(&mut self.runner, text, display, &mut self.approver);
        Ok(Finished {
            final_text: report.final_text.clone(),
            route: report.route_summary(),
            elapsed: Some(report.elapsed),
        })
    }

    fn resume_hint(&self) -> String {
        format!(
            "session {id} saved; resume with `warden chat --session {id}`",
            id = self.runner.id()
        )
    }
}
