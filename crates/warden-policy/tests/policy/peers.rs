//! The peers' classifier tables (Pulse, codex, HolmesGPT, kubectl-ai) as a
//! report: agreement rate and every disagreement. Their labels follow their
//! own policies; where ours deliberately accepts what a peer refuses, the case
//! is listed in `DELIBERATE` with the reason. Any other accepted WRITE or
//! INTERACTIVE row fails the test. Run with `-- --nocapture` to see the report.

use crate::support;

use support::{Label, agrees, classify_row, load_labelled};

/// Peer rows labelled WRITE/INTERACTIVE that Warden accepts on purpose.
const DELIBERATE: &[(&str, &str, &str)] = &[
    // Lists: a list is read-only iff every part is (DESIGN.md); the peers
    // refuse every `;`/`&&` list because their parsers cannot look inside.
    (
        "holmesgpt",
        "kubectl get pods -n namespace && kubectl get pods -n namespace",
        "a list of two reads",
    ),
    (
        "kubectl-ai",
        "kubectl get pods; kubectl get deployments",
        "a list of two reads",
    ),
    ("codex", "bash -lc '(ls)'", "a subshell of a read is a read"),
    (
        "codex",
        "bash -lc 'ls || (pwd && echo hi)'",
        "every part is a read",
    ),
    // Substitutions of reads are reads: the engine classifies what runs inside
    // `$(…)` and backquotes instead of refusing every substitution (Pulse).
    (
        "pulse",
        "echo $(cat /etc/passwd)",
        "the substitution runs `cat`, a read",
    ),
    (
        "pulse",
        "echo `whoami`",
        "the substitution runs `whoami`, a read",
    ),
    (
        "pulse",
        "cat $(find /etc -name passwd)",
        "the substitution runs `find` without actions",
    ),
    (
        "pulse",
        "cat `which python`",
        "the substitution runs `which`, a read",
    ),
    (
        "kubectl-ai",
        "kubectl get pod `cat podname.txt`",
        "the substitution runs `cat`, a read",
    ),
    // Wrappers are looked through (DESIGN.md): the inner command decides.
    (
        "pulse",
        "docker exec mycontainer cat /etc/hosts",
        "`docker exec` is looked through; `cat` reads",
    ),
    (
        "pulse",
        "docker exec mycontainer ps aux",
        "`docker exec` is looked through; `ps` reads",
    ),
    (
        "pulse",
        "docker exec mycontainer bash -c 'echo hello'",
        "both wrappers are looked through; `echo` reads",
    ),
    (
        "pulse",
        "kubectl exec my-pod -- cat /etc/hosts",
        "`kubectl exec` is looked through; `cat` reads",
    ),
    (
        "pulse",
        "kubectl exec my-pod -- ps aux",
        "`kubectl exec` is looked through; `ps` reads",
    ),
    (
        "pulse",
        "bash -c \"echo done\"",
        "`bash -c` is looked through; `echo` reads",
    ),
    (
        "pulse",
        "sh -c \"echo done\"",
        "`sh -c` is looked through; `echo` reads",
    ),
    (
        "holmesgpt",
        "docker exec mycontainer ls",
        "`docker exec` is looked through; `ls` reads",
    ),
    (
        "kubectl-ai",
        "kubectl exec -n demo tgi-pod -- nvidia-smi",
        "`kubectl exec` is looked through; `nvidia-smi` without setters reads",
    ),
    // Pipelines of reads are reads; kubectl-ai judges only kubectl itself.
    (
        "kubectl-ai",
        "kubectl get pods | grep nginx",
        "a pipeline of reads",
    ),
    (
        "kubectl-ai",
        "kubectl get pods | grep -v Completed",
        "a pipeline of reads",
    ),
    (
        "kubectl-ai",
        "kubectl get pods | awk '{print $1}'",
        "a pipeline of reads; the awk program only prints",
    ),
    (
        "kubectl-ai",
        "ls -la",
        "kubectl-ai refuses everything that is not kubectl",
    ),
    // codex confines commands to a workspace, so it refuses `git -C`. Warden
    // has no workspace to escape: `git -C DIR status` is `cd DIR && git status`,
    // which is a read wherever it runs. (`--git-dir`/`--work-tree` stay refused:
    // they make any directory act as a repository, with its configuration.)
    ("codex", "git -C . status", "`-C DIR` is `cd DIR` for git"),
    (
        "codex",
        "bash -lc 'git -C .project-deps/test-fixtures status'",
        "`-C DIR` is `cd DIR` for git",
    ),
    (
        "codex",
        "bash -lc git status",
        "the script is bare `git` (prints usage); `status` is only `$0`",
    ),
    // Options that only read more input.
    (
        "codex",
        "sed -n xp file.txt",
        "`x` swaps the hold space and `p` prints: no write, no exec",
    ),
    (
        "holmesgpt",
        "jq --slurpfile data.json '.'",
        "reads a file into a variable",
    ),
    (
        "holmesgpt",
        "jq --rawfile content.txt '.'",
        "reads a file into a variable",
    ),
    (
        "holmesgpt",
        "sed '1R /tmp/input'",
        "`R` reads a line from a file",
    ),
    (
        "holmesgpt",
        "sed 'r /etc/passwd'",
        "`r` reads a file into the output",
    ),
    (
        "holmesgpt",
        "wc --files0-from /dev/stdin",
        "reads file names from stdin, then reads those files",
    ),
    // Cloud CLIs: read-only API calls. HolmesGPT refuses calls that reveal
    // secrets or that its allowlist lacks; Warden's contract is mutation and
    // boundedness, not secrecy (as with `cat /etc/shadow`), and a call to a
    // service that does not exist fails in the CLI without changing anything.
    (
        "holmesgpt",
        "aws configure list",
        "prints the CLI configuration",
    ),
    (
        "holmesgpt",
        "aws sts get-caller-identity",
        "asks who the caller is",
    ),
    (
        "holmesgpt",
        "aws secretsmanager list-secrets",
        "lists secret names",
    ),
    ("holmesgpt", "aws kms list-keys", "lists key ids"),
    (
        "holmesgpt",
        "aws nonexistent describe-something",
        "a describe call; unknown services fail",
    ),
    (
        "holmesgpt",
        "az keyvault secret list --vault-name mykeyvault",
        "lists secret names",
    ),
    (
        "holmesgpt",
        "az keyvault secret show --name mysecret --vault-name mykeyvault",
        "reads a secret",
    ),
    (
        "holmesgpt",
        "az keyvault key list --vault-name mykeyvault",
        "lists keys",
    ),
    (
        "holmesgpt",
        "az keyvault certificate list --vault-name mykeyvault",
        "lists certificates",
    ),
    (
        "holmesgpt",
        "az nonexistent list",
        "a list call; unknown groups fail",
    ),
    ("holmesgpt", "az ad user list", "lists users"),
    (
        "holmesgpt",
        "az role assignment list",
        "lists role assignments",
    ),
    ("holmesgpt", "az policy definition list", "lists policies"),
    ("holmesgpt", "az devops project list", "lists projects"),
    ("holmesgpt", "az repos list", "lists repositories"),
    // Options before the subcommand: kubectl-ai's parser cannot skip them.
    (
        "kubectl-ai",
        "kubectl --context prod --namespace app get pods",
        "global options before `get`",
    ),
    (
        "kubectl-ai",
        "kubectl --context=prod --namespace app get pods",
        "global options before `get`",
    ),
    ("kubectl-ai", "kubectl --help", "prints help"),
    // HolmesGPT refuses these for its own allowlist or naming rules, not because they write.
    ("holmesgpt", "argocd appset list", "lists ApplicationSets"),
    (
        "holmesgpt",
        "helm template 'Invalid-Release-Name!' nginx",
        "renders to stdout; the release name is never used",
    ),
    (
        "holmesgpt",
        "helm template MyRelease nginx",
        "renders to stdout",
    ),
    (
        "holmesgpt",
        "kubectl auth can-i '*' '*' --as=system:anonymous",
        "asks the API server a question; changes nothing",
    ),
];

