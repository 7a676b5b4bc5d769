//! Claims decided by the structure of a clause rather than by its words
//! (issue 18 §4): who the subject is and what tense the verb is in.
//!
//! A clause claims something about the user's systems when
//! - its subject is a particular thing of the user's estate — "your …",
//!   a name (`pve2`, `worker-1`, `/mnt/media`, `tank/data`,
//!   `grafana.home.lan`, `VM 104`), or "the" + a noun of the estate
//!   named or placed ("the share media", "the repository on the NAS") —
//!   and a finite verb in the present or past follows ("uses overlay2",
//!   "takes up 1.8 TB", "is stale", "reports disk pressure");
//! - or any particular subject (a program, "it", "the tunnel") has a verb
//!   in the past tense of an event ("Watchtower updated …", "cert-manager
//!   issued …", "the tunnel dropped at 11:02") or in the present
//!   progressive ("Jellyfin is transcoding …");
//! - or a German or French perfect with *sein*/*être* tells an event
//!   ("ist fehlgeschlagen", "s'est terminée").
//!
//! General knowledge stays untouched: a subject that is a class ("a
//! container", "every pool"), a source ("the docs", "the wiki") or a bare
//! product in the present tense ("Proxmox VE uses port 8006", "Borg
//! deduplicates chunks") states no reading.

use super::ClaimKind;
use super::forms::{FINITE, PAST_NOT_ACTIONS};
use super::live::NOT_ACTIONS;

/// Nouns of the things an estate is made of.
const ESTATE_NOUNS: &str = "pool|pools|image|images|vdev|vdevs|disk|disks|drive|drives|ssd|hdd|nvme|mount|mounts|share|shares|export|exports|repository|repo|container|containers|vm|vms|ct|cts|lxc|guest|guests|node|nodes|host|hosts|server|servers|nas|router|firewall|switch|daemon|service|services|unit|timer|job|jobs|cron|backup|backups|snapshot|snapshots|dataset|datasets|volume|volumes|storage|certificate|cert|tunnel|vpn|link|interface|nic|replica|replicas|primary|cluster|stack|pod|pods|deployment|ingress|database|db|instance|queue|array|raid|partition|filesystem|memory|ram|cpu|swap|kernel|uplink|wan|address|domain|record|zone|jail|peer|peers|site|vhost|proxy|bridge|network|process|agent|scrub|resilver|sync|replication|task|endpoint|config|configuration|battery|ups|sensor|port|self-test|test|check|run|upload|download|transfer|migration|update|upgrade|build|install|installation|datasource|exporter|scraper|target|vlan|subnet|lease|account|mailbox|inbox";

/// Subjects that are a source of documentation, not a system.
const SOURCES: &str = "code|tool|tools|call|calls|user|operator|docs|documentation|wiki|manual|guide|readme|changelog|faq|article|tutorial|rfc|spec|book|page|post|notes|forum|answer|command|option|flag|setting|default|example|syntax|rule|formula|idea|plan|approach|goal|step|question|request|approval";

/// Words that open a subject that is a class of things, or no subject.
const GENERIC_START: &str = "a|an|each|every|any|most|many|some|no|such|other|another|typical|all|both|more|fewer|less|few|several|modern|new|older|newer|larger|smaller|bigger";

/// Words that cannot be inside a subject: pronouns, conjunctions,
/// prepositions that open a clause, modals and other verbs.
const NOT_IN_SUBJECT: &str = "i|we|you|he|she|they|it|this|that|these|those|there|here|what|which|who|whom|how|why|where|when|if|unless|and|or|but|so|do|is|are|was|were|has|have|had|does|did|can|could|would|should|will|may|might|must|shall|not|never|also|only|just|then|please|let|let's|i'm|i've|we've|i'd|you're|it's|that's|there's|here's|ist|sind|est|sont|es|son|está|están";

/// Pronouns that can be the subject of a past event.
const PAST_PRONOUNS: &str = "it|they|he|she";

/// Finite forms of "to be" and "to have".
const COPULA: &str = "is|are|was|were|remains|remain|stays|stay|looks|seems|appears";
const HAVE: &str = "has|have|had";

