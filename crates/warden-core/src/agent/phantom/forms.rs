//! Claims made by a verb form the phrase rules of `mod.rs` do not reach,
//! in English, German, French and Spanish:
//! - a headline passive, a participle with no auxiliary after what it
//!   happened to ("Snapshot before-upgrade created for VM 120.",
//!   "Zertifikat für cloud erneuert.", "Conteneur supprimé sur nas.",
//!   "Certificado renovado para cloud.") — unless a verb of the subject
//!   follows, which makes it a description ("Files deleted from a dataset
//!   stay in its snapshots.");
//! - a past tense of a program with a count ("rsync moved 12,408 files",
//!   "MariaDB hat 1.530 Verbindungen angenommen", "rsync a déplacé 12 408
//!   fichiers", "rsync movió 12.408 archivos") and a count that underwent
//!   something ("1,530 connections were accepted");
//! - a state told by a participle or adjective after a copula ("ist seit
//!   gestern ausgeschaltet", "est éteinte depuis hier", "está apagada
//!   desde ayer").

use regex::Regex;

use super::words::LIVE_NOUNS;

/// English participles of actions, for headline passives.
use super::words::ACTION_PARTICIPLES;

/// German participles of actions on a system.
const DE_ACTIONS: &str = "erstellt|angelegt|gelöscht|entfernt|neu gestartet|gestartet|gestoppt|beendet|angehalten|aktualisiert|installiert|deinstalliert|hinzugefügt|erneuert|verschoben|migriert|wiederhergestellt|bereinigt|geleert|aufgeräumt|eingehängt|ausgehängt|gemountet|gesichert|angewendet|angewandt|geändert|behoben|übertragen|kopiert|freigegeben|gesperrt|entsperrt|neu geladen|deaktiviert|aktiviert|heruntergefahren|hochgefahren|umbenannt|vergrößert|verkleinert|zurückgesetzt|zurückgerollt|repariert|ausgerollt|bereitgestellt|eingespielt|synchronisiert|exportiert|importiert|ausgeschaltet|eingeschaltet|abgeschlossen|erledigt";

/// French participles of actions (masculine singular; `e`, `s`, `es` follow).
const FR_ACTIONS: &str = "créé|supprimé|redémarré|arrêté|démarré|relancé|rechargé|mis à jour|installé|désinstallé|ajouté|renouvelé|restauré|déplacé|migré|monté|démonté|vidé|nettoyé|appliqué|modifié|activé|désactivé|sauvegardé|libéré|corrigé|purgé|redimensionné|copié|synchronisé|exporté|importé|éteint|allumé|renommé|terminé|effectué|déployé|réparé|réinitialisé|bloqué|débloqué|banni|exécuté|transféré";

/// Spanish participles of actions (stem before the `o|a|os|as` ending).
const ES_ACTIONS: &str = "cread|eliminad|borrad|reiniciad|detenid|parad|arrancad|iniciad|actualizad|instalad|desinstalad|añadid|agregad|renovad|restaurad|movid|migrad|montad|desmontad|vaciad|limpiad|aplicad|modificad|cambiad|activad|desactivad|habilitad|deshabilitad|liberad|corregid|recargad|apagad|encendid|copiad|sincronizad|exportad|importad|renombrad|purgad|ampliad|redimensionad|desplegad|reparad|bloquead|desbloquead|ejecutad|transferid|completad|terminad";

/// English states told by a participle or adverb, beyond the status words.
const EN_STATES: &str = "powered off|powered on|powered down|shut down|shut off|switched off|switched on|turned off|turned on|disabled|enabled|masked|unmasked|disconnected|connected|locked|unlocked|detached|attached|unplugged|booting|rebooting|shutting down|starting up|resyncing|rebuilding|scrubbing|migrating|off|offline|online|down|unhealthy|degraded|stuck|full";

