//! Claims the phrase rules of `mod.rs` do not cover, by shape rather than
//! by phrase:
//! - a report without a subject that opens with a past tense ("Reloaded
//!   haproxy with the new backend list.", "Took a snapshot of web."),
//!   unless the word is an adjective of the subject ("Stopped containers
//!   are removed by prune.");
//! - a present fact about a particular thing: something that answers,
//!   responds or listens; a version, an address, a PID, a date; a present
//!   verb with a count ("The mail queue holds 312 messages.", "web1 runs
//!   kernel 6.8.12-4-pve."); a count of live things somewhere ("14
//!   containers on web1") — unless the subject is generic ("A RAID 1 with
//!   2 disks survives 1 disk failure.");
//! - a labelled list or value ("Running containers: jellyfin, sonarr and
//!   traefik.", "Kernel: 6.8.12", "Open ports: 22, 80").

use regex::Regex;

use super::ClaimKind;
use super::words::{ACTION_PARTICIPLES, LIVE_NOUNS, STATUS_WORDS};

/// Past tenses that are not `-ed` words (ambiguous ones such as "set",
/// "put", "shut", "read" are left out: they open instructions too).
const IRREGULAR_PAST: &str = "took|ran|made|built|wrote|got|gave|sent|brought|kept|found|rebuilt|rewrote|spun|threw|tore|froze|undid|redid|reran|overwrote|did|saw|began|drew|drove|held|lost|paid|bound|dug|fed|hid|led|lit|sold|swept|upheld|withdrew|broke";

/// `-ed` words that are no past tense of an action, or report
/// conversation rather than work.
pub(super) const NOT_ACTIONS: &str = "need|feed|seed|speed|indeed|hundred|embed|shed|bed|red|based|related|compared|given|called|named|used|supposed|required|recommended|suggested|expected|advanced|detailed|limited|united|interested|concerned|tired|needed|wanted|asked|mentioned|explained|proposed|requested|prepared|meant|misunderstood|assumed|tried|attempted|planned|intended|described|understood|hoped|decided|guessed|apologized|apologised|offered|unsupported|untested|unverified|unchanged|unconfirmed|untouched|undecided|unexpected|unrelated|authorized|blocked|denied|refused|queued|scheduled|skipped";

/// After an adjective-like first word, a verb of the subject follows.
const SUBJECT_VERBS: &str = "is|are|was|were|will|would|can|could|should|must|may|might|have|has|had|need|needs|get|gets|remain|remains|stay|stays|show|shows|appear|appears|look|looks|take|takes|do|does|don't|doesn't|won't|can't|use|uses|go|goes|keep|keeps|count|counts";

/// Present verbs that state a limit, a need or a meaning: general
/// knowledge, not a reading.
const GENERIC_VERBS: &str = "takes|requires|needs|supports|allows|means|accepts|expects|defaults|equals|costs|lasts|ships|comes|permits|recommends|suggests|tolerates|survives|stands|refers|corresponds|represents|looks|seems|sounds|becomes|gets|goes|does|is|was|has|as|its|this|thus|plus|minus|less|unless|always|sometimes|perhaps|days|hours|minutes|seconds|weeks|months|years|times|items|ports|versions|bytes|bits|points|steps|parts|lines|rfcs|examples|options|levels|tiers|classes|types";

/// Nouns of things one counts on a live system.
const COUNTED: &str = "messages?|mails?|e-?mails?|files?|entries|entry|lines|items?|rules?|records?|rows?|queries|tasks?|threads?|workers?|cores?|peers?|clients?|devices?|interfaces?|certificates?|domains?|zones?|databases?|tables?|keys?|leases?|packets?|retries|commits?|zombies?|units?|timers?|sockets?|mounts?|partitions?|datasets?|pools?|guests?|lxcs?|cts?|deployments?|namespaces?|tickets?|emails?|downloads?|torrents?|streams?|viewers?|bans?|blocks?";

/// When something happened or happens: a date, a weekday, a day word.
const WHEN: &str = r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|yesterday|today|tonight|tomorrow|last|this morning|gestern|heute|morgen|vorgestern|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|hier|aujourd'hui|demain|avant-hier|ce matin|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|ayer|hoy|anoche|mañana|anteayer|lunes|martes|miércoles|jueves|viernes|sábado|domingo|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|esta mañana";

/// Nouns of live things a labelled list names, in the four languages.
const LIST_NOUNS: &str = "containers?|pods?|vms?|guests?|lxcs?|cts?|services?|units?|timers?|jobs?|nodes?|hosts?|disks?|drives?|pools?|datasets?|volumes?|images?|networks?|snapshots?|backups?|users?|peers?|clients?|certificates?|certs?|domains?|zones?|shares?|mounts?|interfaces?|ports?|processes|packages?|updates?|replicas?|deployments?|namespaces?|stacks?|projects?|databases?|sites?|vhosts?|routers?|routes?|leases?|alerts?|sessions?|dienste|knoten|festplatten|laufwerke|pakete|benutzer|netzwerke|zertifikate|freigaben|prozesse|sicherungen|conteneurs?|machines?|nœuds|noeuds|disques?|paquets?|utilisateurs?|réseaux|certificats?|partages?|processus|sauvegardes?|contenedores?|servicios?|nodos?|discos?|paquetes?|usuarios?|redes|certificados?|copias|procesos?|máquinas?";

