//! DevOps tools: terraform/tofu, vault, consul, nomad, packer, ansible,
//! tailscale, cloudflared. Allowlists of read-only subcommands.

use crate::commands::common::stream;
use crate::invocation::Invocation;
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// The words that are not options (`-flag` or `--flag`, `=value` glued).
fn words<'i>(inv: &Invocation<'i, '_>) -> Vec<&'i str> {
    inv.args
        .iter()
        .map(|a| &*a.text)
        .filter(|a| !a.starts_with('-'))
        .collect()
}

/// `(subcommand, read-only sub-subcommands)`: an empty list means the
/// subcommand itself reads.
type Table = &'static [(&'static str, &'static [&'static str])];

/// Looks `words` up in `table`; writes and unknowns get `risk`.
fn lookup(words: &[&str], table: Table, risk: Risk) -> Verdict {
    let Some(&sub) = words.first() else {
        return Verdict::unknown("no subcommand");
    };
    match table.iter().find(|(name, _)| *name == sub) {
        Some((_, [])) => Verdict::Read,
        Some((_, reads)) => match words.get(1) {
            Some(next) if reads.contains(next) => Verdict::Read,
            Some(next) => {
                Verdict::write(risk, format!("`{sub} {next}` is not known to be read-only"))
            }
            None => Verdict::unknown(format!("`{sub}` without a subcommand")),
        },
        None => Verdict::write(
            risk,
            format!("subcommand `{sub}` is not known to be read-only"),
        ),
    }
}

pub(super) fn terraform(inv: &Invocation<'_, '_>) -> Verdict {
    let mut i = 0;
    while let Some(text) = inv.arg(i) {
        match text {
            "-version" | "--version" | "-v" | "-help" | "--help" | "-h" => return Verdict::Read,
            _ if text.starts_with("-chdir=") => i += 1,
            _ => break,
        }
    }
    let rest = inv.from(i);
    let w = words(&rest);
    let has = |flag: &str| rest.args.iter().any(|a| a.as_str() == flag);
    match w.as_slice() {
        [] => Verdict::unknown("no subcommand"),
        [
            "show" | "version" | "validate" | "output" | "graph" | "modules",
            ..,
        ]
        | ["providers"]
        | ["providers", "schema", ..]
        | ["state", "list" | "show" | "pull", ..]
        | ["workspace", "list" | "show", ..]
        | ["metadata", "functions", ..] => Verdict::Read,
        ["fmt", ..] if has("-check") || has("-check=true") || has("--check") => Verdict::Read,
        ["fmt", ..] => Verdict::write(Risk::LowWrite, "`fmt` rewrites files"),
        ["console", ..] => Verdict::interactive(
            InteractiveCategory::InteractiveRepl,
            "`console` waits for expressions",
        ),
        ["plan", ..] if rest.args.iter().any(|a| a.as_str().starts_with("-out")) => {
            Verdict::write(Risk::LowWrite, "`-out` writes a plan file")
        }
        ["plan", ..] => Verdict::unknown("`plan` refreshes state and takes the state lock"),
        [
            "apply" | "destroy" | "import" | "taint" | "untaint" | "refresh" | "state",
            ..,
        ] => Verdict::write(Risk::HighWrite, "changes infrastructure or its state"),
        ["init" | "get" | "login" | "logout" | "providers", ..] => {
            Verdict::write(Risk::LowWrite, "downloads or writes files")
        }
        [sub, ..] => Verdict::write(
            Risk::MediumWrite,
            format!("subcommand `{sub}` is not known to be read-only"),
        ),
    }
}

const VAULT: Table = &[
    ("status", &[]),
    ("version", &[]),
    ("read", &[]),
    ("list", &[]),
    ("print", &[]),
    ("path-help", &[]),
    ("kv", &["get", "list", "metadata"]),
    ("token", &["lookup", "capabilities"]),
    ("secrets", &["list"]),
    ("auth", &["list", "help"]),
    ("policy", &["list", "read"]),
    ("audit", &["list"]),
    ("lease", &["lookup"]),
    ("namespace", &["list", "lookup"]),
    ("plugin", &["list", "info"]),
    (
        "pki",
        &["health-check", "list-intermediates", "verify-sign"],
    ),
    ("operator", &["members", "key-status", "usage", "raft"]),
];