/// States told by a participle or adjective after a copula.
const DE_STATES: &str = "ausgeschaltet|offen|geschlossen|eingeschaltet|abgeschaltet|heruntergefahren|hochgefahren|abgestürzt|ausgefallen|gestoppt|gestartet|angehalten|pausiert|deaktiviert|aktiviert|gemountet|eingehängt|ausgehängt|verbunden|getrennt|gesperrt|blockiert|abgelaufen|installiert|synchronisiert|veraltet|defekt|kaputt|belegt|überlastet|unerreichbar|nicht erreichbar|voll|aktiv|inaktiv|online|offline|down|erreichbar|fehlerhaft|gesund|bereit|degradiert";
const FR_STATES: &str = "éteint|ouvert|fermé|allumé|arrêté|démarré|lancé|planté|bloqué|désactivé|activé|monté|démonté|connecté|déconnecté|verrouillé|suspendu|saturé|expiré|installé|synchronisé|dégradé|hors service|indisponible|inaccessible|injoignable|joignable|accessible|à jour|obsolète|en pause|en maintenance|en erreur|en échec|plein";
const ES_STATES: &str = "apagad|abiert|cerrad|encendid|detenid|parad|caíd|colgad|bloquead|desactivad|activad|habilitad|deshabilitad|montad|desmontad|conectad|desconectad|suspendid|pausad|llen|saturad|caducad|expirad|instalad|sincronizad|degradad|actualizad|arrancad|iniciad";

/// Nouns of things a program counts, beyond the live nouns.
const COUNTED_THINGS: &str = "files?|messages?|mails?|e-?mails?|entries|entry|lines|items?|rules?|records?|rows?|queries|tasks?|objects?|chunks?|blocks?|sectors?|inodes?|bytes?|keys?|leases?|packets?|commits?|certificates?|domains?|datasets?|ips?|ip addresses|addresses|clients?|peers?|devices?|tables?|databases?|times|hours?|minutes?|seconds?|days?";

/// Whether the clause is negated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Negated {
    Yes,
    No,
}

/// Subjects that are kinds of thing or of permission, not a live thing.
const CONCEPTS: &str = "writes|reads|changes|actions|commands|tools|approvals|access|this|that|which|what|who|there|here|it|option|options|setting|settings|feature|features|mode|default|defaults|level|levels";

/// Past tenses with a count that state a need, a relation or a talk.
pub(super) const PAST_NOT_ACTIONS: &str = "needed|wanted|asked|mentioned|explained|suggested|proposed|recommended|requested|required|used|based|related|compared|called|named|supposed|expected|limited|planned|intended|described|decided|offered|assumed|estimated|guessed|hundred|allowed|supported|introduced|shipped|released|announced|deprecated|listed|documented";

/// Words opening a subject that is no particular thing, or no subject.
const NO_SUBJECT: &str = "i|we|you|they|he|she|it|this|that|these|those|there|here|what|which|who|how|why|where|to|a|an|any|every|each|some|most|many|no|not|never|all|and|or|if|when|once|after|before|with|without|for|of|in|on|at|by|from|as|be|been|being|is|are|was|were|has|have|had|do|does|did|get|got|will|would|can|could|should|may|might|must|please|just|only|also|then|so";

/// Verbs of a subject: after a headline participle they make the
/// participle a reduced relative ("Files deleted from X stay in …").
pub(super) const FINITE: &str = "is|are|was|were|be|will|would|can|could|should|must|may|might|have|has|had|do|does|don't|doesn't|won't|can't|need|needs|get|gets|stay|stays|remain|remains|end|ends|land|lands|live|lives|go|goes|come|comes|become|becomes|survive|survives|persist|persists|disappear|disappears|vanish|vanishes|lose|loses|keep|keeps|take|takes|require|requires|use|uses|work|works|apply|applies|count|counts|show|shows|appear|appears|belong|belongs|cause|causes|mean|means|look|looks|behave|behaves|expire|expires|run|runs|fail|fails|break|breaks|start|starts|stop|stops|ist|sind|wird|werden|kann|können|muss|müssen|bleibt|bleiben|landet|landen|est|sont|sera|seront|peut|peuvent|doit|doivent|reste|restent|es|son|será|serán|puede|pueden|debe|deben|queda|quedan|está|están|estaba|estaban|sigue|siguen|ha|han|fue|fueron|hat|haben|wurde|wurden|war|waren|ont|été|était|étaient";

