//! Properties: a secret of any class, embedded anywhere in random output,
//! never survives and leaves a marker; output with no secret comes back
//! unchanged and borrowed.

use std::borrow::Cow;

use proptest::prelude::*;
use serde_json::json;

use crate::redact::{MARKER_PREFIX, redact, redact_json};

/// A secret as it appears in output, and the bytes that must not survive.
#[derive(Debug, Clone)]
struct Secret {
    text: String,
    sensitive: Vec<String>,
}

fn secret(text: String, sensitive: &[&str]) -> Secret {
    Secret {
        text,
        sensitive: sensitive.iter().map(|s| (*s).to_string()).collect(),
    }
}

/// Characters of a password that may appear unquoted in running text.
const VALUE: &str = "[A-Za-z0-9%+/=@^_~.:-]{12,32}";

fn pem() -> impl Strategy<Value = Secret> {
    let label = prop::sample::select(vec![
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ]);
    let body = prop::collection::vec("[A-Za-z0-9+/]{40,64}", 1..4);
    (label, body, any::<bool>()).prop_map(|(label, body, truncated)| {
        let mut text = format!("-----BEGIN {label}-----\n{}", body.join("\n"));
        if !truncated {
            text.push_str(&format!("\n-----END {label}-----"));
        }
        let sensitive: Vec<&str> = body.iter().map(String::as_str).collect();
        secret(text, &sensitive)
    })
}

fn password_hash() -> impl Strategy<Value = Secret> {
    let id = prop::sample::select(vec!["1", "5", "6", "y", "2b", "2y", "apr1", "argon2id"]);
    (
        "[a-z]{3,8}",
        id,
        "[./A-Za-z0-9]{8,16}",
        "[./A-Za-z0-9]{22,43}",
    )
        .prop_map(|(user, id, salt, hash)| {
            let crypt = format!("${id}${salt}${hash}");
            secret(format!("{user}:{crypt}:19750:0:99999:7:::"), &[&crypt])
        })
}

fn header() -> impl Strategy<Value = Secret> {
    let name = prop::sample::select(vec![
        "Authorization: Bearer",
        "Authorization: Basic",
        "authorization: token",
        "X-API-Key:",
        "X-Auth-Token:",
    ]);
    (name, "[A-Za-z0-9._~+/-]{16,40}")
        .prop_map(|(name, token)| secret(format!("{name} {token}"), &[&token]))
}

fn token_shape() -> impl Strategy<Value = Secret> {
    prop_oneof![
        "[A-Za-z0-9]{36}".prop_map(|t| format!("ghp_{t}")),
        "[A-Za-z0-9]{36}".prop_map(|t| format!("gho_{t}")),
        "[A-Za-z0-9_]{40,60}".prop_map(|t| format!("github_pat_{t}")),
        "[A-Za-z0-9_-]{20}".prop_map(|t| format!("glpat-{t}")),
        "[0-9]{12}-[A-Za-z0-9]{24}".prop_map(|t| format!("xoxb-{t}")),
        "[A-Z0-9]{16}".prop_map(|t| format!("AKIA{t}")),
        "[A-Z0-9]{16}".prop_map(|t| format!("ASIA{t}")),
        "[A-Za-z0-9_-]{35}".prop_map(|t| format!("AIza{t}")),
        "[A-Za-z0-9]{30,48}".prop_map(|t| format!("sk-Ab1{t}")),
        "[A-Za-z0-9_-]{40,90}".prop_map(|t| format!("sk-ant-api03-{t}")),
        "[A-Za-z0-9]{24}".prop_map(|t| format!("sk_live_{t}")),
        (
            "[A-Za-z0-9_-]{10,30}",
            "[A-Za-z0-9_-]{10,60}",
            "[A-Za-z0-9_-]{10,43}"
        )
            .prop_map(|(h, p, s)| format!("eyJ{h}.eyJ{p}.{s}")),
    ]
    .prop_map(|t| secret(t.clone(), &[&t]))
}

fn assignment() -> impl Strategy<Value = Secret> {
    let key = prop::sample::select(vec![
        "DB_PASSWORD",
        "MYSQL_ROOT_PASSWORD",
        "POSTGRES_PASSWORD",
        "REDIS_PASS",
        "password",
        "passwd",
        "api_key",
        "apiKey",
        "client_secret",
        "token",
        "auth_token",
        "aws_secret_access_key",
        "PrivateKey",
        "PresharedKey",
        "client-key-data",
        "X-Vault-Token",
    ]);
    let style = prop::sample::select(vec![
        "{k}={v}",
        "{k}: {v}",
        "\"{k}\": \"{v}\"",
        "\"{k}\":\"{v}\"",
        "{k} = \"{v}\"",
        "{k} = '{v}'",
        "export {k}={v}",
        "--{k}={v}",
        "--{k} {v}",
        "\"{k}={v}\"",
        "<{k}>{v}</{k}>",
        "'{k}' => '{v}'",
        "- name: {k}\n  value: {v}",
    ]);
    (key, style, VALUE).prop_map(|(key, style, value)| {
        let text = style.replace("{k}", key).replace("{v}", &value);
        secret(text, &[&value])
    })
}

fn url_password() -> impl Strategy<Value = Secret> {
    let scheme = prop::sample::select(vec![
        "postgres",
        "mysql",
        "redis",
        "https",
        "amqp",
        "mongodb+srv",
    ]);
    (
        scheme,
        "[a-z]{0,8}",
        "[A-Za-z0-9%+=^_~-]{8,24}",
        "[a-z]{2,10}",
    )
        .prop_map(|(scheme, user, pass, host)| {
            secret(format!("{scheme}://{user}:{pass}@{host}:5432/db"), &[&pass])
        })
}

