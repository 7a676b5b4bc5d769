//! Carrying a plan out: the next step of a single plan given the results
//! of the calls before it, and [`Progress`] through a plan's parts ("stop A
//! and B" is one part per target, each finished before the next starts,
//! so a write is verified before the next one is proposed).

use serde_json::Value;

use super::{act, certificate, errors, exit, facts, guest_writes, guests, logs, observe};
use crate::router::plan::{Plan, Step};

/// The next step of a single plan, given the results of the previous
/// step's calls (`last`) and of every call of this plan so far (`all`).
pub fn next_step(plan: &Plan, step: usize, last: &[Value], all: &[Value]) -> Step {
    match plan {
        Plan::Metric { host, metric } => observe::metric(host, *metric, step, last),
        Plan::HostStatus { host } => observe::host_status(host, step, last),
        Plan::GuestStatus { guest } => guests::guest_status(guest, step, last),
        Plan::ContainerStatus { container } => observe::container_status(container, step, last),
        Plan::ServiceStatus { host, service } => observe::service_status(host, service, step, last),
        Plan::SystemLogs { host, request } => logs::system_logs(host, request, step, last),
        Plan::ServiceLogs {
            host,
            service,
            request,
        } => logs::service_logs(host, service, request, step, last, all),
        Plan::ContainerLogs { container, request } => {
            logs::container_logs(container, request, step, last)
        }
        Plan::ListServices { host } => observe::list_services(host, step, last),
        Plan::ListContainers { host } => observe::list_containers(host, step, last),
        Plan::ListResources { kinds } => guests::list_resources(kinds, step, last),
        Plan::ServiceControl {
            host,
            service,
            operation,
        } => act::service_control(host, service, *operation, step, last, all),
        Plan::ContainerControl {
            container,
            operation,
        } => act::container_control(container, *operation, step, last, all),
        Plan::GuestControl { guest, operation } => {
            guest_writes::guest_power(guest, *operation, step, last, all)
        }
        Plan::History {
            target,
            metrics,
            window,
        } => guests::history(target, metrics, window, step, last),
        Plan::ListSnapshots { guest } => guests::list_snapshots(guest, step, last),
        Plan::TakeSnapshot { guest, name } => {
            guest_writes::take_snapshot(guest, name, step, last, all)
        }
        Plan::Rollback { guest, snapshot } => {
            guest_writes::rollback(guest, snapshot, step, last, all)
        }
        Plan::HostFact { host, fact } => facts::fact(host, *fact, step, last),
        Plan::Errors { host, since } => errors::recent_errors(host, *since, step, last),
        Plan::Certificate { runner, endpoint } => {
            let now =
                i64::try_from(crate::router::recognise::since::now_unix()).unwrap_or(i64::MAX);
            certificate::certificate(runner, endpoint, now, step, last)
        }
        Plan::ContainerExit { container } => exit::container_exit(container, step, last),
        Plan::ServiceExit { host, service } => exit::unit_exit(host, service, step, last),
        Plan::Remember { host, note } => act::remember(host, note, step, last, all),
        Plan::Recall { query } => act::recall(query, step, last),
        Plan::RunRead { host, command } => act::run_read(host, command, step, last),
        Plan::Say(text) => Step::Answer(text.clone()),
        // `Progress` runs the parts one by one; a list never gets here.
        Plan::Each(parts) => match parts.first() {
            Some(first) => next_step(first, step, last, all),
            None => Step::Answer("There was nothing to do.".to_string()),
        },
    }
}

/// Where a plan is: which part, which step of it, what its calls returned,
/// and the answers of the parts already done.
#[derive(Debug, Clone)]
pub struct Progress {
    parts: Vec<Plan>,
    part: usize,
    step: usize,
    results: Vec<Value>,
    answers: Vec<String>,
    /// Results of calls received so far, over all parts.
    answered: usize,
    /// A part declined its change.
    declined: bool,
}

impl Progress {
    pub fn new(plan: Plan) -> Self {
        let parts = plan.parts().into_iter().cloned().collect();
        Progress {
            parts,
            part: 0,
            step: 0,
            results: Vec::new(),
            answers: Vec::new(),
            answered: 0,
            declined: false,
        }
    }

    /// Whether a part found its change could not be made.
    pub fn declined(&self) -> bool {
        self.declined
    }

    /// Tool calls that came back so far.
    pub fn calls(&self) -> usize {
        self.answered
    }

    /// The next step, given the results of the calls the last step proposed.
    pub fn advance(&mut self, last: &[Value]) -> Step {
        self.answered += last.len();
        self.results.extend(last.iter().cloned());
        let mut last = last.to_vec();
        while let Some(plan) = self.parts.get(self.part) {
            let step = next_step(plan, self.step, &last, &self.results);
            let declined = matches!(step, Step::Decline(_));
            self.step += 1;
            match step {
                Step::Calls(calls) => return Step::Calls(calls),
                Step::Answer(text) | Step::Decline(text) => {
                    self.answers.push(text);
                    self.part += 1;
                    self.step = 0;
                    self.results.clear();
                    last.clear();
                }
            }
            self.declined |= declined;
        }
        Step::Answer(self.answers.join("\n\n"))
    }
}
