//! The CLI through a server (`--server`) is the same program as the CLI on
//! this machine: the same REPL and slash commands, approvals listed over
//! the API, Ctrl-C that cancels cleanly, and an operator who cannot approve
//! told so while the turn waits for someone who can.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::one_program::keys::Context;
use crate::one_program::support::{Script, Serve, calls, says, warden};

const MODEL: &str = "[provider]\nkind = \"openai\"\nbase_url = \"{model}/v1\"\nmodel = \"test-model\"\nmax_retries = 0\n";

/// A write the model proposes after finding its target (harmless: a file
/// in /tmp, and the tests deny it or leave it pending).
fn write_script() -> Script {
    Script::of(vec![
        calls("query", json!({"action": "get", "target": "localhost"})),
        calls(
            "control",
            json!({"action": "command", "target": "localhost", "command": "touch /tmp/warden-remote-test"}),
        ),
        says("Not changed."),
    ])
}

/// `warden ARGS… --server URL --token TOKEN`.
fn remote(serve: &Serve, token: &str, args: &[&str]) -> Command {
    let mut command = warden(&serve.dir);
    command
        .args(args)
        .args(["--server", &serve.base, "--token", token]);
    command
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A pending approval made by an operator's turn that nobody decides.
fn pending(serve: &Serve) -> String {
    let (status, session) = serve.call("POST", "/api/sessions", Some(json!({})));
    assert_eq!(status, 201, "{session}");
    let id = session["id"].as_str().unwrap();
    let (status, _) = serve.call(
        "POST",
        &format!("/api/sessions/{id}/messages"),
        Some(json!({"text": "do the scripted change"})),
    );
    assert_eq!(status, 202);
    wait_for_approval(serve)
}

fn wait_for_approval(serve: &Serve) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, listed) = serve.call("GET", "/api/approvals?state=pending", None);
        if let Some(id) = listed[0]["id"].as_str() {
            return id.to_string();
        }
        assert!(Instant::now() < deadline, "no approval was asked for");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn approvals_are_listed_over_the_api() {
    let (serve, _model) = Serve::with_model(MODEL, &write_script(), &Context::plain());
    let approval = pending(&serve);
    let out = remote(&serve, &serve.token, &["approvals", "list"])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains(&approval), "{stdout}");
    assert!(stdout.contains("touch /tmp/warden-remote-test"), "{stdout}");
    assert!(stdout.contains("expires in "), "relative expiry: {stdout}");
    let out = remote(&serve, &serve.token, &["approvals", "list", "--json"])
        .output()
        .unwrap();
    let listed: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["id"], approval.as_str());
    // Denied from the command line, as its owner would.
    let out = remote(
        &serve,
        &serve.token,
        &["approvals", "deny", &approval, "--reason", "not today"],
    )
    .output()
    .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(stdout.contains("denied"), "{stdout}{stderr}");
}