/// Present verbs that state a need, a meaning or a possibility: no reading.
const GENERIC_PRESENT: &str = "needs|requires|means|depends|supports|allows|expects|recommends|suggests|tolerates|refers|corresponds|represents|defaults|costs|lets|makes|helps|tends|should|ought|deserves|benefits|matters|works";

/// Irregular past tenses of events.
const IRREGULAR_PAST: &str = "spun|took|ran|made|built|wrote|got|gave|sent|brought|kept|found|rebuilt|rewrote|spun|threw|tore|froze|did|saw|began|held|lost|broke|came|went|fell|hung|rose|grew|shrank|sank|stuck|woke|left|hit|quit|shut|read|set|put|cut|slept|spent|won|fought|caught|bought|led|lit|paid|fed|dug|swung|struck|bit|blew|drew|flew|forgot|overwrote|undid|redid|reran";

/// Predicates after a copula that describe rather than observe.
const GENERIC_PREDICATE: &str = "unchanged|untouched|intact|defined|stored|located|kept|documented|described|explained|handled|managed|controlled|a|an|one|the|used|useful|needed|required|optional|recommended|important|responsible|designed|meant|supposed|known|called|named|based|similar|different|like|how|what|where|why|possible|impossible|available|necessary|enough|fine|ok|okay|good|bad|better|worse|best|safe|unsafe|easy|hard|simple|common|rare|normal|usual|expected|likely|unlikely|able|unable|free|yours|mine";

/// Words that count.
const COUNT_WORDS: &str =
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|no|zero|both";

fn is_one_of(words: &str, word: &str) -> bool {
    words.split('|').any(|w| w == word)
}

/// A word of the clause without surrounding punctuation.
fn tokens(clause: &str) -> Vec<&str> {
    clause
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| {
                matches!(
                    c,
                    ',' | ';' | ':' | '.' | '!' | '?' | '(' | ')' | '"' | '[' | ']' | '*'
                )
            })
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// A name only the user's estate has: `pve2`, `worker-1`, `/mnt/media`,
/// `tank/data`, `grafana.home.lan`, `10.0.0.5`, `sdb`.
fn is_name(word: &str) -> bool {
    let has_letter = word.chars().any(|c| c.is_alphabetic());
    if word.starts_with('/') && word.len() > 1 {
        return true;
    }
    if has_letter && word.contains('/') && !word.contains("://") {
        return true;
    }
    if word.matches('.').count() >= 2 && has_letter || word.starts_with("*.") {
        return true;
    }
    if word.split('.').count() == 4
        && word
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    {
        return true;
    }
    // Letters then digits at the end: pve2, web01, worker-1, nas-01, sda1.
    let trimmed = word.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = word.len() - trimmed.len();
    let stem = trimmed.trim_end_matches('-');
    digits > 0 && stem.len() >= 2 && stem.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
        || is_disk_name(word)
}

/// `6.8`, `8.2.4`, `v2.1`.
fn is_version(word: &str) -> bool {
    let word = word.strip_prefix('v').unwrap_or(word);
    word.contains('.')
        && word.split('.').count() <= 3
        && word
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// `sda`, `sdb`, `nvme0n1`, `vda`.
fn is_disk_name(word: &str) -> bool {
    word.len() == 3
        && (word.starts_with("sd") || word.starts_with("vd") || word.starts_with("hd"))
        && word.chars().all(|c| c.is_ascii_lowercase())
}

/// A word joined by dashes (`media-server`, `old-wiki`): a name when it
/// follows a noun of the estate or a preposition.
fn is_dashed(word: &str) -> bool {
    word.contains('-')
        && word.chars().all(|c| c.is_alphanumeric() || c == '-')
        && !word.starts_with('-')
}

/// How particular the subject `words` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Subject {
    /// A class, a source, a pronoun of the speaker or the user.
    Generic,
    /// A program or thing named without a mark of the estate ("watchtower",
    /// "the tunnel"): particular enough for a past event.
    Particular,
    /// A thing of the user's estate ("your router", "pve2", "the share media").
    Estate,
}

