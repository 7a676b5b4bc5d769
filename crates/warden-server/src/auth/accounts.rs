//! Users and API tokens, managed the same way by the API and by the CLI
//! working offline on the data directory (`warden user …`, `warden token …`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use warden_store::{NewApiToken, PasswordChange, Store, StoreError, User};

use super::passwords::{PasswordError, hash_password};
use super::people::{NameProblem, Person, RESERVED_NAMES, check_user_name};
use super::role::Role;
use super::secrets::{RandomError, new_id, new_secret, sha256_hex};

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Password(#[from] PasswordError),
    #[error(transparent)]
    Random(#[from] RandomError),
    #[error("user `{0}` already exists")]
    UserExists(String),
    #[error("no user `{0}`")]
    NoSuchUser(String),
    #[error("invalid name `{0}`: use 1-64 letters, digits, `.`, `_` or `-`")]
    InvalidName(String),
    #[error("`{0}` cannot be a user name: {reserved} name Warden itself in the audit log", reserved = RESERVED_NAMES.join(", "))]
    ReservedName(String),
    #[error("{0}")]
    Io(String),
}

/// The file that holds the first admin's one-time password until the
/// first login with it (or until it is changed offline).
pub const ADMIN_PASSWORD_FILE: &str = "admin-password";

/// The first admin's user name.
pub const FIRST_ADMIN: &str = "admin";

fn name_error(name: &str, problem: NameProblem) -> AccountError {
    match problem {
        NameProblem::Malformed => AccountError::InvalidName(name.to_string()),
        NameProblem::Reserved => AccountError::ReservedName(name.to_string()),
    }
}

pub fn add_user(
    store: &Store,
    username: &str,
    role: Role,
    password: &str,
    now_ms: u64,
) -> Result<(), AccountError> {
    add_user_with(
        store,
        username,
        role,
        password,
        PasswordChange::NotRequired,
        now_ms,
    )
}

fn add_user_with(
    store: &Store,
    username: &str,
    role: Role,
    password: &str,
    change: PasswordChange,
    now_ms: u64,
) -> Result<(), AccountError> {
    check_user_name(username).map_err(|problem| name_error(username, problem))?;
    let password_hash = hash_password(password)?;
    let added = store.add_user(&User {
        username: username.to_string(),
        role: role.as_str().to_string(),
        password_hash,
        created_at_ms: now_ms,
        password_changed_at_ms: now_ms,
        password_change: change,
    })?;
    if added {
        Ok(())
    } else {
        Err(AccountError::UserExists(username.to_string()))
    }
}

/// Change a password (no longer a one-time password), ending the user's
/// browser sessions but `keep` (the hash of the login that changed it).
/// The first admin's password file goes with its first password.
pub fn set_password(
    store: &Store,
    data_dir: &Path,
    username: &str,
    password: &str,
    keep: Option<&str>,
    now_ms: u64,
) -> Result<(), AccountError> {
    let password_hash = hash_password(password)?;
    if !store.set_password(username, &password_hash, now_ms, keep)? {
        return Err(AccountError::NoSuchUser(username.to_string()));
    }
    if username == FIRST_ADMIN {
        remove_admin_password_file(data_dir)?;
    }
    Ok(())
}

/// The first admin's one-time password file is gone (a missing file is
/// fine). Returns whether it was there.
pub fn remove_admin_password_file(data_dir: &Path) -> Result<bool, AccountError> {
    let file = data_dir.join(ADMIN_PASSWORD_FILE);
    match std::fs::remove_file(&file) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(AccountError::Io(format!(
            "removing {}: {e}",
            file.display()
        ))),
    }
}

/// A password file left by an earlier release (whose first admin never
/// changed the password) makes that password one-time too. Returns whether
/// it did.
pub fn adopt_admin_password_file(store: &Store, data_dir: &Path) -> Result<bool, AccountError> {
    if !data_dir.join(ADMIN_PASSWORD_FILE).exists() {
        return Ok(false);
    }
    match store.user(FIRST_ADMIN)? {
        Some(user) if user.password_change == PasswordChange::NotRequired => {
            Ok(store.require_password_change(FIRST_ADMIN)?)
        }
        Some(_) | None => Ok(false),
    }
}

/// How long a token is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenExpiry {
    Never,
    After(Duration),
}

/// A token just created: its id and the secret, shown once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToken {
    pub id: String,
    pub secret: String,
}

/// Tokens start with this, so they are recognisable in logs and scanners.
pub const TOKEN_PREFIX: &str = "wdn_";

/// What a new token is.
#[derive(Debug, Clone, Copy)]
pub struct TokenRequest<'a> {
    pub name: &'a str,
    pub role: Role,
    pub expiry: TokenExpiry,
    /// The person it acts for: the four-eyes rule and the audit log see
    /// them behind it.
    pub owner: &'a Person,
    /// Who made it (an actor), shown in the list.
    pub created_by: &'a str,
}

pub fn create_token(
    store: &Store,
    request: &TokenRequest<'_>,
    now_ms: u64,
) -> Result<NewToken, AccountError> {
    let TokenRequest {
        name,
        role,
        expiry,
        owner,
        created_by,
    } = *request;
    if name.trim().is_empty() || name.chars().count() > 128 {
        return Err(AccountError::InvalidName(name.to_string()));
    }
    let id = new_id("tok-")?;
    let secret = format!("{TOKEN_PREFIX}{}", new_secret()?);
    let expires_at_ms = match expiry {
        TokenExpiry::Never => None,
        TokenExpiry::After(d) => {
            Some(now_ms.saturating_add(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)))
        }
    };
    store.add_api_token(&NewApiToken {
        id: id.clone(),
        name: name.to_string(),
        role: role.as_str().to_string(),
        token_hash: sha256_hex(&secret),
        created_by: Some(created_by.to_string()),
        owner: owner.as_str().to_string(),
        created_at_ms: now_ms,
        expires_at_ms,
    })?;
    Ok(NewToken { id, secret })
}

