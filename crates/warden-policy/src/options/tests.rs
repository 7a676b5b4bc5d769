//! The option walker against getopt_long and pflag.

use super::*;
use crate::invocation::ArgShape;

const SPEC: Options = Options {
    short_flags: "abr1",
    short_values: "no",
    short_optional: "i",
    long_flags: &["--all", "--after", "--reverse"],
    long_values: &["--lines", "--unit", "--output"],
    long_optional: &["--in-place", "--color"],
    style: Style::Gnu,
};

fn args(words: &[&'static str]) -> Vec<Arg<'static>> {
    words.iter().map(|w| Arg::literal(w)).collect()
}

fn toks(spec: &Options, words: &[&'static str]) -> Vec<String> {
    let a = args(words);
    spec.walk(&a).map(|t| format!("{t:?}")).collect()
}

#[test]
fn walks_like_getopt_long() {
    let a = args(&[
        "-abn5",
        "x",
        "--lines",
        "3",
        "--all",
        "-ibak",
        "--in-place=y",
        "-1",
        "--",
        "-q",
    ]);
    let got: Vec<Tok<'_>> = SPEC.walk(&a).collect();
    assert_eq!(
        got,
        vec![
            Tok::Short {
                index: 0,
                flag: 'a',
                value: None
            },
            Tok::Short {
                index: 0,
                flag: 'b',
                value: None
            },
            Tok::Short {
                index: 0,
                flag: 'n',
                value: Some("5")
            },
            Tok::Operand {
                index: 1,
                text: "x"
            },
            Tok::Long {
                index: 2,
                name: "--lines",
                value: Some("3")
            },
            Tok::Long {
                index: 4,
                name: "--all",
                value: None
            },
            Tok::Short {
                index: 5,
                flag: 'i',
                value: Some("bak")
            },
            Tok::Long {
                index: 6,
                name: "--in-place",
                value: Some("y")
            },
            Tok::Short {
                index: 7,
                flag: '1',
                value: None
            },
            Tok::Operand {
                index: 9,
                text: "-q"
            },
        ]
    );
}

#[test]
fn unambiguous_abbreviations_are_the_option() {
    let a = args(&["--lin", "3", "--al", "--in-p=y", "--reve", "--outp=o"]);
    let got: Vec<Tok<'_>> = SPEC.walk(&a).collect();
    assert_eq!(
        got,
        vec![
            Tok::Long {
                index: 0,
                name: "--lines",
                value: Some("3")
            },
            Tok::Long {
                index: 2,
                name: "--all",
                value: None
            },
            Tok::Long {
                index: 3,
                name: "--in-place",
                value: Some("y")
            },
            Tok::Long {
                index: 4,
                name: "--reverse",
                value: None
            },
            Tok::Long {
                index: 5,
                name: "--output",
                value: Some("o")
            },
        ]
    );
    // A flag abbreviated is still a flag: no value.
    assert!(toks(&SPEC, &["--reve=1"])[0].starts_with("Unknown"));
}

#[test]
fn abbreviations_that_may_be_options_of_their_own_are_unknown() {
    // `--in` ends where a word of `--in-place` ends: a program may have
    // an `--in` the allowlist does not list, and getopt takes an exact
    // name over any abbreviation.
    // `--rev` and `--col` end in words option names are made of (`git
    // log --rev`); `--c` is one letter.
    for words in [&["--in"][..], &["--in=x"], &["--rev"], &["--col"], &["--c"]] {
        assert!(toks(&SPEC, words)[0].starts_with("Unknown"), "{words:?}");
    }
    // pflag takes no abbreviation at all.
    let go = Options {
        style: Style::Go,
        ..SPEC
    };
    for words in [&["--lin", "3"][..], &["--al"], &["--rev"]] {
        assert!(toks(&go, words)[0].starts_with("Unknown"), "{words:?}");
    }
}

#[test]
fn unknown_ambiguous_and_misused_options() {
    // `--a` is ambiguous (--all, --after); `-z` is unknown; `--all=1`
    // gives a value to a flag; `--frob` is unknown.
    for words in [
        &["--a"][..],
        &["-az"],
        &["--all=1"],
        &["--frob"],
        &["--re=x"],
    ] {
        assert!(
            toks(&SPEC, words).iter().any(|t| t.starts_with("Unknown")),
            "{words:?}"
        );
    }
    // A negative number is an operand.
    assert_eq!(
        toks(&SPEC, &["-5"]),
        vec!["Operand { index: 0, text: \"-5\" }"]
    );
}

#[test]
fn value_swallows_the_next_word() {
    // `-o --dry-run`: the dry-run flag is the value of `-o`.
    let got = toks(&SPEC, &["-o", "--dry-run", "x"]);
    assert_eq!(
        got[0],
        "Short { index: 0, flag: 'o', value: Some(\"--dry-run\") }"
    );
    assert_eq!(got[1], "Operand { index: 2, text: \"x\" }");
}

#[test]
fn go_style() {
    let spec = Options {
        style: Style::Go,
        ..SPEC
    };
    let a = args(&["-n=5", "-a=false", "--all=true", "--al"]);
    let got: Vec<Tok<'_>> = spec.walk(&a).collect();
    assert_eq!(
        got[0],
        Tok::Short {
            index: 0,
            flag: 'n',
            value: Some("5")
        }
    );
    assert_eq!(
        got[1],
        Tok::Short {
            index: 1,
            flag: 'a',
            value: Some("false")
        }
    );
    assert_eq!(
        got[2],
        Tok::Long {
            index: 2,
            name: "--all",
            value: Some("true")
        }
    );
    assert!(matches!(got[3], Tok::Unknown { .. }));
}

#[test]
fn stop_at_operand() {
    let spec = Options {
        style: Style::GnuStopAtOperand,
        ..SPEC
    };
    let got = toks(&spec, &["-a", "cmd", "-b"]);
    assert_eq!(got[2], "Operand { index: 2, text: \"-b\" }");
}

#[test]
fn dynamic_words() {
    let bare = Arg {
        text: "$F".into(),
        raw: "$F",
        shape: ArgShape::Dynamic,
    };
    let quoted_path = Arg {
        text: "/var/$F".into(),
        raw: "\"/var/$F\"",
        shape: ArgShape::Dynamic,
    };
    let quoted_option = Arg {
        text: "--lines=$N".into(),
        raw: "\"--lines=$N\"",
        shape: ArgShape::Dynamic,
    };
    let glob = Arg {
        text: "*.log".into(),
        raw: "*.log",
        shape: ArgShape::Glob,
    };
    let path_glob = Arg {
        text: "/var/log/*.log".into(),
        raw: "/var/log/*.log",
        shape: ArgShape::Glob,
    };
    let a = vec![bare, quoted_path, quoted_option, glob, path_glob];
    let got: Vec<Tok<'_>> = SPEC.walk(&a).collect();
    assert_eq!(got[0], Tok::Dynamic { index: 0 });
    assert!(matches!(got[1], Tok::Operand { index: 1, .. }));
    assert_eq!(
        got[2],
        Tok::Long {
            index: 2,
            name: "--lines",
            value: Some("$N")
        }
    );
    assert_eq!(got[3], Tok::Dynamic { index: 3 });
    assert!(matches!(got[4], Tok::Operand { index: 4, .. }));
}
