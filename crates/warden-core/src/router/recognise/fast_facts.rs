//! Fast paths for host facts (top processes, ports, sessions, kernel,
//! updates, failed units), host-wide errors, certificate expiry and "why
//! did X exit". Same rules as `fast`: anchored, lowercase, and a tail that
//! is not understood fails the match.

use super::endpoint::Endpoint;
use super::fast::{KIND, LEAD, NAME, Pattern, each, name, names, on, typed};
use super::intent::{Fact, Intent, ProcessOrder, Subject, SubjectKind};
use super::modifiers::{self, Modifier};

const HOSTPORT: &str = r"((?:https://)?(?:\[[0-9a-f:]+\]|[a-z0-9][a-z0-9.\-]*)(?::[0-9]{1,5})?/?)";
const CERT: &str = r"(?:(?:tls|ssl|https|x509)[ \t]+)?(?:cert|certificate|certs)";
const FROM: &str = r"(?:[ \t]+from[ \t]+(@?[a-z0-9_][a-z0-9_.\-:]*))?";
const ON_HOST: &str = r"(?:[ \t]+(?:on|at)[ \t]+(@?[a-z0-9_][a-z0-9_.\-:]*))?";
const RESOURCE: &str = r"(cpu|memory|mem|ram)";

static TOP: Pattern = Pattern::new("top_processes", || {
    let on = on();
    format!(
        r"^{LEAD}(?:the[ \t]+)?(?:(?:top|biggest|heaviest|largest|hungriest)(?:[ \t]+[0-9]+)?[ \t]+)?(?:{RESOURCE}[ \t]+)?(?:processes|procs|process|consumers|hogs)(?:[ \t]+(?:by|using|for|sorted[ \t]+by|ordered[ \t]+by)[ \t]+{RESOURCE}(?:[ \t]+usage)?)?{on}$"
    )
});

static TOP_MOST: Pattern = Pattern::new("top_processes_most", || {
    format!(
        r"^(?:what(?:'s|s| is)|which[ \t]+process(?:es)?[ \t]+(?:is|are)|who(?:'s|s| is))[ \t]+(?:using|eating|hogging|consuming|taking|burning|chewing)[ \t]+(?:up[ \t]+)?(?:the[ \t]+)?(?:most|all[ \t]+the|so[ \t]+much|(?:all[ \t]+)?my)[ \t]+{RESOURCE}{ON_HOST}$"
    )
});

static PORTS: Pattern = Pattern::new("open_ports", || {
    let on = on();
    format!(
        r"^{LEAD}(?:all[ \t]+)?(?:the[ \t]+)?(?:(?:open|listening|used|bound)[ \t]+)?(?:(?:tcp|udp|network)[ \t]+)?(?:ports|sockets){on}$"
    )
});

static PORTS_WHICH: Pattern = Pattern::new("open_ports_which", || {
    format!(
        r"^(?:which|what)[ \t]+ports[ \t]+(?:are[ \t]+)?(?:open|listening|in[ \t]+use|used|bound){ON_HOST}$"
    )
});

static PORT_ONE: Pattern = Pattern::new("port_listener", || {
    format!(
        r"^(?:what(?:'s|s| is)|who(?:'s|s| is)|which[ \t]+process(?:es)?[ \t]+(?:is|are)|is[ \t]+anything)[ \t]+(?:listening|bound|running)[ \t]+(?:on|to)[ \t]+port[ \t]+([0-9]{{1,5}}){ON_HOST}$"
    )
});

static SESSIONS: Pattern = Pattern::new("logged_in", || {
    format!(
        r"^(?:who(?:'s|s| is| are)[ \t]+(?:logged[ \t]+(?:in|on)|online|connected)|(?:list[ \t]+|show[ \t]+)?(?:the[ \t]+)?(?:logged[ \t]+in|active|current)[ \t]+(?:users|sessions)|(?:list[ \t]+|show[ \t]+)?users[ \t]+(?:logged[ \t]+in|online)|(?:is[ \t]+)?any(?:one|body)[ \t]+logged[ \t]+in)(?:[ \t]+(?:on|at|to|into)[ \t]+({NAME}))?$"
    )
});

static SESSIONS_ON: Pattern = Pattern::new("logged_in_on", || {
    format!(r"^who(?:'s|s| is)[ \t]+(?:on|logged[ \t]+into)[ \t]+({NAME})$")
});

static KERNEL: Pattern = Pattern::new("kernel", || {
    let on = on();
    format!(
        r"^{LEAD}(?:the[ \t]+)?(?:kernel|linux|os|operating[ \t]+system|distro|distribution)(?:[ \t]+(?:version|release|info|information))?{on}$"
    )
});

