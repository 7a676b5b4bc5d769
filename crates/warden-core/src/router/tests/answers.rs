//! Answers worded from recorded outputs: each route's last step fed a
//! result as the executor would return it. Every claim in an answer must
//! come from the output.

use serde_json::{Value, json};
use warden_protocol::Resource;

use super::{inventory, ok_with};
use crate::router::intent::{Fact, LogsRequest, ProcessOrder};
use crate::router::recognise::since::{Since, TimeUnit};
use crate::router::render::logs::in_time_order;
use crate::router::{Plan, Step, next_step};

fn named(name: &str) -> Resource {
    crate::ports::Inventory::snapshot(&inventory())
        .all()
        .iter()
        .find(|r| r.name == name)
        .cloned()
        .unwrap()
}

/// The answer a plan gives when its first calls return `results`.
fn answer_with(plan: &Plan, results: &[Value]) -> String {
    match next_step(plan, 1, results, results) {
        Step::Answer(text) | Step::Decline(text) => text,
        Step::Calls(calls) => panic!("expected an answer, got calls {calls:?}"),
    }
}

fn fact_answer(fact: Fact, stdout: &str) -> String {
    let plan = Plan::HostFact {
        host: named("web1"),
        fact,
    };
    answer_with(&plan, &[ok_with(stdout)])
}

#[test]
fn top_processes() {
    let ps = "    PID USER     %CPU %MEM   RSS COMMAND\n   812 www-data 45.2  3.1 254000 php-fpm8.2\n     1 root      0.1  0.2 12000 systemd\n";
    let text = fact_answer(Fact::TopProcesses(ProcessOrder::Cpu), ps);
    assert!(text.starts_with("Top 2 processes by CPU"), "{text}");
    assert!(
        text.contains("812") && text.contains("php-fpm8.2") && text.contains("248.0 MiB"),
        "{text}"
    );
    let text = fact_answer(Fact::TopProcesses(ProcessOrder::Memory), "garbage");
    assert!(text.contains("printed no processes I could read"), "{text}");
}

#[test]
fn ports() {
    let ss = "Netid State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n\
udp   UNCONN 0      0          0.0.0.0:68        0.0.0.0:*     users:((\"dhclient\",pid=500,fd=7))\n\
tcp   LISTEN 0      511        0.0.0.0:80        0.0.0.0:*     users:((\"nginx\",pid=612,fd=6),(\"nginx\",pid=613,fd=6))\n\
tcp   LISTEN 0      128           [::]:22           [::]:*\n";
    let all = fact_answer(Fact::Ports { port: None }, ss);
    assert!(all.starts_with("3 listening sockets on web1"), "{all}");
    assert!(all.contains("80/tcp  0.0.0.0  (nginx)"), "{all}");
    assert!(all.contains("22/tcp  [::]"), "{all}");
    assert!(all.contains("without a process name"), "{all}");
    let one = fact_answer(Fact::Ports { port: Some(80) }, ss);
    assert!(one.starts_with("Listening on port 80"), "{one}");
    assert!(!one.contains("dhclient"), "{one}");
    let none = fact_answer(Fact::Ports { port: Some(443) }, ss);
    assert_eq!(
        none,
        "Nothing is listening on port 443 on web1 (host:web1)."
    );
}

#[test]
fn sessions_kernel_and_failed_units() {
    let who = "alice    pts/0        2026-11-23 10:00 (10.0.0.5)\nbob      pts/1        2026-11-23 10:05 (10.0.0.6)\nalice    pts/2        2026-11-23 10:09 (10.0.0.5)\n";
    let text = fact_answer(Fact::Sessions, who);
    assert!(
        text.starts_with("3 sessions on web1 (host:web1) (alice, bob):"),
        "{text}"
    );
    assert_eq!(
        fact_answer(Fact::Sessions, ""),
        "Nobody is logged in on web1 (host:web1) (according to `who`)."
    );
    let uname = "Linux 6.1.0-27-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1 (2024-11-01) x86_64\n@@warden:os\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n";
    assert_eq!(
        fact_answer(Fact::Kernel, uname),
        "web1 (host:web1) runs Linux 6.1.0-27-amd64 (#1 SMP PREEMPT_DYNAMIC Debian 6.1.115-1 (2024-11-01)) on x86_64; the OS is Debian GNU/Linux 12 (bookworm)."
    );
    let failed = "nginx.service loaded failed failed A high performance web server\n";
    let text = fact_answer(Fact::FailedUnits, failed);
    assert!(text.starts_with("1 failed unit on web1"), "{text}");
    assert!(
        text.contains("nginx.service  A high performance web server"),
        "{text}"
    );
    assert!(text.contains("why did nginx exit"), "{text}");
    assert_eq!(
        fact_answer(Fact::FailedUnits, ""),
        "No failed units on web1 (host:web1)."
    );
    let text = fact_answer(Fact::FailedUnits, "@@warden:no-systemctl\n");
    assert!(text.contains("does not run systemd"), "{text}");
}

