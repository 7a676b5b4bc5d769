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
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<User> {
    Ok(User {
        username: row.get(0)?,
        role: row.get(1)?,
        password_hash: row.get(2)?,
        created_at_ms: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
        password_changed_at_ms: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
    })
}

const COLUMNS: &str = "username, role, password_hash, created_at_ms, password_changed_at_ms";

impl Store {
    /// Add a user; `Ok(false)` when the name is taken.
    pub fn add_user(&self, user: &User) -> StoreResult<bool> {
        let added = self.conn()?.execute(
            &format!(
                "INSERT INTO users ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(username) DO NOTHING"
            ),
            params![
                user.username,
                user.role,
                user.password_hash,
                sql_i64(user.created_at_ms),
                sql_i64(user.password_changed_at_ms)
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

    /// Replace a user's password hash and end their browser sessions, in
    /// one transaction. `Ok(false)` when there is no such user.
    pub fn set_password(
        &self,
        username: &str,
        password_hash: &str,
        now_ms: u64,
    ) -> StoreResult<bool> {
        let mut conn = self.conn()?;
        let tx = conn.transaction()?;
        let changed = tx.execute(
            "UPDATE users SET password_hash = ?2, password_changed_at_ms = ?3 WHERE username = ?1",
            params![username, password_hash, sql_i64(now_ms)],
        )?;
        tx.execute(
            "DELETE FROM login_sessions WHERE username = ?1",
            params![username],
        )?;
        tx.commit()?;
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
        assert!(store.set_password("bob", "$argon2id$y", 9).unwrap());
        let bob = store.user("bob").unwrap().unwrap();
        assert_eq!(bob.password_hash, "$argon2id$y");
        assert_eq!(bob.password_changed_at_ms, 9);
        assert!(!store.set_password("nobody", "h", 9).unwrap());
        assert_eq!(store.user("nobody").unwrap(), None);
    }
}
