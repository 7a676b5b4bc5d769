//! Opening the database: private files, and a clear, specific error for
//! every path that cannot be a database, with nothing overwritten.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a test failure

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use warden_protocol::AuditRecord;
use warden_store::{Store, StoreError};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

fn open_error(path: &Path) -> StoreError {
    match Store::open(path) {
        Ok(_) => panic!("{} should not open", path.display()),
        Err(error) => error,
    }
}

fn a_record() -> AuditRecord {
    AuditRecord {
        session_id: "s".into(),
        actor: "system".into(),
        tool: "read".into(),
        target: None,
        decision: "allowed".into(),
        code: None,
        command: "true".into(),
        reason: None,
        duration_ms: 0,
    }
}

#[test]
fn a_new_database_and_everything_beside_it_are_private() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let db = dir.path().join("warden.db");
    let store = Store::open(&db).unwrap();
    store.append_audit(&a_record(), 1).unwrap();
    for file in [
        db.clone(),
        with_suffix(&db, "-wal"),
        with_suffix(&db, "-shm"),
        with_suffix(&db, ".audit-head"),
    ] {
        assert!(file.exists(), "{}", file.display());
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
}

#[test]
fn a_directory_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let error = open_error(dir.path());
    assert!(matches!(
        error,
        StoreError::NotAFile {
            what: "a directory",
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        format!(
            "{} is a directory, not a database file",
            dir.path().display()
        )
    );
}

#[test]
fn dev_null_is_not_a_database() {
    let error = open_error(Path::new("/dev/null"));
    assert_eq!(
        error.to_string(),
        "/dev/null is a character device, not a database file"
    );
}

#[test]
fn a_missing_directory_is_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nowhere/warden.db");
    let error = open_error(&db);
    assert!(matches!(error, StoreError::MissingDirectory { .. }));
    assert!(error.to_string().contains("does not exist"), "{error}");
    assert!(!dir.path().join("nowhere").exists());
}

#[test]
fn a_file_that_is_not_a_database_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("notes.txt");
    std::fs::write(&db, "my precious notes, not SQLite at all\n".repeat(200)).unwrap();
    let error = open_error(&db);
    assert!(
        matches!(error, StoreError::NotADatabase { .. }),
        "{error:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&db).unwrap(),
        "my precious notes, not SQLite at all\n".repeat(200)
    );
}

/// Root writes to read-only directories anyway: the check cannot be
/// exercised then, and says so.
fn read_only_dir_is_enforced(dir: &Path) -> bool {
    let probe = dir.join("probe");
    let writable = std::fs::write(&probe, "").is_ok();
    let _ = std::fs::remove_file(probe);
    if writable {
        eprintln!("running as root: read-only directories are not enforced, check skipped");
    }
    !writable
}

#[test]
fn a_read_only_directory_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
    if read_only_dir_is_enforced(&locked) {
        let error = open_error(&locked.join("warden.db"));
        assert!(
            matches!(error, StoreError::ReadOnlyDirectory { .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("is not writable"), "{error}");
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
}

#[test]
fn an_existing_database_in_a_read_only_directory_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let db = locked.join("warden.db");
    drop(Store::open(&db).unwrap());
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
    if read_only_dir_is_enforced(&locked) {
        let error = open_error(&db);
        assert!(matches!(error, StoreError::CannotWrite { .. }), "{error:?}");
        assert!(error.to_string().contains("-wal"), "{error}");
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
}