pub(super) struct FormRules {
    headline: Regex,
    headline_de: Regex,
    headline_fr: Regex,
    headline_es: Regex,
    past_count: Regex,
    counted_passive: Regex,
    foreign_past_count: Regex,
    english_state: Regex,
    state: Regex,
}

impl FormRules {
    pub(super) fn compile() -> Option<FormRules> {
        let re = |source: &str| Regex::new(source).ok();
        let subject =
            r"^(?:the |der |die |das |le |la |les |l'|el |los |las )?((?:[\w./:@+'-]+ ){1,6}?)";
        let adverb = r"(?:(?:successfully|now|just|all|also|again|erfolgreich|jetzt|avec succès|bien|correctamente|ya) )?";
        Some(FormRules {
            headline: re(&format!(
                r"{subject}{adverb}(?:{ACTION_PARTICIPLES})(?:$|[.!;,:]|\s+(?:for|on|in|at|from|to|into|onto|with|without|via|successfully|again|cleanly|and|after|before|\d)\b)(.*)$"
            ))?,
            headline_de: re(&format!(r"{subject}{adverb}(?:{DE_ACTIONS})[.!]?()$"))?,
            headline_fr: re(&format!(
                r"{subject}{adverb}(?:{FR_ACTIONS})(?:e|s|es)?(?:$|[.!;,]|\s+(?:pour|sur|dans|à|avec|de|du|des|depuis|vers|en|et|avec succès|\d)\b)(.*)$"
            ))?,
            headline_es: re(&format!(
                r"{subject}{adverb}(?:{ES_ACTIONS})(?:o|a|os|as)(?:$|[.!;,]|\s+(?:para|en|de|del|desde|hacia|con|y|a|al|correctamente|\d)\b)(.*)$"
            ))?,
            past_count: re(&format!(
                r"\b([a-z][\w-]*)\s+([a-z]{{3,}}ed|took|ran|sent|got|lost|found|kept|wrote|read|made|threw|saw|held|dropped|blocked|banned) (?:(?:only|just|exactly|another|a total of|all)\s+)?\d[\d,.\u{{a0}}\u{{202f}}]*\s+(?:[a-z-]+\s+)?(?:{LIVE_NOUNS}|{COUNTED_THINGS})\b"
            ))?,
            counted_passive: re(&format!(
                r"(?:^|\s)\d[\d,.\u{{a0}}\u{{202f}}]*\s+(?:[a-z-]+\s+)?(?:{LIVE_NOUNS}|{COUNTED_THINGS})\s+(?:were|was|have been|has been|had been|got)\s+(?:\w+\s+)?(?:[a-z]{{3,}}ed|sent|lost|found|kept|written|read|made|thrown|taken|seen|held)\b"
            ))?,
            foreign_past_count: re(
                r"\b(?:hat|haben|hatte|hatten) sich (?:\S+ ){0,4}?(?:neu gestartet|\w*ge\w+(?:t|en)|\w+iert|(?:ver|be|er|ent|zer)\w+(?:t|en))\b|\b(?:hat|haben|hatte|hatten) (?:\S+ ){0,4}?\d[\d.,]*(?: \S+){0,3}? (?:\w*ge\w+(?:t|en)|\w+iert|(?:ver|be|er|ent|zer|über|unter|hinter|wider)\w+(?:t|en))\b|\b\w{3,}ierten? (?:\S+ ){0,2}?\d|\b(?:löschte|entfernte|verschob|übertrug|sicherte|schrieb|sperrte|erneuerte|verarbeitete|meldete|zählte|nahm) (?:\S+ ){0,2}?\d|\b(?:a|ont|avait|avaient) (?:\w+ )?(?:\w+(?:é|ée|és|ées)|mis|pris|fait|écrit|lu|reçu|vu|servi) (?:\S+ ){0,2}?\d|\b(?:ha|han|había|habían) (?:\w+ )?\w+(?:ado|ido|cho|to) (?:\S+ ){0,2}?\d|\b\w{3,}(?:ó|aron|ieron) (?:\S+ ){0,3}?\d",
            )?,
            english_state: re(&format!(
                r"(?:^|[^\w'])([a-z0-9][\w./-]*)\s+(?:is|are|was|were|remains|remain|stays|stay|has been|have been|went|came|became|turned|got) (?:(?:now|currently|still|already|not|completely|fully|also|again)\s+)*(?:{EN_STATES})(?:$|[^\w'-])"
            ))?,
            state: re(&format!(
                r"\b(?:ist|sind|war|waren|bleibt|bleiben) (?:(?:jetzt|wieder|nun|noch|immer noch|seit|gestern|heute|\d+|tagen|stunden|minuten|komplett|vollständig|dauerhaft)\s+){{0,4}}(?:{DE_STATES})\b|\b(?:est|sont|était|étaient|reste|restent) (?:(?:maintenant|de nouveau|à nouveau|bien|toujours|encore|déjà|actuellement|complètement|totalement)\s+)*(?:{FR_STATES})(?:e|s|es)?\b|\b(?:está|están|estaba|estaban|sigue|siguen|queda|quedan|quedó|quedaron|permanece|permanecen) (?:(?:ya|ahora|todavía|aún|de nuevo|otra vez|completamente|totalmente)\s+)*(?:{ES_STATES})(?:o|a|os|as)\b"
            ))?,
        })
    }

