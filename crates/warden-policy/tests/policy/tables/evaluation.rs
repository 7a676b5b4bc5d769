//! Shell evaluation that runs code: arithmetic, subscripts, indirect and
//! prompt expansion, and the builtins that assign by name.

use super::{accepted, refused};

#[test]
fn arithmetic_on_variables() {
    refused(&[
        "echo $((x))",
        "echo $(( x + 1 ))",
        "echo $((a[0]))",
        "echo \"$((x))\"",
        "echo $(($x))",
        "echo $((${x}))",
        "echo $(( $(cat /tmp/n) + 1 ))",
        "echo $[x]",
        "echo $[ x + 1 ]",
        "ls $((n))",
        "cat <<EOF\n$((x))\nEOF",
        "X=$((y)) ls",
        "echo ${x:n}",
        "echo ${x:n:1}",
        "echo ${x:$n}",
        "echo ${x: -n}",
        "echo ${x:0:$len}",
        "let x=y",
        "let 'x = a[$(reboot)]'",
        "declare -i x=y",
        "typeset -i x",
        "local -i n=$v",
        "export -i x",
        "declare -in r=x",
        "[[ $x -eq 1 ]]",
        "[[ x -gt 0 ]] && ls",
        "[[ 1 -lt $n ]]",
        "[[ ${#a[@]} -ge n ]]",
        "((x))",
        "((rm -rf x))",
        "(( x = 1 ))",
        "for ((i=0; i<3; i++)); do ls; done",
    ]);
    accepted(&[
        "echo $((1 + 2))",
        "echo $((0x10 * 2))",
        "echo $((16#ff))",
        "echo ${x:0:3}",
        "echo ${x: -2}",
        "echo ${x:-default}",
        "echo ${x:+set}",
        "[[ 1 -eq 1 ]]",
        "[[ -f /etc/hosts ]] && [[ -r /etc/hosts ]]",
    ]);
}

#[test]
fn subscripts_indirection_and_prompt_expansion() {
    refused(&[
        "echo ${a[$i]}",
        "echo ${a[i]}",
        "echo ${a[i+1]}",
        "echo \"${a[$(date +%s)]}\"",
        "echo ${#a[$i]}",
        "echo ${!x}",
        "echo ${!x[@]:0:1}",
        "echo ${!prefix*}",
        "echo ${x@P}",
        "echo \"${PS1@P}\"",
        "echo ${x@Z}",
        "cat <<EOF\n${a[$i]}\nEOF",
    ]);
    accepted(&[
        "echo ${a[0]}",
        "echo ${a[@]}",
        "echo \"${a[*]}\"",
        "echo ${#a[@]}",
        "echo ${x@Q}",
        "echo ${HOME}",
        "echo ${x#prefix}",
        "echo ${x%%.*}",
        "echo ${x/a/b}",
    ]);
}

#[test]
fn builtins_that_assign_by_name() {
    refused(&[
        "read 'a[$(reboot)]'",
        "read -r a[0]",
        "read -a 'x[$(id)]'",
        "read $v",
        "printf -v 'a[$(reboot)]' x",
        "printf -v a[1] %s x",
        "printf -v \"$name\" %s x",
        "printf \"$fmt\" x",
        "unset 'a[$(reboot)]'",
        "unset a[0]",
        "test -v 'a[$(reboot)]'",
        "[ -v 'a[$(reboot)]' ]",
        "[ -v \"$n\" ]",
        "[[ -v a[$i] ]]",
        "[ \"$op\" \"$name\" ]",
        "mapfile -C reboot -c 1 x < /etc/hosts",
        "readarray -C 'touch x' arr < /etc/hosts",
        "getopts a 'a[$(reboot)]'",
        "wait -p 'a[$(reboot)]'",
        "declare 'a[$(reboot)]=1'",
        "declare -n ref=x",
        "export 'a[$(id)]=1'",
        "local $name=1",
        "set -k; ls",
        "hash -p /bin/rm ls; ls",
        "alias ls='rm -rf'",
        "shopt -s expand_aliases",
        "enable -f /tmp/x.so x",
        "fc -s",
        "history -w /tmp/x",
        "compgen -C 'touch x' y",
        "complete -C 'touch x' ls",
        "trap 'rm -f x' EXIT",
        "builtin eval ls",
        "command eval ls",
        "bind -x '\"a\":reboot'",
    ]);
    // DESIGN: `printf -v` and `read` are write_or_unknown, plain names too.
    refused(&[
        "while read -r line; do echo \"$line\"; done < /etc/hosts",
        "printf -v out '%s' hi; echo \"$out\"",
        "cat /etc/hosts | while read -r host rest; do echo \"$host\"; done",
        "read -r line < /etc/hostname",
        "read -t 1 x",
        "mapfile -t lines < /etc/hosts",
        "readarray x < /etc/hosts",
        "printf -v x '%s' y",
    ]);
    accepted(&[
        "test -f /etc/hosts && cat /etc/hosts",
        "[ -d /var/log ] && ls /var/log",
        "[ \"$HOME\" = /root ] && echo root",
        "declare -p HOME",
        "export LANG=C; ls",
        "unset LANG; locale",
    ]);
}
