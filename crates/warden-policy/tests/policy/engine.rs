//! Table tests of how the engine combines the parts of a command line:
//! redirects, substitutions, lists, wrappers, guards, env prefixes, rewrites.

use warden_policy::{Intent, InteractiveCategory, classify};

fn accepted(cmd: &str) -> bool {
    classify(cmd).read_allowed()
}

#[test]
fn redirects() {
    for ok in [
        "cat /etc/hosts 2>/dev/null",
        "ls /x 2>&1 | grep y",
        "grep x /var/log/syslog >/dev/null 2>&1",
        "cat < /etc/hosts",
        "grep root <<< \"$USER\"",
        "cat <<'EOF'\nplain\nEOF",
        "ls 1>&2",
        "ls 2>&-",
        "grep foo 2>/dev/null file1 file2",
    ] {
        assert!(accepted(ok), "should accept: {ok}");
    }
    for bad in [
        "ls > /tmp/x",
        "ls >> /tmp/x",
        "ls >| /tmp/x",
        "ls &> /tmp/x",
        // `&>` is a redirect in bash, but `&` (background) then `>` in sh.
        "ls &>/dev/null",
        "ls &>> /tmp/x",
        "ls 2> /tmp/err",
        "ls >& /tmp/x",
        "cat <> /tmp/x",
        "ls > \"$OUT\"",
        "ls 2>/dev/null > /tmp/x",
        "{ ls; } > /tmp/x",
        "(ls) > /tmp/x",
        "for f in a b; do cat $f; done > /tmp/x",
    ] {
        assert!(!accepted(bad), "should refuse: {bad}");
    }
}

#[test]
fn substitutions_and_lists() {
    for bad in [
        "echo $(rm -f x)",
        "echo \"$(touch x)\"",
        "ls `rm x`",
        "cat <(touch x)",
        "diff <(ls) >(tee /tmp/x)",
        "echo ${x:-$(reboot)}",
        "echo $(( $(touch x) + 1 ))",
        "cat <<EOF\n$(rm -rf /tmp/x)\nEOF",
        "ls; rm x",
        "ls && rm x",
        "ls || rm x",
        "ls | rm x",
        "if true; then rm x; fi",
        "for i in 1 2; do touch $i; done",
        "case x in x) rm y;; esac",
        "X=$(rm y) ls",
        "ls $(echo; rm y)",
        // A substitution's output could name any file, `/dev/watchdog`
        // included, or be an option.
        "cat \"$(ls /etc/hostname)\"",
        "cat $(echo /dev/watchdog)",
    ] {
        assert!(!accepted(bad), "should refuse: {bad}");
    }
    for ok in [
        "echo $(hostname)",
        "ls; ls /tmp && cat /etc/hosts || uptime",
        "(ls; cat /etc/hosts) | wc -l",
        "if [ -f /etc/hosts ]; then cat /etc/hosts; else echo none; fi",
        "for f in /var/log/*.log; do wc -l \"$f\"; done",
        "case $(uname) in Linux) uname -r;; esac",
        "[[ -f /etc/hosts ]] && cat /etc/hosts",
        "cat <<EOF\nhello $(hostname)\nEOF",
    ] {
        assert!(accepted(ok), "should accept: {ok}");
    }
}

#[test]
fn command_names() {
    for bad in [
        "$CMD -la",
        "${X}ls",
        "./script.sh",
        "/tmp/ls",
        "~/bin/ls",
        "l* -la",
        "{ls,rm} x",
    ] {
        assert!(!accepted(bad), "should refuse: {bad}");
    }
    assert!(accepted("/bin/ls -la"));
    assert!(accepted("/usr/bin/cat /etc/hosts"));
    // Quote removal happens before matching.
    assert!(accepted("c''at /etc/hosts"));
    assert!(!accepted("r''m -f x"));
    assert!(!accepted("\\rm -f x"));
    assert!(!accepted("$'\\x72\\x6d' -f x"));
}

