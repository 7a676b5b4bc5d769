use super::ast::*;
use super::parse;
use crate::invocation::ArgShape;

fn simple_commands<'s, 'a>(script: &'s Script<'a>, out: &mut Vec<&'s SimpleCommand<'a>>) {
    for item in &script.items {
        for pipeline in &item.pipelines {
            for command in &pipeline.commands {
                match command {
                    Command::Simple(s) => {
                        out.push(s);
                        for w in &s.words {
                            for sub in &w.substitutions {
                                if let Substitution::Parsed(inner) = sub {
                                    simple_commands(inner, out);
                                }
                            }
                        }
                    }
                    Command::Compound(c) => {
                        for body in &c.bodies {
                            simple_commands(body, out);
                        }
                    }
                }
            }
        }
    }
}

fn names(src: &str) -> Vec<String> {
    let parsed = parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    let mut cmds = Vec::new();
    simple_commands(&parsed.script, &mut cmds);
    cmds.iter()
        .map(|c| {
            c.words
                .first()
                .map(|w| w.text.to_string())
                .unwrap_or_default()
        })
        .collect()
}

fn words(src: &str) -> Vec<String> {
    let parsed = parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    let mut cmds = Vec::new();
    simple_commands(&parsed.script, &mut cmds);
    cmds[0].words.iter().map(|w| w.text.to_string()).collect()
}

#[test]
fn quote_removal() {
    assert_eq!(
        words("c''at 'a b' \"c d\" e\\ f"),
        ["cat", "a b", "c d", "e f"]
    );
    assert_eq!(words(r#"r""m -rf"#), ["rm", "-rf"]);
    assert_eq!(words(r"\r\m x"), ["rm", "x"]);
    assert_eq!(words("$'\\x72\\x6d' -rf"), ["rm", "-rf"]);
    assert_eq!(words("echo \"a\\\"b\" 'it''s'"), ["echo", "a\"b", "its"]);
}

#[test]
fn lists_and_pipelines() {
    assert_eq!(
        names("a; b && c || d | e & f"),
        ["a", "b", "c", "d", "e", "f"]
    );
    assert_eq!(names("a\nb\n\nc"), ["a", "b", "c"]);
    assert_eq!(names("(a; b) | { c; d; }"), ["a", "b", "c", "d"]);
}

#[test]
fn substitutions_are_found() {
    assert_eq!(
        names("echo $(rm x) `touch y` <(cat z)"),
        ["echo", "rm", "cat"]
    );
    assert_eq!(
        names("echo \"$(id -u)\" ${x:-$(reboot)} $(( $(date +%s) + 1 ))"),
        ["echo", "id", "reboot", "date"]
    );
    let parsed = parse("echo `rm \\`x\\``").unwrap();
    let Command::Simple(s) = &parsed.script.items[0].pipelines[0].commands[0] else {
        panic!()
    };
    assert_eq!(
        s.words[1].substitutions,
        vec![Substitution::Unparsed("rm `x`".into())]
    );
}

#[test]
fn redirects() {
    let parsed = parse("cmd 2>&1 >/dev/null <in 3>>log &>all <<<str").unwrap();
    let Command::Simple(s) = &parsed.script.items[0].pipelines[0].commands[0] else {
        panic!()
    };
    let ops: Vec<_> = s
        .redirects
        .iter()
        .map(|r| (r.fd, r.op, r.target.text.to_string()))
        .collect();
    assert_eq!(
        ops,
        vec![
            (Some(2), RedirectOp::DupOutput, "1".into()),
            (None, RedirectOp::Output, "/dev/null".into()),
            (None, RedirectOp::Input, "in".into()),
            (Some(3), RedirectOp::Append, "log".into()),
            (None, RedirectOp::OutputAll, "all".into()),
            (None, RedirectOp::Herestring, "str".into()),
        ]
    );
    assert_eq!(s.words.len(), 1);
}

#[test]
fn mid_command_redirect_keeps_arguments() {
    assert_eq!(
        words("grep foo 2>/dev/null bar baz"),
        ["grep", "foo", "bar", "baz"]
    );
}

#[test]
fn heredocs() {
    let parsed = parse("cat <<EOF | grep x\nhello $(rm y)\nEOF\nls").unwrap();
    assert_eq!(parsed.heredocs.len(), 1);
    assert_eq!(parsed.heredocs[0].body, "hello $(rm y)\n");
    assert_eq!(parsed.heredocs[0].substitutions.len(), 1);
    assert_eq!(parsed.script.items.len(), 2);
    let quoted = parse("cat <<'EOF'\n$(rm y)\nEOF").unwrap();
    assert!(quoted.heredocs[0].substitutions.is_empty());
    let tabs = parse("cat <<-END\n\tbody\n\tEND\necho").unwrap();
    assert_eq!(tabs.heredocs[0].body, "\tbody\n");
}

#[test]
fn compound_commands() {
    assert_eq!(
        names("if test -f x; then cat x; elif true; then a; else b; fi"),
        ["test", "cat", "true", "a", "b"]
    );
    assert_eq!(names("for f in *.log; do wc -l \"$f\"; done"), ["wc"]);
    assert_eq!(
        names("while read l; do echo $l; done < f"),
        ["read", "echo"]
    );
    assert_eq!(
        names("case $x in a|b) echo 1;; *) echo 2;; esac"),
        ["echo", "echo"]
    );
    assert_eq!(names("[[ -f x && $y > 3 ]] && ls"), ["[[", "ls"]);
}

#[test]
fn assignments() {
    let parsed = parse("A=1 B=\"x y\" cmd arg").unwrap();
    let Command::Simple(s) = &parsed.script.items[0].pipelines[0].commands[0] else {
        panic!()
    };
    assert_eq!(s.assignments.len(), 2);
    assert_eq!(s.assignments[1].value.text, "x y");
    assert_eq!(s.words[0].text, "cmd");
}

#[test]
fn shapes() {
    let parsed = parse("ls *.txt '*.txt' $HOME {a,b} x{} [ ]").unwrap();
    let Command::Simple(s) = &parsed.script.items[0].pipelines[0].commands[0] else {
        panic!()
    };
    let shapes: Vec<_> = s.words.iter().map(|w| w.shape).collect();
    use ArgShape::*;
    assert_eq!(
        shapes,
        [
            Literal, Glob, Literal, Dynamic, Glob, Literal, Literal, Literal
        ]
    );
}

#[test]
fn errors() {
    for bad in [
        "echo 'x",
        "echo \"x",
        "(ls",
        "ls)",
        "echo $(ls",
        "if true; then ls",
        "f() { ls; }",
        "ls |",
        "&& ls",
        "ls >",
        "function f { ls; }",
    ] {
        assert!(parse(bad).is_err(), "{bad:?} should not parse");
    }
}

#[test]
fn spans() {
    let src = "journalctl -f -u x | grep y";
    let parsed = parse(src).unwrap();
    let Command::Simple(s) = &parsed.script.items[0].pipelines[0].commands[0] else {
        panic!()
    };
    assert_eq!(&src[s.span.clone()], "journalctl -f -u x");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = "$(".repeat(10_000);
    assert!(parse(&deep).is_err());
    let deep = "(".repeat(10_000);
    assert!(parse(&deep).is_err());
}
