//! The classifier: walks the syntax tree and combines the verdicts of every
//! part. A compound command is read-only iff every part is; the whole line
//! takes the highest risk of its parts and the first interactive finding.

use std::borrow::Cow;

use crate::catastrophic;
use crate::commands;
use crate::env_vars;
use crate::invocation::{Arg, ArgShape, Invocation};
use crate::shell::ast::*;
use crate::shell::parse;
use crate::verdict::*;

/// Wrappers nested deeper than this (`sh -c "sh -c …"`) are refused.
const MAX_NESTING: usize = 8;

/// Directories whose programs are the ones the bare name would find.
const SYSTEM_BIN_DIRS: &[&str] = &[
    "/bin/",
    "/usr/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
];

/// Classify one command line.
pub fn classify(command: &str) -> Classification {
    if command.trim().is_empty() {
        return Classification {
            intent: Intent::WriteOrUnknown,
            risk: Risk::LowWrite,
            interactive: None,
            catastrophic: false,
            reason: "empty command".to_string(),
        };
    }
    let mut classification = classify_line(command, RewriteCheck::Verify);
    // Fork bombs define functions, which the parser refuses; catch them by text.
    if let Some(reason) = catastrophic::fork_bomb(command) {
        classification.intent = Intent::WriteOrUnknown;
        classification.risk = Risk::HighWrite;
        classification.catastrophic = true;
        classification.reason = reason.into_owned();
    }
    classification
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RewriteCheck {
    /// Keep a suggested rewrite only if it is itself read-allowed.
    Verify,
    /// Classifying a rewrite: do not recurse again.
    Skip,
}

fn classify_line(command: &str, rewrite_check: RewriteCheck) -> Classification {
    let parsed = match parse(command) {
        Ok(parsed) => parsed,
        Err(error) => {
            return Classification {
                intent: Intent::WriteOrUnknown,
                risk: Risk::MediumWrite,
                interactive: None,
                catastrophic: false,
                reason: format!("cannot be parsed safely: {error}"),
            };
        }
    };
    let mut walker = Walker {
        src: command,
        acc: Acc::default(),
    };
    let top = Scope {
        heredocs: &parsed.heredocs,
        nesting: 0,
        top_level: true,
    };
    walker.script(&parsed.script, top);
    let mut classification = walker.acc.finish();
    if rewrite_check == RewriteCheck::Verify
        && let Some(interactive) = &mut classification.interactive
    {
        let keep = interactive
            .rewrite
            .as_deref()
            .is_some_and(|r| classify_line(r, RewriteCheck::Skip).read_allowed());
        if !keep {
            interactive.rewrite = None;
        }
    }
    classification
}

/// Where in the line a part sits.
#[derive(Clone, Copy)]
struct Scope<'h, 'a> {
    heredocs: &'h [Heredoc<'a>],
    nesting: usize,
    /// Directly in the line the user wrote (rewrites can be spliced in).
    top_level: bool,
}

impl Scope<'_, '_> {
    fn nested(self) -> Self {
        Scope {
            nesting: self.nesting + 1,
            top_level: false,
            ..self
        }
    }
}

/// Whether a command's standard input is fed by the line itself.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stdin {
    Terminal,
    Provided,
}

#[derive(Default)]
struct Acc {
    intent: Option<Intent>,
    risk: Option<Risk>,
    interactive: Option<(Interactive, String)>,
    catastrophic: Option<String>,
    write_reason: Option<String>,
    conditional_reason: Option<String>,
    read_names: Vec<String>,
}

impl Acc {
    fn raise(&mut self, intent: Intent, risk: Risk) {
        self.intent = Some(self.intent.map_or(intent, |i| i.max(intent)));
        self.risk = Some(self.risk.map_or(risk, |r| r.max(risk)));
    }

    fn write(&mut self, risk: Risk, reason: impl FnOnce() -> String) {
        self.raise(Intent::WriteOrUnknown, risk);
        if self.write_reason.is_none() {
            self.write_reason = Some(reason());
        }
    }

    fn read(&mut self, name: &str) {
        self.raise(Intent::ReadOnlyCertain, Risk::ReadOnly);
        if self.read_names.len() < 4 && !self.read_names.iter().any(|n| n == name) {
            self.read_names.push(name.to_string());
        }
    }

