//! One table per class of secret: input → expected output, plus what must
//! survive untouched.

use std::borrow::Cow;

use serde_json::json;

use crate::redact::{SecretKind, redact, redact_json, secret_named_by};

/// Each row: input, expected output.
fn check(rows: &[(&str, &str)]) {
    for (input, expected) in rows {
        let got = redact(input);
        assert_eq!(got.text, *expected, "input: {input:?}");
        assert_eq!(
            got.is_redacted(),
            input != expected,
            "removed counts disagree for {input:?}: {:?}",
            got.removed
        );
    }
}

#[test]
fn every_rule_compiles() {
    // Otherwise `redact` withholds every output as a whole.
    assert!(crate::redact::shapes::ShapeRules::get().is_some());
    assert!(crate::redact::assignment::AssignmentRules::get().is_some());
    assert_eq!(redact("ok").text, "ok");
}

#[test]
fn private_key_blocks_of_every_type() {
    let body = "MIIEowIBAAKCAQEAzX8f3kq\nT0pY6m1b2c3d4e5f6g7h8\n";
    let mut rows = Vec::new();
    for label in [
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "DSA PRIVATE KEY",
        "PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ] {
        rows.push((
            format!("key:\n-----BEGIN {label}-----\n{body}-----END {label}-----\ndone\n"),
            "key:\n[redacted: private key]\ndone\n".to_string(),
        ));
        // Output cut inside the block: everything after BEGIN goes.
        rows.push((
            format!("-----BEGIN {label}-----\n{body}"),
            "[redacted: private key]".to_string(),
        ));
    }
    // Two blocks; the certificate between them stays.
    rows.push((
        "-----BEGIN EC PRIVATE KEY-----\nAAA\n-----END EC PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nBBB\n-----END PRIVATE KEY-----".into(),
        "[redacted: private key]\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n[redacted: private key]".into(),
    ));
    // Inside a JSON string, newlines escaped.
    rows.push((
        r#"{"stdout":"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n"}"#
            .into(),
        r#"{"stdout":"[redacted: private key]\n"}"#.into(),
    ));
    let rows: Vec<(&str, &str)> = rows.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    check(&rows);
}

#[test]
fn shadow_and_htpasswd_hashes_keep_the_other_fields() {
    check(&[
        (
            "root:$6$rounds=5000$saltsalt$Zx9Qe0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2yZ3:19750:0:99999:7:::",
            "root:[redacted: password hash]:19750:0:99999:7:::",
        ),
        (
            "alice:$y$j9T$Fq0wtXp1Y8C7ryGKkTn5N0$0Ebx2aeE9I1Y8n5kzCkQq7pPZrS6/4QMdHUJ7HbK4J8:19800:0:99999:7:::",
            "alice:[redacted: password hash]:19800:0:99999:7:::",
        ),
        (
            "bob:!$1$abcdefgh$Q6kY0cG4yZ9Vv1u7x1bGz/:19000::::::",
            "bob:![redacted: password hash]:19000::::::",
        ),
        (
            "carol:$5$saltsaltsalt$2bYkKzqjJ7l1W8bH5n6q4ZbPp6Gx0Qy2FvH3t9Yd3a.:19000:0:99999:7:::",
            "carol:[redacted: password hash]:19000:0:99999:7:::",
        ),
        ("daemon:*:19000:0:99999:7:::", "daemon:*:19000:0:99999:7:::"),
        ("nobody:!:19000::::::", "nobody:!:19000::::::"),
        (
            "admin:$2b$12$KIXQJ0w5N3Xn0l1wq0V9UeH7mJ6q2s4O9b8c7d6e5f4g3h2i1j0kA",
            "admin:[redacted: password hash]",
        ),
        (
            "web:$apr1$Qs8bLQ2d$Ydq1OHZp5s6qkq8Ddx2bB1",
            "web:[redacted: password hash]",
        ),
        (
            "svc:$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo\n",
            "svc:[redacted: password hash]\n",
        ),
        (
            "ldap:{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
            "ldap:[redacted: password hash]",
        ),
        (
            "| root | *6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9 |",
            "| root | [redacted: password hash] |",
        ),
        (
            "postgres SCRAM-SHA-256$4096:c2FsdA==$c3RvcmVk:c2VydmVy",
            "postgres [redacted: password hash]",
        ),
    ]);
}

