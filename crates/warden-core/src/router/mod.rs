//! The deterministic router: Warden without a language model. It is a
//! [`Provider`] like any model, so every route goes through the same loop,
//! executor, gates, approvals, verification and audit; it only *proposes*
//! tool calls and words its answers from their results.
//!
//! Stages, in order: regex fast paths → keyword heuristics → a parser for
//! requests that are shell commands → the configured model (if any) for
//! everything else. With a model configured, diagnostic questions ("why
//! …") go straight to it, and heuristic matches are used only when the
//! names in them are known, because a model reads loose phrasing better.

use std::time::{Duration, Instant};

use serde_json::Value;
use warden_llm::{
    BoxFuture, Delta, Message, ModelReply, ModelRequest, ProposedToolCall, Provider, ProviderError,
    ToolOffer,
};

use crate::ports::Inventory;

mod act;
mod command_parser;
pub mod explain;
mod fast;
mod heuristics;
pub mod intent;
mod logs;
mod observe;
pub mod plan;
pub mod render;
pub mod resolve;

pub use intent::{Intent, Stage};
pub use plan::{Call, Plan, Step};

/// What routing decided for the current request, and how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteInfo {
    pub stage: Stage,
    /// The intent's name (`metric`, `logs`, …), `llm` or `unmatched`.
    pub route: &'static str,
    pub target: Option<String>,
    /// Recognising and planning, not running the calls.
    pub elapsed: Duration,
}

/// Route a request without running anything (`warden explain`, `--verbose`).
pub fn route(
    inventory: &dyn Inventory,
    text: &str,
    model_available: bool,
) -> (RouteInfo, Option<Plan>) {
    let started = Instant::now();
    let text = strip_mentions(text);
    let lower = text.to_lowercase();
    let decided = if model_available && heuristics::is_diagnosis(&lower) {
        None
    } else {
        intent::recognise(&text).and_then(|(stage, intent)| {
            let plan = plan::plan(&inventory.snapshot(), &intent);
            let confident = stage != Stage::Heuristic || !model_available || names_known(&plan);
            confident.then_some((stage, intent.name(), plan))
        })
    };
    let (stage, route, plan) = match decided {
        Some((stage, name, plan)) => (stage, name, Some(plan)),
        None if model_available => (Stage::Llm, "llm", None),
        None => (
            Stage::Unmatched,
            "unmatched",
            Some(Plan::Say(explain::unmatched(&text))),
        ),
    };
    let info = RouteInfo {
        stage,
        route,
        target: plan.as_ref().and_then(Plan::target),
        elapsed: started.elapsed(),
    };
    (info, plan)
}

/// The command in a request that is itself a shell command ("df -h",
/// "$ uptime"), as the router would run it on this host.
pub fn typed_command(text: &str) -> Option<String> {
    match command_parser::as_command(text.trim())? {
        Intent::Run { command } => Some(command),
        _ => None,
    }
}

