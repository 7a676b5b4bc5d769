//! Cloud CLIs: aws, az, gcloud, doctl, hcloud. Each names its operations
//! with verbs (`describe-instances`, `list`, `show`): the read verbs form
//! an allowlist, compared case-sensitively as the CLIs do.

use super::is_command_word;
use crate::commands::common::stream;
use crate::invocation::Invocation;
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// A verb that creates, changes or deletes, by its prefix.
fn mutating(verb: &str) -> Option<Risk> {
    const HIGH: &[&str] = &[
        "delete",
        "terminate",
        "remove",
        "destroy",
        "purge",
        "rb",
        "rm",
    ];
    #[rustfmt::skip]
    const MEDIUM: &[&str] = &[
        "create", "put", "update", "modify", "start", "stop", "reboot", "restart", "run",
        "attach", "detach", "associate", "disassociate", "authorize", "revoke", "set", "add",
        "enable", "disable", "invoke", "publish", "import", "export", "register", "deregister",
        "deploy", "scale", "upgrade", "resize", "deallocate", "tag", "untag", "login",
        "logout", "reset", "cancel", "send", "copy", "restore", "apply", "cp", "mv", "sync",
        "mb",
    ];
    let head = verb.split('-').next().unwrap_or(verb);
    if HIGH.contains(&head) {
        Some(Risk::HighWrite)
    } else if MEDIUM.contains(&head) {
        Some(Risk::MediumWrite)
    } else {
        None
    }
}

fn write_or_unknown(verb: &str) -> Verdict {
    match mutating(verb) {
        Some(risk) => Verdict::write(risk, format!("`{verb}` changes cloud resources")),
        None => Verdict::unknown(format!("`{verb}` is not known to be read-only")),
    }
}

/// The operands of a CLI whose options are `--name value` or `--name=value`;
/// `flags` lists the options that take no value.
fn operands<'i>(inv: &Invocation<'i, '_>, flags: &[&str]) -> Vec<&'i str> {
    let mut out = Vec::with_capacity(inv.args.len());
    let mut args = inv.args.iter().map(|a| &*a.text);
    while let Some(text) = args.next() {
        if text.starts_with("--") {
            if !text.contains('=') && !flags.contains(&text) {
                // The value, unless the next word is another option.
                let mut peek = args.clone();
                if peek.next().is_some_and(|n| !n.starts_with('-')) {
                    args.next();
                }
            }
        } else if !text.starts_with('-') || text == "-" {
            out.push(text);
        }
    }
    out
}

const AWS_FLAGS: &[&str] = &[
    "--debug",
    "--no-verify-ssl",
    "--no-paginate",
    "--no-sign-request",
    "--no-cli-pager",
    "--no-cli-auto-prompt",
    "--version",
    "--dry-run",
    "--no-dry-run",
    "--recursive",
    "--human-readable",
    "--summarize",
    "--follow",
    "--generate-cli-skeleton",
];

/// Read operations whose extra operand is a file they write the response to.
const AWS_OUTFILE_OPS: &[&str] = &[
    "get-object",
    "get-object-torrent",
    "get-job-output",
    "get-media",
    "get-snapshot-block",
    "get-clip",
    "select-object-content",
];

