//! Every plan is checked: `interactive` is reported for writes as well as
//! reads (tty flags, pagers and editors, unbounded streams, REPLs), so the
//! executor can refuse a write that would never end.

use super::all;
use warden_policy::InteractiveCategory;

fn category(commands: &[&str], category: InteractiveCategory) {
    all(commands, category.as_str(), |c| {
        c.interactive
            .as_ref()
            .is_some_and(|i| i.category == category)
    });
}

fn interactive(commands: &[&str]) {
    all(commands, "interactive", |c| c.interactive.is_some());
}

fn not_interactive(commands: &[&str]) {
    all(commands, "not interactive", |c| c.interactive.is_none());
}

#[test]
fn writes_that_open_editors_or_terminals() {
    category(
        &[
            "vim /etc/x",
            "vi /etc/nginx/nginx.conf",
            "nano /etc/hosts",
            "sudo vim /etc/x",
            "sudoedit /etc/x",
            "systemctl edit nginx",
            "crontab -e",
            "visudo",
            "kubectl edit deploy x",
            "git commit",
            "git rebase -i HEAD~3",
        ],
        InteractiveCategory::Pager,
    );
    category(
        &[
            "docker exec -it c sh",
            "docker exec -t c ls",
            "docker run -it alpine sh",
            "kubectl exec -it x -- sh",
            "podman exec -it c bash",
            "ssh -t host top",
            "docker attach c",
        ],
        InteractiveCategory::TtyFlag,
    );
    category(
        &[
            "mysql",
            "psql",
            "redis-cli",
            "sqlite3 db",
            "python3",
            "bash",
            "ssh host",
            "pct enter 101",
            "qm terminal 100",
            "virsh console vm1",
            "tmux",
            "screen -S x",
            "fdisk /dev/sda",
        ],
        InteractiveCategory::InteractiveRepl,
    );
}

#[test]
fn writes_that_never_end() {
    category(
        &[
            "systemctl restart x && journalctl -fu x",
            "systemctl restart nginx; journalctl -f",
            "docker restart c && docker logs -f c",
            "kubectl rollout restart deploy/x && kubectl get pods -w",
            "apt-get install -y x && tail -f /var/log/x",
            "kubectl port-forward svc/x 8080:80",
            "kubectl proxy",
            "nc -l 8080",
            "iperf3 -s",
            "python3 -m http.server",
            "sleep infinity",
            "yes > /tmp/x",
            "while true; do date >> /tmp/x; done",
        ],
        InteractiveCategory::UnboundedStream,
    );
    interactive(&[
        "mosquitto_sub -t x",
        "ncdu /",
        "watch -n 1 'echo x >> /tmp/y'",
    ]);
    not_interactive(&[
        "systemctl restart nginx",
        "apt-get install -y nginx",
        "rm -rf /tmp/build",
        "docker restart c && docker logs --tail 100 c",
        "kubectl rollout restart deploy/x && kubectl rollout status deploy/x --timeout=60s",
        "systemctl restart x && journalctl -u x -n 50",
    ]);
}