    fn conditional(&mut self, reason: impl FnOnce() -> String) {
        self.raise(Intent::ReadOnlyConditional, Risk::ReadOnly);
        if self.conditional_reason.is_none() {
            self.conditional_reason = Some(reason());
        }
    }

    fn interactive(&mut self, interactive: Interactive, reason: impl FnOnce() -> String) {
        if self.interactive.is_none() {
            self.interactive = Some((interactive, reason()));
        }
    }

    fn finish(self) -> Classification {
        let intent = self.intent.unwrap_or(Intent::ReadOnlyCertain);
        let risk = self.risk.unwrap_or(Risk::ReadOnly);
        let catastrophic = self.catastrophic.is_some();
        let (interactive, interactive_reason) = match self.interactive {
            Some((i, r)) => (Some(i), Some(r)),
            None => (None, None),
        };
        let reason = if let Some(reason) = self.catastrophic {
            format!("catastrophic: {reason}")
        } else if intent == Intent::WriteOrUnknown {
            self.write_reason
                .unwrap_or_else(|| "not provably read-only".to_string())
        } else if let Some(reason) = interactive_reason {
            reason
        } else if let Some(reason) = self.conditional_reason {
            reason
        } else if self.read_names.is_empty() {
            "nothing runs".to_string()
        } else {
            format!("read-only: {}", self.read_names.join(", "))
        };
        Classification {
            intent,
            risk: if catastrophic { Risk::HighWrite } else { risk },
            interactive,
            catastrophic,
            reason,
        }
    }
}

struct Walker<'s> {
    src: &'s str,
    acc: Acc,
}