/// `@name` is a structured mention for the loop; the router reads the name.
fn strip_mentions(text: &str) -> String {
    text.split_whitespace()
        .map(|w| w.strip_prefix('@').unwrap_or(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A heuristic guess is trusted (with a model available) only when what it
/// names exists: a resource, or a service the host reported.
fn names_known(plan: &Plan) -> bool {
    match plan {
        Plan::ServiceStatus { host, service, .. }
        | Plan::ServiceLogs { host, service, .. }
        | Plan::ServiceControl { host, service, .. } => resolve::known_services(host)
            .iter()
            .any(|s| s.eq_ignore_ascii_case(service)),
        Plan::Say(_) => false,
        Plan::Metric { .. }
        | Plan::HostStatus { .. }
        | Plan::GuestStatus { .. }
        | Plan::ContainerStatus { .. }
        | Plan::SystemLogs { .. }
        | Plan::ContainerLogs { .. }
        | Plan::ListServices { .. }
        | Plan::ListContainers { .. }
        | Plan::ListResources { .. }
        | Plan::ContainerControl { .. }
        | Plan::GuestControl { .. }
        | Plan::Remember { .. }
        | Plan::Recall { .. }
        | Plan::RunRead { .. } => true,
    }
}

/// The next step of a plan, given the results of the previous step's calls
/// (`last`) and of every call so far (`all`).
pub fn next_step(plan: &Plan, step: usize, last: &[Value], all: &[Value]) -> Step {
    match plan {
        Plan::Metric { host, metric } => observe::metric(host, *metric, step, last),
        Plan::HostStatus { host } => observe::host_status(host, step, last),
        Plan::GuestStatus { guest } => observe::guest_status(guest, step, last),
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
        Plan::ListResources { kind } => observe::list_resources(*kind, step, last),
        Plan::ServiceControl {
            host,
            service,
            operation,
        } => act::service_control(host, service, *operation, step, last),
        Plan::ContainerControl {
            container,
            operation,
        } => act::container_control(container, *operation, step, last),
        Plan::GuestControl { guest, operation } => {
            act::guest_control(guest, *operation, step, last)
        }
        Plan::Remember { host, note } => act::remember(host, note, step, last),
        Plan::Recall { query } => act::recall(query, step, last),
        Plan::RunRead { host, command } => act::run_read(host, command, step, last),
        Plan::Say(text) => Step::Answer(text.clone()),
    }
}

/// A plan being carried out during one user turn.
struct Active {
    plan: Plan,
    step: usize,
    pending: Vec<String>,
    results: Vec<Value>,
    answer: Option<String>,
}

enum TurnState {
    Idle,
    Routing(Box<Active>),
    Delegating,
}

/// The router as a provider, with an optional model for what it cannot route.
pub struct Router<'a> {
    inventory: &'a dyn Inventory,
    fallback: Option<Box<dyn Provider + Send + 'a>>,
    users_seen: usize,
    state: TurnState,
    last_route: Option<RouteInfo>,
    next_call: usize,
}

impl<'a> Router<'a> {
    pub fn new(
        inventory: &'a dyn Inventory,
        fallback: Option<Box<dyn Provider + Send + 'a>>,
    ) -> Self {
        Router {
            inventory,
            fallback,
            users_seen: 0,
            state: TurnState::Idle,
            last_route: None,
            next_call: 0,
        }
    }

    /// How the latest request was routed.
    pub fn last_route(&self) -> Option<&RouteInfo> {
        self.last_route.as_ref()
    }

    pub fn has_model(&self) -> bool {
        self.fallback.is_some()
    }

    /// Provider and model behind the router, if one is configured.
    pub fn model_identity(&self) -> Option<(&str, &str)> {
        self.fallback.as_ref().map(|m| m.identity())
    }

    fn start_turn(&mut self, text: &str) {
        let (info, plan) = route(self.inventory, text, self.fallback.is_some());
        self.state = match plan {
            Some(plan) => TurnState::Routing(Box::new(Active {
                plan,
                step: 0,
                pending: Vec::new(),
                results: Vec::new(),
                answer: None,
            })),
            None => TurnState::Delegating,
        };
        self.last_route = Some(info);
    }
}

impl Provider for Router<'_> {
    fn complete<'a>(
        &'a mut self,
        request: &'a ModelRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>> {
        if let Some(routed) = self.complete_routed(request, on_delta) {
            return Box::pin(std::future::ready(routed));
        }
        match self.fallback.as_mut() {
            Some(model) => model.complete(request, on_delta),
            None => Box::pin(std::future::ready(Err(ProviderError::Config(
                "no model is configured".into(),
            )))),
        }
    }

    fn identity(&self) -> (&str, &str) {
        match (&self.state, &self.fallback) {
            (TurnState::Delegating, Some(model)) => model.identity(),
            _ => ("router", "deterministic"),
        }
    }

    fn last_text_is_deterministic(&self) -> bool {
        !matches!(self.state, TurnState::Delegating)
    }
}

impl Router<'_> {
    /// A routed step, or `None` when this request belongs to the model.
    fn complete_routed(
        &mut self,
        request: &ModelRequest<'_>,
        on_delta: &mut dyn FnMut(Delta<'_>),
    ) -> Option<Result<ModelReply, ProviderError>> {
        let users: Vec<&str> = request
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::User { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if users.len() != self.users_seen {
            self.users_seen = users.len();
            self.start_turn(users.last().copied().unwrap_or_default());
        }
        let active = match &mut self.state {
            TurnState::Delegating => return None,
            TurnState::Idle => {
                return Some(Err(ProviderError::Failed("no request to route".into())));
            }
            TurnState::Routing(active) => active,
        };
        let last: Vec<Value> = active
            .pending
            .iter()
            .map(|id| result_of(request.messages, id))
            .collect();
        active.results.extend(last.iter().cloned());
        // Asked again after answering: Gate 2 held the answer. Repeat it;
        // every write route verifies before it answers, so this is rare.
        let step = match &active.answer {
            Some(answer) => Step::Answer(answer.clone()),
            None => {
                let step = next_step(&active.plan, active.step, &last, &active.results);
                active.step += 1;
                step
            }
        };
        Some(match step {
            Step::Calls(_) if request.offer == ToolOffer::TextOnly => {
                let text = format!(
                    "I stopped before finishing: no more tool calls were allowed in this turn (after {} calls).",
                    active.results.len()
                );
                on_delta(Delta::Text(&text));
                active.answer = Some(text.clone());
                Ok(text_reply(text))
            }
            Step::Calls(calls) => {
                let mut tool_calls = Vec::with_capacity(calls.len());
                active.pending.clear();
                for call in calls {
                    self.next_call += 1;
                    let id = format!("route-{}", self.next_call);
                    active.pending.push(id.clone());
                    tool_calls.push(ProposedToolCall::new(id, call.tool, call.arguments));
                }
                Ok(ModelReply {
                    text: None,
                    tool_calls,
                    usage: None,
                })
            }
            Step::Answer(text) => {
                on_delta(Delta::Text(&text));
                active.pending.clear();
                active.answer = Some(text.clone());
                Ok(text_reply(text))
            }
        })
    }
}

fn text_reply(text: String) -> ModelReply {
    ModelReply {
        text: Some(text),
        tool_calls: Vec::new(),
        usage: None,
    }
}

/// The result the loop recorded for a call id, as JSON (`Null` if none).
fn result_of(messages: &[Message], id: &str) -> Value {
    messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Tool {
                call_id, content, ..
            } if call_id == id => Some(serde_json::from_str(content).unwrap_or(Value::Null)),
            _ => None,
        })
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests;
