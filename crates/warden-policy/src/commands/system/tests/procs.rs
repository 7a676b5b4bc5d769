//! Table tests for `procs`.
use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
use crate::verdict::*;

#[test]
fn reads() {
    for line in [
        "ps aux",
        "ps -ef",
        "ps -eo pid,cmd --sort=-%mem",
        "pgrep -a python",
        "pidof dockerd",
        "pstree -p",
        "pmap -x 1",
        "pwdx 1",
        "top -b -n 1",
        "top -bn1",
        "top -b -d 5 -n 2",
        "top -n 1 -b -u abc",
        "top -bn 1 -o %MEM",
        "top -l 1",
        "iotop -b -n 3 -o",
        "iotop -bon1",
        "vmstat",
        "vmstat -s",
        "vmstat 1 5",
        "vmstat -w 2 3",
        "iostat -x",
        "iostat -xz 1 3",
        "iostat -p sda 1 2",
        "mpstat -P ALL 1 2",
        "pidstat -d 1 5",
        "sar -u",
        "sar -n DEV 1 3",
        "sar -u ALL 1 3",
        "sar -f /var/log/sa/sa10",
        "dstat 1 5",
        "free -h",
        "free -m -s 1 -c 3",
        "free -c 2",
        "kill -l",
        "kill -0 1234",
        "kill -s 0 1234",
        "killall -l",
        "prlimit",
        "prlimit --pid 1",
        "prlimit -n --pid 1",
        "taskset -p 1234",
        "taskset -cp 1234",
        "chrt -p 1234",
        "chrt -m",
        "lsof -i :80",
        "lsof -nP -iTCP -sTCP:LISTEN",
        "lsof -u root",
        "lsof +D /var/log",
        "lsof -p 1",
        "fuser -v /var/log/syslog",
        "fuser -n tcp 80",
        "fuser -vm /mnt",
        "slabtop -o",
        "perf list",
    ] {
        assert!(is_read(line), "{line}");
    }
}

#[test]
fn unbounded() {
    for line in [
        "top",
        "top -b",
        "top -n 1",
        "top -b -d2 -s1",
        "htop",
        "htop -d 10",
        "atop",
        "btop",
        "iotop",
        "iotop -b",
        "nmon",
        "glances",
        "vmstat 1",
        "vmstat -w 1",
        "iostat -x 2",
        "iostat 1 0",
        "mpstat 1",
        "pidstat 2",
        "sar 1",
        "sar -u 5",
        "dstat",
        "free -s 1",
        "lsof -r 2",
        "lsof -r2 -i",
        "lsof +r 1",
        "slabtop",
        "perf top",
    ] {
        assert!(is_interactive(line), "{line}");
    }
}

#[test]
fn writes() {
    for line in [
        "kill 1234",
        "kill -9 1234",
        "kill -9 18581 18582",
        "kill -HUP 1",
        "kill -s KILL 1",
        "kill -0 -s KILL 1",
        "kill %1",
        "pkill nginx",
        "pkill -9 -f python",
        "killall nginx",
        "skill -KILL bob",
        "renice 10 1234",
        "prlimit --pid 1 --nofile=4096",
        "prlimit -n4096 -p 1",
        "taskset -p 0x3 1234",
        "taskset -cp 0,1 1234",
        "chrt -p 10 1234",
        "strace -p 1",
        "strace ls",
        "ltrace ls",
        "gdb -p 1",
        "perf record -a",
        "sar -o /tmp/sa 1 3",
        "pidstat -e ls",
        "atop -w /tmp/a 10",
        "nmon -f",
        "dstat --output /tmp/x 1 5",
        "fuser -k /mnt",
        "fuser -km /mnt",
        "fuser --kill 80/tcp",
        "vmstat --frob",
    ] {
        assert!(is_write(line), "{line}");
    }
    assert!(matches!(
        rule_verdict("kill -9 -1"),
        Verdict::Write(Risk::HighWrite, _)
    ));
    assert!(is_interactive("gdb"));
    assert!(matches!(
        rule_verdict("taskset 0x1 ls -l"),
        Verdict::Wrap(_)
    ));
    assert!(matches!(
        rule_verdict("prlimit --nofile=10 ls"),
        Verdict::Wrap(_)
    ));
}
