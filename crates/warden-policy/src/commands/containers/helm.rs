//! helm (and the helm-diff plugin, which only compares).

use super::{Flags, action, any_may_be_option, given, unknown_option};
use crate::invocation::{Arg, Invocation};
use crate::options::{Options, Tok, walk_sets};
use crate::verdict::{Risk, Verdict};

const GLOBALS: Flags = Flags {
    short_values: "n",
    short_flags: "h",
    long_values: &[
        "--kube-context",
        "--kubeconfig",
        "--namespace",
        "--kube-apiserver",
        "--kube-token",
        "--kube-as-user",
        "--kube-as-group",
        "--kube-ca-file",
        "--kube-tls-server-name",
        "--registry-config",
        "--repository-config",
        "--repository-cache",
        "--burst-limit",
        "--qps",
        "--content-cache",
        "--color",
        "--colour",
    ],
    long_flags: &["--debug", "--kube-insecure-skip-tls-verify", "--help"],
    ..Options::GO
};

/// Options of the read-only subcommands (list, status, history, get, show,
/// search, lint, version, verify, dependency list, …).
const READ: Flags = Flags {
    short_values: "oflm",
    short_flags: "aAdqrcg",
    long_values: &[
        "--output",
        "--filter",
        "--selector",
        "--max",
        "--offset",
        "--time-format",
        "--revision",
        "--template",
        "--version",
        "--repo",
        "--ca-file",
        "--cert-file",
        "--key-file",
        "--keyring",
        "--password",
        "--username",
        "--jsonpath",
        "--max-col-width",
        "--endpoint",
        "--values",
        "--set",
        "--set-file",
        "--set-json",
        "--set-literal",
        "--set-string",
        "--kube-version",
        "--api-versions",
    ],
    long_flags: &[
        "--all",
        "--all-namespaces",
        "--date",
        "--deployed",
        "--failed",
        "--no-headers",
        "--pending",
        "--reverse",
        "--short",
        "--superseded",
        "--uninstalled",
        "--uninstalling",
        "--show-desc",
        "--show-resources",
        "--devel",
        "--insecure-skip-tls-verify",
        "--pass-credentials",
        "--plain-http",
        "--verify",
        "--regexp",
        "--versions",
        "--fail-on-no-result",
        "--list-repo-url",
        "--strict",
        "--with-subcharts",
        "--quiet",
        "--skip-schema-validation",
        "--client",
        "--help",
    ],
    ..Options::GO
};

/// `template` renders locally. Not `--output-dir` (writes files),
/// `--post-renderer` (runs a program) or `--dependency-update` (downloads
/// into the chart), nor install-only options like `--wait` or `--atomic`.
const TEMPLATE: Flags = Flags {
    short_values: "fsal",
    short_flags: "g",
    long_values: &[
        "--api-versions",
        "--ca-file",
        "--cert-file",
        "--key-file",
        "--description",
        "--keyring",
        "--kube-version",
        "--labels",
        "--name-template",
        "--password",
        "--repo",
        "--set",
        "--set-file",
        "--set-json",
        "--set-literal",
        "--set-string",
        "--show-only",
        "--username",
        "--values",
        "--version",
        "--release-name",
        "--post-renderer",
        "--post-renderer-args",
        "--output-dir",
    ],
    long_flags: &[
        "--dependency-update",
        "--devel",
        "--disable-openapi-validation",
        "--enable-dns",
        "--generate-name",
        "--include-crds",
        "--insecure-skip-tls-verify",
        "--is-upgrade",
        "--no-hooks",
        "--pass-credentials",
        "--plain-http",
        "--render-subchart-notes",
        "--skip-crds",
        "--skip-schema-validation",
        "--skip-tests",
        "--validate",
        "--verify",
        "--dry-run",
        "--help",
    ],
    ..Options::GO
};