const PEERS: &[&str] = &["pulse", "codex", "holmesgpt", "kubectl-ai"];

#[test]
fn peer_tables_report() {
    let mut unexpected = Vec::new();
    for peer in PEERS {
        let rows = load_labelled(&format!("corpus/peers/{peer}.tsv"));
        let mut agree = 0;
        let mut read_rejected = Vec::new();
        let mut deliberate = Vec::new();
        for row in &rows {
            let c = classify_row(row);
            if agrees(row.label, &c) {
                agree += 1;
                continue;
            }
            match row.label {
                Label::Read => read_rejected.push(format!("    `{}`: {}", row.command, c.reason)),
                Label::Write | Label::Interactive if !c.read_allowed() => {
                    // A refused INTERACTIVE row we call a write: still refused.
                    agree += 1;
                }
                Label::Write | Label::Interactive => {
                    match DELIBERATE
                        .iter()
                        .find(|(p, cmd, _)| p == peer && *cmd == row.command)
                    {
                        Some((_, _, why)) => {
                            deliberate.push(format!("    `{}`: {why}", row.command))
                        }
                        None => unexpected.push(format!(
                            "  {peer}:{}: `{}` accepted ({})",
                            row.line, row.command, c.reason
                        )),
                    }
                }
            }
        }
        println!(
            "{peer}: {agree}/{} agree ({:.1}%); {} READ rows refused; {} deliberate differences",
            rows.len(),
            100.0 * agree as f64 / rows.len() as f64,
            read_rejected.len(),
            deliberate.len()
        );
        if !read_rejected.is_empty() {
            println!("  READ rows refused:\n{}", read_rejected.join("\n"));
        }
        if !deliberate.is_empty() {
            println!("  accepted on purpose:\n{}", deliberate.join("\n"));
        }
    }
    assert!(
        unexpected.is_empty(),
        "peer rows labelled WRITE/INTERACTIVE accepted without a documented reason:\n{}",
        unexpected.join("\n")
    );
}