static KERNEL_WHICH: Pattern = Pattern::new("kernel_which", || {
    format!(
        r"^(?:which|what)[ \t]+(?:kernel|os|linux|distro|distribution)(?:[ \t]+version)?(?:[ \t]+(?:is|does)[ \t]+(?:({NAME})[ \t]+)?(?:running|run|using|use|have|on)|[ \t]+is[ \t]+(?:it|this))?{ON_HOST}$"
    )
});

static UPDATES: Pattern = Pattern::new("updates", || {
    let on = on();
    format!(
        r"^(?:(?:are[ \t]+there|list|show|check(?:[ \t]+for)?|get|what(?:'s|s| is| are))[ \t]+)?(?:any[ \t]+)?(?:the[ \t]+)?(?:(?:pending|available|outstanding|new)[ \t]+)?(?:(?:package|security|system|apt|os)[ \t]+)?(?:updates|upgrades|upgradable[ \t]+packages|upgradeable[ \t]+packages)(?:[ \t]+(?:pending|available|to[ \t]+install|waiting))?{on}$"
    )
});

static UPDATES_NEED: Pattern = Pattern::new("updates_needed", || {
    format!(
        r"^(?:(?:what|which)[ \t]+(?:packages[ \t]+)?(?:needs?|can[ \t]+be)[ \t]+(?:updating|upgrading|updated|upgraded){ON_HOST}|is[ \t]+({NAME})[ \t]+up[ \t]+to[ \t]+date)$"
    )
});

static FAILED: Pattern = Pattern::new("failed_units", || {
    let on = on();
    format!(
        r"^(?:(?:are[ \t]+there|list|show|check|get|what(?:'s|s| is| are))[ \t]+)?(?:any[ \t]+|all[ \t]+)?(?:the[ \t]+)?(?:failed|failing|broken|crashed)[ \t]+(?:systemd[ \t]+)?(?:units|services|daemons|jobs){on}$"
    )
});

static FAILED_WHICH: Pattern = Pattern::new("failed_units_which", || {
    format!(
        r"^(?:which|what)[ \t]+(?:units|services)[ \t]+(?:have[ \t]+)?(?:failed|are[ \t]+failing|are[ \t]+failed|crashed){ON_HOST}$"
    )
});

static ERRORS: Pattern = Pattern::new("errors", || {
    format!(
        r"^{LEAD}(?:(?:were|are)[ \t]+there[ \t]+)?(?:any[ \t]+|recent[ \t]+|latest[ \t]+|new[ \t]+|all[ \t]+)?(?:the[ \t]+)?(?:errors?|error[ \t]+messages|error[ \t]+logs?|problems)((?:[ \t].*)?)$"
    )
});

static CERT_OF: Pattern = Pattern::new("certificate_of", || {
    format!(
        r"^{LEAD}(?:the[ \t]+)?{CERT}(?:[ \t]+(?:expiry|expiration|expiration[ \t]+date|expiry[ \t]+date|end[ \t]+date|validity|dates?|status))?[ \t]+(?:of|for|on|at)[ \t]+{HOSTPORT}{FROM}$"
    )
});

static CERT_WHEN: Pattern = Pattern::new("certificate_when", || {
    format!(
        r"^(?:when[ \t]+(?:does|will)|(?:is|does))[ \t]+(?:the[ \t]+)?{CERT}[ \t]+(?:of|for|on|at)[ \t]+{HOSTPORT}[ \t]+(?:expire|expiring|valid|about[ \t]+to[ \t]+expire)(?:[ \t]+soon)?{FROM}$"
    )
});

static CERT_SUFFIX: Pattern = Pattern::new("certificate_suffix", || {
    format!(
        r"^(?:check[ \t]+|show[ \t]+)?(?:when[ \t]+does[ \t]+)?{HOSTPORT}(?:'s)?[ \t]+{CERT}(?:[ \t]+(?:expiry|expiration|validity|dates?|status|expire))?{FROM}$"
    )
});

