//! Browser login sessions: the SHA-256 of the cookie's secret, whose they
//! are, their CSRF token and when they end.

use rusqlite::{OptionalExtension, params};

use crate::{Store, StoreResult, sql_i64};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginSession {
    /// Hex SHA-256 of the cookie value.
    pub id_hash: String,
    pub username: String,
    pub csrf_token: String,
    pub created_at_ms: u64,
    pub expires_at_ms: u64,
}

impl Store {
    /// Store a new login session (and forget expired ones).
    pub fn add_login_session(&self, session: &LoginSession) -> StoreResult<()> {
        let mut conn = self.conn()?;
        let tx = conn.transaction()?;
        tx.execute(
            "DELETE FROM login_sessions WHERE expires_at_ms <= ?1",
            params![sql_i64(session.created_at_ms)],
        )?;
        tx.execute(
            "INSERT INTO login_sessions (id_hash, username, csrf_token, created_at_ms, expires_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                session.id_hash,
                session.username,
                session.csrf_token,
                sql_i64(session.created_at_ms),
                sql_i64(session.expires_at_ms)
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The unexpired session with this hash.
    pub fn login_session(&self, id_hash: &str, now_ms: u64) -> StoreResult<Option<LoginSession>> {
        Ok(self
            .conn()?
            .query_row(
                "SELECT id_hash, username, csrf_token, created_at_ms, expires_at_ms
                 FROM login_sessions WHERE id_hash = ?1 AND expires_at_ms > ?2",
                params![id_hash, sql_i64(now_ms)],
                |row| {
                    Ok(LoginSession {
                        id_hash: row.get(0)?,
                        username: row.get(1)?,
                        csrf_token: row.get(2)?,
                        created_at_ms: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
                        expires_at_ms: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
                    })
                },
            )
            .optional()?)
    }

    pub fn delete_login_session(&self, id_hash: &str) -> StoreResult<()> {
        self.conn()?.execute(
            "DELETE FROM login_sessions WHERE id_hash = ?1",
            params![id_hash],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_expire_and_end_with_a_password_change() {
        let store = Store::open_in_memory().unwrap();
        let session = LoginSession {
            id_hash: "h".into(),
            username: "bob".into(),
            csrf_token: "c".into(),
            created_at_ms: 10,
            expires_at_ms: 100,
        };
        store.add_login_session(&session).unwrap();
        assert_eq!(store.login_session("h", 50).unwrap(), Some(session.clone()));
        assert_eq!(store.login_session("h", 100).unwrap(), None, "expired");
        store.delete_login_session("h").unwrap();
        assert_eq!(store.login_session("h", 50).unwrap(), None);
        store.add_login_session(&session).unwrap();
        store.set_password("bob", "x", 60, None).unwrap();
        assert_eq!(
            store.login_session("h", 50).unwrap(),
            None,
            "password changed"
        );
    }
}
