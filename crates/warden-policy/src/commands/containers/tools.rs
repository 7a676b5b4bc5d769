//! Cluster tools around the engines: k3s and microk8s (which dispatch to
//! kubectl, crictl, ctr), k9s, kubectx/kubens, stern, kind, minikube, k3d,
//! skopeo, lazydocker, dive.

use super::{Flags, given, switch, unknown_option};
use crate::invocation::{Arg, Invocation};
use crate::options::{Options, Tok, walk_sets};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

use Risk::MediumWrite;

/// The first operand (after options of `sets`), literal, with its index.
#[allow(clippy::result_large_err)] // the error is the rule's final verdict
fn first<'i>(
    inv: &Invocation<'i, '_>,
    sets: &[&Flags],
) -> Result<Option<(usize, &'i str)>, Verdict> {
    match walk_sets(sets, inv.args).find(|w| matches!(w, Tok::Operand { .. })) {
        Some(Tok::Operand { index, text }) => {
            if inv.args.get(index).is_some_and(Arg::is_variable) {
                Err(Verdict::unknown("the subcommand comes from an expansion"))
            } else {
                Ok(Some((index, text)))
            }
        }
        _ => Ok(None),
    }
}

fn operands(rest: &[Arg<'_>], sets: &[&Flags]) -> usize {
    walk_sets(sets, rest)
        .filter(|w| matches!(w, Tok::Operand { .. }))
        .count()
}

const NONE: Flags = Flags {
    short_values: "",
    short_flags: "",
    long_values: &[],
    long_flags: &[],
    ..Options::GO
};

/// `k3s kubectl|crictl|ctr …` runs the bundled tool: classify it.
pub(super) fn k3s(inv: &Invocation<'_, '_>) -> Verdict {
    let Some(first) = inv.args.first() else {
        return Verdict::unknown("no subcommand");
    };
    if first.is_variable() {
        return Verdict::unknown("the subcommand comes from an expansion");
    }
    match (first.as_str(), inv.arg(1)) {
        ("kubectl" | "crictl" | "ctr", _) => Verdict::wrap_argv("k3s", 0),
        ("check-config" | "help" | "--help" | "-h" | "--version" | "-v", _) => Verdict::Read,
        ("etcd-snapshot", Some("ls" | "list"))
        | ("token", Some("list"))
        | ("certificate", Some("check")) => Verdict::Read,
        (
            sub @ ("server" | "agent" | "etcd-snapshot" | "secrets-encrypt" | "certificate"
            | "token" | "completion"),
            _,
        ) => Verdict::write(MediumWrite, format!("`{sub}` runs or changes the k3s node")),
        (sub, _) => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

/// `microk8s status|kubectl|ctr|helm|…`.
pub(super) fn microk8s(inv: &Invocation<'_, '_>) -> Verdict {
    let Some(first) = inv.args.first() else {
        return Verdict::unknown("no subcommand");
    };
    if first.is_variable() {
        return Verdict::unknown("the subcommand comes from an expansion");
    }
    let rest = inv.from(1);
    match first.as_str() {
        "kubectl" | "ctr" | "helm" => Verdict::wrap_argv("microk8s", 0),
        "status" => {
            // `--wait-ready` blocks until ready unless `--timeout` bounds it.
            if rest.has_long("--wait-ready") && !rest.has_long("--timeout") {
                Verdict::interactive(
                    InteractiveCategory::UnboundedStream,
                    "`--wait-ready` waits without a time limit",
                )
            } else {
                Verdict::Read
            }
        }
        "version" | "config" | "help" | "--help" => Verdict::Read,
        sub @ ("enable" | "disable" | "start" | "stop" | "reset" | "join" | "leave"
        | "add-node" | "remove-node" | "refresh-certs" | "inspect" | "install"
        | "uninstall") => Verdict::write(MediumWrite, format!("`{sub}` changes the cluster")),
        sub => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

/// k9s is a terminal UI that can edit and delete resources (unless `--readonly`).
pub(super) fn k9s(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        Some("version" | "info" | "help" | "--help" | "-h" | "--version")
            if inv.args.len() == 1 =>
        {
            Verdict::Read
        }
        _ if inv.has_long("--readonly") => {
            Verdict::interactive(InteractiveCategory::TtyFlag, "opens a terminal UI")
        }
        _ => Verdict::interactive_writer(
            InteractiveCategory::TtyFlag,
            "opens a terminal UI that can change resources",
        ),
    }
}

/// kubectx/kubens: no argument lists; a name switches; `-d` deletes.
pub(super) fn kubectx(inv: &Invocation<'_, '_>) -> Verdict {
    const FLAGS: Flags = Flags {
        short_values: "",
        short_flags: "chV",
        long_values: &[],
        long_flags: &["--current", "--help", "--version"],
        ..Options::GO
    };
    if given(inv.args, &[&NONE], "du", &["--unset"]) {
        return Verdict::write(MediumWrite, "deletes or unsets a kubeconfig entry");
    }
    if operands(inv.args, &[&FLAGS]) > 0 {
        return Verdict::write(MediumWrite, "switches the current context or namespace");
    }
    unknown_option(inv.args, &[&FLAGS]).unwrap_or(Verdict::Read)
}

/// stern's options (v1.2x): none writes; `--no-follow` ends the stream.
const STERN: Flags = Flags {
    short_values: "ncslemiEo",
    short_flags: "Aht",
    long_values: &[
        "--namespace",
        "--container",
        "--selector",
        "--since",
        "--tail",
        "--exclude",
        "--include",
        "--exclude-container",
        "--exclude-pod",
        "--container-state",
        "--context",
        "--kubeconfig",
        "--output",
        "--template",
        "--template-file",
        "--timestamps",
        "--color",
        "--field-selector",
        "--node",
        "--condition",
        "--max-log-requests",
        "--verbosity",
    ],
    long_flags: &[
        "--all-namespaces",
        "--no-follow",
        "--only-log-lines",
        "--diff-container",
        "--prompt",
        "--init-containers",
        "--ephemeral-containers",
        "--help",
        "--version",
    ],
    ..Options::GO
};

/// stern follows logs unless `--no-follow`.
pub(super) fn stern(inv: &Invocation<'_, '_>) -> Verdict {
    if inv.args.len() == 1 && matches!(inv.arg(0), Some("--version" | "version" | "--help" | "-h"))
    {
        return Verdict::Read;
    }
    if let Some(verdict) = unknown_option(inv.args, &[&STERN]) {
        return verdict;
    }
    if given(inv.args, &[&STERN], "", &["--prompt"]) {
        return Verdict::interactive(
            InteractiveCategory::TtyFlag,
            "`--prompt` asks on the terminal",
        );
    }
    if switch(inv.args, &[&STERN], None, "--no-follow").on {
        return Verdict::Read;
    }
    let mut rewrite = String::from("--no-follow");
    if !given(inv.args, &[&STERN], "", &["--tail"]) {
        rewrite.push_str(" --tail=200");
    }
    for arg in inv.args {
        rewrite.push(' ');
        rewrite.push_str(arg.raw);
    }
    Verdict::unbounded_with_rewrite(rewrite, "follows the logs until interrupted")
}

/// kind: `get …` and `version` read.
pub(super) fn kind(inv: &Invocation<'_, '_>) -> Verdict {
    const FLAGS: Flags = Flags {
        short_values: "v",
        short_flags: "qh",
        long_values: &["--verbosity", "--name", "--kubeconfig"],
        long_flags: &["--quiet", "--help", "--internal"],
        ..Options::GO
    };
    match first(inv, &[&FLAGS]) {
        Err(verdict) => verdict,
        Ok(None) if inv.has_long("--help") || inv.has_long("--version") => Verdict::Read,
        Ok(None) => Verdict::unknown("no subcommand"),
        Ok(Some((_, "get" | "version" | "help" | "completion"))) => {
            unknown_option(inv.args, &[&FLAGS]).unwrap_or(Verdict::Read)
        }
        Ok(Some((_, sub @ ("create" | "delete" | "load" | "build" | "export")))) => Verdict::write(
            MediumWrite,
            format!("`{sub}` changes clusters, images or files"),
        ),
        Ok(Some((_, sub))) => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

/// minikube: status and listings read; `logs -f` streams.
pub(super) fn minikube(inv: &Invocation<'_, '_>) -> Verdict {
    const FLAGS: Flags = Flags {
        short_values: "pon",
        short_flags: "fh",
        long_values: &["--profile", "--output", "--format", "--node", "--length"],
        long_flags: &[
            "--follow",
            "--help",
            "--short",
            "--light",
            "--problems",
            "--alsologtostderr",
        ],
        ..Options::GO
    };
    let sets = &[&FLAGS];
    let (si, sub) = match first(inv, sets) {
        Err(verdict) => return verdict,
        Ok(Some(found)) => found,
        Ok(None) => return Verdict::unknown("no subcommand"),
    };
    let rest = inv.args.get(si + 1..).unwrap_or(&[]);
    let act = walk_sets(sets, rest).find_map(|w| match w {
        Tok::Operand { text, .. } => Some(text),
        _ => None,
    });
    let read = || unknown_option(inv.args, sets).unwrap_or(Verdict::Read);
    match (sub, act) {
        (
            "status" | "version" | "ip" | "update-check" | "docker-env" | "podman-env" | "help",
            _,
        )
        | ("profile" | "addons" | "service" | "node" | "image", Some("list" | "ls"))
        | ("config", Some("view" | "get")) => read(),
        ("profile", None) => read(),
        ("logs", _) => {
            if switch(inv.args, sets, Some('f'), "--follow").on {
                Verdict::interactive(
                    InteractiveCategory::UnboundedStream,
                    "`--follow` streams the logs until interrupted",
                )
            } else {
                read()
            }
        }
        ("dashboard" | "tunnel" | "mount", _) => Verdict::interactive_writer(
            InteractiveCategory::UnboundedStream,
            format!("`{sub}` runs until interrupted"),
        ),
        (
            "start" | "stop" | "delete" | "pause" | "unpause" | "addons" | "config" | "image"
            | "node" | "cp" | "profile" | "ssh" | "kubectl" | "cache",
            _,
        ) => Verdict::write(
            MediumWrite,
            format!("`{sub}` changes the cluster or its settings"),
        ),
        _ => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

/// k3d: `cluster|node|registry list|get`, `kubeconfig get|print`, `version` read.
pub(super) fn k3d(inv: &Invocation<'_, '_>) -> Verdict {
    const FLAGS: Flags = Flags {
        short_values: "o",
        short_flags: "h",
        long_values: &["--output"],
        long_flags: &[
            "--help",
            "--verbose",
            "--trace",
            "--timestamps",
            "--no-headers",
            "--all",
        ],
        ..Options::GO
    };
    let sets = &[&FLAGS];
    let (si, sub) = match first(inv, sets) {
        Err(verdict) => return verdict,
        Ok(Some(found)) => found,
        Ok(None) if inv.has_long("--version") || inv.has_long("--help") => return Verdict::Read,
        Ok(None) => return Verdict::unknown("no subcommand"),
    };
    let rest = inv.args.get(si + 1..).unwrap_or(&[]);
    let act = walk_sets(sets, rest).find_map(|w| match w {
        Tok::Operand { text, .. } => Some(text),
        _ => None,
    });
    match (sub, act) {
        ("version" | "help", _)
        | ("cluster" | "node" | "registry", Some("list" | "ls" | "get"))
        | ("kubeconfig", Some("get" | "print")) => {
            unknown_option(inv.args, sets).unwrap_or(Verdict::Read)
        }
        ("cluster" | "node" | "registry" | "kubeconfig" | "image" | "config", _) => Verdict::write(
            MediumWrite,
            format!("`{sub}` changes clusters or their settings"),
        ),
        _ => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

/// skopeo: `inspect`, `list-tags` query registries; `copy`, `delete`, … write.
pub(super) fn skopeo(inv: &Invocation<'_, '_>) -> Verdict {
    const GLOBALS: Flags = Flags {
        short_values: "",
        short_flags: "hv",
        long_values: &[
            "--command-timeout",
            "--override-arch",
            "--override-os",
            "--override-variant",
            "--policy",
            "--registries.d",
            "--tmpdir",
            "--registries-conf",
        ],
        long_flags: &["--debug", "--insecure-policy", "--help", "--version"],
        ..Options::GO
    };
    match super::subcommand(inv, &[&GLOBALS]) {
        Err(verdict) => verdict,
        Ok(None) if given(inv.args, &[&GLOBALS], "hv", &["--help", "--version"]) => Verdict::Read,
        Ok(None) => Verdict::unknown("no subcommand"),
        Ok(Some((_, "inspect" | "list-tags" | "manifest-digest" | "help"))) => Verdict::Read,
        Ok(Some((
            _,
            sub @ ("copy"
            | "delete"
            | "sync"
            | "login"
            | "logout"
            | "standalone-sign"
            | "generate-sigstore-key"),
        ))) => Verdict::write(
            MediumWrite,
            format!("`{sub}` changes images, signatures or credentials"),
        ),
        Ok(Some((_, sub))) => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

/// lazydocker is a terminal UI that can stop and remove containers.
pub(super) fn lazydocker(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        Some("--version" | "-v" | "--help" | "-h" | "--config" | "-c") if inv.args.len() == 1 => {
            Verdict::Read
        }
        _ => Verdict::interactive_writer(
            InteractiveCategory::TtyFlag,
            "opens a terminal UI that can change containers",
        ),
    }
}

/// dive explores image layers in a terminal UI; `--ci` runs without one
/// but may pull the image; `build` builds.
pub(super) fn dive(inv: &Invocation<'_, '_>) -> Verdict {
    match inv.arg(0) {
        Some("version" | "--version" | "-v" | "--help" | "-h") if inv.args.len() == 1 => {
            Verdict::Read
        }
        Some("build") => Verdict::write(MediumWrite, "`build` builds an image"),
        _ if inv.has_long("--ci") => Verdict::write(Risk::LowWrite, "may pull the image"),
        _ => Verdict::interactive(InteractiveCategory::TtyFlag, "opens a terminal UI"),
    }
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
    use crate::verdict::{Inner, Verdict};

    #[test]
    fn reads() {
        for line in [
            "k3s check-config",
            "k3s --version",
            "k3s etcd-snapshot ls",
            "microk8s status",
            "microk8s status --wait-ready --timeout 30",
            "microk8s version",
            "microk8s config",
            "k9s version",
            "k9s info",
            "kubectx",
            "kubectx -c",
            "kubens",
            "kubens --current",
            "stern web --no-follow",
            "stern --no-follow --tail=100 -n app web",
            "stern --version",
            "kind get clusters",
            "kind get nodes --name dev",
            "kind get kubeconfig --name dev",
            "kind version",
            "minikube status",
            "minikube -p dev status",
            "minikube version",
            "minikube ip",
            "minikube profile list",
            "minikube profile",
            "minikube addons list",
            "minikube service list",
            "minikube config view",
            "minikube logs",
            "minikube logs -n 50",
            "k3d cluster list",
            "k3d cluster get dev",
            "k3d node list",
            "k3d registry list",
            "k3d kubeconfig get dev",
            "k3d version",
            "skopeo inspect docker://nginx:latest",
            "skopeo inspect --raw docker://nginx",
            "skopeo list-tags docker://nginx",
            "skopeo --version",
            "lazydocker --version",
            "dive --version",
        ] {
            assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn writes() {
        for line in [
            "k3s server",
            "k3s agent --server x",
            "k3s etcd-snapshot save",
            "k3s frob",
            "k3s",
            "microk8s enable dns",
            "microk8s stop",
            "microk8s reset",
            "microk8s inspect",
            "microk8s",
            "kubectx production",
            "kubectx -",
            "kubectx -d old",
            "kubectx -u",
            "kubens kube-system",
            "kind create cluster",
            "kind delete cluster",
            "kind load docker-image app",
            "kind export kubeconfig",
            "minikube start",
            "minikube stop",
            "minikube delete",
            "minikube addons enable ingress",
            "minikube config set memory 4096",
            "minikube profile dev",
            "minikube kubectl -- get pods",
            "minikube image load app",
            "minikube logs --file=x.log",
            "k3d cluster create dev",
            "k3d cluster delete dev",
            "k3d kubeconfig merge dev",
            "k3d image import app",
            "skopeo copy docker://a docker://b",
            "skopeo delete docker://a",
            "skopeo login quay.io",
            "skopeo sync --src docker --dest dir a b",
            "dive build -t app .",
            "dive nginx --ci",
        ] {
            assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn interactive() {
        for line in [
            "k9s",
            "k9s -n default",
            "k9s --readonly",
            "stern web",
            "stern -n app web --tail 10",
            "minikube logs -f",
            "minikube dashboard",
            "minikube tunnel",
            "microk8s status --wait-ready",
            "lazydocker",
            "dive nginx:latest",
        ] {
            assert!(is_interactive(line), "{line}: {:?}", rule_verdict(line));
        }
        match rule_verdict("stern web") {
            Verdict::Interactive(_) => {
                assert_eq!(
                    crate::commands::testing::full_rewrite("stern web").as_deref(),
                    Some("stern --no-follow --tail=200 web")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn dispatch() {
        for line in [
            "k3s kubectl get pods",
            "k3s crictl ps",
            "k3s ctr c ls",
            "microk8s kubectl get nodes",
        ] {
            match rule_verdict(line) {
                Verdict::Wrap(w) => assert_eq!(w.inner, Inner::Argv { start: 0 }, "{line}"),
                other => panic!("{line}: {other:?}"),
            }
        }
    }
}
