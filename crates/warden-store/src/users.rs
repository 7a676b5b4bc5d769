//! The server's users: a name, a role and an argon2id password hash (PHC
//! string, hashed by the caller; the store never sees a password).

use rusqlite::{OptionalExtension, Row, params};

use crate::{Store, StoreResult, sql_i64};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub username: String,
    /// `viewer`, `operator`, `approver` or `admin` (checked by the server).
    pub role: String,
    pub password_hash: String,
    pub created_at_ms: u64,
    pub password_changed_at_ms: u64,
    /// The password is a one-time password (the first admin's): the next
    /// login must set a new one before doing anything else.
    pub password_change: PasswordChange,
}

/// Whether a user's password must be changed before anything else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordChange {
    NotRequired,
    Required,
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<User> {
    Ok(User {
        username: row.get(0)?,
        role: row.get(1)?,
        password_hash: row.get(2)?,
        created_at_ms: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
        password_changed_at_ms: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
        password_change: if row.get::<_, i64>(5)? != 0 {
            PasswordChange::Required
        } else {
            PasswordChange::NotRequired
        },
    })
}

fn required_flag(change: PasswordChange) -> i64 {
    match change {
        PasswordChange::NotRequired => 0,
        PasswordChange::Required => 1,
    }
}

const COLUMNS: &str = "username, role, password_hash, created_at_ms, password_changed_at_ms, password_change_required";

impl Store {
    /// Add a user; `Ok(false)` when the name is taken.
    pub fn add_user(&self, user: &User) -> StoreResult<bool> {
        let added = self.conn()?.execute(
            &format!(
                "INSERT INTO users ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(username) DO NOTHING"
            ),
            params![
                user.username,
                user.role,
                user.password_hash,
                sql_i64(user.created_at_ms),
                sql_i64(user.password_changed_at_ms),
                required_flag(user.password_change),
            ],
        )?;
        Ok(added == 1)
    }

    pub fn user(&self, username: &str) -> StoreResult<Option<User>> {
        Ok(self
            .conn()?
            .query_row(
                &format!("SELECT {COLUMNS} FROM users WHERE username = ?1"),
                params![username],
                from_row,
            )
            .optional()?)
    }

    /// Every user, by name.
    pub fn users(&self) -> StoreResult<Vec<User>> {
        let conn = self.conn()?;
        let mut statement =
            conn.prepare(&format!("SELECT {COLUMNS} FROM users ORDER BY username"))?;
        let rows = statement.query_map([], from_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    pub fn user_count(&self) -> StoreResult<u64> {
        let n: i64 = self
            .conn()?
            .query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Replace a user's password hash (it is no longer a one-time
    /// password) and end their browser sessions but `keep` (the login that
    /// changed it), in one transaction. `Ok(false)` when there is no such
    /// user.
    pub fn set_password(
        &self,
        username: &str,
        password_hash: &str,
        now_ms: u64,
        keep: Option<&str>,
    ) -> StoreResult<bool> {
        let mut conn = self.conn()?;
        let tx = conn.transaction()?;
        let changed = tx.execute(
            "UPDATE users SET password_hash = ?2, password_changed_at_ms = ?3,
                              password_change_required = 0
             WHERE username = ?1",
            params![username, password_hash, sql_i64(now_ms)],
        )?;
        tx.execute(
            "DELETE FROM login_sessions WHERE username = ?1 AND id_hash IS NOT ?2",
            params![username, keep],
        )?;
        tx.commit()?;
        Ok(changed == 1)
    }

    /// Mark a user's password as one-time: the next login must change it.
    /// `Ok(false)` when there is no such user.
    pub fn require_password_change(&self, username: &str) -> StoreResult<bool> {
        let changed = self.conn()?.execute(
            "UPDATE users SET password_change_required = 1 WHERE username = ?1",
            params![username],
        )?;
        Ok(changed == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(name: &str) -> User {
        User {
            username: name.into(),
            role: "viewer".into(),
            password_hash: "$argon2id$x".into(),
            created_at_ms: 5,
            password_changed_at_ms: 5,
            password_change: PasswordChange::NotRequired,
        }
    }

    #[test]
    fn users_are_unique_and_passwords_change() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(store.user_count().unwrap(), 0);
        assert!(store.add_user(&user("bob")).unwrap());
        assert!(!store.add_user(&user("bob")).unwrap(), "name taken");
        assert!(store.add_user(&user("alice")).unwrap());
        let names: Vec<String> = store
            .users()
            .unwrap()
            .into_iter()
            .map(|u| u.username)
            .collect();
        assert_eq!(names, ["alice", "bob"]);
        assert!(store.require_password_change("bob").unwrap());
        assert!(!store.require_password_change("nobody").unwrap());
        assert_eq!(
            store.user("bob").unwrap().unwrap().password_change,
            PasswordChange::Required
        );
        assert!(store.set_password("bob", "$argon2id$y", 9, None).unwrap());
        let bob = store.user("bob").unwrap().unwrap();
        assert_eq!(bob.password_hash, "$argon2id$y");
        assert_eq!(bob.password_changed_at_ms, 9);
        assert_eq!(bob.password_change, PasswordChange::NotRequired);
        assert!(!store.set_password("nobody", "h", 9, None).unwrap());
        assert_eq!(store.user("nobody").unwrap(), None);
    }

    #[test]
    fn a_password_change_ends_every_other_login() {
        let store = Store::open_in_memory().unwrap();
        store.add_user(&user("bob")).unwrap();
        store.add_user(&user("alice")).unwrap();
        for (id, name) in [("here", "bob"), ("there", "bob"), ("hers", "alice")] {
            store
                .add_login_session(&crate::LoginSession {
                    id_hash: id.into(),
                    username: name.into(),
                    csrf_token: "c".into(),
                    created_at_ms: 1,
                    expires_at_ms: 1_000,
                })
                .unwrap();
        }
        assert!(
            store
                .set_password("bob", "$argon2id$z", 2, Some("here"))
                .unwrap()
        );
        let live = |id: &str| store.login_session(id, 5).unwrap().is_some();
        assert!(live("here"), "the login that changed it stays");
        assert!(!live("there"));
        assert!(live("hers"), "other users keep theirs");
        store.set_password("bob", "$argon2id$w", 3, None).unwrap();
        assert!(!live("here"));
    }
}
