//! Which of this machine's files are Warden's own secrets (issue 17 §1):
//! kept out of every command's reach by [`warden_infra::confinement`].

use std::path::{Path, PathBuf};

use warden_policy::paths::protect::Protected;

use crate::config::{Config, Source};

/// The data directories (a server's and the user's), the database with its
/// companions wherever the configuration puts it, the configuration file
/// when it holds a secret, and `extra` (the server's TLS files).
pub fn protected_paths(
    config: &Config,
    data_dir: Option<&Path>,
    extra: &[Protected],
) -> Vec<Protected> {
    let mut protected = Vec::new();
    if let Some(dir) = data_dir {
        protected.push(Protected::tree(text(dir), "Warden's data directory"));
    }
    if let Some(dir) = crate::storage::default_database_path()
        .ok()
        .and_then(|db| db.parent().map(Path::to_path_buf))
    {
        protected.push(Protected::tree(text(&dir), "Warden's data directory"));
    }
    if let Some(db) = &config.db.value {
        for file in database_files(db) {
            protected.push(Protected::file(text(&file), "Warden's database"));
        }
    }
    if let Some(file) = &config.file
        && holds_a_secret(config, file)
    {
        protected.push(Protected::file(
            text(file),
            "a configuration file that gives Warden a secret",
        ));
    }
    protected.extend(extra.iter().cloned());
    protected
}

/// The database, its journal, WAL and shared memory, and the audit head.
fn database_files(db: &Path) -> Vec<PathBuf> {
    let with_suffix = |suffix: &str| {
        let mut name = db.as_os_str().to_os_string();
        name.push(suffix);
        PathBuf::from(name)
    };
    vec![
        db.to_path_buf(),
        with_suffix("-wal"),
        with_suffix("-shm"),
        with_suffix("-journal"),
        warden_store::anchor_path(db),
    ]
}

/// Whether `file` (the configuration file read) gave a model API key or a
/// Proxmox token secret.
fn holds_a_secret(config: &Config, file: &Path) -> bool {
    let key_from_file = matches!(&config.api_key.source, Source::File(from) if from == file)
        && config.api_key.value.is_some();
    key_from_file
        || config
            .proxmox
            .iter()
            .any(|cluster| cluster.token_secret.is_some())
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Overrides;
    use warden_policy::paths::protect::ProtectedKind;

    fn load(dir: &Path, text: &str) -> Config {
        let path = dir.join("config.toml");
        std::fs::write(&path, text).unwrap();
        let home = dir.display().to_string();
        let overrides = Overrides {
            config: Some(path),
            ..Overrides::default()
        };
        Config::load_with(&overrides, &|name| (name == "HOME").then(|| home.clone())).unwrap()
    }

    #[test]
    fn data_directories_the_database_and_a_secret_bearing_config_are_protected() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("elsewhere/w.db");
        let config = load(
            dir.path(),
            &format!(
                "db = \"{}\"\n[provider]\nkind = \"openai\"\napi_key = \"sk-123\"\n",
                db.display()
            ),
        );
        let server = dir.path().join("server");
        let key = Protected::file("/etc/tls/key.pem", "the server's TLS private key");
        let protected = protected_paths(&config, Some(&server), std::slice::from_ref(&key));
        let paths: Vec<(&str, &ProtectedKind)> = protected
            .iter()
            .map(|p| (p.path.as_str(), &p.kind))
            .collect();
        let has =
            |path: &Path, kind: ProtectedKind| paths.contains(&(path.to_str().unwrap(), &kind));
        assert!(has(&server, ProtectedKind::Tree), "{paths:?}");
        let user_data = crate::storage::default_database_path().unwrap();
        assert!(
            has(user_data.parent().unwrap(), ProtectedKind::Tree),
            "{paths:?}"
        );
        for suffix in ["", "-wal", "-shm", "-journal", ".audit-head"] {
            let file = PathBuf::from(format!("{}{suffix}", db.display()));
            assert!(has(&file, ProtectedKind::File), "{suffix}: {paths:?}");
        }
        assert!(
            has(&dir.path().join("config.toml"), ProtectedKind::File),
            "{paths:?}"
        );
        assert!(protected.contains(&key));
    }

    #[test]
    fn a_config_without_secrets_stays_readable() {
        let dir = tempfile::tempdir().unwrap();
        let config = load(dir.path(), "control_level = \"read_only\"\n");
        let protected = protected_paths(&config, None, &[]);
        assert!(
            protected.iter().all(|p| !p.path.ends_with("config.toml")),
            "{protected:?}"
        );
    }
}