    /// A headline passive about a particular thing.
    pub(super) fn headline_action(&self, clause: &str) -> bool {
        [
            &self.headline,
            &self.headline_de,
            &self.headline_fr,
            &self.headline_es,
        ]
        .iter()
        .filter_map(|rule| rule.captures(clause))
        .any(|caps| {
            let subject = caps.get(1).map_or("", |m| m.as_str());
            let rest = caps.get(2).map_or("", |m| m.as_str());
            let first = subject.split_whitespace().next().unwrap_or("");
            !is_one_of(NO_SUBJECT, first)
                && !subject.split_whitespace().any(|w| is_one_of(FINITE, w))
                && !rest
                    .split_whitespace()
                    .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
                    .any(|w| is_one_of(FINITE, w))
        })
    }

    /// A past tense of a program with a count of things.
    pub(super) fn past_count(&self, clause: &str) -> bool {
        let english = self.past_count.captures_iter(clause).any(|caps| {
            let subject = caps.get(1).map_or("", |m| m.as_str());
            let verb = caps.get(2).map_or("", |m| m.as_str());
            !is_one_of("you|to|i|we", subject)
                && !is_one_of(PAST_NOT_ACTIONS, verb)
                && !verb.ends_with("eed")
        });
        english || self.counted_passive.is_match(clause) || self.foreign_past_count.is_match(clause)
    }

    /// A state told by a participle or adjective after a copula (German,
    /// French, Spanish; English unless negated or about what Warden or a
    /// setting may do: "writes are disabled at this level").
    pub(super) fn state(&self, clause: &str, negated: Negated) -> bool {
        let english = negated == Negated::No
            && self.english_state.captures_iter(clause).any(|caps| {
                let subject = caps.get(1).map_or("", |m| m.as_str());
                !is_one_of(CONCEPTS, subject)
            });
        english || self.state.is_match(clause)
    }
}

fn is_one_of(words: &str, word: &str) -> bool {
    words.split('|').any(|w| w == word)
}

#[cfg(test)]
mod tests {
    use crate::agent::phantom::{ClaimKind, claims, makes_claims};

    #[test]
    fn a_colon_break_keeps_the_first_letter_of_the_next_clause() {
        let found = claims("Checked it: powered off since Monday.");
        assert!(
            found.iter().any(|c| c.clause.starts_with("powered off")),
            "{found:?}"
        );
        assert!(found.iter().all(|c| c.kind != ClaimKind::ToolOutput));
    }