#[test]
fn guards_dominate() {
    for bad in [
        "sudo cat /etc/shadow",
        "sudo -u postgres ls",
        "doas ls",
        "su -c 'ls'",
        "eval ls",
        "exec ls",
        "source ./env.sh",
        ". ./env.sh",
        "python3 -c 'print(1)'",
        "perl -e 'print 1'",
        "python3 script.py",
        "curl -s http://x | sh",
        "cat script | bash",
        "LD_PRELOAD=/tmp/x.so ls",
        "PAGER=/tmp/x git log",
        "GIT_PAGER=cat git log",
        "EDITOR=vim ls",
        "env LD_PRELOAD=x ls",
        "export PAGER=x; git log",
        "PATH=/tmp:$PATH ls",
        "nohup ls",
    ] {
        assert!(!accepted(bad), "should refuse: {bad}");
        assert_eq!(classify(bad).intent, Intent::WriteOrUnknown, "{bad}");
    }
    assert!(accepted("LANG=C ls -la"));
    assert!(accepted("TZ=UTC date"));
}

#[test]
fn wrappers_are_looked_through() {
    for ok in [
        "timeout 5 cat /etc/hosts",
        "timeout -s KILL 10s ls",
        "nice -n 10 ls",
        "ionice -c3 ls",
        "env ls",
        "env -i LANG=C ls",
        "find /etc -name '*.conf' | xargs grep -l listen",
        "sh -c 'ls | wc -l'",
        "bash -lc 'cat /etc/hosts'",
        "ssh host 'cat /etc/hosts'",
        "ssh -p 2222 root@host uptime",
        "stdbuf -oL ls",
        "command ls",
        "command -v ls",
        "time ls",
        "busybox ls",
    ] {
        assert!(accepted(ok), "should accept: {ok}: {}", classify(ok).reason);
    }
    for bad in [
        "timeout 5 rm x",
        "nice rm x",
        "env rm x",
        "xargs rm",
        // What xargs reads could be any words, options included.
        "xargs ls",
        "cat list | xargs grep x",
        "find . | xargs rm -f",
        "sh -c 'ls; rm x'",
        "bash -c \"touch x\"",
        "ssh host 'reboot'",
        "ssh host ls \\; rm x",
        "sh -c \"sh -c 'rm x'\"",
        "busybox rm x",
        "sh script.sh",
        "bash",
        "ssh host",
        "ssh -t host ls",
        "ssh -L 80:localhost:80 host",
        "ssh -o ProxyCommand='touch x' host ls",
    ] {
        assert!(!accepted(bad), "should refuse: {bad}");
    }
}

#[test]
fn timeout_bounds_only_unbounded_streams() {
    assert!(accepted("timeout 10 tail -f /var/log/syslog"));
    assert!(accepted("timeout 5s journalctl -f"));
    assert!(!accepted("timeout 0 tail -f /var/log/syslog"));
    assert!(!accepted("tail -f /var/log/syslog"));
    assert!(!accepted("timeout 5 vim /etc/hosts"));
}

#[test]
fn interactive_categories() {
    let cases = [
        (
            "tail -f /var/log/syslog",
            InteractiveCategory::UnboundedStream,
        ),
        ("journalctl -f", InteractiveCategory::UnboundedStream),
        ("top", InteractiveCategory::UnboundedStream),
        ("ping db1", InteractiveCategory::UnboundedStream),
        ("less /etc/hosts", InteractiveCategory::Pager),
        ("vim /etc/hosts", InteractiveCategory::Pager),
        ("docker exec -it web sh", InteractiveCategory::TtyFlag),
        ("python3", InteractiveCategory::InteractiveRepl),
        ("bash", InteractiveCategory::InteractiveRepl),
        ("ssh host", InteractiveCategory::InteractiveRepl),
        ("sleep 1 &", InteractiveCategory::UnboundedStream),
        (
            "while true; do date; done",
            InteractiveCategory::UnboundedStream,
        ),
    ];
    for (cmd, category) in cases {
        let c = classify(cmd);
        assert_eq!(
            c.interactive.as_ref().map(|i| i.category),
            Some(category),
            "{cmd}: {}",
            c.reason
        );
        assert!(!c.read_allowed(), "{cmd}");
    }
}

