use super::*;

fn args(words: &[&'static str]) -> Vec<Arg<'static>> {
    words.iter().map(|w| Arg::literal(w)).collect()
}

const SPEC: Flags = Flags {
    short_values: "no",
    short_flags: "aft",
    long_values: &["--tail"],
    long_flags: &["--follow"],
    ..Options::GO
};

#[test]
fn words_walk_clusters_and_values() {
    let a = args(&["-afn5", "x", "--tail", "3", "-o=json", "--", "-t"]);
    let words: Vec<_> = walk_sets(&[&SPEC], &a).collect();
    assert_eq!(
        words,
        vec![
            Tok::Short {
                index: 0,
                flag: 'a',
                value: None
            },
            Tok::Short {
                index: 0,
                flag: 'f',
                value: None
            },
            Tok::Short {
                index: 0,
                flag: 'n',
                value: Some("5")
            },
            Tok::Operand {
                index: 1,
                text: "x"
            },
            Tok::Long {
                index: 2,
                name: "--tail",
                value: Some("3")
            },
            Tok::Short {
                index: 4,
                flag: 'o',
                value: Some("json")
            },
            Tok::Operand {
                index: 6,
                text: "-t"
            },
        ]
    );
}

#[test]
fn switches_keep_the_last_occurrence() {
    let a = args(&["-f", "--follow=false"]);
    let s = switch(&a, &[&SPEC], Some('f'), "--follow");
    assert!(s.given && !s.on);
    let a = args(&["-tf"]);
    let s = switch(&a, &[&SPEC], Some('f'), "--follow");
    assert!(s.on && s.clustered);
}

/// Like `testing::rule_verdict`, but words with `$` are dynamic and
/// words with `*` are globs.
fn shaped(line: &'static str) -> Verdict {
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or_default();
    let args: Vec<Arg<'static>> = words
        .map(|w| {
            let mut arg = Arg::literal(w);
            if w.contains('"') {
                arg.text = w.replace('"', "").into();
            }
            if w.contains('$') {
                arg.shape = crate::invocation::ArgShape::Dynamic;
            } else if w.contains('*') {
                arg.shape = crate::invocation::ArgShape::Glob;
            }
            arg
        })
        .collect();
    match crate::commands::lookup(name) {
        Some(rule) => rule(&Invocation::new(name, &args)),
        None => panic!("no rule for {name}"),
    }
}

#[test]
fn expansions() {
    // An expansion is read as the option or value it sits in when its
    // literal head says what it is and quotes keep it one word.
    for line in [
        "kubectl get pods -l \"app=$APP_NAME\" -n \"$NAMESPACE\"",
        "kubectl logs \"pod/$POD\" --tail=20",
        "kubectl create secret generic s \"--from-literal=k=$V\" --dry-run=client -o yaml",
        "kubectl exec -n \"$NS\" -c \"$C\" web -- ls",
        "docker --context \"$CTX\" ps",
        "kubectl --namespace=\"$NS\" get pods",
        "docker --context=\"$CTX\" ps",
        "kubectl kustomize \"overlays/$ENV\"",
    ] {
        let verdict = shaped(line);
        assert!(
            matches!(verdict, Verdict::Read | Verdict::Wrap(_)),
            "{line}: {verdict:?}"
        );
    }
    // Unquoted expansions split into words, any of which can be an option;
    // a quoted one that starts with the expansion can be an option too.
    for line in [
        "kubectl get pods -l app=$APP_NAME -n $NAMESPACE",
        "kubectl get pod $POD",
        "kubectl get pod \"$POD\"",
        "kubectl logs $POD --tail=20",
        "docker logs $C",
        "docker exec $C cat /x",
        "kubectl exec $POD -- cat /etc/hosts",
        "kubectl $CMD pods",
        "kubectl -n x $CMD pods",
        "kubectl $FLAGS get pods",
        "docker $FLAGS ps",
        "docker $CMD ps",
        "kubectl delete pod nginx --dry-run=client $EXTRA",
        "kubectl apply -f x.yaml --dry-run=client *",
        "kubectl kustomize $DIR",
        "kubectl exec $OPT nginx -- ls",
        "kubectl cluster-info dump $ARGS",
        "docker compose config $ARGS",
        "docker exec -e $ENV web ls",
        "helm install r ./chart --dry-run $ARGS",
        "helm template r ./chart $EXTRA",
        "podman generate kube $X",
    ] {
        let verdict = shaped(line);
        assert!(
            matches!(verdict, Verdict::Unknown(_) | Verdict::Write(..)),
            "{line}: {verdict:?}"
        );
    }
}

#[test]
fn dry_run_spellings() {
    for (words, expected) in [
        (&["--dry-run"][..], true),
        (&["--dry-run=client"][..], true),
        (&["--dry-run=server"][..], true),
        (&["--dry-run", "client"][..], true),
        (&["--dry-run=none"][..], false),
        (&["--dry-run", "none"][..], false),
        (&["--dry-run=client", "--dry-run=false"][..], false),
        (&["--", "--dry-run"][..], false),
        // The value of `-f`, not a dry run.
        (&["-f", "--dry-run"][..], false),
        (&["--filename", "--dry-run"][..], false),
    ] {
        const SET: Flags = Flags {
            short_values: "f",
            long_values: &["--filename"],
            long_flags: &["--dry-run"],
            ..Options::GO
        };
        assert_eq!(dry_run(&args(words), &[&SET]), expected, "{words:?}");
    }
}
