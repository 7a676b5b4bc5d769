//! Walks one parsed line (as bash or as sh reads it) and adds what every
//! part does to the line's [`Acc`]: redirects, substitutions, expansions
//! that evaluate hidden text, device files, wrappers, interactive findings.

use std::borrow::Cow;

use super::acc::Acc;
use super::args::{Args, Stdin, expand_words, mark_replaced, xargs_input};
use super::effects;
use super::fed;
use super::pipes::{loop_reads_input, output_of, stdin_from, stops_reading};
use super::text::{arguments_range, is_harmless_sink, program_name, redirect_op_str};
use super::vars::Vars;
use crate::catastrophic;
use crate::commands;
use crate::devices;
use crate::env_vars;
use crate::invocation::{Arg, ArgShape, Invocation};
use crate::shell::ast::*;
use crate::shell::parse;
use crate::verdict::*;

/// Wrappers nested deeper than this (`sh -c "sh -c …"`) are refused.
const MAX_NESTING: usize = 8;

/// Where in the line a part sits.
#[derive(Clone, Copy)]
struct Scope<'h, 'a> {
    heredocs: &'h [Heredoc<'a>],
    nesting: usize,
    /// Directly in the line the user wrote (rewrites can be spliced in).
    top_level: bool,
    /// What the enclosing construct feeds the first command of a pipeline.
    stdin: Stdin,
}

impl Scope<'_, '_> {
    fn nested(self) -> Self {
        Scope {
            nesting: self.nesting + 1,
            top_level: false,
            stdin: Stdin::Terminal,
            ..self
        }
    }
}

/// How one command runs: what feeds it, whether a `timeout` bounds it, and
/// whether its reader provably stops (`| head -n 5`).
#[derive(Clone, Copy)]
struct Io {
    stdin: Stdin,
    bound: Bound,
    reader_stops: bool,
}

pub(super) struct Walker<'s> {
    src: &'s str,
    /// Borrowed: the line's verdict is not moved in and out of each walk.
    acc: &'s mut Acc,
    vars: Vars,
    /// The line has a `$`: variables it sets may be expanded.
    expands: bool,
}

impl<'s> Walker<'s> {
    pub(super) fn new(src: &'s str, acc: &'s mut Acc) -> Self {
        Walker {
            src,
            acc,
            vars: Vars::default(),
            expands: src.as_bytes().contains(&b'$'),
        }
    }

