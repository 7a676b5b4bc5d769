//! Table tests for `systemd`.
use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
use crate::verdict::*;

#[test]
fn systemctl() {
    for line in [
        "systemctl",
        "systemctl status nginx",
        "systemctl --no-pager status nginx -n 50",
        "systemctl -n50 --no-pager status nginx",
        "systemctl list-unit-files --state=enabled",
        "systemctl list-units --type service --state running",
        "systemctl -t service",
        "systemctl --failed",
        "systemctl --fail",
        "systemctl is-active --quiet nginx",
        "systemctl is-enabled nginx",
        "systemctl show -p ActiveState,SubState nginx",
        "systemctl show -P MainPID nginx",
        "systemctl show --property=MainPID nginx",
        "systemctl cat nginx.service",
        "systemctl list-timers --all",
        "systemctl --user list-units",
        "systemctl -H host status sshd",
        "systemctl get-default",
        "systemctl list-dependencies --reverse multi-user.target",
        "systemctl log-level",
        "systemctl is-system-running --wait",
        "systemctl --version",
        "systemctl -o json-pretty status x",
    ] {
        assert!(is_read(line), "{line}");
    }
    for line in [
        "systemctl restart nginx",
        "systemctl reload nginx",
        "systemctl kill nginx",
        "systemctl isolate rescue.target",
        "systemctl --no-block restart nginx",
        "systemctl -q stop nginx",
        "systemctl -t service stop nginx",
        "systemctl --now enable nginx",
        "systemctl daemon-reload",
        "systemctl log-level debug",
        "systemctl set-property nginx CPUQuota=10%",
        "systemctl frob nginx",
        "systemctl --frob status nginx",
        "systemctl -X status",
        "systemctl reboot",
        "systemctl --force poweroff",
    ] {
        assert!(is_write(line), "{line}");
    }
    assert!(matches!(
        rule_verdict("systemctl reboot"),
        Verdict::Write(Risk::HighWrite, _)
    ));
    assert!(matches!(
        rule_verdict("systemctl isolate rescue.target"),
        Verdict::Write(Risk::HighWrite, _)
    ));
    assert!(matches!(
        rule_verdict("systemctl restart nginx"),
        Verdict::Write(Risk::MediumWrite, _)
    ));
    assert!(is_interactive("systemctl edit nginx"));
    assert!(is_interactive("systemctl --full edit nginx"));
}

#[test]
fn journalctl() {
    for line in [
        "journalctl",
        "journalctl -u pvedaemon -n 50 --no-pager",
        "journalctl --since today -p warning",
        "journalctl -xeu nginx",
        "journalctl -b -1",
        "journalctl -b -k",
        "journalctl --boot=-1 --dmesg",
        "journalctl -n",
        "journalctl -n100 -o cat",
        "journalctl --list-boots",
        "journalctl --disk-usage",
        "journalctl --verify",
        "journalctl --header",
        "journalctl -F _SYSTEMD_UNIT",
        "journalctl --field=_PID",
        "journalctl _PID=1",
        "journalctl /usr/sbin/sshd",
        "journalctl -u nginx -g error --case-sensitive=no",
        "journalctl --lines=100 -r",
    ] {
        assert!(is_read(line), "{line}");
    }
    for line in [
        "journalctl --vacuum-size=500M",
        "journalctl --vacuum-time 2d",
        "journalctl --vacuum-t=2d",
        "journalctl --rotate",
        "journalctl --rot",
        "journalctl -n --rotate",
        "journalctl --flush",
        "journalctl --sync",
        "journalctl --relinquish-var",
        "journalctl --setup-keys",
        "journalctl --update-catalog",
        "journalctl --cursor-file=/tmp/c",
        "journalctl --frob",
    ] {
        assert!(is_write(line), "{line}");
    }
}

#[test]
fn journalctl_follow_rewrites() {
    let cases = [
        (
            "journalctl -f",
            Some("journalctl -n 200 --since \"10 min ago\""),
        ),
        (
            "journalctl --follow -u nginx",
            Some("journalctl -n 200 --since \"10 min ago\" -u nginx"),
        ),
        (
            "journalctl -fu nginx",
            Some("journalctl -n 200 --since \"10 min ago\" -u nginx"),
        ),
        (
            "journalctl --lines=100 --follow -u nginx",
            Some("journalctl --since \"10 min ago\" --lines=100 -u nginx"),
        ),
        (
            "journalctl -n 200 -f --since today",
            Some("journalctl -n 200 --since today"),
        ),
        (
            "journalctl -fn50",
            Some("journalctl --since \"10 min ago\" -n50"),
        ),
    ];
    for (line, want) in cases {
        match rule_verdict(line) {
            Verdict::Interactive(iv) => {
                assert_eq!(iv.category, InteractiveCategory::UnboundedStream, "{line}");
                assert_eq!(
                    crate::commands::testing::full_rewrite(line).as_deref(),
                    want,
                    "{line}"
                );
            }
            other => panic!("{line}: {other:?}"),
        }
    }
    assert!(is_write("journalctl -f --vacuum-size=1G"));
}

#[test]
fn service() {
    for line in ["service nginx status", "service --status-all"] {
        assert!(is_read(line), "{line}");
    }
    for line in [
        "service nginx restart",
        "service nginx stop",
        "service nginx reload",
        "service nginx frob",
        "service nginx",
        "service --frob",
    ] {
        assert!(is_write(line), "{line}");
    }
}