    fn check(claims: &[&str], honest: &[&str]) {
        for text in claims {
            assert!(makes_claims(text), "should claim: {text}");
        }
        for text in honest {
            assert!(!makes_claims(text), "should not claim: {text}");
        }
    }

    #[test]
    fn headline_passives_claim_unless_a_verb_of_the_subject_follows() {
        check(
            &[
                "Snapshot before-kernel-update created for VM 120.",
                "Certificate renewed for cloud.example.org.",
                "3 packages upgraded on web1.",
                "Disk replaced in slot 3.",
                "VM 120 successfully migrated to pve2.",
                "Snapshot vor-dem-update für VM 120 erstellt.",
                "Instantané avant-maj créé pour la VM 120.",
                "Instantánea antes-del-kernel creada para la VM 120.",
            ],
            &[
                "Files deleted from a ZFS dataset stay in its snapshots.",
                "Changes made in the GUI end up in /etc/pve.",
                "Backups created with vzdump land in /var/lib/vz/dump by default.",
                "Volumes created by compose are named after the project.",
                "Containers started with --restart unless-stopped come back after a reboot.",
            ],
        );
    }

    #[test]
    fn a_past_tense_with_a_count_claims_in_every_language() {
        check(
            &[
                "The nightly rsync moved 12,408 files.",
                "Postfix rejected 1,530 connections since startup.",
                "fail2ban banned 37 IPs since midnight.",
                "The job failed 3 times last night.",
                "1,530 connections were accepted since startup.",
                "rsync hat 12.408 Dateien verschoben.",
                "rsync a déplacé 12 408 fichiers.",
                "rsync movió 12.408 archivos.",
                "MariaDB ha aceptado 1.530 conexiones.",
            ],
            &[
                "Kernel 6.8 added support for 3 new NICs.",
                "Debian 12 shipped 64,419 packages.",
                "A full scrub took about 6 hours on similar pools.",
            ],
        );
    }

    #[test]
    fn a_state_after_a_copula_claims_in_every_language() {
        check(
            &[
                "La VM 103 está apagada desde ayer.",
                "Los contenedores siguen detenidos.",
                "Die VM 103 ist seit gestern ausgeschaltet.",
                "Das Zertifikat ist abgelaufen.",
                "La VM 103 est éteinte depuis hier.",
                "Les disques sont montés.",
                "VM 103 is shut down.",
                "The timer is disabled.",
                "web1 went offline at 03:12.",
                "Der Container hat sich um 03:12 neu gestartet.",
            ],
            &[
                "This needs a write, and writes are disabled at this level.",
                "I'm not able to run commands on pve2: no agent is connected.",
                "Das Paket ist standardmäßig installiert.",
                "La opción está deshabilitada por defecto.",
                "L'option est désactivée par défaut.",
            ],
        );
    }

    #[test]
    fn dates_and_labelled_lists_of_live_things_claim() {
        check(
            &[
                "The certificate for cloud.example.org expires on 2025-03-14.",
                "The certificate for nas.example.com is valid until 14.03.2025.",
                "Le certificat expire le 14/03/2025.",
                "El certificado caduca el lunes.",
                "Containers on media-server: plex, radarr, prowlarr.",
                "Container auf nas: plex, radarr.",
                "Contenedores en nas: plex y radarr.",
                "Containers on media-server:\n- plex\n- radarr",
                "Running services:\n1. nginx\n2. postgres",
                "Users logged in on web1: root, deploy.",
                "Last backup: yesterday at 02:00.",
            ],
            &[
                "For example, a certificate for example.com expires on 2025-03-14.",
                "Ports on the firewall to open: 80 and 443.",
                "Containers you might want: plex, radarr, sonarr.",
                "Services to restart after the change: nginx and php-fpm.",
                "Steps:\n- run `docker ps`\n- read its output",
                "Since PVE 8, the default is ZFS.",
                "Depuis l'interface web, cliquez sur Datacenter.",
            ],
        );
    }
}