pub(super) fn vault(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["-version", "--version", "-h", "-help", "--help"]) {
        return Verdict::Read;
    }
    let w = words(inv);
    match w.as_slice() {
        ["monitor", ..] | ["events", "subscribe", ..] => {
            return stream("prints events until interrupted");
        }
        ["kv", "metadata", next, ..] if *next != "get" => {
            return Verdict::write(Risk::MediumWrite, "`kv metadata` changes metadata");
        }
        ["operator", "raft", next, ..] if !matches!(*next, "list-peers" | "autopilot") => {
            return Verdict::write(Risk::HighWrite, "changes the raft cluster");
        }
        ["operator", "raft", "autopilot", next, ..]
            if *next != "state" && *next != "get-config" =>
        {
            return Verdict::write(Risk::MediumWrite, "changes autopilot");
        }
        ["login", ..] => return Verdict::write(Risk::LowWrite, "`login` stores a token"),
        _ => {}
    }
    // Reading a dynamic secrets engine's `creds/` path creates credentials.
    // So does a GCP roleset's `key` path (a new service account key).
    if matches!(w.first(), Some(&"read"))
        && w.iter()
            .any(|p| p.contains("creds/") || p.ends_with("/key"))
    {
        return Verdict::write(Risk::LowWrite, "reading `creds/` generates new credentials");
    }
    lookup(&w, VAULT, Risk::MediumWrite)
}

const CONSUL: Table = &[
    ("members", &[]),
    ("info", &[]),
    ("version", &[]),
    ("rtt", &[]),
    ("validate", &[]),
    ("catalog", &["datacenters", "nodes", "services"]),
    ("kv", &["get", "export"]),
    ("intention", &["get", "list", "check", "match"]),
    ("config", &["read", "list"]),
    ("operator", &["raft", "autopilot", "usage"]),
    (
        "acl",
        &[
            "token",
            "policy",
            "role",
            "auth-method",
            "binding-rule",
            "templated-policy",
        ],
    ),
    ("peering", &["list", "read"]),
    ("partition", &["list", "read"]),
    ("namespace", &["list", "read"]),
    ("connect", &["ca"]),
    ("snapshot", &["inspect"]),
];

pub(super) fn consul(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["-version", "--version", "-h", "-help", "--help"]) {
        return Verdict::Read;
    }
    let w = words(inv);
    match w.as_slice() {
        ["monitor" | "watch", ..] => return stream("prints events until interrupted"),
        ["keyring", ..] if inv.has_word(&["-list"]) && w.len() == 1 => return Verdict::Read,
        ["operator", "raft", next, ..] if *next != "list-peers" => {
            return Verdict::write(Risk::HighWrite, "changes the raft cluster");
        }
        ["operator", "autopilot", next, ..] if !matches!(*next, "get-config" | "state") => {
            return Verdict::write(Risk::MediumWrite, "changes autopilot");
        }
        ["acl", _, next, ..] if !matches!(*next, "list" | "read") => {
            return Verdict::write(Risk::MediumWrite, "changes ACLs");
        }
        ["acl", _] => return Verdict::unknown("`acl` without an action"),
        ["connect", "ca", next, ..] if *next != "get-config" => {
            return Verdict::write(Risk::MediumWrite, "changes the Connect CA");
        }
        _ => {}
    }
    lookup(&w, CONSUL, Risk::MediumWrite)
}

const NOMAD: Table = &[
    ("status", &[]),
    ("version", &[]),
    ("agent-info", &[]),
    ("server", &["members"]),
    ("node", &["status"]),
    (
        "job",
        &[
            "status",
            "history",
            "inspect",
            "validate",
            "deployments",
            "allocs",
        ],
    ),
    ("alloc", &["status", "logs", "fs", "checks"]),
    ("eval", &["status", "list"]),
    ("deployment", &["status", "list"]),
    ("namespace", &["list", "status", "inspect"]),
    ("operator", &["metrics", "raft", "autopilot", "scheduler"]),
    ("volume", &["status"]),
    ("acl", &["token", "policy", "role"]),
    ("var", &["get", "list"]),
    ("service", &["list", "info"]),
    ("quota", &["list", "status", "inspect"]),
    ("node-pool", &["list", "info", "jobs", "nodes"]),
];