pub(super) fn aws(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long("--cli-auto-prompt") {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "`--cli-auto-prompt` prompts interactively",
        );
    }
    let words = operands(inv, AWS_FLAGS);
    // `aws help`, `aws ec2 help`, `aws ec2 describe-instances help`.
    if words.len() <= 3 && words.last() == Some(&"help") {
        return Verdict::Read;
    }
    let (service, op, extra) = match words.as_slice() {
        [] if inv.has_long("--version") => return Verdict::Read,
        [] => return Verdict::unknown("no command"),
        ["configure"] => {
            return Verdict::write(Risk::MediumWrite, "`configure` edits the credentials");
        }
        [service] => return Verdict::unknown(format!("`{service}` without an operation")),
        [service, op, extra @ ..] => (*service, *op, extra),
    };
    if !is_command_word(service) || !is_command_word(op) {
        return Verdict::unknown(format!("unknown command `{service} {op}`"));
    }
    match (service, op) {
        ("configure", "list" | "list-profiles" | "get" | "export-credentials") => {
            return Verdict::Read;
        }
        ("configure" | "sso", _) => {
            return Verdict::write(Risk::MediumWrite, "changes the CLI configuration");
        }
        ("s3", "ls") => return Verdict::Read,
        // `aws s3 cp s3://bucket/key -` prints the object.
        ("s3", "cp") if matches!(extra, [src, "-"] if src.starts_with("s3://")) => {
            return Verdict::Read;
        }
        ("s3", "presign") => return Verdict::unknown("`presign` creates a shareable access URL"),
        ("s3", "rm" | "rb") => {
            return Verdict::write(Risk::HighWrite, format!("`s3 {op}` deletes objects"));
        }
        ("s3", "cp" | "mv" | "sync" | "mb" | "website") => {
            return Verdict::write(Risk::MediumWrite, format!("`s3 {op}` writes objects"));
        }
        ("logs", "tail") if inv.has_long("--follow") => {
            return stream("`--follow` prints log events until interrupted");
        }
        ("logs", "tail") => return Verdict::Read,
        ("logs", "start-live-tail") => {
            return stream("`start-live-tail` streams until interrupted");
        }
        (_, "wait") => return Verdict::Read,
        _ => {}
    }
    const READ_PREFIXES: &[&str] = &[
        "describe-",
        "list-",
        "get-",
        "head-",
        "lookup-",
        "search-",
        "batch-get-",
        "filter-",
        "simulate-",
        "validate-",
    ];
    let read = READ_PREFIXES.iter().any(|p| op.starts_with(p))
        || matches!(op, "scan" | "query" | "search" | "select-object-content");
    if !read {
        return write_or_unknown(op);
    }
    if AWS_OUTFILE_OPS.contains(&op) || (op.starts_with("get-") && !extra.is_empty()) {
        return Verdict::write(
            Risk::LowWrite,
            format!("`{op}` writes the response into a file"),
        );
    }
    Verdict::Read
}

pub(super) fn az(inv: &Invocation<'_, '_>) -> Verdict {
    let path: Vec<&str> = inv
        .args
        .iter()
        .map(|a| a.as_str())
        .take_while(|a| !a.starts_with('-'))
        .collect();
    if let Some(bad) = path.iter().find(|w| !is_command_word(w)) {
        return Verdict::unknown(format!("unknown command word `{bad}`"));
    }
    if inv.has_word(&["--help", "-h"]) {
        return Verdict::Read;
    }
    if inv
        .args
        .iter()
        .any(|a| a.as_str().starts_with("--output-file"))
    {
        return Verdict::write(Risk::LowWrite, "`--output-file` writes a file");
    }
    let Some(&verb) = path.last() else {
        return if inv.has_word(&["--version"]) {
            Verdict::Read
        } else {
            Verdict::unknown("no command")
        };
    };
    match path.as_slice() {
        ["version" | "help" | "find"] => return Verdict::Read,
        ["interactive" | "feedback"] => {
            return Verdict::interactive_writer(
                InteractiveCategory::InteractiveRepl,
                "an interactive shell",
            );
        }
        ["rest"] => {
            let method = inv
                .option_value(Some('m'), Some("--method"))
                .unwrap_or("get");
            return if method.eq_ignore_ascii_case("get") || method.eq_ignore_ascii_case("head") {
                Verdict::Read
            } else {
                Verdict::write(
                    Risk::MediumWrite,
                    format!("`--method {method}` may change data"),
                )
            };
        }
        [_] => return write_or_unknown(verb),
        _ => {}
    }
    if verb == "get-credentials" {
        return Verdict::write(Risk::LowWrite, "`get-credentials` writes the kubeconfig");
    }
    // `get-shared-keys`, `list-keys`: POST actions, not reads, in Azure's RBAC.
    if verb.ends_with("-keys") {
        return Verdict::unknown(format!("`{verb}` is a POST action"));
    }
    if verb == "tail" {
        return stream("`tail` streams logs until interrupted");
    }
    let read = matches!(
        verb,
        "list" | "show" | "exists" | "check-name" | "wait" | "query"
    ) || ["list-", "show-", "get-", "check-"]
        .iter()
        .any(|p| verb.starts_with(p));
    if read {
        Verdict::Read
    } else {
        write_or_unknown(verb)
    }
}

