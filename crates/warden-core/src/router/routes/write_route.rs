//! The shape every change takes: discover the target → (check the write
//! can work) → propose the write (the executor asks for approval at the
//! `controlled` level) → verify with a read → answer from what the read
//! showed. A write that reached its host is verified even when it failed,
//! because a failed restart may have left the service down.

use serde_json::{Value, json};
use warden_protocol::Resource;

use crate::router::plan::{Call, Step, args};
use crate::router::render::{Res, capitalised, failure, named, not_done};

/// A read before the write, and what its result means: `Err` is the
/// answer when the write could not work (nothing is proposed).
pub struct Precheck<'r> {
    pub call: Call,
    pub decide: &'r dyn Fn(Res<'_>) -> Result<(), String>,
}

/// What the verification reads showed, next to the write's own result.
#[derive(Debug, Clone, Copy)]
pub struct Verified<'v> {
    pub write: Res<'v>,
    /// One result per verification call, in order.
    pub reads: &'v [Value],
}

static NO_RESULT: Value = Value::Null;

impl<'v> Verified<'v> {
    /// The first verification read.
    pub fn first(self) -> Res<'v> {
        self.read(0)
    }

    pub fn read(self, index: usize) -> Res<'v> {
        Res(self.reads.get(index).unwrap_or(&NO_RESULT))
    }
}

pub struct WriteRoute<'r> {
    pub target: &'r Resource,
    /// "restart nginx on web1".
    pub action: String,
    pub precheck: Option<Precheck<'r>>,
    pub write: Call,
    /// The reads that verify the write, proposed together.
    pub verify: Vec<Call>,
    /// The answer when the write succeeded, from the verification reads.
    pub describe: &'r dyn Fn(Verified<'_>) -> String,
    /// The target's state in a neutral line, for a write that failed.
    pub state: &'r dyn Fn(Verified<'_>) -> String,
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
                    Err(answer) => Step::Decline(answer),
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
                Some(res) if reached_host(res) => Step::Calls(self.verify.clone()),
                Some(res) => Step::Answer(not_done(&self.action, res)),
                None => Step::Answer(format!("Nothing came back for {}.", self.action)),
            },
            _ => self.answer(last, all),
        }
    }

    /// The answer from the verification reads (`last`) and the write.
    fn answer(&self, last: &[Value], all: &[Value]) -> Step {
        let write = all
            .len()
            .checked_sub(last.len() + 1)
            .and_then(|i| all.get(i))
            .map(Res);
        let unreadable = last.iter().map(Res).find(|r| !(r.ok() || r.ran()));
        Step::Answer(match (write, unreadable) {
            (None, _) => format!(
                "{} ran; nothing confirmed that it worked.",
                capitalised(&self.action)
            ),
            _ if last.is_empty() => format!(
                "{} ran; nothing confirmed that it worked.",
                capitalised(&self.action)
            ),
            (Some(_), Some(read)) => format!(
                "{} ran, but checking the result failed: {} ({}), so I cannot say it worked.",
                capitalised(&self.action),
                read.message(),
                read.code().unwrap_or("?")
            ),
            (Some(write), None) => {
                let verified = Verified { write, reads: last };
                if write.ok() {
                    (self.describe)(verified)
                } else {
                    format!(
                        "{}\nAfterwards: {}",
                        failure(&self.action, write),
                        (self.state)(verified)
                    )
                }
            }
        })
    }
}

/// Whether a write's command got to its host (then it must be verified).
fn reached_host(res: Res<'_>) -> bool {
    let details = &res.0["error"]["details"];
    // A Proxmox task that ran and failed reached the cluster; a snapshot
    // that failed before the change says the change was not made.
    let task_failed =
        res.code() == Some("EXECUTION_FAILED") && details["change_made"] != json!(false);
    res.ok() || res.ran() || task_failed || details["possibly_applied"] == json!(true)
}