#[test]
fn updates_per_package_manager() {
    let apt = "@@warden:apt\nListing...\nopenssl/stable-security 3.0.15-1~deb12u1 amd64 [upgradable from: 3.0.14-1~deb12u2]\ncurl/stable 7.88.1-10+deb12u8 amd64 [upgradable from: 7.88.1-10+deb12u7]\n";
    let text = fact_answer(Fact::Updates, apt);
    assert!(
        text.starts_with(
            "2 pending updates on web1 (host:web1), 1 from security repositories (apt"
        ),
        "{text}"
    );
    assert!(text.contains("as of the last `apt update`"), "{text}");
    // Security first.
    let openssl = text.find("openssl").unwrap();
    assert!(openssl < text.find("curl").unwrap(), "{text}");
    let dnf = "@@warden:dnf\n\nopenssl.x86_64    1:3.0.7-27.el9    baseos\nkernel.x86_64     5.14.0-427.el9    baseos\nObsoleting Packages\nfoo.x86_64 1 bar\n";
    let text = fact_answer(Fact::Updates, dnf);
    assert!(text.starts_with("2 pending updates"), "{text}");
    let apk = "@@warden:apk\nbusybox-1.36.1-r29 x86_64 {busybox} (GPL-2.0-only) [upgradable from: busybox-1.36.1-r28]\n";
    let text = fact_answer(Fact::Updates, apk);
    assert!(text.contains("busybox 1.36.1-r29"), "{text}");
    let text = fact_answer(Fact::Updates, "@@warden:apt\nListing...\n");
    assert!(text.starts_with("No pending updates on web1"), "{text}");
    let text = fact_answer(Fact::Updates, "@@warden:no-package-manager\n");
    assert!(text.contains("none of apt, dnf, yum or apk"), "{text}");
}

#[test]
fn host_wide_errors() {
    let plan = Plan::Errors {
        host: named("web1"),
        since: Since::Ago {
            amount: 1,
            unit: TimeUnit::Hour,
        },
    };
    let journal = "2026-11-23T10:00:01+0000 web1 nginx[612]: upstream timed out\n2026-11-23T10:00:02+0000 web1 kernel: I/O error, dev sda\n2026-11-23T10:00:03+0000 web1 nginx[612]: upstream timed out\n";
    let text = answer_with(&plan, &[ok_with(journal)]);
    assert!(
        text.starts_with("3 error entries (journal priority err or worse) on web1 (host:web1) in the last hour; by source: nginx (2), kernel (1)."),
        "{text}"
    );
    let none = answer_with(&plan, &[ok_with("-- No entries --\n")]);
    assert_eq!(
        none,
        "No errors (journal priority err or worse) on web1 (host:web1) in the last hour."
    );
    // No journal but a syslog file: the file is searched next.
    let next = next_step(&plan, 1, &[ok_with("@@warden:no-journal\n")], &[]);
    let Step::Calls(calls) = next else {
        panic!("{next:?}")
    };
    let command = calls[0].arguments["command"].as_str().unwrap();
    assert!(command.contains("'/var/log/syslog'"), "{command}");
}

