use crate::commands::testing::{is_interactive, is_read, is_write};

#[test]
fn plain_names_only() {
    for line in [
        "read line",
        "declare -x LANG=C",
        "local x",
        "export LANG=C",
        "unset x y",
        "getopts ab: opt",
        "test -v HOME",
        "[ -v HOME ]",
        "[[ -v HOME ]]",
        "[[ 1 -eq 1 ]]",
        "[[ -f /etc/hosts ]]",
        "cd /var/log",
        "cd",
        "cd /",
        "sleep 1",
        "set -euo pipefail",
    ] {
        assert!(is_read(line) || is_interactive(line), "{line}");
    }
    for line in [
        "let x=1",
        // `export` is an allowlist, like a prefix.
        "export FOO=bar",
        "export SSLKEYLOGFILE=/tmp/k",
        "declare -x WGETRC=/tmp/w",
        "read -t 5 -r a b",
        "printf -v out %s x",
        "declare -i x=1",
        "declare -n ref=x",
        "typeset -i n",
        "local -ni y",
        "read a[$(reboot)]",
        "read -a a[0]",
        "printf -v a[1] %s x",
        "unset a[1]",
        "test -v a[1]",
        "[ -v a[0] ]",
        "[[ x -eq 1 ]]",
        "[[ 1 -lt y ]]",
        "[[ -v a[1] ]]",
        "mapfile -C cb arr",
        "getopts ab a[1]",
        "wait -p a[1]",
        "export PAGER=x",
        "cd /dev",
        "cd /proc/1/root",
        "cd /sys/class",
        "cd -",
        "set -k",
        "hash -p /bin/rm ls",
        "alias ls=rm",
    ] {
        assert!(is_write(line), "{line}");
    }
    assert!(is_interactive("read line"));
    assert!(is_interactive("sleep infinity"));
}
