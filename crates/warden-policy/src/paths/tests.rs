use super::*;
use crate::shell::ast::Dialect;

fn literal_paths(command: &str) -> Vec<String> {
    Mentions::of(command, Dialect::Bash)
        .paths
        .iter()
        .filter_map(|m| m.pattern.literal())
        .collect()
}

#[test]
fn words_redirects_and_embedded_paths_are_mentions() {
    let found = literal_paths("dd if=/etc/shadow of=/tmp/x 2>/var/log/e; cat <<<x > /root/y");
    for expected in ["/etc/shadow", "/tmp/x", "/var/log/e", "/root/y"] {
        assert!(
            found.iter().any(|p| p == expected),
            "{expected} not in {found:?}"
        );
    }
}

#[test]
fn nested_shell_text_and_quoted_sql_are_read() {
    let found = literal_paths("sh -c 'sqlite3 /data/warden.db \"attach \\'/data/x.db\\' as y\"'");
    assert!(found.iter().any(|p| p == "/data/warden.db"), "{found:?}");
}

#[test]
fn recursive_readers_are_marked() {
    let mentions = Mentions::of("grep -r token /var/lib", Dialect::Bash);
    assert!(mentions.paths.iter().any(|m| m.recursive));
    let mentions = Mentions::of("cat /var/lib/x", Dialect::Bash);
    assert!(mentions.paths.iter().all(|m| !m.recursive));
    let mentions = Mentions::of("find /var -name '*.db' | xargs cat", Dialect::Bash);
    assert!(mentions.paths.iter().any(|m| m.recursive));
}

#[test]
fn computed_words_are_noticed() {
    assert!(Mentions::of("cat $(echo /x)", Dialect::Bash).has_wholly_computed());
    assert!(!Mentions::of("cat /etc/hostname", Dialect::Bash).has_wholly_computed());
}

mod protect {
    use super::super::protect::{Filesystem, Protected, Rule, Strictness, check};
    use super::*;
    use std::collections::BTreeMap;

    /// A tree of directories and files with symbolic links.
    struct Tree {
        links: BTreeMap<&'static str, &'static str>,
        dirs: BTreeMap<&'static str, Vec<&'static str>>,
    }

    impl Filesystem for Tree {
        fn canonical(&self, path: &str) -> String {
            // Resolve the longest linked prefix, once (enough for tables).
            for (link, target) in self.links.iter().rev() {
                if path == *link {
                    return (*target).to_string();
                }
                if let Some(rest) = path.strip_prefix(&format!("{link}/")) {
                    return format!("{target}/{rest}");
                }
            }
            path.to_string()
        }

        fn list(&self, dir: &str) -> Vec<String> {
            self.dirs
                .get(dir)
                .map(|names| names.iter().map(|n| n.to_string()).collect())
                .unwrap_or_default()
        }
    }

    fn tree() -> Tree {
        Tree {
            links: BTreeMap::from([
                ("/srv/w", "/var/lib/warden"),
                ("/tmp/l", "/var/lib/warden/warden.db"),
            ]),
            dirs: BTreeMap::from([
                ("/", vec!["var", "etc", "proc", "srv", "tmp"]),
                ("/var", vec!["lib", "log"]),
                ("/var/lib", vec!["warden", "apt", "dpkg"]),
                (
                    "/var/lib/warden",
                    vec!["warden.db", "warden.db-wal", "admin-password"],
                ),
                ("/etc/warden", vec!["config.toml", "public.toml"]),
                ("/proc", vec!["1", "4242", "4243", "self"]),
            ]),
        }
    }

    fn protected() -> Vec<Protected> {
        vec![
            Protected::tree("/var/lib/warden", "Warden's data directory"),
            Protected::file(
                "/etc/warden/config.toml",
                "a configuration file holding a secret",
            ),
            Protected::process(4242, "Warden's process"),
            Protected::process(4243, "a thread of Warden"),
        ]
    }

    fn verdict(command: &str, strictness: Strictness) -> Result<(), Rule> {
        check(
            &Mentions::of(command, Dialect::Bash),
            &protected(),
            &tree(),
            strictness,
        )
        .map_err(|hit| hit.rule)
    }