/// Words of a label naming live things in a state.
const LIVE_LABEL: &str = "running|active|stopped|failed|failing|open|listening|installed|mounted|exited|unhealthy|healthy|connected|enabled|loaded|up|down|offline|online|dead|crashed|degraded|pending updates|upgradable|outdated";

/// Labels that introduce advice, plans or examples, not readings.
const ADVICE_LABEL: &str = "example|examples|eg|note|notes|tip|tips|step|steps|option|options|hint|warning|caution|command|commands|usage|syntax|default|defaults|proposal|plan|suggestion|suggestions|next|todo|question|answer|reason|cause|fix|solution|pending|approval|problem|idea|alternatively|alternative|recommendation|goal|why|how|what|important|reminder|summary|rule|rules|format|pattern|template|source|see|also";

pub(super) struct LiveRules {
    subjectless: Regex,
    german_subjectless: Regex,
    generic_subject: Regex,
    live_verb: Regex,
    identifier: Regex,
    verb_count: Regex,
    dated: Regex,
    list_label: Regex,
    foreign_value: Regex,
    counted_here: Regex,
    label: Regex,
    live_label: Regex,
    advice_label: Regex,
    label_value: Regex,
    hedged_label: Regex,
    purpose: Regex,
}

impl LiveRules {
    pub(super) fn compile() -> Option<LiveRules> {
        let re = |source: &str| Regex::new(source).ok();
        Some(LiveRules {
            subjectless: re(&format!(
                r"^(?:(?:then|also|just|successfully|finally|and|first|next|already|quickly|manually)\s+)*([a-z]+ed|{IRREGULAR_PAST})\b((?:\s+\S+){{0,4}})"
            ))?,
            german_subjectless: re(r"^(?:habe|hab|haben)\s+\S+")?,
            // A thing in general, or a command described (`uptime` prints …).
            generic_subject: re(
                r"^(?:a|an|each|every|any|most|many|some|no|typical|normally|usually|in general|generally|code|(?:the )?command code)\s",
            )?,
            live_verb: re(r"\b(?:answers|responds|replies|listens|is listening|are listening)\b")?,
            identifier: re(
                r"\b\d+\.\d+\.\d+(?:[-+~.][\w.]+)?\b|\b\d+\.\d+-\d+\b|\bv\d+\.\d+\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|\bpid \d+|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}[./](?:\d{4}|\d{2})\b",
            )?,
            // A past or coming event of a particular thing, with its date or
            // how long ago: "expires on 14 March", "läuft am 14.03. ab",
            // "expire le 3 avril", "caduca el lunes", "since yesterday",
            // "seit gestern", "depuis hier", "desde ayer".
            dated: re(&format!(
                r"\b(?:expires?|expired|expiring|valid until|valid till|not after|runs out|renews?|renewed|läuft|lief|laufen|gültig bis|abgelaufen|expire|expirera|expiré|expirée|valable jusqu|caduca|caducó|caducará|vence|venció|vencerá|expira|expiró|válido hasta|válida hasta)(?: (?:on|at|am|le|el|the|den|à|ab))*[ ']+(?:{WHEN})|\b(?:since|seit|depuis|desde)(?: (?:hace|dem|der|den|le|la|el|last|letztem|letzter|letzten))* (?:{WHEN})"
            ))?,
            list_label: re(&format!(
                r"^(?:(?:the|die|der|les|los|las|all|alle|tous les|todos los)\s+)?(?:[\w-]+\s+)?(?:{LIST_NOUNS})(?:\s+[a-z-]+){{0,2}}?\s+(?:on|in|at|of|auf|bei|von|sur|dans|de|du|en|del)\s+\S+(?:\s+\S+)?$"
            ))?,
            verb_count: re(
                r"\b([a-z]{3,}s) (?:(?:only|just|about|nearly|over|exactly|currently|now|still|roughly|around)\s+)?(?:[a-z]+\s+){0,2}?\d[\d,.]*\b",
            )?,
            foreign_value: re(
                r"\b(?:liegt|liegen|steht|stehen) (?:\w+ )?bei \d|\b(?:beträgt|betragen|enthält|enthalten|zeigt|zeigen|hält|halten|belegt|belegen|verbraucht|verbrauchen) (?:\w+ ){0,2}?\d|\b(?:est|sont) (?:de|à|a) \d|\b(?:contient|contiennent|affiche|utilise|utilisent|consomme|compte) (?:\w+ ){0,2}?\d|\b(?:es|son) de \d|\b(?:está|están) (?:en|al|a) \d|\b(?:tiene|tienen|contiene|contienen|usa|usan|utiliza|consume|consumen|muestra|marca) (?:\w+ ){0,2}?\d",
            )?,
            counted_here: re(&format!(
                r"\b\d[\d,.]* (?:[a-z-]+ )?(?:{LIVE_NOUNS}|{COUNTED}) (?:on|in|at|from|for|across|inside|behind|waiting|queued|pending|open|stuck|left)\b"
            ))?,
            label: re(r"^([^:]{2,48}):\s+(\S.*)$")?,
            live_label: re(&format!(r"\b(?:{LIVE_LABEL})\b"))?,
            advice_label: re(&format!(r"\b(?:{ADVICE_LABEL})\b"))?,
            label_value: re(&format!(
                r"^(?:\d|v\d|(?:{STATUS_WORDS}|yesterday|today|last night|this morning|gestern|heute|hier|aujourd'hui|ce matin|ayer|hoy|anoche|esta mañana)\b)"
            ))?,
            purpose: re(r"\b(?:to|zu|pour|para|à)\s")?,
            hedged_label: re(
                r"\b(?:would|could|should|might|may|can|will|if|when|want|need|please|suggest|recommend|approval|approve|pending)\b",
            )?,
        })
    }

