//! The shape every change takes: discover the target → (check the write
//! can work) → propose the write (the executor asks for approval at the
//! `controlled` level) → verify with a read → answer from what the read
//! showed. A write that reached its host is verified even when it failed,
//! because a failed restart may have left the service down.

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::plan::{Call, Step, args};
use super::render::{Res, failure, named, not_done};

/// A read before the write, and what its result means: `Err` is the
/// answer when the write could not work (nothing is proposed).
pub struct Precheck<'r> {
    pub call: Call,
    pub decide: &'r dyn Fn(Res<'_>) -> Result<(), String>,
}

pub struct WriteRoute<'r> {
    pub target: &'r Resource,
    /// "restart nginx on web1".
    pub action: String,
    pub precheck: Option<Precheck<'r>>,
    pub write: Call,
    pub verify: Call,
    /// The answer when the write succeeded, from the verification read.
    pub describe: &'r dyn Fn(Res<'_>) -> String,
    /// The target's state in a neutral line, for a write that failed.
    pub state: &'r dyn Fn(Res<'_>) -> String,
}

impl WriteRoute<'_> {
    /// `all` holds this route's results so far, in order.
    pub fn step(&self, step: usize, last: &[Value], all: &[Value]) -> Step {
        let first = last.first().map(Res);
        let checked = usize::from(self.precheck.is_some());
        match step {
            0 => Step::Calls(vec![Call::new(
                "query",
                args("get", self.target, json!({})),
            )]),
            1 => match (first, &self.precheck) {
                (Some(res), Some(precheck)) if res.ok() => Step::Calls(vec![precheck.call.clone()]),
                (Some(res), None) if res.ok() => Step::Calls(vec![self.write.clone()]),
                (Some(res), _) => {
                    Step::Answer(failure(&format!("find {}", named(self.target)), res))
                }
                (None, _) => Step::Answer(format!("Could not find {}.", named(self.target))),
            },
            2 if checked == 1 => match (first, &self.precheck) {
                (Some(res), Some(precheck)) if res.ran() => match (precheck.decide)(res) {
                    Ok(()) => Step::Calls(vec![self.write.clone()]),
                    Err(answer) => Step::Answer(answer),
                },
                (Some(res), _) => Step::Answer(format!(
                    "{} Nothing was done.",
                    failure(&format!("check first whether I can {}", self.action), res)
                )),
                (None, _) => Step::Answer(format!(
                    "Nothing came back when checking whether I can {}; nothing was done.",
                    self.action
                )),
            },
            s if s == 2 + checked => match first {
                Some(res) if reached_host(res) => Step::Calls(vec![self.verify.clone()]),
                Some(res) => Step::Answer(not_done(&self.action, res)),
                None => Step::Answer(format!("Nothing came back for {}.", self.action)),
            },
            _ => {
                let write = all.len().checked_sub(2).and_then(|i| all.get(i)).map(Res);
                match (first, write) {
                    (Some(res), Some(write)) if write.ok() && (res.ok() || res.ran()) => {
                        Step::Answer((self.describe)(res))
                    }
                    (Some(res), Some(write)) if res.ok() || res.ran() => Step::Answer(format!(
                        "{}\nAfterwards: {}",
                        failure(&self.action, write),
                        (self.state)(res)
                    )),
                    (Some(res), _) => Step::Answer(format!(
                        "{} ran, but checking the result failed: {} ({}), so I cannot say it worked.",
                        capitalised(&self.action),
                        res.message(),
                        res.code().unwrap_or("?")
                    )),
                    (None, _) => Step::Answer(format!(
                        "{} ran; nothing confirmed that it worked.",
                        capitalised(&self.action)
                    )),
                }
            }
        }
    }
}

/// Whether a write's command got to its host (then it must be verified).
fn reached_host(res: Res<'_>) -> bool {
    res.ok() || res.ran() || res.0["error"]["details"]["possibly_applied"] == json!(true)
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}