    #[test]
    fn table() {
        use Rule::*;
        use Strictness::*;
        let rows: &[(&str, Strictness, Result<(), Rule>)] = &[
            (
                "cat /var/lib/warden/admin-password",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "base64 /var/lib/warden/warden.db",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "xxd -p /var//lib/./warden/warden.db-wal",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cat /var/lib/apt/../warden/admin-password",
                Namespaces,
                Err(ProtectedPath),
            ),
            ("cat /srv/w/admin-password", Namespaces, Err(ProtectedPath)),
            ("cat /tmp/l", Namespaces, Err(ProtectedPath)),
            ("cat /var/lib/w*/admin-*", Namespaces, Err(ProtectedPath)),
            (
                "cat /var/lib/ward?n/warden.[d]b",
                Namespaces,
                Err(ProtectedPath),
            ),
            ("cat /s*/w/warden.db", Namespaces, Err(ProtectedPath)),
            (
                "cat /var/lib/{apt,warden}/admin-password",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cd /var/lib/warden && cat admin-password",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cd /var/lib && tail -n 5 warden/admin-password",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "sqlite3 -readonly /var/lib/warden/warden.db 'select 1'",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "sh -c 'cat /var/lib/warden/warden.db'",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "dd if=/var/lib/warden/warden.db bs=1",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cp /var/lib/warden/warden.db /dev/stdout",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "tar -C /var/lib -cf - warden",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cat < /etc/warden/config.toml",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "grep -r key /etc/warden/config.toml",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cat /var/lib/warden/$(echo warden.db)",
                Namespaces,
                Err(ProtectedPath),
            ),
            ("cat /proc/4242/environ", Namespaces, Err(ProcessEntry)),
            ("cat /proc/4243/mem", Namespaces, Err(ProcessEntry)),
            ("strings /proc/*/environ", Namespaces, Err(ProcessEntry)),
            (
                "cat /proc/4242/task/4243/environ",
                Namespaces,
                Err(ProcessEntry),
            ),
            (
                "cat /proc/1/root/var/lib/warden/warden.db",
                Namespaces,
                Err(ProtectedPath),
            ),
            ("ls /proc/1/cwd/", Namespaces, Ok(())),
            ("cat /proc/1/cwd/warden.db", Namespaces, Err(ProcessHandle)),
            ("cat /proc/4242/status", Namespaces, Ok(())),
            ("cat /proc/self/environ", Namespaces, Ok(())),
            ("cat /proc/self/status /proc/4242/stat", Namespaces, Ok(())),
            ("ls -d /proc/4242", Namespaces, Ok(())),
            ("cat /etc/warden/public.toml", Namespaces, Ok(())),
            ("cat /var/lib/wardenx/file", Namespaces, Ok(())),
            ("ls /var/lib", Namespaces, Ok(())),
            ("grep -r x /var/lib", Namespaces, Ok(())),
            ("grep -r x /var/lib", PolicyOnly, Err(RecursiveAbove)),
            ("tar -cf - /var", PolicyOnly, Err(RecursiveAbove)),
            (
                "find / -name '*.db' -exec cat {} +",
                PolicyOnly,
                Err(RecursiveAbove),
            ),
            (
                "find /var -name '*.db' | xargs cat",
                PolicyOnly,
                Err(RecursiveAbove),
            ),
            (
                "find /var/log -name '*.log' | xargs tail -n1",
                PolicyOnly,
                Ok(()),
            ),
            ("cat $(cat /tmp/list)", PolicyOnly, Err(ComputedPath)),
            ("cat $(cat /tmp/list)", Namespaces, Ok(())),
            ("echo hello", PolicyOnly, Ok(())),
            ("systemctl status nginx", PolicyOnly, Ok(())),
            ("df -h /var/lib", PolicyOnly, Ok(())),
            (
                "cat $'\\x2fvar\\x2flib\\x2fwarden\\x2fadmin-password'",
                PolicyOnly,
                Err(ProtectedPath),
            ),
            (
                "cat $'\\x2fvar\\x2flib\\x2fwarden\\x2fadmin-password'",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cat /var/lib/war\"\"den/admin-password",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cat /var/lib/war\\den/admin-password",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cat /var/lib/warden/admin-passw{o,x}rd",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cat /var/lib/warden/admin-passw[o]rd",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "d=/var/lib/warden; cat $d/admin-password",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "cat /var/lib/${x}warden/admin-password",
                PolicyOnly,
                Err(ProtectedPath),
            ),
            (
                "python3 -c 'print(open(\"/var/lib/warden/admin-password\").read())'",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "awk 1 /var/lib/warden/warden.db",
                Namespaces,
                Err(ProtectedPath),
            ),
            (
                "ln -s /var/lib/warden /tmp/x",
                Namespaces,
                Err(ProtectedPath),
            ),
        ];
        let mut failures = Vec::new();
        for (command, strictness, expected) in rows {
            let got = verdict(command, *strictness);
            if got != *expected {
                failures.push(format!(
                    "{command} ({strictness:?}): expected {expected:?}, got {got:?}"
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn the_refusal_names_the_rule_and_the_entry() {
        let hit = check(
            &Mentions::of("cat /srv/w/admin-password", Dialect::Bash),
            &protected(),
            &tree(),
            Strictness::Namespaces,
        )
        .unwrap_err();
        let message = hit.to_string();
        assert!(message.contains("rule protected-path"), "{message}");
        assert!(
            message.contains("Warden's data directory (/var/lib/warden)"),
            "{message}"
        );
    }
}
