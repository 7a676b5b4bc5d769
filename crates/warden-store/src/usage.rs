//! Tokens and estimated cost per model call, summed per provider, model and
//! session for `warden usage` and budgets.

use rusqlite::params;

use crate::{Store, StoreResult, sql_i64};

/// One model call's usage.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRow {
    pub session_id: String,
    pub provider: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when the model has no known price.
    pub cost_usd: Option<f64>,
    pub at_ms: u64,
}

/// Usage summed over a group.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageTotals {
    pub provider: String,
    pub model: String,
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The sum of the known costs; `priced_calls` says how many were known.
    pub cost_usd: f64,
    pub priced_calls: u64,
}

impl Store {
    pub fn record_usage(&self, row: &UsageRow) -> StoreResult<()> {
        self.conn()?.execute(
            "INSERT INTO usage (session_id, provider, model, input_tokens, output_tokens, cost_usd, at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                row.session_id,
                row.provider,
                row.model,
                sql_i64(row.input_tokens),
                sql_i64(row.output_tokens),
                row.cost_usd,
                sql_i64(row.at_ms)
            ],
        )?;
        Ok(())
    }

    /// Totals per provider and model, optionally for one session and/or
    /// since a time.
    pub fn usage_totals(
        &self,
        session_id: Option<&str>,
        since_ms: Option<u64>,
    ) -> StoreResult<Vec<UsageTotals>> {
        let conn = self.conn()?;
        let mut statement = conn.prepare(
            "SELECT provider, model, COUNT(*), SUM(input_tokens), SUM(output_tokens),
                    COALESCE(SUM(cost_usd), 0.0), COUNT(cost_usd)
             FROM usage
             WHERE (?1 IS NULL OR session_id = ?1) AND at_ms >= ?2
             GROUP BY provider, model ORDER BY provider, model",
        )?;
        let rows =
            statement.query_map(params![session_id, sql_i64(since_ms.unwrap_or(0))], |row| {
                let n = |i: usize| -> rusqlite::Result<u64> {
                    Ok(u64::try_from(row.get::<_, i64>(i)?).unwrap_or(0))
                };
                Ok(UsageTotals {
                    provider: row.get(0)?,
                    model: row.get(1)?,
                    calls: n(2)?,
                    input_tokens: n(3)?,
                    output_tokens: n(4)?,
                    cost_usd: row.get(5)?,
                    priced_calls: n(6)?,
                })
            })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Tokens a session has used so far (for budgets across resumes).
    pub fn session_tokens(&self, session_id: &str) -> StoreResult<u64> {
        let total: i64 = self.conn()?.query_row(
            "SELECT COALESCE(SUM(input_tokens + output_tokens), 0) FROM usage WHERE session_id = ?1",
            params![session_id],
            |row| row.get(0),
        )?;
        Ok(u64::try_from(total).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(session: &str, model: &str, cost: Option<f64>, at: u64) -> UsageRow {
        UsageRow {
            session_id: session.into(),
            provider: "openai".into(),
            model: model.into(),
            input_tokens: 100,
            output_tokens: 10,
            cost_usd: cost,
            at_ms: at,
        }
    }

    #[test]
    fn totals_group_by_model_and_filter() {
        let store = Store::open_in_memory().unwrap();
        store.record_usage(&row("s1", "m1", Some(0.5), 10)).unwrap();
        store.record_usage(&row("s1", "m1", None, 20)).unwrap();
        store.record_usage(&row("s2", "m2", Some(1.0), 30)).unwrap();
        let all = store.usage_totals(None, None).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].calls, 2);
        assert_eq!(all[0].input_tokens, 200);
        assert_eq!(all[0].cost_usd, 0.5);
        assert_eq!(all[0].priced_calls, 1);
        assert_eq!(store.usage_totals(Some("s2"), None).unwrap().len(), 1);
        assert_eq!(store.usage_totals(None, Some(25)).unwrap()[0].model, "m2");
        assert_eq!(store.session_tokens("s1").unwrap(), 220);
    }
}
