//! One scripted conversation through `warden ask --json` and through the
//! API of `warden serve`: the same events, in the same order, with the same
//! fields (ids, times and durations aside).

use serde_json::{Value, json};

use crate::one_program::keys::Context;
use crate::one_program::support::{
    Observed, Script, ask, calls, calls_with_usage, says_with_usage, serve,
};

const CONFIG: &str = "[provider]\nkind = \"openai\"\nbase_url = \"{model}/v1\"\nmodel = \"test-model\"\nmax_retries = 0\n\n[pricing.test-model]\ninput = 1.0\noutput = 2.0\n";

fn script() -> Script {
    Script::of(vec![
        calls_with_usage(
            "query",
            json!({"action": "get", "target": "localhost"}),
            120,
            12,
        ),
        calls(
            "read",
            json!({"action": "exec", "target": "localhost", "command": "echo golden"}),
        ),
        // A refused call: the read tool takes no writes.
        calls(
            "read",
            json!({"action": "exec", "target": "localhost", "command": "rm -rf /tmp/warden-golden"}),
        ),
        says_with_usage("It printed golden, and nothing was removed.", 300, 20),
    ])
}

/// The event with what differs between two runs taken out: the session,
/// the time things took, and when approvals were made.
fn normalised(event: &Value) -> Value {
    let mut event = event.clone();
    if let Some(object) = event.as_object_mut() {
        object.remove("session_id");
        object.remove("seq");
        if object.contains_key("duration_ms") {
            object.insert("duration_ms".into(), json!(0));
        }
        if let Some(route) = object.get_mut("route").and_then(Value::as_object_mut) {
            route.insert("routing_us".into(), json!(0));
        }
        // This machine's live values (free memory, processes) move between
        // the runs: what the output says of the call stays.
        if let Some(output) = object.get("output").and_then(Value::as_str) {
            let seen: Value = serde_json::from_str(output).unwrap_or(Value::Null);
            object.insert(
                "output".into(),
                json!({
                    "ok": seen["ok"],
                    "error": seen["error"]["code"],
                    "stdout": seen["data"]["stdout"],
                    "resource": seen["data"]["resource"]["id"],
                }),
            );
        }
    }
    event
}

fn sequence(run: &Observed) -> Vec<Value> {
    run.events.iter().map(normalised).collect()
}

#[test]
fn one_conversation_gives_the_same_events_through_ask_and_through_the_api() {
    let context = Context::plain();
    let text = "please do the scripted check";
    let local = ask(CONFIG, &script(), text, &[], &context);
    let remote = serve(CONFIG, &script(), text, &[], &context);
    let kinds: Vec<&str> = local
        .events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        kinds,
        [
            "turn_start",
            "usage",
            "tool_start",
            "tool_end",
            "fsm_state",
            "tool_start",
            "tool_end",
            "tool_start",
            "tool_end",
            "content",
            "usage",
            "error",
            "done"
        ],
        "{:#?}",
        local.events
    );
    for run in [&local, &remote] {
        let seqs: Vec<u64> = run
            .events
            .iter()
            .filter_map(|e| e["seq"].as_u64())
            .collect();
        assert!(
            seqs.windows(2).all(|w| w[1] == w[0] + 1),
            "{}: seq increases by one: {seqs:?}",
            run.front_end
        );
        assert!(
            run.events
                .iter()
                .all(|e| e["session_id"] == run.session.as_str()),
            "{}: every event names the session",
            run.front_end
        );
    }
    let (local, remote) = (sequence(&local), sequence(&remote));
    for (i, (l, r)) in local.iter().zip(&remote).enumerate() {
        assert_eq!(l, r, "event {i} differs between ask --json and the API");
    }
    assert_eq!(local.len(), remote.len(), "{local:#?}\n{remote:#?}");
    // The refused read is in both, with its code, and the turn says a
    // change was refused before it is done.
    assert!(
        local
            .iter()
            .any(|e| e["type"] == "tool_end" && e["error_code"] == "READ_ONLY_VIOLATION"),
        "{local:#?}"
    );
    assert_eq!(
        local[local.len() - 2]["code"],
        "WRITE_REFUSED",
        "{local:#?}"
    );
    assert_eq!(local[local.len() - 1]["outcome"]["refused_writes"], 1);
}