fn proxmox() -> impl Strategy<Value = Secret> {
    (
        "[a-z]{2,8}",
        "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    )
        .prop_map(|(id, uuid)| secret(format!("PVEAPIToken=root@pam!{id}={uuid}"), &[&uuid]))
}

fn any_secret() -> impl Strategy<Value = Secret> {
    prop_oneof![
        pem(),
        password_hash(),
        header(),
        token_shape(),
        assignment(),
        url_password(),
        proxmox(),
    ]
}

/// Where the secret goes.
#[derive(Debug, Clone, Copy)]
enum Placement {
    /// A line of its own between random lines.
    OwnLine,
    /// After a space at the end of a random line, more random text after it.
    InLine,
    /// The very end of the output, no newline.
    AtEnd,
    /// Inside a string of a JSON envelope, redacted as JSON text.
    InJsonText,
    /// Inside a string of a JSON envelope, redacted with `redact_json`.
    InJsonValue,
}

fn placement() -> impl Strategy<Value = Placement> {
    prop::sample::select(vec![
        Placement::OwnLine,
        Placement::InLine,
        Placement::AtEnd,
        Placement::InJsonText,
        Placement::InJsonValue,
    ])
}

/// Random printable lines.
fn filler() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[ -~]{0,80}", 0..12)
}

fn embed(secret: &str, lines: &[String], at: usize, placement: Placement) -> String {
    let at = at % (lines.len() + 1);
    let (before, after) = lines.split_at(at);
    match placement {
        Placement::OwnLine => [before, &[secret.to_string()], after].concat().join("\n"),
        Placement::AtEnd => {
            let mut text = lines.join("\n");
            text.push('\n');
            text.push_str(secret);
            text
        }
        Placement::InLine | Placement::InJsonText | Placement::InJsonValue => {
            let mut text = before.join("\n");
            text.push(' ');
            text.push_str(secret);
            text.push(' ');
            text.push_str(&after.join("\n"));
            text
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn an_embedded_secret_never_survives(
        secret in any_secret(),
        lines in filler(),
        at in 0usize..64,
        placement in placement(),
    ) {
        let text = embed(&secret.text, &lines, at, placement);
        let output = match placement {
            Placement::OwnLine | Placement::InLine | Placement::AtEnd => redact(&text).text.into_owned(),
            Placement::InJsonText => {
                let envelope = json!({"ok": true, "data": {"stdout": text, "exit": 0}}).to_string();
                redact(&envelope).text.into_owned()
            }
            Placement::InJsonValue => {
                let mut envelope = json!({"ok": true, "data": {"stdout": text, "exit": 0}});
                redact_json(&mut envelope);
                envelope.to_string()
            }
        };
        for sensitive in &secret.sensitive {
            prop_assert!(!output.contains(sensitive.as_str()), "{sensitive:?} survived in {output:?}");
        }
        prop_assert!(output.contains(MARKER_PREFIX), "no marker in {output:?}");
    }

    #[test]
    fn output_without_secrets_is_returned_borrowed(lines in prop::collection::vec(benign_line(), 0..40)) {
        let text = lines.join("\n");
        let redacted = redact(&text);
        prop_assert!(matches!(redacted.text, Cow::Borrowed(_)), "changed: {text:?} → {:?}", redacted.text);
        prop_assert!(redacted.removed.is_empty());
    }
}

/// Lines like the ones `journalctl`, `ps`, `df`, `ls`, `docker ps`,
/// `sha256sum`, `git log` and configs print, with no secret in them, but
/// with the words and shapes that sit near secrets (`password` in prose,
/// settings about passwords, public keys, UUIDs, hashes).
fn benign_line() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "Started",
        "session",
        "nginx.service",
        "sshd[812]:",
        "Accepted",
        "publickey",
        "for",
        "root",
        "from",
        "10.0.0.4",
        "port",
        "22",
        "Failed",
        "password",
        "kernel:",
        "EXT4-fs",
        "mounted",
        "pam_unix(sshd:auth):",
        "authentication",
        "failure;",
        "token",
        "keyring",
        "Authorization",
        "required",
        "user=root",
        "uid=0",
        "PATH=/usr/bin:/bin",
        "PWD=/root",
        "LANG=C.UTF-8",
        "password_min_length=8",
        "PasswordAuthentication=no",
        "token_ttl=3600",
        "secretName:",
        "key:",
        "app",
        "/dev/sda1",
        "93%",
        "Up",
        "3",
        "days",
        "healthy",
        "0.0",
        "1.2",
        "Ss",
        "?",
        "/usr/sbin/nginx",
        "-g",
        "daemon",
        "off;",
        "sk-prod-db-01",
        "disk-by-uuid",
        "pw",
        "$HOME",
        "price",
        "$5",
        "md5",
        "key=value",
        "--user=bob",
        "--port=5432",
        "auth",
    ]);
    prop_oneof![
        prop::collection::vec(word, 1..14).prop_map(|w| w.join(" ")),
        "[0-9a-f]{64}  /srv/[a-z]{3,10}\\.tar".prop_map(String::from),
        "commit [0-9a-f]{40}".prop_map(String::from),
        "UUID=\"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\" TYPE=\"ext4\""
            .prop_map(String::from),
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/]{40} [a-z]{3,8}@[a-z]{3,8}"
            .prop_map(String::from),
        "PublicKey = [A-Za-z0-9+/]{43}=".prop_map(String::from),
        "[a-z]{3,10}\\s+[0-9]{1,5}\\s+[0-9]\\.[0-9]\\s+[0-9]\\.[0-9] /usr/bin/[a-z]{3,10}"
            .prop_map(String::from),
    ]
}