impl Walker<'_> {
    fn script(&mut self, script: &Script<'_>, scope: Scope<'_, '_>) {
        for item in &script.items {
            if item.background == Background::Background {
                self.acc.interactive(
                    Interactive {
                        category: InteractiveCategory::UnboundedStream,
                        rewrite: None,
                    },
                    || "`&` leaves a process running in the background".to_string(),
                );
            }
            for pipeline in &item.pipelines {
                for (index, command) in pipeline.commands.iter().enumerate() {
                    let stdin = if index > 0 {
                        Stdin::Provided
                    } else {
                        Stdin::Terminal
                    };
                    self.command(command, stdin, scope);
                }
            }
        }
    }

    fn command(&mut self, command: &Command<'_>, stdin: Stdin, scope: Scope<'_, '_>) {
        match command {
            Command::Simple(simple) => self.simple(simple, stdin, scope),
            Command::Compound(compound) => self.compound(compound, scope),
        }
    }

    fn compound(&mut self, compound: &Compound<'_>, scope: Scope<'_, '_>) {
        let inner = Scope {
            top_level: false,
            ..scope
        };
        for body in &compound.bodies {
            self.script(body, inner);
        }
        for word in &compound.words {
            self.substitutions(&word.substitutions, scope);
        }
        self.redirects(&compound.redirects, scope);
        if matches!(compound.kind, CompoundKind::While | CompoundKind::Until)
            && !loop_reads_input(compound)
        {
            self.acc.interactive(
                Interactive {
                    category: InteractiveCategory::UnboundedStream,
                    rewrite: None,
                },
                || format!("a `{}` loop may never end", compound.kind.as_str()),
            );
        }
    }

    fn substitutions(&mut self, subs: &[Substitution<'_>], scope: Scope<'_, '_>) {
        for sub in subs {
            match sub {
                Substitution::Parsed(script) => self.script(script, scope.nested()),
                Substitution::Unparsed(text) => self.script_text(text, scope, "`…`"),
            }
        }
    }

    /// Parse and classify a script given as text (`sh -c`, backquotes, `ssh host …`).
    fn script_text(&mut self, text: &str, scope: Scope<'_, '_>, via: &str) {
        if scope.nesting >= MAX_NESTING {
            self.acc
                .write(Risk::MediumWrite, || format!("{via}: nested too deeply"));
            return;
        }
        match parse(text) {
            Ok(parsed) => {
                let inner = Scope {
                    heredocs: &parsed.heredocs,
                    nesting: scope.nesting + 1,
                    top_level: false,
                };
                self.script(&parsed.script, inner);
            }
            Err(error) => self.acc.write(Risk::MediumWrite, || {
                format!("{via}: script cannot be parsed safely: {error}")
            }),
        }
    }

    fn redirects(&mut self, redirects: &[Redirect<'_>], scope: Scope<'_, '_>) {
        for redirect in redirects {
            self.substitutions(&redirect.target.substitutions, scope);
            if let Some(heredoc) = redirect.heredoc.and_then(|i| scope.heredocs.get(i)) {
                self.substitutions(&heredoc.substitutions, scope);
            }
            let target = &redirect.target;
            let writes = match redirect.op {
                RedirectOp::Input
                | RedirectOp::Heredoc
                | RedirectOp::Herestring
                | RedirectOp::DupInput => false,
                RedirectOp::DupOutput => {
                    !(target.shape == ArgShape::Literal
                        && (target.text == "-" || target.text.bytes().all(|b| b.is_ascii_digit())))
                }
                RedirectOp::ReadWrite => true,
                RedirectOp::Output
                | RedirectOp::Append
                | RedirectOp::Clobber
                | RedirectOp::OutputAll
                | RedirectOp::AppendAll => {
                    !(target.shape == ArgShape::Literal && is_harmless_sink(&target.text))
                }
            };
            if !writes {
                continue;
            }
            if target.shape == ArgShape::Literal
                && let Some(reason) = catastrophic::redirect_target(&target.text)
            {
                self.acc
                    .catastrophic
                    .get_or_insert_with(|| reason.into_owned());
            }
            self.acc.write(Risk::MediumWrite, || {
                format!(
                    "redirect `{}{}` writes a file",
                    redirect_op_str(redirect.op),
                    target.raw
                )
            });
        }
    }

    fn simple(&mut self, simple: &SimpleCommand<'_>, stdin: Stdin, scope: Scope<'_, '_>) {
        let stdin = if simple.redirects.iter().any(|r| {
            matches!(
                r.op,
                RedirectOp::Input
                    | RedirectOp::Heredoc
                    | RedirectOp::Herestring
                    | RedirectOp::DupInput
                    | RedirectOp::ReadWrite
            )
        }) {
            Stdin::Provided
        } else {
            stdin
        };
        for assignment in &simple.assignments {
            self.substitutions(&assignment.value.substitutions, scope);
            if env_vars::is_dangerous(assignment.name) {
                self.acc.write(Risk::MediumWrite, || {
                    format!("setting `{}` changes what programs run", assignment.name)
                });
            }
        }
        for word in &simple.words {
            self.substitutions(&word.substitutions, scope);
        }
        self.redirects(&simple.redirects, scope);
        let Some((name_word, arg_words)) = simple.words.split_first() else {
            return;
        };
        let args: Vec<Arg<'_>> = arg_words
            .iter()
            .map(|w| Arg {
                text: Cow::Borrowed(&*w.text),
                raw: w.raw,
                shape: w.shape,
            })
            .collect();
        let name = Arg {
            text: Cow::Borrowed(&*name_word.text),
            raw: name_word.raw,
            shape: name_word.shape,
        };
        let span = scope.top_level.then(|| simple.span.clone());
        self.invocation(&name, &args, stdin, Bound::None, span, scope);
    }

    /// Classify `name args…` (a simple command, or the inner command of a wrapper).
    fn invocation(
        &mut self,
        name: &Arg<'_>,
        args: &[Arg<'_>],
        stdin: Stdin,
        bound: Bound,
        span: Option<std::ops::Range<usize>>,
        scope: Scope<'_, '_>,
    ) {
        if name.shape != ArgShape::Literal {
            self.acc.write(Risk::MediumWrite, || {
                format!("command name `{}` comes from an expansion", name.raw)
            });
            return;
        }
        let Some(program) = program_name(&name.text) else {
            self.acc.write(Risk::MediumWrite, || {
                format!(
                    "`{}` runs a program by path, not a known command",
                    name.text
                )
            });
            return;
        };
        let invocation = Invocation::new(program, args);
        if let Some(reason) = catastrophic::check(&invocation) {
            self.acc
                .catastrophic
                .get_or_insert_with(|| reason.into_owned());
        }
        let verdict = match commands::lookup(program) {
            Some(rule) => rule(&invocation),
            None => {
                self.acc.write(Risk::MediumWrite, || {
                    format!("`{program}` is not a known read-only command")
                });
                return;
            }
        };
        self.apply(program, args, verdict, stdin, bound, span, scope);
    }

    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        program: &str,
        args: &[Arg<'_>],
        verdict: Verdict,
        stdin: Stdin,
        bound: Bound,
        span: Option<std::ops::Range<usize>>,
        scope: Scope<'_, '_>,
    ) {
        match verdict {
            Verdict::Read => self.acc.read(program),
            Verdict::Conditional(reason) => self.acc.conditional(|| format!("{program}: {reason}")),
            Verdict::Write(risk, reason) => self.acc.write(risk, || format!("{program}: {reason}")),
            Verdict::Unknown(reason) => self
                .acc
                .write(Risk::MediumWrite, || format!("{program}: {reason}")),
            Verdict::Interactive(iv) => self.interactive(program, iv, stdin, bound, span),
            Verdict::Wrap(wrap) => self.wrap(program, args, wrap, stdin, bound, scope),
            Verdict::Guarded(wrap, reason) => {
                self.acc
                    .write(Risk::MediumWrite, || format!("{program}: {reason}"));
                self.wrap(program, args, wrap, stdin, bound, scope);
            }
        }
    }

    fn interactive(
        &mut self,
        program: &str,
        iv: InteractiveVerdict,
        stdin: Stdin,
        bound: Bound,
        span: Option<std::ops::Range<usize>>,
    ) {
        // A program that waits for input is bounded when the line feeds it;
        // what it then reads cannot be inspected unless it is read-only anyway.
        if iv.category == InteractiveCategory::InteractiveRepl && stdin == Stdin::Provided {
            match iv.intent {
                Intent::WriteOrUnknown => self.acc.write(Risk::MediumWrite, || {
                    format!(
                        "{program}: runs commands from standard input, which cannot be inspected"
                    )
                }),
                Intent::ReadOnlyCertain => self.acc.read(program),
                Intent::ReadOnlyConditional => {
                    self.acc.conditional(|| format!("{program}: {}", iv.reason))
                }
            }
            return;
        }
        match iv.intent {
            Intent::WriteOrUnknown => self
                .acc
                .write(Risk::MediumWrite, || format!("{program}: {}", iv.reason)),
            Intent::ReadOnlyCertain => self.acc.read(program),
            Intent::ReadOnlyConditional => {
                self.acc.conditional(|| format!("{program}: {}", iv.reason))
            }
        }
        if iv.category == InteractiveCategory::UnboundedStream && bound == Bound::TimeLimited {
            return;
        }
        let rewrite = match (iv.rewrite, span) {
            (Some(rewrite), Some(span)) => Some(format!(
                "{}{}{}",
                &self.src[..span.start],
                rewrite,
                &self.src[span.end..]
            )),
            _ => None,
        };
        self.acc.interactive(
            Interactive {
                category: iv.category,
                rewrite,
            },
            || format!("{program}: {}", iv.reason),
        );
    }

    fn wrap(
        &mut self,
        program: &str,
        args: &[Arg<'_>],
        wrap: Wrap,
        stdin: Stdin,
        bound: Bound,
        scope: Scope<'_, '_>,
    ) {
        let bound = match (bound, wrap.bound) {
            (Bound::TimeLimited, _) | (_, Bound::TimeLimited) => Bound::TimeLimited,
            (Bound::None, Bound::None) => Bound::None,
        };
        if let Some(iv) = wrap.interactive {
            let bounded =
                iv.category == InteractiveCategory::UnboundedStream && bound == Bound::TimeLimited;
            if iv.intent == Intent::WriteOrUnknown {
                self.acc
                    .write(Risk::MediumWrite, || format!("{}: {}", wrap.via, iv.reason));
            }
            if !bounded {
                self.acc.interactive(
                    Interactive {
                        category: iv.category,
                        rewrite: None,
                    },
                    || format!("{}: {}", wrap.via, iv.reason),
                );
            }
        }
        if scope.nesting >= MAX_NESTING {
            self.acc.write(Risk::MediumWrite, || {
                format!("{}: nested too deeply", wrap.via)
            });
            return;
        }
        let inner_scope = scope.nested();
        match wrap.inner {
            Inner::Argv { start } => match args.get(start) {
                Some(name) => {
                    self.invocation(name, &args[start + 1..], stdin, bound, None, inner_scope)
                }
                None => self.acc.write(Risk::MediumWrite, || {
                    format!("{}: no command to run", wrap.via)
                }),
            },
            Inner::ArgvAppendingDynamic { start } => match args.get(start) {
                Some(name) => {
                    let mut inner: Vec<Arg<'_>> = args[start + 1..].to_vec();
                    inner.push(Arg {
                        text: Cow::Borrowed("$INPUT"),
                        raw: "$INPUT",
                        shape: ArgShape::Dynamic,
                    });
                    self.invocation(name, &inner, stdin, bound, None, inner_scope);
                }
                None => self.acc.read(program),
            },
            Inner::ArgvReplacing { start, marker } => match args.get(start) {
                Some(name) => {
                    let name = mark_replaced(name, &marker);
                    let inner: Vec<Arg<'_>> = args[start + 1..]
                        .iter()
                        .map(|a| mark_replaced(a, &marker))
                        .collect();
                    self.invocation(&name, &inner, stdin, bound, None, inner_scope);
                }
                None => self.acc.read(program),
            },
            Inner::Script(text) => self.script_text(&text, scope, wrap.via),
            Inner::Opaque(reason) => self
                .acc
                .write(Risk::MediumWrite, || format!("{}: {reason}", wrap.via)),
            Inner::Shell => match stdin {
                Stdin::Provided => self.acc.write(Risk::MediumWrite, || {
                    format!(
                        "{}: runs commands from standard input, which cannot be inspected",
                        wrap.via
                    )
                }),
                Stdin::Terminal => {
                    self.acc.write(Risk::MediumWrite, || {
                        format!("{}: starts an interactive shell", wrap.via)
                    });
                    self.acc.interactive(
                        Interactive {
                            category: InteractiveCategory::InteractiveRepl,
                            rewrite: None,
                        },
                        || format!("{}: starts an interactive shell", wrap.via),
                    );
                }
            },
        }
    }
}

/// An argument that `xargs -I` rewrites is unknown text.
fn mark_replaced<'a>(arg: &Arg<'a>, marker: &str) -> Arg<'a> {
    let mut arg = arg.clone();
    if arg.text.contains(marker) {
        arg.shape = ArgShape::Dynamic;
    }
    arg
}

/// `/dev/null` and the standard streams.
fn is_harmless_sink(target: &str) -> bool {
    matches!(
        target,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/fd/1" | "/dev/fd/2"
    )
}

fn redirect_op_str(op: RedirectOp) -> &'static str {
    match op {
        RedirectOp::Input => "<",
        RedirectOp::Output => ">",
        RedirectOp::Append => ">>",
        RedirectOp::Clobber => ">|",
        RedirectOp::ReadWrite => "<>",
        RedirectOp::DupInput => "<&",
        RedirectOp::DupOutput => ">&",
        RedirectOp::OutputAll => "&>",
        RedirectOp::AppendAll => "&>>",
        RedirectOp::Heredoc => "<<",
        RedirectOp::Herestring => "<<<",
    }
}

/// The command's name as the registry knows it: a bare name, or a path in a
/// system binary directory (`/usr/bin/ls` is `ls`). Other paths are unknown.
fn program_name(text: &str) -> Option<&str> {
    if !text.contains('/') {
        return (!text.is_empty()).then_some(text);
    }
    SYSTEM_BIN_DIRS.iter().find_map(|dir| {
        text.strip_prefix(dir)
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
    })
}

/// `while read line; do …; done` ends with its input.
fn loop_reads_input(compound: &Compound<'_>) -> bool {
    let Some(condition) = compound.bodies.first() else {
        return false;
    };
    let Some(last) = condition.items.last() else {
        return false;
    };
    let Some(pipeline) = last.pipelines.last() else {
        return false;
    };
    matches!(
        pipeline.commands.last(),
        Some(Command::Simple(s)) if s.words.first().is_some_and(|w| w.text == "read")
    )
}