    pub(super) fn line(&mut self, parsed: &Parsed<'_>) {
        // Only a `$` can expand what the line assigns.
        if self.expands {
            self.vars.add(&parsed.script);
        }
        let top = Scope {
            heredocs: &parsed.heredocs,
            nesting: 0,
            top_level: true,
            stdin: Stdin::Terminal,
        };
        self.script(&parsed.script, top);
    }

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
                let commands = &pipeline.commands;
                for (index, command) in commands.iter().enumerate() {
                    let stdin = match index.checked_sub(1).and_then(|i| commands.get(i)) {
                        None => scope.stdin,
                        Some(previous) => output_of(previous),
                    };
                    let io = Io {
                        stdin,
                        bound: Bound::None,
                        reader_stops: commands.get(index + 1).is_some_and(stops_reading),
                    };
                    if let Command::Simple(simple) = command {
                        let previous = index.checked_sub(1).and_then(|i| commands.get(i));
                        if let Some(reason) =
                            fed::catastrophic_input(previous, simple, scope.heredocs)
                        {
                            self.acc.catastrophic(|| reason.into_owned());
                        }
                    }
                    self.command(command, io, scope);
                }
            }
        }
    }

    fn command(&mut self, command: &Command<'_>, io: Io, scope: Scope<'_, '_>) {
        match command {
            Command::Simple(simple) => self.simple(simple, io, scope),
            Command::Compound(compound) => self.compound(compound, io, scope),
        }
    }

    fn compound(&mut self, compound: &Compound<'_>, io: Io, scope: Scope<'_, '_>) {
        if compound.kind == CompoundKind::Arithmetic {
            self.acc.unknown(|| {
                "`(( … ))` is arithmetic in bash and nested subshells in sh".to_string()
            });
        }
        let stdin = stdin_from(&compound.redirects).unwrap_or(io.stdin);
        let inner = Scope {
            top_level: false,
            stdin,
            ..scope
        };
        for body in &compound.bodies {
            self.script(body, inner);
        }
        for word in &compound.words {
            self.word(word, scope);
        }
        self.redirects(&compound.redirects, scope);
        if compound.kind == CompoundKind::Select && !stdin.provided() {
            self.acc.interactive(
                Interactive {
                    category: InteractiveCategory::InteractiveRepl,
                    rewrite: None,
                },
                || "`select` asks for choices on the terminal".to_string(),
            );
        }
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

    /// A word's substitutions run; an expansion that evaluates hidden text
    /// makes the line unknown.
    fn word(&mut self, word: &Word<'_>, scope: Scope<'_, '_>) {
        self.substitutions(&word.substitutions, scope);
        if let Some(reason) = word.evaluates {
            self.acc.unknown(|| format!("`{}`: {reason}", word.raw));
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
            self.acc.unknown(|| format!("{via}: nested too deeply"));
            return;
        }
        match parse(text) {
            Ok(parsed) => {
                if self.expands {
                    self.vars.add(&parsed.script);
                }
                let inner = Scope {
                    heredocs: &parsed.heredocs,
                    nesting: scope.nesting + 1,
                    top_level: false,
                    stdin: Stdin::Terminal,
                };
                self.script(&parsed.script, inner);
                if super::sh_may_differ(text)
                    && let Ok(posix) = crate::shell::parse_as(text, Dialect::Posix)
                    && posix != parsed
                {
                    let inner = Scope {
                        heredocs: &posix.heredocs,
                        ..inner
                    };
                    self.script(&posix.script, inner);
                }
            }
            Err(error) => {
                self.acc
                    .unknown(|| format!("{via}: script cannot be parsed safely: {error}"));
                if let Some(reason) = catastrophic::scan_unparsed(text) {
                    self.acc.catastrophic(|| reason.into_owned());
                }
            }
        }
    }

    fn redirects(&mut self, redirects: &[Redirect<'_>], scope: Scope<'_, '_>) {
        for redirect in redirects {
            self.word(&redirect.target, scope);
            if let Some(heredoc) = redirect.heredoc.and_then(|i| scope.heredocs.get(i)) {
                self.substitutions(&heredoc.substitutions, scope);
                if let Some(reason) = heredoc.evaluates {
                    self.acc.unknown(|| format!("heredoc: {reason}"));
                }
            }
            let target = &redirect.target;
            let target_arg = Arg {
                text: Cow::Borrowed(&*target.text),
                raw: target.raw,
                shape: target.shape,
            };
            let writes = match redirect.op {
                RedirectOp::Heredoc | RedirectOp::Herestring | RedirectOp::DupInput => false,
                RedirectOp::Input => {
                    if let Some((path, kind)) = devices::arg_device(&target_arg)
                        && kind != devices::DeviceKind::Harmless
                    {
                        self.acc.write(Risk::MediumWrite, || {
                            format!("`<{path}` opens a device file")
                        });
                    }
                    false
                }
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
                self.acc.catastrophic(|| reason.into_owned());
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

    fn simple(&mut self, simple: &SimpleCommand<'_>, io: Io, scope: Scope<'_, '_>) {
        let stdin = stdin_from(&simple.redirects).unwrap_or(io.stdin);
        let io = Io { stdin, ..io };
        // Prefixes are an allowlist; a bare assignment reaches later commands only if exported.
        let check = if simple.words.is_empty() {
            env_vars::bare_assignment_refusal
        } else {
            env_vars::assignment_refusal
        };
        for assignment in &simple.assignments {
            self.word(&assignment.value, scope);
            if let Some(reason) = check(
                assignment.name,
                &assignment.value.text,
                assignment.value.shape == ArgShape::Literal,
            ) {
                self.acc.unknown(|| reason);
            }
        }
        for word in &simple.words {
            self.word(word, scope);
        }
        self.redirects(&simple.redirects, scope);
        let Some((name_word, arg_words)) = simple.words.split_first() else {
            return;
        };
        if name_word.braces {
            self.acc.unknown(|| {
                format!(
                    "command name `{}` comes from brace expansion",
                    name_word.raw
                )
            });
            return;
        }
        let mut args = Args::new();
        expand_words(arg_words, &mut args);
        for arg in &mut args {
            if arg.shape == ArgShape::Dynamic {
                *arg = self.vars.resolve(arg.clone());
            }
        }
        let name = Arg {
            text: Cow::Borrowed(&*name_word.text),
            raw: name_word.raw,
            shape: name_word.shape,
        };
        let span = if scope.top_level {
            arguments_range(self.src, simple)
        } else {
            None
        };
        self.invocation(&name, &args, io, span, scope);
    }

    /// Classify `name args…` (a simple command, or the inner command of a wrapper).
    fn invocation(
        &mut self,
        name: &Arg<'_>,
        args: &[Arg<'_>],
        io: Io,
        span: Option<std::ops::Range<usize>>,
        scope: Scope<'_, '_>,
    ) {
        if name.shape != ArgShape::Literal {
            self.acc
                .unknown(|| format!("command name `{}` comes from an expansion", name.raw));
            return;
        }
        let Some(program) = program_name(&name.text) else {
            self.acc.unknown(|| {
                format!(
                    "`{}` runs a program by path, not a known command",
                    name.text
                )
            });
            return;
        };
        let invocation = Invocation::new(program, args);
        if let Some(reason) = catastrophic::check(&invocation) {
            self.acc.catastrophic(|| reason.into_owned());
        }
        let rule = commands::lookup(program);
        let verdict = match rule {
            Some(rule) => rule(&invocation),
            None => Verdict::unknown("is not a known read-only command"),
        };
        if let Some(reason) = catastrophic::device_write(&invocation, &verdict, rule.is_some()) {
            self.acc.catastrophic(|| reason.into_owned());
        }
        let verdict = match devices::refusal(program, args, &verdict) {
            Some(reason) => {
                if args.iter().any(devices::never_ends) {
                    self.acc.interactive(
                        Interactive {
                            category: InteractiveCategory::UnboundedStream,
                            rewrite: None,
                        },
                        || format!("{program}: the device never reaches its end"),
                    );
                }
                Verdict::write(Risk::MediumWrite, reason)
            }
            None => verdict,
        };
        effects::raise(self.acc, program, args, io.stdin, &verdict);
        match (&verdict, rule) {
            (Verdict::Unknown(_), None) => self
                .acc
                .unknown(|| format!("`{program}` is not a known read-only command")),
            _ => self.apply(program, args, verdict, io, span, scope),
        }
    }

    fn apply(
        &mut self,
        program: &str,
        args: &[Arg<'_>],
        verdict: Verdict,
        io: Io,
        span: Option<std::ops::Range<usize>>,
        scope: Scope<'_, '_>,
    ) {
        match verdict {
            Verdict::Read => self.acc.read(program),
            Verdict::Conditional(reason) => self.acc.conditional(|| format!("{program}: {reason}")),
            Verdict::Write(risk, reason) => self.acc.write(risk, || format!("{program}: {reason}")),
            // A known program with a subcommand or flag its table does not
            // list as a read: not read-only, but the line is still
            // understood (the program and its arguments are literal).
            Verdict::Unknown(reason) => self
                .acc
                .write(Risk::MediumWrite, || format!("{program}: {reason}")),
            Verdict::Interactive(iv) => self.interactive(program, iv, io, span),
            Verdict::Wrap(wrap) => self.wrap(program, args, wrap, io, scope),
            Verdict::Guarded(wrap, reason) => {
                self.acc
                    .write(Risk::MediumWrite, || format!("{program}: {reason}"));
                self.wrap(program, args, wrap, io, scope);
            }
        }
    }

    fn interactive(
        &mut self,
        program: &str,
        iv: InteractiveVerdict,
        io: Io,
        span: Option<std::ops::Range<usize>>,
    ) {
        // A program that waits for input is bounded when the line feeds it;
        // what it then reads cannot be inspected unless it is read-only anyway.
        if iv.category == InteractiveCategory::InteractiveRepl && io.stdin == Stdin::Null {
            // Fed nothing, it reads end of input and stops.
            self.acc.read(program);
            return;
        }
        if iv.category == InteractiveCategory::InteractiveRepl && io.stdin.provided() {
            match iv.intent {
                Intent::WriteOrUnknown => self.acc.unknown(|| {
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
            Intent::WriteOrUnknown => self.acc.unknown(|| format!("{program}: {}", iv.reason)),
            Intent::ReadOnlyCertain => self.acc.read(program),
            Intent::ReadOnlyConditional => {
                self.acc.conditional(|| format!("{program}: {}", iv.reason))
            }
        }
        if iv.category == InteractiveCategory::UnboundedStream
            && (io.bound == Bound::TimeLimited || (iv.ends_with_reader && io.reader_stops))
        {
            return;
        }
        // The rule rewrote the arguments: splice them in, keeping the name,
        // prefixes, redirects and the rest of the line as written.
        let rewrite = match (iv.rewrite, span) {
            (Some(rewrite), Some(span)) => {
                let gap = if span.is_empty() { " " } else { "" };
                Some(format!(
                    "{}{gap}{}{}",
                    &self.src[..span.start],
                    rewrite,
                    &self.src[span.end..]
                ))
            }
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

    fn wrap(&mut self, program: &str, args: &[Arg<'_>], wrap: Wrap, io: Io, scope: Scope<'_, '_>) {
        let bound = match (io.bound, wrap.bound) {
            (Bound::TimeLimited, _) | (_, Bound::TimeLimited) => Bound::TimeLimited,
            (Bound::None, Bound::None) => Bound::None,
        };
        let io = Io { bound, ..io };
        if let Some(iv) = wrap.interactive {
            let bounded =
                iv.category == InteractiveCategory::UnboundedStream && bound == Bound::TimeLimited;
            if iv.intent == Intent::WriteOrUnknown {
                self.acc.unknown(|| format!("{}: {}", wrap.via, iv.reason));
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
            self.acc
                .unknown(|| format!("{}: nested too deeply", wrap.via));
            return;
        }
        let inner_scope = scope.nested();
        match wrap.inner {
            Inner::Argv { start } => match args.get(start) {
                Some(name) => self.invocation(name, &args[start + 1..], io, None, inner_scope),
                None => self
                    .acc
                    .unknown(|| format!("{}: no command to run", wrap.via)),
            },
            Inner::ArgvAppendingDynamic { start } => match args.get(start) {
                Some(name) => {
                    let mut inner: Vec<Arg<'_>> = args[start + 1..].to_vec();
                    inner.push(xargs_input(io.stdin));
                    let io = Io {
                        stdin: Stdin::Data,
                        ..io
                    };
                    self.invocation(name, &inner, io, None, inner_scope);
                }
                None => self.acc.read(program),
            },
            Inner::ArgvReplacing { start, marker } => match args.get(start) {
                Some(name) => {
                    let input = xargs_input(io.stdin);
                    let name = mark_replaced(name, &marker, &input);
                    let inner: Vec<Arg<'_>> = args[start + 1..]
                        .iter()
                        .map(|a| mark_replaced(a, &marker, &input))
                        .collect();
                    let io = Io {
                        stdin: Stdin::Data,
                        ..io
                    };
                    self.invocation(&name, &inner, io, None, inner_scope);
                }
                None => self.acc.read(program),
            },
            Inner::EachFile { ranges, paths } => {
                let input = xargs_input(if paths { Stdin::Paths } else { Stdin::Data });
                for range in ranges {
                    let Some(words) = args.get(range) else {
                        continue;
                    };
                    let Some((name, rest)) = words.split_first() else {
                        continue;
                    };
                    let name = mark_replaced(name, "{}", &input);
                    let inner: Vec<Arg<'_>> = rest
                        .iter()
                        .map(|a| mark_replaced(a, "{}", &input))
                        .collect();
                    self.invocation(&name, &inner, io, None, inner_scope);
                }
            }
            Inner::Script(text) => self.script_text(&text, scope, wrap.via),
            Inner::Opaque(reason) => self.acc.unknown(|| format!("{}: {reason}", wrap.via)),
            Inner::Shell => match io.stdin {
                Stdin::Null => self.acc.read(program),
                Stdin::Data | Stdin::Paths => self.acc.unknown(|| {
                    format!(
                        "{}: runs commands from standard input, which cannot be inspected",
                        wrap.via
                    )
                }),
                Stdin::Terminal => {
                    self.acc
                        .unknown(|| format!("{}: starts an interactive shell", wrap.via));
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
