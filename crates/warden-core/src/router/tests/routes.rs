//! Read routes as whole turns: the real loop and executor, hosts that
//! answer from a table, and the commands that reached them.

use crate::agent::LoopEvent;
use crate::router::intent::Stage;

use super::{answer, read};

#[test]
fn disk_usage_reads_metrics_and_hides_container_mounts() {
    let df = "@@warden:disk\nFilesystem 1-blocks Used Available Capacity Mounted on\n/dev/vda1 100000000000 60000000000 40000000000 60% /\noverlay 100000000000 60000000000 40000000000 60% /var/lib/docker/overlay2/x/merged\n";
    let out = read("disk usage", vec![answer("df -P", df, 0)]);
    assert_eq!(out.route.stage, Stage::FastPath);
    assert_eq!(out.route.target.as_deref(), Some("host:web1"));
    assert!(out.text.contains("Disk usage on web1"), "{}", out.text);
    assert!(out.text.contains("60.0% used"), "{}", out.text);
    assert!(!out.text.contains("overlay2"), "{}", out.text);
    assert!(
        out.text
            .contains("(1 overlay and other per-container mounts hidden"),
        "{}",
        out.text
    );
    assert_eq!(out.commands.len(), 1);
    let all = read(
        "disk usage including containers",
        vec![answer(
            "df -P",
            &df.replace("@@warden:disk", "@@warden:disk-all"),
            0,
        )],
    );
    assert!(all.text.contains("overlay2"), "{}", all.text);
}

#[test]
fn a_containers_memory_comes_from_the_engine_not_proc() {
    let stats = "@@warden:container-stats\n{\"CPUPerc\":\"1.00%\",\"MemUsage\":\"100MiB / 512MiB\",\"Name\":\"jellyfin\",\"NetIO\":\"0B / 0B\",\"BlockIO\":\"0B / 0B\",\"PIDs\":\"3\"}\n@@warden:container-limits\nrunning 536870912 0 0 0\n";
    for request in [
        "memory of jellyfin",
        "memory usage on jellyfin",
        "how much memory is jellyfin using",
    ] {
        let out = read(request, vec![answer("docker stats", stats, 0)]);
        let (target, command) = &out.commands[0];
        // Run by the engine's host, about that container; never /proc.
        assert_eq!(target, "host:web1", "{request}");
        assert!(command.contains("docker stats --no-stream"), "{command}");
        assert!(command.contains("'abc123'"), "{command}");
        assert!(!out.ran("/proc"), "{request}: {:?}", out.commands);
        assert!(
            out.text
                .contains("memory: 100.0 MiB of its 512.0 MiB limit"),
            "{request}: {}",
            out.text
        );
    }
}

#[test]
fn service_status_on_a_host_without_systemd_checks_processes() {
    let out = read(
        "is ssh running on bare",
        vec![answer("pgrep", "@@warden:processes\n", 0)],
    );
    let (target, command) = &out.commands[0];
    assert_eq!(target, "host:bare");
    assert!(!command.contains("systemctl"), "{command}");
    assert!(
        out.text
            .starts_with("No: bare (host:bare) does not run systemd"),
        "{}",
        out.text
    );
    let running = read(
        "is ssh running",
        vec![answer(
            "systemctl show",
            "Id=ssh.service\nLoadState=loaded\nActiveState=active\nSubState=running\nMainPID=42\nActiveEnterTimestamp=Mon 2026-11-23 08:00:00 UTC\nDescription=OpenBSD Secure Shell server\n\nId=sshd.service\nLoadState=not-found\nActiveState=inactive\nSubState=dead\nMainPID=0\n@@warden:processes\n42 sshd: /usr/sbin/sshd -D\n",
            0,
        )],
    );
    assert!(
        running.text.starts_with("Yes: ssh is running on web1"),
        "{}",
        running.text
    );
    assert!(running.text.contains("main PID 42"), "{}", running.text);
}

#[test]
fn system_log_without_files_or_entries_says_so() {
    let out = read(
        "show the last 20 lines of the syslog on bare",
        vec![answer("journalctl", "-- No entries --\n", 0)],
    );
    assert_eq!(out.commands[0].1, "journalctl -n 20 --no-pager");
    assert!(out.text.contains("no entries"), "{}", out.text);
    assert!(
        out.text.contains("There is no /var/log/syslog"),
        "{}",
        out.text
    );
    let with_file = read(
        "show the last 20 lines of the syslog",
        vec![answer("tail", "line one\nline two\n", 0)],
    );
    assert_eq!(with_file.commands[0].1, "tail -n 20 -- '/var/log/syslog'");
}

#[test]
fn container_logs_ask_the_engine_for_timestamps_and_the_window() {
    let out = read(
        "jellyfin logs with \"Timeout\" since 2h",
        vec![answer(
            "docker logs",
            "2026-11-23T10:00:02Z ok\n2026-11-23T10:00:01Z Timeout talking to db\n",
            0,
        )],
    );
    assert_eq!(
        out.commands[0],
        (
            "host:web1".to_string(),
            "docker logs --timestamps --tail=2000 --since '2h' 'abc123' 2>&1".to_string()
        )
    );
    assert!(out.text.contains("Timeout talking to db"), "{}", out.text);
    assert!(!out.text.contains(" ok"), "{}", out.text);
    assert!(out.text.contains("in the last 2 hours"), "{}", out.text);
}

