//! Tokens and cost per provider and model.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::api::UsageView;
use crate::auth::{Authorized, needs};
use crate::error::ApiError;
use crate::state::{AppState, now_ms};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UsageQuery {
    /// How far back: `7d`, `24h`, `30m` or `90s` (default: everything).
    #[param(pattern = "^[0-9]{1,6}[dhms]$")]
    pub since: Option<String>,
}

/// `7d` → milliseconds.
pub fn parse_since(text: &str) -> Option<u64> {
    let unit = text.chars().last()?;
    let number: u64 = text[..text.len() - unit.len_utf8()].parse().ok()?;
    let factor = match unit {
        'd' => 86_400_000,
        'h' => 3_600_000,
        'm' => 60_000,
        's' => 1_000,
        _ => return None,
    };
    number.checked_mul(factor)
}

/// Usage per provider and model.
#[utoipa::path(get, path = "/api/usage", tag = "usage", params(UsageQuery),
    responses((status = 200, description = "Totals per provider and model", body = Vec<UsageView>)))]
pub async fn list(
    State(app): State<Arc<AppState>>,
    _: Authorized<needs::Viewer>,
    query: Result<Query<UsageQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<UsageView>>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::invalid(e.body_text()))?;
    let since_ms = match query.since.as_deref() {
        None => None,
        Some(text) => {
            let back = parse_since(text).ok_or_else(|| {
                ApiError::invalid_field("since", "use a number and d, h, m or s, e.g. 7d")
            })?;
            Some(now_ms().saturating_sub(back))
        }
    };
    let totals = app
        .store
        .usage_totals(None, since_ms)
        .map_err(ApiError::store)?;
    Ok(Json(
        totals
            .into_iter()
            .map(|t| UsageView {
                provider: t.provider,
                model: t.model,
                input_tokens: t.input_tokens,
                output_tokens: t.output_tokens,
                cost_usd: (t.priced_calls > 0).then_some(t.cost_usd),
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_durations() {
        let table = [
            ("7d", Some(7 * 86_400_000)),
            ("24h", Some(86_400_000)),
            ("30m", Some(1_800_000)),
            ("90s", Some(90_000)),
            ("7", None),
            ("d", None),
            ("7w", None),
            ("-1d", None),
            ("", None),
        ];
        for (text, expected) in table {
            assert_eq!(parse_since(text), expected, "{text}");
        }
    }
}