#[test]
fn why_containers_and_units_exited() {
    let container = Plan::ContainerExit {
        container: named("jellyfin"),
    };
    let inspect =
        json!([{"State": {"Status": "exited", "ExitCode": 137, "OOMKilled": true, "Error": "",
        "FinishedAt": "2026-11-23T10:00:00.5Z"}, "RestartCount": 3,
        "HostConfig": {"RestartPolicy": {"Name": "on-failure"}}}])
        .to_string();
    let logs = "2026-11-23T09:59:59.000000001Z starting transcode\n2026-11-23T09:59:58.000000000Z booting\n";
    let text = answer_with(&container, &[ok_with(&inspect), ok_with(logs)]);
    assert!(
        text.starts_with("jellyfin (docker_container:web1:abc123) is exited: it exited with code 137 (128 + 9: killed by SIGKILL) at 2026-11-23T10:00:00.5Z."),
        "{text}"
    );
    assert!(text.contains("OOM-killed: yes"), "{text}");
    assert!(
        text.contains("restart count: 3 (restart policy on-failure)"),
        "{text}"
    );
    // Log lines in time order, whatever order they came in.
    let booting = text.find("booting").unwrap();
    assert!(booting < text.find("starting transcode").unwrap(), "{text}");

    let unit = Plan::ServiceExit {
        host: named("web1"),
        service: "nginx".into(),
    };
    let show = "Id=nginx.service\nLoadState=loaded\nActiveState=failed\nSubState=failed\nResult=exit-code\nExecMainCode=1\nExecMainStatus=3\nExecMainExitTimestamp=Mon 2026-11-23 10:00:00 UTC\nNRestarts=5\n\nId=nginxd.service\nLoadState=not-found\n@@warden:journal\nNov 23 10:00:00 web1 nginx[612]: emerg: bind() failed\n";
    let text = answer_with(&unit, &[ok_with(show)]);
    assert!(
        text.starts_with("nginx.service on web1 (host:web1) is failed (failed): its main process exited with code 3 at Mon 2026-11-23 10:00:00 UTC."),
        "{text}"
    );
    assert!(text.contains("restarts by systemd: 5"), "{text}");
    assert!(text.contains("OOM-killed: no"), "{text}");
    assert!(text.contains("bind() failed"), "{text}");
    let oom = show.replace("Result=exit-code", "Result=oom-kill");
    let text = answer_with(&unit, &[ok_with(&oom)]);
    assert!(
        text.contains("was killed by the kernel's OOM killer"),
        "{text}"
    );
    let missing = answer_with(&unit, &[ok_with("Id=nginx.service\nLoadState=not-found\n")]);
    assert!(
        missing.starts_with("There is no unit called nginx"),
        "{missing}"
    );
}

#[test]
fn container_metrics_come_with_the_container_limit() {
    let plan = Plan::Metric {
        host: named("jellyfin"),
        metric: crate::executor::host_metrics::Metric::Memory,
    };
    let result = json!({"ok": true, "data": {"metrics": {"container": {
        "state": "running", "memory_used_bytes": 536870912u64, "memory_limit_bytes": 1073741824u64,
        "memory_percent": 50.0, "memory_limit_set": true, "cpu_percent": 12.5, "cpu_limit_cores": 1.5}}}});
    let text = answer_with(&plan, &[result]);
    assert!(
        text.contains("memory: 512.0 MiB of its 1.0 GiB limit (50.0%)"),
        "{text}"
    );
    assert!(
        text.contains("cpu: 12.5% (100% = one core), limited to 1.5 cores"),
        "{text}"
    );
    assert!(!text.contains("Memory on"), "{text}");
    let unlimited = json!({"ok": true, "data": {"metrics": {"container": {
        "state": "running", "memory_used_bytes": 10485760u64, "memory_limit_bytes": 8192000000u64,
        "memory_limit_set": false, "cpu_limit_cores": null}}}});
    let text = answer_with(&plan, &[unlimited]);
    assert!(text.contains("no memory limit is set"), "{text}");
    assert!(text.contains("no CPU limit"), "{text}");
}

#[test]
fn container_logs_are_ordered_filtered_and_windowed() {
    // stderr and stdout lines as `docker logs --timestamps … 2>&1` may
    // deliver them; some engines trim the fraction.
    let out = "2026-11-23T10:00:02.5Z GET / 200\n2026-11-23T10:00:01Z ERROR timeout talking to db\n2026-11-23T10:00:02.25Z warn: slow\nError response from daemon: oops\n";
    // A line without a timestamp stays after the line it followed.
    assert_eq!(
        in_time_order(out),
        [
            "2026-11-23T10:00:01Z ERROR timeout talking to db",
            "2026-11-23T10:00:02Z warn: slow",
            "Error response from daemon: oops",
            "2026-11-23T10:00:02Z GET / 200",
        ]
    );
    let request = LogsRequest {
        subject: Some("jellyfin".into()),
        on: None,
        lines: 50,
        filter: Some("Timeout".into()),
        since: Some(Since::Ago {
            amount: 1,
            unit: TimeUnit::Hour,
        }),
    };
    let plan = Plan::ContainerLogs {
        container: named("jellyfin"),
        request,
    };
    let Step::Calls(calls) = next_step(&plan, 0, &[], &[]) else {
        panic!("no call")
    };
    assert_eq!(calls[0].tool, "read");
    assert_eq!(calls[0].arguments["action"], "logs");
    assert_eq!(calls[0].arguments["since"], "1h");
    let text = answer_with(&plan, &[ok_with(out)]);
    assert!(
        text.starts_with("Last 1 line matching \"Timeout\" of the log of jellyfin (docker_container:web1:abc123) in the last hour"),
        "{text}"
    );
    assert!(
        text.contains("timeout talking to db") && !text.contains("GET /"),
        "{text}"
    );
}