#[test]
fn new_read_routes_run_one_bounded_command() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "top processes by memory",
            "ps -eo pid,user,pcpu,pmem,rss,comm --sort=-rss",
            "host:web1",
        ),
        ("open ports on bare", "ss -tulnp", "host:bare"),
        ("who is logged in", "who", "host:web1"),
        ("kernel version", "uname -srvm", "host:web1"),
        ("pending updates", "apt list --upgradable", "host:web1"),
        ("failed units", "systemctl list-units --failed", "host:web1"),
        (
            "errors in the last hour",
            "journalctl --no-pager -q -o short-iso -p err --since '1 hour ago'",
            "host:web1",
        ),
        (
            "certificate expiry of example.com",
            "openssl s_client -connect 'example.com:443' -servername 'example.com'",
            "host:web1",
        ),
        ("why did nginx exit", "systemctl show", "host:web1"),
    ];
    for (request, fragment, target) in cases {
        let out = read(request, vec![]);
        assert_eq!(out.route.stage, Stage::FastPath, "{request}");
        assert_eq!(out.commands.len(), 1, "{request}: {:?}", out.commands);
        assert_eq!(out.commands[0].0, *target, "{request}");
        assert!(
            out.commands[0].1.contains(fragment),
            "{request}: {}",
            out.commands[0].1
        );
    }
}

#[test]
fn why_a_container_exited_reads_inspect_and_its_last_lines() {
    let out = read(
        "why did jellyfin crash",
        vec![
            answer(
                "docker inspect",
                r#"[{"State":{"Status":"exited","ExitCode":1,"OOMKilled":false,"FinishedAt":"2026-11-23T10:00:00Z"},"RestartCount":0}]"#,
                0,
            ),
            answer(
                "docker logs",
                "2026-11-23T09:59:59Z fatal: config missing\n",
                0,
            ),
        ],
    );
    assert_eq!(out.tools(), ["docker", "read"]);
    assert!(
        out.ran("docker logs --timestamps --tail=20 'abc123' 2>&1"),
        "{:?}",
        out.commands
    );
    assert!(out.text.contains("exited with code 1"), "{}", out.text);
    assert!(out.text.contains("OOM-killed: no"), "{}", out.text);
    assert!(out.text.contains("fatal: config missing"), "{}", out.text);
}

#[test]
fn several_subjects_get_one_answer_each() {
    let out = read(
        "are jellyfin and redis running",
        vec![answer(
            "docker inspect",
            r#"[{"State":{"Status":"running","StartedAt":"2026-11-23T08:00:00Z"}}]"#,
            0,
        )],
    );
    assert_eq!(out.tools(), ["docker", "docker"]);
    assert!(
        out.text
            .contains("jellyfin (docker_container:web1:abc123) is running"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("redis (docker_container:web1:def456) is running"),
        "{}",
        out.text
    );
    assert_eq!(
        out.route.target.as_deref(),
        Some("docker_container:web1:abc123, docker_container:web1:def456")
    );
}

#[test]
fn unmatched_requests_get_the_nearest_phrasing() {
    let typo = read("disk usgae", vec![]);
    assert_eq!(typo.route.stage, Stage::Unmatched);
    assert!(
        typo.text.starts_with("I don't understand \"disk usgae\", and no language model is configured. Did you mean:\n  disk usage"),
        "{}",
        typo.text
    );
    assert!(
        typo.route
            .reason
            .contains("nearest phrasing is \"disk usage\""),
        "{}",
        typo.route.reason
    );
    assert!(typo.commands.is_empty());
    let with_host = read("memroy usage on web1", vec![]);
    assert!(
        with_host.text.contains("  memory usage on web1"),
        "{}",
        with_host.text
    );
    let far = read("why is jellyfin slow", vec![]);
    assert_eq!(far.route.stage, Stage::Unmatched);
    assert!(
        far.text.contains("no language model is configured"),
        "{}",
        far.text
    );
    assert!(far.text.contains("disk usage"), "{}", far.text);
    // Warden's own help text is not a phantom claim.
    assert!(
        !far.events
            .iter()
            .any(|e| matches!(e, LoopEvent::PhantomDetected))
    );
}

#[test]
fn raw_commands_run_through_the_read_tool_only_when_read_only() {
    let out = read("uptime", vec![answer("uptime", " 10:00 up 1 day\n", 0)]);
    assert_eq!(out.route.stage, Stage::Parser);
    assert!(out.text.contains("up 1 day"), "{}", out.text);
    let refused = super::ask(
        "rm -rf /tmp/x",
        warden_protocol::ControlLevel::Autonomous,
        crate::agent::Decision::Approve,
        vec![],
    );
    assert!(refused.commands.is_empty());
    assert!(refused.text.contains("not read-only"), "{}", refused.text);
}

#[test]
fn unknown_hosts_are_named() {
    let out = read("disk usage on nowhere", vec![]);
    assert!(
        out.text
            .contains("I don't know a resource called `nowhere`"),
        "{}",
        out.text
    );
    assert!(out.commands.is_empty());
}
