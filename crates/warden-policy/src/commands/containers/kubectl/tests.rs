use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
use crate::verdict::{Inner, InteractiveCategory, Risk, Verdict};

#[test]
fn reads() {
    for line in [
        "kubectl get pods",
        "kubectl get nodes -o wide",
        "kubectl get svc -n kube-system",
        "kubectl get pods -A",
        "kubectl get pods --all-namespaces -o yaml",
        "kubectl get pods -owide",
        "kubectl get pods -ojsonpath={.items[0].metadata.name}",
        "kubectl get pods -o=custom-columns=NAME:.metadata.name",
        "kubectl get pods -l app=nginx,version=v1",
        "kubectl get pods -lapp=web",
        "kubectl get pods --selector=app!=nginx",
        "kubectl get pods --field-selector=status.phase=Running",
        "kubectl get pods --show-labels --sort-by=.metadata.name",
        "kubectl get pods --watch=false",
        "kubectl get --raw /api/v1/nodes",
        "kubectl get pv",
        "kubectl get pods -l app=$APP_NAME -n $NAMESPACE",
        "kubectl get pod $POD",
        "kubectl -n kube-system get pods",
        "kubectl --context=prod --namespace=app get pods",
        "kubectl --context prod --namespace app get pods",
        "kubectl --kubeconfig=/etc/kubernetes/admin.conf get pods",
        "kubectl --kubeconfig ~/.kube/config get pods",
        "kubectl --token=abc get pods",
        "kubectl -v=6 get pods",
        "kubectl -v 6 get pods",
        "kubectl --as=system:serviceaccount:default:deployer get pods",
        "kubectl --request-timeout=5s get pods",
        "kubectl -l app=x get pods",
        "kubectl get pods --context prod",
        "kubectl describe node worker-1",
        "kubectl describe pods -l app=nginx",
        "kubectl logs -n kube-system coredns-5d78 --tail=50",
        "kubectl logs nginx",
        "kubectl logs nginx -c sidecar --previous",
        "kubectl logs -p nginx",
        "kubectl logs deploy/api --since=1h --timestamps",
        "kubectl logs -n app-27b arctic-fox --previous --all-containers=true",
        "kubectl logs --follow=false nginx",
        "kubectl top nodes",
        "kubectl top pods --containers -A",
        "kubectl explain pods --recursive",
        "kubectl api-resources",
        "kubectl api-resources --namespaced=true -o wide",
        "kubectl api-versions",
        "kubectl version",
        "kubectl version --client -o json",
        "kubectl cluster-info",
        "kubectl cluster-info dump",
        "kubectl cluster-info dump -A",
        "kubectl config view",
        "kubectl config view --flatten --minify",
        "kubectl config view -o json",
        "kubectl config get-contexts",
        "kubectl config get-clusters",
        "kubectl config get-users",
        "kubectl config current-context",
        "kubectl --kubeconfig /root/.kube/config config view --raw",
        "kubectl auth can-i create pods",
        "kubectl auth can-i --list -n default",
        "kubectl auth whoami",
        "kubectl diff -f deployment.yaml",
        "kubectl diff -k ./overlay",
        "kubectl events",
        "kubectl events --for=pod/my-pod --types=Warning",
        "kubectl rollout status deployment nginx",
        "kubectl rollout status deploy/api --timeout=60s",
        "kubectl rollout --recursive=false status --timeout=0s deployment -w nginx",
        "kubectl rollout history deploy/api",
        "kubectl rollout history deploy/api --revision=3",
        "kubectl kustomize ./",
        "kubectl kustomize overlays/prod --load-restrictor=LoadRestrictionsNone",
        "kubectl convert -f pod.yaml --output-version=v1",
        "kubectl completion bash",
        "kubectl plugin list",
        "kubectl wait --for=condition=Ready pod/x --timeout=60s",
        "kubectl wait --for=delete pod/x --timeout 30s",
        "kubectl create -f pod.yaml --dry-run=client",
        "kubectl create deployment x --image=nginx --dry-run=client -o yaml",
        "kubectl create secret generic s --from-literal=k=$V --dry-run=client -o yaml",
        "kubectl apply -f deployment.yaml --dry-run",
        "kubectl apply -f pod.yaml --dry-run=server",
        "kubectl delete pod nginx --dry-run client",
        "kubectl delete pod nginx --dry-run=server",
        "kubectl drain node1 --dry-run=client --ignore-daemonsets",
        "kubectl scale deploy api --replicas=3 --dry-run=server",
        "kubectl label pod x a=b --dry-run=client",
        "kubectl set image deploy/api api=api:v2 --dry-run=client",
        "kubectl rollout undo deploy/api --dry-run=server",
        "kubectl expose deploy api --port=80 --dry-run=client -o yaml",
        "kubectl run nginx --image=nginx --dry-run=client -o yaml",
        "kubectl create cm x --from-literal=a=b --dry-run=client -ojsonpath={.data}",
        "kubectl apply view-last-applied deploy/api",
        "kubectl help",
        "kubectl --help",
        "kubectl get --help",
        "kubectl delete --help",
        "oc get pods",
        "oc status",
        "oc project",
        "oc whoami",
        "oc whoami --show-server",
        "kubectl config view --raw -o json",
        "kubecolor get pods",
        "microk8s.kubectl get nodes",
    ] {
        assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
    }
}