    /// "Reloaded haproxy with the new backend list.": a past tense opens
    /// the clause and no verb of a subject follows it.
    pub(super) fn subjectless_action(&self, clause: &str) -> bool {
        if self.german_subjectless.is_match(clause) {
            return true;
        }
        let Some(caps) = self.subjectless.captures(clause) else {
            return false;
        };
        let verb = caps.get(1).map_or("", |m| m.as_str());
        if verb.len() < 4 && !IRREGULAR_PAST.split('|').any(|w| w == verb) {
            return false;
        }
        if NOT_ACTIONS.split('|').any(|w| w == verb) || verb.ends_with("eed") && verb != "succeeded"
        {
            return false;
        }
        let next = caps.get(2).map_or("", |m| m.as_str());
        // "Cloudflared reconnects on its own": a program named like a past
        // tense, followed by its present verb.
        let following = next.split_whitespace().next().unwrap_or("");
        if !ACTION_PARTICIPLES.split('|').any(|w| w == verb)
            && following.len() > 4
            && following.ends_with('s')
            && !following.ends_with("ss")
            && next.split_whitespace().nth(1).is_some_and(|w| {
                [
                    "on",
                    "in",
                    "at",
                    "to",
                    "its",
                    "every",
                    "after",
                    "when",
                    "automatically",
                    "by",
                ]
                .contains(&w)
            })
        {
            return false;
        }
        !next.split_whitespace().any(|word| {
            let word = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
            SUBJECT_VERBS.split('|').any(|v| v == word)
        })
    }

    /// Whether the clause speaks of a thing in general.
    pub(super) fn generic(&self, clause: &str) -> bool {
        self.generic_subject.is_match(clause)
    }

    /// A present fact about a particular thing.
    pub(super) fn present(&self, clause: &str) -> Option<ClaimKind> {
        if self.generic_subject.is_match(clause) {
            return None;
        }
        if self.live_verb.is_match(clause) {
            return Some(ClaimKind::LiveState);
        }
        if self.identifier.is_match(clause)
            || self.dated.is_match(clause)
            || self.counted_here.is_match(clause)
            || self.foreign_value.is_match(clause)
        {
            return Some(ClaimKind::LiveValue);
        }
        let counted = self.verb_count.captures_iter(clause).any(|caps| {
            let verb = caps.get(1).map_or("", |m| m.as_str());
            !GENERIC_VERBS.split('|').any(|g| g == verb) && !verb.ends_with("ss")
        });
        counted.then_some(ClaimKind::LiveValue)
    }

    /// "Containers on nas:" or "Running containers:" heading a list.
    pub(super) fn list_heading(&self, line: &str) -> bool {
        let Some(label) = line.trim().strip_suffix(':') else {
            return false;
        };
        let label = label
            .trim_start_matches(['#', '*', ' '])
            .trim_end_matches('*');
        label.split_whitespace().count() <= 5
            && !label.contains(':')
            && !self.advice_label.is_match(label)
            && !self.hedged_label.is_match(label)
            && !self.purpose.is_match(label)
            && (self.live_label.is_match(label) || self.list_label.is_match(label))
    }

    /// "Running containers: a, b and c", "Kernel: 6.8.12-4-pve".
    pub(super) fn labelled(&self, sentence: &str) -> Option<ClaimKind> {
        let caps = self.label.captures(sentence)?;
        let label = caps.get(1)?.as_str().trim();
        let value = caps.get(2)?.as_str().trim();
        if label.split_whitespace().count() > 5
            || self.advice_label.is_match(label)
            || self.hedged_label.is_match(label)
            || self.purpose.is_match(label)
            || self.hedged_label.is_match(value)
        {
            return None;
        }
        if self.live_label.is_match(label) || self.list_label.is_match(label) {
            return Some(ClaimKind::LiveState);
        }
        self.label_value
            .is_match(value)
            .then_some(ClaimKind::LiveValue)
    }
}