/// The options install, upgrade, rollback and uninstall add to [`TEMPLATE`].
const INSTALL: Flags = Flags {
    long_values: &["--timeout", "--history-max", "--max", "--cascade"],
    long_flags: &[
        "--install",
        "--atomic",
        "--wait",
        "--wait-for-jobs",
        "--force",
        "--reset-values",
        "--reuse-values",
        "--reset-then-reuse-values",
        "--cleanup-on-fail",
        "--create-namespace",
        "--replace",
        "--keep-history",
        "--take-ownership",
        "--hide-notes",
        "--dry-run",
    ],
    ..Options::GO
};

const GET: &[&str] = &["all", "values", "manifest", "notes", "hooks", "metadata"];
const SHOW: &[&str] = &["chart", "values", "readme", "crds", "all"];
const DIFF: &[&str] = &["upgrade", "revision", "rollback", "release", "version"];

use Risk::{HighWrite, LowWrite, MediumWrite};

pub(super) fn helm(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(verdict) = super::kubeconfig(inv.args, &[&GLOBALS]) {
        return verdict;
    }
    let (si, sub) = match super::subcommand(inv, &[&GLOBALS]) {
        Ok(Some(found)) => found,
        Ok(None) if given(inv.args, &[&GLOBALS], "h", &["--help"]) => return Verdict::Read,
        Ok(None) => return Verdict::unknown("no subcommand"),
        Err(verdict) => return verdict,
    };
    let rest = inv.args.get(si + 1..).unwrap_or(&[]);
    let sets = &[&GLOBALS, &READ];
    // `helm SUB ACTION …` where ACTION must be one of `actions`.
    let nested = |actions: &[&str]| match action(inv, si, sets) {
        Ok((ai, a)) if actions.contains(&a) => read(inv.args.get(ai + 1..).unwrap_or(&[])),
        Ok((_, a)) => Verdict::unknown(format!("unknown subcommand `{sub} {a}`")),
        Err(verdict) => verdict,
    };
    match sub {
        "list" | "ls" | "status" | "history" | "hist" | "lint" | "version" | "verify"
        | "completion" => read(rest),
        "help" => Verdict::Read,
        "env" => {
            // `helm env [NAME]` prints the environment or one variable.
            if walk_sets(sets, rest)
                .filter(|w| matches!(w, Tok::Operand { .. }))
                .count()
                > 1
            {
                Verdict::unknown("`env` takes at most one argument")
            } else {
                read(rest)
            }
        }
        "get" => nested(GET),
        "show" | "inspect" => nested(SHOW),
        "search" => nested(&["repo", "hub"]),
        "template" => template(rest),
        "diff" => match action(inv, si, sets) {
            Ok((_, a)) if DIFF.contains(&a) => diff(rest),
            Ok((_, a)) => Verdict::unknown(format!("unknown subcommand `diff {a}`")),
            Err(verdict) => verdict,
        },
        "repo" => match action(inv, si, sets) {
            Ok((ai, "list" | "ls")) => read(inv.args.get(ai + 1..).unwrap_or(&[])),
            Ok((_, a @ ("add" | "remove" | "rm" | "update" | "up" | "index"))) => {
                Verdict::write(LowWrite, format!("`repo {a}` changes chart repositories"))
            }
            Ok((_, a)) => Verdict::unknown(format!("unknown subcommand `repo {a}`")),
            Err(verdict) => verdict,
        },
        "dependency" | "dep" | "dependencies" => match action(inv, si, sets) {
            Ok((ai, "list" | "ls")) => read(inv.args.get(ai + 1..).unwrap_or(&[])),
            Ok((_, a @ ("update" | "up" | "build"))) => Verdict::write(
                LowWrite,
                format!("`dependency {a}` downloads charts into the chart"),
            ),
            Ok((_, a)) => Verdict::unknown(format!("unknown subcommand `dependency {a}`")),
            Err(verdict) => verdict,
        },
        "plugin" => match action(inv, si, sets) {
            Ok((ai, "list" | "ls")) => read(inv.args.get(ai + 1..).unwrap_or(&[])),
            Ok((
                _,
                a @ ("install" | "add" | "uninstall" | "rm" | "remove" | "update" | "upgrade"),
            )) => Verdict::write(MediumWrite, format!("`plugin {a}` changes plugins")),
            Ok((_, a)) => Verdict::unknown(format!("unknown subcommand `plugin {a}`")),
            Err(verdict) => verdict,
        },
        "registry" => match action(inv, si, sets) {
            Ok((_, a @ ("login" | "logout"))) => Verdict::write(
                MediumWrite,
                format!("`registry {a}` changes stored credentials"),
            ),
            Ok((_, a)) => Verdict::unknown(format!("unknown subcommand `registry {a}`")),
            Err(verdict) => verdict,
        },
        "install" | "upgrade" => write_unless_dry_run(inv, sub, MediumWrite, "changes a release"),
        "rollback" => write_unless_dry_run(inv, sub, MediumWrite, "rolls back a release"),
        "uninstall" | "delete" | "del" | "un" => {
            write_unless_dry_run(inv, sub, HighWrite, "removes a release")
        }
        "test" => Verdict::write(MediumWrite, "`test` runs a release's test pods"),
        "create" => Verdict::write(LowWrite, "`create` writes a new chart directory"),
        "package" => Verdict::write(LowWrite, "`package` writes a chart archive"),
        "push" => Verdict::write(MediumWrite, "`push` uploads a chart"),
        "pull" | "fetch" => Verdict::write(LowWrite, format!("`{sub}` downloads a chart")),
        _ => Verdict::unknown(format!("unknown subcommand `{sub}`")),
    }
}