#[test]
fn writes() {
    for line in [
        // A server named on the command line gets the kubeconfig's credentials.
        "kubectl -s https://k8s:6443 --insecure-skip-tls-verify get nodes",
        "kubectl --server=https://x.example get pods",
        "kubectl",
        "kubectl --context prod",
        "kubectl GET pods",
        "kubectl something get pods",
        "kubectl --verbose get pods",
        "kubectl --force delete pod nginx",
        "kubectl --replicas=3 scale deployment/nginx-deployment",
        "kubectl get pods --verbose",
        "kubectl get pods --profile=cpu",
        "kubectl --profile=cpu get pods",
        "kubectl create -f pod.yaml",
        "kubectl create serviceaccount jenkins",
        "kubectl create ns test",
        "kubectl apply -f deployment.yaml",
        "kubectl apply -f deploy.yaml --server-side",
        "kubectl apply -f https://example.com/manifest.yaml",
        "kubectl apply set-last-applied -f x.yaml",
        "kubectl delete pod nginx",
        "kubectl delete ns staging",
        "kubectl delete pod x --force --grace-period=0",
        "kubectl delete pod nginx --dry-run=none",
        "kubectl delete pod nginx --dry-run=false",
        "kubectl delete pod nginx --dry-run none",
        "kubectl delete pod nginx --dry-run=client --dry-run=none",
        "kubectl delete -- pod nginx --dry-run",
        "kubectl create --raw /api/v1/namespaces -f ns.json --dry-run=client",
        "kubectl create -f x.yaml --edit --dry-run=client",
        "kubectl replace --force -f x.yaml",
        "kubectl patch svc nginx -p {\"spec\":{}}",
        "kubectl label pod nginx app=web",
        "kubectl annotate pod x a=b",
        "kubectl scale deployment nginx --replicas=3",
        "kubectl autoscale deploy api --max=5",
        "kubectl expose deploy api --port=80",
        "kubectl run nginx --image=nginx",
        "kubectl set image deploy/api api=api:v2",
        "kubectl taint nodes node1 key=value:NoSchedule",
        "kubectl drain node1",
        "kubectl cordon node1",
        "kubectl uncordon node1",
        "kubectl rollout restart deployment nginx",
        "kubectl rollout undo deploy/api",
        "kubectl rollout pause deploy/api",
        "kubectl rollout resume deploy/api",
        "kubectl rollout frob deploy/api",
        "kubectl config set-context my-context",
        "kubectl config use-context production",
        "kubectl config set-credentials admin --token=x",
        "kubectl config delete-context x",
        "kubectl config rename-context a b",
        "kubectl config unset users.x",
        "kubectl cluster-info dump --output-directory=/tmp/dump",
        "kubectl kustomize ./ -o out.yaml",
        "kubectl kustomize --enable-alpha-plugins --enable-exec ./",
        "kubectl kustomize --enable-helm ./",
        "kubectl certificate approve csr-12345",
        "kubectl certificate deny csr-12345",
        "kubectl cp mypod:/tmp/foo /tmp/bar",
        "kubectl debug node/x -it --image=busybox",
        "kubectl alpha debug pod/nginx",
        "kubectl auth reconcile -f rbac.yaml",
        "kubectl plugin frob",
        "kubectl exec nginx",
        "kubectl exec nginx ls",
        "kubectl exec nginx --",
        "kubectl exec --frob nginx -- ls",
        "kubectl exec a b -- ls",
        "oc login https://api:6443",
        "oc project prod",
    ] {
        assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
    }
}

