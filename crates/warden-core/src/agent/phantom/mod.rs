//! Which clauses of an answer claim something (invariant 9). Grounding
//! ([`crate::agent::grounding`]) takes each claiming clause apart and looks
//! for its facts in the turn's evidence; with no evidence at all
//! [`makes_claims`] is exactly what grounding retracts.
//!
//! The detector works by rule, not by example. An answer is cut into
//! sentences and clauses; a clause is set aside when it is a question, a
//! condition (`if`, `wenn`, `si`), a purpose (`to …`, `um … zu`, `pour`,
//! `para`), an instruction (imperative first word), or hedged (modals,
//! future, approval, "probably", examples). What remains claims something
//! when it has, in English, German, French or Spanish:
//! - an action in the first person or a completed passive about the system
//!   ("I restarted", "has been stopped", "ich habe … neu gestartet",
//!   "j'ai redémarré", "se ha reiniciado"), or a bare "Done."/"Restarted …",
//!   unless negated ("I have not changed anything");
//! - a reading of tool output ("the logs show", "here is the output");
//! - a present live state ("is active", "are down", "läuft", "está
//!   funcionando"), negated or not ("nginx is not running" is a claim);
//! - a measured value: a number with a unit, a metric with a number, a
//!   count of live things, a time of a past event, an HTTP status — unless
//!   the clause speaks of limits, defaults or typical values;
//! - by form ([`live`], [`forms`]): a subjectless past ("Reloaded haproxy"),
//!   a headline passive ("Snapshot X created for VM 120"), a past tense of
//!   a program with a count ("rsync moved 12,408 files"), a state after a
//!   copula ("está apagada", "ist ausgeschaltet", "is powered off"), a
//!   date of an event ("expires on 2025-03-14", "seit gestern"), a
//!   labelled list of live things somewhere ("Containers on nas: plex,
//!   radarr", or the same heading over a bulleted list).
//!
//! Fenced code blocks and inline code are examples unless introduced as
//! output; tables of statuses or measurements are live values.
//!
//! Measured on `tests/phantom_corpus*.tsv` by `tests/phantom_corpus.rs`.

mod forms;
mod live;
mod subject;
mod words;

use words::*;

use std::sync::OnceLock;

use regex::Regex;

/// What the user sees instead of a phantom answer. It says what was wrong
/// and that nothing verified it, and is itself no claim.
pub const PHANTOM_REPLACEMENT: &str = "⚠ Retracted: the answer stated actions or live values, but no tool call \
succeeded in this turn, so nothing verified them and they may be invented. I have changed nothing. Ask me to \
check or to act, and I will run the tools and show you what they return.";

/// Why an answer was judged to claim something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimKind {
    /// An action said to be done ("I restarted nginx", "VM 101 was stopped").
    Action,
    /// Something read from tool output ("the logs show …", a pasted output block).
    ToolOutput,
    /// A present state of a system ("nginx is active", "pve2 is offline").
    LiveState,
    /// A measured value ("93% full", "load is 4.2", "3 containers are running").
    LiveValue,
}

/// The first claim found, and the clause that makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub kind: ClaimKind,
    pub clause: String,
}

/// Does `text` claim actions or live values?
pub fn makes_claims(text: &str) -> bool {
    assess(text).is_some()
}

/// The first claim of actions or live values in `text`, if any.
pub fn assess(text: &str) -> Option<Claim> {
    claims(text).into_iter().next()
}

/// Every claim of actions or live values in `text`, one per clause that
/// makes one, in order. Clauses are lower case, code spans replaced by
/// `code`; an output block is one claim holding the block's text.
pub fn claims(text: &str) -> Vec<Claim> {
    let Some(rules) = Rules::get() else {
        // Without its rules the detector cannot clear anything: fail closed.
        return vec![Claim {
            kind: ClaimKind::Action,
            clause: String::new(),
        }];
    };
    let lower = normalise(text);
    let (prose, output_block) = strip_code(rules, &lower);
    if let Some(block) = output_block {
        return vec![claim(ClaimKind::ToolOutput, &block)];
    }
    let mut found: Vec<Claim> = live_table_rows(rules, &prose)
        .into_iter()
        .map(|row| claim(ClaimKind::LiveValue, row))
        .collect();
    found.extend(listed_under_heading(rules, &prose));
    for sentence in sentences(&prose) {
        found.extend(assess_sentence(rules, sentence));
    }
    found
}

