//! Warden's own secrets, collected for the known-secret canary
//! ([`warden_core::redact::known`]): every tool output holding one, in any
//! common encoding, is withheld by the executor. Collected here, where they
//! are loaded: the model's API key (inline, from the environment, from a
//! file), every Proxmox token secret (configured or added through the
//! API), the store's server secrets (the agents' grant-signing key), and
//! the first admin's generated password while its file exists. The server
//! adds its TLS private key when it loads it.
//!
//! A secret shorter than [`MIN_SECRET_LEN`] bytes is not watched for (it
//! would be found in ordinary output); that is reported as a problem.

use std::path::Path;

use warden_core::redact::known::{KnownSecretError, KnownSecrets, MIN_SECRET_LEN};
use warden_infra::proxmox::ProxmoxConfig;
use warden_store::Store;

use crate::config::Config;

/// The first admin's one-time password, in a server's data directory.
pub const ADMIN_PASSWORD_FILE: &str = "admin-password";

/// The label of the agents' grant-signing key.
const GRANT_KEY: (&str, &str) = ("agent_grant_signing_key", "agent grant-signing key");

/// Label of the model API key.
pub const MODEL_API_KEY: &str = "model API key";

/// Every secret Warden holds, and what could not be registered.
pub fn collect(
    config: &Config,
    clusters: &[ProxmoxConfig],
    store: &Store,
    data_dir: Option<&Path>,
    extra: &[(String, Vec<u8>)],
) -> (KnownSecrets, Vec<String>) {
    let mut known = KnownSecrets::new();
    let mut problems = Vec::new();
    let add = |known: &mut KnownSecrets, label: &str, secret: &[u8], problems: &mut Vec<String>| {
        if let Err(error) = known.add(label, secret) {
            problems.push(not_watched(&error));
        }
    };
    if let Some(key) = &config.api_key.value {
        add(
            &mut known,
            MODEL_API_KEY,
            key.expose().as_bytes(),
            &mut problems,
        );
    }
    for cluster in clusters {
        let secret = match (&cluster.token_secret, &cluster.token_secret_env) {
            (Some(secret), _) => Some(secret.clone()),
            (None, Some(variable)) => std::env::var(variable).ok(),
            (None, None) => None,
        };
        if let Some(secret) = secret {
            let label = format!("Proxmox token secret of cluster {}", cluster.name);
            add(&mut known, &label, secret.trim().as_bytes(), &mut problems);
        }
    }
    match store.server_secrets() {
        Ok(secrets) => {
            for (name, value) in secrets {
                let label = if name == GRANT_KEY.0 {
                    GRANT_KEY.1.to_string()
                } else {
                    format!("server secret {name}")
                };
                add(&mut known, &label, &value, &mut problems);
            }
        }
        Err(error) => problems.push(format!(
            "the server's secrets could not be read to watch for them in tool output: {error}"
        )),
    }
    if let Some(dir) = data_dir {
        if let Ok(password) = std::fs::read(dir.join(ADMIN_PASSWORD_FILE)) {
            add(
                &mut known,
                "generated admin password",
                &password,
                &mut problems,
            );
        }
    }
    for (label, secret) in extra {
        add(&mut known, label, secret, &mut problems);
    }
    (known, problems)
}

fn not_watched(error: &KnownSecretError) -> String {
    format!("{error} (secrets of at least {MIN_SECRET_LEN} bytes are withheld from tool output)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_secret_is_collected() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(ADMIN_PASSWORD_FILE),
            "Gen3rated-Passw0rd-xyz\n",
        )
        .unwrap();
        let store = Store::open_in_memory().unwrap();
        store
            .server_secret_or_insert(GRANT_KEY.0, &[7u8; 32], 1)
            .unwrap();
        let mut config = Config::builtin();
        config.api_key.value = Some(warden_llm::Secret::new("sk-test-0123456789abcdef"));
        let cluster: ProxmoxConfig = toml::from_str(
            "name = \"lab\"\nurl = \"https://pve1:8006\"\ntoken_id = \"warden@pve!ops\"\ntoken_secret = \"0b7f6a4e-3c2d-4e1f-9a8b-7c6d5e4f3a2b\"\n",
        )
        .unwrap();
        let extra = vec![("pin".to_string(), b"1234".to_vec())];
        let (known, problems) = collect(&config, &[cluster], &store, Some(dir.path()), &extra);
        assert_eq!(
            known.labels(),
            [
                "model API key",
                "Proxmox token secret of cluster lab",
                "agent grant-signing key",
                "generated admin password",
            ]
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("pin"), "{problems:?}");
        assert!(known.find("Gen3rated-Passw0rd-xyz").is_some());
        assert!(known.find(&"07".repeat(32)).is_some());
    }
}