pub(super) fn nomad(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["-version", "--version", "-h", "-help", "--help"]) {
        return Verdict::Read;
    }
    let w = words(inv);
    let follow = inv.has_word(&["-f", "-follow"]);
    match w.as_slice() {
        ["monitor", ..] => return stream("prints logs until interrupted"),
        ["alloc", "logs" | "fs", ..] | ["logs" | "fs", ..] if follow => {
            return stream("`-f` follows until interrupted");
        }
        ["logs" | "fs", ..] => return Verdict::Read,
        ["operator", "raft", next, ..] if *next != "list-peers" => {
            return Verdict::write(Risk::HighWrite, "changes the raft cluster");
        }
        ["operator", "autopilot" | "scheduler", next, ..] if *next != "get-config" => {
            return Verdict::write(Risk::MediumWrite, "changes operator settings");
        }
        ["acl", _, next, ..] if !matches!(*next, "list" | "info" | "self") => {
            return Verdict::write(Risk::MediumWrite, "changes ACLs");
        }
        ["node", "drain", ..] => {
            return Verdict::write(Risk::HighWrite, "`node drain` drains a node");
        }
        ["job", "stop", ..] => return Verdict::write(Risk::HighWrite, "`job stop` stops a job"),
        _ => {}
    }
    lookup(&w, NOMAD, Risk::MediumWrite)
}

pub(super) fn packer(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["-version", "--version", "-h", "-help", "--help"]) {
        return Verdict::Read;
    }
    match words(inv).as_slice() {
        ["version" | "validate" | "inspect", ..] | ["plugins", "installed", ..] => Verdict::Read,
        ["fmt", ..] if inv.has_word(&["-check"]) => Verdict::Read,
        ["console", ..] => repl_writer(inv),
        ["build", ..] => Verdict::write(Risk::MediumWrite, "`build` creates machine images"),
        [sub, ..] => Verdict::write(Risk::LowWrite, format!("`{sub}` writes files or plugins")),
        [] => Verdict::unknown("no subcommand"),
    }
}

/// Options that run a program of the user's choosing before anything else.
fn ansible_runs_code(inv: &Invocation<'_, '_>) -> bool {
    inv.args.iter().any(|a| {
        let t = a.as_str();
        t.starts_with("--vault-password-file")
            || t.starts_with("--vault-pass-file")
            || t.starts_with("--vault-id")
            || [".py", ".sh", ".rb", ".pl"]
                .iter()
                .any(|ext| t.ends_with(ext))
    })
}

fn ansible_lists(inv: &Invocation<'_, '_>, lists: &[&str]) -> Verdict {
    if inv.has_word(&["--version", "-h", "--help"]) {
        return Verdict::Read;
    }
    if ansible_runs_code(inv) {
        return Verdict::unknown("runs an inventory or vault password script");
    }
    if inv.has_word(lists) {
        return inventory_runs();
    }
    if inv.has_word(&["--check", "-C"]) {
        return Verdict::unknown("check mode can still run some tasks");
    }
    Verdict::write(Risk::MediumWrite, "runs modules on the managed hosts")
}

pub(super) fn ansible(inv: &Invocation<'_, '_>) -> Verdict {
    ansible_lists(inv, &["--list-hosts"])
}

pub(super) fn ansible_playbook(inv: &Invocation<'_, '_>) -> Verdict {
    ansible_lists(
        inv,
        &[
            "--list-hosts",
            "--list-tasks",
            "--list-tags",
            "--syntax-check",
        ],
    )
}

pub(super) fn ansible_inventory(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.iter().any(|a| a.as_str().starts_with("--output")) {
        return Verdict::write(Risk::LowWrite, "`--output` writes a file");
    }
    if ansible_runs_code(inv) {
        return Verdict::unknown("runs an inventory script");
    }
    if inv.has_word(&["--version", "-h", "--help"]) {
        return Verdict::Read;
    }
    inventory_runs()
}

/// Listing hosts or tasks loads the configured inventory, whose scripts
/// and plugins (from `ansible.cfg`, wherever it is) run programs.
fn inventory_runs() -> Verdict {
    Verdict::unknown("loads the configured inventory, whose scripts and plugins run programs")
}

