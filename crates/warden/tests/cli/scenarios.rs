//! Every replay scenario (shared/scenarios and the project's own
//! `scenarios/`) meets its `expect` block, run through the real `warden`
//! binary as an operator would run it.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn shared_dir() -> PathBuf {
    std::env::var_os("WARDEN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
}

fn scenario_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

fn replay(path: &Path) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["replay", path.to_str().unwrap(), "--json"])
        .output()
        .expect("run warden");
    assert!(
        output.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{}: bad JSON: {e}", path.display()))
}

fn expect_of(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let yaml: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let json = serde_json::to_value(yaml).unwrap();
    json.get("expect").cloned().unwrap_or(Value::Null)
}

fn codes_match(expected: &Value, actual: &Value) -> bool {
    match expected {
        Value::Array(options) => options.iter().any(|o| o == actual),
        Value::Null => actual.is_null(),
        other => other == actual,
    }
}

/// Check a transcript against an expect block; returns the failures.
fn check(transcript: &Value, expect: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    let events = transcript["events"].as_array().cloned().unwrap_or_default();
    let results: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    let execs: Vec<String> = events
        .iter()
        .filter(|e| e["type"] == "exec")
        .map(|e| e["command"].as_str().unwrap_or_default().to_string())
        .collect();
    let Some(expect) = expect.as_object() else {
        return failures;
    };
    for (key, value) in expect {
        match key.as_str() {
            "results" => {
                for want in value.as_array().into_iter().flatten() {
                    let index = &want["index"];
                    let Some(got) = results.iter().find(|r| &r["index"] == index) else {
                        failures.push(format!("no result for index {index}"));
                        continue;
                    };
                    if let Some(ok) = want.get("ok") {
                        if &got["ok"] != ok {
                            failures.push(format!(
                                "index {index}: ok {} (want {ok}), code {}",
                                got["ok"], got["error_code"]
                            ));
                        }
                    }
                    if let Some(cached) = want.get("cached") {
                        if &got["cached"] != cached {
                            failures.push(format!(
                                "index {index}: cached {} (want {cached})",
                                got["cached"]
                            ));
                        }
                    }
                    if let Some(code) = want.get("error_code") {
                        if !codes_match(code, &got["error_code"]) {
                            failures.push(format!(
                                "index {index}: error_code {} (want {code})",
                                got["error_code"]
                            ));
                        }
                    }
                }
            }
            "exec_matching" => {
                for pattern in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !execs.iter().any(|c| c.contains(pattern)) {
                        failures.push(format!("no exec contains `{pattern}`: {execs:?}"));
                    }
                }
            }
            "no_exec_matching" => {
                for pattern in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if let Some(c) = execs.iter().find(|c| c.contains(pattern)) {
                        failures.push(format!("exec `{c}` contains `{pattern}`"));
                    }
                }
            }
            "exec_count" => {
                if Some(execs.len() as u64) != value.as_u64() {
                    failures.push(format!(
                        "{} commands ran (want {value}): {execs:?}",
                        execs.len()
                    ));
                }
            }
            "final_fsm_state" => {
                if &transcript["final_fsm_state"] != value {
                    failures.push(format!(
                        "final_fsm_state {} (want {value})",
                        transcript["final_fsm_state"]
                    ));
                }
            }
            "phantom_detected" => {
                let detected = events.iter().any(|e| e["type"] == "phantom_detected");
                if Some(detected) != value.as_bool() {
                    failures.push(format!("phantom_detected {detected} (want {value})"));
                }
            }
            "final_text_not_contains" => {
                let text = transcript["final_text"].as_str().unwrap_or_default();
                for needle in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if text.contains(needle) {
                        failures.push(format!("final_text contains `{needle}`"));
                    }
                }
            }
            "final_text_contains" => {
                let text = transcript["final_text"].as_str().unwrap_or_default();
                for needle in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !text.contains(needle) {
                        failures.push(format!("final_text lacks `{needle}`: {text}"));
                    }
                }
            }
            "events_include" => {
                // A type name, or an object whose every field an event has.
                for want in value.as_array().into_iter().flatten() {
                    let found = match want {
                        Value::String(kind) => events.iter().any(|e| e["type"] == *kind),
                        Value::Object(fields) => events
                            .iter()
                            .any(|e| fields.iter().all(|(k, v)| &e[k.as_str()] == v)),
                        _ => false,
                    };
                    if !found {
                        failures.push(format!("no event like {want}"));
                    }
                }
            }
            "events_exclude" => {
                // A type name, or an object whose every field an event has.
                for unwanted in value.as_array().into_iter().flatten() {
                    let found = events.iter().find(|e| match unwanted {
                        Value::String(kind) => e["type"] == *kind,
                        Value::Object(fields) => fields.iter().all(|(k, v)| &e[k.as_str()] == v),
                        _ => false,
                    });
                    if let Some(event) = found {
                        failures.push(format!("unwanted event {event}"));
                    }
                }
            }
            other => failures.push(format!("unknown expect key `{other}`: teach the checker")),
        }
    }
    failures
}

fn check_dir(dir: &Path) -> usize {
    let files = scenario_files(dir);
    let mut failures = Vec::new();
    for file in &files {
        let transcript = replay(file);
        for failure in check(&transcript, &expect_of(file)) {
            failures.push(format!("{}: {failure}", file.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "scenario expectations failed:\n{}",
        failures.join("\n")
    );
    files.len()
}

#[test]
fn shared_scenarios_meet_their_expectations() {
    assert!(check_dir(&shared_dir().join("scenarios")) >= 5);
}

#[test]
fn own_scenarios_meet_their_expectations() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    assert!(check_dir(&dir) >= 5);
}

#[test]
fn invalid_files_fail_with_the_field_named() {
    let dir = std::env::temp_dir().join(format!("warden-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("name: x\nturns: []\nfrobnicate: 1\n", "frobnicate"),
        ("turns: []\n", "name"),
        ("name: x\ncontrol_level: yolo\nturns: []\n", "yolo"),
        (
            "name: x\ninventory:\n  - {id: 'lxc:141', name: a}\nturns: []\n",
            "needs a host",
        ),
        (
            "name: x\nexec:\n  - {match: '(', stdout: a}\nturns: []\n",
            "exec[0].match",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{i}.yaml"));
        std::fs::write(&path, text).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_warden"))
            .args(["replay", path.to_str().unwrap(), "--json"])
            .output()
            .unwrap();
        assert!(!output.status.success(), "{text}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{text}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