fn claim(kind: ClaimKind, clause: &str) -> Claim {
    Claim {
        kind,
        clause: clause.trim().to_string(),
    }
}

/// Lower case, one spelling of quotes and apostrophes, abbreviations
/// whose dots would end a sentence spelled without them.
fn normalise(text: &str) -> String {
    text.to_lowercase()
        .replace(['’', '‘', '`'], "'")
        .replace(['“', '”', '«', '»', '„'], "\"")
        .replace("'''", "```")
        .replace("e.g.", "eg")
        .replace("i.e.", "ie")
        .replace("z.b.", "zb")
}

/// Removes fenced blocks, inline code and quotations (they are examples,
/// commands or the user's words). A fenced block introduced as output
/// ("here is the output:") is returned instead, as the second value.
fn strip_code(rules: &Rules, text: &str) -> (String, Option<String>) {
    let mut prose = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let before = &rest[..open];
        let mut start = before.len().saturating_sub(120);
        while !before.is_char_boundary(start) {
            start += 1;
        }
        let intro = &before[start..];
        let after = &rest[open + 3..];
        let block = after.find("```").map_or(after, |close| &after[..close]);
        if rules.output_intro.is_match(intro) && !is_example(rules, intro) {
            return (String::new(), Some(block.to_string()));
        }
        prose.push_str(before);
        prose.push('\n');
        rest = after.find("```").map_or("", |close| &after[close + 3..]);
    }
    prose.push_str(rest);
    let prose = rules.inline_code.replace_all(&prose, " code ");
    let prose = rules.quotation.replace_all(&prose, " quote ");
    (prose.into_owned(), None)
}

/// Markdown table rows holding statuses or measurements, unless the
/// table is announced as an example.
fn live_table_rows<'t>(rules: &Rules, text: &'t str) -> Vec<&'t str> {
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.matches('|').count() >= 2 && !l.contains("---"))
        .collect();
    if rows.len() < 2 || is_example(rules, text) {
        return Vec::new();
    }
    rows.into_iter()
        .skip(1)
        .filter(|row| rules.table_value.is_match(row))
        .collect()
}

/// Whether `text` announces an example. A dotted name is a name, not
/// the word in it (`cloud.example.org`, `admin@example.com`).
fn is_example(rules: &Rules, text: &str) -> bool {
    rules
        .example
        .is_match(&rules.dotted_name.replace_all(text, "name"))
}

/// A heading naming live things ("Containers on nas:", "Running
/// services:") over a list: one claim, the heading with its items.
fn listed_under_heading(rules: &Rules, text: &str) -> Vec<Claim> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let is_item = |line: &&&str| {
        line.starts_with(['-', '*', '•'])
            || line
                .split_once(['.', ')'])
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !rules.live.list_heading(line) || is_example(rules, text) {
            continue;
        }
        let items: Vec<&str> = lines[i + 1..].iter().take_while(is_item).copied().collect();
        if !items.is_empty() {
            found.push(claim(
                ClaimKind::LiveState,
                &format!("{line} {}", items.join(" ")),
            ));
        }
    }
    found
}

/// Sentences end at `.`, `!`, `?` before a blank, and at line ends; a
/// question keeps its `?` so it can be recognised.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            let ends = matches!(b, b'.' | b'!' | b'?')
                && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
            if ends {
                out.push(&line[start..=i]);
                start = i + 1;
            }
        }
        out.push(&line[start..]);
    }
    out.into_iter().map(str::trim).filter(|s| !s.is_empty())
}

