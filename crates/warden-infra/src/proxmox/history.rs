//! Fetching a node's or guest's `rrddata` (AVERAGE and MAX, together) and
//! turning it into compact histories with [`super::rrd`].

use super::client::{ApiPath, PveClient};
use super::error::ProxmoxError;
use super::inventory::GuestInfo;
use super::rrd::{
    Consolidation, Metric, MetricHistory, RrdSource, RrdTable, Timeframe, build_histories,
    parse_rrddata,
};

/// Whose history.
#[derive(Debug, Clone, Copy)]
pub enum HistoryTarget<'a> {
    Node(&'a str),
    Guest(&'a GuestInfo),
}

impl HistoryTarget<'_> {
    fn rrd_path(&self) -> ApiPath {
        match self {
            HistoryTarget::Node(node) => ApiPath::new(["nodes", node, "rrddata"]),
            HistoryTarget::Guest(guest) => guest.api_path().join(["rrddata"]),
        }
    }

    /// What reading it needs (named on a 403).
    fn privilege(&self) -> &'static str {
        match self {
            HistoryTarget::Node(_) => "Sys.Audit",
            HistoryTarget::Guest(_) => "VM.Audit",
        }
    }

    fn source(&self) -> RrdSource {
        match self {
            HistoryTarget::Node(_) => RrdSource::Node,
            HistoryTarget::Guest(_) => RrdSource::Guest,
        }
    }
}

/// The histories of `metrics` (all the target has when empty) over
/// `timeframe`, each series at most `max_points` long.
pub async fn fetch_history(
    client: &PveClient,
    target: HistoryTarget<'_>,
    metrics: &[Metric],
    timeframe: Timeframe,
    max_points: usize,
) -> Result<Vec<MetricHistory>, ProxmoxError> {
    let path = target.rrd_path();
    let (average, max) = tokio::join!(
        fetch_table(
            client,
            &path,
            target.privilege(),
            timeframe,
            Consolidation::Average
        ),
        fetch_table(
            client,
            &path,
            target.privilege(),
            timeframe,
            Consolidation::Max
        ),
    );
    let (average, max) = (average?, max?);
    let source = target.source();
    let metrics = if metrics.is_empty() {
        Metric::for_source(source)
    } else {
        metrics
    };
    Ok(build_histories(
        &average, &max, source, metrics, timeframe, max_points,
    ))
}

async fn fetch_table(
    client: &PveClient,
    path: &ApiPath,
    privilege: &str,
    timeframe: Timeframe,
    cf: Consolidation,
) -> Result<RrdTable, ProxmoxError> {
    let query = [
        ("timeframe", timeframe.as_str().to_string()),
        ("cf", cf.as_param().to_string()),
    ];
    let data = client
        .get(path, &query)
        .await
        .map_err(|e| e.needing_privilege(privilege))?;
    parse_rrddata(&data).map_err(|e| client.decode_error(path, e.to_string()))
}
