//! `systemctl show` output: its blocks as maps, and a unit's state in
//! words (for the answers after a service change).

/// `systemctl show` output: one map per unit (blocks separated by blank lines).
pub fn unit_blocks(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    text.split("\n\n")
        .map(|block| {
            block
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect::<std::collections::BTreeMap<_, _>>()
        })
        .filter(|m| !m.is_empty())
        .collect()
}

/// "active (running), result success, since …".
pub fn unit_state(unit: &std::collections::BTreeMap<String, String>) -> String {
    let get = |k: &str| unit.get(k).map(String::as_str).unwrap_or("?");
    let mut text = format!(
        "{}: {} ({}), result {}",
        get("Id"),
        get("ActiveState"),
        get("SubState"),
        get("Result")
    );
    if let Some(restarts) = unit.get("NRestarts").filter(|n| n.as_str() != "0") {
        text.push_str(&format!(", restarted {restarts} times by systemd"));
    }
    if let Some(since) = unit
        .get("ActiveEnterTimestamp")
        .filter(|s| !s.is_empty() && unit.get("ActiveState").is_some_and(|a| a == "active"))
    {
        text.push_str(&format!(", since {since}"));
    }
    text
}

/// "exited again with code 3", from `systemctl show`.
pub fn exited_again(unit: &std::collections::BTreeMap<String, String>) -> String {
    let get = |k: &str| unit.get(k).map(String::as_str).unwrap_or("");
    let status = get("ExecMainStatus");
    match (get("ExecMainCode"), get("Result")) {
        (_, "oom-kill") => "the kernel's OOM killer killed it again".to_string(),
        ("1", _) if status != "0" && !status.is_empty() => {
            format!("it exited again with code {status}")
        }
        ("2" | "3", _) => format!("it was killed again by signal {status}"),
        _ => format!(
            "it is not running ({} ({}))",
            get("ActiveState"),
            get("SubState")
        ),
    }
}
