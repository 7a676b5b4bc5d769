//! Host agents (spec/agent.md "Identity and enrollment"): enrollment
//! tokens (only the SHA-256 of the secret is kept, with the uses left and
//! an expiry), enrolled agents with their Ed25519 public key, revocation,
//! and the server's own secrets (the key that signs write grants).
//!
//! Enrolling is one IMMEDIATE transaction: the token is checked and a use
//! taken, and the name is checked and claimed, together, so two agents
//! racing for the last use or for the same name cannot both win.

use rusqlite::{OptionalExtension, Row, TransactionBehavior, params};

use crate::{Store, StoreError, StoreResult, sql_i64};

/// An enrollment token as the admin created it (never the secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEnrollmentToken {
    /// Hex SHA-256 of the secret.
    pub token_hash: String,
    /// How many enrollments it allows.
    pub uses: u32,
    pub expires_at_ms: u64,
    pub created_by: Option<String>,
    pub created_at_ms: u64,
}

/// An enrolled agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnrolledAgent {
    pub id: String,
    /// Its host name: its host resource is `host:{name}`.
    pub name: String,
    /// Base64 of its 32-byte Ed25519 public key.
    pub public_key: String,
    pub version: String,
    pub os: String,
    pub arch: String,
    pub enrolled_at_ms: u64,
    pub last_seen_ms: Option<u64>,
    pub revoked_at_ms: Option<u64>,
}

/// One enrollment request, as the server checked its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enrollment<'a> {
    /// Hex SHA-256 of the presented token.
    pub token_hash: &'a str,
    /// The id a new agent gets (a re-enrollment keeps its old one).
    pub new_id: &'a str,
    pub name: &'a str,
    pub public_key: &'a str,
    pub version: &'a str,
    pub os: &'a str,
    pub arch: &'a str,
    pub now_ms: u64,
}

/// Whether an enrollment created an agent or renewed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnrollOutcome {
    /// A new agent.
    Enrolled(EnrolledAgent),
    /// The same name with the same key: the agent keeps its id; its
    /// version, OS and architecture are updated.
    Renewed(EnrolledAgent),
}

impl EnrollOutcome {
    pub fn agent(&self) -> &EnrolledAgent {
        match self {
            EnrollOutcome::Enrolled(agent) | EnrollOutcome::Renewed(agent) => agent,
        }
    }
}