pub(super) fn ansible_config(inv: &Invocation<'_, '_>) -> Verdict {
    match words(inv).first() {
        Some(&("list" | "dump" | "view" | "validate" | "init")) => Verdict::Read,
        None if inv.has_word(&["--version", "-h", "--help"]) => Verdict::Read,
        _ => Verdict::unknown("unknown subcommand"),
    }
}

pub(super) fn ansible_galaxy(inv: &Invocation<'_, '_>) -> Verdict {
    let w = words(inv);
    let verb = match w.as_slice() {
        ["collection" | "role", verb, ..] | [verb, ..] => *verb,
        [] => return Verdict::unknown("no subcommand"),
    };
    match verb {
        "list" | "info" | "search" | "verify" => Verdict::Read,
        "delete" | "remove" => {
            Verdict::write(Risk::MediumWrite, format!("`{verb}` removes content"))
        }
        _ => Verdict::write(
            Risk::LowWrite,
            format!("`{verb}` writes files or publishes"),
        ),
    }
}

pub(super) fn ansible_vault(inv: &Invocation<'_, '_>) -> Verdict {
    let to_stdout = inv.has_word(&["--output=-"])
        || inv
            .args
            .windows(2)
            .any(|w| w[0].as_str() == "--output" && w[1].as_str() == "-");
    match words(inv).first() {
        Some(&"view") => Verdict::interactive(
            InteractiveCategory::Pager,
            "`view` shows the file in a pager",
        ),
        Some(&("edit" | "create")) => {
            Verdict::interactive_writer(InteractiveCategory::Pager, "opens an editor")
        }
        Some(&"encrypt_string") => Verdict::Read,
        Some(&"decrypt") if to_stdout => Verdict::Read,
        Some(&verb @ ("encrypt" | "decrypt" | "rekey")) => Verdict::write(
            Risk::MediumWrite,
            format!("`{verb}` rewrites files in place"),
        ),
        _ => Verdict::unknown("unknown subcommand"),
    }
}

pub(super) fn repl_writer(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::interactive_writer(
        InteractiveCategory::InteractiveRepl,
        "an interactive console that can run tasks",
    )
}

const TAILSCALE: Table = &[
    ("status", &[]),
    ("ip", &[]),
    ("netcheck", &[]),
    ("version", &[]),
    ("ping", &[]),
    ("whois", &[]),
    ("licenses", &[]),
    ("dns", &["status", "query"]),
    ("exit-node", &["list", "suggest"]),
    ("metrics", &["print"]),
    ("lock", &["status", "log"]),
    ("serve", &["status"]),
    ("funnel", &["status"]),
    ("drive", &["list"]),
];

pub(super) fn tailscale(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["--version", "-h", "--help"]) {
        return Verdict::Read;
    }
    let w = words(inv);
    match w.as_slice() {
        ["netcheck", ..] if inv.args.iter().any(|a| a.as_str().starts_with("--every")) => {
            stream("`--every` repeats until interrupted")
        }
        ["switch", ..] if inv.has_word(&["--list"]) => Verdict::Read,
        ["status", ..] if inv.args.iter().any(|a| a.as_str().starts_with("--web")) => {
            stream("`--web` serves a status page until interrupted")
        }
        ["debug", "watch-ipn", ..] => stream("prints events until interrupted"),
        ["ssh", ..] => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens a remote shell",
        ),
        ["nc", ..] => Verdict::interactive(
            InteractiveCategory::InteractiveRepl,
            "sends standard input to the connection",
        ),
        ["down" | "logout", ..] => {
            Verdict::write(Risk::HighWrite, "disconnects this node from the tailnet")
        }
        _ => lookup(&w, TAILSCALE, Risk::MediumWrite),
    }
}

pub(super) fn cloudflared(inv: &Invocation<'_, '_>) -> Verdict {
    match words(inv).as_slice() {
        ["version", ..] | ["tunnel", "list" | "info", ..] => Verdict::Read,
        [] if inv.has_word(&["--version", "-v", "-V", "-h", "--help"]) => Verdict::Read,
        _ => Verdict::unknown("runs or changes a tunnel"),
    }
}