#[test]
fn risks() {
    for (line, risk) in [
        ("kubectl delete pod x", Risk::HighWrite),
        ("kubectl drain node1", Risk::HighWrite),
        ("kubectl create ns x", Risk::LowWrite),
        ("kubectl apply -f x.yaml", Risk::MediumWrite),
        ("kubectl apply -f x.yaml --prune -l a=b", Risk::HighWrite),
        ("kubectl config use-context prod", Risk::MediumWrite),
    ] {
        match rule_verdict(line) {
            Verdict::Write(r, _) => assert_eq!(r, risk, "{line}"),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn interactive() {
    for line in [
        "kubectl get deploy --watch",
        "kubectl get pods -w",
        "kubectl get pods -Aw",
        "kubectl get pods --watch-only",
        "kubectl get pods --selector app=nginx --watch",
        "kubectl events --watch",
        "kubectl events -w -n default",
        "kubectl logs --follow deploy/api",
        "kubectl logs -f pod-name",
        "kubectl logs nginx -f",
        "kubectl logs -fp nginx",
        "kubectl logs x -p -f",
        "kubectl logs -f --tail=5 x",
        "kubectl wait --for=condition=Ready pod/x",
        "kubectl proxy --port=8080",
        "kubectl port-forward svc/nginx 8080:80",
        "kubectl attach mypod -i",
        "kubectl attach mypod",
        "kubectl edit deployment nginx",
        "kubectl apply edit-last-applied deploy/api",
        "kubectl run -it busybox --image=busybox -- sh",
        "kubectl run x --image=busybox --dry-run=client -it",
    ] {
        assert!(is_interactive(line), "{line}: {:?}", rule_verdict(line));
    }
}

fn rewrite(line: &'static str) -> Option<String> {
    match rule_verdict(line) {
        Verdict::Interactive(_) => crate::commands::testing::full_rewrite(line),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn rewrites() {
    for (line, expected) in [
        (
            "kubectl logs -f X",
            Some("kubectl logs --tail=200 --since=10m X"),
        ),
        (
            "kubectl logs --follow deploy/api",
            Some("kubectl logs --tail=200 --since=10m deploy/api"),
        ),
        (
            "kubectl logs -f x --tail=50",
            Some("kubectl logs --since=10m x --tail=50"),
        ),
        (
            "kubectl logs -f x --since=1h",
            Some("kubectl logs --tail=200 x --since=1h"),
        ),
        (
            "kubectl -n app logs -f x -c web",
            Some("kubectl -n app logs --tail=200 --since=10m x -c web"),
        ),
        (
            "kubectl logs -fp x",
            Some("kubectl logs --tail=200 --since=10m -p x"),
        ),
    ] {
        assert_eq!(rewrite(line).as_deref(), expected, "{line}");
    }
    for line in [
        "kubectl logs --tail=200 --since=10m X",
        "kubectl -n app logs --tail=200 --since=10m x -c web",
    ] {
        assert!(is_read(line), "{line}");
    }
}

#[test]
fn exec_wraps() {
    for (line, start, tty) in [
        ("kubectl exec nginx -- cat /etc/hosts", 3, false),
        ("kubectl exec -n demo tgi-pod -- nvidia-smi", 5, false),
        ("kubectl exec -i nginx -- cat", 4, false),
        ("kubectl exec --stdin nginx -- cat", 4, false),
        ("kubectl exec nginx -c web -- ls /", 5, false),
        ("kubectl exec -c=web nginx -- ls", 4, false),
        ("kubectl exec $POD -- cat /etc/hosts", 3, false),
        ("kubectl exec -n $NS $POD -- cat /x", 5, false),
        ("kubectl -n x exec deploy/api -- env", 5, false),
        ("kubectl exec -ti x -- bash", 4, true),
        ("kubectl exec -it some-pod -- rm -rf /", 4, true),
        ("kubectl exec --tty --stdin pod-name -- sh", 5, true),
        ("kubectl exec -t x -- ls", 4, true),
    ] {
        match rule_verdict(line) {
            Verdict::Wrap(w) => {
                assert_eq!(w.inner, Inner::Argv { start }, "{line}");
                assert_eq!(
                    w.interactive.map(|i| i.category),
                    tty.then_some(InteractiveCategory::TtyFlag),
                    "{line}"
                );
            }
            other => panic!("{line}: {other:?}"),
        }
    }
}