/// Revoke a token: `Ok(false)` when there is no such token.
pub fn revoke_token(store: &Store, id: &str, now_ms: u64) -> Result<bool, AccountError> {
    if !store.api_token_exists(id)? {
        return Ok(false);
    }
    store.revoke_api_token(id, now_ms)?;
    Ok(true)
}

/// The first admin, created on first start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootstrapAdmin {
    pub username: String,
    /// Shown once by whoever started the server.
    pub password: String,
    /// Where the password also is (0600) until it is changed.
    pub password_file: PathBuf,
}

/// With no user at all, create `admin` with a random one-time password,
/// stored only as a hash, and in a 0600 file in the data directory until
/// the first login with it (which must set a new one).
pub fn bootstrap_admin(
    store: &Store,
    data_dir: &Path,
    now_ms: u64,
) -> Result<Option<BootstrapAdmin>, AccountError> {
    if store.user_count()? > 0 {
        return Ok(None);
    }
    let password = new_secret()?;
    add_user_with(
        store,
        FIRST_ADMIN,
        Role::Admin,
        &password,
        PasswordChange::Required,
        now_ms,
    )?;
    let password_file = data_dir.join(ADMIN_PASSWORD_FILE);
    write_private(&password_file, &format!("{password}\n"))?;
    Ok(Some(BootstrapAdmin {
        username: FIRST_ADMIN.to_string(),
        password,
        password_file,
    }))
}

/// Write a file only its owner can read.
fn write_private(path: &Path, text: &str) -> Result<(), AccountError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io = |e: std::io::Error| AccountError::Io(format!("writing {}: {e}", path.display()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn first_start_creates_admin_once_with_a_private_password_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in_memory().unwrap();
        let admin = bootstrap_admin(&store, dir.path(), 1).unwrap().unwrap();
        assert_eq!(admin.username, "admin");
        let file = std::fs::read_to_string(&admin.password_file).unwrap();
        assert_eq!(file.trim(), admin.password);
        let mode = std::fs::metadata(&admin.password_file)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let stored = store.user("admin").unwrap().unwrap();
        assert_eq!(stored.role, "admin");
        assert_eq!(stored.password_change, PasswordChange::Required);
        assert!(!stored.password_hash.contains(&admin.password));
        assert!(super::super::verify_password(
            &admin.password,
            &stored.password_hash
        ));
        assert_eq!(bootstrap_admin(&store, dir.path(), 2).unwrap(), None);

        set_password(&store, dir.path(), "admin", "a new password", None, 3).unwrap();
        assert!(
            !admin.password_file.exists(),
            "the file goes with the first password"
        );
        assert_eq!(
            store.user("admin").unwrap().unwrap().password_change,
            PasswordChange::NotRequired
        );
        assert!(matches!(
            set_password(&store, dir.path(), "ghost", "whatever1", None, 3),
            Err(AccountError::NoSuchUser(_))
        ));
    }

    #[test]
    fn an_earlier_release_s_password_file_makes_the_password_one_time() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in_memory().unwrap();
        add_user(&store, "admin", Role::Admin, "old first password", 1).unwrap();
        assert!(
            !adopt_admin_password_file(&store, dir.path()).unwrap(),
            "no file"
        );
        std::fs::write(dir.path().join(ADMIN_PASSWORD_FILE), "old first password\n").unwrap();
        assert!(adopt_admin_password_file(&store, dir.path()).unwrap());
        assert!(
            !adopt_admin_password_file(&store, dir.path()).unwrap(),
            "once"
        );
        assert_eq!(
            store.user("admin").unwrap().unwrap().password_change,
            PasswordChange::Required
        );
        assert!(remove_admin_password_file(dir.path()).unwrap());
        assert!(!remove_admin_password_file(dir.path()).unwrap());
    }

    #[test]
    fn users_and_tokens() {
        let store = Store::open_in_memory().unwrap();
        add_user(&store, "olga", Role::Operator, "password1", 1).unwrap();
        assert!(matches!(
            add_user(&store, "olga", Role::Viewer, "password1", 1),
            Err(AccountError::UserExists(_))
        ));
        assert!(matches!(
            add_user(&store, "bad name", Role::Viewer, "password1", 1),
            Err(AccountError::InvalidName(_))
        ));
        for reserved in ["system", "Warden", "assistant"] {
            let error = add_user(&store, reserved, Role::Viewer, "password1", 1).unwrap_err();
            assert!(matches!(error, AccountError::ReservedName(_)), "{reserved}");
            assert!(error.to_string().contains("audit log"), "{error}");
        }
        let olga = Person::user("olga");
        let token = create_token(
            &store,
            &TokenRequest {
                name: "ci",
                role: Role::Viewer,
                expiry: TokenExpiry::After(Duration::from_secs(60)),
                owner: &olga,
                created_by: "user:olga",
            },
            1_000,
        )
        .unwrap();
        assert!(token.secret.starts_with(TOKEN_PREFIX));
        let stored = store
            .api_token_by_hash(&sha256_hex(&token.secret))
            .unwrap()
            .unwrap();
        assert_eq!(stored.id, token.id);
        assert_eq!(stored.owner.as_deref(), Some("user:olga"));
        assert_eq!(stored.expires_at_ms, Some(61_000));
        assert!(revoke_token(&store, &token.id, 2_000).unwrap());
        assert!(!revoke_token(&store, "tok-nope", 2_000).unwrap());
    }
}
