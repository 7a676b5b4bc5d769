//! Pending package updates in words, from the output of the command in
//! `routes/facts.rs`: its first line (`@@warden:apt`, `dnf`, `yum`, `apk`
//! or `no-package-manager`) names the package manager. Only the local
//! package lists are read (`apt list`, `dnf -C`, `apk list`): refreshing
//! them is a write, so the answer says how fresh they are.

use warden_protocol::Resource;

use super::format::{block, clip_lines, named};

const SHOWN: usize = 30;

/// One upgradable package.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Upgrade {
    name: String,
    version: String,
    security: bool,
}

fn parse_apt(lines: &[&str]) -> Vec<Upgrade> {
    // "openssl/stable-security 3.0.15-1~deb12u1 amd64 [upgradable from: 3.0.14-1~deb12u2]"
    lines
        .iter()
        .filter(|l| l.contains("[upgradable from"))
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (name, origin) = f.next()?.split_once('/')?;
            Some(Upgrade {
                name: name.to_string(),
                version: f.next()?.to_string(),
                security: origin.contains("security"),
            })
        })
        .collect()
}

fn parse_dnf(lines: &[&str]) -> Vec<Upgrade> {
    // "openssl.x86_64   1:3.0.7-27.el9   baseos"; stops at "Obsoleting Packages".
    lines
        .iter()
        .take_while(|l| !l.starts_with("Obsoleting"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let [package, version, repo] = f.as_slice() else {
                return None;
            };
            let (name, _arch) = package.rsplit_once('.')?;
            Some(Upgrade {
                name: name.to_string(),
                version: version.to_string(),
                security: repo.contains("security"),
            })
        })
        .collect()
}

fn parse_apk(lines: &[&str]) -> Vec<Upgrade> {
    // "busybox-1.36.1-r29 x86_64 {busybox} (GPL-2.0-only) [upgradable from: busybox-1.36.1-r28]"
    lines
        .iter()
        .filter(|l| l.contains("[upgradable from"))
        .filter_map(|l| {
            let package = l.split_whitespace().next()?;
            // name-version-release: the version starts at the last-but-one '-'.
            let mut parts = package.rsplitn(3, '-');
            let release = parts.next()?;
            let version = parts.next()?;
            let name = parts.next()?;
            Some(Upgrade {
                name: name.to_string(),
                version: format!("{version}-{release}"),
                security: false,
            })
        })
        .collect()
}

pub fn answer(host: &Resource, stdout: &str) -> String {
    let mut lines = stdout.lines();
    let manager = lines
        .by_ref()
        .find_map(|l| l.trim().strip_prefix("@@warden:"))
        .unwrap_or_default()
        .to_string();
    let rest: Vec<&str> = lines.collect();
    let (upgrades, freshness) = match manager.as_str() {
        "apt" => (
            parse_apt(&rest),
            "the package lists as of the last `apt update`",
        ),
        "dnf" | "yum" => (parse_dnf(&rest), "the cached repository metadata"),
        "apk" => (
            parse_apk(&rest),
            "the package index as of the last `apk update`",
        ),
        "no-package-manager" => {
            return format!(
                "{} has none of apt, dnf, yum or apk, so I cannot tell which updates are pending.",
                named(host)
            );
        }
        _ => {
            return format!(
                "The update check on {} printed nothing I could read:\n{}",
                named(host),
                block(&clip_lines(stdout, 10))
            );
        }
    };
    if upgrades.is_empty() {
        return format!(
            "No pending updates on {} ({manager}, from {freshness}; I do not refresh them, that is a write).",
            named(host)
        );
    }
    let security = upgrades.iter().filter(|u| u.security).count();
    let security_note = if security > 0 {
        format!(", {security} from security repositories")
    } else {
        String::new()
    };
    let mut out = vec![format!(
        "{} pending update{} on {}{security_note} ({manager}, from {freshness}):",
        upgrades.len(),
        if upgrades.len() == 1 { "" } else { "s" },
        named(host)
    )];
    let mut sorted = upgrades.clone();
    // Security updates first, then by name.
    sorted.sort_by(|a, b| b.security.cmp(&a.security).then(a.name.cmp(&b.name)));
    for u in sorted.iter().take(SHOWN) {
        let mark = if u.security { "  (security)" } else { "" };
        out.push(format!("  {} {}{mark}", u.name, u.version));
    }
    if sorted.len() > SHOWN {
        out.push(format!("  … and {} more", sorted.len() - SHOWN));
    }
    out.join("\n")
}