#[test]
fn authorization_headers() {
    check(&[
        (
            "Authorization: Bearer abc.def-ghi_jkl",
            "Authorization: Bearer [redacted: bearer token]",
        ),
        (
            "> authorization: Basic dXNlcjpwYXNz\r\n",
            "> authorization: Basic [redacted: authorization credentials]\r\n",
        ),
        (
            r#"curl -H "Authorization: Bearer s3cr3tT0ken" https://api"#,
            r#"curl -H "Authorization: Bearer [redacted: bearer token]" https://api"#,
        ),
        (
            "Proxy-Authorization: Digest abcdef",
            "Proxy-Authorization: Digest [redacted: authorization credentials]",
        ),
        (
            "X-API-Key: 0123456789abcdef",
            "X-API-Key: [redacted: api key]",
        ),
        ("X-Auth-Token: tok123", "X-Auth-Token: [redacted: token]"),
        (
            "Cookie: session=abc123; theme=dark",
            "Cookie: [redacted: cookie]",
        ),
        (
            "token_type=Bearer access Bearer 0123456789abcdefXYZ",
            "token_type=Bearer access Bearer [redacted: bearer token]",
        ),
    ]);
}

#[test]
fn well_known_token_shapes() {
    check(&[
        (
            "remote: https://ghp_0123456789abcdefghijABCDEFGHIJ012345@github.com",
            "remote: https://[redacted: github token]@github.com",
        ),
        (
            "GH=gho_0123456789abcdefghijABCDEFGHIJ012345 next",
            "GH=[redacted: github token] next",
        ),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "[redacted: github token]",
        ),
        ("glpat-xxxxXXXX1234567890ab", "[redacted: gitlab token]"),
        (
            "slack: xoxb-123456789012-1234567890123-AbCdEfGh",
            "slack: [redacted: slack token]",
        ),
        (
            "key id AKIAIOSFODNN7EXAMPLE used",
            "key id [redacted: cloud credential] used",
        ),
        ("ASIAY34FZKBOKMUTVV7A", "[redacted: cloud credential]"),
        (
            "maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q ok",
            "maps [redacted: cloud credential] ok",
        ),
        (
            "OPENAI=sk-proj-abcDEF123456ghiJKL789mnoPQR",
            "OPENAI=[redacted: ai provider key]",
        ),
        (
            "sk-ant-api03-AbCdEf0123456789_xyzXYZ-0123",
            "[redacted: ai provider key]",
        ),
        (
            "legacy sk-AbCdEfGh0123456789IjKlMnOp",
            "legacy [redacted: ai provider key]",
        ),
        ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "[redacted: stripe key]"),
        (
            "npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "[redacted: registry token]",
        ),
        (
            "token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJl end",
            "token [redacted: jwt] end",
        ),
    ]);
}