#[test]
fn ctrl_c_cancels_a_remote_turn_without_an_error() {
    let (serve, _model) = Serve::with_model("", &Script::of(Vec::new()), &Context::plain());
    let child = remote(&serve, &serve.token, &["ask", "sleep 20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the command runs on the server, Ctrl-C.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, sessions) = serve.call("GET", "/api/sessions", None);
        if sessions[0]["state"] == "running" {
            break;
        }
        assert!(Instant::now() < deadline, "the turn never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "cancelled at once"
    );
    assert!(
        !stderr.contains("warden:") && !stderr.contains("JSON"),
        "no error for a cancel: {stderr}"
    );
}

#[test]
fn chat_through_a_server_is_the_same_repl() {
    let (serve, _model) = Serve::with_model("", &Script::of(Vec::new()), &Context::plain());
    let mut child = remote(&serve, &serve.token, &["chat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"/level read_only\n/session\n/reset\n/help\nuptime\n/quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for expected in [
        "control level: read_only",
        "Forgot what this session discovered",
        "/verbose",
        "resume with `warden chat --server",
    ] {
        assert!(
            stdout.contains(expected),
            "`{expected}` in:\n{stdout}\n{stderr}"
        );
    }
    let id = stdout
        .split("session ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .trim_end_matches(';');
    let (status, session) = serve.call("GET", &format!("/api/sessions/{id}"), None);
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["control_level"], "read_only", "{session}");
    let said: Vec<&str> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["text"].as_str())
        .collect();
    assert!(
        said.contains(&"uptime"),
        "the message went to the server: {said:?}"
    );
}

/// `cmd` on a terminal of its own (`script` gives it a pty); `input` is
/// typed after `delay`, and the terminal's input closes `hold` later
/// (`script` ends only then).
pub fn on_a_terminal(
    cmd: &str,
    input: &str,
    delay: Duration,
    hold: Duration,
    env: &[(&str, &str)],
) -> Output {
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", cmd, "/dev/null"])
        .envs(env.iter().copied())
        .env("TERM", "xterm")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        let _ = stdin.write_all(input.as_bytes());
        // Held open: closing the pty's input would end the program early.
        std::thread::sleep(hold);
    });
    child.wait_with_output().unwrap()
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[test]
fn an_operator_who_cannot_approve_waits_for_an_approver() {
    let (serve, _model) = Serve::with_model(MODEL, &write_script(), &Context::plain());
    let operator = serve.token_for("operator");
    let cmd = format!(
        "{} ask --server {} --token {} {}",
        shell_quote(env!("CARGO_BIN_EXE_warden")),
        serve.base,
        operator,
        shell_quote("do the scripted change")
    );
    let home = serve.dir.display().to_string();
    let decider = std::thread::spawn({
        let base = serve.base.clone();
        let admin = serve.token.clone();
        move || {
            let call = |method: &str, path: &str, body: Option<serde_json::Value>| {
                crate::one_program::support::http::call(&base, &admin, method, path, body)
            };
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                let (_, listed) = call("GET", "/api/approvals?state=pending", None);
                if let Some(id) = listed[0]["id"].as_str() {
                    // Long enough for the operator's terminal to say it waits.
                    std::thread::sleep(Duration::from_secs(2));
                    call(
                        "POST",
                        &format!("/api/approvals/{id}/deny"),
                        Some(json!({"reason": "not by an operator"})),
                    );
                    return;
                }
                assert!(Instant::now() < deadline, "no approval was asked for");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    });
    let out = on_a_terminal(
        &cmd,
        "",
        Duration::ZERO,
        Duration::from_secs(8),
        &[("HOME", &home), ("XDG_CONFIG_HOME", &home)],
    );
    decider.join().unwrap();
    let (stdout, stderr) = text(&out);
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("waiting for an approver (you are operator)"),
        "{all}"
    );
    assert!(!all.contains("Run it?"), "an operator is not asked: {all}");
    assert!(
        all.contains("denied"),
        "the stream is followed to the decision: {all}"
    );
    assert_eq!(out.status.code(), Some(6), "a denied write: {all}");
}

#[test]
fn no_question_is_drawn_over_by_the_elapsed_time_line() {
    let context = Context::plain();
    let dir = tempfile::tempdir().unwrap();
    let model = crate::one_program::support::start_model(&write_script(), &context);
    let config = dir.path().join("config.toml");
    std::fs::write(&config, MODEL.replace("{model}", &model.url())).unwrap();
    let cmd = format!(
        "{} ask --config {} {}",
        shell_quote(env!("CARGO_BIN_EXE_warden")),
        shell_quote(&config.display().to_string()),
        shell_quote("do the scripted change")
    );
    let home = dir.path().display().to_string();
    // The answer comes 3 s after the question: the line would have been
    // redrawn over it a dozen times by then.
    let out = on_a_terminal(
        &cmd,
        "n\rno thanks\r",
        Duration::from_secs(3),
        Duration::from_secs(4),
        &[
            ("HOME", &home),
            ("XDG_CONFIG_HOME", &home),
            ("XDG_DATA_HOME", &home),
        ],
    );
    let all = String::from_utf8_lossy(&out.stdout).into_owned();
    let asked = all
        .find("Run it? [y/N] ")
        .unwrap_or_else(|| panic!("{all:?}"));
    let next = all[asked..]
        .find("Reason (optional)")
        .map_or(all.len(), |i| asked + i);
    let between = &all[asked..next];
    assert!(
        !between.contains('…'),
        "nothing is drawn over the question while it waits: {between:?}"
    );
    let after = &all[next..];
    let denied = after.find("denied").unwrap_or(after.len());
    assert!(
        !after[..denied].contains('…'),
        "nor over the reason: {:?}",
        &after[..denied]
    );
    assert!(all.contains("expires: "), "{all}");
    assert!(
        all.contains("(in 5 min)") || all.contains("(in 4 min)"),
        "relative expiry: {all}"
    );
    assert_eq!(out.status.code(), Some(6), "a denied write: {all}");
}
