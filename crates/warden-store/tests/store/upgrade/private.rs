//! What earlier releases created is made private at open. The first
//! release wrote its database 0644 in whatever directory mode the user had;
//! an upgrade kept it world-readable. Opening a copy of each fixture laid
//! out as an old server's data directory (group- and world-readable
//! database, WAL, SHM, audit head, first admin's password, TLS key,
//! Proxmox clusters file) makes the directory 0700 and every file 0600,
//! says what it changed, and changes nothing the second time.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use warden_store::{PrivateScope, Store, Tightened};

use super::support::copy_fixture;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The files an old server left in its data directory besides the database.
const OTHER_FILES: [&str; 4] = [
    "admin-password",
    "tls/key.pem",
    "tls/cert.pem",
    "proxmox-clusters.toml",
];

/// A copy of `release` as an old server's data directory, everything
/// readable by everyone; returns the directory, the database, and a
/// connection that keeps the WAL and SHM files in place (as a server that
/// is still running, or was killed, leaves them).
fn old_data_dir(release: &str) -> (tempfile::TempDir, PathBuf, Connection) {
    let fixture = copy_fixture(release);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("tls")).unwrap();
    for name in ["warden.db", "warden.db.audit-head"] {
        let from = fixture.path.with_file_name(name);
        if from.exists() {
            std::fs::copy(&from, data.join(name)).unwrap();
        }
    }
    for name in OTHER_FILES {
        std::fs::write(data.join(name), "secret\n").unwrap();
    }
    let db = data.join("warden.db");
    let conn = Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .unwrap();
    for entry in walk(&data) {
        set_mode(&entry, if entry.is_dir() { 0o755 } else { 0o644 });
    }
    set_mode(&data, 0o755);
    (dir, db, conn)
}

/// Every path below `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found.sort();
    found
}

fn names(data: &Path, tightened: &[Tightened]) -> Vec<String> {
    let mut names: Vec<String> = tightened
        .iter()
        .map(|t| {
            assert_eq!(t.now, if t.path.is_dir() { 0o700 } else { 0o600 }, "{t}");
            assert!(matches!(t.was, 0o644 | 0o755), "{t}");
            t.path.strip_prefix(data).unwrap().display().to_string()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn an_old_data_directory_is_made_private_at_open() {
    for release in ["stop05", "stop14"] {
        let (_dir, db, _conn) = old_data_dir(release);
        let data = db.parent().unwrap().to_path_buf();
        for file in ["warden.db-wal", "warden.db-shm"] {
            assert!(data.join(file).exists(), "{release}: {file}");
        }
        let store = Store::open_private(&db, PrivateScope::DataDirectory(&data)).unwrap();
        let mut expected = vec![
            String::new(),
            "admin-password".to_string(),
            "proxmox-clusters.toml".into(),
            "tls".into(),
            "tls/cert.pem".into(),
            "tls/key.pem".into(),
            "warden.db".into(),
            "warden.db-shm".into(),
            "warden.db-wal".into(),
        ];
        if release == "stop14" {
            expected.push("warden.db.audit-head".into());
            expected.sort();
        }
        assert_eq!(names(&data, store.tightened()), expected, "{release}");
        assert_eq!(mode(&data), 0o700, "{release}");
        for path in walk(&data) {
            let want = if path.is_dir() { 0o700 } else { 0o600 };
            assert_eq!(mode(&path), want, "{release}: {}", path.display());
        }
        // The database works, and its anchor (made now for stop05) is private.
        assert!(store.verify_audit().unwrap().intact, "{release}");
        assert_eq!(mode(&warden_store::anchor_path(&db)), 0o600, "{release}");
        drop(store);
        let again = Store::open_private(&db, PrivateScope::DataDirectory(&data)).unwrap();
        assert!(
            again.tightened().is_empty(),
            "{release}: {:?}",
            again.tightened()
        );
    }
}

#[test]
fn a_database_elsewhere_changes_only_its_own_files() {
    let (_dir, db, _conn) = old_data_dir("stop14");
    let data = db.parent().unwrap().to_path_buf();
    let store = Store::open(&db).unwrap();
    assert_eq!(
        names(&data, store.tightened()),
        [
            "warden.db",
            "warden.db-shm",
            "warden.db-wal",
            "warden.db.audit-head"
        ]
    );
    // The directory of a `--db` is not Warden's: it and its other files stay.
    assert_eq!(mode(&data), 0o755);
    assert_eq!(mode(&data.join("admin-password")), 0o644);
    // A path that is a directory is refused, never made private.
    let error = Store::open(&data).err().unwrap();
    assert!(error.to_string().contains("a directory"), "{error}");
    assert_eq!(mode(&data), 0o755);
}