fn assess_sentence(rules: &Rules, sentence: &str) -> Vec<Claim> {
    if sentence.ends_with('?')
        || rules.plan_label.is_match(sentence)
        || sentence.starts_with("here is how")
        || sentence.starts_with("here's how")
        || sentence.starts_with("this is how")
        || rules.conditional_start.is_match(sentence)
        || is_example(rules, sentence)
    {
        return Vec::new();
    }
    // "Running containers: a, b and c", "Kernel: 6.8.12": one claim,
    // before the colon splits it.
    if let Some(kind) = rules.live.labelled(sentence) {
        return vec![claim(kind, sentence)];
    }
    clauses(rules, sentence)
        .into_iter()
        .filter_map(|clause| assess_clause(rules, clause.trim()))
        .collect()
}

/// The clauses of a sentence. A break after a colon ends before the
/// letter that tells it from a number (`: 9`), so the letter stays.
fn clauses<'s>(rules: &Rules, sentence: &'s str) -> Vec<&'s str> {
    let mut out = Vec::new();
    let mut start = 0;
    for found in rules.clause_break.find_iter(sentence) {
        let mut end = found.end();
        if found.as_str().starts_with(':') {
            end -= found.as_str().chars().last().map_or(0, char::len_utf8);
        }
        out.push(&sentence[start..found.start()]);
        start = end;
    }
    out.push(&sentence[start..]);
    out
}

fn assess_clause(rules: &Rules, clause: &str) -> Option<Claim> {
    if clause.is_empty() || rules.set_aside_start.is_match(clause) {
        return None;
    }
    // "valid until <date>" states a date; "until" alone waits for one.
    let unhedged = clause.replace("valid until", "valid to");
    if rules.hedge.is_match(&unhedged) && !rules.evidence.is_match(clause) {
        return None;
    }
    // "completed without errors", "migrated without downtime": an outcome,
    // not a negation.
    let negated = rules
        .negation
        .is_match(&rules.outcome.replace_all(clause, " cleanly "));
    if negated && rules.epistemic.is_match(clause) {
        return None;
    }
    let found = |kind| Some(claim(kind, clause));
    if !negated
        && (rules.action.iter().any(|r| r.is_match(clause))
            || first_person_action(rules, clause)
            || rules.live.subjectless_action(clause)
            || rules.forms.headline_action(clause))
    {
        return found(ClaimKind::Action);
    }
    if !negated && rules.tool_output.is_match(clause) {
        return found(ClaimKind::ToolOutput);
    }
    if rules.state.iter().any(|r| r.is_match(clause))
        || rules.forms.state(
            clause,
            if negated {
                forms::Negated::Yes
            } else {
                forms::Negated::No
            },
        )
    {
        return found(ClaimKind::LiveState);
    }
    if !rules.generic_amount.is_match(clause) && rules.value.iter().any(|r| r.is_match(clause)) {
        return found(ClaimKind::LiveValue);
    }
    if !negated && !rules.generic_amount.is_match(clause) {
        if rules.forms.past_count(clause) && !rules.live.generic(clause) {
            return found(ClaimKind::LiveValue);
        }
        if let Some(kind) = rules.live.present(clause)
            && !subject::documentation_fact(clause)
        {
            return found(kind);
        }
    }
    subject::structural(clause, negated).and_then(found)
}

fn first_person_action(rules: &Rules, clause: &str) -> bool {
    rules
        .first_person_past
        .captures_iter(clause)
        .filter_map(|caps| caps.get(1))
        .any(|verb| !CONVERSATION_PAST.split('|').any(|c| c == verb.as_str()))
}

struct Rules {
    output_intro: Regex,
    example: Regex,
    dotted_name: Regex,
    inline_code: Regex,
    quotation: Regex,
    table_value: Regex,
    conditional_start: Regex,
    clause_break: Regex,
    set_aside_start: Regex,
    hedge: Regex,
    evidence: Regex,
    negation: Regex,
    outcome: Regex,
    plan_label: Regex,
    epistemic: Regex,
    action: Vec<Regex>,
    /// "I <word>ed": an action unless the word is conversation.
    first_person_past: Regex,
    tool_output: Regex,
    state: Vec<Regex>,
    value: Vec<Regex>,
    generic_amount: Regex,
    live: live::LiveRules,
    forms: forms::FormRules,
}

/// `\b(?:a|b|c)\b` over whole words or phrases (apostrophes count as word characters).
fn any_word(words: &[&str]) -> String {
    let alternatives: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    format!(r"(?:^|[^\w'])(?:{})(?:$|[^\w'])", alternatives.join("|"))
}

