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