static WHY_EXIT: Pattern = Pattern::new("why_exit", || {
    let names = names();
    format!(
        r"^(?:why|how|when)[ \t]+(?:did|has|does|is|was|do|have|are|were)[ \t]+(?:the[ \t]+)?({names})(?:[ \t]+{KIND})?[ \t]+(?:exit|exited|exiting|stop|stopped|die|died|dying|crash|crashed|crashing|fail|failed|failing|quit|restart|restarted|restarting|keep[ \t]+restarting|keeps[ \t]+restarting|go[ \t]+down|went[ \t]+down|gone[ \t]+down|dead|down|oom|get[ \t]+killed|killed|get[ \t]+oom[ \t]+killed)(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static EXIT_CODE: Pattern = Pattern::new("exit_code", || {
    let names = names();
    format!(
        r"^(?:(?:what(?:'s|s| is| was)|show|get)[ \t]+)?(?:the[ \t]+)?(?:last[ \t]+)?exit[ \t]+(?:code|status|reason)[ \t]+(?:of|for)[ \t]+(?:the[ \t]+)?({names})(?:[ \t]+{KIND})?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

static WHAT_KILLED: Pattern = Pattern::new("what_killed", || {
    let names = names();
    format!(
        r"^what[ \t]+(?:killed|happened[ \t]+to|stopped|crashed)[ \t]+(?:the[ \t]+)?({names})(?:[ \t]+{KIND})?(?:[ \t]+(?:on|at)[ \t]+({NAME}))?$"
    )
});

fn order(word: Option<regex_lite::Match<'_>>) -> ProcessOrder {
    match word.map(|m| m.as_str()) {
        Some("memory" | "mem" | "ram") => ProcessOrder::Memory,
        _ => ProcessOrder::Cpu,
    }
}

fn fact(pattern: &Pattern, fact: Fact, on: Option<String>) -> Option<(&'static str, Intent)> {
    Some((pattern.name, Intent::Fact { fact, on }))
}

pub fn match_facts(original: &str, lower: &str) -> Option<(&'static str, Intent)> {
    if let Some(c) = TOP.captures(lower) {
        let by = order(c.get(1).or(c.get(2)));
        return fact(&TOP, Fact::TopProcesses(by), name(c.get(3)));
    }
    if let Some(c) = TOP_MOST.captures(lower) {
        return fact(
            &TOP_MOST,
            Fact::TopProcesses(order(c.get(1))),
            name(c.get(2)),
        );
    }
    if let Some(c) = PORT_ONE.captures(lower) {
        let port = c[1].parse().ok().filter(|p| *p > 0)?;
        return fact(&PORT_ONE, Fact::Ports { port: Some(port) }, name(c.get(2)));
    }
    for pattern in [&PORTS, &PORTS_WHICH] {
        if let Some(c) = pattern.captures(lower) {
            return fact(pattern, Fact::Ports { port: None }, name(c.get(1)));
        }
    }
    for pattern in [&SESSIONS, &SESSIONS_ON] {
        if let Some(c) = pattern.captures(lower) {
            return fact(pattern, Fact::Sessions, name(c.get(1)));
        }
    }
    if let Some(c) = KERNEL.captures(lower) {
        return fact(&KERNEL, Fact::Kernel, name(c.get(1)));
    }
    if let Some(c) = KERNEL_WHICH.captures(lower) {
        return fact(&KERNEL_WHICH, Fact::Kernel, name(c.get(1).or(c.get(2))));
    }
    for pattern in [&UPDATES, &UPDATES_NEED] {
        if let Some(c) = pattern.captures(lower) {
            return fact(pattern, Fact::Updates, name(c.get(1).or(c.get(2))));
        }
    }
    for pattern in [&FAILED, &FAILED_WHICH] {
        if let Some(c) = pattern.captures(lower) {
            return fact(pattern, Fact::FailedUnits, name(c.get(1)));
        }
    }
    if let Some(c) = ERRORS.captures(lower) {
        let text = c.get(1).map_or("", |m| typed(original, lower, m));
        if let Some(tail) = modifiers::parse(text, &[Modifier::Host, Modifier::Since]) {
            let intent = Intent::Errors {
                since: tail.since,
                on: tail.on,
            };
            return Some((ERRORS.name, intent));
        }
    }
    for pattern in [&CERT_OF, &CERT_WHEN, &CERT_SUFFIX] {
        if let Some(c) = pattern.captures(lower) {
            if let Some(endpoint) = Endpoint::parse(&c[1]) {
                let on = name(c.get(2));
                return Some((pattern.name, Intent::Certificate { endpoint, on }));
            }
        }
    }
    for pattern in [&WHY_EXIT, &EXIT_CODE, &WHAT_KILLED] {
        if let Some(c) = pattern.captures(lower) {
            let said = c.get(2).and_then(|m| SubjectKind::parse(m.as_str()));
            let on = name(c.get(3));
            let intent = each(&c[1], |n| {
                Intent::WhyExit(Subject::new(n, on.clone(), said))
            });
            return Some((pattern.name, intent));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for pattern in [
            &TOP,
            &TOP_MOST,
            &PORTS,
            &PORTS_WHICH,
            &PORT_ONE,
            &SESSIONS,
            &SESSIONS_ON,
            &KERNEL,
            &KERNEL_WHICH,
            &UPDATES,
            &UPDATES_NEED,
            &FAILED,
            &FAILED_WHICH,
            &ERRORS,
            &CERT_OF,
            &CERT_WHEN,
            &CERT_SUFFIX,
            &WHY_EXIT,
            &EXIT_CODE,
            &WHAT_KILLED,
        ] {
            let source = (pattern.source)();
            assert!(
                regex_lite::Regex::new(&source).is_ok(),
                "{}: {source}",
                pattern.name
            );
        }
    }
}