impl Rules {
    fn get() -> Option<&'static Rules> {
        static RULES: OnceLock<Option<Rules>> = OnceLock::new();
        RULES.get_or_init(Rules::compile).as_ref()
    }

    fn compile() -> Option<Rules> {
        let re = |source: &str| Regex::new(source).ok();
        let first_person = r"(?:^|[^\w'])(?:i|we)(?:'ve| have| had|'d)?(?:\s+(?:just|already|also|now|successfully|then|quickly|manually|finally|went ahead and|gone ahead and))*\s+";
        Some(Rules {
            output_intro: re(r"(?:here(?:'s| is| are)|output|result|voici|hier ist|aquí)")?,
            example: re(&any_word(&[
                "example",
                "eg",
                "for instance",
                "like this",
                "would look",
                "typical",
                "beispiel",
                "zb",
                "exemple",
                "ejemplo",
                "such as",
            ]))?,
            dotted_name: re(r"[\w-]+(?:\.[\w-]+)+")?,
            inline_code: re(r"'[^'\n]{1,200}'")?,
            quotation: re(r#""[^"\n]{1,300}""#)?,
            table_value: re(&format!(
                r"\d(?:[.,]\d+)?{UNIT}|\b(?:{STATUS_WORDS}|ok|warning|error|critical)\b"
            ))?,
            conditional_start: re(&format!(
                r"^(?:{})",
                any_word(&[
                    "if",
                    "when",
                    "whenever",
                    "unless",
                    "once",
                    "in case",
                    "assuming",
                    "suppose",
                    "wenn",
                    "falls",
                    "sobald",
                    "si",
                    "quand",
                    "lorsque",
                    "cuando",
                    "for example",
                    "for instance",
                ])
                .trim_start_matches("(?:^|[^\\w'])")
            ))?,
            clause_break: re(
                r"[,;]\s|:\s+(?:[^\d\s])|\s[—–-]\s|\s(?:but|so|because|although|though|while|whereas|aber|mais|pero)\s",
            )?,
            set_aside_start: re(&format!(
                r"^(?:{})",
                any_word(SET_ASIDE_STARTS).trim_start_matches("(?:^|[^\\w'])")
            ))?,
            hedge: re(&any_word(HEDGES))?,
            evidence: re(&any_word(EVIDENCE))?,
            negation: re(&format!(r"{}|n't\b|\bn'", any_word(NEGATIONS)))?,
            epistemic: re(&any_word(EPISTEMIC))?,
            outcome: re(
                r"\b(?:without|with no|(?:found|reported|showed|shows|finds|reports|logged|had|has) no|ohne|sans|sin) (?:any |a single |an? |new |further )?(?:errors?|issues?|problems?|warnings?|downtime|interruptions?|data loss|failures?|fehler|probleme|unterbrechung|erreurs?|problèmes?|interruption|errores|problemas|interrupción)\b",
            )?,
            plan_label: re(&format!(r"^(?:[-*#\s]*)(?:{})\s*:", PLAN_LABELS))?,
            action: vec![
                // I restarted / we've stopped / I have just applied / I ran / I'm restarting
                re(&format!(
                    r"{first_person}(?:{ACTION_PARTICIPLES}|ran|did|saw|found|took|got|set|put|built|wrote|went through|looked|checked|verified|confirmed|inspected|examined|noticed|observed|tested|pinged|queried|measured|reviewed|scanned|read)\b"
                ))?,
                re(
                    r"(?:^|[^\w'])(?:i'm|i am|we're|we are)\s+(?:just\s+|now\s+)?(?:restart|stop|start|reboot|delet|remov|updat|upgrad|install|apply|fix|clear|reload|deploy|scal|kill|check|verify|run|execut|clean|prun|migrat|restor)[a-z]*ing\b",
                )?,
                // Done. / Restarted homepage. / All set. (not "Stopped containers are …")
                re(&format!(
                    r"^(?:all )?(?:done|all set|success|successfully|fixed|completed|finished|{ACTION_PARTICIPLES}|checked|verified)(?:$|[.!:—-]|\s+(?:\S+\s+){{0,3}}?(?:$|[.!]|(?:and|on|for|in|to|at|now)\b)|\s+[\w.@/-]+$)"
                ))?,
                // has been stopped / was restarted / were removed / is now enabled
                re(&format!(
                    r"\b(?:has|have|had) been (?:\w+ ){{0,2}}?(?:{ACTION_PARTICIPLES})\b|\b(?:was|were|got) (?:\w+ )?(?:{ACTION_PARTICIPLES})\b|\b(?:is|are) now (?:{ACTION_PARTICIPLES})\b"
                ))?,
                // the service restarted cleanly / the scrub finished / all 9 completed
                // (a verb used as a verb: followed by the end, a preposition or an adverb,
                // so "removes stopped containers" is no claim)
                re(
                    r"\b(?:\w+) (?:crashed|exited|finished|completed|passed|worked|died|rebooted|restarted|stopped|started|came back|came up|went down|ran out)(?:$|[.,;!]|\s+(?:at|on|in|with|after|before|cleanly|successfully|fine|again|twice|once|\d|and|without|normally|ok))",
                )?,
                // German, French, Spanish
                re(
                    r"\b(?:ich|wir) (?:habe|haben|hab) (?:\S+ ){0,5}?(?:\w*ge\w+(?:t|en)|\w+iert)\b|^(?:erledigt|fertig|geschafft)\b|\b(?:wurde|wurden) (?:\w+ ){0,3}?(?:neu gestartet|\w*ge\w+(?:t|en)|\w+iert)\b",
                )?,
                re(
                    r"\b(?:j'ai|nous avons) (?:\w+ ){0,2}?(?:\w+(?:é|ée|és|ées)|mis à jour|fait)\b|\b(?:a|ont) été \w+(?:é|ée|és|ées)\b|^(?:c'est fait|terminé|fini)\b",
                )?,
                re(
                    r"\b(?:he|hemos) (?:\w+ )?\w+(?:ado|ido)\b|\b(?:se ha|se han|ha sido|han sido|fue|fueron) (?:\w+ )?\w+(?:ado|ido)\b|\b(?:reinicié|detuve|paré|inicié|arranqué|borré|eliminé|actualicé|cambié|instalé|arreglé|comprobé|verifiqué|revisé|apliqué|ejecuté|apagué|encendí|liberé|limpié)\b|^(?:listo|hecho|terminado|completado)\b",
                )?,
            ],
            first_person_past: re(&format!(r"{first_person}([a-z]+ed)\b"))?,
            tool_output: re(
                r"\b(?:logs?|journal|output|metrics|dmesg|results?)\s+(?:show|shows|showed|say|says|said|indicate|indicates|indicated|reveal|reveals|revealed|confirm|confirms|confirmed)\b|\baccording to the (?:logs?|output|metrics|journal)\b|\bi (?:can )?see (?:that|in|on|a|an|the|\d)|\blooking at the (?:logs?|journal|output|metrics|dashboard)\b|\bhere(?:'s| is| are) (?:the )?(?:current |latest )?(?:output|results?|status|logs?)\b",
            )?,
            state: vec![
                re(&format!(
                    r"(?:^|[^\w'])(?:(?:[a-z0-9][\w./-]*)\s+)(?:is|are|was|were|has been|have been|remains|remain|stays|looks|look|seems|appears)\s+(?:(?:now|currently|still|all|not|back|again|fully|completely|almost|nearly|mostly|also|both)\s+)*(?:{STATUS_WORDS})\b"
                ))?,
                re(&format!(
                    r"(?:^|[^\w'])(?:it|they|everything)(?:'s|'re)\s+(?:(?:now|still|all|not|back)\s+)*(?:{STATUS_WORDS})\b"
                ))?,
                re(
                    r"\b(?:is|are) (?:\w+[ -]?){1,2} (?:now|again)\b|\b(?:runs|responds|works|answers) (?:\w+ ){0,3}?(?:now|again|fine)\b|\bresolves to \d|\b(?:is|are) \w+ing (?:\w+ )?again\b",
                )?,
                re(r"(?:^|\s)(?:crashloopbackoff|notready|oomkilled|imagepullbackoff|evicted)\b")?,
                re(
                    r"\b(?:ist|sind|war|waren) (?:(?:jetzt|wieder|nun|noch)\s+)*(?:aktiv|inaktiv|online|offline|gestoppt|voll|down|erreichbar|fehlerhaft|gesund|bereit|degradiert)\b|\b(?:läuft|laufen)\b",
                )?,
                re(
                    r"\b(?:est|sont) (?:(?:maintenant|de nouveau|à nouveau|bien|toujours)\s+)*(?:actif|active|actifs|inactif|arrêté|arrêtée|en ligne|hors ligne|plein|pleine|en cours d'exécution|opérationnel|en panne|sain|dégradé)\b|\bfonctionnen?t?\b",
                )?,
                re(
                    r"\b(?:está|están) (?:(?:ya|ahora|de nuevo|otra vez)\s+)*(?:funcionando|activo|activa|detenido|detenida|caído|caída|lleno|llena|en línea|en marcha|corriendo|parado|parada)\b",
                )?,
            ],
            value: vec![
                re(&format!(r"\d(?:[.,]\d+)?{UNIT}"))?,
                re(
                    r"\b(?:load(?: average)?|cpu|memory|ram|swap|disk|usage|temperature|latency|uptime|iowait|inodes?|connections|queue|traffic|bandwidth|ping)\b[^.]{0,30}?(?:\bis|\bat|\bof|=|:|\breached|\bhit|\bshows|\bwas)\s*\d",
                )?,
                re(
                    r"\bup (?:for )?\d+ (?:days?|hours?|minutes?|weeks?)\b|\d+ (?:seconds?|minutes?|hours?|days?) ago\b|\bexpires? in \d+|\b(?:running|up) for \d+|\buptime\b[^.]{0,20}\d+ (?:days?|hours?)",
                )?,
                re(&format!(
                    r"\bthere (?:are|is|were|was) (?:{COUNT_WORDS}) (?:\w+ )?(?:{LIVE_NOUNS})\b|(?:^|\s)(?:{COUNT_WORDS}) (?:\w+ ){{0,2}}?(?:{LIVE_NOUNS}) (?:are|is|were|was|have|has)\b|(?:^|\s)(?:{COUNT_WORDS}) (?:\w+ )?(?:{LIVE_NOUNS}) (?:running|stopped|up|down|failed|unhealthy|healthy|active)\b|\b(?:has|have) \d[\d,.]* \w+|\b(?:is|are) using \d|\buses \d"
                ))?,
                re(
                    r"\d{1,2}:\d{2}\b[^.]*\b(?:finished|completed|ran|started|stopped|failed|succeeded|crashed|happened|occurred|restarted|rebooted|exited)\b|\b(?:finished|completed|ran|started|stopped|failed|succeeded|crashed|happened|occurred|restarted|rebooted|exited|last\b[^.]*)\b[^.]*\d{1,2}:\d{2}\b",
                )?,
                re(
                    r"\b(?:returns|returned|responds with|responded with|answers with)\s+(?:an? )?(?:http )?\d{3}\b",
                )?,
            ],
            generic_amount: re(&any_word(GENERIC_AMOUNT))?,
            live: live::LiveRules::compile()?,
            forms: forms::FormRules::compile()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        assert!(Rules::get().is_some());
    }

    #[test]
    fn the_replacement_is_no_claim() {
        assert_eq!(assess(PHANTOM_REPLACEMENT), None);
        assert!(PHANTOM_REPLACEMENT.starts_with("⚠ Retracted:"));
    }

    #[test]
    fn claims() {
        for text in [
            "I have restarted nginx on web1 and it is now running.",
            "Added.",
            "CPU is at 93%",
            "The disk has 12 GB free",
            "nginx is active",
        ] {
            assert!(makes_claims(text), "{text}");
        }
        for text in [
            "I can't reach web1.",
            "Which host do you mean?",
            "Restarting needs your approval.",
            "I can't confirm anything without a tool call.",
        ] {
            assert!(!makes_claims(text), "{text}");
        }
    }
}
