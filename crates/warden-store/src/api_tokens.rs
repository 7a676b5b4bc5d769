//! Bearer tokens for scripts: a name, a role, an expiry, the person it
//! belongs to, and the SHA-256 of the secret (the secret itself is shown
//! once and never stored).

use rusqlite::{OptionalExtension, Row, params};

use crate::{Store, StoreResult, sql_i64};

/// A token as stored (never the secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiToken {
    pub id: String,
    pub name: String,
    pub role: String,
    /// Who made it (an actor, or a user name in rows from before actors).
    pub created_by: Option<String>,
    /// The person it acts for (`user:alice`); `None` for a token made
    /// offline before tokens had owners.
    pub owner: Option<String>,
    pub created_at_ms: u64,
    pub expires_at_ms: Option<u64>,
    pub revoked_at_ms: Option<u64>,
    pub last_used_at_ms: Option<u64>,
}

/// What creating a token stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewApiToken {
    pub id: String,
    pub name: String,
    pub role: String,
    /// Hex SHA-256 of the secret.
    pub token_hash: String,
    pub created_by: Option<String>,
    /// The person it acts for (`user:alice`).
    pub owner: String,
    pub created_at_ms: u64,
    pub expires_at_ms: Option<u64>,
}

const COLUMNS: &str = "id, name, role, created_by, created_at_ms, expires_at_ms, revoked_at_ms, last_used_at_ms, owner";

fn opt_ms(row: &Row<'_>, i: usize) -> rusqlite::Result<Option<u64>> {
    Ok(row
        .get::<_, Option<i64>>(i)?
        .map(|v| u64::try_from(v).unwrap_or(0)))
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<ApiToken> {
    Ok(ApiToken {
        id: row.get(0)?,
        name: row.get(1)?,
        role: row.get(2)?,
        created_by: row.get(3)?,
        created_at_ms: u64::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
        expires_at_ms: opt_ms(row, 5)?,
        revoked_at_ms: opt_ms(row, 6)?,
        last_used_at_ms: opt_ms(row, 7)?,
        owner: row.get(8)?,
    })
}

impl Store {
    pub fn add_api_token(&self, token: &NewApiToken) -> StoreResult<()> {
        self.conn()?.execute(
            "INSERT INTO api_tokens (id, name, role, token_hash, created_by, created_at_ms, expires_at_ms, owner)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                token.id,
                token.name,
                token.role,
                token.token_hash,
                token.created_by,
                sql_i64(token.created_at_ms),
                token.expires_at_ms.map(sql_i64),
                token.owner,
            ],
        )?;
        Ok(())
    }

    /// The token with this secret hash, whatever its state (the caller
    /// checks expiry and revocation, to say which applies).
    pub fn api_token_by_hash(&self, token_hash: &str) -> StoreResult<Option<ApiToken>> {
        Ok(self
            .conn()?
            .query_row(
                &format!("SELECT {COLUMNS} FROM api_tokens WHERE token_hash = ?1"),
                params![token_hash],
                from_row,
            )
            .optional()?)
    }

    /// Every token, newest first.
    pub fn api_tokens(&self) -> StoreResult<Vec<ApiToken>> {
        let conn = self.conn()?;
        let mut statement = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM api_tokens ORDER BY created_at_ms DESC, id"
        ))?;
        let rows = statement.query_map([], from_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Revoke a token; `Ok(false)` when there is no such token or it was
    /// already revoked.
    pub fn revoke_api_token(&self, id: &str, now_ms: u64) -> StoreResult<bool> {
        let changed = self.conn()?.execute(
            "UPDATE api_tokens SET revoked_at_ms = ?2 WHERE id = ?1 AND revoked_at_ms IS NULL",
            params![id, sql_i64(now_ms)],
        )?;
        Ok(changed == 1)
    }

    pub fn api_token_exists(&self, id: &str) -> StoreResult<bool> {
        Ok(self
            .conn()?
            .query_row(
                "SELECT 1 FROM api_tokens WHERE id = ?1",
                params![id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    pub fn touch_api_token(&self, id: &str, now_ms: u64) -> StoreResult<()> {
        self.conn()?.execute(
            "UPDATE api_tokens SET last_used_at_ms = ?2 WHERE id = ?1",
            params![id, sql_i64(now_ms)],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(id: &str, hash: &str, at: u64) -> NewApiToken {
        NewApiToken {
            id: id.into(),
            name: format!("name-{id}"),
            role: "operator".into(),
            token_hash: hash.into(),
            created_by: None,
            owner: format!("user:owner-{id}"),
            created_at_ms: at,
            expires_at_ms: Some(at + 100),
        }
    }

    #[test]
    fn tokens_are_found_by_hash_listed_and_revoked_once() {
        let store = Store::open_in_memory().unwrap();
        store.add_api_token(&token("t1", "h1", 1)).unwrap();
        store.add_api_token(&token("t2", "h2", 2)).unwrap();
        assert!(
            store.add_api_token(&token("t3", "h1", 3)).is_err(),
            "hashes are unique"
        );
        let found = store.api_token_by_hash("h2").unwrap().unwrap();
        assert_eq!(found.id, "t2");
        assert_eq!(found.owner.as_deref(), Some("user:owner-t2"));
        assert_eq!(found.expires_at_ms, Some(102));
        assert_eq!(found.revoked_at_ms, None);
        let ids: Vec<String> = store
            .api_tokens()
            .unwrap()
            .into_iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(ids, ["t2", "t1"]);
        assert!(store.revoke_api_token("t2", 50).unwrap());
        assert!(
            !store.revoke_api_token("t2", 60).unwrap(),
            "already revoked"
        );
        assert!(!store.revoke_api_token("nope", 60).unwrap());
        assert_eq!(
            store
                .api_token_by_hash("h2")
                .unwrap()
                .unwrap()
                .revoked_at_ms,
            Some(50)
        );
        store.touch_api_token("t1", 70).unwrap();
        assert_eq!(
            store
                .api_token_by_hash("h1")
                .unwrap()
                .unwrap()
                .last_used_at_ms,
            Some(70)
        );
        assert!(store.api_token_exists("t1").unwrap());
        assert_eq!(store.api_token_by_hash("zz").unwrap(), None);
    }
}
