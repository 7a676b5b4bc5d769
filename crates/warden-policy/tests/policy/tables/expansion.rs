//! Expansion before matching: brace expansion, globs, quote removal and
//! escapes happen before a program sees its arguments; wrappers, absolute
//! paths and multi-call binaries run the same program. The rule sees what
//! the program receives, or the command is refused.

use super::{accepted, refused};

#[test]
fn brace_expansion_and_globs() {
    refused(&[
        "find . {-delete,}",
        "find . -{delete,name}",
        "find . -de{l,}ete",
        "find . -{fprint,name} /tmp/x",
        "sort {-o,/tmp/x} f",
        "sort -{o,}/tmp/x f",
        "tail -{f,n}",
        "find . -exec{,} rm {} \\;",
        "sed -{i,n} s/a/b/ f",
        "rm{,} -rf x",
        "{rm,ls} x",
        "find . -del*",
        "find . -dele?e",
        "find . -[d]elete",
        "sort -o* f",
        "sed -i* s/a/b/ f",
    ]);
    accepted(&[
        "ls {-la,/tmp}",
        "cat /etc/{hosts,hostname}",
        "ls /var/log/*.log",
        "grep -r x /etc/nginx/*",
        "du -sh /var/*",
        "cat -- *.log",
    ]);
}

#[test]
fn quotes_escapes_and_line_continuations() {
    refused(&[
        "find . '-delete'",
        "find . \"-delete\"",
        "find . -\\delete",
        "find . -del''ete",
        "find . -del\"\"ete",
        "find . $'-delete'",
        "find . $'\\x2ddelete'",
        "find . $'-del\\x65te'",
        "find . $\"-delete\"",
        "find . -del\\\nete",
        "find \\\n. -delete",
        "sed -i\\\n s/a/b/ f",
        "f\\ind . -delete",
        "'find' . -delete",
        "\"find\" . -delete",
        "fi''nd . -delete",
        "\\find . -delete",
    ]);
}

#[test]
fn parameters_and_substitutions() {
    refused(&[
        "find . $X",
        "find . ${X}",
        "find . \"$X\"",
        "find . $(echo -delete)",
        "find . `echo -delete`",
        "find . ${X:--delete}",
        "find . ${X:=-delete}",
        "find . ${X/a/-delete}",
        "X=-delete; find . $X",
        "set -- -delete; find . \"$@\"",
        "set -- -delete; find . $1",
        "find . \"$@\"",
        "find . $*",
        "find . $0",
        "find . $_",
        "IFS=x; find .x-delete",
        "sh -c \"find . $1\" x -delete",
        "bash -c 'find . \"$0\"' -delete",
    ]);
}

#[test]
fn same_program_under_another_name() {
    refused(&[
        "env -S 'find . -delete'",
        "env -S'sed -i s/a/b/ f'",
        "env -- find . -delete",
        "env -i find . -delete",
        "command find . -delete",
        "command -p find . -delete",
        "builtin find . -delete",
        "builtin command find . -delete",
        "exec find . -delete",
        "/usr/bin/find . -delete",
        "/bin/find . -delete",
        "./find . -delete",
        "/tmp/find . -delete",
        "~/bin/find . -delete",
        "busybox find . -delete",
        "busybox sed -i s/a/b/ f",
        "toybox sed -i s/a/b/ f",
        "/bin/busybox find . -delete",
        "busybox --install",
        "busybox sh -c 'rm x'",
        "busybox wget -O /tmp/x http://x",
        "coreutils --coreutils-prog=rm x",
        "nice -n 5 find . -delete",
        "ionice -c3 find . -delete",
        "timeout 5 find . -delete",
        "stdbuf -o0 find . -delete",
        "nohup find . -delete",
        "time find . -delete",
        "echo . | xargs -I{} find {} -delete",
        "echo -delete | xargs find .",
        "sh -c 'find . -delete'",
        "bash -lc 'find . -delete'",
        "ssh host 'find . -delete'",
        "ssh host \"find . \\$(echo -delete)\"",
        "docker exec c find . -delete",
        "kubectl exec p -- find . -delete",
        "pct exec 101 -- find . -delete",
        "qm guest exec 100 -- find . -delete",
        "lxc-attach -n c -- find . -delete",
        "chroot / find . -delete",
        "watch find . -delete",
        "systemd-run find . -delete",
        "flock /tmp/l find . -delete",
        "script -c 'find . -delete'",
        "sudo find . -delete",
    ]);
    accepted(&[
        "/usr/bin/find /etc -name '*.conf'",
        "command -v find",
        "busybox ls /",
        "nice -n 5 ls /",
        "timeout 5 cat /etc/hosts",
        "env LC_ALL=C sort /etc/passwd",
        "sh -c 'ls /tmp'",
        "ssh host 'cat /etc/hostname'",
        "docker exec c cat /etc/os-release",
        "kubectl exec p -- ls /",
        "pct exec 101 -- df -h",
    ]);
}
