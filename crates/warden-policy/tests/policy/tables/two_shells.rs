//! A construct is read-only only if it is read-only under bash and under
//! `/bin/sh` (dash, busybox ash); where their meanings differ, refuse.

use super::{accepted, all, refused};

#[test]
fn constructs_that_mean_two_things() {
    refused(&[
        // Arithmetic in bash, two subshells running `rm` in sh.
        "((rm -rf x))",
        "(( rm x ))",
        // A test in bash; in sh `[[` is a command and `&&` runs `rm`.
        "[[ -f x && rm y ]]",
        "[[ -f x || touch y ]]",
        "[[ a < b ]] || rm c",
        // ANSI-C quoting in bash; a `$` and a quoted string in sh, after
        // which the rest of the line is commands.
        "echo $'\\'' ; rm -rf x ; echo $'\\''",
        // `&>` redirects in bash, runs in the background in sh.
        "ls &>/dev/null",
        "grep x /etc/hosts &> /dev/null",
        "cat /etc/hosts &>>/dev/null",
    ]);
    all(
        &["cat /etc/hosts &>/dev/null", "sleep 1 &"],
        "interactive (backgrounded in sh)",
        |c| c.interactive.is_some(),
    );
}

#[test]
fn constructs_both_shells_read_the_same() {
    accepted(&[
        "[ -f /etc/hosts ] && cat /etc/hosts",
        "[[ -f /etc/hosts ]] && cat /etc/hosts",
        "[[ $(uname) == Linux ]] && uname -r",
        "ls >/dev/null 2>&1",
        "echo $'a\\tb'",
        "tr ':' '\\n' <<< \"$PATH\"",
    ]);
}

#[test]
fn more_spellings_that_differ() {
    refused(&[
        "((rm -rf /tmp/x) )",
        "( (rm x))",
        "echo $(( $(rm x) ))",
        "((x=$(rm y)))",
        "[[ -n x ]] || rm y",
        "echo $'\\x27'; rm x; echo $'\\x27'",
        "echo $\"x\"; rm y",
        "ls |& rm x",
        "ls &>/tmp/x",
        "ls >& /tmp/x",
        "function f { rm x; }; f",
        "f() (rm x); f",
        "coproc rm x",
        "select x in a; do rm y; done",
        "echo {a,b}; rm c",
        "cat <(rm x)",
        "diff <(ls) >(rm x)",
    ]);
    accepted(&[
        "echo $((1 + 2))",
        "echo {a,b}",
        "( ls /tmp )",
        "{ ls /tmp; }",
        "echo \"$HOME\"",
    ]);
}