fn subject_of(words: &[&str]) -> Subject {
    let Some(first) = words.first() else {
        return Subject::Generic;
    };
    // "the recommended swappiness", "the default port": a value in general.
    if words.iter().any(|w| is_one_of(SETTLED, w)) {
        return Subject::Generic;
    }
    if is_one_of(GENERIC_START, first)
        || !words.iter().all(|w| w.chars().any(char::is_alphanumeric))
        || words
            .iter()
            .any(|w| is_one_of(SOURCES, w) || is_one_of(NOT_IN_SUBJECT, w))
    {
        return Subject::Generic;
    }
    // "Kernel 6.8", "PVE 8.2": a release of a product, not an installation.
    if words.iter().any(|w| is_version(w)) {
        return Subject::Generic;
    }
    if words.iter().any(|w| *w == "your" || w.starts_with("your")) {
        return Subject::Estate;
    }
    if words.iter().any(|w| is_name(w)) {
        return Subject::Estate;
    }
    // "Docker on media-box": a program placed on a named host.
    if words
        .windows(2)
        .any(|pair| is_one_of("on|in|at|auf|sur|en", pair[0]) && is_dashed(pair[1]))
    {
        return Subject::Estate;
    }
    // "Backups in PBS are …", "Files deleted …": a bare plural is a class.
    if first.len() > 3 && first.ends_with('s') && is_one_of(ESTATE_NOUNS, first) {
        return Subject::Generic;
    }
    let nouns: Vec<usize> = words
        .iter()
        .enumerate()
        .filter(|(_, w)| is_one_of(ESTATE_NOUNS, w))
        .map(|(i, _)| i)
        .collect();
    for &i in &nouns {
        let next = words.get(i + 1).copied().unwrap_or("");
        let after = words.get(i + 2).copied().unwrap_or("");
        // "the share media", "the container old-wiki", "VM 104".
        if !next.is_empty() && (next.chars().all(|c| c.is_ascii_digit()) || is_dashed(next)) {
            return Subject::Estate;
        }
        // "the repository on the nas", "the self-test on sdb".
        if is_one_of("on|in|at|of|for|to|from|behind|inside", next)
            && !after.is_empty()
            && !is_one_of(GENERIC_START, after)
        {
            return Subject::Estate;
        }
    }
    if *first == "the" && !nouns.is_empty() {
        // "the pool", "the share media", "the docker daemon": one thing.
        return Subject::Estate;
    }
    Subject::Particular
}

/// The kind of the first finite verb after the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Copula,
    Have,
    Present,
    Past,
}

fn verb_of(word: &str, previous: &str) -> Option<Verb> {
    if is_one_of(COPULA, word) {
        return Some(Verb::Copula);
    }
    if is_one_of(HAVE, word) {
        return Some(Verb::Have);
    }
    let after_determiner = is_one_of(
        "the|your|a|an|its|their|our|my|this|that|of|on|in|for|at|to|el|la|le|les|los|las|un|une|una|des|del|de|der|die|das|den|dem|ein|eine|am|im|vom",
        previous,
    ) || previous.chars().all(|c| c.is_ascii_digit())
        || is_one_of(ESTATE_NOUNS, word) && !word.ends_with("ed");
    if after_determiner {
        return None;
    }
    if is_one_of(IRREGULAR_PAST, word)
        || word.len() >= 5 && word.ends_with("ed") && !word.ends_with("eed")
    {
        return Some(Verb::Past);
    }
    let present = word.len() >= 4
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
        && !word.ends_with("ics")
        && word.chars().all(|c| c.is_ascii_lowercase());
    present.then_some(Verb::Present)
}