fn read(rest: &[Arg<'_>]) -> Verdict {
    unknown_option(rest, &[&GLOBALS, &READ]).unwrap_or(Verdict::Read)
}

/// Options that make a dry run or a render do more than print.
fn spoiler(rest: &[Arg<'_>]) -> Option<Verdict> {
    let sets = &[&GLOBALS, &TEMPLATE, &INSTALL];
    if given(rest, sets, "", &["--post-renderer", "--post-renderer-args"]) {
        return Some(Verdict::unknown("`--post-renderer` runs a program"));
    }
    if given(rest, sets, "", &["--dependency-update"]) {
        return Some(Verdict::write(
            LowWrite,
            "`--dependency-update` downloads charts into the chart",
        ));
    }
    if any_may_be_option(rest) {
        return Some(Verdict::unknown(
            "an argument from an expansion could be a writing option",
        ));
    }
    None
}

fn template(rest: &[Arg<'_>]) -> Verdict {
    if given(rest, &[&GLOBALS, &TEMPLATE], "", &["--output-dir"]) {
        return Verdict::write(LowWrite, "`--output-dir` writes the rendered files");
    }
    if let Some(verdict) = spoiler(rest) {
        return verdict;
    }
    unknown_option(rest, &[&GLOBALS, &TEMPLATE]).unwrap_or(Verdict::Read)
}

/// helm-diff compares a release with what an upgrade would do.
fn diff(rest: &[Arg<'_>]) -> Verdict {
    spoiler(rest).unwrap_or(Verdict::Read)
}

/// install/upgrade/rollback/uninstall: `--dry-run` only renders or simulates.
fn write_unless_dry_run(inv: &Invocation<'_, '_>, sub: &str, risk: Risk, what: &str) -> Verdict {
    let rest = inv.args;
    let sets: &[&Flags] = &[&GLOBALS, &TEMPLATE, &INSTALL];
    if super::dry_run(rest, sets) {
        return spoiler(rest)
            .or_else(|| unknown_option(rest, sets))
            .unwrap_or(Verdict::Read);
    }
    Verdict::write(risk, format!("`{sub}` {what}"))
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_read, is_write, rule_verdict};

    #[test]
    fn reads() {
        for line in [
            "helm list",
            "helm ls -A",
            "helm list --all-namespaces -o json",
            "helm list -n production --short",
            "helm list --filter nginx --max 10",
            "helm list -l app=web",
            "helm --kube-context prod list",
            "helm -n prod list",
            "helm --kubeconfig ~/.kube/config ls",
            "helm status myrelease -o yaml",
            "helm status myrelease --revision 2",
            "helm history myrelease --max 5",
            "helm get all myrelease",
            "helm get values myrelease --output json",
            "helm get values myrelease -a",
            "helm get manifest myrelease --revision 1",
            "helm get notes myrelease",
            "helm get hooks myrelease",
            "helm get metadata myrelease",
            "helm -n prod get values r",
            "helm show chart nginx",
            "helm show values bitnami/nginx --version 1.0.0",
            "helm show readme nginx",
            "helm show crds nginx",
            "helm show all ./mychart",
            "helm inspect values nginx",
            "helm search repo nginx --versions",
            "helm search repo nginx -l",
            "helm search hub nginx",
            "helm repo list",
            "helm repo ls",
            "helm template myrelease ./chart",
            "helm template myrelease ./chart -f values.yaml --set image.tag=v2",
            "helm template r ./chart -s templates/deploy.yaml",
            "helm lint ./mychart --strict",
            "helm lint ./mychart -f values.yaml",
            "helm version",
            "helm version --short",
            "helm version --template {{.Version}}",
            "helm env",
            "helm env HELM_CACHE_HOME",
            "helm verify mychart-1.0.0.tgz",
            "helm dependency list ./mychart",
            "helm plugin list",
            "helm completion bash",
            "helm help",
            "helm --help",
            "helm diff upgrade myrelease nginx",
            "helm diff revision myrelease 1 2",
            "helm install myrelease nginx --dry-run",
            "helm upgrade --install r ./chart --dry-run=server",
            "helm uninstall r --dry-run",
            "helm rollback r 1 --dry-run",
        ] {
            assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
        }
    }

    #[test]
    fn writes() {
        for line in [
            "helm",
            "helm install myrelease nginx",
            "helm upgrade myrelease nginx",
            "helm upgrade --install r ./chart --dry-run=false",
            "helm install r ./chart --dry-run --post-renderer ./x.sh",
            "helm install r ./chart --dry-run --dependency-update",
            "helm uninstall myrelease",
            "helm delete myrelease",
            "helm del myrelease",
            "helm un myrelease",
            "helm rollback myrelease 1",
            "helm test myrelease",
            "helm repo add stable https://charts.helm.sh/stable",
            "helm repo remove stable",
            "helm repo rm stable",
            "helm repo update",
            "helm repo index charts",
            "helm repo invalid",
            "helm create mychart",
            "helm package mychart",
            "helm push mychart.tgz oci://registry.example.com",
            "helm pull bitnami/nginx",
            "helm fetch bitnami/nginx",
            "helm dependency update ./mychart",
            "helm dependency build ./mychart",
            "helm plugin install https://github.com/x/y",
            "helm plugin uninstall p",
            "helm plugin update p",
            "helm registry login registry.example.com",
            "helm registry logout registry.example.com",
            "helm env set HELM_DRIVER sql",
            "helm config list",
            "helm mapkubeapis myrelease",
            "helm nonexistent",
            "helm get invalid myrelease",
            "helm show invalid nginx",
            "helm template r ./chart --output-dir out",
            "helm template r ./chart --post-renderer ./kustomize.sh",
            "helm template r ./chart --dependency-update",
            "helm template myrelease nginx --evil-option",
            "helm template myrelease nginx --atomic",
            "helm template myrelease nginx --wait",
            "helm template myrelease nginx --force",
            "helm list --evil",
            "helm diff upgrade r ./chart --post-renderer ./x",
            "helm LIST",
        ] {
            assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
        }
    }
}