/// Why an enrollment was refused.
#[derive(Debug, thiserror::Error)]
pub enum EnrollError {
    #[error("unknown enrollment token")]
    UnknownToken,
    #[error("the enrollment token expired")]
    TokenExpired,
    #[error("the enrollment token has no uses left")]
    TokenUsedUp,
    #[error("an agent named `{name}` is already enrolled with another key")]
    NameTaken { name: String },
    #[error("the key of agent `{name}` was revoked")]
    KeyRevoked { name: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for EnrollError {
    fn from(error: rusqlite::Error) -> Self {
        EnrollError::Store(StoreError::Sqlite(error))
    }
}

const AGENT_COLUMNS: &str =
    "id, name, public_key, version, os, arch, enrolled_at_ms, last_seen_ms, revoked_at_ms";

fn ms(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn agent_from_row(row: &Row<'_>) -> rusqlite::Result<EnrolledAgent> {
    Ok(EnrolledAgent {
        id: row.get(0)?,
        name: row.get(1)?,
        public_key: row.get(2)?,
        version: row.get(3)?,
        os: row.get(4)?,
        arch: row.get(5)?,
        enrolled_at_ms: ms(row.get(6)?),
        last_seen_ms: row.get::<_, Option<i64>>(7)?.map(ms),
        revoked_at_ms: row.get::<_, Option<i64>>(8)?.map(ms),
    })
}

impl Store {
    pub fn add_enrollment_token(&self, token: &NewEnrollmentToken) -> StoreResult<()> {
        self.conn()?.execute(
            "INSERT INTO enrollment_tokens (token_hash, uses_left, expires_at_ms, created_by, created_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                token.token_hash,
                token.uses,
                sql_i64(token.expires_at_ms),
                token.created_by,
                sql_i64(token.created_at_ms),
            ],
        )?;
        Ok(())
    }

    /// Takes one use of the token and enrolls (or renews) the agent, in
    /// one transaction. A name held by a live agent with another key is
    /// refused; a revoked key is refused; a revoked agent's name is free.
    pub fn enroll_agent(&self, enrollment: &Enrollment<'_>) -> Result<EnrollOutcome, EnrollError> {
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let token: Option<(i64, i64)> = tx
            .query_row(
                "SELECT uses_left, expires_at_ms FROM enrollment_tokens WHERE token_hash = ?1",
                params![enrollment.token_hash],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match token {
            None => return Err(EnrollError::UnknownToken),
            Some((_, expires)) if ms(expires) <= enrollment.now_ms => {
                return Err(EnrollError::TokenExpired);
            }
            Some((uses, _)) if uses <= 0 => return Err(EnrollError::TokenUsedUp),
            Some(_) => {}
        }
        let revoked_same_key: bool = tx
            .query_row(
                "SELECT 1 FROM agents WHERE name = ?1 AND public_key = ?2 AND revoked_at_ms IS NOT NULL",
                params![enrollment.name, enrollment.public_key],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        if revoked_same_key {
            return Err(EnrollError::KeyRevoked {
                name: enrollment.name.to_string(),
            });
        }
        let live: Option<EnrolledAgent> = tx
            .query_row(
                &format!(
                    "SELECT {AGENT_COLUMNS} FROM agents WHERE name = ?1 AND revoked_at_ms IS NULL"
                ),
                params![enrollment.name],
                agent_from_row,
            )
            .optional()?;
        let outcome = match live {
            Some(existing) if existing.public_key != enrollment.public_key => {
                return Err(EnrollError::NameTaken {
                    name: enrollment.name.to_string(),
                });
            }
            Some(existing) => {
                tx.execute(
                    "UPDATE agents SET version = ?2, os = ?3, arch = ?4 WHERE id = ?1",
                    params![
                        existing.id,
                        enrollment.version,
                        enrollment.os,
                        enrollment.arch
                    ],
                )?;
                EnrollOutcome::Renewed(EnrolledAgent {
                    version: enrollment.version.to_string(),
                    os: enrollment.os.to_string(),
                    arch: enrollment.arch.to_string(),
                    ..existing
                })
            }
            None => {
                let agent = EnrolledAgent {
                    id: enrollment.new_id.to_string(),
                    name: enrollment.name.to_string(),
                    public_key: enrollment.public_key.to_string(),
                    version: enrollment.version.to_string(),
                    os: enrollment.os.to_string(),
                    arch: enrollment.arch.to_string(),
                    enrolled_at_ms: enrollment.now_ms,
                    last_seen_ms: None,
                    revoked_at_ms: None,
                };
                tx.execute(
                    &format!("INSERT INTO agents ({AGENT_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, NULL)"),
                    params![
                        agent.id,
                        agent.name,
                        agent.public_key,
                        agent.version,
                        agent.os,
                        agent.arch,
                        sql_i64(agent.enrolled_at_ms),
                    ],
                )?;
                EnrollOutcome::Enrolled(agent)
            }
        };
        tx.execute(
            "UPDATE enrollment_tokens SET uses_left = uses_left - 1 WHERE token_hash = ?1",
            params![enrollment.token_hash],
        )?;
        tx.commit()?;
        Ok(outcome)
    }

    /// An agent by id, revoked or not.
    pub fn agent(&self, id: &str) -> StoreResult<Option<EnrolledAgent>> {
        Ok(self
            .conn()?
            .query_row(
                &format!("SELECT {AGENT_COLUMNS} FROM agents WHERE id = ?1"),
                params![id],
                agent_from_row,
            )
            .optional()?)
    }

    /// Every agent not revoked, by name.
    pub fn agents(&self) -> StoreResult<Vec<EnrolledAgent>> {
        let conn = self.conn()?;
        let mut statement = conn.prepare(&format!(
            "SELECT {AGENT_COLUMNS} FROM agents WHERE revoked_at_ms IS NULL ORDER BY name, id"
        ))?;
        let rows = statement.query_map([], agent_from_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Revoke an agent; `Ok(false)` when there is no such live agent.
    pub fn revoke_agent(&self, id: &str, now_ms: u64) -> StoreResult<bool> {
        let changed = self.conn()?.execute(
            "UPDATE agents SET revoked_at_ms = ?2 WHERE id = ?1 AND revoked_at_ms IS NULL",
            params![id, sql_i64(now_ms)],
        )?;
        Ok(changed == 1)
    }

    /// Record that the agent was connected at `now_ms`.
    pub fn touch_agent(&self, id: &str, now_ms: u64) -> StoreResult<()> {
        self.conn()?.execute(
            "UPDATE agents SET last_seen_ms = MAX(COALESCE(last_seen_ms, 0), ?2) WHERE id = ?1",
            params![id, sql_i64(now_ms)],
        )?;
        Ok(())
    }

    /// The secret called `name`, storing `candidate` first when there is
    /// none yet (so the first caller's value is kept for good).
    pub fn server_secret_or_insert(
        &self,
        name: &str,
        candidate: &[u8],
        now_ms: u64,
    ) -> StoreResult<Vec<u8>> {
        let conn = self.conn()?;
        conn.execute(
            "INSERT OR IGNORE INTO server_secrets (name, value, created_at_ms) VALUES (?1, ?2, ?3)",
            params![name, candidate, sql_i64(now_ms)],
        )?;
        Ok(conn.query_row(
            "SELECT value FROM server_secrets WHERE name = ?1",
            params![name],
            |r| r.get(0),
        )?)
    }

    /// Every server secret, by name (for the known-secret canary: an
    /// output holding one is withheld).
    pub fn server_secrets(&self) -> StoreResult<Vec<(String, Vec<u8>)>> {
        let conn = self.conn()?;
        let mut statement = conn.prepare("SELECT name, value FROM server_secrets ORDER BY name")?;
        let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(hash: &str, uses: u32, expires_at_ms: u64) -> NewEnrollmentToken {
        NewEnrollmentToken {
            token_hash: hash.into(),
            uses,
            expires_at_ms,
            created_by: Some("user:admin".into()),
            created_at_ms: 1,
        }
    }

    fn enrollment<'a>(token: &'a str, id: &'a str, name: &'a str, key: &'a str) -> Enrollment<'a> {
        Enrollment {
            token_hash: token,
            new_id: id,
            name,
            public_key: key,
            version: "0.1.0",
            os: "linux",
            arch: "x86_64",
            now_ms: 10,
        }
    }

    /// What an enrollment came to, as a short word.
    fn outcome(result: Result<EnrollOutcome, EnrollError>) -> String {
        match result {
            Ok(EnrollOutcome::Enrolled(a)) => format!("enrolled {}", a.id),
            Ok(EnrollOutcome::Renewed(a)) => format!("renewed {}", a.id),
            Err(EnrollError::UnknownToken) => "unknown".into(),
            Err(EnrollError::TokenExpired) => "expired".into(),
            Err(EnrollError::TokenUsedUp) => "used up".into(),
            Err(EnrollError::NameTaken { name }) => format!("taken {name}"),
            Err(EnrollError::KeyRevoked { name }) => format!("revoked {name}"),
            Err(EnrollError::Store(e)) => format!("store {e}"),
        }
    }

    #[test]
    fn enrollment_table() {
        let store = Store::open_in_memory().unwrap();
        store.add_enrollment_token(&token("one", 1, 100)).unwrap();
        store.add_enrollment_token(&token("three", 3, 100)).unwrap();
        store.add_enrollment_token(&token("old", 5, 10)).unwrap();
        // (token, new id, name, key, expected), in order: each step sees
        // what the ones before did.
        let steps = [
            ("nope", "a0", "web1", "K1", "unknown"),
            ("old", "a0", "web1", "K1", "expired"),
            ("one", "a1", "web1", "K1", "enrolled a1"),
            ("one", "a2", "web2", "K2", "used up"),
            ("three", "a2", "web1", "K9", "taken web1"),
            ("three", "a2", "web1", "K1", "renewed a1"),
            ("three", "a3", "web3", "K3", "enrolled a3"),
            // A refused enrollment took no use.
            ("three", "a4", "web4", "K4", "enrolled a4"),
            ("three", "a5", "web5", "K5", "used up"),
        ];
        for (token, id, name, key, expected) in steps {
            let got = outcome(store.enroll_agent(&enrollment(token, id, name, key)));
            assert_eq!(got, expected, "{token} {name} {key}");
        }
        let names: Vec<String> = store
            .agents()
            .unwrap()
            .into_iter()
            .map(|a| a.name)
            .collect();
        assert_eq!(names, ["web1", "web3", "web4"]);
    }

    #[test]
    fn revoked_keys_stay_refused_and_free_the_name() {
        let store = Store::open_in_memory().unwrap();
        store.add_enrollment_token(&token("t", 10, 100)).unwrap();
        outcome(store.enroll_agent(&enrollment("t", "a1", "web1", "K1")));
        assert!(store.revoke_agent("a1", 20).unwrap());
        assert!(!store.revoke_agent("a1", 21).unwrap(), "already revoked");
        assert!(!store.revoke_agent("zz", 21).unwrap());
        assert_eq!(store.agent("a1").unwrap().unwrap().revoked_at_ms, Some(20));
        assert!(store.agents().unwrap().is_empty());
        assert_eq!(
            outcome(store.enroll_agent(&enrollment("t", "a2", "web1", "K1"))),
            "revoked web1"
        );
        assert_eq!(
            outcome(store.enroll_agent(&enrollment("t", "a2", "web1", "K2"))),
            "enrolled a2"
        );
        store.touch_agent("a2", 50).unwrap();
        store.touch_agent("a2", 40).unwrap();
        assert_eq!(store.agent("a2").unwrap().unwrap().last_seen_ms, Some(50));
        assert_eq!(store.agent("nope").unwrap(), None);
    }

    #[test]
    fn a_server_secret_is_created_once() {
        let store = Store::open_in_memory().unwrap();
        let first = store.server_secret_or_insert("k", &[1; 32], 1).unwrap();
        let second = store.server_secret_or_insert("k", &[2; 32], 2).unwrap();
        assert_eq!(first, vec![1; 32]);
        assert_eq!(second, vec![1; 32]);
        assert_eq!(
            store.server_secrets().unwrap(),
            vec![("k".to_string(), vec![1; 32])]
        );
    }
}
