//! Which reply a request gets. In order: a fixed route (method and path,
//! every time), the test's own chooser, the scripts chosen by the last
//! user message (a server that runs many sessions), the queue, the
//! fallback; with none of these, a 500 that says so.

use std::collections::VecDeque;

use super::recorded::Recorded;
use super::reply::Reply;
use super::turn::Turn;

/// A reply as scripted: raw HTTP, or a turn the server renders in its wire
/// format.
#[derive(Debug, Clone)]
pub enum Scripted {
    Raw(Reply),
    Turn(Turn),
}

impl From<Reply> for Scripted {
    fn from(reply: Reply) -> Self {
        Scripted::Raw(reply)
    }
}

impl From<Turn> for Scripted {
    fn from(turn: Turn) -> Self {
        Scripted::Turn(turn)
    }
}

/// Chooses a reply from the request; `None` lets the next rule decide.
pub type Chooser = Box<dyn Fn(&Recorded) -> Option<Scripted> + Send>;

struct Route {
    method: String,
    path: String,
    reply: Scripted,
}

/// Steps for the user messages containing a phrase.
struct PhraseScript {
    phrase: String,
    steps: Vec<Turn>,
}

pub(super) struct Script {
    routes: Vec<Route>,
    chooser: Option<Chooser>,
    by_message: Vec<PhraseScript>,
    /// What a message no phrase script matches gets (once there are some).
    unscripted: Turn,
    queue: VecDeque<Scripted>,
    fallback: Option<Scripted>,
}

impl Script {
    pub(super) fn new() -> Script {
        Script {
            routes: Vec::new(),
            chooser: None,
            by_message: Vec::new(),
            unscripted: Turn::text("I have no script for that."),
            queue: VecDeque::new(),
            fallback: None,
        }
    }

    pub(super) fn route(&mut self, method: &str, path: &str, reply: Scripted) {
        self.routes.push(Route {
            method: method.to_string(),
            path: path.to_string(),
            reply,
        });
    }

    pub(super) fn choose(&mut self, chooser: Chooser) {
        self.chooser = Some(chooser);
    }

    pub(super) fn add_phrase(&mut self, phrase: &str, steps: Vec<Turn>) {
        self.by_message.push(PhraseScript {
            phrase: phrase.to_string(),
            steps,
        });
    }

    pub(super) fn set_unscripted(&mut self, turn: Turn) {
        self.unscripted = turn;
    }

    pub(super) fn queue(&mut self, reply: Scripted) {
        self.queue.push_back(reply);
    }

    pub(super) fn set_fallback(&mut self, reply: Scripted) {
        self.fallback = Some(reply);
    }

    pub(super) fn pick(&mut self, request: &Recorded) -> Scripted {
        if let Some(route) = self
            .routes
            .iter()
            .find(|r| r.method == request.method && r.path == request.path())
        {
            return route.reply.clone();
        }
        if let Some(chosen) = self.chooser.as_ref().and_then(|choose| choose(request)) {
            return chosen;
        }
        if !self.by_message.is_empty() {
            return Scripted::Turn(self.by_last_user_message(request));
        }
        self.queue
            .pop_front()
            .or_else(|| self.fallback.clone())
            .unwrap_or_else(|| {
                Scripted::Raw(Reply::json(
                    500,
                    r#"{"error":"fake server: no scripted reply left"}"#,
                ))
            })
    }

    /// The latest script whose phrase the last user message contains, at
    /// the step of how many times the model has answered since.
    fn by_last_user_message(&self, request: &Recorded) -> Turn {
        let message = request.last_user_text();
        let step = request.answers_since_user();
        self.by_message
            .iter()
            .rev()
            .find(|script| message.contains(script.phrase.as_str()))
            .and_then(|script| script.steps.get(step).cloned())
            .unwrap_or_else(|| self.unscripted.clone())
    }
}
