//! `warden ask` against model servers that misbehave: a stream cut off
//! without a finish reason, a long Retry-After, an unreachable server, an
//! answer that claims what no tool showed. Each ends with the right exit
//! code and, with `--json`, an `error` event with a code before `done`;
//! routed requests keep working whatever the model does.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a panic is a failed test

use std::process::Command;

use serde_json::Value;
use serde_json::json;
use warden_testkit::model::{FakeModel, Reply, Turn, Wire, openai_chunk, openai_text, sse_data};

/// `warden ask --json TEXT` with an OpenAI-compatible model at `base_url`.
fn ask_json(base_url: &str, text: &str) -> (Vec<Value>, i32, String) {
    let out = ask(base_url, &["--json", text]);
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        events,
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `warden ask ARGS…` with an OpenAI-compatible model at `base_url`.
fn ask(base_url: &str, args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("ask")
        .args(args)
        .env("WARDEN_DB", home.join("w.db"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("WARDEN_PROVIDER", "ollama")
        .env("WARDEN_BASE_URL", base_url)
        .env("WARDEN_MODEL", "test-model")
        .output()
        .unwrap()
}

/// The code of the `error` event, checking it comes right before `done`.
fn closing_error(events: &[Value]) -> Option<String> {
    let n = events.len();
    assert!(n >= 1 && events[n - 1]["type"] == "done", "{events:?}");
    events
        .iter()
        .rev()
        .skip(1)
        .take_while(|e| e["type"] != "content" && e["type"] != "tool_end")
        .find(|e| e["type"] == "error")
        .and_then(|e| e["code"].as_str().map(str::to_string))
}

#[test]
fn a_stream_cut_off_without_a_finish_is_never_an_answer() {
    let cut = || Reply::sse([sse_data(&[&openai_text("The disk is 40")])]);
    let server = FakeModel::replying(Wire::OpenAi, [cut(), cut()]);
    server.set_fallback(cut());
    let (events, code, err) = ask_json(&server.url(), "why is the disk so slow today?");
    assert_eq!(code, 7, "the model failed: {err}\n{events:?}");
    assert_eq!(closing_error(&events).as_deref(), Some("MODEL_TRUNCATED"));
    let done = events.last().unwrap();
    let final_text = done["final_text"].as_str().unwrap_or_default();
    assert!(final_text.contains("cut off"), "{final_text}");
}

#[test]
fn a_long_retry_after_is_reported_not_waited_for() {
    let limited =
        || Reply::json(429, r#"{"error":{"message":"slow down"}}"#).header("Retry-After", "120");
    let server = FakeModel::replying(Wire::OpenAi, [limited()]);
    server.set_fallback(limited());
    let started = std::time::Instant::now();
    let (events, code, _) = ask_json(&server.url(), "why is the disk so slow today?");
    assert!(started.elapsed().as_secs() < 20, "it did not wait 120 s");
    assert_eq!(code, 7);
    assert_eq!(
        closing_error(&events).as_deref(),
        Some("MODEL_RATE_LIMITED")
    );
    let done = events.last().unwrap();
    assert!(
        done["final_text"].as_str().unwrap().contains("120"),
        "{done}"
    );
}

#[test]
fn an_unreachable_model_names_its_kind_and_the_router_still_answers() {
    // Nothing listens on this port.
    let url = format!("{}/v1", warden_testkit::net::unused_url());
    let (events, code, _) = ask_json(&url, "why is the disk so slow today?");
    assert_eq!(code, 7);
    let done = events.last().unwrap();
    let text = done["final_text"].as_str().unwrap();
    assert!(text.contains("ollama"), "{text}");
    assert!(!text.contains("openai"), "{text}");
    // A routed request needs no model at all.
    let (events, code, err) = ask_json(&url, "disk usage");
    assert_eq!(code, 0, "{err}\n{events:?}");
}

#[test]
fn a_claim_without_evidence_is_retracted_on_every_surface() {
    let claim = Reply::sse([sse_data(&[
        &openai_text("I restarted nginx and it is running again."),
        &openai_chunk("{}", r#""stop""#),
        "[DONE]",
    ])]);
    let server = FakeModel::replying(Wire::OpenAi, [claim]);
    let (events, code, _) = ask_json(&server.url(), "please fix nginx for me");
    assert_eq!(code, 7, "{events:?}");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "error" && e["code"] == "PHANTOM_DETECTED"),
        "{events:?}"
    );
    let done = events.last().unwrap();
    let text = done["final_text"].as_str().unwrap();
    assert!(text.contains("Retracted"), "{text}");
    assert!(!text.contains("I restarted nginx"), "{text}");
}

#[test]
fn an_answer_beyond_its_tool_results_is_marked_unverified_not_retracted() {
    let host = format!(
        "host:{}",
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap()
            .trim()
    );
    let model = FakeModel::start(Wire::OpenAi);
    let steps = |answer: &str| {
        vec![
            Turn::call("query", json!({"action": "get", "target": host})),
            Turn::call(
                "read",
                json!({"action": "exec", "target": host, "command": "echo 311 requests queued"}),
            ),
            Turn::text(answer),
        ]
    };
    model.script("zq beyond", steps("The mail queue holds 312 messages."));
    model.script("zq within", steps("The mail queue holds 311 messages."));

    let (events, code, err) = ask_json(&model.url(), "zq beyond: how big is the mail queue?");
    assert_eq!(code, 0, "the answer stands: {err}\n{events:?}");
    let unverified = events
        .iter()
        .find(|e| e["type"] == "error" && e["code"] == "ANSWER_UNVERIFIED")
        .unwrap_or_else(|| panic!("no ANSWER_UNVERIFIED: {events:?}"));
    assert!(
        unverified["message"].as_str().unwrap().contains("312"),
        "{unverified}"
    );
    assert!(!events.iter().any(|e| e["code"] == "PHANTOM_DETECTED"));
    let done = events.last().unwrap();
    assert_eq!(done["final_text"], "The mail queue holds 312 messages.");
    // On a terminal: the answer, and a visible marker naming what is missing.
    let out = ask(&model.url(), &["zq beyond: and now?"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains("holds 312 messages"), "{stdout}");
    assert!(
        stderr.contains("⚠ UNVERIFIED") && stderr.contains("312"),
        "{stderr}"
    );

    let (events, code, err) = ask_json(&model.url(), "zq within: how big is the mail queue?");
    assert_eq!(code, 0, "{err}\n{events:?}");
    assert!(
        !events.iter().any(|e| e["type"] == "error"),
        "a grounded answer is not marked: {events:?}"
    );
}