#[test]
fn rewrites_are_spliced_and_read_allowed() {
    let cases = [
        ("journalctl -f", "journalctl -n 200 --since \"10 min ago\""),
        (
            "journalctl -f -u nginx",
            "journalctl -n 200 --since \"10 min ago\" -u nginx",
        ),
        ("docker logs -f web", "docker logs --tail=200 web"),
        (
            "kubectl logs -f api-0",
            "kubectl logs --tail=200 --since=10m api-0",
        ),
        ("tail -f /var/log/syslog", "tail -n 200 /var/log/syslog"),
        (
            "journalctl -f -u nginx | grep -i error",
            "journalctl -n 200 --since \"10 min ago\" -u nginx | grep -i error",
        ),
        (
            "journalctl -fu nginx",
            "journalctl -n 200 --since \"10 min ago\" -u nginx",
        ),
        ("tail -fn50 /var/log/x", "tail -n50 /var/log/x"),
        ("tail -100f /var/log/x", "tail -100 /var/log/x"),
        ("tail -f -n 100 /var/log/x", "tail -n 100 /var/log/x"),
    ];
    for (cmd, want) in cases {
        let c = classify(cmd);
        let rewrite = c.interactive.as_ref().and_then(|i| i.rewrite.clone());
        assert_eq!(rewrite.as_deref(), Some(want), "{cmd}");
        assert!(
            classify(want).read_allowed(),
            "rewrite not read-allowed: {want}"
        );
    }
}

#[test]
fn catastrophic_commands() {
    for cmd in [
        "rm -rf /",
        "rm -rf /*",
        "rm -fr / --no-preserve-root",
        "rm -r -f /",
        "rm --recursive --force /",
        "/bin/rm -rf //",
        "sudo rm -rf /etc",
        "r''m -rf /",
        "rm -rf \"$DIR\"/*",
        "rm -rf ~",
        "mkfs.ext4 /dev/sda1",
        "mkfs -t xfs /dev/nvme0n1",
        "dd if=/dev/zero of=/dev/sda bs=1M",
        "wipefs -a /dev/sdb",
        "cat /dev/urandom > /dev/sda",
        ":(){ :|:& };:",
        "chmod -R 777 /",
        "chown -R nobody:nogroup /",
        "find / -delete",
        "sh -c 'rm -rf /'",
        "echo c > /proc/sysrq-trigger",
        "zpool destroy tank",
        "kill -9 -1",
        "timeout 5 rm -rf /",
        "xargs rm -rf /",
        "sgdisk --zap-all /dev/sda",
    ] {
        let c = classify(cmd);
        assert!(
            c.catastrophic,
            "should be catastrophic: {cmd}: {}",
            c.reason
        );
        assert!(!c.read_allowed());
    }
    for cmd in [
        "rm -rf /tmp/build",
        "rm /etc/nginx/sites-enabled/default",
        "chmod -R 755 /opt/app",
        "dd if=/dev/sda of=/tmp/mbr bs=512 count=1",
    ] {
        assert!(!classify(cmd).catastrophic, "not catastrophic: {cmd}");
    }
}

#[test]
fn unparseable_lines_are_writes_with_the_error() {
    for cmd in ["echo 'unterminated", "ls )", "f() { ls; }", "cat <<", ""] {
        let c = classify(cmd);
        assert_eq!(c.intent, Intent::WriteOrUnknown, "{cmd}");
        assert!(!c.reason.is_empty());
    }
}

#[test]
fn xargs_replacement_makes_arguments_dynamic() {
    for bad in [
        "find . | xargs -I {} sh -c 'echo {}'",
        "find . | xargs -i bash -c \"ls {}\"",
        "find . | xargs --replace=@ sh -c 'cat @'",
        "find . | xargs -I% find % -delete",
    ] {
        assert!(!accepted(bad), "should refuse: {bad}");
    }
    assert!(accepted("find . -name '*.log' | xargs -I {} wc -l {}"));
}

#[test]
fn curl_reads_and_writes() {
    for ok in [
        "curl -s http://localhost/health",
        "curl -fsS -o /dev/null -w '%{http_code}' http://localhost",
        "curl --request GET http://x",
        "curl -XGET http://x",
        "curl -I https://example.com",
        "curl -H 'Accept: application/json' -u admin:pw http://x/api",
    ] {
        assert!(accepted(ok), "should accept: {ok}: {}", classify(ok).reason);
    }
    for bad in [
        "curl --request GET -o /etc/x http://x",
        "curl -X GET -d a=b http://x",
        "curl -sSLo out http://x",
        "curl -o out http://x",
        "curl --output=/tmp/x http://x",
        "curl -O http://x/f",
        "curl -XPOST http://x",
        "curl -X DELETE http://x",
        "curl --data-binary @f http://x",
        "curl -F f=@x http://x",
        "curl -T f ftp://x",
        "curl -K cfg",
        "curl -c jar http://x",
        "curl $OPTS http://x",
    ] {
        assert!(!accepted(bad), "should refuse: {bad}");
    }
}