/// gcloud command groups, which come before the verb.
#[rustfmt::skip]
const GCLOUD_GROUPS: &[&str] = &[
    "access-context-manager", "accounts", "addresses", "ai", "ai-platform", "alloydb",
    "api-gateway", "apis", "app", "artifacts", "asset", "assured", "auth", "autoscalers",
    "backend-buckets", "backend-services", "batch", "bigtable", "billing", "bms", "buckets",
    "builds", "certificate-manager", "channels", "clusters", "composer", "compute", "config",
    "configurations", "connections", "container", "dashboards", "database-migration",
    "dataflow", "dataproc", "datastore", "deploy", "deployment-manager", "deployments", "dns",
    "docker", "domains", "endpoints", "environments", "eventarc", "filestore", "firebase",
    "firestore", "firewall-rules", "folders", "forwarding-rules", "functions", "health-checks",
    "iam", "images", "indexes", "instance-groups", "instance-templates", "instances",
    "interconnects", "jobs", "keyrings", "keys", "kms", "locations", "logging", "logs",
    "managed", "managed-zones", "memcache", "metrics", "ml", "ml-engine", "models",
    "monitoring", "network-endpoint-groups", "networks", "node-pools", "notebooks",
    "operations", "organizations", "org-policies", "packages", "policies", "projects",
    "pubsub", "queues", "record-sets", "recommender", "redis", "regions", "repos",
    "repositories", "resource-manager", "revisions", "roles", "routers", "routes", "run",
    "scheduler", "secrets", "security-policies", "service-accounts", "services", "sinks",
    "snapshots", "source", "spanner", "sql", "ssl-certificates", "storage", "subnets",
    "subscriptions", "tags", "target-pools", "tasks", "topics", "triggers", "unmanaged",
    "url-maps", "users", "versions", "vpn-tunnels", "workflows", "workstations", "zones",
    "disks", "objects", "tpus", "vms", "gke", "hub", "memberships", "fleet", "backups",
    "databases", "scopes", "executions", "components", "application-default", "project-info",
    "machine-types", "disk-types", "accelerator-types", "emulators", "identity", "images",
    "network-security", "network-services", "target-http-proxies", "target-https-proxies",
];

const GCLOUD_VALUE_FLAGS: &[&str] = &[
    "--project",
    "--account",
    "--configuration",
    "--format",
    "--verbosity",
    "--impersonate-service-account",
    "--billing-project",
    "--flatten",
    "--trace-token",
    "--access-token-file",
    "--filter",
    "--limit",
    "--page-size",
    "--sort-by",
    "--zone",
    "--region",
    "--location",
];

