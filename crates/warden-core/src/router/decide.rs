//! Whether the router claims a request, and why. Without a model it claims
//! everything it recognises and says so when it recognises nothing (with
//! the nearest phrasings). With a model it claims only what it is sure of:
//! a fast path or a command parse whose names resolve to what the request
//! says they are; keyword guesses, unknown names and services the host
//! never reported go to the model.

use super::Declined;
use super::intent::{ControlOp, Intent, Stage};
use super::plan::{self, Plan};
use super::resolve;
use crate::ports::InventorySnapshot;

/// What routing decided, before timing.
pub struct Decision {
    pub stage: Stage,
    pub route: &'static str,
    pub plan: Option<Plan>,
    pub reason: String,
    /// The request is answered with a refusal, not carried out.
    pub declined: Option<Declined>,
}

fn to_model(route: &'static str, reason: String) -> Decision {
    Decision {
        stage: Stage::Llm,
        route,
        plan: None,
        reason: format!("handed to the model: {reason}"),
        declined: None,
    }
}

/// How a request answered with a refusal counts for whoever asked.
fn declined(intent: &Intent, problem: &resolve::NameProblem) -> Option<Declined> {
    match problem {
        // A question back ("which one?") is an answer.
        resolve::NameProblem::Ambiguous { .. } => None,
        resolve::NameProblem::NotFound { .. }
        | resolve::NameProblem::WrongKind { .. }
        | resolve::NameProblem::NoHost
        | resolve::NameProblem::NoSuchMachine { .. } => Some(if intent.writes() {
            Declined::Write
        } else {
            Declined::Unresolved
        }),
    }
}

pub fn decide(inventory: &InventorySnapshot, text: &str, model_available: bool) -> Decision {
    let Some(recognised) = super::recognise::recognise(text) else {
        if model_available {
            return to_model(
                "llm",
                "no fast path, command parse or keyword matched".to_string(),
            );
        }
        let suggestions = super::recognise::suggest::nearest(text, 3);
        let reason = match suggestions.first() {
            Some(best) => format!("nothing matched; the nearest phrasing is \"{best}\""),
            None => "nothing matched, and no phrasing is close".to_string(),
        };
        return Decision {
            stage: Stage::Unmatched,
            route: "unmatched",
            plan: Some(Plan::Say(super::explain::unmatched(text, &suggestions))),
            reason,
            declined: None,
        };
    };
    let name = recognised.intent.name();
    let evidence = &recognised.evidence;
    let built = plan::build(inventory, &recognised.intent);
    if model_available {
        if recognised.stage == Stage::Heuristic {
            return to_model(
                "llm",
                format!(
                    "only a keyword guess ({evidence}), and with a model configured guesses go to it"
                ),
            );
        }
        match &built {
            // A command aimed at a machine Warden does not know runs
            // nowhere: neither here nor wherever a model would guess. A
            // name held on several machines is a question for the user,
            // listing each with its machine, not a guess either.
            Err(
                problem @ (resolve::NameProblem::NoSuchMachine { .. }
                | resolve::NameProblem::Ambiguous { .. }),
            ) => {
                return Decision {
                    stage: recognised.stage,
                    route: name,
                    plan: Some(Plan::Say(plan::refusal(&recognised.intent, problem))),
                    reason: format!("{evidence}, but {}", problem.describe_briefly()),
                    declined: declined(&recognised.intent, problem),
                };
            }
            Err(problem) => {
                return to_model(
                    "llm",
                    format!("{evidence}, but {}", problem.describe_briefly()),
                );
            }
            Ok(plan) => {
                if let Some(reason) = unsure(&recognised.intent, plan) {
                    return to_model("llm", format!("{evidence}, but {reason}"));
                }
            }
        }
    }
    let confidence = match recognised.stage {
        Stage::FastPath | Stage::Parser => "certain",
        Stage::Heuristic | Stage::Llm | Stage::Unmatched => "a guess (no model is configured)",
    };
    let (plan, reason, declined) = match built {
        Ok(plan) => {
            // A change the plan already knows cannot be made (a reload of
            // a container, a guest's force stop of a service).
            // A typed command that changes things is answered, not run,
            // by the router (with a model it goes to the model unless it is
            // catastrophic).
            let typed_write =
                matches!(recognised.intent, Intent::Run { .. }) && matches!(plan, Plan::Say(_));
            let refused = typed_write
                || (recognised.intent.writes()
                    && plan.parts().iter().any(|p| matches!(p, Plan::Say(_))));
            (
                plan,
                format!("{evidence}; {confidence}"),
                refused.then_some(Declined::Write),
            )
        }
        Err(problem) => (
            Plan::Say(plan::refusal(&recognised.intent, &problem)),
            format!(
                "{evidence}, but {}: answered without running anything",
                problem.describe_briefly()
            ),
            declined(&recognised.intent, &problem),
        ),
    };
    Decision {
        stage: recognised.stage,
        route: name,
        plan: Some(plan),
        reason,
        declined,
    }
}

/// Why a plan the router could make is still better left to the model.
fn unsure(intent: &Intent, plan: &Plan) -> Option<String> {
    if let Intent::Run { command, .. } = intent {
        // Catastrophic commands are refused here whoever would propose them.
        if matches!(plan, Plan::Say(_)) && !warden_policy::classify(command).catastrophic {
            return Some(format!(
                "`{command}` changes things, and the model can propose it through the control tool (with approval)"
            ));
        }
    }
    let force_stop = match intent {
        Intent::Control { operation, .. } => *operation == ControlOp::ForceStop,
        Intent::Each(parts) => parts.iter().any(|p| {
            matches!(
                p,
                Intent::Control {
                    operation: ControlOp::ForceStop,
                    ..
                }
            )
        }),
        _ => false,
    };
    if force_stop && plan.parts().iter().any(|p| matches!(p, Plan::Say(_))) {
        return Some(
            "a force stop (`kill`) is only for guests, and this names something else: the model may read it as a command"
                .to_string(),
        );
    }
    for part in plan.parts() {
        let (host, service) = match part {
            Plan::ServiceControl { host, service, .. } | Plan::ServiceExit { host, service } => {
                (host, service)
            }
            _ => continue,
        };
        let bare = service.trim_end_matches(".service");
        let known = resolve::known_services(host)
            .iter()
            .any(|s| s.trim_end_matches(".service").eq_ignore_ascii_case(bare));
        if !known {
            return Some(format!(
                "`{service}` is not a service {} reported",
                host.name
            ));
        }
    }
    None
}