#[test]
fn assignments_whose_key_names_a_secret() {
    check(&[
        ("DB_PASSWORD=hunter2", "DB_PASSWORD=[redacted: password]"),
        (
            "export MYSQL_ROOT_PASSWORD='p@ss word'",
            "export MYSQL_ROOT_PASSWORD='[redacted: password]'",
        ),
        (
            "POSTGRES_PASSWORD=x y z\n",
            "POSTGRES_PASSWORD=[redacted: password]\n",
        ),
        ("REDIS_PASS=abc", "REDIS_PASS=[redacted: password]"),
        ("PGPASSWORD=abc", "PGPASSWORD=[redacted: password]"),
        ("MYSQL_PWD=abc", "MYSQL_PWD=[redacted: password]"),
        (
            r#""Env": ["PATH=/usr/bin", "MYSQL_ROOT_PASSWORD=s3 cret", "TZ=UTC"]"#,
            r#""Env": ["PATH=/usr/bin", "MYSQL_ROOT_PASSWORD=[redacted: password]", "TZ=UTC"]"#,
        ),
        (
            r#"{"password": "x\"y", "user": "bob"}"#,
            r#"{"password": "[redacted: password]", "user": "bob"}"#,
        ),
        (r#"{"apiKey":"abc"}"#, r#"{"apiKey":"[redacted: api key]"}"#),
        (
            "db:\n  password: s3cret\n  user: app\n",
            "db:\n  password: [redacted: password]\n  user: app\n",
        ),
        (
            "[client]\npassword = \"se cret\" \nhost = db\n",
            "[client]\npassword = \"[redacted: password]\" \nhost = db\n",
        ),
        (
            "client_secret = 'abc'",
            "client_secret = '[redacted: secret]'",
        ),
        ("Secret: xyz", "Secret: [redacted: secret]"),
        ("api_key: k-123", "api_key: [redacted: api key]"),
        ("ACCESS_KEY=abc", "ACCESS_KEY=[redacted: api key]"),
        ("private_key=abc", "private_key=[redacted: private key]"),
        ("auth=abc", "auth=[redacted: token]"),
        (
            "spring.datasource.password=abc",
            "spring.datasource.password=[redacted: password]",
        ),
        (
            "mysqld --user=mysql --password=abc --port=3306",
            "mysqld --user=mysql --password=[redacted: password] --port=3306",
        ),
        (
            "vault login --token s.abc123 -x",
            "vault login --token [redacted: token] -x",
        ),
        (
            "level=info msg=ok token=abc123 user=bob",
            "level=info msg=ok token=[redacted: token] user=bob",
        ),
        (
            "'password' => 'abc',",
            "'password' => '[redacted: password]',",
        ),
        (
            "<password>abc</password>",
            "<password>[redacted: password]</password>",
        ),
        (
            "https://api/x?access_token=abc&page=2",
            "https://api/x?access_token=[redacted: token]&page=2",
        ),
        ("password: 1234", "password: [redacted: password]"),
        ("password: changeme", "password: [redacted: password]"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [redacted: cloud credential]",
        ),
        (
            r#"{\"password\":\"x\"}"#,
            r#"{\"password\":\"[redacted: password]\"}"#,
        ),
        (
            "key: |\n  a\npassword: |\n  line1\n  line2\nnext: 1\n",
            "key: |\n  a\npassword: [redacted: password]\nnext: 1\n",
        ),
        (
            "env:\n- name: DB_PASSWORD\n  value: s3cret\n- name: TZ\n  value: UTC\n",
            "env:\n- name: DB_PASSWORD\n  value: [redacted: password]\n- name: TZ\n  value: UTC\n",
        ),
        (
            r#"{"stdout":"env:\n- name: DB_PASSWORD\n  value: s3cret\n"}"#,
            r#"{"stdout":"env:\n- name: DB_PASSWORD\n  value: [redacted: password]\n"}"#,
        ),
        ("requirepass foobared", "requirepass [redacted: password]"),
        (
            "machine github.com login bob password s3cret",
            "machine github.com login bob password [redacted: password]",
        ),
    ]);
}

#[test]
fn settings_placeholders_and_references_stay() {
    check(&[
        ("password_min_length = 8", "password_min_length = 8"),
        (
            "MYSQL_ROOT_PASSWORD_FILE=/run/secrets/db",
            "MYSQL_ROOT_PASSWORD_FILE=/run/secrets/db",
        ),
        ("PasswordAuthentication=no", "PasswordAuthentication=no"),
        (
            "password_encryption = scram-sha-256",
            "password_encryption = scram-sha-256",
        ),
        ("token_ttl: 3600", "token_ttl: 3600"),
        ("PWD=/root\nOLDPWD=/home", "PWD=/root\nOLDPWD=/home"),
        ("password=", "password="),
        ("password: ''", "password: ''"),
        ("password: ****", "password: ****"),
        ("password: <redacted>", "password: <redacted>"),
        ("DB_PASSWORD=${DB_PASSWORD}", "DB_PASSWORD=${DB_PASSWORD}"),
        ("token: {{ .Values.token }}", "token: {{ .Values.token }}"),
        ("auth: true", "auth: true"),
        ("private key: (hidden)", "private key: (hidden)"),
        ("secretName: tls-cert", "secretName: tls-cert"),
        ("key: app\noperator: Exists", "key: app\noperator: Exists"),
        (
            "sshd[1]: Failed password for root from 10.0.0.1 port 22",
            "sshd[1]: Failed password for root from 10.0.0.1 port 22",
        ),
        (
            "pam_unix(sshd:auth): authentication failure; user=root",
            "pam_unix(sshd:auth): authentication failure; user=root",
        ),
        (
            "Password: [redacted: password]",
            "Password: [redacted: password]",
        ),
        ("if token == null {", "if token == null {"),
        (
            "SSH_AUTH_SOCK=/run/user/1000/ssh-agent\nGIT_ASKPASS=/usr/bin/ksshaskpass\nPASSWORD_STORE_DIR=/root/.password-store\nGNOME_KEYRING_CONTROL=/run/user/1000/keyring",
            "SSH_AUTH_SOCK=/run/user/1000/ssh-agent\nGIT_ASKPASS=/usr/bin/ksshaskpass\nPASSWORD_STORE_DIR=/root/.password-store\nGNOME_KEYRING_CONTROL=/run/user/1000/keyring",
        ),
        (
            "  tls.crt: LS0tLS1CRUdJTiBDRVJU\n  tls.key: LS0tLS1CRUdJTiBQUklW\n",
            "  tls.crt: LS0tLS1CRUdJTiBDRVJU\n  tls.key: [redacted: private key]\n",
        ),
    ]);
}

#[test]
fn urls_keep_user_and_host() {
    check(&[
        (
            "DATABASE_URL=postgres://app:s3cret@db:5432/app",
            "DATABASE_URL=postgres://app:[redacted: url password]@db:5432/app",
        ),
        (
            "redis://:p4ss@cache:6379/0",
            "redis://:[redacted: url password]@cache:6379/0",
        ),
        (
            "\"url\": \"https://user:pa:ss@example.com/x\"",
            "\"url\": \"https://user:[redacted: url password]@example.com/x\"",
        ),
        (
            "https://example.com:8443/a@b",
            "https://example.com:8443/a@b",
        ),
        ("ssh://git@github.com/x.git", "ssh://git@github.com/x.git"),
    ]);
}

#[test]
fn kubeconfig_and_wireguard() {
    check(&[
        (
            "    client-certificate-data: LS0tLS1CRUdJTiBDRVJU\n    client-key-data: LS0tLS1CRUdJTiBSU0E=\n",
            "    client-certificate-data: LS0tLS1CRUdJTiBDRVJU\n    client-key-data: [redacted: private key]\n",
        ),
        (
            "    certificate-authority-data: LS0tLS1C\n",
            "    certificate-authority-data: LS0tLS1C\n",
        ),
        (
            "- name: admin\n  user:\n    token: abc.def\n",
            "- name: admin\n  user:\n    token: [redacted: token]\n",
        ),
        (
            "[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\nAddress = 10.0.0.1/24\n[Peer]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\nPresharedKey = abcdEFGH=\n",
            "[Interface]\nPrivateKey = [redacted: private key]\nAddress = 10.0.0.1/24\n[Peer]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\nPresharedKey = [redacted: private key]\n",
        ),
    ]);
}

#[test]
fn proxmox_token_secrets_keep_the_token_id() {
    check(&[
        (
            "Authorization: PVEAPIToken=root@pam!ci=0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01",
            "Authorization: PVEAPIToken=root@pam!ci=[redacted: proxmox token secret]",
        ),
        (
            r#"{"full-tokenid":"root@pam!ci","info":{"privsep":1},"value":"0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01"}"#,
            r#"{"full-tokenid":"root@pam!ci","info":{"privsep":1},"value":"[redacted: proxmox token secret]"}"#,
        ),
        (
            "│ full-tokenid │ root@pam!ci                          │\n│ value        │ 0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01 │",
            "│ full-tokenid │ root@pam!ci                          │\n│ value        │ [redacted: proxmox token secret] │",
        ),
        (
            "root@pam!ci 0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01\n",
            "root@pam!ci [redacted: proxmox token secret]\n",
        ),
    ]);
}

#[test]
fn what_operators_need_survives_borrowed() {
    for text in [
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bob@x",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYI\n-----END PUBLIC KEY-----\n",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  /srv/backup.tar\n",
        "UUID=\"0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01\" TYPE=\"ext4\" PARTUUID=\"a1b2\"",
        r#"{"value": "0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01"}"#,
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Bob <bob@x>",
        "/dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456X",
        "pod/task-runner-5f8d7c9b6d-abcde   1/1   Running",
        "sk-prod-database-server-01-replica",
        "the api uses a Bearer token",
        "Authorization required",
        "price $1$ and $6 dollars",
        "md5sum: 9e107d9d372bb6826bd81d3542a419d6  file",
        "root         1  0.0  0.1 168052 11844 ?        Ss   10:00   0:02 /sbin/init",
    ] {
        let got = redact(text);
        assert!(
            matches!(got.text, Cow::Borrowed(_)),
            "changed: {text:?} → {:?}",
            got.text
        );
        assert!(got.removed.is_empty());
    }
}

#[test]
fn counts_by_kind() {
    let got = redact("a=1 password=x token=y password=z\nroot:$6$saltsalt$hashhashhash:1::::::");
    assert_eq!(got.removed.get(&SecretKind::Password), Some(&2));
    assert_eq!(got.removed.get(&SecretKind::Token), Some(&1));
    assert_eq!(got.removed.get(&SecretKind::PasswordHash), Some(&1));
    assert_eq!(got.total(), 4);
}

#[test]
fn redacting_twice_changes_nothing_more() {
    let once = redact("password=x\nAuthorization: Bearer abcdef\n-----BEGIN PRIVATE KEY-----\nAAA");
    let twice = redact(&once.text);
    assert_eq!(twice.text, once.text);
    assert!(!twice.is_redacted());
}

#[test]
fn json_envelopes_are_redacted_by_string_and_by_key() {
    let mut envelope = json!({
        "ok": true,
        "data": {
            "stdout": "DB_PASSWORD=hunter2\nok\n",
            "stderr": "",
            "config": {"password": "hunter2", "port": 5432, "pin": 1234},
            "secret_token": 987654,
            "env": [{"name": "API_TOKEN", "value": "abc"}, {"name": "TZ", "value": "UTC"}],
            "token": {"full-tokenid": "root@pam!ci", "value": "0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01"},
            "disks": [{"uuid": "0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01", "value": "0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01"}],
            "password_min_length": 8,
        }
    });
    let removed = redact_json(&mut envelope);
    assert_eq!(
        envelope,
        json!({
            "ok": true,
            "data": {
                "stdout": "DB_PASSWORD=[redacted: password]\nok\n",
                "stderr": "",
                "config": {"password": "[redacted: password]", "port": 5432, "pin": 1234},
                "secret_token": "[redacted: token]",
                "env": [{"name": "API_TOKEN", "value": "[redacted: token]"}, {"name": "TZ", "value": "UTC"}],
                "token": {"full-tokenid": "root@pam!ci", "value": "[redacted: proxmox token secret]"},
                "disks": [{"uuid": "0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01", "value": "0b5f3e6a-2e7b-4b8e-9d4e-6c1f5b7d9a01"}],
                "password_min_length": 8,
            }
        })
    );
    assert_eq!(removed.values().sum::<usize>(), 5);
}

#[test]
fn key_names() {
    use SecretKind::*;
    for (name, expected) in [
        ("DB_PASSWORD", Some(Password)),
        ("MYSQL_ROOT_PASSWORD", Some(Password)),
        ("REDIS_PASS", Some(Password)),
        ("passwd", Some(Password)),
        ("clientSecret", Some(Secret)),
        ("client-key-data", Some(PrivateKey)),
        ("secret_key_base", Some(ApiKey)),
        ("X-Auth-Token", Some(Token)),
        ("PresharedKey", Some(PrivateKey)),
        ("AWS_SESSION_TOKEN", Some(CloudCredential)),
        ("secret_id", Some(Secret)),
        ("password_min_length", None),
        ("MYSQL_ROOT_PASSWORD_FILE", None),
        ("PasswordAuthentication", None),
        ("token_ttl", None),
        ("PWD", None),
        ("public_key", None),
        ("key", None),
        ("keyboard", None),
        ("client-certificate-data", None),
        ("Authorization", None),
        ("AWS_ACCESS_KEY_ID", None),
        ("author", None),
    ] {
        assert_eq!(secret_named_by(name), expected, "{name}");
    }
}