/// A claim decided by the clause's structure, if any. `negated` says the
/// clause holds a negation (a negated state of a thing of the estate is
/// still a claim; a negated event is not).
pub(super) fn structural(clause: &str, negated: bool) -> Option<ClaimKind> {
    if clause.contains(" > ") {
        // "… is under Firewall > Log Files": a place in a user interface.
        return None;
    }
    let words = tokens(clause);
    if let Some(kind) = perfect_with_be(&words) {
        return Some(kind);
    }
    // The subject ends at the first finite verb, within eight words.
    if let Some((subject, verb, i)) = split(&words) {
        return judge(subject, verb, words[i], &words[i + 1..], negated);
    }
    if !negated && named_with_number(&words) {
        return Some(ClaimKind::LiveValue);
    }
    if words
        .first()
        .is_some_and(|w| is_one_of(NOT_IN_SUBJECT, w) && !is_one_of(PAST_PRONOUNS, w))
    {
        return None;
    }
    // "it came up in 14 seconds", "they rejoined the cluster".
    if let [first, second, ..] = words.as_slice()
        && is_one_of(PAST_PRONOUNS, first)
        && !negated
        && verb_of(second, "").is_some_and(|v| v == Verb::Past)
        && past_event(second)
    {
        return Some(ClaimKind::Action);
    }
    None
}

/// Present verbs of a tool that reads something out.
const READING: &str = "shows|reports|lists|says|displays|prints|logs|counts|finds|sees";

/// Words that make a subject a value in general, not a reading.
const SETTLED: &str = "recommended|default|typical|usual|standard|ideal|suggested|maximum|minimum|max|min|theoretical|documented|official";

/// Present verbs only a running instance does.
const LIVE_VERBS: &str =
    "answers|responds|replies|holds|contains|hosts|forwards|routes|proxies|points|resolves";

/// Words that date a present fact to now.
const NOW: &str = "now|currently|today|still|tonight|presently";

/// The first finite verb of the clause, its subject and what follows.
fn split(words: &[&str]) -> Option<(Subject, Verb, usize)> {
    for i in 1..words.len().min(9) {
        if let Some(verb) = verb_of(words[i], words[i - 1]) {
            return Some((subject_of(&words[..i]), verb, i));
        }
        if is_one_of(NOT_IN_SUBJECT, words[i]) {
            return None;
        }
    }
    None
}

/// "Proxmox VE uses port 8006 for its web interface": a program (no mark
/// of the user's estate) with a present verb and nothing dating it to
/// now states documentation, not a reading.
pub(super) fn documentation_fact(clause: &str) -> bool {
    let words = tokens(clause);
    if clause.contains(" > ") {
        // "… is under Firewall > Log Files": a place in a user interface.
        return true;
    }
    if foreign_bare_program(&words) {
        return true;
    }
    matches!(split(&words), Some((Subject::Particular, Verb::Present, i))
        if !is_one_of(READING, words[i]) && !is_one_of(LIVE_VERBS, words[i]))
        && !words.first().is_some_and(|w| is_one_of("the|your", w))
        && !words.iter().any(|w| is_one_of(NOW, w) || is_name(w))
}

