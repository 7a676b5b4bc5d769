//! Why a container or a unit exited, in words: what `docker inspect` or
//! `systemctl show` and the last log lines say, no more.

use serde_json::Value;
use warden_protocol::Resource;

use super::format::{block, clip_lines, named};
use super::logs::in_time_order;
use super::result::Res;
use super::units::unit_blocks;
use crate::router::markers::{JOURNAL_MARKER, NO_SYSTEMCTL};

/// Docker's zero time: the container never finished.
const NEVER: &str = "0001-01-01T00:00:00Z";

/// "137 (128 + 9: killed by SIGKILL)".
pub fn exit_code_words(code: i64) -> String {
    if code > 128 && code < 160 {
        let signal = code - 128;
        format!("{code} (128 + {signal}: killed by {})", signal_name(signal))
    } else {
        code.to_string()
    }
}

fn signal_name(signal: i64) -> String {
    match signal {
        1 => "SIGHUP".into(),
        2 => "SIGINT".into(),
        3 => "SIGQUIT".into(),
        6 => "SIGABRT".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        13 => "SIGPIPE".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

pub fn describe_container_exit(container: &Resource, inspect: &str) -> String {
    let parsed: Value = serde_json::from_str(inspect).unwrap_or(Value::Null);
    let first = parsed.get(0).unwrap_or(&parsed);
    let state = &first["State"];
    let Some(status) = state["Status"].as_str() else {
        return format!(
            "docker inspect for {} returned nothing I could read:\n{}",
            named(container),
            block(&clip_lines(inspect, 10))
        );
    };
    let code = state["ExitCode"].as_i64().unwrap_or(0);
    let oom = state["OOMKilled"].as_bool() == Some(true);
    let finished = state["FinishedAt"].as_str().filter(|t| *t != NEVER);
    let restarts = first["RestartCount"].as_u64().unwrap_or(0);
    let policy = first["HostConfig"]["RestartPolicy"]["Name"]
        .as_str()
        .filter(|p| !p.is_empty() && *p != "no");
    let mut text = match (status, finished) {
        ("running", None) => format!(
            "{} is running and has not exited since it was created.",
            named(container)
        ),
        ("running", Some(at)) => format!(
            "{} is running again; its last exit was at {at}, with code {}.",
            named(container),
            exit_code_words(code)
        ),
        (_, Some(at)) => format!(
            "{} is {status}: it exited with code {} at {at}.",
            named(container),
            exit_code_words(code)
        ),
        (_, None) => format!("{} is {status} and has never run.", named(container)),
    };
    text.push_str(&format!(
        "\n  OOM-killed: {}",
        if oom {
            "yes (the kernel killed it for lack of memory)"
        } else {
            "no"
        }
    ));
    text.push_str(&format!("\n  restart count: {restarts}"));
    if let Some(policy) = policy {
        text.push_str(&format!(" (restart policy {policy})"));
    }
    if let Some(error) = state["Error"].as_str().filter(|e| !e.is_empty()) {
        text.push_str(&format!("\n  engine error: {error}"));
    }
    text
}

pub fn describe_unit_exit(host: &Resource, service: &str, stdout: &str) -> String {
    if stdout.contains(NO_SYSTEMCTL) {
        return format!(
            "{} does not run systemd, so there is no service manager that recorded why {service} exited. Ask for the logs of {service} instead.",
            named(host)
        );
    }
    let (units_text, journal) = stdout.split_once(JOURNAL_MARKER).unwrap_or((stdout, ""));
    let units = unit_blocks(units_text);
    let Some(unit) = units
        .iter()
        .find(|u| u.get("LoadState").is_some_and(|s| s == "loaded"))
    else {
        return format!(
            "There is no unit called {service} on {}, so systemd has no record of it exiting.",
            named(host)
        );
    };
    let get = |k: &str| unit.get(k).map(String::as_str).unwrap_or("");
    let id = unit.get("Id").map_or(service, String::as_str);
    let status: i64 = get("ExecMainStatus").parse().unwrap_or(0);
    let exit = match (get("ExecMainCode"), get("Result")) {
        (_, "oom-kill") => "was killed by the kernel's OOM killer".to_string(),
        ("2" | "3", _) => format!("was killed by {}", signal_name(status)),
        ("1", _) => format!("exited with code {status}"),
        _ => "has no recorded exit of its main process".to_string(),
    };
    let at = match get("ExecMainExitTimestamp") {
        "" | "n/a" => String::new(),
        t => format!(" at {t}"),
    };
    let mut text = match get("ActiveState") {
        "active" => format!(
            "{id} is running on {} (since {}); its main process last {exit}{at}.",
            named(host),
            get("ActiveEnterTimestamp")
        ),
        state => format!(
            "{id} on {} is {state} ({}): its main process {exit}{at}.",
            named(host),
            get("SubState")
        ),
    };
    text.push_str(&format!(
        "\n  result: {}\n  OOM-killed: {}\n  restarts by systemd: {}",
        get("Result"),
        if get("Result") == "oom-kill" {
            "yes"
        } else {
            "no"
        },
        match get("NRestarts") {
            "" => "unknown",
            n => n,
        }
    ));
    let lines: Vec<&str> = journal
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("-- "))
        .collect();
    if lines.is_empty() {
        text.push_str("\nThe journal has no entries for it (or cannot be read as this user).");
    } else {
        text.push_str(&format!(
            "\nLast {} journal lines:\n{}",
            lines.len(),
            block(&lines.join("\n"))
        ));
    }
    text
}

/// Why a container exited (`docker inspect` output), and its last log
/// lines in time order (or why they could not be read).
pub fn container_exit_answer(container: &Resource, inspect: &str, logs: Res<'_>) -> String {
    let mut text = describe_container_exit(container, inspect);
    if logs.ran() && logs.stdout().trim().is_empty() {
        text.push_str("\nIt logged nothing.");
    } else if logs.ran() {
        let lines = in_time_order(logs.stdout());
        text.push_str(&format!(
            "\nLast {} log lines:\n{}",
            lines.len(),
            block(&lines.join("\n"))
        ));
    } else {
        text.push_str(&format!(
            "\nIts logs could not be read: {} ({}).",
            logs.message(),
            logs.code().unwrap_or("?")
        ));
    }
    text
}
