//! Bounded means provably bounded: generators, intervals given as a
//! trailing number, follow and watch flags in any spelling and watch
//! parameters in raw API paths are unbounded unless a count or `timeout`
//! bounds them; a pipeline is bounded when its consumer exits after N lines.

use super::all;

fn unbounded(commands: &[&str]) {
    all(commands, "unbounded (interactive, refused)", |c| {
        c.interactive.is_some() && !c.read_allowed()
    });
}

fn bounded_read(commands: &[&str]) {
    all(commands, "a bounded read", |c| {
        c.read_allowed() && c.interactive.is_none()
    });
}

#[test]
fn generators_without_end() {
    unbounded(&[
        "yes",
        "yes x",
        "seq 1 inf",
        "seq inf",
        "cat /dev/zero",
        "cat /dev/urandom",
        "yes | grep x",
        "yes | tail -n 1",
        "yes | sort | head",
        "yes | head -n $N",
        "yes | head -c 5000000000000000",
        "while true; do ls; done",
        "while :; do ls; done",
        "until false; do ls; done",
        "sleep infinity",
        "sleep inf",
    ]);
    bounded_read(&[
        "yes | head -n 5",
        "yes | head -5",
        "yes x | head -1",
        "seq 1 10",
        "for i in 1 2 3; do ls; done",
        "sleep 1",
    ]);
}

#[test]
fn intervals_given_as_a_trailing_number() {
    unbounded(&[
        "vmstat 1",
        "vmstat -w 2",
        "iostat 1",
        "iostat -xz 5",
        "mpstat 1",
        "pidstat 1",
        "sar 1",
        "sar -n DEV 1",
        "free -s 1",
        "zpool iostat 5",
        "zpool iostat -v 1",
        "arcstat 1",
        "netstat -i 2",
        "nvidia-smi -l 1",
        "nvidia-smi --loop=1",
        "nvidia-smi -lms 100",
        "nvidia-smi dmon",
        "nvidia-smi pmon",
        "nfsstat -Z5",
    ]);
    bounded_read(&[
        "vmstat 1 5",
        "vmstat",
        "iostat 1 3",
        "iostat -x",
        "mpstat -P ALL 2 2",
        "sar 1 3",
        "free -s 1 -c 3",
        "zpool iostat -v 1 3",
        "zpool iostat",
        "arcstat 1 5",
        "nvidia-smi dmon -c 3",
        "nvidia-smi -q",
    ]);
}

#[test]
fn follow_and_watch_flags_in_any_spelling() {
    unbounded(&[
        "tail -f /var/log/syslog",
        "tail -F /var/log/syslog",
        "tail --follow=name f",
        "tail --follow f",
        "tail -fn 10 f",
        "tail -n 10 -f f",
        "tail -s 1 -f f",
        "tail -f f | head -n 5",
        "journalctl -f",
        "journalctl -fu nginx",
        "journalctl -u nginx -f",
        "journalctl --follow",
        // Unambiguous abbreviations, as getopt_long reads them.
        "journalctl --foll",
        "journalctl --follo -u nginx",
        "tail --fo f",
        "tail --foll=name f",
        "tail -n 5 --follo f",
        "journalctl -xef",
        "journalctl -f | grep x",
        "docker logs -f c",
        "docker logs --follow c",
        "docker logs -tf c",
        "docker logs --follow=true c",
        "docker stats",
        "docker events",
        "docker compose logs -f",
        "kubectl logs -f x",
        "kubectl logs x --follow",
        "kubectl logs -f=true x",
        "kubectl get pods -w",
        "kubectl get pods --watch",
        "kubectl get pods --watch-only",
        "kubectl get pods -w=true",
        "kubectl events -w",
        "kubectl rollout status deploy/x -w",
        "ceph -w",
        "ceph --watch",
        "ceph -W cephadm",
        "ceph iostat",
        "dmesg -w",
        "dmesg --follow",
        "watch ls",
        "watch -n 1 df -h",
        "ping x",
        "ping -i 1 x",
        "top",
        "top -b",
        "htop",
        "tcpdump -i eth0",
        "tshark -i eth0",
        "ip monitor",
        "udevadm monitor",
        "conntrack -E",
        "inotifywait -m /x",
        "redis-cli monitor",
        "redis-cli --stat",
        "redis-cli -r -1 info",
        "etcdctl watch x",
        "snap logs -f x",
        "timeout 0 tail -f f",
        "timeout inf tail -f f",
        "timeout 1000000000 tail -f f",
        "timeout 2d tail -f f",
    ]);
    bounded_read(&[
        "tail -n 50 f",
        "journalctl -u nginx -n 50",
        "journalctl -u nginx --since '10 min ago'",
        "docker logs --tail 10 c",
        "docker stats --no-stream",
        "kubectl logs x --tail 10",
        "kubectl get pods -w=false",
        "ping -c 3 x",
        "ping -w 5 x",
        "top -b -n 1",
        "tcpdump -i eth0 -c 10",
        "tshark -i eth0 -c 10",
        "dmesg -T",
        "timeout 5 tail -f f",
        "timeout 5s tail -f f",
        "timeout -k 1 5 tail -f f",
        "timeout 1h journalctl -f",
        "redis-cli -r 3 info",
    ]);
}

#[test]
fn watch_parameters_in_raw_api_paths() {
    unbounded(&[
        "kubectl get --raw '/api/v1/pods?watch=true'",
        "kubectl get --raw '/api/v1/pods?watch=1'",
        "kubectl get --raw '/api/v1/watch/pods'",
        "kubectl get --raw '/api/v1/namespaces/x/pods/y/log?follow=true'",
        "curl 'http://localhost:8001/api/v1/pods?watch=true'",
        "wget -qO- 'http://x/api/v1/pods?watch=true'",
    ]);
    bounded_read(&[
        "kubectl get --raw /api/v1/nodes",
        "kubectl get --raw '/api/v1/pods?limit=5'",
        "curl -m 10 'http://localhost:8001/api/v1/pods?watch=true'",
    ]);
}