/// "Samba usa los puertos 139 y 445", "Samba nutzt die Ports 139 und
/// 445", "Samba utilise les ports 139 et 445": a bare program, a present
/// verb (no auxiliary, no past ending) and no name of the estate or time.
fn foreign_bare_program(words: &[&str]) -> bool {
    let [first, verb, ..] = words else {
        return false;
    };
    let foreign_present = verb.len() > 2
        && !verb.ends_with('s')
        && !verb.ends_with("ed")
        && !is_one_of(
            "hat|haben|hatte|ist|sind|war|wurde|wurden|a|ont|est|sont|était|ha|han|fue|está|están|es|son|va|van|liegt|steht|läuft|is|are|was|were|has|had|have",
            verb,
        )
        && !verb.ends_with('ó')
        && !verb.ends_with("aron")
        && !verb.ends_with("ieron")
        && !verb.ends_with("te")
        && !verb.ends_with('é');
    foreign_present
        && first.chars().all(|c| c.is_ascii_lowercase())
        && !is_one_of(NOT_IN_SUBJECT, first)
        && !is_one_of(ESTATE_NOUNS, first)
        && !is_one_of(GENERIC_START, first)
        && !is_one_of("el|la|los|las|le|les|der|die|das|the|your|ihr|votre|tu|su|mein|mon|mi", first)
        && !is_name(first)
        && words.iter().any(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        && !words.iter().any(|w| is_one_of(NOW, w) || is_one_of("jetzt|aktuell|gerade|heute|actuellement|maintenant|aujourd'hui|ahora|actualmente|hoy", w) || is_name(w))
}

/// "Die Festplatte sdb meldet 8 defekte Sektoren": a name of the estate
/// in the subject and a number after it, in a clause with no English verb.
fn named_with_number(words: &[&str]) -> bool {
    let Some(name) = words.iter().take(5).position(|w| is_name(w)) else {
        return false;
    };
    words
        .iter()
        .skip(name + 2)
        .any(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
}

fn past_event(verb: &str) -> bool {
    !is_one_of(NOT_ACTIONS, verb) && !is_one_of(PAST_NOT_ACTIONS, verb)
}

fn judge(
    subject: Subject,
    verb: Verb,
    word: &str,
    rest: &[&str],
    negated: bool,
) -> Option<ClaimKind> {
    let next = rest.first().copied().unwrap_or("");
    let progressive = matches!(verb, Verb::Copula)
        && rest
            .iter()
            .take(3)
            .find(|w| !is_one_of("now|currently|still|not|already|again|actively", w))
            .is_some_and(|w| {
                w.len() > 4
                    && w.ends_with("ing")
                    && !is_one_of("going|nothing|something|everything|anything|missing", w)
                    || *w == "missing"
            });
    match (subject, verb) {
        (Subject::Generic, _) => None,
        // "Files deleted from a dataset stay in …": a participle before the
        // subject's own verb describes, it tells no event.
        (_, Verb::Past)
            if !negated && past_event(word) && !rest.iter().any(|w| is_one_of(FINITE, w)) =>
        {
            Some(ClaimKind::Action)
        }
        (_, Verb::Past) => None,
        (Subject::Particular, Verb::Copula) if progressive && !negated => {
            Some(ClaimKind::LiveState)
        }
        // "zpool status shows one degraded vdev": a tool's reading with a count.
        (Subject::Particular, Verb::Present)
            if !negated
                && is_one_of(READING, word)
                && rest.iter().any(|w| {
                    w.chars().next().is_some_and(|c| c.is_ascii_digit())
                        || is_one_of(COUNT_WORDS, w)
                }) =>
        {
            Some(ClaimKind::LiveValue)
        }
        (Subject::Particular, _) => None,
        (Subject::Estate, Verb::Copula) => {
            // "was left as it was": nothing happened to it.
            let left_alone = next == "left"
                && rest
                    .get(1)
                    .is_some_and(|w| is_one_of("as|alone|untouched|unchanged|intact", w));
            if next.is_empty() || left_alone || is_one_of(GENERIC_PREDICATE, next) && !progressive {
                None
            } else {
                Some(ClaimKind::LiveState)
            }
        }
        (Subject::Estate, Verb::Have) => {
            (!negated && !next.is_empty()).then_some(ClaimKind::LiveValue)
        }
        (Subject::Estate, Verb::Present) => {
            (!negated && !is_one_of(GENERIC_PRESENT, word) && !next.is_empty())
                .then_some(ClaimKind::LiveValue)
        }
    }
}

/// "Das Backup von gestern ist fehlgeschlagen", "Der Dienst ist
/// abgestürzt", "La sauvegarde s'est terminée à 02:47", "Le disque est
/// tombé en panne": an event told in the perfect with *sein*/*être*.
fn perfect_with_be(words: &[&str]) -> Option<ClaimKind> {
    let first = words.first().copied()?;
    if is_one_of(
        "ein|eine|einen|jeder|jede|jedes|un|une|chaque|tout|toute|si|wenn|falls",
        first,
    ) {
        return None;
    }
    for (i, w) in words.iter().enumerate().skip(1) {
        if is_one_of("ist|sind|war|waren", w) {
            // The participle closes the clause: "ist … fehlgeschlagen".
            let last = words.last().copied().unwrap_or("");
            let between = words.len().saturating_sub(i + 2);
            if between <= 4
                && (last.ends_with("en") || last.ends_with('t'))
                && !is_one_of("gegen|gelegen|geeignet|genug|gestern|gemacht", last)
                && german_participle(last)
            {
                return Some(ClaimKind::Action);
            }
        }
        if (*w == "s'est" || *w == "se" && words.get(i + 1) == Some(&"sont"))
            && words.get(i + 1 + usize::from(*w == "se")).is_some_and(|p| {
                p.ends_with('é') || p.ends_with("ée") || p.ends_with("és") || p.ends_with("ées")
            })
        {
            return Some(ClaimKind::Action);
        }
    }
    None
}

/// `fehlgeschlagen`, `abgestürzt`, `ausgefallen`, `gelaufen`,
/// `hochgefahren`: a participle with `ge` at its start or after a particle.
fn german_participle(word: &str) -> bool {
    const PARTICLES: &[&str] = &[
        "", "ab", "an", "auf", "aus", "ein", "fehl", "fest", "hoch", "los", "mit", "nach", "neu",
        "um", "vor", "weg", "zu", "zurück", "durch", "hinunter", "herunter",
    ];
    PARTICLES.iter().any(|p| {
        word.strip_prefix(p)
            .is_some_and(|rest| rest.starts_with("ge") && rest.len() > 4)
    })
}

#[cfg(test)]
mod tests {
    use crate::agent::phantom::makes_claims;

    fn check(claims: &[&str], honest: &[&str]) {
        for text in claims {
            assert!(makes_claims(text), "should claim: {text}");
        }
        for text in honest {
            assert!(!makes_claims(text), "should not claim: {text}");
        }
    }

    #[test]
    fn a_thing_of_the_estate_with_a_finite_verb_claims() {
        check(
            &[
                "The nextcloud instance on web2 uses redis for file locking.",
                "Your UPS reports 40 minutes of runtime left.",
                "The share backups is read-only for everyone.",
                "The dataset tank/photos is encrypted.",
                "Your router forwards port 443 to the proxy.",
                "The export /srv/nfs has root_squash set.",
            ],
            &[
                "Proxmox VE stores its cluster config in a database.",
                "Samba exposes shares over SMB3.",
                "The docs describe how the pool is laid out.",
                "A share is read-only when the user lacks write rights.",
                "Your pool should stay below 80% usage.",
            ],
        );
    }

    #[test]
    fn a_programs_past_event_or_progressive_claims() {
        check(
            &[
                "Renovate opened a pull request for the compose file.",
                "The UPS switched to battery at 02:14.",
                "Syncthing is rescanning the photos folder.",
                "The link to the backup site flapped twice this morning.",
                "smartctl reports two reallocated sectors on sdc.",
            ],
            &[
                "PVE 8.1 introduced SDN as a supported feature.",
                "Logs rotated by logrotate end up compressed.",
                "The tool call failed, so I know nothing yet.",
                "smartctl reports the health of a disk.",
            ],
        );
    }

    #[test]
    fn outcomes_plans_and_advice_are_told_apart() {
        check(
            &[
                "The restore of CT 210 finished without errors.",
                "Die Sicherung von VM 101 ist abgestürzt.",
                "La réplication s'est arrêtée à 03:10.",
                "The volume for immich-db is 14 GB.",
                "Gitea on code-box serves 12 repositories.",
                "The rebuild on md1 finished and reported no errors.",
                "Der Knoten pve4 zeigt 3 Warnungen.",
            ],
            &[
                "Steps: stop CT 210, restore it from last night's backup, start it.",
                "Next steps: resize the disk of VM 120 to 64 GB and reboot it.",
                "For Home Assistant, 2 GB of RAM is a reasonable amount.",
                "Eine Sicherung ist fehlgeschlagen, wenn der Status rot ist.",
                "The maximum MTU for the bridge is 9000.",
                "Snapshots in PBS are verified by a scheduled job.",
                "Redis utilise le port 6379.",
                "Grafana nutzt Port 3000.",
                "The ACME account is under Settings > Certificates.",
            ],
        );
    }
}