pub(super) fn gcloud(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long("--flags-file") {
        return Verdict::unknown("`--flags-file` reads options from a file");
    }
    if inv.has_word(&["--help", "-h"]) {
        return Verdict::Read;
    }
    let mut words = Vec::with_capacity(inv.args.len());
    let mut args = inv.args.iter().map(|a| a.as_str());
    while let Some(text) = args.next() {
        if text.starts_with('-') {
            if GCLOUD_VALUE_FLAGS.contains(&text) {
                args.next();
            }
            continue;
        }
        words.push(text);
    }
    let mut rest = words.as_slice();
    if let [first, tail @ ..] = rest
        && matches!(*first, "alpha" | "beta" | "preview")
    {
        rest = tail;
    }
    while let [first, tail @ ..] = rest
        && GCLOUD_GROUPS.contains(first)
    {
        rest = tail;
    }
    let Some(&verb) = rest.first() else {
        return Verdict::unknown("no command");
    };
    if inv.has_long("--out-file") || inv.has_long("--output-file") {
        return Verdict::write(Risk::LowWrite, "`--out-file` writes a file");
    }
    match verb {
        "get-credentials" => {
            return Verdict::write(Risk::LowWrite, "`get-credentials` writes the kubeconfig");
        }
        "tail" | "tail-serial-port-output" => {
            return stream("`tail` streams until interrupted");
        }
        "log" if inv.has_long("--stream") => return stream("`--stream` follows the build log"),
        "ssh" | "scp" | "connect" | "interactive" => {
            return Verdict::interactive_writer(
                InteractiveCategory::InteractiveRepl,
                "opens an interactive session",
            );
        }
        _ => {}
    }
    let read = matches!(
        verb,
        "list"
            | "describe"
            | "read"
            | "info"
            | "version"
            | "help"
            | "ls"
            | "cat"
            | "du"
            | "get"
            | "log"
            | "access"
            | "print-access-token"
            | "print-identity-token"
    ) || ["list-", "describe-", "get-", "search-"]
        .iter()
        .any(|p| verb.starts_with(p));
    if read {
        Verdict::Read
    } else {
        write_or_unknown(verb)
    }
}

/// doctl command groups (single-letter aliases are left out: `d` is also
/// `delete` and `c` is also `create`).
#[rustfmt::skip]
const DOCTL_GROUPS: &[&str] = &[
    "compute", "droplet", "droplet-action", "image", "image-action", "region", "size",
    "ssh-key", "tag", "volume", "volume-action", "snapshot", "domain", "records", "firewall",
    "floating-ip", "reserved-ip", "load-balancer", "certificate", "cdn", "vpcs", "kubernetes",
    "k8s", "k", "cluster", "node-pool", "pool", "np", "registry", "repository",
    "garbage-collection", "databases", "db", "user", "projects", "resources", "monitoring",
    "alert", "uptime", "apps", "account", "balance", "billing-history", "invoice", "auth",
    "1-click", "serverless", "kubeconfig", "options", "action", "backups", "replica",
    "connection-pool", "maintenance-window", "deployment", "checks", "alerts", "spaces",
    "keys", "vpc", "nat-gateway",
];

pub(super) fn doctl(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_word(&["--help", "-h"]) {
        return Verdict::Read;
    }
    let words = operands(
        inv,
        &["--trace", "--verbose", "--interactive", "--no-header"],
    );
    let mut rest = words.as_slice();
    while let [first, tail @ ..] = rest
        && DOCTL_GROUPS.contains(first)
    {
        rest = tail;
    }
    match rest.first().copied() {
        None => Verdict::unknown("no command"),
        Some("list" | "ls" | "get" | "g" | "show" | "version" | "help") => Verdict::Read,
        Some("ssh" | "console") => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens an interactive session",
        ),
        Some("save" | "switch") => {
            Verdict::write(Risk::LowWrite, "changes the local configuration")
        }
        Some(verb) => write_or_unknown(verb),
    }
}

pub(super) fn hcloud(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.has_long("--debug-file") {
        return Verdict::write(Risk::LowWrite, "`--debug-file` writes a file");
    }
    if inv.has_word(&["--help", "-h", "--version"]) {
        return Verdict::Read;
    }
    let words = operands(inv, &["--debug", "--quiet", "--allow-deprecated-image"]);
    match words.as_slice() {
        [] => Verdict::unknown("no command"),
        ["version" | "help"] => Verdict::Read,
        ["context", "list" | "active"] => Verdict::Read,
        ["context", _, ..] => Verdict::write(Risk::LowWrite, "changes the local configuration"),
        [_, "list" | "describe" | "ip" | "metrics", ..] => Verdict::Read,
        [_, "ssh", ..] => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "opens an interactive session",
        ),
        [_, verb, ..] => write_or_unknown(verb),
        [one] => Verdict::unknown(format!("`{one}` without a command")),
    }
}
